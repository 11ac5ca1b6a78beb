"""Stage ``kendall``: Kendall's tau between the run rankings of every pair of metrics
(Sakai 2007a, Sec. 4.1)."""

from __future__ import annotations

from ...stages import Param, StageInfo


def _check_variant(v):
    if v not in ("a", "b"):
        raise ValueError(f"kendall_variant must be 'a' or 'b', got {v!r}")


def run(inputs, params):
    from ..run import stage_kendall

    return stage_kendall(inputs.matrices, params, list(inputs.metrics))


STAGE = StageInfo(
    "kendall", "matrices", run, tables=("kendall",), metrics="plain", cost=0.1,
    title="Kendall's tau",
    params=(Param("kendall_variant", str, "a", "Kendall's tau-a (Sakai 2007a, Eq. 8, default) or tau-b",
                  flag="--kendall", choices=("a", "b"), check=_check_variant),),
    reads=("metrics",))
