"""Stage ``swap``: the swap method, per metric (Voorhees & Buckley 2002; Sakai 2007a Sec. 4.2)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import StageInfo, parameter


def stage_swap(matrices: dict, metric: str, cfg, samples=None, samples2=None) -> dict:
    """``swap`` (one row) and ``swap_rates`` (one row per bin) for one metric."""
    import pandas as pd

    from ..metric_forms import resolve_metric, samples_for
    from ..swap import swap_method

    df, _, stat = resolve_metric(matrices, metric, "swap")
    q1 = samples if samples is not None else samples_for(df, cfg)
    q2 = samples2 if samples2 is not None else samples_for(df, cfg, "swap")
    r = swap_method(df, q1, q2, threshold=cfg.swap_threshold, statistic=stat, max_rule=cfg.swap_max_rule,
                    required_rule=cfg.swap_required_rule, batch=cfg.batch, metric=metric)
    swap = pd.DataFrame([(metric, r.diff_required, r.max_value, r.relative, r.pct_satisfying)],
                        columns=["metric", "diff_required", "max_diff", "relative", "pct_satisfying"])
    rates = pd.DataFrame({"metric": metric, "bin": r.edges, "comparisons": r.counts, "swaps": r.swaps,
                          "swap_rate": r.swap_rate})
    return {"swap": swap, "swap_rates": rates}


def run(inputs, params):
    return stage_swap(inputs.matrices, inputs.metric, params, *inputs.samples)


@dataclass(frozen=True)
class SwapParams:
    """The stage's parameters (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    swap_threshold: float = parameter(0.05, "largest swap rate (default 0.05)", config=("swap", "threshold"),
        schema={"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        doc="Largest acceptable swap rate (papers - 5%).")
    swap_max_rule: str = parameter("performance",
        "column (iii) of the swap table: maximum performance (default) or maximum |D|", flag="--swap-max",
        choices=("performance", "difference"))
    swap_required_rule: str = parameter("monotone",
        "read the required difference as the bin from which all swap rates are within "
        "the threshold (monotone, default) or the first such bin", flag="--swap-rule",
        choices=("monotone", "first"))


STAGE = StageInfo(
    "swap", "matrices", run, tables=("swap", "swap_rates"), metrics="other", per_metric=True,
    streams=("paired", "swap"), cost=1.5, title="swap method",
    params=SwapParams,
    reads=("B", "seed", "swap_threshold", "metrics", "geometric"),
    sections=((("swap",), "Swap method (Sakai 2007a, Sec. 4.2, Sakai (2007b) Sec. 7.2)."),))
