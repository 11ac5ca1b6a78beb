"""Rank correlation beyond Kendall's tau (metaeval.meta.rankcorr): tau-a/b, tau_AP (Yilmaz et al.
2008), tau_AP-a/b (Urbano & Marrero 2017), RBO_EXT and RBO^a/RBO^b (Webber et al. 2010; Corsi &
Urbano 2024), and their bootstrap intervals.

References in this file are plain loops written from the papers' definitions (prefix sets and
pairs counted one by one; tie-breakings enumerated with itertools), never the vectorised code.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.meta.kendall import rank_correlations
from metaeval.meta.rankcorr import (COEFFICIENTS, RANK_CORRELATION_COLUMNS, coefficient_matrices, rank_correlation,
                                    rank_correlation_table, rbo, rbo_a, rbo_b, stage_rank_correlation,
                                    summary_pairs, summary_rank_correlation, tau_a, tau_ap, tau_ap_a, tau_ap_b,
                                    tau_b)
from metaeval.meta.samples import BootstrapSamples

from conftest import DL19

P = 0.9


# ------------------------------------------------------------------ literal references

def order_of(scores):
    """Systems from best to worst; ties broken by position (only used for untied rankings)."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def lit_tau_ap(ref, est):
    """Yilmaz et al. (2008): walk down the estimate; C(i) = systems above rank i in both."""
    o = order_of(est)
    n = len(o)
    total = 0.0
    for i in range(1, n):
        c = sum(1 for j in range(i) if ref[o[j]] > ref[o[i]])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


def lit_rbo_untied(x, y, p=P):
    """RBO_EXT (Webber et al. 2010, Eq. 32) of two untied full rankings of the same systems."""
    ox, oy = order_of(x), order_of(y)
    n = len(ox)
    s = 0.0
    for d in range(1, n + 1):
        s += len(set(ox[:d]) & set(oy[:d])) / d * p ** d
    return (1 - p) / p * s + p ** n


def groups(scores):
    """Tie groups, best first."""
    vals = sorted(set(scores), reverse=True)
    return [[i for i, v in enumerate(scores) if v == val] for val in vals]


def tie_breakings(scores):
    """Every untied score vector consistent with ``scores`` (one per ordering of every tie group)."""
    gs = groups(scores)
    for perms in itertools.product(*(itertools.permutations(g) for g in gs)):
        out = [0.0] * len(scores)
        rank = 0
        for perm in perms:
            for i in perm:
                out[i] = float(len(scores) - rank)
                rank += 1
        yield out


def lit_rbo_w(x, y, p=P):
    """Webber et al.'s treatment of ties: a tie group enters the prefix at its top rank and
    A_d = 2 X_d / (|x_:d| + |y_:d|)."""
    n = len(x)

    def prefix(scores, d):
        out, rank = set(), 0
        for g in groups(scores):
            if rank < d:
                out |= set(g)
            rank += len(g)
        return out

    s = 0.0
    for d in range(1, n + 1):
        a, b = prefix(x, d), prefix(y, d)
        s += 2 * len(a & b) / (len(a) + len(b)) * p ** d
    return (1 - p) / p * s + p ** n


def lit_inclusion(scores, d):
    """P(system within depth d) under a uniform random tie-breaking (Corsi & Urbano 2024)."""
    out, rank = {}, 0
    for g in groups(scores):
        for i in g:
            out[i] = min(1.0, max(0.0, (d - rank) / len(g)))
        rank += len(g)
    return out


def lit_rbo_b(x, y, p=P):
    n = len(x)
    s = 0.0
    for d in range(1, n + 1):
        px, py = lit_inclusion(x, d), lit_inclusion(y, d)
        X = sum(px[i] * py[i] for i in range(n))
        s += X / math.sqrt(sum(v * v for v in px.values()) * sum(v * v for v in py.values())) * p ** d
    return (1 - p) / p * s + p ** n


