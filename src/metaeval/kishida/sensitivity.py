"""Sensitivity of (generalized) average precision to one document changing (Kishida 2005, Sec. 2.2, 3.2,
4.1.5, 4.2) and the generator of Table 1.

All ``delta_*`` functions are vectorised over the rank ``j``: for a list ``x`` of shape ``(..., n)``
they return ``(..., n)``, element ``j - 1`` being the change when the document at rank ``j`` turns
relevant (it is assumed irrelevant before; for ranks already relevant the value is that of setting
it to the new degree *in addition*, which is meaningless -- mask with ``x == 0``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .indicators import _ratio, _ranks, _x, average_precision, fit_length, n_relevant

__all__ = ["delta_ap", "delta_ap_new_relevant", "delta_ap_new_relevant_bottom",
           "delta_generalized_ap", "delta_q_measure", "table1"]


def _tail_sum(a) -> np.ndarray:
    """``out[..., j] = sum_{t > j} a[..., t]`` (exclusive suffix sum)."""
    c = np.cumsum(a[..., ::-1], axis=-1)[..., ::-1]
    return c - a


def delta_ap(x, R) -> np.ndarray:
    """Eq. (9)-(10): increment of average precision when the irrelevant document at rank ``j``
    becomes relevant, ``R`` held fixed:
    ``Delta v(j) = R^-1 (j^-1 sum_{k<=j} x_k + sum_{t>j} x_t / t)``, the first sum counting the new
    relevant document (it is ``p_j`` after the change).  Eq. (11): decreasing in ``j`` across
    consecutive irrelevant ranks.  Returns ``(..., n)``."""
    x = (_x(x) > 0).astype(np.float64)
    n = x.shape[-1]
    r = _ranks(n)
    before = np.cumsum(x, axis=-1) - x                 # sum_{k<j} x_k
    inc = (before + 1.0) / r + _tail_sum(x / r)
    return _ratio(inc, np.asarray(R, float)[..., None])


def delta_ap_new_relevant(x, R) -> np.ndarray:
    """Eq. (15)-(16): change of average precision when an *undiscovered* relevant document at rank
    ``j`` is found, so that ``R`` becomes ``R + 1``:
    ``(R+1)^-1 (j^-1 sum_{k<=j} x_k + sum_{t>j} x_t / t) - (R+1)^-1 v`` with ``v`` the score before.
    Returns ``(..., n)``."""
    x = (_x(x) > 0).astype(np.float64)
    R = np.asarray(R, float)
    v = average_precision(x, R)
    inc = delta_ap(x, R + 1.0)
    return inc - (v / (R + 1.0))[..., None]


def delta_ap_new_relevant_bottom(j, R, v) -> np.ndarray:
    """Eq. (17): the change when the new relevant document at rank ``j`` lies below all ``R``
    known relevant documents: ``j^-1 - v / (R + 1)`` (broadcast over ``j``, ``R``, ``v``).
    Negative when ``v j > R + 1``."""
    j, R, v = np.broadcast_arrays(np.asarray(j, float), np.asarray(R, float), np.asarray(v, float))
    return 1.0 / j - v / (R + 1.0)


def delta_generalized_ap(x, y, degree) -> np.ndarray:
    """Eq. (44): increment of generalized average precision when the irrelevant document at rank
    ``j`` gets degree ``x_j = degree`` with the ideal list ``y`` fixed:
    ``(j^-1 sum_{k<=j} x_k + sum_{t>j} I(x_t) x_j / t) / sum_i I(y_i) ybar_i``.  Returns ``(..., n)``."""
    x = _x(x)
    y = np.asarray(y, float)
    n, m = x.shape[-1], y.shape[-1]
    r = _ranks(n)
    den = ((y > 0) * np.cumsum(y, axis=-1) / _ranks(m)).sum(axis=-1)
    before = np.cumsum(x, axis=-1) - x
    inc = (before + degree) / r + degree * _tail_sum((x > 0) / r)
    return _ratio(inc, den[..., None])


def delta_q_measure(x, y, degree) -> np.ndarray:
    """Eq. (37): increment of Kishida's Q-measure when the irrelevant document at rank ``j`` gets
    degree ``x_j = degree`` (ideal list fixed):
    ``R^-1 ((sum_{k<=j} I(x_k)(x_k+1)) / (j + sum_{k<=j} y_k)
    + sum_{i>j} I(x_i) (x_j + 1) / (i + sum_{k<=i} y_k))``.  Returns ``(..., n)``."""
    x = _x(x)
    n = x.shape[-1]
    r = _ranks(n)
    cy = np.cumsum(fit_length(y, n), axis=-1)
    rel = x > 0
    before = np.cumsum(rel * (x + 1.0), axis=-1) - rel * (x + 1.0)
    inc = (before + degree + 1.0) / (r + cy) + (degree + 1.0) * _tail_sum(rel / (r + cy))
    return _ratio(inc, np.asarray(n_relevant(y), float)[..., None])


def table1(R=(10, 50, 100), v=(0.1, 0.3, 0.5), j: int = 101) -> pd.DataFrame:
    """Table 1: Eq. (17) for every (R, v) at rank ``j`` (the report: j = 101).

    Long form, columns ``R, v, delta``, rows ordered by R then v."""
    Rg, vg = np.meshgrid(np.asarray(R, dtype=np.int64), np.asarray(v, dtype=float), indexing="ij")
    delta = delta_ap_new_relevant_bottom(j, Rg, vg)
    return pd.DataFrame({"R": Rg.ravel(), "v": vg.ravel(), "delta": delta.ravel()})
