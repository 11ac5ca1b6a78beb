"""Discriminative power: two-way ANOVA, randomised Tukey HSD, Tukey HSD, paired t /
Wilcoxon / sign tests with Holm and BH, effect sizes, topic set size design, and the stage.

Deterministic p-values are checked against scipy/statsmodels pair by pair on TREC DL19 (37 runs,
666 pairs, 43 topics); the randomised Tukey HSD against literal permutation loops; its Type I
error on null data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import dl19_matrices
from metaeval.meta.anova import two_way_anova
from metaeval.meta.discpower import (ANOVA_COLUMNS, DISCPOWER_COLUMNS, PVALUE_COLUMNS, TESTS, TSS_COLUMNS,
                                     discpower_text, discpower_texts, discriminative_power_wide,
                                     stage_discpower)
from metaeval.meta.pairtests import (adjust, cohen_dz, paired_t, permutation_test, sign_test,
                                     studentized_range_sf, tukey_hsd, wilcoxon)
from metaeval.meta.rthsd import rthsd, rthsd_many
from metaeval.meta.samples import sample_rng
from metaeval.meta.topicset import anova_power, paired_t_power, topic_set_size

METRICS = ["AP", "nDCG@10", "RR", "Q-measure", "Prec@10"]


@pytest.fixture(scope="module")
def dl19():
    return dl19_matrices(METRICS)


def _pairs(m):
    return [(i, j) for i in range(m) for j in range(i + 1, m)]


# ---------------------------------------------------------------------------------------------
# two-way ANOVA

def test_anova_against_statsmodels_on_random_data():
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(3)
    for n, m in [(12, 5), (30, 8), (5, 2)]:
        X = rng.normal(0.4, 0.2, (n, m)) + rng.normal(0, 0.1, (n, 1)) + np.linspace(0, 0.2, m)
        long = pd.DataFrame({"y": X.ravel(), "topic": np.repeat(np.arange(n), m).astype(str),
                             "system": np.tile(np.arange(m), n).astype(str)})
        tab = anova_lm(smf.ols("y ~ C(system) + C(topic)", data=long).fit())
        a = two_way_anova(X)
        assert (a.topics, a.systems) == (n, m)
        np.testing.assert_allclose([a.S_A, a.S_B, a.S_E], tab["sum_sq"].to_numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose([a.V_A, a.V_B, a.V_E], tab["mean_sq"].to_numpy(), rtol=1e-9)
        np.testing.assert_allclose([a.F_A, a.F_B], tab["F"].to_numpy()[:2], rtol=1e-9)
        np.testing.assert_allclose([a.p_A, a.p_B], tab["PR(>F)"].to_numpy()[:2], rtol=1e-9, atol=1e-300)
        assert (a.df_A, a.df_B, a.df_E) == tuple(tab["df"].astype(int))


def test_anova_zero_residual_is_not_nan():
    X = np.add.outer(np.array([0.1, 0.3, 0.2]), np.array([0.0, 0.1, 0.5, 0.2]))   # exactly additive
    a = two_way_anova(X)
    assert a.S_E == 0.0 and a.V_E == 0.0
    assert a.F_A == np.inf and a.p_A == 0.0 and a.F_B == np.inf and a.p_B == 0.0
    b = two_way_anova(np.ones((4, 3)))
    assert (b.F_A, b.p_A, b.F_B, b.p_B) == (0.0, 1.0, 0.0, 1.0)


def test_ve_and_effect_sizes_plain_loop_dl19(dl19):
    out = stage_discpower(dl19, METRICS, B_r=200, seed=0)
    for metric, df in dl19.items():
        X = df.to_numpy()
        n, m = X.shape
        grand = sum(sum(row) for row in X) / (n * m)
        col = [sum(X[j][i] for j in range(n)) / n for i in range(m)]
        row = [sum(X[j][i] for i in range(m)) / m for j in range(n)]
        se = 0.0
        for j in range(n):
            for i in range(m):
                se += (X[j][i] - col[i] - row[j] + grand) ** 2
        ve = se / ((m - 1) * (n - 1))
        got = out["anova"].set_index("metric").loc[metric]
        assert got["V_E"] == pytest.approx(ve, rel=1e-9)
        pv = out["pvalues"]
        sub = pv[(pv["metric"] == metric) & (pv["test"] == "rthsd")]
        expect = [(df.columns[i], df.columns[j], col[i] - col[j], (col[i] - col[j]) / ve ** 0.5)
                  for i, j in _pairs(m)]
        assert list(zip(sub["system_x"], sub["system_y"])) == [(x, y) for x, y, _, _ in expect]
        np.testing.assert_allclose(sub["diff"], [d for _, _, d, _ in expect], rtol=0, atol=1e-12)
        np.testing.assert_allclose(sub["effect_size"], [e for _, _, _, e in expect], rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# deterministic tests against scipy / statsmodels, pair by pair, on DL19

def test_deterministic_pvalues_against_scipy_dl19(dl19):
    from statsmodels.stats.multitest import multipletests

    out = stage_discpower(dl19, METRICS, B_r=100, seed=0)
    pv = out["pvalues"]
    an = out["anova"].set_index("metric")
    identical = 0
    for metric in ("AP", "RR", "Prec@10"):          # RR and Prec@10: ties, zeros and identical runs
        df = dl19[metric]
        X = df.to_numpy()
        n, m = X.shape
        got = {t: pv[(pv["metric"] == metric) & (pv["test"] == t)]["p_value"].to_numpy()
               for t in ("paired-t", "paired-t-holm", "paired-t-bh", "wilcoxon", "sign", "tukey-hsd")}
        t_ref, w_ref, s_ref = [], [], []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i, j in _pairs(m):
                x, y = X[:, i], X[:, j]
                if np.array_equal(x, y):                       # the documented convention
                    identical += 1
                    t_ref.append(1.0), w_ref.append(1.0), s_ref.append(1.0)
                    continue
                t_ref.append(stats.ttest_rel(x, y).pvalue)
                w_ref.append(stats.wilcoxon(x, y).pvalue)
                k, N = int((x > y).sum()), int((x != y).sum())
                s_ref.append(stats.binomtest(k, N, 0.5).pvalue)
        np.testing.assert_allclose(got["paired-t"], t_ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got["wilcoxon"], w_ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got["sign"], s_ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got["paired-t-holm"], multipletests(t_ref, method="holm")[1], rtol=1e-9,
                                   atol=1e-12)
        np.testing.assert_allclose(got["paired-t-bh"], multipletests(t_ref, method="fdr_bh")[1], rtol=1e-9,
                                   atol=1e-12)
        # studentised range: scipy integrates per value (~20 ms each): check 12 pairs spread over the range
        VE = an.loc[metric, "V_E"]
        means = X.mean(axis=0)
        pairs = _pairs(m)
        order = np.argsort(got["tukey-hsd"], kind="stable")
        for p in order[:: max(1, len(order) // 12)]:
            i, j = pairs[p]
            q = abs(means[i] - means[j]) / np.sqrt(VE / n)
            ref = 1.0 if q == 0 else stats.studentized_range.sf(q, m, (m - 1) * (n - 1))
            assert got["tukey-hsd"][p] == pytest.approx(ref, abs=1e-6), (metric, pairs[p])
        for t, p in got.items():
            assert np.isfinite(p).all() and ((p >= 0) & (p <= 1)).all(), (metric, t)
    assert identical == 5          # RR has four identical pairs of runs, Prec@10 one


def test_studentized_range_against_scipy_grid():
    q = np.array([0.0, 0.3, 1.0, 2.0, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0, 12.0])
    for k, df in [(2, 1), (3, 2), (3, 10), (5, 20), (10, 50), (30, 1421), (37, 1512)]:
        np.testing.assert_allclose(studentized_range_sf(q, k, df), stats.studentized_range.sf(q, k, df),
                                   atol=1e-8, err_msg=f"k={k} df={df}")
    assert studentized_range_sf(np.inf, 4, 10) == 0.0


def test_constant_differences_conventions():
    rng = np.random.default_rng(1)
    x = rng.random(20)
    D = np.stack([x - x, np.full(20, 0.1), x - rng.random(20)], axis=1)
    t, p = paired_t(D)
    assert t[0] == 0 and p[0] == 1.0 and t[1] == np.inf and p[1] == 0.0
    assert wilcoxon(D)[0] == 1.0 and sign_test(D)[0] == 1.0 and permutation_test(D, B=1000)[0][0] == 1.0
    assert sign_test(D)[1] == pytest.approx(stats.binomtest(20, 20, 0.5).pvalue, rel=1e-12)
    assert cohen_dz(D)[0] == 0 and cohen_dz(D)[1] == np.inf
    assert tukey_hsd(np.array([0.0, 0.2]), 0.01, 20, 3)[0] == 1.0
    for f in (paired_t, wilcoxon, sign_test):
        r = f(D)
        assert not np.isnan(r[1] if isinstance(r, tuple) else r).any()


def test_adjust_equals_statsmodels():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(5)
    p = np.concatenate([rng.random(40) ** 3, [0.01, 0.01, 0.5, 1.0]])
    for ours, theirs in [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")]:
        np.testing.assert_allclose(adjust(p, ours), multipletests(p, method=theirs)[1], rtol=1e-12, atol=0)
    with pytest.raises(ValueError, match="NaN"):
        adjust(np.array([0.1, np.nan]), "holm")


# ---------------------------------------------------------------------------------------------
# randomised Tukey HSD

def test_rthsd_equals_literal_loop_on_its_permutations(dl19):
    """The counting is exact: a literal loop over the same permutations gives the same p-values."""
    X = dl19["AP"].iloc[:, :6].to_numpy()
    n, m = X.shape
    B, seed = 300, 11
    rng = sample_rng(seed, n, B, "rthsd")
    perm = np.broadcast_to(np.arange(m), (B, n, m)).copy()
    rng.permuted(perm, axis=2, out=perm)
    ranges = []
    for b in range(B):
        means = [sum(X[j][perm[b, j, i]] for j in range(n)) / n for i in range(m)]
        ranges.append(max(means) - min(means))
    obs = [sum(X[j][i] for j in range(n)) / n for i in range(m)]
    ref = [sum(r >= abs(obs[i] - obs[k]) - 1e-12 for r in ranges) / B for i, k in _pairs(m)]
    _, _, d, p = rthsd(X, B=B, seed=seed, batch=B)
    np.testing.assert_array_equal(p, ref)


def test_rthsd_against_independent_permutation_loop(dl19):
    """Monte Carlo agreement with a literal loop that shuffles each topic's row with its own RNG."""
    X = dl19["nDCG@10"].iloc[:, 10:18].to_numpy()
    n, m = X.shape
    B = 3000
    rng = np.random.default_rng(12345)
    obs = X.mean(axis=0)
    ranges = np.empty(B)
    for b in range(B):
        P = np.array([rng.permutation(X[j]) for j in range(n)])
        mu = P.mean(axis=0)
        ranges[b] = mu.max() - mu.min()
    ref = np.array([(ranges >= abs(obs[i] - obs[k]) - 1e-12).mean() for i, k in _pairs(m)])
    _, _, _, p = rthsd(X, B=B, seed=3)
    tol = 4.5 * np.sqrt(2 * np.maximum(ref * (1 - ref), 1 / B) / B) + 1 / B
    assert (np.abs(p - ref) <= tol).all(), np.max(np.abs(p - ref) - tol)
    assert (p > 0.05).any() and (p < 0.05).any()       # the subset has both kinds of pairs


