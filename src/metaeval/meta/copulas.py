"""Bivariate copulas of two runs' per-topic scores, selected by AIC (the dependence model of the
simulation of Urbano, Lima & Hanjalic (2019), ``R/03-bicops.R``: VineCopula's
``BiCopSelect(u1, u2, selectioncrit = "AIC")`` with its defaults, ``familyset = NA`` and
``presel = TRUE``).

The library is pyvinecopulib (the Python interface of vinecopulib, Nagler & Vatter), maintained,
with wheels for every platform and the families, rotations, maximum-likelihood fitting and
AIC selection of the R package VineCopula that the paper used.  The family set is VineCopula's
whole set (:data:`FAMILIES`): independence, Gaussian, Student t, Frank (exchangeable, no rotation);
Clayton, Gumbel, Joe, BB1, BB6, BB7 and BB8 with their rotations (0, 90, 180, 270 degrees); and the
asymmetric Tawn copulas of type 1 and type 2 with their rotations.  Families are preselected as
``presel = TRUE`` does: only rotations whose dependence has the sign of the empirical Kendall's tau
(and pyvinecopulib's tail-asymmetry screen of the one-parameter families).

The Tawn copulas are the extreme-value copulas with Pickands function
``A(w) = (1 - psi1)(1 - w) + (1 - psi2) w + ((psi1 (1 - w))^theta + (psi2 w)^theta)^(1/theta)``;
VineCopula's type 1 (family 104) fixes ``psi2 = 1`` and type 2 (204) ``psi1 = 1``, two parameters
each (``par = theta``, ``par2`` the free psi).  pyvinecopulib has the three-parameter Tawn (the same
density: ``parameters = (psi1, psi2, theta)``, the same rotations) but fits all three; the two-
parameter types are fitted here by maximum likelihood (L-BFGS-B over pyvinecopulib's
log-likelihood, VineCopula's bounds ``theta`` in [1.001, 20], psi in [0.001, 0.99]) and enter the
AIC comparison with two parameters.  Only an asymmetric copula (``C(u, v) != C(v, u)``: Tawn, and
the 90/270-degree rotations otherwise) makes the difference of two runs with one margin skewed.

Pseudo-observations are the ranks over ``n + 1`` with ties broken at random
(``pobs(ties.method = "random")``), from a seeded generator.

Simulation: ``u1`` uniform, ``u2 = h1^{-1}(w | u1)`` with ``w`` uniform (the inverse of the
copula's first h-function: pyvinecopulib's ``hinv1`` for every family and rotation, the Frank
copula's in closed form), the uniforms drawn from numpy generators derived from the seed, so a
simulated topic set depends on the seed alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .samples import single_threaded_blas

__all__ = ["FAMILIES", "describe", "fit_copula", "loglik_se", "pseudo_obs", "select_copula", "simulate",
           "tawn_type"]

#: VineCopula's family set (``familyset = NA``), each with its rotations where it has any
FAMILIES = ("indep", "gaussian", "student", "clayton", "gumbel", "frank", "joe",
            "bb1", "bb6", "bb7", "bb8", "tawn1", "tawn2")
#: the families pyvinecopulib fits and selects itself (the two-parameter Tawn types are fitted here)
_PV_FAMILIES = FAMILIES[:-2]
#: VineCopula's estimation bounds of the Tawn copulas (``BiCopEst``): theta, then the free psi
_TAWN_BOUNDS = ((1.001, 20.0), (0.001, 0.99))


def _controls(families: tuple[str, ...] = FAMILIES) -> Any:
    import pyvinecopulib as pv

    fams = [getattr(pv.BicopFamily, f) for f in families if f in _PV_FAMILIES]
    return pv.FitControlsBicop(family_set=fams, selection_criterion="aic", parametric_method="mle",
                               preselect_families=True)


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


def _tawn(kind: int, rotation: int, theta: float, psi: float) -> Any:
    """pyvinecopulib's Tawn copula of VineCopula's type ``kind`` (1: psi2 = 1; 2: psi1 = 1)."""
    import pyvinecopulib as pv

    p = [psi, 1.0, theta] if kind == 1 else [1.0, psi, theta]
    return pv.Bicop.from_family(pv.BicopFamily.tawn, rotation=rotation, parameters=np.array(p).reshape(3, 1))


def tawn_type(cop: Any) -> int:
    """1 or 2 for a Tawn copula of VineCopula's type 1 (``psi2 = 1``) or 2 (``psi1 = 1``), else 0."""
    import pyvinecopulib as pv

    if cop.family != pv.BicopFamily.tawn:
        return 0
    psi1, psi2 = np.asarray(cop.parameters, dtype=np.float64).ravel()[:2]
    return 1 if psi2 == 1.0 else 2 if psi1 == 1.0 else 0


