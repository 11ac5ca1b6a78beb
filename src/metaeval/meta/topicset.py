"""Topic set size design (Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016).

Given the residual variance ``V_E`` of a metric (two-way ANOVA without replication on existing
data, used as the estimate of the population variance ``sigma^2``), the smallest number of
topics ``n`` such that a test at level ``alpha`` has power at least ``1 - beta`` for a minimum
detectable difference ``min_diff``:

* **paired t-test** (two systems, two-sided): the per-topic difference has standard deviation
  ``sqrt(2 V_E)``; with ``delta = min_diff / sqrt(2 V_E)`` and ``t_c`` the two-sided critical value
  of ``t(n - 1)``, ``power = P(T' >= t_c) + P(T' <= -t_c)`` for ``T'`` noncentral t with ``n - 1``
  degrees of freedom and noncentrality ``sqrt(n) delta``.
* **one-way ANOVA** over ``m`` systems, worst case (two population means ``min_diff`` apart, the
  others midway): noncentrality ``lambda = n min_diff^2 / (2 V_E)``, ``power = P(F' >= F_c)`` for
  ``F'`` noncentral F with ``(m - 1, m (n - 1))`` degrees of freedom.

Convention: the powers are computed exactly with scipy's noncentral t and F distributions (Sakai's
Excel tools use normal approximations of them and may differ by a topic or two near the
boundary); ``n`` is searched from 2 upward (powers of 2, then every ``n`` of the bracketing
interval, vectorised; power rises with ``n``).
``V_E = 0`` gives ``n = 2`` (any difference is detected).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["paired_t_power", "anova_power", "topic_set_size", "TSS_COLUMNS"]

TSS_COLUMNS = ["metric", "method", "alpha", "beta", "min_diff", "systems", "variance", "n"]
N_MAX = 10 ** 8


def paired_t_power(n, min_diff: float, variance: float, alpha: float):
    """Power of the two-sided paired t-test with ``n`` topics (scalar or array of ``n``)."""
    from scipy import stats

    n = np.asarray(n, dtype=np.float64)
    if variance <= 0:
        return np.ones_like(n)
    df = n - 1
    tc = stats.t.isf(alpha / 2, df)
    nc = np.sqrt(n) * min_diff / math.sqrt(2.0 * variance)
    return stats.nct.sf(tc, df, nc) + stats.nct.cdf(-tc, df, nc)


def anova_power(n, m: int, min_diff: float, variance: float, alpha: float):
    """Power of one-way ANOVA over ``m`` systems, worst case, with ``n`` topics (scalar or array)."""
    from scipy import stats

    n = np.asarray(n, dtype=np.float64)
    if variance <= 0:
        return np.ones_like(n)
    df1, df2 = m - 1, m * (n - 1)
    fc = stats.f.isf(alpha, df1, df2)
    lam = n * min_diff * min_diff / (2.0 * variance)
    return stats.ncf.sf(fc, df1, df2, lam)


def topic_set_size(method: str, *, variance: float, min_diff: float, alpha: float = 0.05, beta: float = 0.20,
                   systems: int = 2) -> int:
    """Smallest ``n >= 2`` with power ``>= 1 - beta`` (``method`` = ``"paired-t"`` or ``"anova"``)."""
    if not 0 < alpha < 1 or not 0 < beta < 1:
        raise ValueError(f"alpha and beta must lie in (0, 1), got {alpha}, {beta}")
    if not min_diff > 0:
        raise ValueError(f"min_diff must be positive, got {min_diff}")
    if method == "paired-t":
        power = lambda n: paired_t_power(n, min_diff, variance, alpha)
    elif method == "anova":
        if int(systems) < 2:
            raise ValueError(f"anova topic set size needs >= 2 systems, got {systems}")
        power = lambda n: anova_power(n, int(systems), min_diff, variance, alpha)
    else:
        raise ValueError(f"unknown method {method!r}; expected 'paired-t' or 'anova'")
    target = 1.0 - beta
    # powers of 2, 4, 8, ... in one vectorised call, then every n of the bracketing interval
    grid = 2 ** np.arange(1, int(math.log2(N_MAX)) + 1)
    ok = np.flatnonzero(np.asarray(power(grid)) >= target)
    if not ok.size:
        raise ValueError(f"topic set size exceeds {N_MAX} (min_diff {min_diff}, variance {variance})")
    i = int(ok[0])
    if i == 0:
        return 2
    lo, hi = int(grid[i - 1]), int(grid[i])           # power(lo) < target <= power(hi)
    while hi - lo > 1:
        cand = np.unique(np.linspace(lo, hi, min(hi - lo + 1, 2049)).round().astype(np.int64))
        ok = np.flatnonzero(np.asarray(power(cand)) >= target)
        j = int(ok[0])                                 # cand[-1] == hi qualifies
        lo, hi = int(cand[j - 1]), int(cand[j])
    return hi
