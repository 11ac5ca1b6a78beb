"""Paired and unpaired bootstrap hypothesis tests for every system pair, and the bootstrap
sensitivity method (paper 000 Sec. 4.3; paper 001 Secs. 5-6, Figs 2, 3, 6-9).

Everything is computed for all pairs and all bootstrap samples at once: with ``C`` the ``(B, n)``
count matrix of the samples ``Q*b`` and ``W`` the ``(n, pairs)`` matrix of centred per-topic
differences ``w_i = z_i - z_bar``, ``C @ W / n`` is every bootstrap mean ``w_bar*b`` and
``C @ W**2`` gives every bootstrap variance.  ``B`` is processed in batches (``batch=``) so memory
stays bounded; the products themselves run in fixed zero-padded blocks of
:data:`~metaeval.meta.samples.BLOCK` samples, so the result is bit-identical for every batch size.

Decisions where the papers leave room (also in docs/meta.md):

* **Zero variance** (tied metrics such as RR make ``z`` or ``w*b`` constant): the Studentised
  statistic ``t = mean / (sd / sqrt(n))`` is defined as ``0`` when the mean is 0 too and as
  ``sign(mean) * inf`` otherwise.  So two identical runs get ``t(z) = 0`` and ``ASL = 1``; a
  constant non-zero difference gets ``t(z) = inf`` and ``ASL = 0`` (every ``w*b`` is 0).  A
  variance is "zero" when it is below ``1e-12`` times the mean square (cancellation noise).  No
  NaN can reach a table.
* **ASL comparison** ``|t*b| >= |t(z)|`` uses a relative tolerance of ``1e-10`` so floating-point
  noise cannot break an exact tie; the unpaired ``|d*b| >= |d|`` compares values rounded to 12
  decimals.
* **B alpha-th largest** (Figs 8, 9): ``k = max(1, round(B * alpha))``; when several replicates
  share the k-th largest ``|t*b|``, the largest of their ``|w_bar*b|`` is taken (conservative,
  like the max over pairs).  ``estimated_diff`` is the raw maximum; rounding to two significant
  figures happens only in the Markdown/LaTeX tables.
* **AG_ variant** (paper 001 Sec. 5.1): ``transform="log"`` tests ``log(x + 0.00001)``; its
  estimated difference is a difference of means of logs (as the paper's 1.42).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._validate import as_scores, check_alpha, check_batch
from .samples import BootstrapSamples, resolve_samples
from .statistics import Statistic, as_statistic, log_transform, pair_indices

__all__ = ["PairedResult", "UnpairedResult", "paired_bootstrap", "unpaired_bootstrap", "paired_tstar",
           "studentise", "kth_index", "paired_test_differences", "DEFAULT_BATCH_ELEMENTS", "resolve_transform", "run_statistics"]

VAR_REL_EPS = 1e-12
ASL_REL_TOL = 1e-10
ROUND = 12
#: default batch: about this many (sample x pair) elements per temporary array
DEFAULT_BATCH_ELEMENTS = 4_000_000


def kth_index(B: int, alpha: float) -> int:
    """``k`` of "the B*alpha-th largest value": ``max(1, round(B * alpha))``, at most ``B``."""
    return int(min(B, max(1, round(B * alpha))))


def resolve_transform(transform):
    """``None``/``"none"`` -> None; ``"log"`` -> ``log(x + 0.00001)``; a callable is kept."""
    if transform in (None, "none", "identity"):
        return None, "none"
    if transform == "log":
        return log_transform, "log"
    if callable(transform):
        return transform, getattr(transform, "__name__", "custom")
    raise ValueError(f"unknown transform {transform!r}; expected None, 'log' or a callable")


def _default_batch(batch, B, width):
    if batch is None:
        batch = max(1, DEFAULT_BATCH_ELEMENTS // max(1, width))
    return check_batch(batch, B)


def studentise(mean, var, msq, n):
    """``mean / sqrt(var / n)`` with the zero-variance rule of this module (arrays broadcast)."""
    mean = np.asarray(mean, dtype=np.float64)
    var = np.maximum(np.asarray(var, dtype=np.float64), 0.0)
    msq = np.asarray(msq, dtype=np.float64)
    zero_var = var <= VAR_REL_EPS * msq
    zero_mean = np.abs(mean) <= 1e-12 * (1.0 + np.sqrt(msq))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n)
    t = np.where(zero_var, np.where(zero_mean, 0.0, np.copysign(np.inf, mean)), t)
    return t


class _KthLargest:
    """Running k-th largest ``T`` per column over batches, with the largest ``W`` among ties."""

    def __init__(self, k: int, P: int):
        self.k = k
        self.T = np.empty((0, P))
        self.W = np.empty((0, P))
        self.tie_val = np.full(P, -np.inf)
        self.tie_w = np.full(P, -np.inf)

    def add(self, T, W):
        T = np.concatenate([self.T, T]) if self.T.size else T
        W = np.concatenate([self.W, W]) if self.W.size else W
        m, k = T.shape[0], self.k
        if m <= k:
            self.T, self.W = T, W
            return
        idx = np.argpartition(-T, k - 1, axis=0)[:k]
        kt = np.take_along_axis(T, idx, 0)
        kw = np.take_along_axis(W, idx, 0)
        v = kt.min(axis=0)
        dropped = np.ones(T.shape, dtype=bool)
        np.put_along_axis(dropped, idx, False, 0)
        dm = dropped & (T == v)
        dw = np.where(dm, W, -np.inf).max(axis=0)
        has = dm.any(axis=0)
        newer = has & (v > self.tie_val)
        same = has & (v == self.tie_val)
        self.tie_w = np.where(newer, dw, np.where(same, np.maximum(self.tie_w, dw), self.tie_w))
        self.tie_val = np.where(newer, v, self.tie_val)
        self.T, self.W = kt, kw

    def result(self) -> np.ndarray:
        v = self.T.min(axis=0)
        kept = np.where(self.T == v, self.W, -np.inf).max(axis=0)
        return np.maximum(kept, np.where(self.tie_val == v, self.tie_w, -np.inf))


@dataclass(frozen=True, eq=False)
class PairedResult:
    """Paired bootstrap test of every system pair of one metric."""

    metric: str
    runs: tuple[str, ...]
    pair_x: np.ndarray              # (pairs,) run index of system X
    pair_y: np.ndarray              # (pairs,) run index of system Y
    diff_observed: np.ndarray       # z_bar per pair (on the transformed scale)
    t_observed: np.ndarray          # t(z) per pair
    asl: np.ndarray                 # ASL per pair (Fig. 3)
    pair_diff: np.ndarray           # |w_bar*b'| at the B alpha-th largest |t*b| per pair (Fig. 8)
    alpha: float
    B: int
    n_topics: int
    transform: str = "none"
    extra: dict = field(default_factory=dict)

    @property
    def n_pairs(self) -> int:
        return int(self.asl.size)

    @property
    def significant(self) -> int:
        return int((self.asl < self.alpha).sum())

    @property
    def sensitivity(self) -> float:
        return self.significant / self.n_pairs

    @property
    def estimated_diff(self) -> float:
        """Fig. 8: the maximum over pairs (raw, not rounded)."""
        return float(self.pair_diff.max())

    @property
    def system_x(self) -> list[str]:
        return [self.runs[i] for i in self.pair_x]

    @property
    def system_y(self) -> list[str]:
        return [self.runs[i] for i in self.pair_y]


@dataclass(frozen=True, eq=False)
class UnpairedResult:
    """Unpaired bootstrap test of every system pair of one metric and summary statistic."""

    metric: str
    runs: tuple[str, ...]
    pair_x: np.ndarray
    pair_y: np.ndarray
    diff_observed: np.ndarray       # d_hat = M(x) - M(y)
    asl: np.ndarray                 # Fig. 7
    pair_diff: np.ndarray           # B alpha-th largest |d*b| per pair (Fig. 9)
    alpha: float
    B: int
    n_topics: int
    statistic: str = "mean"

    n_pairs = PairedResult.n_pairs
    significant = PairedResult.significant
    sensitivity = PairedResult.sensitivity
    estimated_diff = PairedResult.estimated_diff
    system_x = PairedResult.system_x
    system_y = PairedResult.system_y


def paired_bootstrap(scores, samples=None, *, B: int | None = None, seed: int | None = None,
                     alpha: float = 0.05, transform=None, batch: int | None = None,
                     metric: str = "") -> PairedResult:
    """Paired bootstrap test (paper 001 Figs 2-3) for every pair of runs, and Fig. 8's estimate.

    ``scores``: topic x run matrix (DataFrame or ``(n, runs)`` array).  ``samples``: a
    :class:`~metaeval.meta.samples.BootstrapSamples` / ``(B, n)`` index matrix, or ``None`` to
    derive ``Q*b`` from ``(seed, n, B)`` (stream ``"paired"``).  ``transform="log"`` gives AG_.
    """
    s = as_scores(scores, metric)
    alpha = check_alpha(alpha)
    fn, tname = resolve_transform(transform)
    X = s.values if fn is None else np.asarray(fn(s.values), dtype=np.float64)
    if not np.isfinite(X).all():
        raise ValueError(f"{metric}: transform {tname!r} produced non-finite values")
    n = s.n_topics
    smp = resolve_samples(samples, n, B, seed, "paired", metric or "paired_bootstrap")
    ia, ib = pair_indices(s.n_runs)
    zbar, t_obs, asl, pair_diff = paired_test_differences(X[:, ia] - X[:, ib], smp, alpha=alpha, batch=batch)
    return PairedResult(metric, s.runs, ia, ib, zbar, t_obs, asl, pair_diff, alpha, smp.B, n, tname)


def paired_test_differences(Z, samples=None, *, B: int | None = None, seed: int | None = None,
                            alpha: float = 0.05, batch: int | None = None):
    """The paired test on per-topic differences directly: ``Z`` is ``(n, k)``, one column per
    comparison (a system pair, or an independent simulated trial).  Returns
    ``(z_bar, t(z), ASL, Fig. 8 |w_bar*b'|)``, each of shape ``(k,)``; all columns share ``Q*b``.
    """
    Z = np.array(Z, dtype=np.float64, copy=True)
    if Z.ndim != 2 or Z.shape[0] < 2 or Z.shape[1] < 1:
        raise ValueError(f"differences must be an (n >= 2, k >= 1) matrix, got shape {Z.shape}")
    if not np.isfinite(Z).all():
        raise ValueError("differences contain non-finite values")
    alpha = check_alpha(alpha)
    n, P = Z.shape
    smp = resolve_samples(samples, n, B, seed, "paired", "paired_test_differences")
    zbar = Z.mean(axis=0)
    Wc = Z - zbar
    W2 = Wc * Wc
    t_obs = studentise(zbar, W2.sum(axis=0) / (n - 1), (Z * Z).mean(axis=0), n)
    thr = np.abs(t_obs) * (1.0 - ASL_REL_TOL)
    k = kth_index(smp.B, alpha)
    top = _KthLargest(k, P)
    count = np.zeros(P, dtype=np.int64)
    bs = _default_batch(batch, smp.B, P)
    for s0, s1 in smp.batches(bs):
        S1, S2 = smp.dot(s0, s1, [Wc, W2])
        mean = S1 / n
        var = (S2 - n * mean * mean) / (n - 1)
        t = np.abs(studentise(mean, var, S2 / n, n))
        count += (t >= thr).sum(axis=0)
        top.add(t, np.abs(mean))
    return zbar, t_obs, count / smp.B, top.result()


def paired_tstar(scores, pair: tuple[int, int], samples=None, *, B: int | None = None,
                 seed: int | None = None, transform=None, metric: str = "") -> tuple[float, np.ndarray]:
    """``(t(z), t(w*b) for every b)`` of one pair (run indices), the data of paper 001 Figs 4-5."""
    s = as_scores(scores, metric)
    fn, _ = resolve_transform(transform)
    X = s.values if fn is None else np.asarray(fn(s.values), dtype=np.float64)
    n = s.n_topics
    smp = resolve_samples(samples, n, B, seed, "paired", metric or "paired_tstar")
    i, j = pair
    z = X[:, i] - X[:, j]
    zbar = z.mean()
    w = z - zbar
    t_obs = float(studentise(zbar, (w * w).sum() / (n - 1), (z * z).mean(), n))
    S1, S2 = smp.dot(0, smp.B, [w[:, None], (w * w)[:, None]])
    S1, S2 = S1[:, 0], S2[:, 0]
    mean = S1 / n
    t = studentise(mean, (S2 - n * mean * mean) / (n - 1), S2 / n, n)
    return t_obs, t


def run_statistics(X: np.ndarray, smp: BootstrapSamples, statistic: Statistic, s0: int, s1: int,
                   cols: slice | None = None) -> np.ndarray:
    """``M(run, Q*b)`` for rows ``s0:s1`` of ``smp``: a ``(rows, runs)`` matrix.

    Mean-of-transform statistics use the count-matrix product; a general statistic gets the
    resampled scores vectorised as ``(runs, rows, n)``.
    """
    n = X.shape[0]
    if statistic.is_mean_of_transform:
        T = statistic.transform(X)
        m = smp.indices.shape[1] if cols is None else len(range(*cols.indices(smp.indices.shape[1])))
        (S,) = smp.dot(s0, s1, [T], cols)
        return statistic.outer(S / m)
    idx = smp.indices[s0:s1] if cols is None else smp.indices[s0:s1, cols]
    res = X[idx]                                   # (rows, m, runs)
    return np.asarray(statistic.func(np.moveaxis(res, 2, 0)), dtype=np.float64).T


def unpaired_bootstrap(scores, samples=None, *, B: int | None = None, seed: int | None = None,
                       alpha: float = 0.05, statistic="mean", batch: int | None = None,
                       metric: str = "") -> UnpairedResult:
    """Unpaired bootstrap test (paper 001 Figs 6-7) for every pair, and Fig. 9's estimate.

    ``samples``: ``(B, 2n)`` indices into ``v = (x_1..x_n, y_1..y_n)`` (columns ``:n`` give
    ``x*b``, ``n:`` give ``y*b``), or ``None`` to derive them from ``(seed, n, B)`` (stream
    ``"unpaired"``); the same integer samples serve every pair.  ``statistic``: ``"mean"``,
    ``"gmean"`` (Eq. 7), a :class:`~metaeval.meta.statistics.Statistic` or a callable taking
    ``(..., B, n)`` resampled matrices and reducing the last axis.
    """
    s = as_scores(scores, metric)
    alpha = check_alpha(alpha)
    stat = as_statistic(statistic)
    X = s.values
    n = s.n_topics
    smp = resolve_samples(samples, n, B, seed, "unpaired", metric or "unpaired_bootstrap")
    ia, ib = pair_indices(s.n_runs)
    P = ia.size
    obs = stat(X.T)                                  # (runs,)
    d_obs = obs[ia] - obs[ib]
    thr = np.abs(np.round(d_obs, ROUND))
    k = kth_index(smp.B, alpha)
    top = _KthLargest(k, P)
    count = np.zeros(P, dtype=np.int64)
    if stat.is_mean_of_transform:
        T = stat.transform(X)
        bs = _default_batch(batch, smp.B, P)
        for s0, s1 in smp.batches(bs):
            Tx = np.concatenate([T, np.zeros_like(T)])     # (2n, runs): value if drawn from x
            Ty = np.concatenate([np.zeros_like(T), T])     # (2n, runs): value if drawn from y
            ax, bx = smp.dot(s0, s1, [Tx, Ty], slice(0, n))
            ay, by = smp.dot(s0, s1, [Tx, Ty], slice(n, 2 * n))
            mx = ax[:, ia] + bx[:, ib]
            my = ay[:, ia] + by[:, ib]
            raw = np.abs(stat.outer(mx / n) - stat.outer(my / n))
            d = np.round(raw, ROUND)
            count += (d >= thr).sum(axis=0)
            top.add(d, raw)
    else:
        bs = _default_batch(batch, smp.B, P * n)
        pc = max(1, DEFAULT_BATCH_ELEMENTS // max(1, bs * n))
        for s0, s1 in smp.batches(bs):
            idx = smp.indices[s0:s1]
            dchunks = []
            for p0 in range(0, P, pc):
                V = np.concatenate([X[:, ia[p0:p0 + pc]], X[:, ib[p0:p0 + pc]]])   # (2n, pc)
                xs = np.moveaxis(V[idx[:, :n]], 2, 0)                              # (pc, rows, n)
                ys = np.moveaxis(V[idx[:, n:]], 2, 0)
                dchunks.append((np.asarray(stat.func(xs)) - np.asarray(stat.func(ys))).T)
            raw = np.abs(np.concatenate(dchunks, axis=1))
            d = np.round(raw, ROUND)
            count += (d >= thr).sum(axis=0)
            top.add(d, raw)
    return UnpairedResult(metric, s.runs, ia, ib, d_obs, count / smp.B, top.result(), alpha,
                          smp.B, n, stat.name)
