"""Paired and unpaired bootstrap hypothesis tests for every system pair, and the bootstrap
sensitivity method (Sakai 2007a, Sec. 4.3; Sakai 2007b, Secs. 5-6, Figs 2, 3, 6-9).

Everything is computed for all pairs and all bootstrap samples at once: with ``C`` the ``(B, n)``
count matrix of the samples ``Q*b`` and ``W`` the ``(n, pairs)`` matrix of centred per-topic
differences ``w_i = z_i - z_bar``, ``C @ W / n`` is every bootstrap mean ``w_bar*b`` and
``C @ W**2`` gives every bootstrap variance.  ``B`` is processed in batches (``batch=``) so memory
stays bounded; the count-matrix products are exact before one final rounding
(:meth:`~metaeval.meta.samples.BootstrapSamples.dot_t`), so the result is bit-identical for every
batch size, CPU, BLAS kernel and thread count, and so is every decision taken on it.

Decisions where the papers leave room (also in docs/meta.md):

* **Zero variance** (tied metrics such as RR make ``z`` or ``w*b`` constant): the Studentised
  statistic ``t = mean / (sd / sqrt(n))`` is defined as ``0`` when the mean is 0 too and as
  ``sign(mean) * inf`` otherwise.  So two identical runs get ``t(z) = 0`` and ``ASL = 1``; a
  constant non-zero difference gets ``t(z) = inf`` and ``ASL = 0`` (every ``w*b`` is 0).  A
  variance is "zero" when it is below ``1e-12`` times the mean square (cancellation noise).  No
  NaN can reach a table.
* **Zero mean**: a mean below ``1e-12`` times the root mean square of the differences is the
  rounding noise of a mean that is exactly zero (e.g. two runs with equal totals of 4-decimal
  scores), so ``t = 0``: such a pair gets ``ASL = 1`` whatever the noise's sign and size.
* **ASL comparison** ``|t*b| >= |t(z)|`` uses a relative tolerance of ``1e-10`` so floating-point
  noise cannot break an exact tie; the unpaired ``|d*b| >= |d|`` treats values within
  ``1e-12 (1 + |d|)`` as equal (exact for 4-decimal scores).
* **B alpha-th largest** (Figs 8, 9): ``k = max(1, round(B * alpha))``; when several replicates
  share the k-th largest ``|t*b|``, the largest of their ``|w_bar*b|`` is taken (conservative,
  like the max over pairs).  ``estimated_diff`` is the raw maximum; rounding to two significant
  figures happens only in the Markdown/LaTeX tables.
* **AG_ variant** (Sakai 2007b, Sec. 5.1): ``transform="log"`` tests ``log(x + 0.00001)``; its
  estimated difference is a difference of means of logs (as the paper's 1.42).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from ._validate import as_scores, check_alpha, check_batch
from ..detmath import int_product, sliced_products, split_rows
from .samples import BLOCK, BootstrapSamples, resolve_samples, single_threaded_blas
from .statistics import Statistic, as_statistic, log_transform, pair_indices

__all__ = ["PairedResult", "UnpairedResult", "paired_bootstrap", "unpaired_bootstrap", "paired_tstar",
           "paired_test_differences", "studentise", "kth_index", "resolve_transform", "run_statistics",
           "DEFAULT_BATCH_ELEMENTS", "tstar_asl", "tstar_summary"]

VAR_REL_EPS = 1e-12
#: a mean below this share of the root mean square is rounding noise of an exactly zero mean
MEAN_REL_EPS = 1e-12
ASL_REL_TOL = 1e-10
#: differences closer than this (relative to 1 + |d|) count as equal: exact for 4-decimal scores,
#: whose distinct means differ by at least 1 / (n * 10^4)
D_TOL = 1e-12
#: default batch: about this many (sample x pair) elements per temporary array -- small enough
#: (1 MB) for the element-wise passes to run in cache, which beats fewer, larger batches
DEFAULT_BATCH_ELEMENTS = 131_072
#: the general-statistic path materialises (pairs, samples, topics) blocks of this many elements
GATHER_BATCH_ELEMENTS = 4_000_000
#: the paired test takes the pairs in chunks of about this many (pair x sample) elements per array
PAIR_CHUNK_ELEMENTS = 131_072
#: the unpaired test computes every sample's run-level sums at once up to this many (run x sample)
#: values per array (else in batches)
WHOLE_B_ELEMENTS = 1 << 22


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
    """``mean / sqrt(var / n)`` with the zero-mean and zero-variance rules of this module (arrays
    broadcast)."""
    mean = np.asarray(mean, dtype=np.float64)
    var = np.asarray(var, dtype=np.float64)
    msq = np.asarray(msq, dtype=np.float64)
    zero_var = var <= VAR_REL_EPS * msq
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var * (1.0 / n))
    zero_mean = ~zero_var & (np.abs(mean) <= MEAN_REL_EPS * np.sqrt(msq))
    if np.any(zero_mean):
        t = np.where(zero_mean, 0.0, t)
    if np.any(zero_var):
        t = np.array(t, dtype=np.float64, copy=True)
        zm = np.broadcast_to(mean, zero_var.shape)[zero_var]
        zq = np.broadcast_to(msq, zero_var.shape)[zero_var]
        t[zero_var] = np.where(np.abs(zm) <= 1e-12 * (1.0 + np.sqrt(zq)), 0.0, np.copysign(np.inf, zm))
    return t


class _KthLargest:
    """The exact k-th largest ``T`` per row over column batches (``(P, m)`` arrays, samples on the
    last axis), and the largest ``W`` among the replicates tied at that value.

    Per row: a lower bound ``L`` (the k-th largest seen so far; it only rises), a buffer of every
    value seen ``> L``, and the count and largest ``W`` of the values seen ``== L``; invariant:
    at least ``k`` values ``>= L`` have been seen.  The buffer is compacted (``L`` raised to its
    k-th largest) when it fills up, so after the first batches only the few percent of each batch
    above ``L`` is touched, and a flood of ties (identical runs: every ``t* = 0``) costs nothing.
    """

    def __init__(self, k: int, P: int):
        self.k, self.P = k, P
        self.cap = 3 * k
        self.T = np.full((P, self.cap), -np.inf)
        self.W = np.full((P, self.cap), -np.inf)
        self.fill = np.zeros(P, dtype=np.int64)
        self.L = np.full(P, -np.inf)
        self.eq_n = np.zeros(P, dtype=np.int64)
        self.eq_w = np.full(P, -np.inf)

    def _store(self, T, W, src, rows):
        """Append the elements at flat positions ``src`` of ``T``/``W`` to buffer rows ``rows``."""
        cnt = np.bincount(rows, minlength=self.P)
        need = int((self.fill + cnt).max()) if rows.size else 0
        if need > self.cap:                                        # grow the buffer
            pad = np.full((self.P, need - self.cap), -np.inf)
            self.T = np.concatenate([self.T, pad], axis=1)
            self.W = np.concatenate([self.W, pad], axis=1)
            self.cap = need
        offsets = np.cumsum(cnt) - cnt
        dest = rows * self.cap + self.fill[rows] + (np.arange(rows.size) - offsets[rows])
        self.T.reshape(-1)[dest] = T.reshape(-1)[src]
        self.W.reshape(-1)[dest] = W.reshape(-1)[src]
        self.fill += cnt

    def _note_ties(self, rows, eq_mask, W):
        """Count values equal to ``L`` of ``rows`` and keep their largest ``W`` (work in the
        number of ties: no copy of the hit rows)."""
        idx = np.flatnonzero(eq_mask)
        if idx.size:
            r = rows[idx // eq_mask.shape[1]]
            self.eq_n += np.bincount(r, minlength=self.P)
            np.maximum.at(self.eq_w, r, W.reshape(-1)[idx])

    def _raise(self, rows, v):
        """Set ``L = v`` (> old L) for ``rows``: reset the tie record."""
        self.L[rows] = v
        self.eq_n[rows] = 0
        self.eq_w[rows] = -np.inf

    def _compact(self):
        k = self.k
        rows = np.flatnonzero(self.fill >= k)
        if rows.size == 0:
            return
        width = int(self.fill[rows].max())
        T, W = self.T[rows, :width], self.W[rows, :width]        # copies (fancy indexing)
        v = np.partition(T, width - k, axis=1)[:, width - k]      # k-th largest (pads are -inf)
        self._raise(rows, v)
        self._note_ties(rows, T == v[:, None], W)
        self.T[rows, :width] = -np.inf
        self.W[rows, :width] = -np.inf
        self.fill[rows] = 0
        src = np.flatnonzero(T > v[:, None])                   # survivors, back into the buffer
        self._store(T, W, src, rows[src // width])

    def add(self, T, W):
        m = T.shape[1]
        allrows = np.arange(self.P)
        if m >= self.k and np.isneginf(self.L).all() and not self.fill.any():
            self._raise(allrows, np.partition(T, m - self.k, axis=1)[:, m - self.k])   # first batch
        Lc = self.L[:, None]
        src = np.flatnonzero(T > Lc)
        rows = src // m
        eq = T == Lc
        if eq.any():
            self._note_ties(allrows, eq, W)
        if self.fill.max() + np.bincount(rows, minlength=self.P).max(initial=0) > self.cap:
            self._compact()
            keep = T.reshape(-1)[src] > self.L[rows]               # L may have risen
            if keep.size and not keep.all():
                # values between the old and the new bound: ties with the new L are recorded
                drop = src[~keep]
                rr = rows[~keep]
                tie = T.reshape(-1)[drop] == self.L[rr]
                if tie.any():
                    np.add.at(self.eq_n, rr[tie], 1)
                    np.maximum.at(self.eq_w, rr[tie], W.reshape(-1)[drop[tie]])
            src, rows = src[keep], rows[keep]
        self._store(T, W, src, rows)
        if np.any((self.fill >= self.k) & np.isneginf(self.L)):
            self._compact()                                        # set the first bounds early

    def result(self) -> np.ndarray:
        self._compact()
        # now fill < k <= fill + eq_n in every row: the k-th largest is L itself, and eq_w is the
        # largest W among the values tied with it
        return self.eq_w.copy()


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
    """Paired bootstrap test (Sakai 2007b, Figs 2-3) for every pair of runs, and Fig. 8's estimate.

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
    # the differences of each chunk of pairs made where they are used (in cache), not as a whole
    # (topics x pairs) matrix first: the same numbers
    zbar, t_obs, asl, pair_diff = _paired_test(lambda c0, c1: X[:, ia[c0:c1]] - X[:, ib[c0:c1]], n, ia.size, smp,
                                               alpha, batch, True)
    return PairedResult(metric, s.runs, ia, ib, zbar, t_obs, asl, pair_diff, alpha, smp.B, n, tname)


