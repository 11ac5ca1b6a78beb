"""Judgment-variation simulation of Kishida (2005) Sec. 3.3 (model Eq. 18-25, Appendix Eq. 45-49) and
Table 2, vectorised over topics and repetitions; plus exact values by enumeration.

Procedure (the report's steps, with ``rng`` a seeded :class:`numpy.random.Generator`):

1. For each topic ``h`` and document ``i`` draw an integer uniform on 0..9; if it is < 5 the
   relevance probability is ``pi_hi = theta``, else ``1 - theta``.
2. For each repetition ``a = 1..M`` draw ``u`` uniform on [0, 1) per document; the document is
   relevant when ``u`` *exceeds* ``pi_hi`` (the report's wording; as ``pi`` is ``theta`` or
   ``1 - theta`` with probability 1/2 each this is statistically the same as ``u < pi``).  The
   system outputs documents 1..N in order; ``v_ha`` is the average precision with ``R`` = the number
   of documents judged relevant in that repetition (``v_ha = 0`` when none is).

Estimators (divisors chosen as the unbiased ones, consistent with Eq. 14):

* ``mu_hat_h = M^-1 sum_a v_ha``; ``sigma2_h = (M-1)^-1 sum_a (v_ha - mu_hat_h)^2``;
* ``mu_hat = L^-1 sum_h mu_hat_h``;
* ``sigma2_mu = (L-1)^-1 sum_h (mu_hat_h - mu_hat)^2``;
* ``sigma2_d = L^-1 sum_h sigma2_h``;
* ``mean_Vp = M^-1 sum_a Vp_a`` with ``Vp_a = (L-1)^-1 sum_h (v_ha - vbar_a)^2`` (Eq. 14 for the
  a-th judgment).

With these divisors ``E[mean_Vp | pi] = S2(mu_h) + mean_h sigma_h^2`` and
``E[sigma2_mu + sigma2_d | pi] = S2(mu_h) + (1 + 1/M) mean_h sigma_h^2`` (``S2`` the (L-1)-divisor
variance of the true ``mu_h``), which :func:`exact_given_pi` computes by enumerating the ``2^N``
judgment outcomes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from .indicators import average_precision

__all__ = ["STATISTICS", "draw_probabilities", "simulate", "simulate_ap", "exact_given_pi",
           "exact_population", "table2"]

#: statistic names of Table 2, in the report's row order
STATISTICS = ("mu", "sigma2_mu", "sigma2_d", "sigma2_mu+sigma2_d", "mean_Vp")


def draw_probabilities(theta: float, L: int, N: int, rng: np.random.Generator) -> np.ndarray:
    """Step 1: ``pi`` (L, N), each ``theta`` or ``1 - theta`` (integer 0..9 < 5 -> theta)."""
    return np.where(rng.integers(0, 10, size=(L, N)) < 5, float(theta), 1.0 - float(theta))


def _ap_in_order(rel) -> np.ndarray:
    """AP of binary lists (..., N) with R = number of relevant documents in the list."""
    return average_precision(rel, rel.sum(axis=-1))


def simulate_ap(pi, M: int, rng: np.random.Generator) -> np.ndarray:
    """Step 2: ``v_ha`` (L, M) for relevance probabilities ``pi`` (L, N).

    Draws ``u`` as one (L, M, N) array (topics, repetitions, documents), so a seed gives the same
    numbers for the same L, M, N."""
    pi = np.asarray(pi, dtype=float)
    L, N = pi.shape
    u = rng.random((L, M, N))
    rel = u > pi[:, None, :]
    return _ap_in_order(rel)


def _estimates(v) -> dict[str, float]:
    L, M = v.shape
    mu_h = v.mean(axis=1)
    s2_h = v.var(axis=1, ddof=1) if M > 1 else np.zeros(L)
    s2_mu = float(mu_h.var(ddof=1)) if L > 1 else 0.0
    s2_d = float(s2_h.mean())
    vp = v.var(axis=0, ddof=1).mean() if L > 1 else 0.0
    return {"mu": float(mu_h.mean()), "sigma2_mu": s2_mu, "sigma2_d": s2_d,
            "sigma2_mu+sigma2_d": s2_mu + s2_d, "mean_Vp": float(vp)}


def simulate(theta: float = 0.9, L: int = 50, N: int = 10, M: int = 1000,
             seed: int | np.random.Generator | None = 0, return_pi: bool = False):
    """One run of the simulation: returns ``{statistic: value}`` (keys :data:`STATISTICS`), and the
    drawn ``pi`` (L, N) as well when ``return_pi``."""
    if not 0.0 <= theta <= 1.0:
        raise ValueError(f"theta must lie in [0, 1], got {theta}")
    if L < 2 or N < 1 or M < 2:
        raise ValueError(f"need L >= 2, N >= 1, M >= 2 (got L={L}, N={N}, M={M})")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    pi = draw_probabilities(theta, L, N, rng)
    est = _estimates(simulate_ap(pi, M, rng))
    return (est, pi) if return_pi else est


def _outcomes(N: int) -> np.ndarray:
    if N > 20:
        raise ValueError(f"enumeration of 2^{N} judgment outcomes is not feasible")
    return np.array(list(itertools.product((0, 1), repeat=N)), dtype=bool)


def _exact_moments(pi) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``mu_h`` and ``sigma_h^2`` (L,) by enumerating the 2^N outcomes."""
    pi = np.asarray(pi, dtype=float)
    N = pi.shape[-1]
    B = _outcomes(N)                                    # (2^N, N)
    ap = _ap_in_order(B)                                # (2^N,)
    # P(relevant) = P(u > pi) = 1 - pi; product over the N documents, vectorised over topics
    # and outcomes (a loop over N <= 20 document positions, not over documents of a collection)
    prob = np.ones((pi.shape[0], B.shape[0]))
    for i in range(N):
        prob *= np.where(B[None, :, i], 1.0 - pi[:, i, None], pi[:, i, None])
    # sums over the outcomes along the last axis (numpy.add.reduce: a fixed order, not BLAS)
    mu = np.add.reduce(prob * ap, axis=1)
    var = np.add.reduce(prob * (ap * ap), axis=1) - mu * mu
    return mu, np.maximum(var, 0.0)


