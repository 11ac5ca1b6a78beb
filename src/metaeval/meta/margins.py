"""Marginal distributions of a run's per-topic scores, fitted and selected by AIC (Urbano & Nagler 2018).

The stochastic simulation of Urbano, Lima & Hanjalic (2019) models each run's scores on a collection
by a distribution on ``[0, 1]``, chosen by AIC among the families of simIReff (Urbano & Nagler
2018, "Stochastic simulation of test collections: evaluation scores", SIGIR; the R package
simIReff, ``effContFitAndSelect`` / ``effDiscFitAndSelect``):

continuous scores (AP, nDCG, ERR, ...)
    ``norm``   the normal truncated to ``[0, 1]``, maximum likelihood with ``sigma`` in ``[0.05, 10]``
               (simIReff's lower bound) and ``mu`` in ``[-5, 6]`` (where the scores fall off like
               an exponential the likelihood grows without bound as ``mu -> -inf``; simIReff's
               optimiser stops somewhere on that ridge); 2 df;
    ``beta``   the beta distribution, maximum likelihood on the scores capped to ``[1e-6, 1 - 1e-6]``; 2 df;
    ``nks``    a Gaussian kernel density truncated to ``[0, 1]``, bandwidth by the two-stage direct
               plug-in rule of Wand & Jones (1995, section 3.6) (simIReff calls ``ks::kde``, whose
               default ``hpi`` computes the same rule on binned data); effective df
               ``mean(phi_h(0) / fhat(x_i))`` as simIReff;
discrete scores on a known support (P@k: ``{0, 1/k, ..., 1}``; RR: ``{0} u {1/r}``)
    ``bbinom`` the beta-binomial on the support's positions, maximum likelihood with both shapes
               ``>= 1``; 2 df;
    ``dks(m)`` the discrete kernel estimate with the Wang & van Ryzin (1981) kernel, bandwidth by
               least-squares cross-validation (``np::npudensbw(bwmethod = "cv.ls")``) times
               ``m`` in 1, 2, 5, 10 (when it stays <= 1); effective df ``mean((1 - lambda) / f(x_i))``.

``AIC = 2 df - 2 log L`` (simIReff's ``AIC.eff``).  :func:`transform` moves a margin to a target
expected value as simIReff's ``effTransform`` does: the distribution of ``Q(V)`` with ``Q`` the
margin's quantile function and ``V ~ Beta(a, b)``, ``a, b >= 1`` chosen so that the expected value
is the target (``R/02-margins_transform.R``).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Margin", "fit_continuous", "fit_discrete", "fit_and_select", "transform", "support_for",
           "plugin_bandwidth", "CONTINUOUS", "DISCRETE"]

CONTINUOUS = ("norm", "beta", "nks")
DISCRETE = ("bbinom", "dks")
_CAP = 1e-6
_GRID = 4097                       # table of the kernel margins' distribution function on [0, 1]
_MATCH_TOL = 1e-4                  # simIReff's matchTol
#: the parameter ranges of the truncated normal's fit (mu, sigma); sigma >= 0.05 as simIReff
NORM_MU, NORM_SIGMA = (-5.0, 6.0), (0.05, 10.0)


def _gl(panels: int = 64, nodes: int = 8):
    """Composite Gauss-Legendre nodes and weights on [0, 1]."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    a = np.arange(panels) / panels
    h = 1.0 / panels
    return (a[:, None] + (x[None, :] + 1) * h / 2).ravel(), np.tile(w * h / 2, panels)


_GL_X, _GL_W = _gl()


@dataclass
class Margin:
    """One fitted margin: ``family``, ``params`` (written to margins.csv), the effective degrees of
    freedom ``df``, the log-likelihood of the data, its expected value ``mean`` and the quantile
    function :meth:`ppf` used to simulate."""

    family: str
    params: dict
    df: float
    loglik: float
    mean: float
    _ppf: Callable[[np.ndarray], np.ndarray] | None = field(repr=False, default=None)
    support: np.ndarray | None = field(repr=False, default=None)
    cdf: np.ndarray | None = field(repr=False, default=None)      # discrete: F at the support points

    @property
    def aic(self) -> float:
        return 2.0 * self.df - 2.0 * self.loglik

    def ppf(self, u) -> np.ndarray:
        if self._ppf is None:
            raise ValueError(f"margin {self.family!r}: no quantile function")
        return self._ppf(np.asarray(u, dtype=np.float64))


