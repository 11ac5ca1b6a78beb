"""Stage ``unpaired``: the unpaired bootstrap test and its ASLs, per metric (Sakai 2007b,
Sec. 6; ``G_X``: geometric means, Eq. 7)."""

from __future__ import annotations

from ...stages import StageInfo


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
    reads=("B", "alpha", "seed", "metrics", "geometric"))
