"""Stage ``paired``: the paired bootstrap test, its ASLs and t* distribution, per metric
(Sakai 2006, 2007a Sec. 4.3; ``AG_X`` on log scores, Sakai 2007b Sec. 5.1)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import StageInfo, parameter


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
    reads=("B", "alpha", "seed", "metrics", "geometric"))