def test_rthsd_batch_invariance_and_seed(dl19):
    X = dl19["Q-measure"].to_numpy()
    base = rthsd(X, B=700, seed=4)[3]
    for batch in (1, 7, 256, 699, 700, 10000):
        np.testing.assert_array_equal(rthsd(X, B=700, seed=4, batch=batch)[3], base)
    np.testing.assert_array_equal(rthsd(X, B=700, seed=4)[3], base)          # reproducible
    assert not np.array_equal(rthsd(X, B=700, seed=5)[3], base)              # the seed matters
    # several metrics sharing the permutations equal separate calls
    many = rthsd_many([dl19["AP"], X], B=700, seed=4, batch=33)
    np.testing.assert_array_equal(many[1][3], base)
    np.testing.assert_array_equal(many[0][3], rthsd(dl19["AP"], B=700, seed=4)[3])
    # the whole stage is byte-identical for any batch size
    a = stage_discpower(dl19, ["AP", "RR"], B_r=500, seed=9)
    b = stage_discpower(dl19, ["AP", "RR"], B_r=500, seed=9, batch=17)
    for k in a:
        pd.testing.assert_frame_equal(a[k], b[k], check_exact=True)


def test_type_one_error_on_null_data():
    """Null data (systems exchangeable: topic effect + iid noise): randomised Tukey HSD keeps the
    family-wise error rate over all pairs near alpha; the unadjusted t-test keeps the per-pair rate
    but its family-wise rate is far above."""
    trials, n, m, B = 2000, 20, 5, 400
    gen = np.random.default_rng(1)
    Xs = gen.normal(0, 1, (trials, n, 1)) + gen.normal(0, 0.3, (trials, n, m))
    fw_rthsd = np.mean([(rthsd(X, B=B, seed=tr)[3] < 0.05).any() for tr, X in enumerate(Xs)])
    ia, ib = np.triu_indices(m, 1)
    D = (Xs[:, :, ia] - Xs[:, :, ib]).transpose(1, 0, 2).reshape(n, -1)      # every trial's pairs
    pt = paired_t(D)[1].reshape(trials, ia.size) < 0.05
    VE = np.array([two_way_anova(X).V_E for X in Xs])
    means = Xs.mean(axis=1)
    q = np.abs(means[:, ia] - means[:, ib]) / np.sqrt(VE / n)[:, None]
    fw_tukey = (studentized_range_sf(q, m, (m - 1) * (n - 1)) < 0.05).any(axis=1).mean()
    assert 0.03 <= fw_rthsd <= 0.07, fw_rthsd
    assert 0.03 <= fw_tukey <= 0.07, fw_tukey
    assert 0.04 <= pt.mean() <= 0.06, pt.mean()                 # per pair: near alpha
    assert pt.any(axis=1).mean() >= 0.15, pt.any(axis=1).mean()  # family-wise: far above


