"""The correlations LLM-judge papers report between two leaderboards, on arrays ``(..., runs)``
(every leading axis at once: metrics x sets, topics, bootstrap samples), and the BCa interval of
the judgments' tau (docs/meta.md "Judgments").

* :func:`pearson` -- Pearson's r; :func:`spearman` -- Spearman's rho, Pearson's r of the average
  ranks (ties share the mean of their ranks); :func:`tau_ab` -- Kendall's tau-a and tau-b (Kendall
  1945: ``(C - D) / sqrt((n0 - n1) (n0 - n2))``, ``n1``/``n2`` the pairs tied in ``a``/``b``); all
  NaN where a leaderboard is a single tie group.
* :func:`tau_gap` -- Gao & Oard's (2015) head-weighted, gap-sensitive tau_GAP of the ordering by
  ``b`` (ties broken by the runs' name order) against the score gaps of ``a`` (the truth):
  ``2 / N' sum_i [sum_{j<i} |CG_ji| / sum_{j<i} |G_ji|] - 1`` over the positions ``i`` of ``b``'s
  ordering whose gaps are not all zero (``N'`` of them).
* :func:`bca_interval` -- Efron's (1987) bias-corrected and accelerated bootstrap interval:
  ``z0 = Phi^-1(share of bootstrap values below the estimate, ties half)``, the acceleration ``a``
  from the jackknife values (one per left-out topic of each sample, as ``scipy.stats.bootstrap``
  with ``method='BCa'``), and the bootstrap quantiles at ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))``
  for ``z`` the normal quantiles of 2.5% and 97.5%.

Sums run along the last axis in numpy's fixed order (no BLAS product reaches a table).
"""

from __future__ import annotations

import numpy as np

__all__ = ["average_ranks", "bca_interval", "pearson", "spearman", "tau_ab", "tau_gap"]


def pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r along the last axis (NaN where either side is constant)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    da = a - a.mean(axis=-1, keepdims=True)
    db = b - b.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (da * db).sum(axis=-1) / np.sqrt((da * da).sum(axis=-1) * (db * db).sum(axis=-1))
    return np.clip(r, -1.0, 1.0)


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n along the last axis, ascending, ties sharing their mean rank (scipy's ``rankdata``)."""
    x = np.asarray(x)
    less = (x[..., None, :] < x[..., :, None]).sum(axis=-1)
    equal = (x[..., None, :] == x[..., :, None]).sum(axis=-1)
    return less + (equal + 1) / 2.0


def spearman(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's rho: Pearson's r of the average ranks."""
    return pearson(average_ranks(a), average_ranks(b))


def tau_ab(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-a and tau-b along the last axis (integer counts of sign products)."""
    a = np.asarray(a)
    b = np.asarray(b)
    n = a.shape[-1]
    sa = np.sign(a[..., None, :] - a[..., :, None]).astype(np.int8)
    sb = np.sign(b[..., None, :] - b[..., :, None]).astype(np.int8)
    s = (sa * sb).sum(axis=(-2, -1), dtype=np.int64) // 2          # C - D
    n0 = n * (n - 1) // 2
    ta = (sa != 0).sum(axis=(-2, -1), dtype=np.int64) // 2        # n0 - n1
    tb = (sb != 0).sum(axis=(-2, -1), dtype=np.int64) // 2        # n0 - n2
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_a = np.where(n0 > 0, s / max(n0, 1), np.nan)
        tau_b = np.where((ta > 0) & (tb > 0), s / np.sqrt(ta.astype(np.float64) * tb), np.nan)
    return np.clip(tau_a, -1.0, 1.0), np.clip(tau_b, -1.0, 1.0)


def tau_gap(truth: np.ndarray, predicted: np.ndarray, names=None) -> np.ndarray:
    """Gao & Oard's tau_GAP along the last axis: the gaps of ``truth``, the ordering of
    ``predicted`` (descending; ties by the order of ``names``, default by position)."""
    t = np.asarray(truth, np.float64)
    p = np.asarray(predicted, np.float64)
    n = t.shape[-1]
    if n < 2:
        return np.full(t.shape[:-1], np.nan)
    tie = np.arange(n) if names is None else np.argsort(np.argsort(np.asarray(names, dtype=object), kind="stable"),
                                                        kind="stable")
    tie = np.broadcast_to(tie, p.shape)
    order = np.lexsort((tie, -p), axis=-1)
    to = np.take_along_axis(np.broadcast_to(t, p.shape), order, axis=-1)
    d = to[..., None, :] - to[..., :, None]                  # d[..., i, j] = t_j - t_i
    above = np.tril(np.ones((n, n), bool), -1)               # j < i
    gaps = np.where(above, np.abs(d), 0.0).sum(axis=-1)
    correct = np.where(above & (d > 0), d, 0.0).sum(axis=-1)
    used = gaps > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(used, correct / np.where(used, gaps, 1.0), 0.0)
        k = used.sum(axis=-1)
        out = 2.0 / k * share.sum(axis=-1) - 1.0
    return np.where(k > 0, out, np.nan)


def _ndtri(p):
    from scipy.special import ndtri

    return ndtri(p)


def bca_interval(theta_hat: np.ndarray, theta_b: np.ndarray, jackknife: list[np.ndarray],
                 level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Efron's BCa interval per statistic: ``theta_hat`` (J,), ``theta_b`` (B, J) the bootstrap
    values, ``jackknife`` per sample of the data a (n_j, J) array of leave-one-out values.  NaN where
    the interval is undefined (every bootstrap value on one side of the estimate, or NaN inputs);
    ``[theta_hat, theta_hat]`` where every bootstrap value equals the estimate."""
    from scipy.special import ndtr

    th = np.asarray(theta_hat, np.float64)
    tb = np.asarray(theta_b, np.float64)
    B = tb.shape[0]
    pct = ((tb < th).sum(axis=0) + (tb <= th).sum(axis=0)) / (2.0 * B)
    z0 = _ndtri(pct)
    nums = np.zeros_like(th)
    dens = np.zeros_like(th)
    for jk in jackknife:                                     # one per sample of the data (1 or 2)
        jk = np.asarray(jk, np.float64)
        n = float(jk.shape[0])
        U = (n - 1.0) * (jk.mean(axis=0) - jk)
        nums = nums + (U ** 3).sum(axis=0) / n ** 3
        dens = dens + (U ** 2).sum(axis=0) / n ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        a_hat = nums / 6.0 / dens ** 1.5
        alpha = (1.0 - level) / 2.0
        z = float(_ndtri(alpha))
        n1, n2 = z0 + z, z0 - z
        a1 = ndtr(z0 + n1 / (1.0 - a_hat * n1))
        a2 = ndtr(z0 + n2 / (1.0 - a_hat * n2))
    lo = np.full(th.shape, np.nan)
    hi = np.full(th.shape, np.nan)
    for j in np.flatnonzero(np.isfinite(a1) & np.isfinite(a2) & np.isfinite(tb).all(axis=0)).tolist():
        lo[j], hi[j] = np.quantile(tb[:, j], [a1[j], a2[j]])   # linear interpolation, as scipy's
    same = (tb == th).all(axis=0)                            # no spread at all: the point itself
    lo[same], hi[same] = th[same], th[same]
    return lo, hi