def paired_test_differences(Z, samples=None, *, B: int | None = None, seed: int | None = None,
                            alpha: float = 0.05, batch: int | None = None, estimate: bool = True):
    """The paired test on per-topic differences directly: ``Z`` is ``(n, k)``, one column per
    comparison (a system pair, or an independent simulated trial).  Returns
    ``(z_bar, t(z), ASL, Fig. 8 |w_bar*b'|)``, each of shape ``(k,)``; all columns share ``Q*b``.
    ``estimate=False`` skips Fig. 8's estimate (NaN returned in its place): the ASLs alone, as
    many times over as a resampling experiment needs them.
    """
    Z = np.array(Z, dtype=np.float64, copy=True)
    if Z.ndim != 2 or Z.shape[0] < 2 or Z.shape[1] < 1:
        raise ValueError(f"differences must be an (n >= 2, k >= 1) matrix, got shape {Z.shape}")
    if not np.isfinite(Z).all():
        raise ValueError("differences contain non-finite values")
    smp = resolve_samples(samples, Z.shape[0], B, seed, "paired", "paired_test_differences")
    return _paired_test(lambda c0, c1: Z[:, c0:c1], Z.shape[0], Z.shape[1], smp, alpha, batch, estimate)


def _chunk_bounds(P: int, pc: int) -> list[int]:
    """``0, pc, 2 pc, ..., P``, a last chunk of one column joined to the one before it: numpy sums
    a one-column matrix down its column pairwise, wider ones row by row, as the whole matrix."""
    bounds = list(range(0, P, pc)) + [P]
    if len(bounds) > 2 and bounds[-1] - bounds[-2] == 1:
        del bounds[-2]
    return bounds


