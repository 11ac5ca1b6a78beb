"""Kendall's rank correlation between the system rankings of two metrics (Sakai 2007a, Sec. 4.1).

Systems are ranked by their arithmetic mean over topics.  ``tau`` is Sakai (2007a) Eq. 8,
``tau = 2 (pos - neg) / (n_s (n_s - 1))`` (tau-a): a pair of systems tied in either ranking counts
as neither an agreement nor a disagreement, so ties pull tau towards 0.  ``variant="b"`` gives
tau-b, ``(pos - neg) / sqrt((n0 - t_a)(n0 - t_b))``, which equals ``scipy.stats.kendalltau``.
Two means are *tied* when they agree after rounding to 12 decimals (:data:`TIE_DECIMALS`), so that
floating-point noise (``0.3 + 0.04 - 0.2``) never breaks a genuine tie of 4-decimal scores.

``Z0 = |tau| / sqrt((4 n_s + 10) / (9 n_s (n_s - 1)))`` (Eq. 9) and the two-sided normal p-value
``2 (1 - Phi(Z0))``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_scores

__all__ = ["TIE_DECIMALS", "KendallResult", "kendall_tau", "kendall_z0", "rank_correlations"]

TIE_DECIMALS = 12


@dataclass(frozen=True)
class KendallResult:
    tau: float
    z0: float
    p_value: float
    pos: int
    neg: int
    n_systems: int


def kendall_z0(tau: float, n_systems: int) -> tuple[float, float]:
    """``(Z0, two-sided p)`` of Sakai (2007a) Eq. 9.  The upper tail of the standard normal is
    ``ndtr(-z0)``, which is what ``scipy.stats.norm.sf`` computes (same float), without importing
    scipy.stats (about 1 s of CPU for every process that ranks metrics)."""
    from scipy.special import ndtr

    ns = int(n_systems)
    z0 = abs(tau) / np.sqrt((4 * ns + 10) / (9 * ns * (ns - 1)))
    return float(z0), float(2 * ndtr(-z0))


def kendall_tau(a, b, variant: str = "a") -> KendallResult:
    """Kendall's tau between the rankings given by the scores ``a`` and ``b`` of the same systems.

    ``a``, ``b``: 1-D arrays (one summary value per system, e.g. the mean over topics).
    ``variant``: ``"a"`` (Sakai 2007a, Eq. 8, default) or ``"b"`` (tie-corrected).
    """
    a = np.round(np.asarray(a, dtype=np.float64), TIE_DECIMALS)
    b = np.round(np.asarray(b, dtype=np.float64), TIE_DECIMALS)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"kendall_tau: need two 1-D arrays of equal length, got {a.shape} and {b.shape}")
    ns = a.size
    if ns < 2:
        raise ValueError(f"kendall_tau: need at least 2 systems, got {ns}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("kendall_tau: non-finite values")
    if variant not in ("a", "b"):
        raise ValueError(f"kendall_tau: variant must be 'a' or 'b', got {variant!r}")
    iu = np.triu_indices(ns, 1)
    sa = np.sign(a[:, None] - a[None, :])[iu]
    sb = np.sign(b[:, None] - b[None, :])[iu]
    prod = sa * sb
    pos = int((prod > 0).sum())
    neg = int((prod < 0).sum())
    n0 = ns * (ns - 1) // 2
    if variant == "a":
        tau = (pos - neg) / n0
    else:
        denom = np.sqrt(float(np.count_nonzero(sa)) * float(np.count_nonzero(sb)))
        tau = (pos - neg) / denom if denom > 0 else float("nan")
    z0, p = kendall_z0(tau, ns) if np.isfinite(tau) else (float("nan"), float("nan"))
    return KendallResult(float(tau), z0, p, pos, neg, ns)


def rank_correlations(matrices: dict, metrics: list[str] | None = None, variant: str = "a"):
    """Kendall's tau for every pair of metrics (in the given order, ``metric_a`` before ``metric_b``).

    ``matrices``: ``{metric: topic x run matrix}``; all must have the same runs (same order after
    alignment by name).  Returns a DataFrame with columns ``metric_a, metric_b, tau, z0, p_value``.
    """
    import pandas as pd

    names = list(matrices) if metrics is None else list(metrics)
    if len(names) < 2:
        raise ValueError(f"rank_correlations: need at least 2 metrics, got {len(names)}")
    means = {}
    runs0 = None
    for m in names:
        s = as_scores(matrices[m], m)
        if runs0 is None:
            runs0 = s.runs
        elif set(s.runs) != set(runs0):
            raise ValueError(f"{m}: runs differ from those of {names[0]}")
        order = [s.runs.index(r) for r in runs0]
        means[m] = s.values.mean(axis=0)[order]
    rows = []
    for i, ma in enumerate(names):
        for mb in names[i + 1:]:
            r = kendall_tau(means[ma], means[mb], variant)
            rows.append((ma, mb, r.tau, r.z0, r.p_value))
    return pd.DataFrame(rows, columns=["metric_a", "metric_b", "tau", "z0", "p_value"])
