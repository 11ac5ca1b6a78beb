"""Margins of the test-errors simulation (metaeval.meta.margins): each family's fit against scipy's
maximum-likelihood fit or a literal computation, AIC selection of the generating family, the
expected value of simulated scores, and the transformation to a target expected value."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.meta import margins as M


def _dl19(shared_data, metric="AP"):
    """The DL19 topic x run matrix of ``metric`` (file order, as `metaeval matrices`)."""
    import metaeval

    d = shared_data / "trec-dl19-passage"
    scores = metaeval.evaluate(d / "qrels.txt", d / "runs", [metric], order="file")
    return scores.pivot(index="topic", columns="run", values="value")


def _check_norm(x):
    """Against the global optimum (differential evolution) of the likelihood written with scipy's
    own truncated normal density."""
    from scipy.optimize import differential_evolution

    m = M.fit_norm(x)

    def nll(p):
        mu, sigma = p
        return -stats.truncnorm.logpdf(x, -mu / sigma, (1 - mu) / sigma, loc=mu, scale=sigma).sum()

    ref = differential_evolution(nll, [M.NORM_MU, M.NORM_SIGMA], seed=1, tol=1e-12, polish=True)
    # the same maximum of the likelihood (the truncated normal's likelihood is often flat along a
    # ridge, where different (mu, sigma) are equally likely), our log-likelihood scipy's own
    assert m.loglik >= -ref.fun - 1e-6
    assert m.loglik == pytest.approx(-ref.fun, abs=1e-3)
    assert m.loglik == pytest.approx(-nll([m.params["mu"], m.params["sigma"]]), rel=1e-10)


def _check_beta(x):
    m = M.fit_beta(x)
    a, b, _, _ = stats.beta.fit(np.clip(x, 1e-6, 1 - 1e-6), floc=0, fscale=1)
    assert m.params["shape1"] == pytest.approx(a, rel=1e-4)
    assert m.params["shape2"] == pytest.approx(b, rel=1e-4)


def test_continuous_fits_equal_scipy_mle_on_simulated_scores():
    rng = np.random.default_rng(11)
    _check_norm(np.clip(rng.normal(0.3, 0.2, 60), 0, 1))
    _check_beta(rng.beta(1.5, 4.0, 60))


@pytest.mark.shared_data
def test_continuous_fits_equal_scipy_mle_on_dl19_columns(shared_data):
    X = _dl19(shared_data)
    for run in list(X.columns)[:4]:
        x = X[run].to_numpy()
        _check_norm(x)
        _check_beta(x)


def test_bbinom_equals_scipy_fit():
    rng = np.random.default_rng(12)
    k = stats.betabinom.rvs(10, 2.0, 5.0, size=80, random_state=rng)
    support = np.arange(11) / 10
    m = M.fit_bbinom(k / 10, support)
    ref = stats.fit(stats.betabinom, k, bounds={"n": (10, 10), "a": (1, 200), "b": (1, 200)},
                    optimizer=lambda f, bounds, **kw: __import__("scipy").optimize.differential_evolution(
                        f, bounds, seed=1, tol=1e-12, polish=True, **kw))
    assert m.loglik >= -ref.nllf() - 1e-6
    assert m.params["shape1"] == pytest.approx(ref.params.a, rel=1e-3)
    assert m.params["shape2"] == pytest.approx(ref.params.b, rel=1e-3)


def test_nks_density_is_scipys_gaussian_kde_truncated():
    rng = np.random.default_rng(13)
    x = rng.beta(2, 5, 50)
    m = M.fit_nks(x)
    h = m.params["bandwidth"]
    kde = stats.gaussian_kde(x, bw_method=h / x.std(ddof=1))
    z = kde.integrate_box_1d(0, 1)
    assert m.loglik == pytest.approx(float(np.log(kde(x) / z).sum()), rel=1e-9)


def test_plugin_bandwidth_equals_a_literal_double_loop():
    rng = np.random.default_rng(14)
    x = rng.beta(2, 3, 30)
    n, sd = x.size, x.std(ddof=1)

    def phi_r(r, z):
        p = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
        return {4: z ** 4 - 6 * z ** 2 + 3, 6: z ** 6 - 15 * z ** 4 + 45 * z ** 2 - 15}[r] * p

    def psi(r, g):
        return sum(phi_r(r, (xi - xj) / g) for xi in x for xj in x) / (n * n * g ** (r + 1))

    psi8 = 105 / (32 * math.sqrt(math.pi) * sd ** 9)
    g1 = (30 / (math.sqrt(2 * math.pi) * psi8 * n)) ** (1 / 9)
    g2 = (-6 / (math.sqrt(2 * math.pi) * psi(6, g1) * n)) ** (1 / 7)
    h = (1 / (2 * math.sqrt(math.pi) * psi(4, g2) * n)) ** (1 / 5)
    assert M.plugin_bandwidth(x) == pytest.approx(h, rel=1e-10)


def test_dks_cross_validation_equals_the_literal_criterion():
    rng = np.random.default_rng(15)
    k = rng.binomial(10, 0.3, 40)
    c = 11

    def kern(x, y, lam):
        return 1 - lam if x == y else 0.5 * (1 - lam) * lam ** abs(x - y)

    def cv(lam):
        f = [sum(kern(x, xi, lam) for xi in k) / k.size for x in range(c)]
        loo = sum(sum(kern(k[i], k[j], lam) for j in range(k.size) if j != i) / (k.size - 1) for i in range(k.size))
        return sum(v * v for v in f) - 2 / k.size * loo

    lam = M.cv_ls_bandwidth(k, c)
    grid = np.linspace(0, 1, 101)
    best = min(cv(g) for g in grid)
    assert cv(lam) <= best + 1e-12                  # at least as good as any grid point
    m = M.fit_dks(k / 10, np.arange(11) / 10)
    pmf = np.array([sum(kern(x, xi, lam) for xi in k) for x in range(c)])
    pmf = pmf / pmf.sum()
    assert m.loglik == pytest.approx(float(np.log(pmf[k]).sum()), rel=1e-10)


@pytest.mark.parametrize("family, draw, support", [
    ("beta", lambda r: r.beta(2.0, 5.0, 400), None),
    ("norm", lambda r: stats.truncnorm.rvs(-0.85 / 0.25, 0.15 / 0.25, loc=0.85, scale=0.25, size=400, random_state=r), None),
    ("bbinom", lambda r: stats.betabinom.rvs(10, 1.5, 6.0, size=400, random_state=r) / 10, np.arange(11) / 10),
])
def test_aic_selects_the_generating_family(family, draw, support):
    for seed in range(3):
        x = draw(np.random.default_rng(100 + seed))
        assert M.fit_and_select(x, support).family == family


@pytest.mark.parametrize("draw, support", [
    (lambda r: r.beta(2.0, 5.0, 60), None),
    (lambda r: np.clip(r.normal(0.5, 0.2, 60), 0, 1), None),
    (lambda r: stats.betabinom.rvs(10, 2.0, 4.0, size=60, random_state=r) / 10, np.arange(11) / 10),
])
def test_simulated_scores_reproduce_the_fitted_expected_value(draw, support):
    rng = np.random.default_rng(21)
    x = draw(rng)
    fams = M.fit_continuous(x) if support is None else M.fit_discrete(x, support)
    for m in fams:
        s = m.ppf(rng.random(400_000))
        se = s.std() / math.sqrt(s.size)
        assert abs(s.mean() - m.mean) <= 4 * se + 2e-4, m.family
        t = M.transform(m, m.mean + 0.05)
        assert t is not None and t.mean == pytest.approx(m.mean + 0.05, abs=1e-4)
        s = t.ppf(rng.random(400_000))
        assert abs(s.mean() - t.mean) <= 4 * s.std() / math.sqrt(s.size) + 2e-4, t.family


def test_support_of_discrete_measures():
    assert np.allclose(M.support_for("Prec@10", [0.1, 0.3]), np.arange(11) / 10)
    assert np.allclose(M.support_for("trec.P_5", [0.2]), np.arange(6) / 5)
    assert M.support_for("RR", [0, 1, 0.5, 1 / 3])[-1] == 1.0
    assert M.support_for("AP", [0.1234]) is None
    assert M.support_for("Prec@10", [0.1234]) is None          # not on the support: continuous


def test_truncated_normal_gradient_is_the_likelihoods():
    """The gradient fit_norm's L-BFGS-B follows is that of the negative log-likelihood it
    minimises (central differences), in both tails and between."""
    rng = np.random.default_rng(3)
    x = np.clip(rng.normal(0.3, 0.25, 40), 0, 1)
    for mu, sigma in ((0.3, 0.25), (-3.0, 0.4), (4.0, 2.0), (0.9, 0.06), (-4.5, 9.0)):
        f, g = M._truncnorm_nll_grad(x, mu, sigma)
        assert f == pytest.approx(-M._truncnorm_logpdf(x, mu, sigma).sum(), rel=1e-12)
        h = 1e-6
        num = [(M._truncnorm_nll_grad(x, mu + h, sigma)[0] - M._truncnorm_nll_grad(x, mu - h, sigma)[0]) / (2 * h),
               (M._truncnorm_nll_grad(x, mu, sigma + h)[0] - M._truncnorm_nll_grad(x, mu, sigma - h)[0]) / (2 * h)]
        np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-5)
    assert M._truncnorm_nll_grad(x, 0.3, 0.04)[0] == np.inf          # below the sigma bound