@single_threaded_blas
def _paired_test(chunk, n: int, P: int, smp, alpha, batch, estimate: bool):
    """:func:`paired_test_differences` of the ``(n, P)`` differences whose columns ``c0:c1`` are
    ``chunk(c0, c1)``, taken chunk by chunk (each chunk's statistics are the same numbers as
    the whole matrix's: :func:`_chunk_bounds`)."""
    alpha = check_alpha(alpha)
    zbar = np.empty(P)
    t_obs = np.empty(P)
    k = kth_index(smp.B, alpha)
    count = np.zeros(P, dtype=np.int64)
    pair_diff = np.full(P, np.nan)
    # pairs in chunks, each against every sample (or sample batches of ``batch``): the per-chunk
    # arrays stay small (in cache, no page faults) and a chunk's rows are split once
    # (:func:`metaeval.detmath.split_rows` works row by row: the same slices as the whole matrix)
    bs = smp.B if batch is None else check_batch(batch, smp.B)
    if batch is not None:
        bs = -(-bs // BLOCK) * BLOCK
    pc = max(1, min(P, PAIR_CHUNK_ELEMENTS // min(bs, smp.B)))
    draws = smp.draws()
    cts = [np.ascontiguousarray(smp.counts(s0, s1).T) for s0, s1 in smp.batches(bs)]
    buf = np.empty(4 * (pc + 1) * cts[0].shape[1])
    for c0, c1 in pairwise(_chunk_bounds(P, pc)):
        Z = chunk(c0, c1)
        if not np.isfinite(Z).all():
            raise ValueError("differences contain non-finite values")
        zb = zbar[c0:c1] = Z.mean(axis=0)
        Wc = Z - zb
        W2 = Wc * Wc
        t = t_obs[c0:c1] = studentise(zb, W2.sum(axis=0) / (n - 1), (Z * Z).mean(axis=0), n)
        # |t| is ranked through q = S1^2 / (n S2 - S1^2) = t^2 / (n - 1), a monotone function of
        # |t| that needs a third of the passes; zero variances follow the rule of :func:`studentise`
        with np.errstate(divide="ignore", invalid="ignore"):
            q_obs = np.where(np.isinf(t), np.inf, t * t / (n - 1))
        qt = (q_obs * (1.0 - 2 * ASL_REL_TOL))[:, None]
        wc = np.ascontiguousarray(Wc.T)
        w2 = np.ascontiguousarray(W2.T)
        splits = [split_rows(wc, draws), split_rows(w2, draws)]
        top = _KthLargest(k, c1 - c0) if len(cts) > 1 and estimate else None
        for CT in cts:
            if splits[0] is None or splits[1] is None:              # not reached: Z is finite
                S1, S2 = int_product(wc, CT, draws), int_product(w2, CT, draws)
            else:
                S1, S2 = sliced_products(splits, CT, buf)            # (pairs, rows)
            q = _q_ratio(S1, S2, n)
            count[c0:c1] += (q >= qt).sum(axis=1)
            if not estimate:
                continue
            np.abs(S1, out=S1)
            S1 *= 1.0 / n
            if top is None:
                pair_diff[c0:c1] = kth_largest_rows(q, S1, k)
            else:
                top.add(q, S1)
        if top is not None:
            pair_diff[c0:c1] = top.result()
    return zbar, t_obs, count / smp.B, pair_diff


def _q_ratio(S1, S2, n):
    """``q = S1^2 / (n S2 - S1^2)`` of bootstrap sums ``S1``, ``S2`` (``t*^2 / (n - 1)``), with the
    zero-variance and zero-mean rules of :func:`studentise` (``inf`` or ``0``)."""
    a = S1 * S1
    den = S2 * n
    den -= a
    with np.errstate(divide="ignore", invalid="ignore"):
        q = a / den
    zero = den <= (VAR_REL_EPS * (n - 1)) * S2           # zero variance (incl. S2 = 0)
    if zero.any():
        zm = np.abs(S1[zero]) * (1.0 / n) <= 1e-12 * (1.0 + np.sqrt(S2[zero] * (1.0 / n)))
        q[zero] = np.where(zm, 0.0, np.inf)
    # zero mean (studentise): |S1| <= eps sqrt(n S2) makes q <= eps^2 / (1 - eps^2) up to a few
    # roundings, so only the few q below 4 eps^2 are tested
    cand = np.flatnonzero(q <= 4.0 * MEAN_REL_EPS * MEAN_REL_EPS)
    if cand.size:
        s1, s2 = S1.reshape(-1)[cand], S2.reshape(-1)[cand]
        hit = (np.abs(s1) <= MEAN_REL_EPS * np.sqrt(s2 * n)) & ~zero.reshape(-1)[cand]
        q.reshape(-1)[cand[hit]] = 0.0
    return q


def kth_largest_rows(T, W, k: int) -> np.ndarray:
    """Per row of ``(P, m)`` arrays: the largest ``W`` among the entries whose ``T`` equals the
    row's ``k``-th largest ``T`` (what :class:`_KthLargest` finds over column batches)."""
    m = T.shape[1]
    v = np.partition(T, m - k, axis=1)[:, m - k]
    return np.where(T == v[:, None], W, -np.inf).max(axis=1)


@single_threaded_blas
def paired_tstar(scores, pair: tuple[int, int], samples=None, *, B: int | None = None,
                 seed: int | None = None, transform=None, metric: str = "") -> tuple[float, np.ndarray]:
    """``(t(z), t(w*b) for every b)`` of one pair (run indices), the data of Sakai (2007b) Figs 4-5."""
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
    S1, S2 = smp.dot_t(0, smp.B, [w[None, :], (w * w)[None, :]])
    S1, S2 = S1[0], S2[0]
    mean = S1 * (1.0 / n)
    t = studentise(mean, (S2 - n * mean * mean) * (1.0 / (n - 1)), S2 * (1.0 / n), n)
    return t_obs, t


def run_statistics(X: np.ndarray, smp: BootstrapSamples, statistic: Statistic, s0: int, s1: int,
                   cols: slice | None = None) -> np.ndarray:
    """``M(run, Q*b)`` for rows ``s0:s1`` of ``smp``: a ``(runs, rows)`` matrix.

    Mean-of-transform statistics use the count-matrix product; a general statistic gets the
    resampled scores vectorised as ``(runs, rows, n)``.
    """
    if statistic.is_mean_of_transform:
        T = statistic.transform(X)
        m = smp.indices.shape[1] if cols is None else len(range(*cols.indices(smp.indices.shape[1])))
        (S,) = smp.dot_t(s0, s1, [np.ascontiguousarray(T.T)], cols)
        return statistic.outer(S * (1.0 / m))
    idx = smp.indices[s0:s1] if cols is None else smp.indices[s0:s1, cols]
    res = X[idx]                                   # (rows, m, runs)
    return np.asarray(statistic.func(np.moveaxis(res, 2, 0)), dtype=np.float64)


@single_threaded_blas
def unpaired_bootstrap(scores, samples=None, *, B: int | None = None, seed: int | None = None,
                       alpha: float = 0.05, statistic="mean", batch: int | None = None,
                       metric: str = "") -> UnpairedResult:
    """Unpaired bootstrap test (Sakai 2007b, Figs 6-7) for every pair, and Fig. 9's estimate.

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
    a_obs = np.abs(d_obs)
    thr = (a_obs - D_TOL * (1.0 + a_obs))[:, None]
    k = kth_index(smp.B, alpha)
    top = _KthLargest(k, P)
    count = np.zeros(P, dtype=np.int64)
    if stat.is_mean_of_transform and batch is None and s.n_runs * smp.B <= WHOLE_B_ELEMENTS:
        # every sample at once (the run-level sums are small), the pairs in chunks: each pair's B
        # differences in one row, its B alpha-th largest by one partition
        pair_diff = np.empty(P)
        sums = _unpaired_sums(smp, _unpaired_sides(stat.transform(X)), 0, smp.B, stat)   # (runs, B)
        pc = max(1, PAIR_CHUNK_ELEMENTS // smp.B)
        for c0 in range(0, P, pc):
            d = _unpaired_diffs(sums, ia[c0:c0 + pc], ib[c0:c0 + pc], stat, n)
            count[c0:c0 + pc] = (d >= thr[c0:c0 + pc]).sum(axis=1)
            pair_diff[c0:c0 + pc] = kth_largest_rows(d, d, k)
        return UnpairedResult(metric, s.runs, ia, ib, d_obs, count / smp.B, pair_diff, alpha, smp.B, n,
                              stat.name)
    if stat.is_mean_of_transform:
        sides = _unpaired_sides(stat.transform(X))
        bs = _default_batch(batch, smp.B, P)
        for s0, s1 in smp.batches(bs):
            d = _unpaired_diffs(_unpaired_sums(smp, sides, s0, s1, stat), ia, ib, stat, n)
            count += (d >= thr).sum(axis=1)
            top.add(d, d)
    else:
        bs = check_batch(max(1, GATHER_BATCH_ELEMENTS // (P * n)) if batch is None else batch, smp.B)
        pc = max(1, GATHER_BATCH_ELEMENTS // max(1, bs * n))
        for s0, s1 in smp.batches(bs):
            idx = smp.indices[s0:s1]
            dchunks = []
            for p0 in range(0, P, pc):
                V = np.concatenate([X[:, ia[p0:p0 + pc]], X[:, ib[p0:p0 + pc]]])   # (2n, pc)
                xs = np.moveaxis(V[idx[:, :n]], 2, 0)                              # (pc, rows, n)
                ys = np.moveaxis(V[idx[:, n:]], 2, 0)
                dchunks.append(np.asarray(stat.func(xs)) - np.asarray(stat.func(ys)))
            d = np.abs(np.concatenate(dchunks, axis=0))                            # (P, rows)
            count += (d >= thr).sum(axis=1)
            top.add(d, d)
    return UnpairedResult(metric, s.runs, ia, ib, d_obs, count / smp.B, top.result(), alpha,
                          smp.B, n, stat.name)


def _unpaired_sides(T):
    """``(runs, 2n)`` matrices of a run's values if drawn from x (first ``n`` positions) and if
    drawn from y (last ``n``), for the unpaired samples over the concatenation ``(x, y)``."""
    return (np.concatenate([T, np.zeros_like(T)]).T.copy(), np.concatenate([np.zeros_like(T), T]).T.copy())


def _unpaired_sums(smp, sides, s0: int, s1: int, stat):
    """``(ax, bx, ay, by)``: the ``(runs, rows)`` sums of samples ``s0:s1`` over the x side
    (``ax``: values drawn from x, ``bx``: from y) and the y side; for an identity outer function
    ``ax - ay`` and ``bx - by`` in place (all the difference needs)."""
    n = smp.n // 2
    ax, bx = smp.dot_t(s0, s1, list(sides), slice(0, n))
    ay, by = smp.dot_t(s0, s1, list(sides), slice(n, 2 * n))
    if stat.outer_is_identity:
        ax -= ay
        bx -= by
    return ax, bx, ay, by


def _unpaired_diffs(sums, xa, yb, stat, n: int) -> np.ndarray:
    """``|M(x*b) - M(y*b)|`` of the pairs ``(xa, yb)`` for every sample of :func:`_unpaired_sums`."""
    ax, bx, ay, by = sums
    if stat.outer_is_identity:
        d = ax[xa]
        d += bx[yb]
        np.abs(d, out=d)
        d *= 1.0 / n
        return d
    return np.abs(stat.outer((ax[xa] + bx[yb]) * (1.0 / n)) - stat.outer((ay[xa] + by[yb]) * (1.0 / n)))


def tstar_asl(t_star, t_observed: float) -> float:
    """The ASL implied by bootstrap replicates: the share of ``|t*| >= |t(z)|`` (Sakai (2007b)
    Fig. 2); NaN without replicates."""
    ts = np.asarray(t_star, dtype=float)
    return float(np.mean(np.abs(ts) >= abs(float(t_observed)))) if len(ts) else float("nan")


def tstar_summary(tstar):
    """One row per metric of a ``tstar`` table (``metric, system_x, system_y, t_observed,
    t_star``, B rows per metric): the pair, ``t_observed``, ``B``, the mean and standard
    deviation (ddof 1) of the finite t* and the implied ASL of every t* (:func:`tstar_asl`); NaN
    where undefined (so the table never shows an infinite mean, and numpy raises no warning)."""
    import pandas as pd

    rows = []
    for m, g in tstar.groupby("metric", sort=False):
        ts = g["t_star"].to_numpy(dtype=float)
        t0 = float(g["t_observed"].iloc[0])
        fin = ts[np.isfinite(ts)]       # t* = +-inf on zero-variance samples: counted by the ASL only
        rows.append({"metric": m, "system_x": g["system_x"].iloc[0], "system_y": g["system_y"].iloc[0],
                     "t_observed": t0, "B": len(ts),
                     "mean": float(np.mean(fin)) if len(fin) else float("nan"),
                     "sd": float(np.std(fin, ddof=1)) if len(fin) > 1 else float("nan"),
                     "asl": tstar_asl(ts, t0)})
    return pd.DataFrame(rows, columns=["metric", "system_x", "system_y", "t_observed", "B", "mean",
                                       "sd", "asl"])
