"""What every method stage shares: the metric a (possibly ``AG_``/``G_``-prefixed) name reads and
its statistic, the stages' metric lists, the default metrics, the seed-derived bootstrap samples
and the rows the bootstrap stages write.

``AP`` is evaluated as is; ``AG_AP`` is the paired test on ``log(AP + 0.00001)`` (Sakai 2007b,
Sec. 5.1; only in the paired stage); ``G_AP`` is the geometric mean of Sakai (2007b) Eq. 7
(unpaired, swap and stability stages).
"""

from __future__ import annotations

import pandas as pd

from .samples import BootstrapSamples
from .statistics import GMEAN, MEAN, Statistic, _identity, log_transform

__all__ = ["AG_LOG", "resolve_metric", "matrix_name", "stage_metric_lists", "default_metrics", "samples_for",
           "boot_row", "asl_frame"]

AG_LOG = Statistic("ag_mean", transform=log_transform, outer=_identity)


def resolve_metric(matrices: dict, name: str, stage: str):
    """``(DataFrame, transform, statistic)`` for a metric name (plain, ``AG_X`` or ``G_X``)."""
    if name in matrices:
        return matrices[name], None, MEAN
    if name.startswith("AG_") and name[3:] in matrices:
        return matrices[name[3:]], "log", AG_LOG
    if name.startswith("G_") and name[2:] in matrices:
        if stage == "paired":
            raise ValueError(f"{name}: the paired test is on arithmetic means; use AG_{name[2:]} "
                             "(Sakai 2007b, Sec. 5.1) or the unpaired test for the geometric mean")
        return matrices[name[2:]], None, GMEAN
    raise ValueError(f"no matrix for metric {name!r} (have: {', '.join(sorted(matrices))})")


def matrix_name(metric: str) -> str:
    """The matrix a (possibly ``AG_``/``G_``-prefixed) metric name reads: ``AG_AP`` and ``G_AP``
    read ``AP``."""
    for prefix in ("AG_", "G_"):
        if metric.startswith(prefix):
            return metric[len(prefix):]
    return metric


def stage_metric_lists(metrics: list[str], geometric=()) -> dict[str, list[str]]:
    """The metric list of every kind of stage, from the metrics asked for and ``geometric``:

    ``plain``  the metrics without ``AG_``/``G_`` prefix (Kendall's tau);
    ``paired`` plain + every ``AG_X`` given + ``AG_X`` for X in ``geometric`` (Sakai 2007b, Sec. 5.1);
    ``other``  plain + every ``G_X`` given + ``G_X`` for X in ``geometric`` (unpaired, swap, stability,
               run means).
    """
    plain = [m for m in metrics if not (m.startswith(("AG_", "G_")))]
    geo = list(geometric)
    paired = plain + [m for m in metrics if m.startswith("AG_")] + [f"AG_{g}" for g in geo]
    other = plain + [m for m in metrics if m.startswith("G_")] + [f"G_{g}" for g in geo]
    return {"plain": plain, "paired": list(dict.fromkeys(paired)), "other": list(dict.fromkeys(other))}


def default_metrics(matrices, cfg) -> list[str]:
    """Every matrix except those a stage reads besides its metrics' (the gain-sweep variants:
    :attr:`metaeval.stages.StageInfo.extra_matrices`), in the given order (``cfg``: a MetaConfig)."""
    from .. import stages

    extra = {m for s in stages.REGISTRY if s.extra_matrices is not None for m in s.extra_matrices(cfg)}
    return [m for m in matrices if m not in extra]


def samples_for(df, cfg, stream: str = "paired") -> BootstrapSamples:
    """The seed-derived bootstrap samples of ``stream`` for the topics of ``df``."""
    return BootstrapSamples.from_seed(cfg.seed, df.shape[0], cfg.B, stream)


def asl_frame(metric, test, res) -> pd.DataFrame:
    """The ``asl`` rows of one bootstrap test of one metric."""
    return pd.DataFrame({"metric": metric, "test": test, "system_x": res.system_x,
                         "system_y": res.system_y, "asl": res.asl})


def boot_row(metric, res) -> pd.DataFrame:
    """The one row of a bootstrap sensitivity table (``bootstrap_paired`` / ``_unpaired``)."""
    return pd.DataFrame([(metric, res.n_pairs, res.significant, res.sensitivity, res.estimated_diff)],
                        columns=["metric", "pairs", "significant", "sensitivity", "estimated_diff"])