def _fit_tawn(u: np.ndarray, kind: int, rotation: int, tau: float) -> tuple[float, Any]:
    """``(aic, copula)`` of the maximum-likelihood Tawn copula of type ``kind`` and ``rotation``
    (two parameters); starts at the Gumbel theta of ``tau`` with psi .5 and .9, the better kept."""
    from scipy.optimize import minimize

    def nll(p: np.ndarray) -> float:
        ll = float(_tawn(kind, rotation, float(p[0]), float(p[1])).loglik(u))
        return -ll if np.isfinite(ll) else 1e300

    th0 = min(max(1.0 / (1.0 - min(abs(tau), 0.9)), 1.1), 19.0)
    best = None
    for psi0 in (0.5, 0.9):
        r = minimize(nll, np.array([th0, psi0]), method="L-BFGS-B", bounds=_TAWN_BOUNDS)
        if best is None or r.fun < best.fun:
            best = r
    assert best is not None
    return 2.0 * float(best.fun) + 4.0, _tawn(kind, rotation, float(best.x[0]), float(best.x[1]))


@single_threaded_blas
def select_copula(u: np.ndarray, families: tuple[str, ...] = FAMILIES) -> Any:
    """The copula of least AIC for the pseudo-observations ``u`` (``n x 2``) among ``families`` (a
    subset of :data:`FAMILIES`, all of them by default):
    pyvinecopulib's selection, then the Tawn types 1 and 2 in the rotations of the sign of the
    empirical Kendall's tau (0 and 180 degrees for a positive tau, 90 and 270 for a negative one,
    all four at zero); a Tawn copula replaces the selected one only at a strictly smaller AIC
    (VineCopula lists the Tawn families last and keeps the first minimum)."""
    import pyvinecopulib as pv
    from scipy.stats import kendalltau

    u = np.ascontiguousarray(u, dtype=np.float64)
    unknown = set(families) - set(FAMILIES)
    if unknown or not families:
        raise ValueError(f"unknown copula families {sorted(unknown)}; known: {', '.join(FAMILIES)}")
    if set(families) & set(_PV_FAMILIES):
        best = pv.Bicop.from_data(u, controls=_controls(families))
        aic = float(best.aic(u))
    else:
        best, aic = None, np.inf
    tau = float(kendalltau(u[:, 0], u[:, 1]).statistic)
    rotations = (0, 180) if tau > 0 else (90, 270) if tau < 0 else (0, 90, 180, 270)
    for kind in (k for k in (1, 2) if f"tawn{k}" in families):
        for rot in rotations:
            a, cop = _fit_tawn(u, kind, rot, tau)
            if a < aic:
                aic, best = a, cop
    return best


def fit_copula(x: np.ndarray, y: np.ndarray, rng: np.random.Generator, families: tuple[str, ...] = FAMILIES) -> Any:
    """The copula of least AIC among ``families`` for the scores ``x`` and ``y`` (one value per topic)."""
    return select_copula(pseudo_obs(np.column_stack([x, y]), rng), families)


def simulate(cop: Any, n: int, trials: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(u1, u2)``, each ``(trials, n)``, from the copula (any family and rotation)."""
    u1 = rng.random((trials, n))
    w = rng.random((trials, n))
    eps = 1e-12
    u2 = _frank_hinv1(cop, u1, w)
    if u2 is None:
        u2 = np.asarray(cop.hinv1(np.column_stack([u1.ravel(), w.ravel()]), num_threads=2)).reshape(trials, n)
    return np.clip(u1, eps, 1 - eps), np.clip(u2, eps, 1 - eps)


def _frank_hinv1(cop: Any, u1: np.ndarray, w: np.ndarray) -> np.ndarray | None:
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


def describe(cop: Any) -> dict:
    """Family, rotation, parameters and Kendall's tau of a fitted copula (for copulas.csv); a Tawn
    copula as VineCopula names it (``Tawn type 1`` / ``Tawn type 2``, ``par`` = theta, ``par2`` =
    the free psi)."""
    par = np.asarray(cop.parameters, dtype=np.float64).ravel()
    kind = tawn_type(cop)
    if kind:
        family, p1, p2 = f"Tawn type {kind}", float(par[2]), float(par[0] if kind == 1 else par[1])
    else:
        family = str(cop.family_name) if hasattr(cop, "family_name") else str(cop.family).split(".")[-1]
        p1 = float(par[0]) if par.size > 0 else 0.0
        p2 = float(par[1]) if par.size > 1 else 0.0
    return {"family": family, "rotation": int(cop.rotation), "par": p1, "par2": p2, "tau": float(cop.tau)}


def loglik_se(cop: Any, u: np.ndarray, h: float = 1e-4) -> float:
    """Standard error of a one-parameter copula's parameter from the observed information (numerical
    second derivative of the log-likelihood)."""
    import pyvinecopulib as pv

    p = float(np.asarray(cop.parameters).ravel()[0])

    def ll(v: float) -> float:
        c = pv.Bicop.from_family(cop.family, rotation=cop.rotation, parameters=np.array([[v]]))
        return float(c.loglik(u))
    d2 = (ll(p + h) - 2 * ll(p) + ll(p - h)) / (h * h)
    return float(np.sqrt(-1.0 / d2)) if d2 < 0 else float("inf")
