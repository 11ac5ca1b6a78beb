"""Bivariate copulas of two runs' per-topic scores, selected by AIC (the dependence model of the
simulation of Urbano, Lima & Hanjalic (2019), ``R/03-bicops.R``: VineCopula's ``BiCopSelect``).

The library is pyvinecopulib (the Python interface of vinecopulib, Nagler & Vatter), maintained,
with wheels for every platform and the families, rotations, maximum-likelihood fitting and
AIC selection of the R package VineCopula that the paper used.  The family set is the usual
one: independence, Gaussian, Student t, Clayton, Gumbel, Frank and Joe, with the rotations of the
asymmetric ones (90, 180, 270 degrees).  Pseudo-observations are the ranks over ``n + 1`` with ties
broken at random (``pobs(ties.method = "random")``), from a seeded generator.

Simulation: ``u1`` uniform, ``u2 = h1^{-1}(w | u1)`` with ``w`` uniform (the inverse of the
copula's first h-function), the uniforms drawn from numpy generators derived from the seed, so a
simulated topic set depends on the seed alone.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FAMILIES", "pseudo_obs", "fit_copula", "simulate", "describe", "loglik_se"]

FAMILIES = ("indep", "gaussian", "student", "clayton", "gumbel", "frank", "joe")


def _controls():
    import pyvinecopulib as pv

    fams = [getattr(pv.BicopFamily, f) for f in FAMILIES]
    return pv.FitControlsBicop(family_set=fams, selection_criterion="aic", parametric_method="mle")


def pseudo_obs(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Ranks of each column over ``n + 1``, ties broken at random."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    out = np.empty_like(x)
    for c in range(x.shape[1]):
        jitter = rng.permutation(n)
        order = np.lexsort((jitter, x[:, c]))
        r = np.empty(n)
        r[order] = np.arange(1, n + 1)
        out[:, c] = r / (n + 1)
    return out


def fit_copula(x, y, rng: np.random.Generator):
    """The copula of least AIC for the scores ``x`` and ``y`` (one value per topic)."""
    import pyvinecopulib as pv

    u = pseudo_obs(np.column_stack([x, y]), rng)
    return pv.Bicop.from_data(u, controls=_controls())


def simulate(cop, n: int, trials: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(u1, u2)``, each ``(trials, n)``, from the copula."""
    u1 = rng.random((trials, n))
    w = rng.random((trials, n))
    eps = 1e-12
    u2 = _frank_hinv1(cop, u1, w)
    if u2 is None:
        u2 = cop.hinv1(np.column_stack([u1.ravel(), w.ravel()]), num_threads=2).reshape(trials, n)
    return np.clip(u1, eps, 1 - eps), np.clip(u2, eps, 1 - eps)


def _frank_hinv1(cop, u1, w):
    """The Frank copula's inverse h-function in closed form (pyvinecopulib inverts it numerically,
    some 20 times slower): ``u2 = -log(1 + w (e^-t - 1) / (1 + (e^(-t u1) - 1)(1 - w))) / t``;
    ``None`` for any other family."""
    import pyvinecopulib as pv

    if cop.family != pv.BicopFamily.frank or int(cop.rotation) != 0:
        return None
    t = float(np.asarray(cop.parameters).ravel()[0])
    if abs(t) < 1e-10:
        return w.copy()
    a = np.expm1(-t * u1)
    return -np.log1p(w * np.expm1(-t) / (1.0 + a * (1.0 - w))) / t


def describe(cop) -> dict:
    """Family, rotation, parameters and Kendall's tau of a fitted copula (for copulas.csv)."""
    par = np.asarray(cop.parameters, dtype=np.float64).ravel()
    return {"family": str(cop.family_name) if hasattr(cop, "family_name") else str(cop.family).split(".")[-1],
            "rotation": int(cop.rotation), "par": float(par[0]) if par.size > 0 else 0.0,
            "par2": float(par[1]) if par.size > 1 else 0.0, "tau": float(cop.tau)}


def loglik_se(cop, u: np.ndarray, h: float = 1e-4) -> float:
    """Standard error of a one-parameter copula's parameter from the observed information (numerical
    second derivative of the log-likelihood)."""
    import pyvinecopulib as pv

    p = float(np.asarray(cop.parameters).ravel()[0])

    def ll(v):
        c = pv.Bicop.from_family(cop.family, rotation=cop.rotation, parameters=np.array([[v]]))
        return c.loglik(u)
    d2 = (ll(p + h) - 2 * ll(p) + ll(p - h)) / (h * h)
    return float(np.sqrt(-1.0 / d2)) if d2 < 0 else float("inf")
