"""Stage ``swap``: the swap method, per metric (Voorhees & Buckley 2002; Sakai 2007a Sec. 4.2)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import CaptionParam, Output, StageInfo, parameter
from .cite import SAKAI_A, SAKAI_B, SWAP_METHOD


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


def format_threshold(threshold: float) -> str:
    """A swap-rate threshold (a share) as captions and figure titles print it: ``5%``."""
    return f"{100.0 * float(threshold):g}%"


STAGE = StageInfo(
    "swap", "matrices", run, tables=("swap", "swap_rates"), metrics="other", per_metric=True,
    streams=("paired", "swap"), cost=1.5, title="swap method",
    params=SwapParams,
    reads=("B", "seed", "swap_threshold", "metrics", "geometric"),
    sections=((("swap",), "Swap method (Sakai 2007a, Sec. 4.2, Sakai (2007b) Sec. 7.2)."),),
    outputs=(
        Output("swap", "table", "collection",
               f"Swap method ({SWAP_METHOD}, {{bootstrap}}; swap rate <= {{swap_threshold}}): (ii) "
               "absolute difference required, "
               "(iii) maximum observed, their ratio, and the percentage of comparisons satisfying (ii)",
               f"Table 3 of {SAKAI_A} / Table 4 of {SAKAI_B}",
               columns=("metric", "diff_required", "max_diff", "relative", "pct_satisfying"), paper_order=5),
        Output("swap_rates", "table", "collection", f"Swap rate of {SWAP_METHOD} ({{bootstrap}}) per performance-difference "
               "bin (bin = lower edge)",
               f"the curves behind Table 3 of {SAKAI_A} / Table 4 of {SAKAI_B}",
               columns=("metric", "bin", "comparisons", "swaps", "swap_rate"), paper_order=6),
        Output("swap_rates", "figure", "collection",
               "Swap rate against performance-difference bin, one line per metric; the dotted line "
               "is the swap-rate threshold {swap_threshold}",
               f"the curves behind Table 3 of {SAKAI_A} / Table 4 of {SAKAI_B}", stages=("figures",),
               source="swap_rates", plot_params=(("threshold", "swap_threshold"),),
               draw="metaeval.report.figures:plot_swap_rates"),
        Output("swap_diff_required", "table", "summary",
               "Swap method: absolute difference required for a swap rate <= {swap_threshold} per "
               "collection", f"column (ii) of Table 3 of {SAKAI_A} / Table 4 of {SAKAI_B}", stages=("summary",),
               columns=("metric", "COLLECTION..."), source="swap",
               build="metaeval.report.summary:build_swap_diff_required"),
        Output("swap_relative", "table", "summary",
               "Swap method: relative difference required ((ii)/(iii), %) per collection",
               f"column (ii)/(iii) of Table 3 of {SAKAI_A} / Table 4 of {SAKAI_B}", stages=("summary",),
               columns=("metric", "COLLECTION..."), source="swap", build="metaeval.report.summary:build_swap_relative"),
        Output("swap_pct_satisfying", "table", "summary",
               "Swap method: % of comparisons satisfying the required difference per collection",
               f"{SAKAI_A} Fig. 9 / {SAKAI_B} Fig. 20", stages=("summary",), columns=("metric", "COLLECTION..."),
               source="swap", build="metaeval.report.summary:build_swap_pct_satisfying"),
        Output("swap_pct_satisfying", "figure", "summary",
               "Swap method: % of comparisons satisfying the difference required for a swap rate "
               "<= {swap_threshold}, per metric across the collections", f"{SAKAI_A} Fig. 9 / {SAKAI_B} Fig. 20",
               stages=("summary",), source="swap_pct_satisfying",
               draw="metaeval.report.summary:draw_swap_pct_satisfying"),
    ),
    caption_params=(CaptionParam("swap_threshold", format_threshold),))
