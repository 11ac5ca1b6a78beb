"""The five paired tests with the conventions of Urbano, Lima & Hanjalic (2019), for many trials at once.

Urbano, Lima & Hanjalic (SIGIR 2019, "Statistical significance testing in Information Retrieval:
an empirical analysis of type I, type II and type III errors") compare the t, Wilcoxon, sign,
bootstrap and permutation tests by simulation.  Their R code (``R/ir_tests.R`` and ``R/test.cpp``
of the public repository julian-urbano/sigir2019-statistical) fixes conventions that differ from
``metaeval compare``'s defaults; this module implements them for a ``(T, n)`` array of baseline
scores ``b`` and experimental scores ``e`` (one row per trial, one column per topic) and returns,
per trial, the one-tailed p-value (alternative: ``e`` better than ``b``) and the two-tailed one:

* ``paired-t`` -- R's ``t.test(b, e, paired = TRUE)``: the one-tailed ``alternative = "less"``
  on ``b - e``; a trial whose differences are all equal gets ``NaN`` (R stops with an error there;
  the simulation never produces one with continuous margins).
* ``wilcoxon`` -- R's ``wilcox.test(b, e, paired = TRUE)``: zero differences dropped; the exact
  distribution of V when fewer than 50 non-zero differences remain and there are no ties and no
  zeros, otherwise the normal approximation with the tie correction of the variance and the
  continuity correction (``sign(z) / 2`` two-tailed, ``-1/2`` for ``"less"``); ties are exact
  equality of ``|b - e|`` in floating point, as R ranks them.
* ``sign`` -- ``binom.test(#{e - b > 0.01}, n - #{|e - b| <= 0.01})``: differences within
  ``min_d = 0.01`` are ties; two-tailed ``min(1, 2 min(P(X <= k), P(X >= k)))`` (R's value for
  ``p = 1/2``), one-tailed ``P(X >= k)``; all ties gives ``NaN`` (R's ``NA``).
* ``bootstrap`` -- the shift method of ``testCpp_bootstrap``: ``B`` resamples of the differences
  ``d = e - b`` with replacement, their means centred on their own mean, ``p2 = #{|m*| >= |mean
  d|} / B``, ``p1 = #{m* >= mean d} / B``.
* ``permutation`` -- ``testCpp_permutation``: ``B`` random sign flips of ``d``, ``p2 = #{|m*| >=
  |mean d|} / B``, ``p1 = #{m* >= mean d} / B`` (never the exact enumeration).

The resamples of the bootstrap and permutation tests are drawn once per batch of trials and
shared by its trials (each trial's data are independent; the ``B`` resamples are a Monte Carlo
approximation of the same null distribution for all of them), and the means are computed with
:func:`metaeval.detmath.int_product`, so every p-value is the same on every CPU.
"""

from __future__ import annotations

import functools

import numpy as np

from ..detmath import int_product

__all__ = ["TESTS", "SIGN_MIN_D", "t_test", "wilcoxon_test", "sign_test", "bootstrap_test",
           "permutation_test", "run_tests", "signrank_cdf"]

from .stages.common import TE_TESTS as TESTS
#: differences within this bound are ties in the sign test (``min_d`` of ``ir_tests.R``)
SIGN_MIN_D = 0.01


def _as_pair(b, e) -> tuple[np.ndarray, np.ndarray]:
    b = np.atleast_2d(np.asarray(b, dtype=np.float64))
    e = np.atleast_2d(np.asarray(e, dtype=np.float64))
    if b.shape != e.shape or b.shape[1] < 2:
        raise ValueError(f"b and e must be (trials, n >= 2) arrays of one shape, got {b.shape} and {e.shape}")
    return b, e


def t_test(b, e) -> tuple[np.ndarray, np.ndarray]:
    """``(p1, p2)`` of the paired t test per trial (``t.test(b, e, paired = TRUE)``)."""
    from scipy import stats

    b, e = _as_pair(b, e)
    x = b - e
    n = x.shape[1]
    mean = x.mean(axis=1)
    sd = x.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    t = np.where(sd > 0, t, np.nan)
    p1 = stats.t.cdf(t, n - 1)                          # alternative "less" on b - e
    p2 = 2.0 * stats.t.sf(np.abs(t), n - 1)
    return p1, np.minimum(p2, 1.0)


