"""Kishida (2005) evaluation indicators as vectorised array functions.

Every function works on arrays of any leading shape: ``x`` is ``(..., n)``, the relevance degrees
``x_1..x_n`` of a ranked output of ``n`` documents (``x_k >= 0``; 0 = irrelevant, unjudged or
padding -- see :func:`degrees_from_levels`).  ``y`` is ``(..., m)``, the *ideal* ranked list
``y_1, y_2, ...`` of all relevant documents of the topic in decreasing order of degree (any length
``m``, zero-padded or not); its leading shape must broadcast against ``x``'s.  Where a formula sums
``y_k`` for ``k = 1..n`` the ideal list is truncated / zero-padded to ``n``; where it needs the whole
ideal list (``R`` = number of relevant documents, the denominator of ``v_G``, ``g_R``) all of ``y`` is
used.  So ``y`` is fixed by the topic, not by the output (the reading Tables 3-5 require: the ideal
list is ``3, 2, 1, 0, 0`` for every one of the 136 patterns).

Degenerate topics (no relevant document, ``R = 0``) get 0 for every ratio-type indicator (0/0 := 0)
and NaN for the ranked half-life; nothing is computed in place and inputs are never modified.

Equation numbers refer to Kishida, *Property of Average Precision and its Generalization*,
NII-2005-014E.
"""

from __future__ import annotations

import math

import numpy as np

from .. import detmath

__all__ = [
    "degrees_from_levels", "ideal_from_degrees", "fit_length", "n_relevant",
    "average_precision", "r_precision", "normalized_recall", "normalized_precision",
    "sliding_ratio", "modified_sliding_ratio", "dcg", "averaged_ndcg",
    "generalized_precision", "generalized_recall", "weighted_average_precision", "q_measure",
    "generalized_average_precision", "ranked_half_life",
]