def lit_tau_ap_b(x, y):
    """Urbano & Marrero (2017) tau_AP-b: mean of the two one-sided versions (walk down each)."""
    def one(ref, est):
        gs = groups(est)
        top = {i: sum(len(g) for g in gs[:k]) for k, g in enumerate(gs) for i in g}   # 0-based top rank
        below = [i for i in range(len(est)) if top[i] > 0]
        if not below:
            return float("nan")
        tot = 0.0
        for i in below:
            c = sum(1 for j in range(len(est)) if top[j] < top[i] and ref[j] > ref[i])
            tot += c / top[i]
        return 2.0 / len(below) * tot - 1.0
    return (one(x, y) + one(y, x)) / 2


def lit_kendall(x, y):
    n = len(x)
    C = D = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            s = np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
            C += s > 0
            D += s < 0
            tx += x[i] == x[j]
            ty += y[i] == y[j]
    n0 = n * (n - 1) // 2
    den = math.sqrt((n0 - tx) * (n0 - ty))
    return (C - D) / n0, ((C - D) / den if den else float("nan"))


# ------------------------------------------------------------------ hand cases

def test_swap_at_top_is_penalised_more_than_at_bottom():
    ref = [5, 4, 3, 2, 1]
    top = [4, 5, 3, 2, 1]
    bottom = [5, 4, 3, 1, 2]
    # Kendall's tau cannot tell them apart ...
    assert tau_a(ref, top) == tau_a(ref, bottom) == pytest.approx(0.8)
    # ... tau_AP can: 1 - 2/(n-1) at the top, 1 - 2/(n-1)^2 at the bottom
    assert tau_ap(ref, top) == pytest.approx(0.5)
    assert tau_ap(ref, bottom) == pytest.approx(1 - 2 / 16)
    assert rbo(ref, top) < rbo(ref, bottom) < 1
    assert rbo(ref, top) == pytest.approx((1 - P) * (0 + P + P**2 + P**3 + P**4) + P**5)


def test_identical_and_reversed():
    x = [0.5, 0.4, 0.3, 0.2, 0.1, 0.05]
    r = rank_correlation(dict(enumerate(x)), dict(enumerate(x)))
    for c in COEFFICIENTS:
        assert r[c] == pytest.approx(1.0, abs=1e-12), c
    rev = x[::-1]
    r = rank_correlation(dict(enumerate(x)), dict(enumerate(rev)))
    for c in ("tau_a", "tau_b", "tau_ap", "tau_ap_a", "tau_ap_b"):
        assert r[c] == pytest.approx(-1.0, abs=1e-12), c
    assert r["rbo"] == pytest.approx(lit_rbo_untied(x, rev))
    # identical rankings with ties: RBO^b and tau-b are 1, RBO^a and tau-a are not
    t = [3, 2, 2, 1]
    assert tau_b(t, t) == pytest.approx(1.0)
    assert tau_a(t, t) == pytest.approx(5 / 6)
    assert rbo_b(t, t) == pytest.approx(1.0)
    assert rbo(t, t) == pytest.approx(1.0)
    assert rbo_a(t, t) < 1.0
    assert tau_ap_b(t, t) == pytest.approx(1.0)
    assert math.isnan(tau_ap_a(t, t))                      # reference has ties


def test_two_systems():
    assert tau_a([1, 0], [0, 1]) == -1 and tau_ap([1, 0], [0, 1]) == -1
    assert rbo([1, 0], [0, 1]) == pytest.approx(P)        # A_1 = 0, A_2 = 1: (1-p) p + p^2
    assert rbo([1, 0], [1, 0]) == pytest.approx(1.0)
    r = rank_correlation({"s1": 1.0, "s2": 0.0}, {"s1": 0.5, "s2": 0.5})
    assert r["tau_a"] == 0 and r["tau_ap_a"] == pytest.approx(0.0)      # (1 + -1) / 2
    for c in ("tau_b", "tau_ap", "tau_ap_b"):                          # one tie group: undefined
        assert math.isnan(r[c]), c
    assert r["rbo_a"] == pytest.approx((1 - P) * (0.5 + P) + P**2)   # E[X_1] = 1/2


REF = [4, 3, 2, 1]                     # A > B > C > D


