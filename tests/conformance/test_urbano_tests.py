"""The paired tests with the conventions of Urbano, Lima & Hanjalic (2019) (metaeval.meta.urbano_tests):
the p-values the paper's README prints, R's own wilcox.test / t.test values recorded with
tests/data/urbano2019/make_wilcoxon_reference.R, and literal per-trial loops."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.meta import urbano_tests as U

DATA = Path(__file__).parents[1] / "data" / "urbano2019"


def _readme_pair():
    d = pd.read_csv(DATA / "adhoc8_ap_125_126.csv")
    return d["run125"].to_numpy()[None, :], d["run126"].to_numpy()[None, :]


@pytest.mark.parametrize("test, printed", [
    ("paired-t", ("0.0006596986", "0.0013193972")),
    ("wilcoxon", ("0.001722594", "0.003445188")),
    ("sign", ("0.004779939", "0.009559879")),
])
def test_readme_example_pvalues_equal_the_papers(test, printed):
    """adhoc8 AP, runs 125 (baseline) and 126 (experimental): the README of
    julian-urbano/sigir2019-statistical prints these (R, 7 significant digits)."""
    b, e = _readme_pair()
    p1, p2 = U.run_tests(b, e, [test], signif=None)[test]
    # R prints a vector with 7 significant digits of its smallest element, every element with
    # as many decimals
    for got, want in zip((p1[0], p2[0]), printed):
        assert f"{float(got):.{len(want) - 2}f}" == want


def test_readme_example_resampling_tests_near_the_papers():
    """The bootstrap and permutation p-values are Monte Carlo estimates: with B = 200000 within
    4 standard errors of the README's (B = 10^6) values."""
    b, e = _readme_pair()
    rng = np.random.default_rng(7)
    for test, printed in (("bootstrap", (0.000424, 0.000586)), ("permutation", (0.000603, 0.001188))):
        p1, p2 = U.run_tests(b, e, [test], B=200_000, rng=rng, signif=None)[test]
        for got, want in zip((p1[0], p2[0]), printed):
            se = np.sqrt(want * (1 - want) / 200_000)
            assert abs(got - want) <= 4 * se, (test, got, want)


def _r_cases():
    df = pd.read_csv(DATA / "wilcoxon_r.csv")
    for _, r in df.iterrows():
        yield (r["kind"], int(r["n"]), np.array(r["b"].split(), float), np.array(r["e"].split(), float),
               float(r["w1"]), float(r["w2"]), float(r["t1"]), float(r["t2"]))


def test_wilcoxon_and_t_equal_r_on_recorded_cases():
    """60 cases of n 10..100, continuous, with ties and with zero differences (exact and normal
    approximation, tie and continuity corrections) against R 4.2's wilcox.test and t.test."""
    cases = list(_r_cases())
    assert len(cases) == 60
    for kind, n, b, e, w1, w2, t1, t2 in cases:
        p1, p2 = U.wilcoxon_test(b, e)
        assert p1[0] == pytest.approx(w1, rel=1e-9, abs=1e-15), (kind, n)
        assert p2[0] == pytest.approx(w2, rel=1e-9, abs=1e-15), (kind, n)
        q1, q2 = U.t_test(b, e)
        assert q1[0] == pytest.approx(t1, rel=1e-9, abs=1e-15)
        assert q2[0] == pytest.approx(t2, rel=1e-9, abs=1e-15)


def test_many_trials_at_once_equal_one_at_a_time():
    rng = np.random.default_rng(3)
    b = np.round(rng.random((40, 30)), 2)
    e = np.round(np.clip(b + rng.normal(0.02, 0.08, b.shape), 0, 1), 2)
    for f in (U.t_test, U.wilcoxon_test, U.sign_test):
        allp = f(b, e)
        for i in range(b.shape[0]):
            one = f(b[i], e[i])
            np.testing.assert_array_equal([allp[0][i], allp[1][i]], [one[0][0], one[1][0]])


def test_sign_test_literal_binomtest():
    rng = np.random.default_rng(4)
    b = rng.random((25, 20))
    e = np.clip(b + rng.normal(0.01, 0.05, b.shape), 0, 1)
    p1, p2 = U.sign_test(b, e)
    for i in range(b.shape[0]):
        d = e[i] - b[i]
        pos, eq = int((d > 0.01).sum()), int((np.abs(d) <= 0.01).sum())
        assert p1[i] == pytest.approx(stats.binomtest(pos, 20 - eq, alternative="greater").pvalue, rel=1e-12)
        assert p2[i] == pytest.approx(stats.binomtest(pos, 20 - eq).pvalue, rel=1e-12)
    same = U.sign_test(b, b)
    assert np.isnan(same[0]).all() and np.isnan(same[1]).all()     # R's NA: every difference a tie


def test_bootstrap_and_permutation_equal_a_literal_loop():
    """The shared resamples, applied trial by trial in a plain loop (testCpp_bootstrap /
    testCpp_permutation's arithmetic), give the same p-values."""
    rng = np.random.default_rng(5)
    b = rng.random((12, 15))
    e = np.clip(b + rng.normal(0.03, 0.1, b.shape), 0, 1)
    B = 500
    p1, p2 = U.bootstrap_test(b, e, B, np.random.default_rng(9))
    idx = np.random.default_rng(9).integers(0, 15, size=(B, 15))
    for i in range(12):
        d = e[i] - b[i]
        means = np.array([d[idx[k]].sum() / 15 for k in range(B)])
        means = means - means.mean()
        assert p2[i] == np.sum(np.abs(means) >= abs(d.mean())) / B
        assert p1[i] == np.sum(means >= d.mean()) / B
    q1, q2 = U.permutation_test(b, e, B, np.random.default_rng(9))
    signs = np.where(np.random.default_rng(9).integers(0, 2, size=(15, B)) == 0, 1.0, -1.0)
    for i in range(12):
        d = e[i] - b[i]
        means = np.array([(d * signs[:, k]).sum() / 15 for k in range(B)])
        assert q2[i] == np.sum(np.abs(means) >= abs(d.mean())) / B
        assert q1[i] == np.sum(means >= d.mean()) / B


def test_signrank_distribution_is_rs_psignrank():
    # psignrank(0:5, 5) in R: 1/32, 2/32, 3/32, 5/32, 7/32, 10/32
    np.testing.assert_allclose(U.signrank_cdf(5)[:6], np.array([1, 2, 3, 5, 7, 10]) / 32)
    assert U.signrank_cdf(20)[-1] == 1.0