@functools.cache
def signrank_cdf(n: int) -> np.ndarray:
    """``P(V <= v)`` for ``v = 0 .. n(n+1)/2`` of the Wilcoxon signed-rank statistic with ``n``
    untied non-zero differences (R's ``psignrank``), by counting subsets of ``{1..n}`` per sum."""
    top = n * (n + 1) // 2
    counts = np.zeros(top + 1, dtype=np.float64)
    counts[0] = 1.0
    for k in range(1, n + 1):
        counts[k:] = counts[k:] + counts[:-k].copy()
    cdf = np.cumsum(counts) / 2.0 ** n
    cdf.setflags(write=False)
    return cdf


def _tie_groups(a: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per row, ``sum(t^3 - t)`` over the groups of equal values of ``a`` among ``valid``."""
    T, _n = a.shape
    s = np.sort(np.where(valid, a, np.inf), axis=1)
    same = (s[:, 1:] == s[:, :-1]) & np.isfinite(s[:, 1:])
    # a run of equal values: its length t = 1 + consecutive "same" links
    starts = np.concatenate([np.ones((T, 1), bool), ~same], axis=1)
    gid = np.cumsum(starts.ravel()) - 1
    sizes = np.bincount(gid, weights=np.isfinite(s).ravel().astype(np.float64))
    row_of_group = np.repeat(np.arange(T), starts.sum(axis=1))
    return np.bincount(row_of_group, weights=sizes ** 3 - sizes, minlength=T)


def wilcoxon_test(b, e) -> tuple[np.ndarray, np.ndarray]:
    """``(p1, p2)`` of the Wilcoxon signed-rank test per trial (``wilcox.test(b, e, paired = TRUE)``)."""
    from scipy import stats

    b, e = _as_pair(b, e)
    x = b - e
    T = x.shape[0]
    nz = x != 0
    n = nz.sum(axis=1)
    ax = np.where(nz, np.abs(x), np.nan)
    r = stats.rankdata(ax, axis=1, nan_policy="omit")   # average ranks; NaN where x == 0
    V = np.where(x > 0, r, 0.0).sum(axis=1)
    ties = _tie_groups(np.abs(x), nz)
    zeros = n < x.shape[1]
    exact = (n < 50) & (ties == 0) & ~zeros & (n > 0)
    p1 = np.full(T, np.nan)
    p2 = np.full(T, np.nan)
    for m in np.unique(n[exact]):
        rows = np.flatnonzero(exact & (n == m))
        cdf = signrank_cdf(int(m))
        v = V[rows].astype(np.int64)
        lo = cdf[v]                                                    # P(V <= v)
        hi = 1.0 - np.where(v >= 1, cdf[np.maximum(v - 1, 0)], 0.0)    # P(V >= v)
        p1[rows] = lo                                                  # "less"
        p2[rows] = np.minimum(1.0, 2.0 * np.where(V[rows] > m * (m + 1) / 4, hi, lo))
    approx = ~exact & (n > 0)
    if approx.any():
        na = n[approx].astype(np.float64)
        z = V[approx] - na * (na + 1) / 4
        sigma = np.sqrt(na * (na + 1) * (2 * na + 1) / 24 - ties[approx] / 48)
        with np.errstate(divide="ignore", invalid="ignore"):
            z1 = (z + 0.5) / sigma                                     # "less": correction -1/2
            z2 = (z - np.sign(z) * 0.5) / sigma
        p1[approx] = stats.norm.cdf(z1)
        p2[approx] = 2.0 * np.minimum(stats.norm.cdf(z2), stats.norm.sf(z2))
    return p1, p2


def sign_test(b, e, min_d: float = SIGN_MIN_D) -> tuple[np.ndarray, np.ndarray]:
    """``(p1, p2)`` of the sign test per trial, differences within ``min_d`` as ties."""
    from scipy import stats

    b, e = _as_pair(b, e)
    d = e - b
    n = d.shape[1]
    pos = (d > min_d).sum(axis=1)
    eq = (np.abs(d) <= min_d).sum(axis=1)
    m = n - eq
    with np.errstate(invalid="ignore"):
        p1 = stats.binom.sf(pos - 1, m, 0.5)
        p2 = np.minimum(1.0, 2.0 * np.minimum(stats.binom.cdf(pos, m, 0.5), p1))
    bad = eq >= n
    p1 = np.where(bad, np.nan, p1)
    p2 = np.where(bad, np.nan, p2)
    return p1, p2


def _resampled_means(d: np.ndarray, K: np.ndarray) -> np.ndarray:
    """``(T, B)`` means ``d @ K / n`` for an integer ``(n, B)`` matrix, exact before one rounding."""
    n = d.shape[1]
    bound = int(np.abs(K).sum(axis=0).max()) if K.size else 1
    return int_product(d, K, bound) / n


def bootstrap_test(b, e, B: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(p1, p2)`` of the bootstrap test (shift method) per trial, ``B`` resamples shared by the trials."""
    b, e = _as_pair(b, e)
    d = e - b
    n = d.shape[1]
    idx = rng.integers(0, n, size=(B, n))
    K = np.zeros((n, B), dtype=np.float64)
    np.add.at(K, (idx, np.arange(B)[:, None]), 1.0)
    m = _resampled_means(d, K)                                     # (T, B)
    m = m - m.mean(axis=1, keepdims=True)
    obs = d.mean(axis=1, keepdims=True)
    p2 = (np.abs(m) >= np.abs(obs)).sum(axis=1) / B
    p1 = (m >= obs).sum(axis=1) / B
    return p1, p2


def permutation_test(b, e, B: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(p1, p2)`` of the random sign-flip permutation test per trial, ``B`` flips shared by the trials."""
    b, e = _as_pair(b, e)
    d = e - b
    n = d.shape[1]
    K = np.where(rng.integers(0, 2, size=(n, B)) == 0, 1.0, -1.0)
    m = _resampled_means(d, K)
    # the observed mean summed as the flipped ones are (exact, one rounding), so that the flips
    # reproducing it (all +1, all -1) give it bit for bit; and, as scipy's permutation_test and R's
    # coin do, a flipped mean within a few ulps of it counts as reaching it -- else a p-value
    # below the smallest attainable 2 / 2^n can come out of rounding alone
    obs = _resampled_means(d, np.ones((n, 1)))
    tol = _ULPS * np.finfo(np.float64).eps * np.abs(obs)
    p2 = (np.abs(m) >= np.abs(obs) - tol).sum(axis=1) / B
    p1 = (m >= obs - tol).sum(axis=1) / B
    return p1, p2


#: the tolerance of a permutation statistic's comparison with the observed one, in units of its
#: last place (scipy.stats.permutation_test: 100 eps relative)
_ULPS = 100


def run_tests(b, e, tests=TESTS, *, B: int = 1000, rng: np.random.Generator | None = None,
              signif: int | None = 6) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every test of ``tests`` on every trial: ``{test: (p1, p2)}``, p-values rounded to ``signif``
    decimals as the paper's scripts store them (``round(p, 6)``; ``None`` leaves them unrounded)."""
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if rng is None and {"bootstrap", "permutation"} & set(tests):
        raise ValueError("the bootstrap and permutation tests need rng (a seeded numpy Generator)")
    for name in tests:
        if name == "paired-t":
            p = t_test(b, e)
        elif name == "wilcoxon":
            p = wilcoxon_test(b, e)
        elif name == "sign":
            p = sign_test(b, e)
        elif name == "bootstrap":
            p = bootstrap_test(b, e, B, rng)  # type: ignore[arg-type]  # checked above
        elif name == "permutation":
            p = permutation_test(b, e, B, rng)  # type: ignore[arg-type]  # checked above
        else:
            raise ValueError(f"unknown test {name!r}; known: {', '.join(TESTS)}")
        p1, p2 = (np.round(x, signif) if signif is not None else x for x in p)
        out[name] = (p1, p2)
    return out
