"""Stage ``paired``: the paired bootstrap test, its ASLs and t* distribution, per metric
(Sakai 2006, 2007a Sec. 4.3; ``AG_X`` on log scores, Sakai 2007b Sec. 5.1)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import CaptionParam, Output, StageInfo, parameter
from .common import BY_SENSITIVITY, format_alpha
from .cite import PAIRED_BOOTSTRAP, SAKAI_A, SAKAI_B, UNPAIRED_BOOTSTRAP


def stage_paired(matrices: dict, metric: str, cfg, samples=None) -> dict:
    """``bootstrap_paired`` (one row), ``asl`` (test = paired) and ``tstar`` for one metric."""
    import numpy as np
    import pandas as pd

    from ..bootstrap import paired_bootstrap, paired_tstar
    from ..metric_forms import asl_frame, boot_row, resolve_metric, samples_for

    df, transform, _ = resolve_metric(matrices, metric, "paired")
    smp = samples if samples is not None else samples_for(df, cfg)
    res = paired_bootstrap(df, smp, alpha=cfg.alpha, transform=transform, batch=cfg.batch, metric=metric)
    if cfg.tstar_pair is not None:
        runs = list(res.runs)
        i, j = (runs.index(str(r)) for r in cfg.tstar_pair)
    else:
        p = int(np.argmin(np.abs(res.asl - cfg.alpha)))      # first pair on ties
        i, j = int(res.pair_x[p]), int(res.pair_y[p])
    t_obs, t = paired_tstar(df, (i, j), smp, transform=transform, metric=metric)
    tstar = pd.DataFrame({"metric": metric, "system_x": res.runs[i], "system_y": res.runs[j],
                          "t_observed": t_obs, "t_star": t})
    return {"bootstrap_paired": boot_row(metric, res), "asl": asl_frame(metric, "paired", res),
            "tstar": tstar}


def run(inputs, params):
    return stage_paired(inputs.matrices, inputs.metric, params, *inputs.samples)


@dataclass(frozen=True)
class PairedParams:
    """The stage's parameters (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    tstar_pair: tuple[str, str] | None = parameter(None, "(run x, run y) of the t* table; None = ASL closest to alpha",
                                               flag=None)


STAGE = StageInfo(
    "paired", "matrices", run, tables=("bootstrap_paired", "asl", "tstar"), metrics="paired",
    per_metric=True, streams=("paired",), cost=2.0, title="paired bootstrap test",
    params=PairedParams,
    reads=("B", "alpha", "seed", "metrics", "geometric"),
    outputs=(
        Output("bootstrap_paired", "table", "collection",
               f"Paired bootstrap sensitivity ({PAIRED_BOOTSTRAP}, {{bootstrap}}): system pairs with ASL "
               "< alpha = {alpha}, and the estimated overall difference required (two significant figures)",
               f"Table 4 of {SAKAI_A} / Table 2 of {SAKAI_B}",
               columns=("metric", "pairs", "significant", "sensitivity", "estimated_diff"), paper_order=3, row_order=BY_SENSITIVITY),
        Output("asl", "table", "collection", f"Achieved significance level of every system pair under {PAIRED_BOOTSTRAP} and "
               f"{UNPAIRED_BOOTSTRAP} ({{bootstrap}})",
               f"the data of {SAKAI_B} Figs 10-13", stages=("paired", "unpaired"),
               columns=("metric", "test", "system_x", "system_y", "asl"), paper_order=11),
        Output("tstar", "table", "collection",
               f"Bootstrap replicates t* ({{bootstrap}}) of {PAIRED_BOOTSTRAP} for the chosen system pair "
               "of each metric",
               f"the data of {SAKAI_B} Figs 4-5",
               columns=("metric", "system_x", "system_y", "t_observed", "t_star"), paper_order=13),
        Output("asl_paired", "figure", "collection",
               f"ASL curves of {PAIRED_BOOTSTRAP} ({{bootstrap}}): the ASL of every system pair, pairs "
               "sorted by ASL, one line per metric; the dotted line is alpha = {alpha}", f"{SAKAI_B} Figs 10 and 12",
               stages=("figures",), source="asl", draw_seconds=0.7, plot_params=(("alpha", "alpha"),),
               draw="metaeval.report.figures:plot_asl_curves", draw_kwargs=(("test", "paired"),)),
        Output("tstar", "figure", "collection",
               f"Histogram of the bootstrap replicates t* ({{bootstrap}}) of {PAIRED_BOOTSTRAP} for the "
               "chosen system pair, observed t marked",
               f"{SAKAI_B} Figs 4-5", stages=("figures",), source="tstar", draw_seconds=3.0,
               draw="metaeval.report.figures:plot_tstar"),
        Output("sensitivity_paired", "table", "summary",
               "Paired bootstrap sensitivity (% of system pairs with ASL < alpha = {alpha}) per "
               "collection", f"{SAKAI_A} Fig. 10 / {SAKAI_B} Fig. 14", stages=("summary",),
               columns=("metric", "COLLECTION..."), source="bootstrap_paired",
               build="metaeval.report.summary:build_sensitivity_paired"),
        Output("estimated_diff_paired", "table", "summary",
               "Paired bootstrap: estimated difference required per collection",
               f"column (iii) of Table 4 of {SAKAI_A} / Table 2 of {SAKAI_B}", stages=("summary",),
               columns=("metric", "COLLECTION..."), source="bootstrap_paired",
               build="metaeval.report.summary:build_estimated_diff_paired"),
        Output("sensitivity_paired", "figure", "summary",
               "Paired bootstrap sensitivity (% of system pairs with ASL < alpha = {alpha}) per "
               "metric across the collections", f"{SAKAI_A} Fig. 10 / {SAKAI_B} Fig. 14", stages=("summary",),
               source="sensitivity_paired", draw="metaeval.report.summary:draw_sensitivity_paired"),
        Output("asl_paired", "figure", "summary",
               "Paired test ASL curves, one panel per collection; the dotted line is alpha = {alpha}",
               f"{SAKAI_B} Figs 10 and 12 for every collection", stages=("summary",), source="asl",
               draw="metaeval.report.summary:draw_asl_paired"),
    ),
    caption_params=(CaptionParam("alpha", format_alpha),))