@pytest.mark.parametrize("est, expected_ap_a", [
    ([2, 2, 1, 0], 2 / 3),             # tie at the top: mean of 1 and 1/3
    ([3, 2, 2, 0], 5 / 6),             # tie in the middle: mean of 1 and 2/3
    ([3, 2, 1, 1], 8 / 9),             # tie at the bottom: mean of 1 and 7/9
])
def test_ties_top_middle_bottom(est, expected_ap_a):
    assert math.isnan(tau_ap(REF, est))
    assert tau_ap_a(REF, est) == pytest.approx(expected_ap_a)
    assert tau_a(REF, est) == pytest.approx(5 / 6)
    assert tau_b(REF, est) == pytest.approx(5 / math.sqrt(30))
    assert tau_ap_b(REF, est) == pytest.approx(lit_tau_ap_b(REF, est))
    assert rbo(REF, est) == pytest.approx(lit_rbo_w(REF, est))
    assert rbo_b(REF, est) == pytest.approx(lit_rbo_b(REF, est))


def test_tie_at_top_by_hand():
    est = [2, 2, 1, 0]                 # (A B) C D
    # tau_AP-b: walking down est, C and D are fully concordant -> 1; walking down REF, B has A
    # above it but not strictly above in est -> 2/3 (0 + 1 + 1) - 1 = 1/3; mean 2/3
    assert tau_ap_b(REF, est) == pytest.approx(2 / 3)
    tail = (1 - P) * (P + P**2 + P**3) + P**4              # depths 2..4 agree fully
    assert rbo_a(REF, est) == pytest.approx((1 - P) * 0.5 + tail)            # E[X_1] = 1/2
    assert rbo_b(REF, est) == pytest.approx((1 - P) * 0.5 / math.sqrt(0.5) + tail)
    assert rbo(REF, est) == pytest.approx((1 - P) * 2 / 3 + tail)            # 2*1 / (1 + 2)


def test_ordering_matters_only_for_tau_ap_and_tau_ap_a():
    x = [0.9, 0.7, 0.6, 0.3, 0.2, 0.1]
    y = [0.6, 0.9, 0.2, 0.7, 0.1, 0.3]
    assert tau_ap(x, y) == pytest.approx(lit_tau_ap(x, y))
    assert tau_ap(y, x) == pytest.approx(lit_tau_ap(y, x))
    assert tau_ap(x, y) != pytest.approx(tau_ap(y, x))
    for f in (tau_a, tau_b, tau_ap_b, rbo, rbo_a, rbo_b):
        assert f(x, y) == f(y, x)


