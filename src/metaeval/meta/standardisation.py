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
from .stages.common import STD_TOPICS, STD_TRIALS

__all__ = ["ALPHAS", "STD_ROWS", "EXPERIMENTS", "topic_subsets", "within", "between", "rank_agreement",
           "pearson_rows", "WithinResult", "BetweenResult", "standardised_matrices",
           "DEFAULT_TRIALS", "DEFAULT_TOPICS"]

#: the significance levels of the power curves: ``common.R``'s ``.ALPHAS``
ALPHAS = tuple([i * 1e-3 for i in range(1, 10)] + [i * 1e-2 for i in range(1, 10)] + [0.1])
#: the rows of the tables: no standardisation, then the four methods
STD_ROWS = ("raw", "z", "N", "U", "E")
#: the experiments' keys in the random stream
EXPERIMENTS = {"within": 1, "between": 2}
#: the experiments' defaults: the stage's declared ones (its command, its API)
DEFAULT_TRIALS = STD_TRIALS
DEFAULT_TOPICS = STD_TOPICS
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


def _welch_t(m1, v1, m2, v2, n: int):
    """``(|t|, df)`` of Welch's test from two samples' means and variances (``n`` each;
    broadcasting); zero standard error: ``|t|`` = 0 (no difference) or inf (see the module docstring)."""
    s1, s2 = v1 / n, v2 / n
    se2 = s1 + s2
    diff = np.abs(m1 - m2)
    ok = se2 > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(ok, diff / np.sqrt(np.where(ok, se2, 1.0)), np.where(diff == 0, 0.0, np.inf))
        df = np.where(ok, se2 * se2 / ((s1 * s1 + s2 * s2) / (n - 1)), float(n - 1))
    return t, df


def welch_p(m1, v1, m2, v2, n: int) -> np.ndarray:
    """Two-sided p-values of Welch's t test (R's ``t.test(a, b)``) from the means and sample
    variances of two samples of ``n`` each (broadcasting)."""
    from scipy.special import stdtr

    t, df = _welch_t(m1, v1, m2, v2, n)
    return np.minimum(2.0 * stdtr(df, -t), 1.0)


def _welch_rates(t, df, n: int, alphas, cells: int = 64) -> np.ndarray:
    """``(trials, alphas)``: per row the fraction of Welch tests (``|t|`` and ``df`` of
    :func:`_welch_t`, ``(trials, tests)``) with ``p <= alpha``.

    Welch's degrees of freedom lie in ``[n - 1, 2n - 2]`` (equal sample sizes); the critical value
    ``c_alpha(df)`` decreases with ``df``, so on a grid of ``cells`` intervals of that range a
    test whose ``|t|`` reaches the critical value at its interval's lower end is significant, one
    below the value at the upper end is not, and only the few in between get their p-value
    (``scipy.special.stdtr``)."""
    from scipy import stats
    from scipy.special import stdtr

    a = np.asarray(alphas, dtype=np.float64)
    grid = np.linspace(n - 1.0, 2.0 * n - 2.0, cells + 1)
    C = stats.t.isf(a[:, None] / 2.0, grid[None, :])                      # (alphas, cells + 1)
    k = np.clip(((df - (n - 1.0)) / (n - 1.0) * cells).astype(np.int64), 0, cells - 1)
    hi, lo = C[:, :-1] * (1 + 1e-9), C[:, 1:] * (1 - 1e-9)               # bounds of c_alpha in cell k
    unsure = np.zeros(t.shape, dtype=bool)
    for j in range(len(a)):
        unsure |= (t >= lo[j][k]) & (t < hi[j][k])
    p = np.minimum(2.0 * stdtr(df[unsure], -t[unsure]), 1.0)
    out = np.empty((len(t), len(a)))
    for j in range(len(a)):
        sig = t >= hi[j][k]
        sig[unsure] = p <= a[j]
        out[:, j] = np.count_nonzero(sig, axis=1) / t.shape[1]
    return out


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
        t_same, df_same = _welch_t(m1, v1, m2, v2, n)
        t_cross, df_cross = (v[:, off] for v in _welch_t(m1[:, :, None], v1[:, :, None], m2[:, None, :],
                                                            v2[:, None, :], n))
        parts.append((*rank_agreement(m1, m2), pearson_rows(m1, m2), _welch_rates(t_same, df_same, n, alphas),
                      _welch_rates(t_cross, df_cross, n, alphas)))
    tau, tap, r, t1, pw = (np.concatenate(p) for p in zip(*parts))
    return BetweenResult(tau, tap, r, t1, pw, tuple(alphas))


# ------------------------------------------------------------------------------ the stage
WITHIN_COLUMNS = ["metric", "std", "n_topics", "trials", "tau", "tau_sd", "tau_ap", "r", "power_at_0.05",
                  "power_at_0.01"]
POWER_COLUMNS = ["metric", "std", "alpha", "power"]
BETWEEN_COLUMNS = ["metric", "std", "alpha", "type1", "power", "tau", "tau_ap", "r"]
TRIALS_COLUMNS = ["metric", "experiment", "std", "trial", "tau", "tau_ap", "r"]


