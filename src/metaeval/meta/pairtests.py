"""Classical significance tests for many paired comparisons at once, multiple-comparison
corrections, effect sizes and the studentised range distribution.

Every test takes an ``(n, k)`` matrix ``D`` of per-topic differences (one column per comparison,
``D[:, c] = x - y``) and returns ``k`` two-sided p-values; no Python loop over comparisons.

* :func:`paired_t` -- ``scipy.stats.ttest_rel`` (Student 1908), vectorised along ``axis=0``.
* :func:`wilcoxon` -- ``scipy.stats.wilcoxon`` (Wilcoxon 1945) with scipy's defaults
  (``zero_method="wilcox"``: zero differences dropped; ``method="auto"``), vectorised.
* :func:`sign_test` -- the two-sided binomial test of ``#{d > 0}`` among the non-zero differences
  with ``p = 1/2`` (``scipy.stats.binomtest``'s value, computed as
  ``min(1, 2 binom.cdf(min(pos, neg), pos + neg, 1/2))`` for all comparisons at once).
* :func:`permutation_test` -- the paired randomisation (sign-flip) test of the mean difference
  (Fisher 1935; Smucker, Allan and Carterette, CIKM 2007): exact over all ``2^n`` sign vectors
  when ``2^n <= B``, else ``B`` seeded random sign vectors; ``p = #{|T*| >= |T|} / (number of
  sign vectors)``.
* :func:`tukey_hsd` -- Tukey's HSD (Tukey 1953) with ``V_E`` of the two-way ANOVA: ``q = |diff| /
  sqrt(V_E / n)`` against the studentised range distribution with ``m`` means and
  ``(m - 1)(n - 1)`` degrees of freedom (:func:`studentized_range_sf`).
* :func:`adjust` -- Bonferroni, Holm (1979) and Benjamini-Hochberg (1995) adjusted p-values
  (equal to ``statsmodels.stats.multitest.multipletests``' ``bonferroni``, ``holm``, ``fdr_bh``).

**Constant differences** (documented conventions, never NaN): a comparison whose differences are
all zero (identical systems) gets ``p = 1`` from every test (scipy's t-test and Wilcoxon return
NaN there).  A constant non-zero difference gets ``t = +-inf`` and ``p = 0`` from the t-test
(scipy's own value when the variance is exactly 0; a variance below ``1e-12`` times the mean
square counts as 0, as in the bootstrap test), the Wilcoxon and sign tests give their ordinary
p-values (all differences have the same sign), and the permutation test its exact/randomised one.
Differences with ``|d| <= 1e-12`` count as ties (zero) in the sign test and in wins/ties/losses.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from ..detmath import exp, gauss_legendre, log, power, sliced_product, split_rows
from .bootstrap import VAR_REL_EPS
from .samples import sample_rng

__all__ = ["paired_t", "wilcoxon", "sign_test", "sign_counts", "permutation_test", "tukey_hsd",
           "studentized_range_sf", "adjust", "CORRECTIONS", "effect_size", "cohen_dz", "TIE_TOL"]

TIE_TOL = 1e-12
CORRECTIONS = ("none", "bonferroni", "holm", "bh")


def _as_diffs(D) -> np.ndarray:
    D = np.asarray(D, dtype=np.float64)
    if D.ndim == 1:
        D = D[:, None]
    if D.ndim != 2 or D.shape[0] < 2:
        raise ValueError(f"differences must be an (n >= 2, k) matrix, got shape {D.shape}")
    if not np.isfinite(D).all():
        raise ValueError("differences contain non-finite values")
    return D


def _zero_variance(D):
    """``(zero variance, all-zero)`` masks per column (the bootstrap module's rule)."""
    n = D.shape[0]
    mean = D.mean(axis=0)
    var = ((D - mean) ** 2).sum(axis=0) / (n - 1)
    msq = (D * D).mean(axis=0)
    zv = var <= VAR_REL_EPS * msq
    allzero = zv & (np.abs(mean) <= 1e-12 * (1.0 + np.sqrt(msq)))
    return zv, allzero, mean


def paired_t(D) -> tuple[np.ndarray, np.ndarray]:
    """``(t, p)`` of the two-sided paired t-test of every column of ``D`` (``scipy.stats.ttest_rel``)."""
    from scipy import stats

    D = _as_diffs(D)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.ttest_1samp(D, 0.0, axis=0)     # == ttest_rel(x, y) on d = x - y
    t = np.array(res.statistic, dtype=np.float64, ndmin=1)
    p = np.array(res.pvalue, dtype=np.float64, ndmin=1)
    zv, allzero, mean = _zero_variance(D)
    if zv.any():
        t[zv] = np.where(allzero[zv], 0.0, np.copysign(np.inf, mean[zv]))
        p[zv] = np.where(allzero[zv], 1.0, 0.0)
    return t, p


def wilcoxon(D) -> np.ndarray:
    """Two-sided p of the Wilcoxon signed-rank test of every column (``scipy.stats.wilcoxon``,
    defaults); a column without a non-zero difference gets ``p = 1``."""
    from scipy import stats

    D = _as_diffs(D)
    if D.shape[0] > _WILCOXON_ASYMPTOTIC_N:
        p = _wilcoxon_asymptotic(D)
        p[~(D != 0).any(axis=0)] = 1.0
        return p
    # scipy's method="auto" decides exact vs normal approximation once per call, from ties and
    # zeros anywhere in the array; per column it is exact when that column has neither.  So the
    # columns are tested in two groups, which gives every column the p-value of its own call.
    A = np.sort(np.abs(D), axis=0)
    clean = (A[0] != 0) & (np.diff(A, axis=0) != 0).all(axis=0)
    p = np.empty(D.shape[1])
    # with ties or zeros and n <= 13 scipy runs an exact sign-flip permutation test through a Python
    # call per flip and pair (minutes for a few hundred pairs): the same test, vectorised here
    small = ~clean & (D.shape[0] <= _WILCOXON_EXACT_MAX_N)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for group in (clean, ~clean & ~small):
            if group.any():
                p[group] = np.array(stats.wilcoxon(D[:, group], axis=0).pvalue, dtype=np.float64, ndmin=1)
    if small.any():
        p[small] = _wilcoxon_signflip_exact(D[:, small])
    nonzero = (D != 0).any(axis=0)
    p[~nonzero] = 1.0
    if np.isnan(p).any():                                     # pragma: no cover - scipy contract
        raise ValueError("scipy.stats.wilcoxon returned NaN for a column with non-zero differences")
    return p


_WILCOXON_EXACT_MAX_N = 13        # scipy's method="auto": exact permutation test up to 2**13 flips
_WILCOXON_ASYMPTOTIC_N = 50      # scipy's method="auto": the normal approximation above 50 differences
#: columns ranked at once by :func:`_wilcoxon_asymptotic`: about this many elements per array
_WILCOXON_CHUNK_ELEMENTS = 1 << 18


def _wilcoxon_asymptotic(D: np.ndarray) -> np.ndarray:
    """Two-sided p of ``scipy.stats.wilcoxon`` (defaults) for more than 50 differences per column,
    where scipy takes the normal approximation with the tie correction (no continuity correction): the same
    formulas on the same exact ingredients -- the number of non-zero differences, the rank sum
    ``r+`` of the positive ones (average ranks of ``|d|``, multiples of 1/2: exact) and the tie
    term ``sum t^3 - t`` (integers) -- computed from one sort per column of ``|d|`` with the sign in
    the lowest bit (``|d|``'s IEEE bits as an unsigned integer keep its order), no argsort.
    All-zero columns give NaN (the caller's rule sets p = 1)."""
    from scipy import special

    n, k = D.shape
    rp = np.empty(k)
    ties = np.empty(k)
    zeros = np.empty(k, dtype=np.int64)
    pos = np.arange(n, dtype=np.int64)
    pc = max(1, _WILCOXON_CHUNK_ELEMENTS // n)
    for c0 in range(0, k, pc):
        d = np.ascontiguousarray(D[:, c0:c0 + pc].T)                          # (columns, n)
        key = np.abs(d).view(np.uint64) << np.uint64(1)
        key |= (d > 0).view(np.uint8).astype(np.uint64)
        key.sort(axis=1)
        v = key >> np.uint64(1)                                               # |d| bits, ascending
        new = np.ones(key.shape, dtype=bool)
        new[:, 1:] = v[:, 1:] != v[:, :-1]                                    # a tie group starts
        last = np.ones(key.shape, dtype=bool)
        last[:, :-1] = new[:, 1:]                                             # a tie group ends
        gs = np.maximum.accumulate(np.where(new, pos, 0), axis=1)             # first position of the group
        ge = np.minimum.accumulate(np.where(last, pos, n)[:, ::-1], axis=1)[:, ::-1]   # its last
        z = (v == 0).sum(axis=1)                                              # zero differences: dropped
        twice = gs + ge + 2 - 2 * z[:, None]                                  # 2 x average rank among non-zeros
        rp[c0:c0 + pc] = (twice * (key & np.uint64(1)).astype(np.int64)).sum(axis=1) * 0.5
        t = ge - gs + 1
        ties[c0:c0 + pc] = ((t * t - 1) * (v != 0)).sum(axis=1)               # sum over groups of t^3 - t
        zeros[c0:c0 + pc] = z
    # scipy.stats._wilcoxon: _wilcoxon_statistic and the asymptotic branch of _wilcoxon_nd
    count = (n - zeros).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mn = count * (count + 1.) * 0.25
        se = count * (count + 1.) * (2. * count + 1.)
        se = np.sqrt((se - ties / 2) / 24)
        z = (rp - mn) / se                                                    # correction=False (the default)
        return 2 * special.ndtr(-np.abs(z))


def _wilcoxon_signflip_exact(D: np.ndarray, batch: int = 256) -> np.ndarray:
    """Two-sided p of scipy's exact permutation version of the Wilcoxon test (``method="auto"``
    with ties or zeros and n <= 13): the statistic r+ (the rank sum of the positive differences,
    zeros dropped, average ranks of ``|d|``) over all ``2**n`` sign flips, and scipy's
    ``permutation_test`` p-value (``2 * min(P(null <= r+), P(null >= r+))`` with its relative
    tolerance ``100 * eps``, clipped to 1) -- every column at once, as one matrix product."""
    from scipy import stats

    n = D.shape[0]
    A = np.abs(D).astype(np.float64)
    A[D == 0] = np.nan
    r = np.nan_to_num(stats.rankdata(A, axis=0, nan_policy="omit"), nan=0.0)
    pos, neg = r * (D > 0), r * (D < 0)
    observed = pos.sum(axis=0)
    flips = ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)  # (2^n, n)
    gamma = np.abs(np.finfo(np.float64).eps * 100 * observed)
    out = np.empty(D.shape[1])
    for s0 in range(0, D.shape[1], batch):
        sl = slice(s0, s0 + batch)
        # exact whatever the BLAS kernel: 0/1 flips times ranks (multiples of 1/2), sums <= n (n + 1) / 2
        null = flips @ pos[:, sl] + (1.0 - flips) @ neg[:, sl]           # (2^n, columns)
        less = (null <= observed[sl] + gamma[sl]).mean(axis=0)
        greater = (null >= observed[sl] - gamma[sl]).mean(axis=0)
        out[sl] = np.clip(2 * np.minimum(less, greater), 0.0, 1.0)
    return out


def sign_counts(D) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(wins, ties, losses)`` per column: ``d > tol``, ``|d| <= tol``, ``d < -tol`` (``tol = 1e-12``)."""
    D = _as_diffs(D)
    wins = (D > TIE_TOL).sum(axis=0)
    losses = (D < -TIE_TOL).sum(axis=0)
    return wins, D.shape[0] - wins - losses, losses


def sign_test(D) -> np.ndarray:
    """Two-sided sign test: ``binomtest(wins, wins + losses, 0.5).pvalue`` for every column,
    vectorised as ``min(1, 2 binom.cdf(min(wins, losses), wins + losses, 0.5))``; no non-zero
    difference -> ``p = 1``."""
    from scipy import stats

    wins, _, losses = sign_counts(D)
    N = wins + losses
    p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(wins, losses), N, 0.5))
    return np.where(N == 0, 1.0, p)


def permutation_test(D, *, B: int = 10000, seed: int = 0, batch: int | None = None) -> tuple[np.ndarray, bool]:
    """``(p, exact)``: the two-sided paired randomisation (sign-flip) test of the mean difference.

    Exact (all ``2^n`` sign vectors) when ``2^n <= B``; otherwise ``B`` sign vectors drawn from
    ``sample_rng(seed, n, B, "permutation")`` -- the same for every column, independent of
    ``batch``.  ``|T*| >= |T|`` with ``T`` the sum of the differences uses a tolerance of
    ``1e-12 (1 + |T|)`` so float noise cannot break an exact tie.  All-zero columns give ``p = 1``.
    """
    D = _as_diffs(D)
    n, k = D.shape
    B = int(B)
    if B < 1:
        raise ValueError(f"B must be a positive integer, got {B}")
    T = D.sum(axis=0)
    thr = np.abs(T) - 1e-12 * (1.0 + np.abs(T))
    exact = n < 63 and (1 << n) <= B
    total = (1 << n) if exact else B
    rows = max(1, (batch or max(1, 4_000_000 // max(1, k))))
    count = np.zeros(k, dtype=np.int64)
    # T* = S @ D for +-1 sign rows S, exactly (CPU- and BLAS-independent; finite D, bound n)
    DT = split_rows(D.T, n)
    if DT is None:
        raise ValueError("permutation test: the differences cannot be split for an exact product (not finite?)")
    if exact:
        bits = np.arange(n, dtype=np.int64)
        for s0 in range(0, total, rows):
            codes = np.arange(s0, min(total, s0 + rows), dtype=np.int64)
            S = 1.0 - 2.0 * ((codes[:, None] >> bits[None, :]) & 1)     # (rows, n) of +-1
            count += (np.abs(sliced_product(DT, S.T)).T >= thr).sum(axis=0)
    else:
        rng = sample_rng(seed, n, B, "permutation")
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(B, n), dtype=np.int8)
        for s0 in range(0, B, rows):
            count += (np.abs(sliced_product(DT, signs[s0:s0 + rows].T)).T >= thr).sum(axis=0)
    return count / total, exact


# ---------------------------------------------------------------------------------------------
# studentised range distribution

def _gauss_legendre(a: float, b: float, panels: int, nodes: int):
    x, w = gauss_legendre(nodes)
    edges = np.linspace(a, b, panels + 1)
    h = np.diff(edges) / 2
    mid = (edges[:-1] + edges[1:]) / 2
    return (mid[:, None] + h[:, None] * x).ravel(), (h[:, None] * w).ravel()


_W_MAX = 16.0
_W_STEP = 0.005


@functools.lru_cache(maxsize=64)
def _range_sf_spline(k: int):
    """``P(range of k iid N(0, 1) > w)`` on ``[0, 16]`` as a cubic spline (step 0.005):
    ``1 - k int phi(z) (Phi(z) - Phi(z - w))^(k-1) dz``, composite Gauss-Legendre over z in
    ``[-8.5, 8.5]``.  Beyond 16 the probability is below ``1e-11`` for ``k <= 10^4`` and taken as 0."""
    from scipy import special
    from scipy.interpolate import CubicSpline

    z, wz = _gauss_legendre(-8.5, 8.5, 17, 10)
    phi = exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi) * wz
    Phi = special.ndtr(z)
    w = np.arange(0.0, _W_MAX + _W_STEP / 2, _W_STEP)
    out = np.empty_like(w)
    for s0 in range(0, w.size, 512):
        d = Phi[None, :] - special.ndtr(z[None, :] - w[s0:s0 + 512, None])
        np.maximum(d, 0.0, out=d)
        out[s0:s0 + 512] = 1.0 - k * np.add.reduce(power(d, k - 1) * phi, axis=1)
    return CubicSpline(w, out)


def studentized_range_sf(q, k: int, df: float) -> np.ndarray:
    """Upper tail ``P(Q > q)`` of the studentised range with ``k`` means and ``df`` degrees of
    freedom, vectorised (``scipy.stats.studentized_range.sf`` integrates numerically per value and
    takes ~20 ms each; this agrees with it to about 1e-10 on k = 2..40, df = 1..2000 and takes
    milliseconds for thousands of values).

    ``P(Q > q) = int f(s) P(range > q s) ds`` with ``s = sqrt(chi2_df / df)``; the outer integral
    runs over ``log s`` between the ``1e-14`` and ``1 - 1e-14`` quantiles (composite
    Gauss-Legendre, 320 nodes), the inner range tail comes from :func:`_range_sf_spline`.
    """
    from scipy import special, stats

    k = int(k)
    if k < 2:
        raise ValueError(f"studentized range needs k >= 2 means, got {k}")
    df = float(df)
    if not df > 0:
        raise ValueError(f"studentized range needs df > 0, got {df}")
    q = np.asarray(q, dtype=np.float64)
    flat = q.reshape(-1)
    lo = 0.5 * log(float(stats.chi2.ppf(1e-14, df)) / df)
    hi = 0.5 * log(float(stats.chi2.isf(1e-14, df)) / df)
    u, wu = _gauss_legendre(lo, hi, 40, 8)
    s = exp(u)
    logf = (log(2.0) + (df / 2) * log(df / 2) - float(special.gammaln(df / 2)) + df * u - df * s * s / 2)
    g = exp(logf) * wu                                     # density of log s times the weights
    spline = _range_sf_spline(k)
    out = np.empty(flat.size)
    finite = np.isfinite(flat)
    out[~finite] = 0.0
    fq = np.maximum(flat[finite], 0.0)
    for s0 in range(0, fq.size, 2048):
        w = fq[s0:s0 + 2048, None] * s[None, :]
        R = np.where(w >= _W_MAX, 0.0, spline(np.minimum(w, _W_MAX)))
        out[np.flatnonzero(finite)[s0:s0 + 2048]] = np.add.reduce(R * g, axis=1)
    return np.clip(out, 0.0, 1.0).reshape(q.shape)


def tukey_hsd(diff, V_E: float, n: int, m: int) -> np.ndarray:
    """Tukey HSD p-values of mean differences ``diff`` among ``m`` systems over ``n`` topics:
    ``q = |diff| / sqrt(V_E / n)``, ``df = (m - 1)(n - 1)``.  ``V_E = 0``: ``p = 0`` for a non-zero
    difference, ``1`` for a zero one."""
    diff = np.abs(np.asarray(diff, dtype=np.float64))
    zero = diff <= 1e-12 * (1.0 + diff)
    if V_E <= 0:
        return np.where(zero, 1.0, 0.0)
    q = diff / np.sqrt(V_E / n)
    p = studentized_range_sf(q, m, (m - 1) * (n - 1))
    return np.where(zero, 1.0, p)


# ---------------------------------------------------------------------------------------------
# multiple comparisons and effect sizes

def adjust(p, method: str) -> np.ndarray:
    """Adjusted p-values over the family ``p`` (1-D): ``none``, ``bonferroni``, ``holm`` (step-down,
    Holm 1979), ``bh`` (step-up false discovery rate, Benjamini and Hochberg 1995)."""
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("adjust: p must be 1-D (one family)")
    if np.isnan(p).any():
        raise ValueError("adjust: a p-value is NaN")
    k = p.size
    if method in (None, "none") or k == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * k)
    order = np.argsort(p, kind="stable")
    ps = p[order]
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (k - np.arange(k)) * ps))
    elif method in ("bh", "fdr_bh"):
        adj = np.minimum.accumulate(np.minimum(1.0, k / np.arange(1, k + 1) * ps)[::-1])[::-1]
    else:
        raise ValueError(f"unknown correction {method!r}; expected one of {', '.join(CORRECTIONS)}")
    out = np.empty(k)
    out[order] = adj
    return out


def effect_size(diff, V_E: float) -> np.ndarray:
    """``ES_E = diff / sqrt(V_E)``; with ``V_E = 0``: ``0`` for a zero difference, else ``+-inf``."""
    diff = np.asarray(diff, dtype=np.float64)
    if V_E > 0:
        return diff / np.sqrt(V_E)
    return np.where(np.abs(diff) <= 1e-12, 0.0, np.copysign(np.inf, diff))


def cohen_dz(D) -> np.ndarray:
    """Cohen's ``d_z = mean(d) / sd(d)`` (n - 1 sd) per column; zero variance: ``0`` for identical
    systems, ``+-inf`` for a constant non-zero difference."""
    D = _as_diffs(D)
    zv, allzero, mean = _zero_variance(D)
    with np.errstate(divide="ignore", invalid="ignore"):
        dz = mean / D.std(axis=0, ddof=1)
    dz[zv] = np.where(allzero[zv], 0.0, np.copysign(np.inf, mean[zv]))
    return dz
