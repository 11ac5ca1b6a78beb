"""The swap method, with-replacement version (Sakai 2007a, Sec. 4.2 / Fig. 4; Sakai 2007b, Sec. 7.2 / Fig. 19).

For every pair ``(X, Y)`` and trial ``b``: ``D*b = M(X, Q*b) - M(Y, Q*b)`` and
``D'*b = M(X, Q'*b) - M(Y, Q'*b)``; ``counter(BIN(D*b))++`` and, unless ``D*b * D'*b > 0``,
``swap_counter(BIN(D*b))++`` (an exact tie on either side counts as a swap, as in Fig. 4).

Samples: ``Q*b`` are the shared paired-test samples (stream ``"paired"``, Sakai (2007b) Sec. 7
reuses them) and ``Q'*b`` a second, independent, equally seed-derived set (stream ``"swap"``).

Decisions (also in docs/meta.md):

* **Bins**: 21 bins of width 0.01 on ``|D*b|`` (the last is ``D >= 0.20``); a bin is named by its
  lower edge.  ``BIN(D) = floor(|D| / 0.01 + 1e-9)``, so ``0.3 + 0.04 - 0.2`` lands in the 0.14
  bin, and ``|D| <= 1e-12`` counts as 0 in the sign test, so float noise never turns a tie into a
  difference.  Both are exact for 4-decimal scores (distinct means differ by >= 1/(n 10^4)).
* **Required difference** (column ii): ``required_rule="monotone"`` (default) is the lower edge of
  the smallest bin from which every non-empty bin has swap rate ``<= threshold`` -- "if the
  difference is at least this, the swap rate does not exceed 5%" (Sakai 2007a, Sec. 5.3);
  ``"first"`` is the lower edge of the first non-empty bin whose swap rate ``<= threshold``.
  When no bin qualifies, ``diff_required`` is NaN and ``share_satisfying`` 0.
* **Maximum** (column iii): ``max_rule="performance"`` (default) is the maximum performance value
  ``M(X, Q*b)`` recorded among all trials, both sample sets and all runs (Sakai 2007b, Sec. 7.2; the
  only reading that fits the published RR 1.0000 and nCG .9973); ``"difference"`` is the maximum
  absolute difference ``|D|`` over both sample sets (Sakai 2007a, Sec. 5.3's wording).
* ``share_satisfying``: the share (0-1) of the ``pairs x B`` comparisons with
  ``|D*b| >= diff_required``; ``pct_satisfying`` is the same as a percentage (0-100), the ``swap``
  table's column.  Like ``sensitivity`` and ``relative``, a share unless the name says pct.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_scores, check_batch
from .bootstrap import D_TOL, DEFAULT_BATCH_ELEMENTS, PAIR_CHUNK_ELEMENTS, run_statistics
from .samples import resolve_samples, single_threaded_blas
from .statistics import as_statistic, pair_indices

__all__ = ["SwapResult", "swap_method", "bin_edges", "required_difference", "relative_difference",
           "BIN_TOL"]

#: a difference less than this many bin widths below a bin edge belongs to the upper bin
#: (floating-point noise: 0.3 + 0.04 - 0.2 = 0.13999999999999999 is the 0.14 bin)
BIN_TOL = 1e-9


def bin_edges(n_bins: int = 21, width: float = 0.01) -> np.ndarray:
    """Lower edges of the difference bins (rounded to 12 decimals: 0, 0.01, ..., 0.20)."""
    return np.round(np.arange(n_bins) * width, 12)


@dataclass(frozen=True, eq=False)
class SwapResult:
    metric: str
    edges: np.ndarray          # (bins,) lower edges
    counts: np.ndarray         # (bins,) comparisons per bin
    swaps: np.ndarray          # (bins,) swaps per bin
    threshold: float
    diff_required: float
    max_value: float
    share_satisfying: float
    n_pairs: int
    B: int
    max_rule: str = "performance"
    required_rule: str = "monotone"
    statistic: str = "mean"

    @property
    def swap_rate(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.counts > 0, self.swaps / np.maximum(self.counts, 1), np.nan)

    @property
    def pct_satisfying(self) -> float:
        """``share_satisfying`` as a percentage (0-100)."""
        return 100.0 * self.share_satisfying

    @property
    def relative(self) -> float:
        return float(self.diff_required / self.max_value) if self.max_value > 0 else float("nan")


def relative_difference(diff_required, max_diff) -> float | None:
    """Column (ii)/(iii) of the swap table (a share), or None when either is missing or the
    maximum is not positive (the swap table's ``relative`` column, recomputed for a frame that
    lacks it)."""
    def missing(x) -> bool:
        return x is None or (isinstance(x, (float, np.floating)) and np.isnan(x))

    if missing(diff_required) or missing(max_diff) or float(max_diff) <= 0:
        return None
    return float(diff_required) / float(max_diff)


def required_difference(edges, counts, swaps, threshold: float = 0.05, rule: str = "monotone") -> tuple[float, int]:
    """``(lower edge, bin index)`` read off the swap-rate curve; ``(nan, len(edges))`` if none."""
    counts = np.asarray(counts)
    swaps = np.asarray(swaps)
    nb = counts.size
    ok = (counts == 0) | (swaps <= threshold * counts)      # empty bins carry no evidence
    nonempty = counts > 0
    if rule == "monotone":
        # bins i such that all bins >= i are ok, and bin i itself holds comparisons
        all_ok_from = np.flip(np.cumprod(np.flip(ok))).astype(bool)
        cand = np.flatnonzero(all_ok_from & nonempty)
    elif rule == "first":
        cand = np.flatnonzero(ok & nonempty)
    else:
        raise ValueError(f"required_rule must be 'monotone' or 'first', got {rule!r}")
    if cand.size == 0:
        return float("nan"), nb
    i = int(cand[0])
    return float(edges[i]), i


@single_threaded_blas
def swap_method(scores, samples=None, samples2=None, *, B: int | None = None, seed: int | None = None,
                threshold: float = 0.05, statistic="mean", n_bins: int = 21, bin_width: float = 0.01,
                max_rule: str = "performance", required_rule: str = "monotone",
                batch: int | None = None, metric: str = "") -> SwapResult:
    """Swap rates per difference bin and the paper's summary columns for one metric.

    ``samples``/``samples2``: ``Q*b`` and ``Q'*b`` as index matrices (``(B, n)``, equal ``B``) or
    ``None`` to derive them from ``(seed, n, B)`` (streams ``"paired"`` and ``"swap"``).
    ``statistic``: the summary over topics (``"mean"``; ``"gmean"`` for G_ metrics; any statistic).
    """
    s = as_scores(scores, metric)
    if not 0.0 <= float(threshold) < 1.0:
        raise ValueError(f"swap threshold must lie in [0, 1), got {threshold}")
    if max_rule not in ("performance", "difference"):
        raise ValueError(f"max_rule must be 'performance' or 'difference', got {max_rule!r}")
    if required_rule not in ("monotone", "first"):
        raise ValueError(f"required_rule must be 'monotone' or 'first', got {required_rule!r}")
    if int(n_bins) < 2 or not bin_width > 0:
        raise ValueError("need n_bins >= 2 and bin_width > 0")
    stat = as_statistic(statistic)
    n = s.n_topics
    what = metric or "swap_method"
    q1 = resolve_samples(samples, n, B, seed, "paired", what)
    q2 = resolve_samples(samples2, n, q1.B if B is None else B, seed, "swap", what)
    if q1.B != q2.B:
        raise ValueError(f"{what}: Q*b and Q'*b must have the same B ({q1.B} != {q2.B})")
    X = s.values
    ia, ib = pair_indices(s.n_runs)
    P = ia.size
    edges = bin_edges(n_bins, bin_width)
    inv_width = 1.0 / float(bin_width)
    counts = np.zeros(n_bins, dtype=np.int64)
    swaps = np.zeros(n_bins, dtype=np.int64)
    vmax = -np.inf
    bs = check_batch(max(1, DEFAULT_BATCH_ELEMENTS // P) if batch is None else batch, q1.B)
    for s0, s1 in q1.batches(bs):
        M1 = run_statistics(X, q1, stat, s0, s1)              # (runs, rows)
        M2 = run_statistics(X, q2, stat, s0, s1)
        if max_rule == "performance":
            vmax = max(vmax, float(M1.max()), float(M2.max()))
        pc = max(1, PAIR_CHUNK_ELEMENTS // (s1 - s0))         # pairs in chunks: arrays in cache
        for c0 in range(0, P, pc):
            xa, yb = ia[c0:c0 + pc], ib[c0:c0 + pc]
            D1 = M1[xa] - M1[yb]                               # (pairs, rows)
            D2 = M2[xa] - M2[yb]
            A1 = np.abs(D1)
            b = np.minimum(n_bins - 1, np.floor(A1 * inv_width + BIN_TOL).astype(np.int64)).ravel()
            counts += np.bincount(b, minlength=n_bins)
            agree = ((D1 > D_TOL) & (D2 > D_TOL)) | ((D1 < -D_TOL) & (D2 < -D_TOL))
            swaps += np.bincount(b[~agree.ravel()], minlength=n_bins)
            if max_rule != "performance":
                vmax = max(vmax, float(A1.max()), float(np.abs(D2).max()))
    diff, i = required_difference(edges, counts, swaps, threshold, required_rule)
    share = float(counts[i:].sum() / counts.sum()) if i < n_bins else 0.0
    return SwapResult(metric, edges, counts, swaps, float(threshold), diff, vmax, share, P, q1.B,
                      max_rule, required_rule, stat.name)
