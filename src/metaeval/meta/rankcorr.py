"""Top-weighted and tie-aware rank correlation between two system rankings, with bootstrap intervals.

Systems are ranked by a score per system (for metrics: the mean over topics; higher is better).
Two systems are *tied* when their scores agree after rounding to 12 decimals
(:data:`~metaeval.meta.kendall.TIE_DECIMALS`, the tolerance of Kendall's tau in
:mod:`.kendall`).  Every coefficient compares a *reference* ranking ``a`` (the "true" one) with an
*estimate* ``b``; the asymmetric ones (``tau_ap``, ``tau_ap_a``) depend on which is which.

``tau_a``     Kendall's tau-a, ``(concordant - discordant) / (n (n - 1) / 2)``; a pair tied in
              either ranking counts 0 (the ``tau`` of :func:`~metaeval.meta.kendall.kendall_tau`).
``tau_b``     Kendall's tau-b, ``(C - D) / sqrt((n0 - t_a)(n0 - t_b))``; undefined when a ranking
              is one single tie group.
``tau_ap``    Yilmaz, Aslam & Robertson (2008): walking down the estimate ``b``,
              ``2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1`` with ``C(i)`` the number of systems
              above rank ``i`` in ``b`` that are above it in ``a`` too.  Undefined with ties in
              either ranking.
``tau_ap_a``  Urbano & Marrero (2017): the expected ``tau_ap`` over the uniformly random
              tie-breakings of the estimate ``b`` (closed form; no permutation is enumerated).
              Undefined when the reference ``a`` has ties; equals ``tau_ap`` without ties.
``tau_ap_b``  Urbano & Marrero (2017): symmetric, ties allowed on both sides: the mean of
              ``2 / |{i: p_i > 1}| * sum_{i: p_i > 1} C'(i) / (p_i - 1) - 1`` walking down ``b``
              and walking down ``a``, where ``p_i`` is the top rank of ``i``'s tie group and
              ``C'(i)`` counts the systems strictly above ``i``'s group that are strictly above
              ``i`` in the other ranking.  Without ties it is the mean of ``tau_ap(a, b)`` and
              ``tau_ap(b, a)``, *not* ``tau_ap``.
``rbo``       Webber, Moffat & Zobel (2010) rank-biased overlap, extrapolated form ``RBO_EXT`` for
              two full rankings of the same ``n`` systems:
              ``(1 - p) / p * sum_{d=1..n} A_d p^d + p^n`` (the tail agreement is ``X_n / n = 1``);
              ties as Webber et al. treat them: a tie group enters the prefix at its top rank and
              ``A_d = 2 X_d / (|a_{:d}| + |b_{:d}|)``.
``rbo_a``     Corsi & Urbano (2024) RBO^a: ``A_d = E[X_d] / d``, the expected overlap under
              independent uniform tie-breaking of both rankings (a system of a tie group covering
              ranks ``t+1..t+g`` is within depth ``d`` with probability ``clip((d - t) / g, 0, 1)``);
              so RBO^a is the expected RBO over every pair of tie-breakings.
``rbo_b``     Corsi & Urbano (2024) RBO^b: ``A_d = E[X_d] / sqrt(sum_i P_a(i)^2 sum_i P_b(i)^2)``
              (those probabilities), which gives ``RBO^b(x, x) = 1``.

All three RBO variants are symmetric and agree when neither ranking has ties.

Everything is computed for all metric pairs and all bootstrap samples at once: the rankings enter
as ``(samples, metrics, systems)`` arrays and every coefficient is an inner product of per-metric
matrices (pairwise "above" indicators, optionally weighted per system) or of per-depth inclusion
probabilities, i.e. a batched matrix product giving a ``(samples, metrics, metrics)`` array.
Bootstrap intervals recompute each metric's run means on the project's paired samples ``Q*b``
(:class:`~metaeval.meta.samples.BootstrapSamples`, stream ``"paired"``) with the count-matrix
product, then take the 2.5% and 97.5% percentiles (numpy's default linear interpolation) of each
coefficient over the samples on which it is defined; an interval is undefined (NaN) when the point
estimate is.  Samples are processed in fixed chunks aligned to absolute sample numbers, and every
sum is exact (integer counts) or taken in a fixed order, so results are bit-identical for every
``batch``, CPU, BLAS kernel and thread count.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping

import numpy as np

from ..detmath import power
from ._validate import as_scores, check_B, check_batch
from .kendall import TIE_DECIMALS
from .samples import BLOCK, resolve_samples, single_threaded_blas

__all__ = ["COEFFICIENTS", "SYMMETRIC", "RANK_CORRELATION_COLUMNS", "SUMMARY_COEFFICIENTS", "DEFAULT_RBO_P",
           "check_rbo_p",
           "tau_a", "tau_b", "tau_ap", "tau_ap_a", "tau_ap_b", "rbo", "rbo_a", "rbo_b",
           "coefficient_matrices", "rank_correlation", "rank_correlation_table", "stage_rank_correlation",
           "summary_pairs", "summary_rank_correlation"]

#: the coefficients, in the column order of ``tables/rank_correlation.csv``
COEFFICIENTS = ("tau_a", "tau_b", "tau_ap", "tau_ap_a", "tau_ap_b", "rbo", "rbo_a", "rbo_b")
#: the coefficients whose value does not depend on which ranking is the reference
SYMMETRIC = frozenset({"tau_a", "tau_b", "tau_ap_b", "rbo", "rbo_a", "rbo_b"})
RANK_CORRELATION_COLUMNS = (["metric_a", "metric_b", *COEFFICIENTS]
                            + [f"{c}_{s}" for c in COEFFICIENTS for s in ("low", "high")])
#: what the cross-collection summary table reports per metric pair
SUMMARY_COEFFICIENTS = ("tau_ap_b", "rbo_a")
DEFAULT_RBO_P = 0.9
#: bootstrap samples go through the coefficient computation in chunks of this many (a divisor of
#: BLOCK, so chunks start at absolute sample numbers whatever the batch size)
CHUNK = 32
#: the (samples, rankings, systems, systems) arrays of a chunk hold at most this many elements: at
#: campaign scale (20 metrics x 300 runs) a 32-sample chunk made 460 MB temporaries, paid for in
#: page faults; smaller chunks give the same values (every sample is computed on its own)
CHUNK_ELEMENTS = 1 << 22


def _chunk(m: int, n: int) -> int:
    """Samples per chunk: the largest power of two up to :data:`CHUNK` (so still a divisor of
    BLOCK) whose ``chunk * m * n * n`` stays within :data:`CHUNK_ELEMENTS`; at least 1."""
    c = CHUNK
    while c > 1 and c * m * n * n > CHUNK_ELEMENTS:
        c //= 2
    return c


#: default number of samples whose run means are computed at once
DEFAULT_BATCH = 4 * BLOCK
PERCENTILES = (2.5, 97.5)


def check_rbo_p(p) -> float:
    """``p`` as a float in (0, 1) (the RBO persistence); ``ValueError`` naming ``rbo_p`` otherwise."""
    return _check_p(p)


def _check_p(p) -> float:
    try:
        p = float(p)
    except (TypeError, ValueError):
        raise ValueError(f"rbo_p (RBO persistence) must be a number in (0, 1), got {p!r}") from None
    if not 0.0 < p < 1.0:
        raise ValueError(f"rbo_p (RBO persistence) must lie in (0, 1), got {p}")
    return p


# ---------------------------------------------------------------------------------------------
# the vectorised core: (S, m, n) scores -> (S, m, m) coefficients, [s, i, j] = C(ref i, est j)
# ---------------------------------------------------------------------------------------------

def _harmonic(n: int) -> np.ndarray:
    """``H[k] = sum_{j=1..k} 1/j`` for ``k = 0..n``."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n + 1))])