def test_urbano_marrero_published_values():
    """The worked values of Urbano's ircor R package (tests of tauAP, tauAP_a, tauAP_b), 4 decimals."""
    sets = [
        ([0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
         [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
         [0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
         [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
         (.8519, .7454, .8333, .7321)),
        ([0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
         [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
         [0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
         [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
         (.2504, .2692, .2880, .2970)),
        ([0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
         [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
         [0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
         [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
         (-.6971, -.5558, -.6680, -.7047)),
    ]
    for x, y, xt, yt, (ap, ap_a_ties, ap_b, ap_b_ties) in sets:
        assert tau_ap(x, y) == pytest.approx(ap, abs=5e-5)
        assert tau_ap_a(x, y) == pytest.approx(ap, abs=5e-5)
        assert tau_ap_a(x, yt) == pytest.approx(ap_a_ties, abs=5e-5)
        assert tau_ap_b(x, y) == pytest.approx(ap_b, abs=5e-5)
        assert tau_ap_b(xt, yt) == pytest.approx(ap_b_ties, abs=5e-5)
        assert tau_ap_b(yt, xt) == pytest.approx(ap_b_ties, abs=5e-5)


# ------------------------------------------------------------------ brute force

small_ties = st.lists(st.integers(0, 3), min_size=2, max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_tau_ap_a_is_mean_of_tau_ap_over_tie_breakings(data):
    n = data.draw(st.integers(2, 6))
    ref = data.draw(st.permutations(range(n)))
    est = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    vals = [lit_tau_ap(ref, e) for e in tie_breakings(est)]
    assert tau_ap_a(ref, est) == pytest.approx(sum(vals) / len(vals), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_rbo_a_is_mean_of_rbo_over_pairs_of_tie_breakings(data):
    """Corsi & Urbano's RBO^a is the expected RBO when the ties of *both* rankings are broken
    uniformly at random and independently: checked against the mean over every pair."""
    n = data.draw(st.integers(2, 5))
    x = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    y = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    vals = [lit_rbo_untied(bx, by) for bx in tie_breakings(x) for by in tie_breakings(y)]
    assert rbo_a(x, y) == pytest.approx(sum(vals) / len(vals), abs=1e-12)
    assert rbo_a(x, y) <= rbo_b(x, y) + 1e-12


@settings(max_examples=60, deadline=None)
@given(small_ties, st.data())
def test_against_literal_definitions(x, data):
    y = data.draw(st.lists(st.integers(0, 3), min_size=len(x), max_size=len(x)))
    ta, tb = lit_kendall(x, y)
    r = rank_correlation(dict(enumerate(x)), dict(enumerate(y)))
    assert r["tau_a"] == pytest.approx(ta, abs=1e-12)
    assert (math.isnan(tb) and math.isnan(r["tau_b"])) or r["tau_b"] == pytest.approx(tb, abs=1e-12)
    tab = lit_tau_ap_b(x, y)
    assert (math.isnan(tab) and math.isnan(r["tau_ap_b"])) or r["tau_ap_b"] == pytest.approx(tab, abs=1e-12)
    assert r["rbo"] == pytest.approx(lit_rbo_w(x, y), abs=1e-12)
    assert r["rbo_b"] == pytest.approx(lit_rbo_b(x, y), abs=1e-12)
    assert math.isnan(r["tau_ap"]) == (len(set(x)) < len(x) or len(set(y)) < len(y))
    assert math.isnan(r["tau_ap_a"]) == (len(set(x)) < len(x))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_without_ties_variants_agree(data):
    n = data.draw(st.integers(2, 9))
    x = data.draw(st.permutations(range(n)))
    y = data.draw(st.permutations(range(n)))
    r = rank_correlation(dict(enumerate(x)), dict(enumerate(y)))
    assert r["tau_ap"] == pytest.approx(lit_tau_ap(x, y), abs=1e-12)
    assert r["tau_ap_a"] == pytest.approx(r["tau_ap"], abs=1e-12)
    assert r["tau_ap_b"] == pytest.approx((lit_tau_ap(x, y) + lit_tau_ap(y, x)) / 2, abs=1e-12)
    assert r["tau_a"] == r["tau_b"]
    assert r["rbo"] == pytest.approx(lit_rbo_untied(x, y), abs=1e-12)
    assert r["rbo_a"] == pytest.approx(r["rbo"], abs=1e-12)
    assert r["rbo_b"] == pytest.approx(r["rbo"], abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=12), st.data(),
       st.floats(0.05, 0.99))
def test_ranges_and_symmetry(x, data, p):
    y = data.draw(st.lists(st.floats(-1, 1, allow_nan=False), min_size=len(x), max_size=len(x)))
    xs, ys = dict(enumerate(x)), dict(enumerate(y))
    r, s = rank_correlation(xs, ys, rbo_p=p), rank_correlation(ys, xs, rbo_p=p)
    for c in COEFFICIENTS:
        v = r[c]
        if math.isnan(v):
            continue
        lo = 0.0 if c.startswith("rbo") else -1.0
        assert lo <= v <= 1.0, (c, v)
    for c in ("tau_a", "tau_b", "tau_ap_b", "rbo", "rbo_a", "rbo_b"):
        assert (math.isnan(r[c]) and math.isnan(s[c])) or r[c] == s[c], c


def test_float_noise_is_not_a_tie_breaker():
    a = [0.3 + 0.04 - 0.2, 0.14, 0.5]                     # 0.14000000000000001 vs 0.14: a tie
    assert math.isnan(tau_ap(a, [1, 2, 3]))
    assert tau_a(a, [1, 2, 3]) == pytest.approx(tau_a([0.14, 0.14, 0.5], [1, 2, 3]))


# ------------------------------------------------------------------ API and validation

def test_rank_correlation_api():
    x = pd.Series({"r1": 0.3, "r2": 0.2, "r3": 0.1})
    y = {"r3": 0.05, "r2": 0.5, "r1": 0.6}                 # order of keys does not matter
    r = rank_correlation(x, y)
    assert list(r) == list(COEFFICIENTS)
    assert r["tau_a"] == 1.0 and r["rbo"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="same systems.*only in x_scores: \\['r4'\\]"):
        rank_correlation({**x.to_dict(), "r4": 0.0}, y)
    with pytest.raises(ValueError, match="not finite"):
        rank_correlation({"a": 1.0, "b": float("nan")}, {"a": 1.0, "b": 0.0})
    with pytest.raises(ValueError, match="at least 2 systems"):
        rank_correlation({"a": 1.0}, {"a": 1.0})
    with pytest.raises(ValueError, match="rbo_p"):
        rank_correlation(x, y, rbo_p=1.0)
    with pytest.raises(TypeError, match="mapping or a pandas Series"):
        rank_correlation([1, 2], [2, 1])
    with pytest.raises(ValueError, match="twice"):
        rank_correlation(pd.Series([1.0, 2.0], index=["a", "a"]), {"a": 1.0})


def _random_matrices(n_metrics=4, topics=12, runs=7, seed=3):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 1, runs)
    return {f"m{k}": pd.DataFrame(np.round(np.clip(base + rng.normal(0, 0.3, (topics, runs)), 0, 1), 1),
                                  index=[f"q{i}" for i in range(topics)],
                                  columns=[f"r{j}" for j in range(runs)]) for k in range(n_metrics)}


def test_table_columns_rows_and_bootstrap_reference():
    mats = _random_matrices()
    out = stage_rank_correlation(mats, list(mats), B=40, seed=7)
    df = out["rank_correlation"]
    assert list(out) == ["rank_correlation"]
    assert list(df.columns) == RANK_CORRELATION_COLUMNS
    assert list(zip(df.metric_a, df.metric_b)) == [(a, b) for a in mats for b in mats if a != b]
    # point estimates: the coefficients of the run means
    for rec in df.to_dict("records"):
        ma = mats[rec["metric_a"]].mean(axis=0)
        mb = mats[rec["metric_b"]].mean(axis=0)
        ref = rank_correlation(ma, mb)
        for c in COEFFICIENTS:
            assert (math.isnan(ref[c]) and math.isnan(rec[c])) or rec[c] == pytest.approx(ref[c], abs=1e-12)
    # intervals: a plain loop over the samples and the pairs
    smp = BootstrapSamples.from_seed(7, 12, 40, "paired")
    a, b = "m1", "m3"
    vals = {c: [] for c in COEFFICIENTS}
    for row in smp.indices:
        ra = mats[a].to_numpy()[row].mean(axis=0)
        rb = mats[b].to_numpy()[row].mean(axis=0)
        r = rank_correlation(dict(enumerate(ra)), dict(enumerate(rb)))
        for c in COEFFICIENTS:
            vals[c].append(r[c])
    rec = df[(df.metric_a == a) & (df.metric_b == b)].iloc[0]
    for c in COEFFICIENTS:
        v = np.array(vals[c])
        if math.isnan(rec[c]):
            assert math.isnan(rec[f"{c}_low"]) and math.isnan(rec[f"{c}_high"])
            continue
        v = v[np.isfinite(v)]
        assert rec[f"{c}_low"] == pytest.approx(np.percentile(v, 2.5), abs=1e-12), c
        assert rec[f"{c}_high"] == pytest.approx(np.percentile(v, 97.5), abs=1e-12), c


def test_batch_invariance_and_symmetric_columns():
    mats = _random_matrices(n_metrics=3, topics=20, runs=9, seed=11)
    full = rank_correlation_table(mats, B=600, seed=1)
    small = rank_correlation_table(mats, B=600, seed=1, batch=1)
    pd.testing.assert_frame_equal(full, small, check_exact=True)
    idx = {(a, b): i for i, (a, b) in enumerate(zip(full.metric_a, full.metric_b))}
    for (a, b), i in idx.items():
        j = idx[(b, a)]
        for c in ("tau_a", "tau_b", "tau_ap_b", "rbo", "rbo_a", "rbo_b"):
            for col in (c, f"{c}_low", f"{c}_high"):
                x, y = full.at[i, col], full.at[j, col]
                assert (math.isnan(x) and math.isnan(y)) or x == y, (col, a, b)


def test_table_validation_and_empty():
    mats = _random_matrices(n_metrics=2)
    assert list(stage_rank_correlation({"m0": mats["m0"]}, ["m0"], B=10, seed=1)["rank_correlation"].columns) \
        == RANK_CORRELATION_COLUMNS
    assert len(stage_rank_correlation(mats, ["m0", "zz"], B=10, seed=1)["rank_correlation"]) == 0
    bad = dict(mats, m1=mats["m1"].drop(columns="r0"))
    with pytest.raises(ValueError, match="m1: runs differ"):
        rank_correlation_table(bad, B=10, seed=1)
    bad = dict(mats, m1=mats["m1"].drop(index="q0"))
    with pytest.raises(ValueError, match="m1: topics differ"):
        rank_correlation_table(bad, B=10, seed=1)
    with pytest.raises(ValueError, match="no matrix"):
        rank_correlation_table(mats, ["m0", "zz"], B=10, seed=1)
    with pytest.raises(ValueError, match="B and seed"):
        rank_correlation_table(mats)
    # reordered topics/runs are aligned by name
    shuffled = dict(mats, m1=mats["m1"].iloc[::-1, ::-1])
    pd.testing.assert_frame_equal(rank_correlation_table(mats, B=30, seed=2),
                                  rank_correlation_table(shuffled, B=30, seed=2))


def test_summary_pieces():
    mats = _random_matrices(n_metrics=3)
    t1 = rank_correlation_table(mats, B=20, seed=1)
    t2 = rank_correlation_table({k: v.iloc[:8] for k, v in mats.items()}, B=20, seed=1)
    sp = summary_pairs(t1)
    assert list(sp.columns) == ["metric_a", "metric_b", "tau_ap_b", "rbo_a"]
    assert list(zip(sp.metric_a, sp.metric_b)) == [("m0", "m1"), ("m0", "m2"), ("m1", "m2")]
    s = summary_rank_correlation({"c1": t1, "c2": t2, "c3": None})
    assert list(s.columns) == ["metric_a", "metric_b", "coefficient", "c1", "c2", "c3"]
    assert len(s) == 6 and s["c3"].isna().all()
    row = s[(s.metric_a == "m0") & (s.metric_b == "m2") & (s.coefficient == "rbo_a")].iloc[0]
    assert row["c1"] == t1[(t1.metric_a == "m0") & (t1.metric_b == "m2")]["rbo_a"].iloc[0]


def test_coefficient_matrices_shape():
    M = np.random.default_rng(0).uniform(size=(5, 3, 8))
    out = coefficient_matrices(M)
    assert set(out) == set(COEFFICIENTS)
    for c, v in out.items():
        assert v.shape == (5, 3, 3), c
    assert out["tau_ap"][2, 0, 1] == pytest.approx(lit_tau_ap(list(M[2, 0]), list(M[2, 1])))


def test_tie_groups_are_the_pairwise_counts():
    """Top ranks and tie-group sizes by one sort equal the pairwise comparisons counted."""
    from metaeval.meta.rankcorr import _tie_groups

    rng = np.random.default_rng(3)
    M = rng.integers(0, 6, size=(4, 3, 17)).astype(float)
    M[0, 0] = -0.0                                          # -0.0 and 0.0 tie
    M[0, 0, ::2] = 0.0
    t, g = _tie_groups(M)
    assert np.array_equal(t, (M[..., None, :] > M[..., :, None]).sum(axis=-1))
    assert np.array_equal(g, (M[..., None, :] == M[..., :, None]).sum(axis=-1))
    with pytest.raises(ValueError, match="not finite"):
        coefficient_matrices(np.array([[[1.0, np.nan], [0.0, 1.0]]]))


def test_each_entry_depends_on_its_two_rankings_only():
    """Rankings stacked with tied and untied ones (only the tied rows of the tie-aware Gram matrix
    are computed): every entry is, to the bit, that of the two rankings alone."""
    rng = np.random.default_rng(11)
    M = rng.normal(size=(3, 6, 23))
    M[:, 1] = np.round(M[:, 1], 0)                          # tied rankings among untied ones
    M[0, 4, :5] = M[0, 4, 5]
    M[2, 3] = rng.integers(0, 3, 23)
    whole = coefficient_matrices(M)
    for i, j in itertools.product(range(6), repeat=2):
        alone = coefficient_matrices(M[:, [i, j]])
        for c in COEFFICIENTS:
            a, b = whole[c][:, i, j], alone[c][:, 0, 1]
            assert np.array_equal(a, b, equal_nan=True), (c, i, j)


# ------------------------------------------------------------------ TREC DL19

PAPER_METRICS = ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "nDCG@1000", "nCG@1000",
                 "Prec@1000"]


@pytest.fixture(scope="module")
def dl19():
    from conftest import require_data

    require_data(DL19)
    import metaeval.metrics  # noqa: F401
    from conftest import dl19_collection
    from metaeval.meta import select_top_runs
    from metaeval.metrics.evaluate import evaluate

    c = dl19_collection()
    res = evaluate(c, PAPER_METRICS, gains=(1, 2, 3))
    mats = {m: pd.DataFrame(v.T, index=list(c.topics), columns=list(c.runs)) for m, v in res.items()}
    top = select_top_runs(mats["AP"], 30)
    return {m: df[top] for m, df in mats.items()}


def test_dl19_table(dl19):
    df = rank_correlation_table(dl19, PAPER_METRICS, B=1000, seed=20070101)
    assert len(df) == len(PAPER_METRICS) * (len(PAPER_METRICS) - 1)
    # tau_a is the existing Kendall table's tau (tau-a), exactly
    k = rank_correlations(dl19, PAPER_METRICS, "a")
    kt = {(a, b): t for a, b, t in zip(k.metric_a, k.metric_b, k.tau)}
    for a, b, t in zip(df.metric_a, df.metric_b, df.tau_a):
        assert t == kt.get((a, b), kt.get((b, a)))
    kb = rank_correlations(dl19, PAPER_METRICS, "b")
    kbt = {(a, b): t for a, b, t in zip(kb.metric_a, kb.metric_b, kb.tau)}
    for a, b, t in zip(df.metric_a, df.metric_b, df.tau_b):
        assert t == pytest.approx(kbt.get((a, b), kbt.get((b, a))), abs=1e-15)
    # every defined coefficient has a defined interval that contains it
    for c in COEFFICIENTS:
        v, lo, hi = df[c].to_numpy(), df[f"{c}_low"].to_numpy(), df[f"{c}_high"].to_numpy()
        ok = np.isfinite(v)
        assert np.array_equal(ok, np.isfinite(lo)) and np.array_equal(ok, np.isfinite(hi)), c
        assert np.all(lo[ok] <= v[ok] + 1e-12) and np.all(v[ok] <= hi[ok] + 1e-12), \
            (c, df.loc[~((lo <= v + 1e-12) & (v <= hi + 1e-12)) & ok, ["metric_a", "metric_b", c, f"{c}_low", f"{c}_high"]])
    # RR, O-measure, nCG@1000 and Prec@1000 have tied run means on DL19 (e.g. RR of idst_bert_p1,
    # idst_bert_p2 and idst_bert_pr2): tau_AP is defined exactly between the five tie-free metrics,
    # tau_AP-a exactly when the reference is tie-free, tau_AP-b and the RBO variants always
    tie_free = {"P-measure", "P-plus", "AP", "Q-measure", "nDCG@1000"}
    both = np.array([a in tie_free and b in tie_free for a, b in zip(df.metric_a, df.metric_b)])
    ref = np.array([a in tie_free for a in df.metric_a])
    assert np.array_equal(np.isfinite(df["tau_ap"]), both)
    assert np.array_equal(np.isfinite(df["tau_ap_a"]), ref)
    for c in ("tau_a", "tau_b", "tau_ap_b", "rbo", "rbo_a", "rbo_b"):
        assert np.isfinite(df[c]).all(), c
    # between tie-free metrics the tie-aware variants reduce to the originals
    sub = df[both]
    assert np.allclose(sub.tau_ap_a, sub.tau_ap, atol=1e-12, rtol=0)
    assert np.allclose(sub.rbo_a, sub.rbo, atol=1e-12, rtol=0) and np.allclose(sub.rbo_b, sub.rbo, atol=1e-12, rtol=0)
