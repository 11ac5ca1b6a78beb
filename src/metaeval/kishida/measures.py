"""Kishida's (2005) indicators registered as measures of the metric registry.

Names all start with ``kishida-`` so they cannot be confused with NTCIREVAL's (whose ``GAP`` is
Robertson's graded AP, not Kishida's generalized AP); they contain only ``[A-Za-z-]`` so they are
safe file stems and shell words.

=================== =========== ===========================================================
name                equation    indicator
=================== =========== ===========================================================
``kishida-vG``      Eq. 42      generalized average precision v_G
``kishida-vW``      Eq. 34      weighted average precision v_W (Kando et al.)
``kishida-vQ``      Eq. 35      Q-measure in Kishida's form v_Q (= NTCIREVAL ``Q-measure``,
                                beta = 1, on the full list)
``kishida-vS``      Eq. 26      sliding ratio v_S (Pollack)
``kishida-vSprime`` Eq. 27      modified sliding ratio v_S' (Sagara)
``kishida-vD``      Eq. 30-32   averaged normalised DCG v_D, parameter ``b`` (log base, 2)
``kishida-gP``      Sec. 4.1.4  generalized precision g_P (degrees / highest gain)
``kishida-gR``      Sec. 4.1.4  generalized recall g_R
``kishida-RHL``     Sec. 4.1.3  ranked half-life (median of grouped data; a rank, lower is
                                better, NaN when the list has no relevant document)
``kishida-Rprec``   Eq. 6       R-precision
``kishida-zr``      Eq. 7       normalized recall z_r, parameter ``N`` (collection size)
``kishida-zp``      Eq. 8       normalized precision z_p, parameter ``N``
=================== =========== ===========================================================

Conventions:

* the relevance degree ``x_k`` of a document is the *gain* of its level (default gains 1:2:..:H,
  i.e. the level itself; a ``gains=`` parameter overrides it); unjudged and padding count 0;
  ``I(x) = [x > 0]``; the ideal list ``y`` is the context's ideal list of all relevant documents
  of the topic (fixed by the qrels, not by the run);
* the list length ``n`` is the cutoff if one is given, else ``n = 1000`` (Kishida's "usually
  n = 1000", the conventional TREC/NTCIR depth) -- longer lists are truncated, shorter ones are
  padded with irrelevant documents.  This matters for ``kishida-vD`` (average over ranks 1..n: a
  run of length 1000 is averaged over 1000 ranks unless a cutoff such as ``kishida-vD@10`` is
  given), ``kishida-gP`` (divisor n) and, when n < R, the ideal sums of v_S, v_S', v_W, v_Q, v_D.
  ``kishida-zr``/``kishida-zp`` use the whole list (or the cutoff) and need ``N >= n``;
* topics without relevant documents score 0 (RHL: NaN).
"""

from __future__ import annotations

import math

import numpy as np

from ..metrics.context import EvalContext
from ..metrics.registry import MeasureDef, Param, format_gains, parse_gains, register
from . import indicators as K

__all__ = ["DEFAULT_N", "MEASURE_NAMES"]

#: list length n used when a measure is given without a cutoff
DEFAULT_N = 1000


def _gains() -> Param:
    return Param(None, parse_gains, "gain values (relevance degrees) for L1..LH", format_gains)


def _base(text: str) -> float:
    v = float(text)
    if not (v > 1.0 and math.isfinite(v)):
        raise ValueError(f"{text!r}: expected a log base > 1")
    return v