# ----------------------------------------------------------------------------- helpers
def _x(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        raise ValueError("expected an array (..., n) of relevance degrees, got a scalar")
    return x


def _ratio(num, den) -> np.ndarray:
    """num / den with 0/0 (and anything/0) := 0."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    return np.divide(num, den, out=np.zeros(num.shape), where=den != 0)


def _ranks(n: int) -> np.ndarray:
    return np.arange(1, n + 1, dtype=np.float64)


def degrees_from_levels(levels) -> np.ndarray:
    """Relevance degrees from a level array (``Collection.levels`` convention): judged levels are
    kept, unjudged (-1) and padding (-2) become 0 (irrelevant), as float64."""
    lv = np.asarray(levels)
    return np.where(lv > 0, lv, 0).astype(np.float64)


def ideal_from_degrees(x) -> np.ndarray:
    """The ideal list of the documents in ``x`` (degrees sorted in decreasing order, stable)."""
    x = _x(x)
    return -np.sort(-x, axis=-1, kind="stable")


def fit_length(y, n: int) -> np.ndarray:
    """``y`` truncated or zero-padded along its last axis to length ``n``."""
    y = np.asarray(y, dtype=np.float64)
    m = y.shape[-1]
    if m >= n:
        return y[..., :n]
    pad = np.zeros(y.shape[:-1] + (n - m,))
    return np.concatenate([y, pad], axis=-1)


def n_relevant(y) -> np.ndarray:
    """R: the number of relevant documents (``y_k > 0``) in the ideal list(s)."""
    return (np.asarray(y) > 0).sum(axis=-1)


# ------------------------------------------------------------------- binary indicators
def average_precision(x, R) -> np.ndarray:
    """Binary average precision, Eq. (3)/(5): ``v = R^-1 sum_i I(x_i) p_i`` with ``p_i`` the
    precision at rank i and ``I(x) = [x > 0]`` (a degree > 0 counts as relevant, Eq. 4).

    ``R`` (broadcastable to ``x.shape[:-1]``) is the total number of relevant documents; a
    relevant document not in the list contributes zero.  ``R = 0`` gives 0."""
    x = _x(x)
    rel = (x > 0).astype(np.float64)
    n = x.shape[-1]
    s = (rel * np.cumsum(rel, axis=-1) / _ranks(n)).sum(axis=-1)
    return _ratio(s, R)


def r_precision(x, R) -> np.ndarray:
    """R-precision, Eq. (6): ``r = R^-1 sum_{i<=R} I(x_i)``; ranks beyond the list count as
    irrelevant.  ``R = 0`` gives 0."""
    x = _x(x)
    R = np.asarray(R)
    rel = (x > 0)
    n = x.shape[-1]
    within = np.arange(n) < np.asarray(R)[..., None]
    return _ratio((rel & within).sum(axis=-1), R)


def _retrieved_and_missing(x, R, N):
    x = _x(x)
    R = np.asarray(R, dtype=np.float64)
    n = x.shape[-1]
    N = float(N)
    if N < n:
        raise ValueError(f"collection size N={N:g} is smaller than the list length n={n}")
    if np.any(R > N):
        raise ValueError(f"collection size N={N:g} is smaller than the number of relevant documents")
    rel = x > 0
    found = rel.sum(axis=-1)
    missing = np.maximum(R - found, 0.0)
    return x, rel, R, N, missing


def normalized_recall(x, R, N) -> np.ndarray:
    """Normalized recall (Salton and Lesk), Eq. (7):
    ``z_r = 1 - (sum_i i I(x_i) - sum_{i<=R} i) / (R (N - R))`` given the collection size ``N``.

    Eq. (7) ranks all ``N`` documents; for a list of ``n < N`` documents the relevant documents not
    retrieved are placed at the *bottom* ranks ``N - m + 1 .. N`` (worst case, a lower bound).
    ``R = 0`` gives 0; ``R = N`` gives 1."""
    x, rel, R, N, m = _retrieved_and_missing(x, R, N)
    n = x.shape[-1]
    s = (rel * _ranks(n)).sum(axis=-1) + m * N - m * (m - 1) / 2.0
    ideal = R * (R + 1) / 2.0
    den = R * (N - R)
    z = 1.0 - _ratio(s - ideal, den)
    return np.where(R == 0, 0.0, z)


def normalized_precision(x, R, N) -> np.ndarray:
    """Normalized precision, Eq. (8):
    ``z_p = 1 - (sum_i I(x_i) log i - sum_{i<=R} log i) / log C(N, R)`` given ``N`` (the log base
    cancels).  Unretrieved relevant documents are placed at the bottom ranks as in
    :func:`normalized_recall`.  ``R = 0`` gives 0; ``R = N`` gives 1."""
    from scipy.special import gammaln       # here, not at module level: scipy.special costs ~0.15 s

    x, rel, R, N, m = _retrieved_and_missing(x, R, N)
    n = x.shape[-1]
    s = (rel * detmath.log(_ranks(n))).sum(axis=-1) + gammaln(N + 1) - gammaln(N - m + 1)
    ideal = gammaln(R + 1)
    den = gammaln(N + 1) - gammaln(R + 1) - gammaln(N - R + 1)
    z = 1.0 - _ratio(s - ideal, den)
    return np.where(R == 0, 0.0, z)


# ------------------------------------------------------------------- graded indicators
def sliding_ratio(x, y) -> np.ndarray:
    """Sliding ratio (Pollack), Eq. (26): ``v_S = sum_{k<=n} x_k / sum_{k<=n} y_k``."""
    x = _x(x)
    yn = fit_length(y, x.shape[-1])
    return _ratio(x.sum(axis=-1), yn.sum(axis=-1))


def modified_sliding_ratio(x, y) -> np.ndarray:
    """Modified sliding ratio (Sagara), Eq. (27):
    ``v_S' = sum_{k<=n} x_k / k  /  sum_{k<=n} y_k / k``.  Equals 1 on an ideal ranking."""
    x = _x(x)
    n = x.shape[-1]
    yn = fit_length(y, n)
    r = _ranks(n)
    return _ratio((x / r).sum(axis=-1), (yn / r).sum(axis=-1))


def _dcg_weights(n: int, b: float) -> np.ndarray:
    if not b > 1:
        raise ValueError(f"log base b must be > 1, got {b}")
    r = _ranks(n)
    logs = detmath.log(r) / math.log(b)
    return np.divide(1.0, logs, out=np.ones(n), where=r >= b)


def dcg(x, b: float = 2.0) -> np.ndarray:
    """Discounted cumulated gain at every rank, Eq. (30) (Jarvelin and Kekalainen):
    ``d(i) = sum_{k<b} x_k + sum_{b<=k<=i} x_k / log_b k``; returns ``(..., n)``."""
    x = _x(x)
    return np.cumsum(x * _dcg_weights(x.shape[-1], b), axis=-1)


def averaged_ndcg(x, y, b: float = 2.0) -> np.ndarray:
    """Averaged normalised DCG, Eq. (30)-(32): ``v_D = n^-1 sum_{i=1}^n d(i) / d_I(i)`` with
    ``d_I`` the DCG of the ideal list truncated to ``n`` (Eq. 31) and ``n = x.shape[-1]`` -- the
    average runs over *all* ranks 1..n, also past the end of the relevant documents.
    Ranks where ``d_I(i) = 0`` (no relevant document) contribute 0.  Equals 1 on an ideal ranking."""
    x = _x(x)
    n = x.shape[-1]
    d = dcg(x, b)
    dI = dcg(fit_length(y, n), b)
    return _ratio(d, dI).mean(axis=-1)


def generalized_precision(x, max_degree) -> np.ndarray:
    """Generalized precision (Kekalainen and Jarvelin), Sec. 4.1.4:
    ``g_P = n^-1 sum_{k<=n} z_k`` with ``z_k = x_k / max_degree`` (``max_degree`` is the highest
    degree of the scale, not of the list)."""
    x = _x(x)
    return (x / float(max_degree)).mean(axis=-1)


def generalized_recall(x, y) -> np.ndarray:
    """Generalized recall, Sec. 4.1.4: ``g_R = sum_{k<=n} z_k / sum_{k<=N} z_k`` -- the degrees of
    the list over those of *all* relevant documents (the whole ideal list ``y``); the
    normalisation ``z = x / max`` cancels."""
    x = _x(x)
    return _ratio(x.sum(axis=-1), np.asarray(y, float).sum(axis=-1))


def weighted_average_precision(x, y) -> np.ndarray:
    """Weighted average precision (Kando et al.), Eq. (34):
    ``v_W = R^-1 sum_i I(x_i) (sum_{k<=i} x_k) / (sum_{k<=i} y_k)``."""
    x = _x(x)
    n = x.shape[-1]
    cy = np.cumsum(fit_length(y, n), axis=-1)
    s = ((x > 0) * _ratio(np.cumsum(x, axis=-1), cy)).sum(axis=-1)
    return _ratio(s, n_relevant(y))


def q_measure(x, y) -> np.ndarray:
    """Kishida's form of the Q-measure (Sakai et al.), Eq. (35):
    ``v_Q = R^-1 sum_i I(x_i) (sum_{k<=i} I(x_k)(x_k + 1)) / (i + sum_{k<=i} y_k)``.

    Since ``sum I(x_k)(x_k + 1) = cg(i) + count(i)``, this is exactly NTCIREVAL's Q-measure with
    ``beta = 1`` and gain values equal to the degrees (``-g 1:2:...:H``) on the full list; for a
    list cut at ``l`` NTCIREVAL's ``Q@l`` divides by ``min(l, R)`` instead of ``R``, so
    ``v_Q(x[:l]) = Q@l * min(l, R) / R``."""
    x = _x(x)
    n = x.shape[-1]
    rel = (x > 0)
    cy = np.cumsum(fit_length(y, n), axis=-1)
    num = np.cumsum(rel * (x + 1.0), axis=-1)
    s = (rel * num / (_ranks(n) + cy)).sum(axis=-1)
    return _ratio(s, n_relevant(y))


def generalized_average_precision(x, y) -> np.ndarray:
    """Generalized average precision, Eq. (42):
    ``v_G = sum_{i<=n} I(x_i) i^-1 sum_{k<=i} x_k  /  sum_{i<=N} I(y_i) i^-1 sum_{k<=i} y_k``.

    The denominator (``max s_R``, Eq. 41) is taken over the whole ideal list ``y`` (all relevant
    documents), not truncated to ``n``.  With binary degrees it equals :func:`average_precision`."""
    x = _x(x)
    y = np.asarray(y, dtype=np.float64)
    n, m = x.shape[-1], y.shape[-1]
    num = ((x > 0) * np.cumsum(x, axis=-1) / _ranks(n)).sum(axis=-1)
    den = ((y > 0) * np.cumsum(y, axis=-1) / _ranks(m)).sum(axis=-1)
    return _ratio(num, den)


def ranked_half_life(x) -> np.ndarray:
    """Ranked half-life (Borlund and Ingwersen), Sec. 4.1.3, as the median of grouped data: rank
    ``k`` is the class ``(k-1, k]`` with frequency ``x_k``; with ``T = sum x`` over the list and
    ``k`` the first rank where the cumulated degree reaches ``T/2``,
    ``RHL = (k - 1) + (T/2 - cum_{k-1}) / x_k``.  (Kishida's example -- degrees .5, 1, 1, .5 at
    ranks 1, 3, 9, 14 -- gives 3.0.)  Lower is better; NaN when the list has no relevant document."""
    x = _x(x)
    if x.shape[-1] == 0:                                  # empty lists: no relevant document
        return np.full(x.shape[:-1], np.nan)
    cum = np.cumsum(x, axis=-1)
    total = cum[..., -1]
    half = total / 2.0
    reached = cum >= half[..., None]
    k = np.argmax(reached, axis=-1)                       # 0-based index of the median class
    xk = np.take_along_axis(x, k[..., None], axis=-1)[..., 0]
    prev = np.take_along_axis(cum, k[..., None], axis=-1)[..., 0] - xk
    with np.errstate(divide="ignore", invalid="ignore"):
        rhl = k + (half - prev) / xk
    return np.where(total > 0, rhl, np.nan)
