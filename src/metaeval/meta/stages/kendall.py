"""Stage ``kendall``: Kendall's tau between the run rankings of every pair of metrics
(Sakai 2007a, Sec. 4.1)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import Output, StageInfo, parameter
from .cite import SAKAI_A, SAKAI_B


def _check_variant(v):
    if v not in ("a", "b"):
        raise ValueError(f"kendall_variant must be 'a' or 'b', got {v!r}")


def stage_kendall(matrices: dict, cfg, metrics: list[str] | None = None) -> dict:
    """``kendall``: Kendall's tau between every two metrics' run rankings."""
    import pandas as pd

    from ..kendall import rank_correlations
    from ..metric_forms import default_metrics

    metrics = [m for m in (metrics or default_metrics(matrices, cfg)) if m in matrices]
    if len(metrics) < 2:
        return {"kendall": pd.DataFrame(columns=["metric_a", "metric_b", "tau", "z0", "p_value"])}
    return {"kendall": rank_correlations(matrices, metrics, cfg.kendall_variant)}


def run(inputs, params):
    return stage_kendall(inputs.matrices, params, list(inputs.metrics))


def same_measure_note(kendall, matrices, labels=None) -> str:
    """The caption note of the Kendall table when two of its measures have identical matrices (the
    same measure under two names, e.g. MSnDCG@10 and trec.ndcg_cut@10 under gains 1:2:3): their tau
    is 1 by construction.  '' when none (or no matrices given); ``labels``: ``{name: label}``."""
    if not matrices or kendall is None or not len(kendall):
        return ""
    from ..matrices import identical_measures

    shown = set(kendall["metric_a"]) | set(kendall["metric_b"])
    pairs = identical_measures({m: matrices[m] for m in matrices if m in shown})
    if not pairs:
        return ""
    lab = dict(labels or {})
    said = "; ".join(f"{lab.get(a, a)} and {lab.get(b, b)}" for a, b in pairs)
    return (f"Note: {said} {'are' if len(pairs) == 1 else 'are pairs of'} the same measure here "
            f"(identical per-topic scores), so their tau is 1 by construction.")


@dataclass(frozen=True)
class KendallParams:
    """The stage's parameters (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    kendall_variant: str = parameter("a", "Kendall's tau-a (Sakai 2007a, Eq. 8, default) or tau-b", flag="--kendall",
        choices=("a", "b"), check=_check_variant)


STAGE = StageInfo(
    "kendall", "matrices", run, tables=("kendall",), metrics="plain", cost=0.1,
    title="Kendall's tau",
    params=KendallParams,
    reads=("metrics",),
    caption_notes=(("kendall", same_measure_note),),
    outputs=(
        Output("kendall", "table", "collection",
               "Kendall's rank correlations between the system rankings of every two metrics "
               "(values above 0.8 in bold)", f"Table 2 of {SAKAI_A} / Table 5 of {SAKAI_B}",
               columns=("metric_a", "metric_b", "tau", "z0", "p_value"), paper_order=2),
        Output("kendall", "table", "summary",
               "Kendall's tau of every metric pair per collection (above 0.8 in bold)",
               f"Table 2 of {SAKAI_A} / Table 5 of {SAKAI_B} across collections", stages=("summary",),
               columns=("metric_a", "metric_b", "COLLECTION..."), source="kendall",
               build="metaeval.report.summary:build_kendall"),
    ))