def _size(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise ValueError(f"{text!r}: expected a positive integer") from None
    if v < 1:
        raise ValueError(f"{text!r}: expected a positive integer")
    return v


def _x(ctx: EvalContext, cutoff: int | None, pad: bool = True) -> np.ndarray:
    """(runs, topics, n) degrees, n = cutoff or DEFAULT_N (zero-padded when ``pad``)."""
    g = ctx.gain
    n = DEFAULT_N if cutoff is None else int(cutoff)
    if not pad:
        n = min(n, g.shape[-1]) if cutoff is not None else g.shape[-1]
    return K.fit_length(g, n)


def _y(ctx: EvalContext) -> np.ndarray:
    return np.asarray(ctx.ideal_gain, dtype=np.float64)


def _vG(ctx, cutoff):
    return K.generalized_average_precision(_x(ctx, cutoff), _y(ctx))


def _vW(ctx, cutoff):
    return K.weighted_average_precision(_x(ctx, cutoff), _y(ctx))


def _vQ(ctx, cutoff):
    return K.q_measure(_x(ctx, cutoff), _y(ctx))


def _vS(ctx, cutoff):
    return K.sliding_ratio(_x(ctx, cutoff), _y(ctx))


def _vSprime(ctx, cutoff):
    return K.modified_sliding_ratio(_x(ctx, cutoff), _y(ctx))


def _vD(ctx, cutoff, b=2.0):
    return K.averaged_ndcg(_x(ctx, cutoff), _y(ctx), b=b)


def _gP(ctx, cutoff):
    top = float(np.max(ctx.gain_of_level))
    if top <= 0:
        raise ValueError("kishida-gP: every gain value is 0")
    return K.generalized_precision(_x(ctx, cutoff), top)


def _gR(ctx, cutoff):
    return K.generalized_recall(_x(ctx, cutoff), _y(ctx))


def _rhl(ctx, cutoff):
    return K.ranked_half_life(_x(ctx, cutoff, pad=False))


def _rprec(ctx, cutoff):
    return K.r_precision(ctx.gain, K.n_relevant(_y(ctx)))


def _need_n(name, N):
    if N is None:
        raise ValueError(f"{name} needs the collection size N, e.g. {name}(N=100000)")
    return N


def _zr(ctx, cutoff, N=None):
    return K.normalized_recall(_x(ctx, cutoff, pad=False), K.n_relevant(_y(ctx)),
                               _need_n("kishida-zr", N))


def _zp(ctx, cutoff, N=None):
    return K.normalized_precision(_x(ctx, cutoff, pad=False), K.n_relevant(_y(ctx)),
                                  _need_n("kishida-zp", N))


_N = Param(None, _size, "collection size N (number of documents in the database)")

_DEFS = [
    ("kishida-vG", _vG, {}, True, "generalized average precision v_G (Kishida 2005, Eq. 42)"),
    ("kishida-vW", _vW, {}, True, "weighted average precision v_W (Kishida 2005, Eq. 34)"),
    ("kishida-vQ", _vQ, {}, True, "Kishida's Q-measure v_Q (Kishida 2005, Eq. 35)"),
    ("kishida-vS", _vS, {}, True, "sliding ratio v_S (Kishida 2005, Eq. 26)"),
    ("kishida-vSprime", _vSprime, {}, True, "modified sliding ratio v_S' (Kishida 2005, Eq. 27)"),
    ("kishida-vD", _vD, {"b": Param(2.0, _base, "log base b of the discount")}, True,
     "averaged normalised DCG v_D over ranks 1..n (Kishida 2005, Eq. 30-32)"),
    ("kishida-gP", _gP, {}, True, "generalized precision g_P (Kishida 2005, Sec. 4.1.4)"),
    ("kishida-gR", _gR, {}, True, "generalized recall g_R (Kishida 2005, Sec. 4.1.4)"),
    ("kishida-RHL", _rhl, {}, False, "ranked half-life (Kishida 2005, Sec. 4.1.3), a rank"),
]

for _name, _func, _params, _bounded, _doc in _DEFS:
    register(MeasureDef(_name, _func, cutoff="optional", params={**_params, "gains": _gains()},
                        bounded=_bounded, doc=_doc))

register(MeasureDef("kishida-Rprec", _rprec, cutoff="forbidden", params={},
                    doc="R-precision (Kishida 2005, Eq. 6)"))
register(MeasureDef("kishida-zr", _zr, cutoff="optional", params={"N": _N},
                    doc="normalized recall z_r given the collection size N (Kishida 2005, Eq. 7)"))
register(MeasureDef("kishida-zp", _zp, cutoff="optional", params={"N": _N},
                    doc="normalized precision z_p given the collection size N (Kishida 2005, Eq. 8)"))

#: every registered Kishida measure base name
MEASURE_NAMES = tuple(d[0] for d in _DEFS) + ("kishida-Rprec", "kishida-zr", "kishida-zp")
