"""The "all" line of a measure (``meas_avg.c``): the sequential sum of its per-topic values over the
topics (in trec_eval's topic order), then the mean, the sum (counts), the geometric mean (the
per-topic values are already logarithms, ``m_gm_map.c``) or the number of topics.

:func:`totals` is the one sequential sum; :func:`finish` turns sums into the "all" values;
:func:`summary` is one run's line for the drop-in, :func:`aggregate` every run's for the registry
(``trec.*`` measures, whose per-topic values are AP / bpref for the geometric means)."""

from __future__ import annotations

import math

import numpy as np

from .. import detmath
from .table import MEASURES, MIN_GEO_MEAN

__all__ = ["totals", "finish", "summary", "aggregate"]


def totals(values) -> np.ndarray:
    """The sequential sums over the topics (last axis) of (..., T) values (``np.cumsum``: the
    order of trec_eval's loop, never a pairwise sum)."""
    v = np.asarray(values, np.float64)
    return detmath.running_sum(v)[..., -1] if v.shape[-1] else np.zeros(v.shape[:-1])


def finish(total, aggregate: str, num_q: int):
    """The "all" values from the sequential sums ``total`` (an array or a float) of ``num_q``
    topics: ``sum`` / ``num_rel`` the sum, ``mean`` the sum over num_q (the sum when there is no
    topic), ``gm`` exp(sum / num_q) by C's ``exp``, ``num_q`` the number of topics."""
    s = np.asarray(total, np.float64)
    if aggregate in ("sum", "num_rel"):
        out = s
    elif aggregate == "mean":
        out = s / num_q if num_q else s
    elif aggregate == "gm":
        out = s if num_q <= 0 else np.array([math.exp(x / num_q) for x in s.ravel().tolist()]).reshape(s.shape)
    elif aggregate == "num_q":
        out = np.full(s.shape, float(num_q))
    else:
        raise KeyError(aggregate)
    return float(out) if out.ndim == 0 else out


def summary(values: np.ndarray, aggregate: str, num_q: int, total: float | None = None) -> float:
    """One run's "all" value of one measure from its per-topic values (1-D); ``total``: their
    :func:`totals` when the caller has it already."""
    return finish(totals(values) if total is None else total, aggregate, num_q)


def aggregate(base: str, values: np.ndarray) -> np.ndarray:
    """The summary ("all" line) of a ``trec.*`` measure from its (runs, topics) values, over the
    topics given: the mean; the sum for the counts; for ``trec.gm_map`` / ``trec.gm_bpref`` the
    geometric mean with trec_eval's floor ``MIN_GEO_MEAN`` (per-topic values are AP / bpref)."""
    name = base.removeprefix("trec.")
    agg = MEASURES[name].aggregate
    v = np.asarray(values, np.float64)
    if agg == "gm":
        v = detmath.log(np.maximum(v, MIN_GEO_MEAN))
    return np.asarray(finish(totals(v), agg, v.shape[-1]))
