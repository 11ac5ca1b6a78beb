"""Evaluate measures on a collection: one (runs x topics) matrix per measure."""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..collection import Collection
from .context import EvalContext
from .registry import Measure, parse_measure


def evaluate(collection: Collection | EvalContext, measures: Iterable[str | Measure],
             gains=None) -> dict[str, np.ndarray]:
    """Compute every measure for every run and topic at once.

    Returns ``{measure.name: float64 array (runs, topics)}`` in the order given.  ``gains`` (for
    L1..LH) is the collection's default gain vector; a measure's own ``gains=`` parameter overrides it.
    """
    ctx = collection if isinstance(collection, EvalContext) else EvalContext(collection, gains)
    out: dict[str, np.ndarray] = {}
    for m in measures:
        m = parse_measure(m)
        d = m.definition
        params = {k: m.param(k) for k in d.params if k != "gains"}
        c = ctx.with_gains(m.param("gains")) if "gains" in d.params and m.param("gains") is not None else ctx
        val = np.asarray(d.func(c, m.cutoff, **params), dtype=np.float64)
        R, T = len(ctx.collection.runs), len(ctx.collection.topics)
        if val.shape != (R, T):
            raise AssertionError(f"{m.name}: implementation returned shape {val.shape}, expected {(R, T)}")
        out[m.name] = val
    return out