# ---------------------------------------------------------------------------------------------
# topic set size design

def test_topic_set_size_known_values_and_minimality():
    # effect size 0.5 (min_diff 0.1, sd of the difference 0.2): the paired t-test needs 34 topics
    assert topic_set_size("paired-t", variance=0.02, min_diff=0.1, alpha=0.05, beta=0.2) == 34
    # one-way ANOVA over 2 systems is the two-sample t-test: d = 0.5 needs 64 per group
    assert topic_set_size("anova", variance=0.04, min_diff=0.1, alpha=0.05, beta=0.2, systems=2) == 64
    for VE, d, a, beta, k in [(0.05, 0.05, 0.05, 0.2, 10), (0.02, 0.1, 0.01, 0.1, 37), (0.1, 0.02, 0.05, 0.2, 2)]:
        n = topic_set_size("paired-t", variance=VE, min_diff=d, alpha=a, beta=beta)
        tc = stats.t.isf(a / 2, n - 1)
        pw = lambda n_: stats.nct.sf(stats.t.isf(a / 2, n_ - 1), n_ - 1, np.sqrt(n_) * d / np.sqrt(2 * VE)) \
            + stats.nct.cdf(-stats.t.isf(a / 2, n_ - 1), n_ - 1, np.sqrt(n_) * d / np.sqrt(2 * VE))  # noqa: E731
        assert tc > 0 and pw(n) >= 1 - beta > pw(n - 1)
        assert paired_t_power(n, d, VE, a) == pytest.approx(pw(n), rel=1e-12)
        n2 = topic_set_size("anova", variance=VE, min_diff=d, alpha=a, beta=beta, systems=k)
        pa = lambda n_: stats.ncf.sf(stats.f.isf(a, k - 1, k * (n_ - 1)), k - 1, k * (n_ - 1),  # noqa: E731
                                     n_ * d * d / (2 * VE))
        assert pa(n2) >= 1 - beta > pa(n2 - 1)
        assert anova_power(n2, k, d, VE, a) == pytest.approx(pa(n2), rel=1e-12)
    assert topic_set_size("paired-t", variance=0.0, min_diff=0.1) == 2
    with pytest.raises(ValueError):
        topic_set_size("anova", variance=0.1, min_diff=0.1, systems=1)


