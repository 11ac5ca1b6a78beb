"""The stability method on bootstrap samples (Sakai 2007b, Sec. 7.1, Fig. 16, Eqs 9-10).

For every pair ``(X, Y)`` and every shared bootstrap sample ``Q*b`` (stream ``"paired"``, reused
as in the paper), with ``margin = f * max(M(X, Q*b), M(Y, Q*b))``: ``EQ`` if
``|M(X) - M(Y)| < margin``, else ``GT(X, Y)`` if ``M(X) > M(Y)``, else ``GT(Y, X)``.
``MR = sum_C min(GT(X,Y), GT(Y,X)) / (B |C|)`` and ``PT = sum_C EQ(X,Y) / (B |C|)`` for each
fuzziness ``f`` (default 0.01, 0.02, ..., 0.20).

Decisions (also in docs/meta.md):

* Ties are decided on the ratio ``|M(X) - M(Y)| / max(M(X), M(Y))`` (``EQ`` iff ratio ``< f``),
  which equals Fig. 16's test for a positive maximum; a ratio within ``1e-10`` below ``f`` counts
  as reaching it, which is exact for 4-decimal scores: float noise never moves a pair across a
  margin.  ``|M(X) - M(Y)| <= 1e-12`` is an exact tie.
* Two runs with *identical* values are ``EQ`` for every ``f``, also when both are 0 (Fig. 16 read
  literally would count 0 vs 0 as ``GT(Y, X)`` because the margin is 0); when the maximum is
  negative (log-scale statistics) the margin is negative and nothing but an exact tie is ``EQ``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_scores, check_batch
from .bootstrap import D_TOL, DEFAULT_BATCH_ELEMENTS, PAIR_CHUNK_ELEMENTS, run_statistics
from .samples import resolve_samples, single_threaded_blas
from .statistics import as_statistic, pair_indices

__all__ = ["StabilityResult", "stability_method", "DEFAULT_FUZZINESS", "RATIO_TOL"]

DEFAULT_FUZZINESS = tuple(np.round(np.arange(1, 21) / 100, 2))
#: a ratio this close below a fuzziness value counts as reaching it (float noise); exact for
#: 4-decimal scores, whose distinct ratios differ by far more
RATIO_TOL = 1e-10


@dataclass(frozen=True, eq=False)
class StabilityResult:
    metric: str
    fuzziness: np.ndarray       # (F,)
    minority_rate: np.ndarray   # (F,)
    proportion_ties: np.ndarray  # (F,)
    gt_xy: np.ndarray           # (F, pairs)
    gt_yx: np.ndarray           # (F, pairs)
    eq: np.ndarray              # (F, pairs)
    B: int
    statistic: str = "mean"


@single_threaded_blas
def stability_method(scores, samples=None, *, B: int | None = None, seed: int | None = None,
                     fuzziness=DEFAULT_FUZZINESS, statistic="mean", batch: int | None = None,
                     metric: str = "") -> StabilityResult:
    """MR and PT for every fuzziness value (one metric); see the module docstring for tie rules."""
    s = as_scores(scores, metric)
    fs = np.asarray(fuzziness, dtype=np.float64).ravel()
    if fs.size == 0 or not np.all(np.isfinite(fs)) or np.any(fs < 0):
        raise ValueError(f"fuzziness values must be finite and >= 0, got {fs.tolist()}")
    if np.any(np.diff(fs) <= 0):
        raise ValueError("fuzziness values must be strictly increasing")
    stat = as_statistic(statistic)
    n = s.n_topics
    smp = resolve_samples(samples, n, B, seed, "paired", metric or "stability_method")
    X = s.values
    ia, ib = pair_indices(s.n_runs)
    P = ia.size
    F = fs.size
    hist = np.zeros(P * 2 * (F + 1), dtype=np.int64)
    base = (np.arange(P, dtype=np.int64) * (2 * (F + 1)))[:, None]
    step = float(fs[0])
    grid = step > 0 and bool(np.all(np.abs(fs - step * np.arange(1, F + 1)) <= 1e-15))
    inv_step = 1.0 / step if grid else 0.0
    bs = check_batch(max(1, DEFAULT_BATCH_ELEMENTS // P) if batch is None else batch, smp.B)
    for s0, s1 in smp.batches(bs):
        M = run_statistics(X, smp, stat, s0, s1)               # (runs, rows)
        pc = max(1, PAIR_CHUNK_ELEMENTS // (s1 - s0))          # pairs in chunks: arrays in cache
        for c0 in range(0, P, pc):
            c1 = min(P, c0 + pc)
            part = hist[c0 * 2 * (F + 1):c1 * 2 * (F + 1)]
            part += _pair_histogram(M[ia[c0:c1]], M[ib[c0:c1]], fs, grid, inv_step, base[:c1 - c0])
    h = hist.reshape(P, 2, F + 1)
    cum = np.cumsum(h, axis=2)                                # cum[..., i] = count with j <= i
    tot = cum[:, :, -1]
    # for f index i: EQ <=> j <= i
    eq = (cum[:, 0, :F] + cum[:, 1, :F]).T                    # (F, P)
    gt_xy = (tot[:, 1][:, None] - cum[:, 1, :F]).T
    gt_yx = (tot[:, 0][:, None] - cum[:, 0, :F]).T
    denom = smp.B * P
    mr = np.minimum(gt_xy, gt_yx).sum(axis=1) / denom
    pt = eq.sum(axis=1) / denom
    return StabilityResult(metric, fs, mr, pt, gt_xy, gt_yx, eq, smp.B, stat.name)


def _pair_histogram(mx, my, fs, grid: bool, inv_step: float, base) -> np.ndarray:
    """The histogram of one chunk of pairs ((pairs, rows) statistics of X and Y), flat as ``hist``:
    ``[pair, X > Y, number of f <= ratio]``, pairs from 0."""
    F = fs.size
    d = mx - my
    np.maximum(mx, my, out=mx)                             # mx is now max(M(X), M(Y))
    gt = d > D_TOL
    np.abs(d, out=d)
    tie = d <= D_TOL
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(d, mx, out=d)                            # ratio |d| / max
    d[~(d >= 0)] = np.inf                                  # max <= 0 (log scale): only exact ties are EQ
    d[tie] = 0.0
    d += RATIO_TOL
    if grid:                                           # f = step, 2 step, ...: arithmetic count
        d *= inv_step
        np.minimum(d, F, out=d)
        j = d.astype(np.int64)
    else:
        j = np.searchsorted(fs, d, side="right")       # number of f <= ratio: EQ iff f index >= j
    j += base
    np.add(j, F + 1, out=j, where=gt)
    return np.bincount(j.ravel(), minlength=base.size * 2 * (F + 1))
