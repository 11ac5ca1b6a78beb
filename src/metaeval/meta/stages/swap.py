"""Stage ``swap``: the swap method, per metric (Voorhees & Buckley 2002; Sakai 2007a Sec. 4.2)."""

from __future__ import annotations

from ...stages import Param, StageInfo


def run(inputs, params):
    from ..run import stage_swap

    return stage_swap(inputs.matrices, inputs.metric, params, *inputs.samples)


STAGE = StageInfo(
    "swap", "matrices", run, tables=("swap", "swap_rates"), metrics="other", per_metric=True,
    streams=("paired", "swap"), cost=1.5, title="swap method",
    params=(
        Param("swap_threshold", float, 0.05, "largest swap rate (default 0.05)", config=("swap", "threshold"),
              schema={"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
              doc="Largest acceptable swap rate (papers - 5%)."),
        Param("swap_max_rule", str, "performance",
              "column (iii) of the swap table: maximum performance (default) or maximum |D|",
              flag="--swap-max", choices=("performance", "difference")),
        Param("swap_required_rule", str, "monotone",
              "read the required difference as the bin from which all swap rates are within "
              "the threshold (monotone, default) or the first such bin",
              flag="--swap-rule", choices=("monotone", "first")),
    ),
    reads=("B", "seed", "swap_threshold", "metrics", "geometric"),
    sections=((("swap",), "Swap method (Sakai 2007a, Sec. 4.2, Sakai (2007b) Sec. 7.2)."),))