# ---------------------------------------------------------------------------------------------
# the stage: tables, columns, order, ASL rows, text form

def test_stage_tables_columns_and_asl_rows(dl19):
    from metaeval.meta.bootstrap import paired_bootstrap, unpaired_bootstrap

    mats = {m: dl19[m].iloc[:, :8] for m in ("AP", "RR")}
    asl = []
    for m, df in mats.items():
        for test, f in (("paired", paired_bootstrap), ("unpaired", unpaired_bootstrap)):
            r = f(df, B=200, seed=0, metric=m)
            asl.append(pd.DataFrame({"metric": m, "test": test, "system_x": r.system_x,
                                     "system_y": r.system_y, "asl": r.asl}))
    asl = pd.concat(asl, ignore_index=True)
    out = stage_discpower(mats, ["AP", "RR"], alpha=0.05, seed=0, B_r=300, tss_min_diff=(0.05, 0.1),
                          tss_systems=(2, 10, "runs"), asl=asl)
    assert list(out) == ["anova", "pvalues", "discriminative_power", "topic_set_size"]
    assert list(out["anova"].columns) == ANOVA_COLUMNS
    assert list(out["pvalues"].columns) == PVALUE_COLUMNS
    assert list(out["discriminative_power"].columns) == DISCPOWER_COLUMNS
    assert list(out["topic_set_size"].columns) == TSS_COLUMNS
    pv = out["pvalues"]
    for m in mats:
        sub = pv[pv["metric"] == m]
        assert list(dict.fromkeys(sub["test"])) == list(TESTS)
        a = asl[(asl["metric"] == m) & (asl["test"] == "paired")]
        b = sub[sub["test"] == "paired-bootstrap"]
        assert list(zip(b["system_x"], b["system_y"])) == list(zip(a["system_x"], a["system_y"]))
        np.testing.assert_array_equal(b["p_value"], a["asl"])
        for t in TESTS:                      # every test: the ASL table's pairs, order and orientation
            s = sub[sub["test"] == t]
            assert list(zip(s["system_x"], s["system_y"])) == list(zip(a["system_x"], a["system_y"]))
    dp = out["discriminative_power"]
    row = dp[(dp["metric"] == "AP") & (dp["test"] == "paired-t")].iloc[0]
    p = pv[(pv["metric"] == "AP") & (pv["test"] == "paired-t")]["p_value"]
    assert row["pairs"] == 28 and row["significant"] == int((p < 0.05).sum())
    assert row["share"] == row["significant"] / 28
    tss = out["topic_set_size"]
    assert len(tss) == 2 * 2 * (1 + 3)       # metrics x min_diff x (paired-t + anova at 2, 10 and 8 runs)
    assert sorted(set(tss["systems"])) == [2, 8, 10]
    assert (tss["n"] >= 2).all() and tss["n"].dtype.kind == "i"
    text = discpower_text(pv, "AP")
    lines = text.splitlines()
    assert len(lines) == 28
    x, y, d, pval = lines[0].split()
    r0 = pv[(pv["metric"] == "AP") & (pv["test"] == "rthsd")].iloc[0]
    assert (x, y) == (r0["system_x"], r0["system_y"])
    assert float(d) == abs(r0["diff"]) and float(pval) == r0["p_value"]
    assert list(discpower_texts(pv)) == ["AP", "RR"] and discpower_texts(pv)["AP"] == text
    wide = discriminative_power_wide(dp)
    assert list(wide.columns) == list(TESTS) and list(wide.index) == ["AP", "RR"]
    assert wide.loc["AP", "paired-t"] == f"{row['significant']}/28 = {100 * row['share']:.0f}%"
    with pytest.raises(ValueError, match="no matrix"):
        stage_discpower(mats, ["nope"])


