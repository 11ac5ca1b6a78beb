"""Stage ``unpaired``: the unpaired bootstrap test and its ASLs, per metric (Sakai 2007b,
Sec. 6; ``G_X``: geometric means, Eq. 7)."""

from __future__ import annotations

from ...stages import StageInfo


def run(inputs, params):
    from ..run import stage_unpaired

    return stage_unpaired(inputs.matrices, inputs.metric, params, *inputs.samples)


STAGE = StageInfo(
    "unpaired", "matrices", run, tables=("bootstrap_unpaired", "asl"), metrics="other", per_metric=True,
    streams=("unpaired",), cost=1.5, title="unpaired bootstrap test",
    reads=("B", "alpha", "seed", "metrics", "geometric"))