def _minimize(nll, x0, bounds, polish: bool = True, grad=None):
    """``(argmin, min)`` of ``nll`` by L-BFGS-B within ``bounds`` (``grad``: ``p -> (nll(p),
    gradient)``, else finite differences), polished by Nelder-Mead (kept only if it stays within
    the bounds and improves)."""
    from scipy.optimize import minimize

    def inside(p):
        return all((lo is None or v >= lo) and (hi is None or v <= hi) for v, (lo, hi) in zip(p, bounds))

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = minimize(nll if grad is None else grad, np.asarray(x0, dtype=np.float64), method="L-BFGS-B",
                       bounds=bounds, jac=grad is not None)
        x, f = np.asarray(res.x), float(nll(res.x))
        if polish:
            res2 = minimize(lambda p: nll(p) if inside(p) else np.inf, x, method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
            if inside(res2.x) and float(nll(res2.x)) < f:
                x, f = np.asarray(res2.x), float(nll(res2.x))
    return x, f


# ----------------------------------------------------------------------------------------- continuous
def _truncnorm_logpdf(x, mu, sigma):
    from scipy.special import log_ndtr

    a, b = -mu / sigma, (1.0 - mu) / sigma
    if a > 0:                                   # both ends in the upper tail: Phi(-a) - Phi(-b)
        a, b = -b, -a
    la, lb = log_ndtr(a), log_ndtr(b)
    lz = lb + np.log1p(-np.exp(la - lb))        # log(Phi(b) - Phi(a)), accurate in the lower tail
    return -0.5 * ((x - mu) / sigma) ** 2 - 0.5 * math.log(2 * math.pi) - math.log(sigma) - lz


def _truncnorm_nll_grad(x, mu: float, sigma: float) -> tuple[float, np.ndarray]:
    """The negative log-likelihood of the normal truncated to [0, 1] (:func:`_truncnorm_logpdf`)
    and its gradient in ``(mu, sigma)``: with ``z = (x - mu) / sigma``, ``a = -mu / sigma``,
    ``b = (1 - mu) / sigma`` and ``Z = Phi(b) - Phi(a)``, d/dmu = -sum(z) / sigma + n (phi(a) -
    phi(b)) / (sigma Z) and d/dsigma = (n - sum(z^2)) / sigma + n (a phi(a) - b phi(b)) / (sigma Z)."""
    if sigma < 0.05:
        return np.inf, np.zeros(2)
    from scipy.special import log_ndtr

    a, b = -mu / sigma, (1.0 - mu) / sigma
    lo, hi = (-b, -a) if a > 0 else (a, b)       # Z as _truncnorm_logpdf takes it, accurate in the lower tail
    la, lb = log_ndtr(lo), log_ndtr(hi)
    lz = lb + np.log1p(-np.exp(la - lb))
    z = (x - mu) / sigma
    n = x.size
    half_log_2pi = 0.5 * math.log(2 * math.pi)
    nll = float(0.5 * (z * z).sum() + n * (half_log_2pi + math.log(sigma) + lz))
    pa, pb = math.exp(-0.5 * a * a - half_log_2pi - lz), math.exp(-0.5 * b * b - half_log_2pi - lz)   # phi / Z
    d_mu = -z.sum() / sigma + n * (pa - pb) / sigma
    d_sigma = (n - (z * z).sum()) / sigma + n * (a * pa - b * pb) / sigma
    return nll, np.array([d_mu, d_sigma])


def fit_norm(x) -> Margin:
    from scipy import stats

    x = np.asarray(x, dtype=np.float64)
    nll = lambda p: -_truncnorm_logpdf(x, p[0], p[1]).sum() if p[1] >= 0.05 else np.inf
    grad = lambda p: _truncnorm_nll_grad(x, float(p[0]), float(p[1]))
    # the likelihood of a truncated normal has long ridges (a decreasing density is fitted by any
    # mu far below 0 with a matching sigma): several starts, the best one polished
    # mu within NORM_MU, sigma within NORM_SIGMA: where the scores decrease like an exponential the
    # likelihood grows without bound as mu -> -inf along a ridge; the bound makes the fit defined
    sd = min(max(x.std(ddof=1), 0.05), NORM_SIGMA[1])
    bounds = [NORM_MU, NORM_SIGMA]
    best: tuple[Any, float] | None = None
    for mu0 in (float(np.clip(x.mean(), *NORM_MU)), -4.0, -1.0, 0.0, 0.5, 1.0, 2.0, 5.0):
        for s0 in (sd, 0.3, 1.0, 3.0):
            p, f = _minimize(nll, [mu0, s0], bounds, polish=False, grad=grad)
            if best is None or f < best[1]:
                best = (p, f)
    assert best is not None                                  # the loops above ran
    (mu, sigma), f = _minimize(nll, best[0], bounds)
    a, b = -mu / sigma, (1 - mu) / sigma
    dist = stats.truncnorm(a, b, loc=mu, scale=sigma)
    return Margin("norm", {"mu": mu, "sigma": sigma}, 2.0, -f, float(dist.mean()),
                  lambda u: np.clip(dist.ppf(u), 0.0, 1.0))


def fit_beta(x) -> Margin:
    from scipy import stats

    xc = np.clip(np.asarray(x, dtype=np.float64), _CAP, 1 - _CAP)
    m, v = xc.mean(), xc.var(ddof=1)
    k = max(m * (1 - m) / v - 1, 1e-3) if v > 0 else 1.0
    nll = lambda p: -stats.beta.logpdf(xc, p[0], p[1]).sum()
    (a, b), f = _minimize(nll, [max(m * k, 1e-3), max((1 - m) * k, 1e-3)], [(1e-6, None), (1e-6, None)])
    return Margin("beta", {"shape1": a, "shape2": b}, 2.0, -f, a / (a + b),
                  lambda u: stats.beta.ppf(u, a, b))


def plugin_bandwidth(x) -> float:
    """The two-stage direct plug-in bandwidth of Wand & Jones (1995, section 3.6.1) for a Gaussian
    kernel, on the exact (unbinned) functional estimates, normal scale from the sample s.d."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    sd = x.std(ddof=1)
    if not sd > 0:
        raise ValueError("constant scores")
    diff = (x[:, None] - x[None, :]).ravel()

    def psi(r: int, g: float) -> float:
        z = diff / g
        phi = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        he = {4: z ** 4 - 6 * z ** 2 + 3, 6: z ** 6 - 15 * z ** 4 + 45 * z ** 2 - 15}[r]
        return float((he * phi).sum() / (n * n * g ** (r + 1)))

    psi8 = 105.0 / (32.0 * math.sqrt(math.pi) * sd ** 9)
    g1 = (30.0 / (math.sqrt(2 * math.pi) * psi8 * n)) ** (1 / 9)       # -2 K^(6)(0) / (mu2 psi8 n)
    psi6 = psi(6, g1)
    g2 = (-6.0 / (math.sqrt(2 * math.pi) * psi6 * n)) ** (1 / 7)       # -2 K^(4)(0) / (mu2 psi6 n)
    psi4 = psi(4, g2)
    return (1.0 / (2 * math.sqrt(math.pi) * psi4 * n)) ** (1 / 5)


def fit_nks(x) -> Margin:
    from scipy.special import ndtr

    x = np.asarray(x, dtype=np.float64)
    h = plugin_bandwidth(x)
    F = lambda q: ndtr((np.asarray(q)[..., None] - x) / h).mean(axis=-1)
    fden = lambda q: (np.exp(-0.5 * ((np.asarray(q)[..., None] - x) / h) ** 2).mean(axis=-1)
                      / (h * math.sqrt(2 * math.pi)))
    F0, F1 = float(F(0.0)), float(F(1.0))
    Z = F1 - F0
    loglik = float(np.log(fden(x) / Z).sum())
    df = float(np.mean((1.0 / (h * math.sqrt(2 * math.pi))) / fden(x)))
    grid = np.linspace(0.0, 1.0, _GRID)
    cdf = (F(grid) - F0) / Z
    cdf[0], cdf[-1] = 0.0, 1.0
    mean = 1.0 - float((_GL_W * ((F(_GL_X) - F0) / Z)).sum())         # E = 1 - int_0^1 F
    return Margin("nks", {"bandwidth": h}, df, loglik, mean,
                  lambda u: np.interp(u, cdf, grid))


# ------------------------------------------------------------------------------------------- discrete
def _discrete(family, params, pmf, support, df, x_i) -> Margin:
    pmf = pmf / pmf.sum()
    p = np.cumsum(pmf)
    loglik = float(np.log(pmf[x_i]).sum())
    cut = p[:-1]
    return Margin(family, params, float(df), loglik, float((support * pmf).sum()),
                  lambda u: support[np.searchsorted(cut, u, side="left")], support, p)


def _positions(x, support) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    i = np.abs(x[:, None] - support[None, :]).argmin(axis=1)
    if (np.abs(support[i] - x) > _MATCH_TOL).any():
        raise ValueError("a score is not on the support")
    return i


def fit_bbinom(x, support) -> Margin:
    from scipy import stats

    support = np.sort(np.asarray(support, dtype=np.float64))
    n = support.size - 1
    k = _positions(x, support)
    m, v = k.mean(), k.var(ddof=1)
    den = n * (v / m - m - 1) + m if m > 0 else 0.0
    a0 = (n * m - v) / den if den else 1.0
    b0 = (n - m) * (n - v / m) / den if den and m > 0 else 1.0
    nll = lambda p: -stats.betabinom.logpmf(k, n, p[0], p[1]).sum()
    (a, b), _ = _minimize(nll, [max(a0, 1.0) if np.isfinite(a0) else 1.0,
                                max(b0, 1.0) if np.isfinite(b0) else 1.0], [(1.0, None), (1.0, None)])
    pmf = stats.betabinom.pmf(np.arange(n + 1), n, a, b)
    return _discrete("bbinom", {"shape1": a, "shape2": b}, pmf, support, 2.0, k)


def _wvr_kernel(dist: np.ndarray, lam: float) -> np.ndarray:
    """The Wang & van Ryzin (1981) kernel at level distances ``dist``: ``1 - lambda`` at 0,
    ``(1 - lambda) lambda^d / 2`` at ``d > 0``."""
    K = 0.5 * (1.0 - lam) * np.power(lam, dist)
    K[dist == 0] = 1.0 - lam
    return K


def _levels(k, c: int):
    """The observed levels, their counts and their distances to every level (``c x L``)."""
    lv, cnt = np.unique(k, return_counts=True)
    return lv, cnt.astype(np.float64), np.abs(np.arange(c)[:, None] - lv[None, :]).astype(np.float64)


def cv_ls_bandwidth(k, c: int) -> float:
    """Least-squares cross-validated bandwidth of the Wang & van Ryzin kernel for the positions
    ``k`` on ``c`` ordered levels: argmin over ``[0, 1]`` of ``sum_x f(x)^2 - 2/n sum_i f_-i(x_i)``."""
    from scipy.optimize import minimize_scalar

    lv, cnt, dist = _levels(k, c)
    n = cnt.sum()

    def cv(lam):
        K = _wvr_kernel(dist, lam)                  # (c, L)
        f = K @ cnt / n
        loo = (cnt * (K[lv] @ cnt - (1.0 - lam))).sum() / (n - 1)
        return float((f * f).sum() - 2.0 / n * loo)

    grid = np.linspace(0.0, 1.0, 201)
    vals = np.array([cv(g) for g in grid])
    i = int(vals.argmin())
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    res = minimize_scalar(cv, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10})
    return float(res.x) if res.fun <= vals[i] else float(grid[i])


def fit_dks(x, support, mult: float = 1.0, bandwidth: float | None = None) -> Margin:
    support = np.sort(np.asarray(support, dtype=np.float64))
    k = _positions(x, support)
    lam = (cv_ls_bandwidth(k, support.size) if bandwidth is None else bandwidth) * mult
    if lam > 1:
        raise ValueError("(multiplied) bandwidth too large")
    _lv, cnt, dist = _levels(k, support.size)
    pmf = _wvr_kernel(dist, lam) @ cnt / k.size
    pmf = pmf / pmf.sum()
    df = float(np.mean((1.0 - lam) / pmf[k]))
    return _discrete(f"dks({mult:g})", {"bandwidth": lam, "mult": mult}, pmf, support, df, k)


# ------------------------------------------------------------------------------------------ selection
def fit_continuous(x) -> list[Margin]:
    out = []
    for f in (fit_norm, fit_beta, fit_nks):
        try:
            m = f(x)
        except (ValueError, FloatingPointError, np.linalg.LinAlgError):
            continue
        if np.isfinite(m.loglik) and np.isfinite(m.mean):
            out.append(m)
    return out


def fit_discrete(x, support) -> list[Margin]:
    out = []
    try:
        lam = cv_ls_bandwidth(_positions(x, np.sort(np.asarray(support, dtype=np.float64))), len(support))
    except ValueError:
        lam = None
    fits: tuple[tuple[Callable, dict[str, Any]], ...] = ((fit_bbinom, {}), (fit_dks, {"mult": 1}), (fit_dks, {"mult": 2}), (fit_dks, {"mult": 5}),
                  (fit_dks, {"mult": 10}))
    for f, kw in fits:
        if f is fit_dks:
            if lam is None:
                continue
            kw = {**kw, "bandwidth": lam}
        try:
            m = f(x, support, **kw)
        except (ValueError, FloatingPointError):
            continue
        if np.isfinite(m.loglik):
            out.append(m)
    return out


def fit_and_select(x, support=None) -> Margin:
    """The margin of least AIC among the families (discrete when ``support`` is given)."""
    cands = fit_continuous(x) if support is None else fit_discrete(x, support)
    if not cands:
        raise ValueError("no margin family could be fitted")
    return min(cands, key=lambda m: m.aic)          # first of equal AICs, in family order (which.min)


def support_for(metric: str, values) -> np.ndarray | None:
    """The known support of a discrete measure (``P@k``/``Prec@k``: ``i/k``; RR: ``0`` and ``1/r``
    for ranks up to its cutoff or 1000) when every value lies on it, else ``None`` (continuous)."""
    name = metric.split(".")[-1]
    m = re.match(r"^(?:P|Prec|PDoc)(?:\([^)]*\))?@(\d+)$", name) or re.match(r"^P_(\d+)$", name)
    sup = None
    if m:
        k = int(m.group(1))
        sup = np.arange(k + 1) / k
    elif re.match(r"^(RR|recip_rank|MRR)(\([^)]*\))?(@\d+)?$", name):
        c = re.search(r"@(\d+)$", name)
        depth = int(c.group(1)) if c else 1000
        sup = np.concatenate([[0.0], 1.0 / np.arange(depth, 0, -1)])
    if sup is None:
        return None
    v = np.asarray(values, dtype=np.float64).ravel()
    i = np.abs(v[:, None] - sup[None, :]).argmin(axis=1)
    return sup if (np.abs(sup[i] - v) <= _MATCH_TOL).all() else None


# ------------------------------------------------------------------------------------------ transform
def transform(margin: Margin, target: float, tol: float = 1e-4) -> Margin | None:
    """``margin`` moved to the expected value ``target`` (simIReff's ``effTransform``), or ``None``
    when no ``a, b >= 1`` reach it within ``tol``."""
    from scipy import stats
    from scipy.optimize import minimize

    if margin.support is None:
        Q = margin.ppf(_GL_X)
        lo, hi = float(Q.min()), float(Q.max())

        def mean_of(p):
            return float((_GL_W * Q * stats.beta.pdf(_GL_X, p[0], p[1])).sum())
    else:
        sup = margin.support
        P = margin.cdf
        lo, hi = float(sup.min()), float(sup.max())

        def mean_of(p):
            q = np.maximum.accumulate(stats.beta.cdf(P, p[0], p[1]))
            return float((sup * np.diff(np.concatenate([[0.0], q]))).sum())
    if not lo < target < hi:             # no warp of this margin has that mean (a delta beyond the scores)
        return None

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = minimize(lambda p: (mean_of(p) - target) ** 2, np.array([1.0, 1.0]), method="L-BFGS-B",
                       bounds=[(1.0, None), (1.0, None)], options={"ftol": 1e-14, "gtol": 1e-12})
    a, b = (float(v) for v in res.x)
    mean = mean_of((a, b))
    if not abs(mean - target) <= tol:
        return None
    if margin.support is None:
        # the quadrature of the warp's density fails for large shapes (a spike between its nodes):
        # the mean checked in probability space, E Q(V) = sum w Q(F_beta^-1(x)), where it is smooth
        with np.errstate(all="ignore"):
            check = float((_GL_W * margin.ppf(stats.beta.ppf(_GL_X, a, b))).sum())
        if not abs(check - target) <= max(tol, 1e-3):
            return None
    base = margin
    params = {"base": base.family, **{f"base_{k}": v for k, v in base.params.items()}, "a": a, "b": b}
    if base.support is None:
        ppf = lambda u: base.ppf(stats.beta.ppf(u, a, b))
        return Margin(f"t({base.family})", params, base.df, float("nan"), mean, ppf)
    q = np.maximum.accumulate(stats.beta.cdf(base.cdf, a, b))
    cut = q[:-1]
    sup = base.support
    return Margin(f"t({base.family})", params, base.df, float("nan"), mean,
                  lambda u: sup[np.searchsorted(cut, u, side="left")], sup, q)