def test_wilcoxon_small_n_with_ties_equals_scipy_per_pair():
    """n <= 13 with ties or zeros: scipy's exact sign-flip permutation test, vectorised here, gives
    each pair exactly the p-value of its own scipy.stats.wilcoxon call (and in milliseconds)."""
    import time
    import warnings

    from scipy import stats

    from metaeval.meta.pairtests import wilcoxon

    rng = np.random.default_rng(7)
    for n, k in ((2, 12), (4, 12), (9, 8), (13, 3), (14, 6)):
        D = rng.integers(-3, 4, (n, k)).astype(float) / 4           # ties and zeros everywhere
        D[:, 0] = 0.0                                                # identical systems
        t0 = time.perf_counter()
        p = wilcoxon(D)
        assert time.perf_counter() - t0 < 2.0
        for j in range(D.shape[1]):
            if not (D[:, j] != 0).any():
                assert p[j] == 1.0
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert p[j] == pytest.approx(stats.wilcoxon(D[:, j]).pvalue, abs=1e-12), (n, j)


def test_wilcoxon_large_n_equals_scipy_bit_for_bit():
    """Above 50 differences the vectorised normal approximation (one sort per column, no scipy
    call) gives every column exactly scipy.stats.wilcoxon's p-value: ties, zeros, -0.0, an
    all-zero column (p = 1), a constant column, huge and tiny magnitudes."""
    rng = np.random.default_rng(7)
    for n, k, dec in [(51, 300, 1), (120, 400, 2), (250, 300, 4)]:
        D = np.round(rng.normal(0, 0.2, (n, k)), dec)
        D[:, 0] = 0.0
        D[:, 1] = 0.3
        D[:5, 2] = -0.0
        D[:, 3] = -D[:, 4]
        D[:, 5] = 1e300 * np.sign(D[:, 5])
        D[:, 6] *= 1e-200
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            ref = np.array(stats.wilcoxon(D, axis=0).pvalue)
        ref[0] = 1.0
        got = wilcoxon(D)
        assert np.array_equal(got, ref)
