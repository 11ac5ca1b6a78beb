"""Kishida (2005) Sec. 3.3 / Table 2: the judgment-variation simulation against exact enumeration and
against the report's numbers (which must lie within the spread over seeds)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from metaeval.kishida.simulation import (STATISTICS, draw_probabilities, exact_given_pi,
                                         exact_population, simulate, simulate_ap, table2)

# Table 2 as printed
REPORT = {
    0.9: {"mu": 0.62396, "sigma2_mu": 0.01660, "sigma2_d": 0.01314, "sigma2_mu+sigma2_d": 0.02974,
          "mean_Vp": 0.03006},
    0.5: {"mu": 0.60679, "sigma2_mu": 0.00004, "sigma2_d": 0.03674, "sigma2_mu+sigma2_d": 0.03678,
          "mean_Vp": 0.03687},
}


def _naive_ap(rel):
    R = sum(rel)
    if R == 0:
        return 0.0
    hits, s = 0, 0.0
    for i, r in enumerate(rel, 1):
        if r:
            hits += 1
            s += hits / i
    return s / R


def test_simulate_ap_matches_naive_loop():
    rng = np.random.default_rng(5)
    pi = draw_probabilities(0.8, 3, 6, rng)
    state = rng.bit_generator.state
    v = simulate_ap(pi, 7, rng)
    rng2 = np.random.default_rng()
    rng2.bit_generator.state = state
    u = rng2.random((3, 7, 6))
    for h in range(3):
        for a in range(7):
            rel = [bool(u[h, a, i] > pi[h, i]) for i in range(6)]   # "exceeds pi -> relevant"
            assert v[h, a] == pytest.approx(_naive_ap(rel), abs=1e-15)


def test_probabilities_are_theta_or_complement():
    pi = draw_probabilities(0.9, 200, 10, np.random.default_rng(1))
    assert set(np.round(np.unique(pi), 12)) == {0.1, 0.9}
    assert abs((pi == 0.9).mean() - 0.5) < 0.03


def test_exact_moments_by_brute_force():
    pi = np.array([[0.9, 0.1, 0.9, 0.9], [0.1, 0.1, 0.9, 0.1], [0.9, 0.9, 0.9, 0.9]])
    ex = exact_given_pi(pi, M=10)
    mus, vars_ = [], []
    for row in pi:
        m = s = 0.0
        for out in itertools.product((0, 1), repeat=4):
            p = np.prod([(1 - q) if o else q for o, q in zip(out, row)])
            ap = _naive_ap(out)
            m += p * ap
            s += p * ap * ap
        mus.append(m)
        vars_.append(s - m * m)
    assert ex["mu"] == pytest.approx(np.mean(mus), abs=1e-14)
    assert ex["sigma2_d"] == pytest.approx(np.mean(vars_), abs=1e-14)
    assert ex["mean_Vp"] == pytest.approx(np.var(mus, ddof=1) + np.mean(vars_), abs=1e-14)
    assert ex["sigma2_mu"] == pytest.approx(np.var(mus, ddof=1) + np.mean(vars_) / 10, abs=1e-14)


@pytest.mark.parametrize("theta", [0.8, 0.5])
def test_estimators_agree_with_enumeration(theta):
    """Small L, N: over many repetitions of step 2 (pi fixed), the mean of every estimator equals
    its exact expectation (documented divisors: M-1, L-1, L-1) within 4 standard errors."""
    L, N, M, K = 6, 4, 40, 400
    pi = draw_probabilities(theta, L, N, np.random.default_rng(11))
    ex = exact_given_pi(pi, M)
    rng = np.random.default_rng(12)
    from metaeval.kishida.simulation import _estimates
    est = np.array([[e[s] for s in STATISTICS]
                    for e in (_estimates(simulate_ap(pi, M, rng)) for _ in range(K))])
    mean, se = est.mean(axis=0), est.std(axis=0, ddof=1) / np.sqrt(K)
    for i, s in enumerate(STATISTICS):
        assert abs(mean[i] - ex[s]) <= 4 * se[i] + 1e-12, (s, mean[i], ex[s], se[i])


def test_population_values():
    """theta = 0.5: every list is a fair coin per document -> sigma_mu^2 = 0 and mu = E[AP]."""
    p5 = exact_population(0.5, N=10)
    assert p5["sigma2_mu"] == pytest.approx(0.0, abs=1e-15)
    assert p5["mu"] == pytest.approx(0.60696, abs=5e-6)
    assert p5["sigma2_d"] == pytest.approx(0.036724, abs=5e-7)
    p9 = exact_population(0.9, N=10)
    assert p9["mu"] == pytest.approx(p5["mu"])        # symmetric in theta <-> 1 - theta
    assert p9["sigma2_mu"] + p9["sigma2_d"] == pytest.approx(p5["sigma2_d"])  # Var(v) is the same


def test_report_within_spread_over_seeds():
    """L = 50, N = 10, M = 1000 (the report's setting): over 30 seeds, each printed value lies
    within 3 standard deviations of the seeds' mean; the report's sums are consistent."""
    for theta, rep in REPORT.items():
        assert rep["sigma2_mu"] + rep["sigma2_d"] == pytest.approx(rep["sigma2_mu+sigma2_d"], abs=1e-5)
        est = np.array([[e[s] for s in STATISTICS]
                        for e in (simulate(theta, 50, 10, 1000, np.random.default_rng([seed, 7]))
                                  for seed in range(30))])
        mean, sd = est.mean(axis=0), est.std(axis=0, ddof=1)
        for i, s in enumerate(STATISTICS):
            assert abs(rep[s] - mean[i]) <= 3 * sd[i], (theta, s, rep[s], mean[i], sd[i])


def test_table2_layout_and_determinism():
    t = table2(M=200)
    assert list(t.columns) == ["theta", "statistic", "value"]
    assert list(t["statistic"]) == list(STATISTICS) * 2 and list(t["theta"].unique()) == [0.9, 0.5]
    assert t.equals(table2(M=200))
    assert not t.equals(table2(M=200, seed=1))
    # each theta has its own stream: theta = 0.5's rows do not depend on theta = 0.9 being run
    assert np.array_equal(table2(thetas=(0.9, 0.5), M=200)["value"][:5], table2(thetas=(0.9,), M=200)["value"])


def test_bad_arguments():
    with pytest.raises(ValueError):
        simulate(1.5)
    with pytest.raises(ValueError):
        simulate(0.9, L=1)
