"""Summary statistics over topics (the ``M`` of Sakai (2007b) Eq. 8) and system-pair indexing.

A :class:`Statistic` maps per-topic scores of shape ``(..., n)`` to a summary of shape ``(...)``.
Two kinds:

* *mean-of-transform* statistics (``transform`` and ``outer`` set): ``outer(mean(transform(x)))``.
  The arithmetic mean and the geometric mean of Sakai (2007b) Eq. 7
  (``exp(mean(log(x + 0.00001))) - 0.00001``) are of this kind; the bootstrap code evaluates them
  for every run and every bootstrap sample at once as a count-matrix product, never materialising
  the resampled scores.
* *general* statistics (``func`` only), e.g. :func:`worst_mean` (mean of the worst N topics) or
  :func:`area` (Voorhees' "area" measure): ``func`` receives the resampled matrices vectorised,
  an array of shape ``(..., B, n)`` (leading axes = runs or pairs in a batch), and must reduce the
  last axis.  Any callable with that contract can be passed where a statistic is expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

import numpy as np

from .. import detmath

__all__ = ["Statistic", "MEAN", "GMEAN", "LOG_EPS", "worst_mean", "area", "as_statistic",
           "pair_indices", "log_transform"]

LOG_EPS = 0.00001  # Sakai (2007b) Eq. 7


def _identity(x):
    return x


def log_transform(x):
    """``log(x + 0.00001)``: the per-topic transform inside Eq. 7 (the AG_ variant of the paired
    test), by the C library's ``log`` (numpy's vectorised one differs between CPUs)."""
    return detmath.log(np.asarray(x, dtype=np.float64) + LOG_EPS)


def _gm_outer(m):
    return detmath.exp(m) - LOG_EPS


def _undefined(x: np.ndarray) -> np.ndarray:
    raise TypeError("this statistic has no such part (func, or transform and outer)")


@dataclass(frozen=True)
class Statistic:
    """A summary statistic over topics; call it on an array ``(..., n)`` to get ``(...)``: either
    ``outer(mean(transform(x)))`` (both given) or ``func(x)``."""

    name: str
    func: Callable[[np.ndarray], np.ndarray] = _undefined
    transform: Callable[[np.ndarray], np.ndarray] = _undefined
    outer: Callable[[np.ndarray], np.ndarray] = _undefined

    @property
    def outer_is_identity(self) -> bool:
        return self.outer is _identity

    @property
    def is_mean_of_transform(self) -> bool:
        return self.transform is not _undefined and self.outer is not _undefined

    def __call__(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if self.is_mean_of_transform:
            return self.outer(self.transform(x).mean(axis=-1))
        return np.asarray(self.func(x), dtype=np.float64)


MEAN = Statistic("mean", transform=_identity, outer=_identity)
GMEAN = Statistic("gmean", transform=log_transform, outer=_gm_outer)


def worst_mean(N: int) -> Statistic:
    """The mean of the worst ``N`` topics of a run (a robustness statistic, Sakai (2007b) Sec. 5.1)."""
    N = int(N)
    if N < 1:
        raise ValueError(f"worst_mean: N must be >= 1, got {N}")

    def func(x):
        x = np.asarray(x, dtype=np.float64)
        k = min(N, x.shape[-1])
        return np.partition(x, k - 1, axis=-1)[..., :k].mean(axis=-1)

    return Statistic(f"worst{N}", func=func)


def area(fraction: float = 0.25) -> Statistic:
    """Voorhees' "area" measure (TREC 2004 Robust track): the mean, over ``k = 1..K``, of the mean
    score of the worst ``k`` topics, ``K = max(1, round(fraction * n))`` (the area under the
    "mean of the worst k topics" curve, normalised by ``K``)."""
    fraction = float(fraction)
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"area: fraction must lie in (0, 1], got {fraction}")

    def func(x):
        x = np.asarray(x, dtype=np.float64)
        n = x.shape[-1]
        K = max(1, round(fraction * n))
        worst = np.sort(x, axis=-1)[..., :K]
        cum = np.cumsum(worst, axis=-1) / np.arange(1, K + 1)
        return cum.mean(axis=-1)

    return Statistic(f"area{fraction:g}", func=func)


def as_statistic(stat) -> Statistic:
    """``"mean"``/``"amean"``, ``"gmean"``, ``"worstN"``, ``"area"``, a :class:`Statistic` or a callable."""
    if isinstance(stat, Statistic):
        return stat
    if callable(stat):
        return Statistic(getattr(stat, "__name__", "custom"), func=stat)
    if stat in (None, "mean", "amean", "arithmetic"):
        return MEAN
    if stat in ("gmean", "geometric"):
        return GMEAN
    if isinstance(stat, str) and stat.startswith("worst") and stat[5:].isdigit():
        return worst_mean(int(stat[5:]))
    if stat == "area":
        return area()
    raise ValueError(f"unknown statistic {stat!r}; expected mean, gmean, worstN, area or a callable")


def pair_indices(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """All system pairs ``(X, Y)`` with ``X`` before ``Y`` in run order: row-major upper triangle."""
    return np.triu_indices(n_runs, 1)