def exact_given_pi(pi, M: int = 1000) -> dict[str, float]:
    """Expected values of the simulation's estimators given ``pi`` (L, N), by enumeration:
    ``mu`` (mean of the true mu_h), ``sigma2_mu`` (E of the estimator, incl. its ``+ sigma_d^2 / M``
    term), ``sigma2_d``, their sum and ``mean_Vp``; plus ``S2_mu_true`` (the (L-1)-divisor variance
    of the true mu_h)."""
    mu, var = _exact_moments(pi)
    L = mu.shape[0]
    s2 = float(mu.var(ddof=1))
    d = float(var.mean())
    e_s2mu = s2 + d / M
    return {"mu": float(mu.mean()), "sigma2_mu": e_s2mu, "sigma2_d": d,
            "sigma2_mu+sigma2_d": e_s2mu + d, "mean_Vp": s2 + d, "S2_mu_true": s2, "L": L}


def exact_population(theta: float, N: int = 10) -> dict[str, float]:
    """Population values over the distribution of ``pi`` (each document theta or 1 - theta with
    probability 1/2): ``mu`` = E mu_h, ``sigma2_mu`` = Var mu_h (population), ``sigma2_d`` =
    E sigma_h^2, and ``sigma2_mu+sigma2_d`` (= the variance of a single v_ha)."""
    pis = np.where(_outcomes(N), float(theta), 1.0 - float(theta))   # all 2^N assignments
    mu, var = _exact_moments(pis)
    s2 = float(mu.var())
    d = float(var.mean())
    return {"mu": float(mu.mean()), "sigma2_mu": s2, "sigma2_d": d, "sigma2_mu+sigma2_d": s2 + d,
            "mean_Vp": s2 + d}


def table2(thetas=(0.9, 0.5), L: int = 50, N: int = 10, M: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Table 2: columns ``theta, statistic, value``; one simulation per theta, each with its own
    generator ``default_rng([seed, k])`` (k = index of theta), so rows do not depend on the other
    thetas' draws."""
    rows = []
    for k, th in enumerate(thetas):
        est = simulate(th, L, N, M, np.random.default_rng([seed, k]))
        rows += [(float(th), s, est[s]) for s in STATISTICS]
    return pd.DataFrame(rows, columns=["theta", "statistic", "value"])
