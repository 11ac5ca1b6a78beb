"""Stage ``paired``: the paired bootstrap test, its ASLs and t* distribution, per metric
(Sakai 2006, 2007a Sec. 4.3; ``AG_X`` on log scores, Sakai 2007b Sec. 5.1)."""

from __future__ import annotations

from ...stages import Param, StageInfo


def run(inputs, params):
    from ..run import stage_paired

    return stage_paired(inputs.matrices, inputs.metric, params, *inputs.samples)


STAGE = StageInfo(
    "paired", "matrices", run, tables=("bootstrap_paired", "asl", "tstar"), metrics="paired",
    per_metric=True, streams=("paired",), cost=2.0, title="paired bootstrap test",
    params=(Param("tstar_pair", str, None, "(run x, run y) of the t* table; None = ASL closest to alpha",
                  flag=None),),
    reads=("B", "alpha", "seed", "metrics", "geometric"))
