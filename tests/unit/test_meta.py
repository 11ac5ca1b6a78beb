"""metaeval.meta against independent plain-loop implementations of the papers' pseudo-code.

The references below are written from Sakai (2007a) Figs 4-7 and Sakai (2007b) Figs 2-3, 6-9, 16, 19 with
explicit Python loops over pairs and bootstrap samples.  Where exact ties matter (swap bins and
signs, stability margins, unpaired |d*| >= |d|) they compute with ``fractions.Fraction`` from the
4-decimal scores, so they are exact and share no floating-point code path with the library.
Both are given the same bootstrap index matrices.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from metaeval.meta import (BootstrapSamples, MetaConfig, kendall_tau, paired_bootstrap, rank_correlations,
                           stability_method, swap_method, unpaired_bootstrap)
from metaeval.meta.bootstrap import kth_index
from metaeval.meta.stability import DEFAULT_FUZZINESS
from metaeval.meta.statistics import worst_mean


# ----------------------------------------------------------------------------- data

def scores(seed, n=12, runs=6, decimals=4, levels=None):
    rng = np.random.default_rng(seed)
    if levels is not None:                      # few distinct values: many exact ties (RR-like)
        return rng.choice(np.asarray(levels), size=(n, runs))
    base = rng.uniform(0.1, 0.6, runs)
    return np.round(np.clip(base + rng.normal(0, 0.25, (n, runs)), 0, 1), decimals)


def frac_matrix(X):
    return [[Fraction(repr(float(v))) for v in row] for row in X]


def pairs(R):
    return [(i, j) for i in range(R) for j in range(i + 1, R)]


# ----------------------------------------------------------------------------- references

def ref_paired(X, idx, alpha):
    """Sakai (2007b) Figs 2, 3 and 8 with loops (floats; plain statistics)."""
    n, R = X.shape
    B = idx.shape[0]
    asl, est = [], []
    for i, j in pairs(R):
        z = [X[t, i] - X[t, j] for t in range(n)]
        zbar = sum(z) / n
        sd = math.sqrt(sum((v - zbar) ** 2 for v in z) / (n - 1))
        t_obs = zbar / (sd / math.sqrt(n))
        w = [v - zbar for v in z]
        count = 0
        reps = []
        for b in range(B):
            wb = [w[q] for q in idx[b]]
            m = sum(wb) / n
            s = math.sqrt(sum((v - m) ** 2 for v in wb) / (n - 1))
            t = m / (s / math.sqrt(n))
            if abs(t) >= abs(t_obs):
                count += 1
            reps.append((abs(t), abs(m)))
        asl.append(count / B)
        reps.sort(key=lambda r: -r[0])
        est.append(reps[round(B * alpha) - 1][1])
    return np.array(asl), np.array(est)


def ref_unpaired(X, idx, alpha, stat):
    """Sakai (2007b) Figs 6, 7, 9; ``stat`` maps a list of Fractions (or floats) to a number."""
    n, R = X.shape
    F = frac_matrix(X)
    B = idx.shape[0]
    asl, est = [], []
    for i, j in pairs(R):
        x = [F[t][i] for t in range(n)]
        y = [F[t][j] for t in range(n)]
        v = x + y
        d_obs = stat(x) - stat(y)
        count = 0
        ds = []
        for b in range(B):
            xs = [v[q] for q in idx[b, :n]]
            ys = [v[q] for q in idx[b, n:]]
            d = stat(xs) - stat(ys)
            if abs(d) >= abs(d_obs):
                count += 1
            ds.append(abs(d))
        asl.append(count / B)
        ds.sort(reverse=True)
        est.append(float(ds[round(B * alpha) - 1]))
    return np.array(asl), np.array(est)


def frac_mean(xs):
    return sum(xs, Fraction(0)) / len(xs)


def ref_swap(X, idx1, idx2, threshold=0.05):
    """Sakai (2007a) Fig. 4 / Sakai 2007b, Fig. 19 with exact arithmetic; 21 bins of width 0.01 on |D|."""
    n, R = X.shape
    F = frac_matrix(X)
    B = idx1.shape[0]
    M1 = [[frac_mean([F[q][r] for q in idx1[b]]) for r in range(R)] for b in range(B)]
    M2 = [[frac_mean([F[q][r] for q in idx2[b]]) for r in range(R)] for b in range(B)]
    count = [0] * 21
    swap = [0] * 21
    for i, j in pairs(R):
        for b in range(B):
            D = M1[b][i] - M1[b][j]
            D2 = M2[b][i] - M2[b][j]
            k = min(20, math.floor(abs(D) * 100))
            count[k] += 1
            if not D * D2 > 0:
                swap[k] += 1
    req = None
    for k in range(21):
        if count[k] and all(count[m] == 0 or swap[m] <= threshold * count[m] for m in range(k, 21)):
            req = k
            break
    pct = 0.0 if req is None else sum(count[req:]) / sum(count)
    vmax = max(max(float(v) for v in row) for row in M1 + M2)
    return count, swap, (None if req is None else req / 100), pct, vmax


def ref_stability(X, idx, fs):
    """Sakai (2007b) Fig. 16, Eqs 9-10 with exact arithmetic (identical values are EQ, documented)."""
    n, R = X.shape
    F = frac_matrix(X)
    B = idx.shape[0]
    M = [[frac_mean([F[q][r] for q in idx[b]]) for r in range(R)] for b in range(B)]
    mr, pt = [], []
    P = len(pairs(R))
    for f in fs:
        f = Fraction(f).limit_denominator(1000)
        mins = eqs = 0
        for i, j in pairs(R):
            eq = gxy = gyx = 0
            for b in range(B):
                mx, my = M[b][i], M[b][j]
                margin = f * max(mx, my)
                if abs(mx - my) < margin or mx == my:
                    eq += 1
                elif mx > my:
                    gxy += 1
                else:
                    gyx += 1
            mins += min(gxy, gyx)
            eqs += eq
        mr.append(mins / (B * P))
        pt.append(eqs / (B * P))
    return np.array(mr), np.array(pt)


# ----------------------------------------------------------------------------- tests

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paired_matches_plain_loop(seed):
    X = scores(seed)
    idx = BootstrapSamples.from_seed(seed, X.shape[0], 200).indices
    res = paired_bootstrap(X, idx, alpha=0.05)
    asl, est = ref_paired(X, idx, 0.05)
    np.testing.assert_array_equal(res.asl, asl)
    assert res.significant == int((asl < 0.05).sum())
    np.testing.assert_allclose(res.pair_diff, est, rtol=1e-12, atol=1e-15)
    assert res.estimated_diff == pytest.approx(est.max(), rel=1e-12)


def test_paired_log_transform_is_ag_variant():
    X = scores(3)
    idx = BootstrapSamples.from_seed(3, X.shape[0], 150).indices
    res = paired_bootstrap(X, idx, alpha=0.05, transform="log")
    asl, est = ref_paired(np.log(X + 0.00001), idx, 0.05)
    np.testing.assert_array_equal(res.asl, asl)
    np.testing.assert_allclose(res.pair_diff, est, rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 4])
def test_unpaired_mean_matches_plain_loop(seed):
    X = scores(seed, n=10, runs=5)
    idx = BootstrapSamples.from_seed(seed, X.shape[0], 150, "unpaired").indices
    res = unpaired_bootstrap(X, idx, alpha=0.05)
    asl, est = ref_unpaired(X, idx, 0.05, frac_mean)
    np.testing.assert_array_equal(res.asl, asl)
    np.testing.assert_allclose(res.pair_diff, est, rtol=1e-12)
    assert res.significant == int((asl < 0.05).sum())


def test_unpaired_geometric_mean_and_callable_match_plain_loop():
    X = scores(5, n=10, runs=5)
    idx = BootstrapSamples.from_seed(5, X.shape[0], 120, "unpaired").indices

    def gm(xs):
        return math.exp(sum(math.log(float(v) + 0.00001) for v in xs) / len(xs)) - 0.00001

    res = unpaired_bootstrap(X, idx, alpha=0.05, statistic="gmean")
    asl, est = ref_unpaired(X, idx, 0.05, gm)
    np.testing.assert_array_equal(res.asl, asl)
    np.testing.assert_allclose(res.pair_diff, est, rtol=1e-9)

    def worst3(xs):
        return frac_mean(sorted(xs)[:3])

    res = unpaired_bootstrap(X, idx, alpha=0.05, statistic=worst_mean(3))
    asl, est = ref_unpaired(X, idx, 0.05, worst3)
    np.testing.assert_array_equal(res.asl, asl)
    np.testing.assert_allclose(res.pair_diff, est, rtol=1e-12)
    # a bare callable on (..., B, n) arrays is accepted too
    res2 = unpaired_bootstrap(X, idx, alpha=0.05, statistic=lambda a: np.sort(a, axis=-1)[..., :3].mean(-1))
    np.testing.assert_array_equal(res2.asl, res.asl)


@pytest.mark.parametrize("seed,levels", [(0, None), (1, [0, 0.25, 0.3333, 0.5, 1.0]), (2, [0, 0.5, 1.0])])
def test_swap_matches_plain_loop(seed, levels):
    X = scores(seed, n=10, runs=6, levels=levels)
    n = X.shape[0]
    q1 = BootstrapSamples.from_seed(seed, n, 120, "paired").indices
    q2 = BootstrapSamples.from_seed(seed, n, 120, "swap").indices
    res = swap_method(X, q1, q2, threshold=0.05)
    count, swap, req, pct, vmax = ref_swap(X, q1, q2)
    assert res.counts.tolist() == count
    assert res.swaps.tolist() == swap
    if req is None:
        assert math.isnan(res.diff_required) and res.share_satisfying == 0
    else:
        assert res.diff_required == pytest.approx(req, abs=1e-15)
        assert res.share_satisfying == pytest.approx(pct, abs=1e-15)
    assert res.max_value == pytest.approx(vmax, rel=1e-12)


def test_swap_bin_edges_exact_on_decimal_data():
    # 0.3 + 0.04 - 0.2 = 0.14 exactly in decimals, 0.13999999999999999 in floats: must bin to 0.14
    X = np.array([[0.34, 0.2], [0.34, 0.2]])
    idx = np.zeros((1, 2), dtype=int)
    res = swap_method(X, idx, idx, threshold=0.05)
    assert res.counts[14] == 1 and res.counts.sum() == 1
    assert res.swaps.sum() == 0


@pytest.mark.parametrize("seed,levels,fs", [
    (0, None, [0.01, 0.05, 0.1, 0.2]), (3, [0, 0.2, 0.5, 1.0], [0.01, 0.05, 0.1, 0.2]),
    (0, None, DEFAULT_FUZZINESS), (4, [0, 0.1, 0.25, 0.5, 1.0], DEFAULT_FUZZINESS)])
def test_stability_matches_plain_loop(seed, levels, fs):
    X = scores(seed, n=10, runs=5, levels=levels)
    idx = BootstrapSamples.from_seed(seed, X.shape[0], 100).indices
    res = stability_method(X, idx, fuzziness=fs)
    mr, pt = ref_stability(X, idx, fs)
    np.testing.assert_array_equal(res.minority_rate, mr)
    np.testing.assert_array_equal(res.proportion_ties, pt)
    np.testing.assert_array_equal(res.gt_xy + res.gt_yx + res.eq, np.full(res.eq.shape, 100))


def test_kendall_equals_scipy_on_tie_free_data():
    rng = np.random.default_rng(0)
    for _ in range(5):
        a, b = rng.random(30), rng.random(30)
        r = kendall_tau(a, b)
        ref = scipy.stats.kendalltau(a, b)
        assert r.tau == pytest.approx(ref.statistic, abs=1e-12)
        assert kendall_tau(a, b, "b").tau == pytest.approx(ref.statistic, abs=1e-12)
        ns = 30
        assert r.z0 == pytest.approx(abs(r.tau) / math.sqrt((4 * ns + 10) / (9 * ns * (ns - 1))))
        assert r.p_value == pytest.approx(2 * scipy.stats.norm.sf(r.z0))


def test_kendall_ties_tau_a_and_tau_b():
    a = np.array([0.1, 0.2, 0.2, 0.4, 0.5])
    b = np.array([0.3 + 0.04 - 0.2, 0.14, 0.3, 0.2, 0.6])    # first two equal up to float noise
    pos = neg = 0
    for i in range(5):
        for j in range(i + 1, 5):
            sa = np.sign(round(a[i] - a[j], 12))
            sb = np.sign(round(b[i] - b[j], 12))
            pos += sa * sb > 0
            neg += sa * sb < 0
    r = kendall_tau(a, b)
    assert (r.pos, r.neg) == (pos, neg)
    assert r.tau == pytest.approx(2 * (pos - neg) / (5 * 4))
    assert kendall_tau(a, b, "b").tau == pytest.approx(
        scipy.stats.kendalltau(a, np.round(b, 12)).statistic)
    # 30 systems: |tau| > 0.34 is significant at 0.01 (Sakai 2007a, Sec. 4.1)
    from metaeval.meta.kendall import kendall_z0
    assert kendall_z0(0.35, 30)[1] < 0.01 < kendall_z0(0.33, 30)[1]


def test_rank_correlations_table():
    X = scores(0, runs=8)
    mats = {"A": pd.DataFrame(X), "B": pd.DataFrame(X[:, ::-1].copy(), columns=range(7, -1, -1)),
            "C": pd.DataFrame(-X)}
    df = rank_correlations(mats)
    assert list(df.columns) == ["metric_a", "metric_b", "tau", "z0", "p_value"]
    assert df[["metric_a", "metric_b"]].values.tolist() == [["A", "B"], ["A", "C"], ["B", "C"]]
    assert df.tau.tolist() == pytest.approx([1.0, -1.0, -1.0])     # B is A with columns renamed back


def test_batching_changes_nothing():
    X = scores(7, n=15, runs=7)
    n = X.shape[0]
    q1 = BootstrapSamples.from_seed(1, n, 300)
    q2 = BootstrapSamples.from_seed(1, n, 300, "swap")
    qu = BootstrapSamples.from_seed(1, n, 300, "unpaired")
    for batch in (1, 7, 64):
        a, b = paired_bootstrap(X, q1), paired_bootstrap(X, q1, batch=batch)
        np.testing.assert_array_equal(a.asl, b.asl)
        np.testing.assert_array_equal(a.pair_diff, b.pair_diff)
        a, b = unpaired_bootstrap(X, qu), unpaired_bootstrap(X, qu, batch=batch)
        np.testing.assert_array_equal(a.asl, b.asl)
        np.testing.assert_array_equal(a.pair_diff, b.pair_diff)
        a, b = swap_method(X, q1, q2), swap_method(X, q1, q2, batch=batch)
        np.testing.assert_array_equal(a.counts, b.counts)
        np.testing.assert_array_equal(a.swaps, b.swaps)
        a, b = stability_method(X, q1), stability_method(X, q1, batch=batch)
        np.testing.assert_array_equal(a.eq, b.eq)
        np.testing.assert_array_equal(a.gt_xy, b.gt_xy)


@pytest.mark.parametrize("levels,B,batch", [([0, 1.0], 400, None), ([0, 0.5, 1.0], 3000, 256), (None, 5000, 512)])
def test_kth_largest_tie_takes_largest_mean(levels, B, batch):
    # RR-like pair: z in {0, c}; many bootstrap samples share |t*| (including inf); small batches
    # exercise the candidate buffer's compaction and growth
    X = scores(0, n=8, runs=3, levels=levels)
    idx = BootstrapSamples.from_seed(0, 8, B).indices
    res = paired_bootstrap(X, idx, alpha=0.05, batch=batch)
    assert np.isfinite(res.asl).all() and np.isfinite(res.pair_diff).all()
    # brute force with the documented rule: k-th largest |t|, largest |w| among ties
    from metaeval.meta.bootstrap import studentise
    k = kth_index(B, 0.05)
    for p, (i, j) in enumerate(pairs(3)):
        z = X[:, i] - X[:, j]
        w = z - z.mean()
        ws = w[idx]
        m = ws.mean(axis=1)
        t = np.abs(studentise(m, ws.var(axis=1, ddof=1), (ws ** 2).mean(axis=1), 8))
        v = np.sort(t)[::-1][k - 1]
        close = np.isclose(t, v, rtol=1e-9) | ((t == v) & np.isinf(v))
        assert res.pair_diff[p] == pytest.approx(np.abs(m[close]).max(), rel=1e-9)


def test_zero_variance_pairs_never_nan():
    # runs 0 and 1 identical, run 2 = run 0 - 0.1 on every topic, run 3 all zero
    X = np.array([[0.5, 0.5, 0.4, 0.0], [0.2, 0.2, 0.1, 0.0], [1.0, 1.0, 0.9, 0.0],
                  [0.3, 0.3, 0.2, 0.0], [0.7, 0.7, 0.6, 0.0]])
    res = paired_bootstrap(X, B=200, seed=1)
    assert np.isfinite(res.asl).all() and np.isfinite(res.pair_diff).all()
    p = {(x, y): k for k, (x, y) in enumerate(zip(res.pair_x, res.pair_y))}
    assert res.asl[p[0, 1]] == 1.0 and res.t_observed[p[0, 1]] == 0.0      # identical runs
    assert res.asl[p[0, 2]] == 0.0 and np.isinf(res.t_observed[p[0, 2]])   # constant difference 0.1
    assert np.isfinite(res.estimated_diff)
    u = unpaired_bootstrap(X, B=200, seed=1)
    s = stability_method(X, B=50, seed=1)
    w = swap_method(X, B=50, seed=1)
    assert np.isfinite(u.asl).all() and np.isfinite(s.minority_rate).all() and np.isfinite(w.max_value)


def test_inputs_validated_and_not_mutated():
    X = scores(0)
    df = pd.DataFrame(X.copy(), index=[f"t{i}" for i in range(12)], columns=[f"r{j}" for j in range(6)])
    before = df.copy()
    paired_bootstrap(df, B=20, seed=0)
    unpaired_bootstrap(df, B=20, seed=0)
    swap_method(df, B=20, seed=0)
    stability_method(df, B=20, seed=0)
    pd.testing.assert_frame_equal(df, before)
    Xw = X.copy()
    paired_bootstrap(Xw, B=20, seed=0)
    assert Xw.flags.writeable and np.array_equal(Xw, X)
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="non-finite score .* topic 3, run 2"):
        paired_bootstrap(bad, B=10, seed=0)
    with pytest.raises(ValueError, match="at least 2 topics"):
        paired_bootstrap(X[:1], B=10, seed=0)
    with pytest.raises(ValueError, match="at least 2 runs"):
        swap_method(X[:, :1], B=10, seed=0)
    with pytest.raises(ValueError, match="2-D"):
        stability_method(X[0], B=10, seed=0)
    with pytest.raises(ValueError, match="alpha"):
        paired_bootstrap(X, B=10, seed=0, alpha=1.5)
    with pytest.raises(ValueError, match="positive integer"):
        unpaired_bootstrap(X, B=0, seed=0)
    with pytest.raises(ValueError, match="either the bootstrap samples or both B and seed"):
        paired_bootstrap(X)
    with pytest.raises(ValueError, match="topics per row"):
        paired_bootstrap(X, np.zeros((5, 3), dtype=int))
    with pytest.raises(ValueError, match="non-finite"):
        paired_bootstrap(np.zeros((4, 3)) - 1, B=10, seed=0, transform="log")
    with pytest.raises(ValueError, match="batch"):
        paired_bootstrap(X, B=10, seed=0, batch=0)
    with pytest.raises(ValueError):
        MetaConfig(B=-1)


def test_summary_statistics():
    from metaeval.meta.statistics import GMEAN, area, as_statistic
    x = np.array([[0.4, 0.1, 0.3, 0.2, 0.0, 0.9, 0.5, 0.6]])
    assert worst_mean(3)(x)[0] == pytest.approx((0.0 + 0.1 + 0.2) / 3)
    # area, K = round(0.25 * 8) = 2: mean of (worst 1, mean of worst 2)
    assert area(0.25)(x)[0] == pytest.approx((0.0 + 0.05) / 2)
    assert GMEAN(x)[0] == pytest.approx(math.exp(np.mean(np.log(x[0] + 0.00001))) - 0.00001)
    assert as_statistic("worst5").name == "worst5"
    with pytest.raises(ValueError):
        as_statistic("median")