#: tie-group scales above this fall back to the ordered sum (see :func:`_inclusion_gram`)
_LCM_CAP = 1 << 40


def _tie_groups(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(t, g)`` of ``(S, m, n)`` finite scores, by one sort per ranking: ``t[s, k, u]`` the
    systems strictly above ``u`` in ranking ``k`` (its 0-based top rank), ``g`` the size of ``u``'s
    tie group (the systems with a score equal to ``u``'s, ``u`` included)."""
    n = M.shape[-1]
    order = np.argsort(M, axis=-1, kind="stable")
    srt = np.take_along_axis(M, order, axis=-1)
    new = np.ones(M.shape, dtype=bool)                     # a tie group starts here (ascending)
    np.not_equal(srt[..., 1:], srt[..., :-1], out=new[..., 1:])
    pos = np.arange(n)
    left = np.maximum.accumulate(np.where(new, pos, 0), axis=-1)
    last = np.ones(M.shape, dtype=bool)
    last[..., :-1] = new[..., 1:]
    right = np.minimum.accumulate(np.where(last, pos + 1, n)[..., ::-1], axis=-1)[..., ::-1]
    t = np.empty(M.shape, dtype=np.int64)
    g = np.empty(M.shape, dtype=np.int64)
    np.put_along_axis(t, order, n - right, axis=-1)
    np.put_along_axis(g, order, right - left, axis=-1)
    return t, g


def _inclusion_gram(t, g, d0, Xw) -> np.ndarray:
    """``X[s, d, a, b] = sum_u P_a(u within depth d+1) P_b(u within depth d+1)`` (``(S, d, m, m)``)
    for the tie-aware inclusion probabilities ``P(u) = clip(d + 1 - t_u, 0, g_u) / g_u``, exactly
    rounded and independent of the BLAS kernel: with ``L`` the least common multiple of a ranking's
    tie-group sizes, ``P * L`` is an integer, so the Gram matrix of the scaled probabilities is an
    exact integer product (``n L_a L_b <= 2^53``), divided once by ``L_a L_b``.  Otherwise (tie
    groups of very many different sizes) the sum over systems runs in a fixed order.  ``Xw``: the
    same Gram matrix of the 0/1 inclusions ``t_u <= d`` (Webber et al.'s, exact integers), which it
    is between two untied rankings: only the rows and columns of the tied rankings are computed
    (each entry as it would be in the whole product; ``X[a, b] = X[b, a]`` to the bit)."""
    S, m, n = t.shape
    tied = (g > 1).any(axis=2)                                                     # (S, m)
    L = np.ones((S, m), dtype=np.int64)
    for size in np.unique(g):
        if size > 1:
            has = (g == size).any(axis=2)
            L[has] = np.minimum(np.lcm(L[has], int(size)), _LCM_CAP)
    Lmax = int(L.max())
    exact = Lmax < _LCM_CAP and n * Lmax * Lmax <= 2 ** 53
    X = Xw.copy()
    for s in np.flatnonzero(tied.any(axis=1)):
        rows = np.flatnonzero(tied[s])
        # k = clip(d + 1 - t_u, 0, g_u) (small integers throughout: exact in any order), (d, m, u);
        # when exact, times L / g_u: an integer product, in float32 while n L^2 < 2^24
        ft = np.float32 if exact and n * Lmax * Lmax < 2 ** 24 else np.float64
        k = np.arange(1, n + 1, dtype=ft)[:, None, None] - t[s][None].astype(ft)
        np.maximum(k, 0, out=k)
        np.minimum(k, g[s][None].astype(ft), out=k)
        if exact:
            k *= (L[s][:, None] // g[s]).astype(ft)[None]
            Xr = (k[:, rows] @ k.transpose(0, 2, 1)).astype(np.float64)               # (d, tied, m)
            if Lmax > 1:
                Lf = L[s].astype(np.float64)
                Xr = Xr / (Lf[rows][None, :, None] * Lf[None, None, :])
        else:
            P = k / g[s][None].astype(np.float64)
            Pr = P[:, rows]
            Xr = np.zeros((n, rows.size, m))
            for u in range(n):
                Xr += Pr[:, :, None, u] * P[:, None, :, u]
        X[s][:, rows, :] = Xr
        X[s][:, :, rows] = Xr.transpose(0, 2, 1)
    return X


def coefficient_matrices(scores, rbo_p: float = DEFAULT_RBO_P, *, rounded: bool = False) -> dict[str, np.ndarray]:
    """Every coefficient between every pair of rankings in ``scores``, for every sample.

    ``scores``: ``(S, m, n)`` -- ``S`` samples (e.g. bootstrap replicates), ``m`` rankings (e.g.
    metrics), ``n`` systems; higher is better.  ``rounded=True`` says the scores are already
    rounded to :data:`TIE_DECIMALS`.  Returns ``{coefficient: (S, m, m) array}`` where
    ``[s, i, j]`` compares ranking ``i`` (the reference) with ranking ``j`` (the estimate); NaN
    where a coefficient is undefined (the diagonal is filled like any other entry).
    """
    p = _check_p(rbo_p)
    M = np.asarray(scores, dtype=np.float64)
    if M.ndim != 3:
        raise ValueError(f"coefficient_matrices: need a (samples, rankings, systems) array, got shape {M.shape}")
    S, m, n = M.shape
    if n < 2:
        raise ValueError(f"need at least 2 systems, got {n}")
    if not rounded:
        M = np.round(M, TIE_DECIMALS)
    if not np.isfinite(M).all():
        raise ValueError("coefficient_matrices: a score is not finite")
    t, g = _tie_groups(M)                                  # (S, m, n) top ranks and tie-group sizes
    ties = np.asarray((g > 1).any(axis=2))                 # (S, m)
    tf = t.astype(np.float64)
    gf = g.astype(np.float64)

    # Kendall: D[u, v] = sign(x_u - x_v); sum over all ordered (u, v) = 2 (C - D).  Every product
    # of this function's 0/1 and sign matrices is a sum of at most n^2 integers +-1: exact whatever
    # the order of the additions, in float32 while n^2 < 2^24 (half the memory traffic of float64)
    exact_type = np.float32 if n * n < 2 ** 24 else np.float64
    # (sign(x_u - x_v) = sign(t_v - t_u): top ranks are integers, so clipping to [-1, 1] is the sign)
    tk = t.astype(exact_type)
    Df = np.subtract(tk[:, :, None, :], tk[:, :, :, None])
    np.clip(Df, -1, 1, out=Df)
    Df = Df.reshape(S, m, n * n)
    K2 = (Df @ Df.transpose(0, 2, 1)).astype(np.float64)  # exact small integers
    del Df
    cd = K2 * 0.5                                          # C - D
    untied = np.diagonal(cd, axis1=1, axis2=2)             # n0 - t_k (pairs untied in ranking k)
    n0 = n * (n - 1) // 2
    out: dict[str, np.ndarray] = {}
    out["tau_a"] = cd / n0
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = np.sqrt(untied[:, :, None] * untied[:, None, :])
        out["tau_b"] = np.where(denom > 0, cd / np.where(denom > 0, denom, 1.0), np.nan)

    # AP correlations.  Weight of system u walking down ranking b:
    #   ws: E[1 / (rank - 1)] over u's positions in its tie group (Urbano & Marrero's tau_AP-a;
    #       1 / (rank - 1) without ties, Yilmaz et al.'s tau_AP);  wt: 1 / (top rank - 1) (tau_AP-b)
    H = _harmonic(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        wt = np.where(t > 0, 1.0 / np.where(t > 0, tf, 1.0), 0.0)
        ws_grp = (H[np.minimum(t + g - 1, n)] - H[np.maximum(t - 1, 0)]) / gf
    ws = np.where(t > 0, np.where(g == 1, wt, ws_grp), 0.0)
    # both[s, u, a, b]: systems above u in ranking a and in ranking b -- an exact count (a product
    # of 0/1 matrices); the weighted sums over u then run in a fixed order
    # above[s, u, k, v]: system v is strictly above system u in ranking k (the product's layout)
    # (t_u - t_v clipped to [0, 1])
    Au = np.subtract(tk.transpose(0, 2, 1)[:, :, :, None], tk[:, None, :, :])
    np.clip(Au, 0, 1, out=Au)
    both = (Au @ Au.transpose(0, 1, 3, 2)).astype(np.float64)                # exact small integers
    del Au
    Gs = np.add.reduce(both * ws.transpose(0, 2, 1)[:, :, None, :], axis=1)    # [s, a, b] = sum_u ws_b both
    Gt = np.add.reduce(both * wt.transpose(0, 2, 1)[:, :, None, :], axis=1)
    # expected concordant pairs inside the tie groups of b (each counts 1/2), weighted as in tau_AP
    # (zero for a system outside a tie group: computed for the tied systems only, each row's sum
    # over k in the same order as over the whole array)
    k = np.arange(1, n, dtype=np.float64)
    within = np.zeros((S, m, n))
    tied = g > 1
    if tied.any():
        tt, gt = tf[tied][:, None], gf[tied]
        within[tied] = ((k / (2.0 * (tt + k))) * (k < gt[:, None])).sum(axis=1) / gt
    WG = within.sum(axis=2)                                # (S, m)
    scale = 2.0 / (n - 1)
    ap = scale * Gs - 1.0
    out["tau_ap"] = np.where(ties[:, :, None] | ties[:, None, :], np.nan, ap)
    out["tau_ap_a"] = np.where(ties[:, :, None], np.nan, scale * (Gs + WG[:, None, :]) - 1.0)
    nt = (t > 0).sum(axis=2).astype(np.float64)            # systems below the top tie group
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.where(nt[:, None, :] > 0, 2.0 * Gt / np.where(nt > 0, nt, 1.0)[:, None, :] - 1.0, np.nan)
    out["tau_ap_b"] = (h + h.transpose(0, 2, 1)) * 0.5

    # RBO: per depth d = 1..n, inclusion of system u in the top-d prefix
    d0 = np.arange(n, dtype=np.float64)                    # d - 1
    weights = (1.0 - p) * power(p, d0)                     # (1 - p)/p * p^d, the C library's pow
    tail = math.pow(p, n)

    def ext(Ad):                                           # (S, d, m, m) -> RBO_EXT (S, m, m)
        acc = np.zeros(Ad.shape[:1] + Ad.shape[2:])
        for d in range(Ad.shape[1]):                       # the sum over depths, in depth order
            acc += weights[d] * Ad[:, d]
        return np.clip(acc + tail, 0.0, 1.0)

    # Webber et al.: a group enters at its top rank, so u is in both top-(d + 1) prefixes of a and
    # b when max(t_a(u), t_b(u)) <= d: Xw[s, d, a, b] counts those u -- a histogram of the maxima
    # and its running sum over d (exact integers; the Gram matrix of the 0/1 inclusions)
    tmax = np.maximum(t[:, :, None, :], t[:, None, :, :])                     # (S, m, m, u)
    tmax += (n * np.arange(S * m * m)).reshape(S, m, m, 1)
    hist = np.bincount(tmax.ravel(), minlength=S * m * m * n).reshape(S, m, m, n)
    Xw = np.ascontiguousarray(np.cumsum(hist, axis=3).transpose(0, 3, 1, 2), dtype=np.float64)
    Nw = np.diagonal(Xw, axis1=2, axis2=3)                 # |prefix| of each ranking at each depth
    out["rbo"] = ext(2.0 * Xw / (Nw[..., :, None] + Nw[..., None, :]))
    # without ties the inclusion probabilities are the 0/1 inclusions of Webber et al.
    Xa = _inclusion_gram(t, g, d0, Xw) if ties.any() else Xw
    out["rbo_a"] = ext(Xa / (d0 + 1.0)[None, :, None, None])
    Na = np.diagonal(Xa, axis1=2, axis2=3)
    out["rbo_b"] = ext(Xa / np.sqrt(Na[..., :, None] * Na[..., None, :]))
    for c in ("tau_a", "tau_b", "tau_ap", "tau_ap_a", "tau_ap_b"):
        np.clip(out[c], -1.0, 1.0, out=out[c])
    return {c: out[c] for c in COEFFICIENTS}


# ---------------------------------------------------------------------------------------------
# two rankings
# ---------------------------------------------------------------------------------------------

def _pair(a, b, what: str) -> np.ndarray:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"{what}: need two 1-D score arrays of equal length, got {x.shape} and {y.shape}")
    if x.size < 2:
        raise ValueError(f"{what}: need at least 2 systems, got {x.size}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError(f"{what}: non-finite score")
    return np.stack([x, y])[None]


def _one(name: str, a, b, p: float = DEFAULT_RBO_P) -> float:
    return float(coefficient_matrices(_pair(a, b, name), p)[name][0, 0, 1])


def tau_a(a, b) -> float:
    """Kendall's tau-a between the rankings by scores ``a`` and ``b`` (same systems, same order)."""
    return _one("tau_a", a, b)


def tau_b(a, b) -> float:
    """Kendall's tau-b (NaN when either ranking is a single tie group)."""
    return _one("tau_b", a, b)


def tau_ap(a, b) -> float:
    """Yilmaz et al.'s AP correlation of the estimate ``b`` against the reference ``a`` (NaN with ties)."""
    return _one("tau_ap", a, b)


def tau_ap_a(a, b) -> float:
    """Urbano & Marrero's tau_AP-a: expected tau_AP over tie-breakings of ``b`` (NaN if ``a`` has ties)."""
    return _one("tau_ap_a", a, b)


def tau_ap_b(a, b) -> float:
    """Urbano & Marrero's symmetric tau_AP-b (ties allowed on both sides)."""
    return _one("tau_ap_b", a, b)


def rbo(a, b, p: float = DEFAULT_RBO_P) -> float:
    """Webber et al.'s RBO_EXT of two full rankings (ties enter at their top rank)."""
    return _one("rbo", a, b, p)


def rbo_a(a, b, p: float = DEFAULT_RBO_P) -> float:
    """Corsi & Urbano's RBO^a (expected RBO_EXT over random tie-breakings of both rankings)."""
    return _one("rbo_a", a, b, p)


def rbo_b(a, b, p: float = DEFAULT_RBO_P) -> float:
    """Corsi & Urbano's RBO^b (tie-corrected; RBO^b(x, x) = 1)."""
    return _one("rbo_b", a, b, p)


def _as_system_scores(x, name: str) -> dict[str, float]:
    import pandas as pd

    if isinstance(x, pd.Series):
        if not x.index.is_unique:
            dup = x.index[x.index.duplicated()][0]
            raise ValueError(f"rank_correlation: {name} names system {dup!r} twice")
        items = list(x.items())
    elif isinstance(x, Mapping):
        items = list(x.items())
    else:
        raise TypeError(f"rank_correlation: {name} must be a {{system: score}} mapping or a pandas Series, "
                        f"got {type(x).__name__}")
    out: dict[str, float] = {}
    for k, v in items:
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"rank_correlation: {name}[{k!r}] is not a number: {v!r}") from None
        if not np.isfinite(f):
            raise ValueError(f"rank_correlation: {name}[{k!r}] is not finite: {v!r}")
        if str(k) in out:
            raise ValueError(f"rank_correlation: {name} names system {str(k)!r} twice")
        out[str(k)] = f
    return out


def rank_correlation(x_scores, y_scores, *, rbo_p: float = DEFAULT_RBO_P) -> dict[str, float]:
    """Every coefficient of this module between two rankings of the same systems.

    ``x_scores``, ``y_scores``: ``{system: score}`` mappings or pandas Series (higher is better),
    e.g. the mean AP of each run on two test collections, or under two qrels versions.  ``x`` is
    the reference ranking and ``y`` the estimate for the asymmetric coefficients.  Returns
    ``{coefficient: value}`` in :data:`COEFFICIENTS` order, NaN where undefined.
    """
    p = _check_p(rbo_p)
    x = _as_system_scores(x_scores, "x_scores")
    y = _as_system_scores(y_scores, "y_scores")
    if set(x) != set(y):
        only_x = sorted(set(x) - set(y))
        only_y = sorted(set(y) - set(x))
        raise ValueError("rank_correlation: the two rankings must cover the same systems; "
                         f"only in x_scores: {only_x[:5]}{' ...' if len(only_x) > 5 else ''}, "
                         f"only in y_scores: {only_y[:5]}{' ...' if len(only_y) > 5 else ''}")
    if len(x) < 2:
        raise ValueError(f"rank_correlation: need at least 2 systems, got {len(x)}")
    systems = list(x)
    arr = np.array([[x[s] for s in systems], [y[s] for s in systems]])[None]
    res = coefficient_matrices(arr, p)
    return {c: float(res[c][0, 0, 1]) for c in COEFFICIENTS}


# ---------------------------------------------------------------------------------------------
# metrics of one collection: point estimates and bootstrap intervals
# ---------------------------------------------------------------------------------------------

def _pair_index(m: int):
    """Ordered pairs ``(i != j)`` in row-major order (the table's rows) and unordered pairs
    ``(i < j)`` (what is stored per sample for the symmetric coefficients)."""
    oi, oj = np.nonzero(~np.eye(m, dtype=bool))
    ui, uj = np.triu_indices(m, 1)
    return (oi, oj), (ui, uj)


def _empty_table():
    import pandas as pd

    cols = {c: pd.Series(dtype=object if c in ("metric_a", "metric_b") else float)
            for c in RANK_CORRELATION_COLUMNS}
    return pd.DataFrame(cols)


def _stack(matrices, metrics) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """``(topics, metrics, runs)`` scores aligned by topic and run name to the first metric."""
    first = None
    blocks = []
    for m in metrics:
        s = as_scores(matrices[m], m)
        if first is None:
            first = s
            blocks.append(s.values)
            continue
        if set(s.runs) != set(first.runs):
            extra = sorted(set(s.runs) ^ set(first.runs))[:5]
            raise ValueError(f"{m}: runs differ from those of {metrics[0]} (e.g. {extra})")
        if set(s.topics) != set(first.topics):
            extra = sorted(set(s.topics) ^ set(first.topics))[:5]
            raise ValueError(f"{m}: topics differ from those of {metrics[0]} (e.g. {extra})")
        ti = [s.topics.index(x) for x in first.topics]
        ri = [s.runs.index(r) for r in first.runs]
        blocks.append(s.values[np.ix_(ti, ri)])
    if first is None:
        raise ValueError("no metric given")
    return np.stack(blocks, axis=1), first.topics, first.runs


@single_threaded_blas
def rank_correlation_table(matrices: Mapping, metrics=None, *, B: int | None = None, seed: int | None = None,
                           samples=None, rbo_p: float = DEFAULT_RBO_P, batch: int | None = None):
    """The ``rank_correlation`` table: one row per ordered pair of distinct metrics.

    ``matrices``: ``{metric: topic x run matrix}`` (same topics and runs; aligned by name);
    ``metrics``: which and in what order (default: all).  Runs are ranked by their mean over
    topics.  Intervals use the paired bootstrap samples ``Q*b``: ``samples`` (a
    :class:`~metaeval.meta.samples.BootstrapSamples` or ``(B, n)`` index matrix) or ``B`` and
    ``seed`` (the same samples as every other method of the collection).  ``batch``: samples whose
    run means are computed at once (memory only; results do not depend on it).
    """
    import pandas as pd

    p = _check_p(rbo_p)
    names = list(matrices) if metrics is None else [str(m) for m in metrics]
    missing = [m for m in names if m not in matrices]
    if missing:
        raise ValueError(f"rank_correlation: no matrix for metric(s) {missing}")
    if len(set(names)) != len(names):
        raise ValueError("rank_correlation: a metric is listed twice")
    if len(names) < 2:
        return _empty_table()
    X, _topics, _runs = _stack(matrices, names)              # (n_topics, m, runs)
    nq, m, nr = X.shape
    smp = resolve_samples(samples, nq, None if B is None else check_B(B), seed, "paired", "rank_correlation")
    bs = check_batch(DEFAULT_BATCH if batch is None else batch, smp.B)

    point = coefficient_matrices(X.mean(axis=0)[None], p)   # same means as kendall.rank_correlations
    (oi, oj), (ui, uj) = _pair_index(m)
    store = {c: np.empty((smp.B, ui.size if c in SYMMETRIC else oi.size)) for c in COEFFICIENTS}
    flat = np.ascontiguousarray(X.reshape(nq, m * nr).T)   # (m * runs, topics)
    inv = 1.0 / nq
    chunk = _chunk(m, nr)
    for s0, s1 in smp.batches(bs):
        (S,) = smp.dot_t(s0, s1, [flat])                   # (m * runs, rows): bootstrap sums
        means = np.round((S * inv).T.reshape(s1 - s0, m, nr), TIE_DECIMALS)
        for c0 in range(s0, s1, chunk):
            c1 = min(c0 + chunk, s1)
            res = coefficient_matrices(means[c0 - s0:c1 - s0], p, rounded=True)
            for c in COEFFICIENTS:
                r = res[c]
                store[c][c0:c1] = r[:, ui, uj] if c in SYMMETRIC else r[:, oi, oj]

    data: dict[str, object] = {"metric_a": [names[i] for i in oi], "metric_b": [names[j] for j in oj]}
    # position of each ordered pair among the stored unordered pairs
    upos = np.empty((m, m), dtype=np.int64)
    upos[ui, uj] = np.arange(ui.size)
    upos[uj, ui] = np.arange(ui.size)
    sym_pos = upos[oi, oj]
    lows, highs = {}, {}
    for c in COEFFICIENTS:
        vals = point[c][0, oi, oj]
        data[c] = vals
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN columns: interval undefined
            q = np.nanpercentile(store[c], PERCENTILES, axis=0)
        if c in SYMMETRIC:
            q = q[:, sym_pos]
        undefined = ~np.isfinite(vals)
        lows[c] = np.where(undefined, np.nan, q[0])
        highs[c] = np.where(undefined, np.nan, q[1])
    for c in COEFFICIENTS:
        data[f"{c}_low"] = lows[c]
        data[f"{c}_high"] = highs[c]
    df = pd.DataFrame(data, columns=RANK_CORRELATION_COLUMNS)
    df["metric_a"] = df["metric_a"].astype(object)
    df["metric_b"] = df["metric_b"].astype(object)
    return df


def stage_rank_correlation(matrices: Mapping, metrics=None, *, B: int, seed: int,
                           rbo_p: float = DEFAULT_RBO_P, batch: int | None = None, samples=None) -> dict:
    """Pipeline stage: ``{"rank_correlation": DataFrame}`` in the columns of
    :data:`RANK_CORRELATION_COLUMNS`.  Metrics without a matrix are skipped (as the Kendall stage
    does); fewer than two metrics give a header-only table."""
    names = [m for m in (list(matrices) if metrics is None else metrics) if m in matrices]
    if len(names) < 2:
        return {"rank_correlation": _empty_table()}
    return {"rank_correlation": rank_correlation_table(matrices, names, B=B, seed=seed, samples=samples,
                                                       rbo_p=rbo_p, batch=batch)}


# ---------------------------------------------------------------------------------------------
# cross-collection summary
# ---------------------------------------------------------------------------------------------

def summary_pairs(table):
    """``tau_ap_b`` and ``rbo_a`` (:data:`SUMMARY_COEFFICIENTS`, both symmetric) per unordered
    metric pair of one collection's ``rank_correlation`` table (first orientation met)."""
    import pandas as pd

    seen = set()
    rows = []
    for rec in table.to_dict("records"):
        a, b = rec["metric_a"], rec["metric_b"]
        if (b, a) in seen or (a, b) in seen:
            continue
        seen.add((a, b))
        rows.append((a, b, *(float(rec[c]) for c in SUMMARY_COEFFICIENTS)))
    out = pd.DataFrame(rows, columns=["metric_a", "metric_b", *SUMMARY_COEFFICIENTS])
    out["metric_a"] = out["metric_a"].astype(object)
    out["metric_b"] = out["metric_b"].astype(object)
    return out


def summary_rank_correlation(frames: Mapping):
    """The summary table ``rank_correlation``: one row per (unordered metric pair, coefficient in
    :data:`SUMMARY_COEFFICIENTS`), one column per collection.

    ``frames``: ``{collection: its rank_correlation table or None}``.  Columns
    ``metric_a, metric_b, coefficient, <collection>...``; pairs in order of first appearance.
    """
    import pandas as pd

    pairs: list[tuple[str, str]] = []
    cols: dict[str, dict] = {}
    for name, df in frames.items():
        cols[name] = {}
        if df is None or len(df) == 0:
            continue
        for rec in summary_pairs(df).to_dict("records"):
            a, b = rec["metric_a"], rec["metric_b"]
            key = (b, a) if (b, a) in pairs else (a, b)
            if key not in pairs:
                pairs.append(key)
            for c in SUMMARY_COEFFICIENTS:
                cols[name][(key, c)] = rec[c]
    keys = [(pr, c) for pr in pairs for c in SUMMARY_COEFFICIENTS]
    out = pd.DataFrame({"metric_a": pd.Series([pr[0] for pr, _ in keys], dtype=object),
                        "metric_b": pd.Series([pr[1] for pr, _ in keys], dtype=object),
                        "coefficient": pd.Series([c for _, c in keys], dtype=object)})
    for name, col in cols.items():
        out[name] = np.array([col.get(k, np.nan) for k in keys], dtype=np.float64)
    return out
