"""Two-way ANOVA without replication (system x topic) of one topic x run matrix.

With ``x[j, i]`` the score of system ``i`` (factor A, ``m`` levels) on topic ``j`` (factor B, ``n``
levels), one observation per cell (Sakai, *Laboratory Experiments in Information Retrieval*,
Springer 2018, Ch. 3; Sakai, *Information Retrieval Journal* 2016)::

    S_A = n sum_i (xbar_i. - xbar)^2       phi_A = m - 1        V_A = S_A / phi_A
    S_B = m sum_j (xbar_.j - xbar)^2       phi_B = n - 1        V_B = S_B / phi_B
    S_E = sum_ij (x_ij - xbar_i. - xbar_.j + xbar)^2            phi_E = (m - 1)(n - 1)
    V_E = S_E / phi_E,   F_A = V_A / V_E,   F_B = V_B / V_E,    p = F-distribution upper tail

``S_E`` is summed from the residuals directly (not as ``S_T - S_A - S_B``), so it cannot go
negative by cancellation.  ``V_E`` is the residual variance that the effect sizes, the parametric
Tukey HSD test and the topic set size design use.

Zero residual variance (scores exactly additive in system and topic): ``F = inf`` and ``p = 0``
for a factor with a non-zero sum of squares, ``F = 0`` (``p = 1``) for one without; never NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_scores

__all__ = ["AnovaResult", "two_way_anova", "ANOVA_COLUMNS"]

ANOVA_COLUMNS = ["metric", "topics", "systems", "S_A", "S_B", "S_E", "V_A", "V_B", "V_E", "F_A", "F_B",
                 "p_A", "p_B"]

#: a residual sum of squares below this share of the total counts as exactly zero (float noise)
ZERO_REL = 1e-13


@dataclass(frozen=True)
class AnovaResult:
    """Sums of squares, mean squares, F statistics and p-values; ``A`` = systems, ``B`` = topics."""

    topics: int
    systems: int
    S_A: float
    S_B: float
    S_E: float
    V_A: float
    V_B: float
    V_E: float
    F_A: float
    F_B: float
    p_A: float
    p_B: float

    @property
    def df_A(self) -> int:
        return self.systems - 1

    @property
    def df_B(self) -> int:
        return self.topics - 1

    @property
    def df_E(self) -> int:
        return (self.systems - 1) * (self.topics - 1)

    def row(self, metric: str) -> list:
        return [metric, self.topics, self.systems, self.S_A, self.S_B, self.S_E, self.V_A, self.V_B,
                self.V_E, self.F_A, self.F_B, self.p_A, self.p_B]


def _f_and_p(V, VE, S, zero_error, df1, df2):
    from scipy import stats

    if zero_error:
        return (np.inf, 0.0) if S > 0 else (0.0, 1.0)
    F = V / VE
    return float(F), float(stats.f.sf(F, df1, df2))


def two_way_anova(scores, metric: str = "") -> AnovaResult:
    """Two-way ANOVA without replication of a topic x run matrix (DataFrame or ``(n, m)`` array)."""
    s = as_scores(scores, metric)
    X = s.values
    n, m = X.shape
    grand = X.mean()
    sys_means = X.mean(axis=0)
    top_means = X.mean(axis=1)
    S_A = float(n * ((sys_means - grand) ** 2).sum())
    S_B = float(m * ((top_means - grand) ** 2).sum())
    R = X - sys_means[None, :] - top_means[:, None] + grand
    S_E = float((R * R).sum())
    S_T = float(((X - grand) ** 2).sum())
    zero_error = S_E <= ZERO_REL * S_T or S_T == 0.0
    if zero_error:
        S_E = 0.0
    dfA, dfB, dfE = m - 1, n - 1, (m - 1) * (n - 1)
    V_A, V_B, V_E = S_A / dfA, S_B / dfB, S_E / dfE
    F_A, p_A = _f_and_p(V_A, V_E, S_A, zero_error, dfA, dfE)
    F_B, p_B = _f_and_p(V_B, V_E, S_B, zero_error, dfB, dfE)
    return AnovaResult(n, m, S_A, S_B, S_E, V_A, V_B, V_E, F_A, F_B, p_A, p_B)