def _mean(v) -> float:
    """Mean over the trials where the value is defined (NaN if none)."""
    v = np.asarray(v, dtype=np.float64)
    ok = ~np.isnan(v)
    return float(np.add.reduce(v[ok]) / ok.sum()) if ok.any() else float("nan")


def _sd(v) -> float:
    v = np.asarray(v, dtype=np.float64)
    v = v[~np.isnan(v)]
    if len(v) < 2:
        return float("nan")
    m = np.add.reduce(v) / len(v)
    return float(np.sqrt(np.add.reduce((v - m) ** 2) / (len(v) - 1)))


def check_methods(methods) -> tuple[str, ...]:
    from ..metrics.standardise import parse_std

    out = tuple(dict.fromkeys(parse_std(m) for m in methods))
    if not out:
        raise ValueError("no standardisation method given")
    return out


def stage_standardisation(matrices, metrics=None, *, methods=("z", "N", "U", "E"), n_topics: int = DEFAULT_TOPICS,
                          trials: int = DEFAULT_TRIALS, seed: int = 1, alphas=ALPHAS) -> dict:
    """Both experiments on every metric's ``(topics x runs)`` matrix (DataFrames, as
    :func:`metaeval.meta.matrices.load_matrices` reads them): ``{"standardisation_within",
    "standardisation_between", "standardisation_power", "standardisation_trials": DataFrame}``.

    ``n = min(n_topics, floor(T / 2))`` topics per subset in both experiments (so that the
    trials differ: a collection of fewer than ``2 n_topics`` topics gets smaller subsets); ``raw``
    first, then ``methods``; the means over trials skip trials where a coefficient is undefined."""
    import pandas as pd

    methods = check_methods(methods)
    if isinstance(trials, bool) or int(trials) < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    if isinstance(n_topics, bool) or int(n_topics) < 2:
        raise ValueError(f"topics must be an integer >= 2, got {n_topics!r}")
    trials, alphas = int(trials), tuple(float(a) for a in alphas)
    names = list(matrices) if metrics is None else list(metrics)
    within_rows, power_rows, between_rows, trial_rows = [], [], [], []
    from ..progress import Progress

    bar = Progress(len(names) * len(methods) * 2, "metaeval standardise --experiment")
    for name in names:
        df = matrices[name]
        x = df.to_numpy(dtype=np.float64)
        T, R = x.shape
        n = min(int(n_topics), T // 2)
        if n < 2 or R < 2:
            raise ValueError(f"{name}: the standardisation experiments need at least 4 topics and 2 runs, "
                             f"got {T} topics and {R} runs")
        if n < int(n_topics) and name == names[0]:      # said once, not per metric
            import warnings

            from ..errors import InputWarning

            warnings.warn(f"{name}: {T} topics make two disjoint subsets of at most {T // 2}: subsets of {n} "
                          f"topics used, not {int(n_topics)}", InputWarning, stacklevel=2)
        ys = standardised_matrices(x, methods)
        idx_w = topic_subsets(T, n, trials, seed, "within")
        idx_b = topic_subsets(T, 2 * n, trials, seed, "between")
        for std, y in ys.items():
            w = within(x, y, idx_w, alphas)
            bar.update()
            pw = np.add.reduce(w.power, axis=0) / trials
            at = {a: float(pw[alphas.index(a)]) if a in alphas else float("nan") for a in (0.05, 0.01)}
            within_rows.append([name, std, n, trials, _mean(w.tau), _sd(w.tau), _mean(w.tau_ap), _mean(w.r),
                                at[0.05], at[0.01]])
            power_rows += [[name, std, a, float(p)] for a, p in zip(alphas, pw)]
            b = between(y, idx_b, alphas)
            bar.update()
            t1 = np.add.reduce(b.type1, axis=0) / trials
            bp = np.add.reduce(b.power, axis=0) / trials
            tau, tap, r = _mean(b.tau), _mean(b.tau_ap), _mean(b.r)
            between_rows += [[name, std, a, float(u), float(v), tau, tap, r] for a, u, v in zip(alphas, t1, bp)]
            for exp, res in (("within", w), ("between", b)):
                trial_rows.append(pd.DataFrame({"metric": name, "experiment": exp, "std": std,
                                                "trial": np.arange(1, trials + 1), "tau": res.tau,
                                                "tau_ap": res.tau_ap, "r": res.r}))
    bar.close()
    return {"standardisation_within": pd.DataFrame(within_rows, columns=WITHIN_COLUMNS),
            "standardisation_between": pd.DataFrame(between_rows, columns=BETWEEN_COLUMNS),
            "standardisation_power": pd.DataFrame(power_rows, columns=POWER_COLUMNS),
            "standardisation_trials": (pd.concat(trial_rows, ignore_index=True) if trial_rows
                                       else pd.DataFrame(columns=TRIALS_COLUMNS))}
