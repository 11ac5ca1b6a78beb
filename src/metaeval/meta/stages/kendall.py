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
    outputs=(
        Output("kendall", "table", "collection",
               "Kendall's rank correlations between the system rankings of every two metrics "
               "(values above 0.8 in bold)", f"Table 2 of {SAKAI_A} / Table 5 of {SAKAI_B}",
               columns=("metric_a", "metric_b", "tau", "z0", "p_value")),
        Output("kendall", "table", "summary",
               "Kendall's tau of every metric pair per collection (above 0.8 in bold)",
               f"Table 2 of {SAKAI_A} / Table 5 of {SAKAI_B} across collections", stages=("summary",),
               columns=("metric_a", "metric_b", "COLLECTION..."), source="kendall"),
    ))
