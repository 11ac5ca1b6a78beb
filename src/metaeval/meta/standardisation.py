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

from ..detmath import int_product, sliced_product, split_rows
from .kendall import TIE_DECIMALS
from .samples import trial_rng

__all__ = ["ALPHAS", "STD_ROWS", "EXPERIMENTS", "topic_subsets", "within", "between", "rank_agreement",
           "pearson_rows", "WithinResult", "BetweenResult", "standardised_matrices",
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
CHUNK = 256


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


def rank_agreement(a, b) -> tuple[np.ndarray, np.ndarray]:
    """``(tau_b, tau_ap_b)`` between the rankings by ``a[k]`` and ``b[k]`` for every row ``k``
    (``(S, n)`` arrays; higher is better), from the exact counts of the "strictly above" matrices.

    Kendall's tau_b = ``(C - D) / sqrt(untied_a untied_b)`` (NaN when a ranking is one tie group);
    Urbano & Marrero (2017)'s tau_AP-b (as :func:`metaeval.meta.rankcorr.tau_ap_b`): the mean of
    ``2 / |{i: p_i > 1}| sum_{p_i > 1} C'(i) / (p_i - 1) - 1`` walking down each ranking, ``p_i - 1``
    the systems strictly above ``i``'s tie group there, ``C'(i)`` those strictly above ``i`` in
    both rankings."""
    a, b = _ranked(a), _ranked(b)
    S = len(a)
    above_a = a[:, None, :] > a[:, :, None]                # [k, u, v]: v strictly above u
    above_b = b[:, None, :] > b[:, :, None]
    both = above_a & above_b
    cd = (np.count_nonzero(both.reshape(S, -1), axis=1)
          - np.count_nonzero((above_a & above_b.transpose(0, 2, 1)).reshape(S, -1), axis=1)).astype(np.float64)
    ta = np.count_nonzero(above_a, axis=2).astype(np.float64)   # systems strictly above u
    tb = np.count_nonzero(above_b, axis=2).astype(np.float64)
    den = np.sqrt(np.add.reduce(ta, axis=1) * np.add.reduce(tb, axis=1))
    C = np.count_nonzero(both, axis=2).astype(np.float64)

    def walk(t):
        w = np.where(t > 0, 1.0 / np.where(t > 0, t, 1.0), 0.0)
        nt = np.count_nonzero(t > 0, axis=1).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(nt > 0, 2.0 * np.add.reduce(C * w, axis=1) / np.where(nt > 0, nt, 1.0) - 1.0, np.nan)

    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(den > 0, np.clip(cd / np.where(den > 0, den, 1.0), -1.0, 1.0), np.nan)
    return tau, np.clip((walk(ta) + walk(tb)) * 0.5, -1.0, 1.0)


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


class _PairedPower:
    """The paired t tests of every run pair of ``y`` (``(topics, runs)``) on topic subsets: the
    squared centred differences ``(pairs, topics)`` split once for the exact product
    (:func:`metaeval.detmath.split_rows`), then per chunk of trials one product with the 0/1
    selection matrix."""

    def __init__(self, y, n: int, crit):
        T, R = y.shape
        self.y, self.n, self.T = y, n, T
        self.iu, self.ju = np.triu_indices(R, 1)
        D = y[:, self.iu] - y[:, self.ju]                    # (topics, pairs)
        self.c = np.add.reduce(D, axis=0) / T
        Dc = D - self.c
        Q = (Dc * Dc).T                                      # (pairs, topics)
        self.slices = split_rows(Q, n)
        self.Q = Q if self.slices is None else None
        crit = np.asarray(crit, dtype=np.float64)
        self.order = np.argsort(crit)
        self.crit2 = (crit * crit)[self.order]               # compare t^2 with crit^2, ascending

    def __call__(self, idx) -> np.ndarray:
        """``(trials, alphas)`` fraction of run pairs whose paired t test on the topics ``idx[k]``
        has ``|t| >= crit[a]``."""
        k, n = len(idx), self.n
        W = np.zeros((self.T, k))
        W[idx.T, np.arange(k)[None, :]] = 1.0
        ssq = (sliced_product(self.slices, W) if self.slices is not None else int_product(self.Q, W, n)).T
        S = _subset_sums(self.y, idx)
        sd = S[:, self.iu] - S[:, self.ju]                   # (trials, pairs): sum of the differences
        sdc = sd - n * self.c                                # sum of the centred differences
        ssq -= sdc * sdc / n                                 # (n - 1) var
        np.maximum(ssq, 0.0, out=ssq)
        t2 = sd * sd * ((n - 1) / n)                        # t^2 = this / ssq
        with np.errstate(divide="ignore", invalid="ignore"):
            t2 /= ssq                                        # 0/0 (no difference at all): NaN, never significant
        out = np.empty((k, len(self.crit2)))
        for j, c2 in enumerate(self.crit2):                  # 19 passes beat a binary search per value
            out[:, self.order[j]] = np.count_nonzero(t2 >= c2, axis=1) / t2.shape[1]
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
    power = _PairedPower(y, n, _t_crit(alphas, n - 1))
    parts = []
    for a in range(0, len(idx), chunk):
        sub = idx[a:a + chunk]
        mx = _subset_sums(x, sub) / n
        my = _subset_sums(y, sub) / n
        parts.append((*rank_agreement(mx, my), pearson_rows(mx, my), power(sub)))
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
        parts.append((*rank_agreement(m1, m2), pearson_rows(m1, m2),
                      _rates(same, alphas), _rates(cross, alphas)))
    tau, tap, r, t1, pw = (np.concatenate(p) for p in zip(*parts))
    return BetweenResult(tau, tap, r, t1, pw, tuple(alphas))
