"""The standardisation experiments of Urbano, Lima & Hanjalic (2019), vectorised over trials.

Their ``R/01-within.R`` and ``R/02-between.R`` (julian-urbano/sigir2019-standardization) ask
how score standardisation (:mod:`metaeval.metrics.standardise`: z, N, U, E) changes a test
collection's conclusions:

*Within a collection* (:func:`within`): per trial a random subset of ``n`` topics; the runs'
mean raw scores and mean standardised scores on it are compared by Kendall's tau_b, Urbano &
Marrero (2017)'s tau_AP-b and Pearson's r, and every pair of runs is compared by the two-sided
paired t test on the standardised scores: "power" at ``alpha`` = the fraction of run pairs with
``p <= alpha`` (R's ``ecdf(p)(alpha)``), averaged over the trials.  ``raw`` is the unstandardised
matrix (tau = r = 1; its power is the baseline).

*Between collections* (:func:`between`): per trial two disjoint random sets of ``n`` topics
(``n = min(n_topics, floor(T / 2))``) play two collections; ``type1`` = the fraction of runs that
Welch's two-sample t test finds different from themselves across the two sets (``p <= alpha``),
``power`` = the same over every ordered pair of different runs (run ``i`` on the first set
against run ``j != i`` on the second, as ``02-between.R``); tau_b, tau_AP-b and r between the
two sets' rankings by mean score.

As in the R code, the standardisation factors come from every topic and every run of the matrix
(the trial's topics are then drawn from the standardised matrix).

Random subsets: trial ``k``'s topics are the first ``n`` (or ``2n``) positions of the ordering of
``T`` uniform draws (``argsort``), drawn row after row from one generator
``trial_rng(seed, "standardisation", T, n, experiment)`` -- the first ``k`` trials are the same
whatever the number of trials, every metric and method sees the same subsets, and a literal loop
drawing ``rng.random(T)`` per trial gets them too.

Vectorised: the trials are processed in chunks; topic-subset sums are fixed-order reductions of
the gathered ``(trials, n, runs)`` scores; the paired tests' sums of squared differences over
every pair and trial are one exact product (:func:`metaeval.detmath.int_product`) of the 0/1
trial-by-topic selection matrix with the ``(topics, pairs)`` squared centred differences; a test
is significant at ``alpha`` when ``|t|`` reaches the t distribution's critical value (the paired
test, whose degrees of freedom are fixed) or when its p-value is ``<= alpha`` (Welch's test).
Ties in a ranking are means equal after rounding to 12 decimals (as :mod:`.rankcorr`).

Degenerate tests (R's ``t.test`` stops with "data are essentially constant"): differences all
zero -> not significant (p = 1); zero variance with a non-zero mean difference -> significant
(p = 0), the rule of :func:`metaeval.meta.pairtests.paired_t`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..detmath import int_product
from .kendall import TIE_DECIMALS
from .samples import trial_rng

__all__ = ["ALPHAS", "STD_ROWS", "EXPERIMENTS", "topic_subsets", "within", "between", "tau_b_rows",
           "tau_ap_b_rows", "pearson_rows", "WithinResult", "BetweenResult", "standardised_matrices",
           "DEFAULT_TRIALS", "DEFAULT_TOPICS"]

#: the significance levels of the power curves: ``common.R``'s ``.ALPHAS``
ALPHAS = tuple([i * 1e-3 for i in range(1, 10)] + [i * 1e-2 for i in range(1, 10)] + [0.1])
#: the rows of the tables: no standardisation, then the four methods
STD_ROWS = ("raw", "z", "N", "U", "E")
#: the experiments' keys in the random stream
EXPERIMENTS = {"within": 1, "between": 2}
DEFAULT_TRIALS = 1000
DEFAULT_TOPICS = 50
#: trials processed at once (bounded memory; results do not depend on it)
CHUNK = 128


def topic_subsets(n_total: int, size: int, trials: int, seed: int, experiment: str) -> np.ndarray:
    """``(trials, size)`` topic positions, each row a uniform random subset of ``range(n_total)``
    without replacement, in random order (see the module docstring)."""
    if not 1 <= size <= n_total:
        raise ValueError(f"cannot draw {size} of {n_total} topics")
    rng = trial_rng(seed, "standardisation", n_total, size, EXPERIMENTS[experiment])
    return np.argsort(rng.random((int(trials), n_total)), axis=1, kind="stable")[:, :size]


def standardised_matrices(x, methods) -> dict[str, np.ndarray]:
    """``{"raw": x, method: standardised x}`` for a ``(topics, runs)`` matrix, the factors from
    every topic and run (std.R's ``std$standardize(std$factors(x), x)``)."""
    from ..metrics.standardise import compute_factors, standardise

    x = np.asarray(x, dtype=np.float64)
    topics = [str(i) for i in range(x.shape[0])]
    f = compute_factors(x.T, topics)
    out = {"raw": x}
    for m in methods:
        out[m] = standardise(x.T, f, m).T
    return out


# ------------------------------------------------------------------ correlations, rows = trials
def _ranked(a):
    return np.round(np.asarray(a, dtype=np.float64), TIE_DECIMALS)


def tau_b_rows(a, b) -> np.ndarray:
    """Kendall's tau_b between the rankings by ``a[k]`` and ``b[k]`` for every row ``k``
    (``(S, n)`` arrays); NaN for a row where either ranking is one tie group."""
    a, b = _ranked(a), _ranked(b)
    sa = np.sign(a[:, :, None] - a[:, None, :]).astype(np.int8)
    sb = np.sign(b[:, :, None] - b[:, None, :]).astype(np.int8)
    cd = np.add.reduce((sa * sb).reshape(len(a), -1), axis=1, dtype=np.int64) // 2
    ua = np.add.reduce(np.abs(sa).reshape(len(a), -1), axis=1, dtype=np.int64) // 2
    ub = np.add.reduce(np.abs(sb).reshape(len(b), -1), axis=1, dtype=np.int64) // 2
    den = np.sqrt(ua.astype(np.float64) * ub.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, np.clip(cd / np.where(den > 0, den, 1.0), -1.0, 1.0), np.nan)


def tau_ap_b_rows(a, b) -> np.ndarray:
    """Urbano & Marrero (2017)'s tau_AP-b between ``a[k]`` and ``b[k]`` for every row (as
    :func:`metaeval.meta.rankcorr.tau_ap_b`): the mean of ``2 / |{i: p_i > 1}| sum C'(i) / (p_i - 1) - 1``
    walking down each ranking, ``p_i - 1`` the systems strictly above ``i``'s tie group, ``C'(i)``
    those strictly above ``i`` in both rankings."""
    a, b = _ranked(a), _ranked(b)
    above_a = a[:, None, :] > a[:, :, None]                # [k, u, v]: v strictly above u
    above_b = b[:, None, :] > b[:, :, None]
    both = np.add.reduce(above_a & above_b, axis=2, dtype=np.int64).astype(np.float64)

    def walk(above):
        t = np.add.reduce(above, axis=2, dtype=np.int64).astype(np.float64)
        w = np.where(t > 0, 1.0 / np.where(t > 0, t, 1.0), 0.0)
        nt = np.add.reduce(t > 0, axis=1, dtype=np.int64).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(nt > 0, 2.0 * np.add.reduce(both * w, axis=1) / np.where(nt > 0, nt, 1.0) - 1.0, np.nan)

    return np.clip((walk(above_a) + walk(above_b)) * 0.5, -1.0, 1.0)


def pearson_rows(a, b) -> np.ndarray:
    """Pearson's r between ``a[k]`` and ``b[k]`` for every row (fixed-order sums); NaN for a
    constant row."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    da = a - np.add.reduce(a, axis=1)[:, None] / a.shape[1]
    db = b - np.add.reduce(b, axis=1)[:, None] / b.shape[1]
    num = np.add.reduce(da * db, axis=1)
    den = np.sqrt(np.add.reduce(da * da, axis=1) * np.add.reduce(db * db, axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, np.clip(num / np.where(den > 0, den, 1.0), -1.0, 1.0), np.nan)


# ------------------------------------------------------------------------------ within
@dataclass(frozen=True)
class WithinResult:
    """Per trial: ``tau``, ``tau_ap``, ``r`` (``(trials,)``) and ``power`` (``(trials, alphas)``:
    the fraction of run pairs significant at each alpha of ``alphas``)."""
    tau: np.ndarray
    tau_ap: np.ndarray
    r: np.ndarray
    power: np.ndarray
    alphas: tuple


def _subset_sums(y, idx):
    """``(trials, runs)`` sums of ``y`` (``(topics, runs)``) over each row of ``idx``, in topic order."""
    return np.add.reduce(y[idx], axis=1)


def _paired_power(y, idx, crit) -> np.ndarray:
    """``(trials, alphas)`` fraction of run pairs whose paired t test on ``y``'s topics ``idx[k]``
    has ``|t| >= crit[a]``."""
    T, R = y.shape
    n = idx.shape[1]
    iu, ju = np.triu_indices(R, 1)
    D = y[:, iu] - y[:, ju]                                  # (topics, pairs)
    c = np.add.reduce(D, axis=0) / T
    Dc = D - c
    Q = (Dc * Dc).T                                          # (pairs, topics)
    W = np.zeros((len(idx), T))
    W[np.arange(len(idx))[:, None], idx] = 1.0
    ssq = int_product(Q, W.T, bound=n).T                     # (trials, pairs): exact sums over each subset
    S = _subset_sums(y, idx)
    sd = S[:, iu] - S[:, ju]                                 # sum of the differences
    mean = sd / n
    sdc = sd - n * c                                         # sum of the centred differences
    var = np.maximum(ssq - sdc * sdc / n, 0.0) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(mean == 0, 0.0, np.abs(mean) / np.sqrt(var / n))
    # |t| >= crit[a] for the alphas in decreasing order of crit
    order = np.argsort(crit)
    hits = np.searchsorted(np.asarray(crit)[order], t, side="right")          # how many crits <= |t|
    A1 = len(crit) + 1
    counts = np.bincount((np.arange(len(idx))[:, None] * A1 + hits).ravel(), minlength=len(idx) * A1)
    counts = counts.reshape(len(idx), A1)
    ge = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1][:, 1:]  # ge[:, j]: |t| >= j+1 smallest crits
    out = np.empty((len(idx), len(crit)))
    out[:, order] = ge / t.shape[1]
    return out


def _t_crit(alphas, df) -> np.ndarray:
    from scipy import stats

    return np.asarray(stats.t.isf(np.asarray(alphas) / 2.0, df), dtype=np.float64)


def within(x, y, idx, alphas=ALPHAS, chunk: int = CHUNK) -> WithinResult:
    """The within-collection statistics of raw ``x`` and standardised ``y`` (``(topics, runs)``)
    on each row of ``idx`` (``(trials, n)`` topic positions)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = idx.shape[1]
    crit = _t_crit(alphas, n - 1)
    parts = []
    for a in range(0, len(idx), chunk):
        sub = idx[a:a + chunk]
        mx = _subset_sums(x, sub) / n
        my = _subset_sums(y, sub) / n
        parts.append((tau_b_rows(mx, my), tau_ap_b_rows(mx, my), pearson_rows(mx, my), _paired_power(y, sub, crit)))
    tau, tap, r, pw = (np.concatenate(p) for p in zip(*parts))
    return WithinResult(tau, tap, r, pw, tuple(alphas))


# ------------------------------------------------------------------------------ between
@dataclass(frozen=True)
class BetweenResult:
    """Per trial: ``tau``, ``tau_ap``, ``r`` (``(trials,)``), ``type1`` and ``power``
    (``(trials, alphas)``)."""
    tau: np.ndarray
    tau_ap: np.ndarray
    r: np.ndarray
    type1: np.ndarray
    power: np.ndarray
    alphas: tuple


def _mean_var(y, idx):
    """``(trials, runs)`` means and sample variances of ``y`` over each row of ``idx`` (two passes)."""
    g = y[idx]                                               # (trials, n, runs)
    n = idx.shape[1]
    m = np.add.reduce(g, axis=1) / n
    d = g - m[:, None, :]
    return m, np.add.reduce(d * d, axis=1) / (n - 1)


def welch_p(m1, v1, m2, v2, n: int) -> np.ndarray:
    """Two-sided p-values of Welch's t test (R's ``t.test(a, b)``) from the means and sample
    variances of two samples of ``n`` each (broadcasting); degenerate: see the module docstring."""
    from scipy.special import stdtr

    s1, s2 = v1 / n, v2 / n
    se2 = s1 + s2
    diff = m1 - m2
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(diff) / np.sqrt(se2)
        df = se2 * se2 / (s1 * s1 / (n - 1) + s2 * s2 / (n - 1))
        p = 2.0 * stdtr(np.where(se2 > 0, df, 1.0), -np.where(se2 > 0, t, 0.0))
    return np.where(se2 > 0, np.minimum(p, 1.0), np.where(diff == 0, 1.0, 0.0))


def _rates(p, alphas) -> np.ndarray:
    """``(trials, alphas)``: per row the fraction of ``p`` (``(trials, tests)``) ``<= alpha``."""
    return np.stack([np.add.reduce(p <= a, axis=1, dtype=np.int64) / p.shape[1] for a in alphas], axis=1)


def between(y, idx, alphas=ALPHAS, chunk: int = CHUNK) -> BetweenResult:
    """The between-collection statistics of ``y`` (``(topics, runs)``) on each row of ``idx``
    (``(trials, 2n)``: the first ``n`` positions the first collection, the rest the second)."""
    y = np.asarray(y, dtype=np.float64)
    n = idx.shape[1] // 2
    R = y.shape[1]
    off = ~np.eye(R, dtype=bool)
    parts = []
    for a in range(0, len(idx), chunk):
        sub = idx[a:a + chunk]
        m1, v1 = _mean_var(y, sub[:, :n])
        m2, v2 = _mean_var(y, sub[:, n:])
        same = welch_p(m1, v1, m2, v2, n)
        cross = welch_p(m1[:, :, None], v1[:, :, None], m2[:, None, :], v2[:, None, :], n)[:, off]
        parts.append((tau_b_rows(m1, m2), tau_ap_b_rows(m1, m2), pearson_rows(m1, m2),
                      _rates(same, alphas), _rates(cross, alphas)))
    tau, tap, r, t1, pw = (np.concatenate(p) for p in zip(*parts))
    return BetweenResult(tau, tap, r, t1, pw, tuple(alphas))
