"""Evaluate measures on a collection: one (runs x topics) matrix per measure."""

from __future__ import annotations

from functools import cache
from collections.abc import Iterable

import numpy as np

from ..collection import Collection
from .context import EvalContext
from .registry import Measure, parse_measure


@cache
def _takes_rel(func) -> bool:
    """Whether an implementation applies ``rel=`` itself (has a ``rel`` argument)."""
    import inspect

    return "rel" in inspect.signature(func).parameters


def evaluate(collection: Collection | EvalContext, measures: Iterable[str | Measure],
             gains=None, vocabulary: str | None = None, std=None) -> dict[str, np.ndarray]:
    """Compute every measure for every run and topic at once.

    Returns ``{measure.name: float64 array (runs, topics)}`` in the order given.  ``gains`` (for
    L1..LH) is the collection's default gain vector; a measure's own ``gains=`` parameter overrides it.
    ``vocabulary`` reads names given as text (:func:`~metaeval.metrics.registry.parse_measure`).

    Three parameters are applied here, not by the implementations: ``rel=`` (levels below it made
    L0; unless the implementation takes a ``rel`` argument, as the trec_eval family's graded
    measures, whose gains stay the levels), ``judged_only=True`` (any measure: the condensed lists,
    unjudged documents removed) -- both by :meth:`EvalContext.view` -- and ``gains=``.  A
    standardised measure (``std=``) is its measure's matrix standardised per topic as ``std`` (a
    :class:`~metaeval.metrics.standardise.StdSettings`; default: by every run) says.
    """
    ctx = collection if isinstance(collection, EvalContext) else EvalContext(collection, gains)
    out: dict[str, np.ndarray] = {}
    for m in measures:
        m = parse_measure(m, vocabulary)
        if m.param("std") is not None:     # score standardisation (metaeval.metrics.standardise)
            from .standardise import evaluate_standardised

            out[m.name] = evaluate_standardised(ctx, m, std, evaluate)
            continue
        d = m.definition
        own_rel = _takes_rel(d.func)
        params = {k: m.param(k) for k in d.params if k != "gains" and (k != "rel" or own_rel)}
        c = ctx.view(m.param("rel") if "rel" in d.params and not own_rel else 1, m.param("judged_only"))
        if "gains" in d.params and m.param("gains") is not None:
            c = c.with_gains(m.param("gains"))
        val = np.asarray(d.func(c, m.cutoff, **params), dtype=np.float64)
        R, T = len(ctx.collection.runs), len(ctx.collection.topics)
        if val.shape != (R, T):
            raise AssertionError(f"{m.name}: implementation returned shape {val.shape}, expected {(R, T)}")
        out[m.name] = val
    return out


def compute_matrices(collection: Collection | EvalContext, measures: Iterable[str | Measure], gains=None,
                     progress=None, std=None) -> dict[str, np.ndarray]:
    """:func:`evaluate`, one measure at a time, calling ``progress(i, n, name)`` after the i-th of
    the n measures (what ``metaeval matrices`` shows); the same ``{name: (runs, topics)}``."""
    ctx = collection if isinstance(collection, EvalContext) else EvalContext(collection, gains)
    measures = list(measures)
    out: dict[str, np.ndarray] = {}
    for i, m in enumerate(measures):
        out.update(evaluate(ctx, [m], std=std))
        if progress is not None:
            progress(i + 1, len(measures), parse_measure(m).name)
    return out
