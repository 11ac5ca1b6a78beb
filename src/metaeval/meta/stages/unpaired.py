"""Stage ``unpaired``: the unpaired bootstrap test and its ASLs, per metric (Sakai 2007b,
Sec. 6; ``G_X``: geometric means, Eq. 7)."""

from __future__ import annotations

from ...stages import Output, StageInfo
from .common import BY_SENSITIVITY
from .cite import SAKAI_B, UNPAIRED_BOOTSTRAP


def stage_unpaired(matrices: dict, metric: str, cfg, samples=None) -> dict:
    """``bootstrap_unpaired`` (one row) and ``asl`` (test = unpaired) for one metric."""
    from ..bootstrap import unpaired_bootstrap
    from ..metric_forms import asl_frame, boot_row, resolve_metric, samples_for

    df, _, stat = resolve_metric(matrices, metric, "unpaired")
    smp = samples if samples is not None else samples_for(df, cfg, "unpaired")
    res = unpaired_bootstrap(df, smp, alpha=cfg.alpha, statistic=stat, batch=cfg.batch, metric=metric)
    return {"bootstrap_unpaired": boot_row(metric, res), "asl": asl_frame(metric, "unpaired", res)}


def run(inputs, params):
    return stage_unpaired(inputs.matrices, inputs.metric, params, *inputs.samples)


STAGE = StageInfo(
    "unpaired", "matrices", run, tables=("bootstrap_unpaired", "asl"), metrics="other", per_metric=True,
    streams=("unpaired",), cost=1.5, title="unpaired bootstrap test",
    reads=("B", "alpha", "seed", "metrics", "geometric"),
    outputs=(
        Output("bootstrap_unpaired", "table", "collection",
               f"Unpaired bootstrap sensitivity ({UNPAIRED_BOOTSTRAP}, {{bootstrap}}): system pairs with "
               "ASL < alpha = {alpha}, and the estimated overall difference required (two significant figures)",
               f"Table 3 of {SAKAI_B}",
               columns=("metric", "pairs", "significant", "sensitivity", "estimated_diff"), paper_order=4, row_order=BY_SENSITIVITY),
        Output("asl_unpaired", "figure", "collection",
               f"ASL curves of {UNPAIRED_BOOTSTRAP} ({{bootstrap}}): the ASL of every system pair, pairs "
               "sorted by ASL, one line per metric; the dotted line is alpha = {alpha}", f"{SAKAI_B} Figs 11 and 13",
               stages=("figures",), source="asl", draw_seconds=0.7, plot_params=(("alpha", "alpha"),),
               draw="metaeval.report.figures:plot_asl_curves", draw_kwargs=(("test", "unpaired"),)),
        Output("sensitivity_unpaired", "table", "summary",
               "Unpaired bootstrap sensitivity (% of system pairs with ASL < alpha = {alpha}) per "
               "collection", f"{SAKAI_B} Fig. 15", stages=("summary",), columns=("metric", "COLLECTION..."),
               source="bootstrap_unpaired", build="metaeval.report.summary:build_sensitivity_unpaired"),
        Output("estimated_diff_unpaired", "table", "summary",
               "Unpaired bootstrap: estimated difference required per collection",
               f"column (iii) of Table 3 of {SAKAI_B}", stages=("summary",), columns=("metric", "COLLECTION..."),
               source="bootstrap_unpaired", build="metaeval.report.summary:build_estimated_diff_unpaired"),
        Output("sensitivity_unpaired", "figure", "summary",
               "Unpaired bootstrap sensitivity (% of system pairs with ASL < alpha = {alpha}) per "
               "metric across the collections", f"{SAKAI_B} Fig. 15", stages=("summary",),
               source="sensitivity_unpaired", draw="metaeval.report.summary:draw_sensitivity_unpaired"),
        Output("asl_unpaired", "figure", "summary",
               "Unpaired test ASL curves, one panel per collection; the dotted line is "
               "alpha = {alpha}", f"{SAKAI_B} Figs 11 and 13 for every collection", stages=("summary",),
               source="asl", draw="metaeval.report.summary:draw_asl_unpaired"),
    ))
