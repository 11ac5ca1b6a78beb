"""Kishida's indicators (Kishida 2005) and the sensitivity functions: worked examples of the report,
properties and agreement with direct recomputation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.kishida import indicators as K
from metaeval.kishida import sensitivity as S

degrees = st.lists(st.integers(0, 3), min_size=1, max_size=12)
binary = st.lists(st.integers(0, 1), min_size=1, max_size=15)


def _ideal_with_extra(x, extra):
    """The ideal list of the list's relevant documents plus ``extra`` unretrieved ones."""
    return np.sort(np.concatenate([np.asarray(x, float), np.asarray(extra, float)]))[::-1]


# ------------------------------------------------------------------ the report's examples
def test_sliding_ratio_examples_sec_4_1_2():
    y = [3, 2, 2, 1]
    A = [1, 2, 3, 0, 0, 0]
    B = [3, 2, 1, 0, 0, 0]
    assert K.sliding_ratio(A, y) == pytest.approx(0.75) and K.sliding_ratio(B, y) == pytest.approx(0.75)
    assert round(float(K.modified_sliding_ratio(A, y)), 2) == 0.61
    assert round(float(K.modified_sliding_ratio(B, y)), 2) == 0.88


def test_ranked_half_life_example_sec_4_1_3():
    x = np.zeros(1000)
    x[[0, 2, 8, 13]] = [0.5, 1.0, 1.0, 0.5]
    assert K.ranked_half_life(x[:14]) == pytest.approx(3.0)
    assert K.ranked_half_life(x) == pytest.approx(3.0)
    x2 = np.zeros(1000)
    x2[[0, 2, 99, 999]] = [0.5, 1.0, 1.0, 0.5]           # "remains unchanged"
    assert K.ranked_half_life(x2) == pytest.approx(3.0)
    assert np.isnan(K.ranked_half_life([0, 0, 0]))
    # grouped-data interpolation inside the median class: half of 4 reached within rank 2's class
    assert K.ranked_half_life([1, 2, 1]) == pytest.approx(1.5)


def test_table1_eq17():
    t = S.table1()
    assert list(t.columns) == ["R", "v", "delta"] and len(t) == 9
    assert t.loc[0, "delta"] == pytest.approx(1 / 101 - 0.1 / 11)


# ------------------------------------------------------------------ properties
@settings(max_examples=150, deadline=None)
@given(binary, st.integers(0, 4))
def test_vG_equals_binary_ap(x, extra):
    y = _ideal_with_extra(x, [1] * extra)
    R = int(np.count_nonzero(y))
    assert K.generalized_average_precision(x, y) == pytest.approx(K.average_precision(x, R), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(degrees, st.integers(1, 15))
def test_ideal_ranking_scores_one(x, n):
    y = K.ideal_from_degrees(x)
    if not np.any(y > 0):
        return
    xi = K.fit_length(y, n)                     # the ideal ranking, cut/padded to n
    assert K.modified_sliding_ratio(xi, y) == pytest.approx(1.0)
    assert K.averaged_ndcg(xi, y) == pytest.approx(1.0)
    assert K.averaged_ndcg(xi, y, b=3.0) == pytest.approx(1.0)
    assert K.sliding_ratio(xi, y) == pytest.approx(1.0)
    if n >= len(y):
        for f in (K.generalized_average_precision, K.weighted_average_precision, K.q_measure):
            assert f(xi, y) == pytest.approx(1.0)


@settings(max_examples=150, deadline=None)
@given(degrees, st.lists(st.integers(1, 3), max_size=3))
def test_bounded_in_unit_interval(x, extra):
    y = _ideal_with_extra(x, extra)
    for f in (K.generalized_average_precision, K.weighted_average_precision, K.q_measure,
              K.sliding_ratio, K.modified_sliding_ratio, K.averaged_ndcg, K.generalized_recall):
        v = float(f(x, y))
        assert -1e-12 <= v <= 1 + 1e-12, f.__name__
    assert 0 <= float(K.generalized_precision(x, 3)) <= 1


@settings(max_examples=150, deadline=None)
@given(binary, st.integers(0, 3))
def test_delta_ap_decreasing_eq11(x, extra):
    x = np.asarray(x, float)
    R = int(x.sum()) + extra + 1
    d = S.delta_ap(x, R)
    irr = np.flatnonzero(x == 0)
    for j in irr:                                   # Eq. 11 for consecutive irrelevant ranks
        if j + 1 < len(x) and x[j + 1] == 0:
            assert d[j] > d[j + 1]
    for j in irr:                                   # Eq. 10 = direct recomputation
        x2 = x.copy()
        x2[j] = 1
        assert d[j] == pytest.approx(K.average_precision(x2, R) - K.average_precision(x, R), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(binary, st.integers(0, 3))
def test_delta_new_relevant_eq16_eq17(x, extra):
    x = np.asarray(x, float)
    R = int(x.sum()) + extra
    d = S.delta_ap_new_relevant(x, R)
    v = K.average_precision(x, R)
    for j in np.flatnonzero(x == 0):
        x2 = x.copy()
        x2[j] = 1
        assert d[j] == pytest.approx(K.average_precision(x2, R + 1) - v, abs=1e-12)
        if extra == 0 and not x[j + 1:].any():       # Eq. 17: all relevant documents above j
            assert d[j] == pytest.approx(S.delta_ap_new_relevant_bottom(j + 1, R, v), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(degrees, st.integers(1, 3), st.lists(st.integers(1, 3), max_size=3))
def test_delta_vG_vQ_eq37_eq44(x, g, extra):
    x = np.asarray(x, float)
    y = _ideal_with_extra(np.append(x, g), extra)     # the new document is in the ideal list
    dG = S.delta_generalized_ap(x, y, g)
    dQ = S.delta_q_measure(x, y, g)
    for j in np.flatnonzero(x == 0):
        x2 = x.copy()
        x2[j] = g
        assert dG[j] == pytest.approx(K.generalized_average_precision(x2, y)
                                      - K.generalized_average_precision(x, y), abs=1e-12)
        assert dQ[j] == pytest.approx(K.q_measure(x2, y) - K.q_measure(x, y), abs=1e-12)


# ------------------------------------------------------------------ other definitions
def test_r_precision_and_normalized_recall_precision():
    x = [1, 0, 1, 0, 0]
    assert K.r_precision(x, 2) == pytest.approx(0.5)
    assert K.r_precision(x, 4) == pytest.approx(0.5)
    N = 10
    # ranks 1 and 3 retrieved, R = 2: sum i = 4, ideal 3 -> 1 - 1 / (2 * 8)
    assert K.normalized_recall(x, 2, N) == pytest.approx(1 - 1 / 16)
    lg = np.log
    zp = 1 - (lg(3) - lg(2)) / (lg(10) + lg(9) - lg(2))
    assert K.normalized_precision(x, 2, N) == pytest.approx(zp)
    # a third relevant document not retrieved goes to rank N (worst case)
    assert K.normalized_recall(x, 3, N) == pytest.approx(1 - (1 + 3 + 10 - 6) / (3 * 7))
    assert K.normalized_recall([1, 1, 0], 2, N) == pytest.approx(1.0)
    assert K.normalized_precision([1, 1, 0], 2, N) == pytest.approx(1.0)
    worst = np.zeros(N)
    worst[-2:] = 1
    assert K.normalized_recall(worst, 2, N) == pytest.approx(0.0)
    assert K.normalized_precision(worst, 2, N) == pytest.approx(0.0, abs=1e-12)
    assert K.normalized_recall(np.zeros(5), 2, N) == pytest.approx(0.0)
    with pytest.raises(ValueError):
        K.normalized_recall(x, 2, 3)


def test_q_measure_is_beta1_q_with_level_gains():
    """Eq. 35 == NTCIREVAL's BR-based Q-measure with beta = 1 and gains = degrees (direct formula)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=(50, 20)).astype(float)
    y = np.sort(rng.integers(1, 4, size=25))[::-1].astype(float)
    r = np.arange(1, 21)
    cg, cgI = np.cumsum(x, axis=1), np.cumsum(K.fit_length(y, 20))
    count = np.cumsum(x > 0, axis=1)
    br = (cg + count) / (cgI + r)
    q = ((x > 0) * br).sum(axis=1) / 25
    assert np.allclose(K.q_measure(x, y), q, atol=1e-14)


def test_generalized_precision_recall_and_dcg():
    x = [3, 0, 1, 2]
    assert K.generalized_precision(x, 3) == pytest.approx((1 + 1 / 3 + 2 / 3) / 4)
    assert K.generalized_recall(x, [3, 2, 2, 1]) == pytest.approx(6 / 8)
    d = K.dcg([1, 1, 1, 1], b=2)
    assert d == pytest.approx([1, 2, 2 + 1 / np.log2(3), 2 + 1 / np.log2(3) + 0.5])
    d3 = K.dcg([1, 1, 1, 1], b=3)          # ranks 1, 2 < b undiscounted
    assert d3 == pytest.approx([1, 2, 3, 3 + 1 / (np.log(4) / np.log(3))])
    with pytest.raises(ValueError):
        K.dcg([1, 0], b=1.0)


def test_broadcasting_and_no_mutation():
    rng = np.random.default_rng(0)
    x = rng.integers(-2, 4, size=(3, 4, 30)).astype(np.int8)
    deg = K.degrees_from_levels(x)
    assert deg.min() == 0 and x.min() < 0
    y = np.sort(rng.integers(0, 4, size=(4, 9)), axis=1)[:, ::-1].astype(float)
    x0, y0 = deg.copy(), y.copy()
    for f in (K.generalized_average_precision, K.weighted_average_precision, K.q_measure,
              K.sliding_ratio, K.modified_sliding_ratio, K.averaged_ndcg, K.generalized_recall):
        out = f(deg, y)
        assert out.shape == (3, 4)
        for t in range(4):
            assert out[1, t] == pytest.approx(float(f(deg[1, t], y[t])))
    assert np.array_equal(deg, x0) and np.array_equal(y, y0)


def test_no_relevant_documents_score_zero():
    for f in (K.generalized_average_precision, K.weighted_average_precision, K.q_measure,
              K.sliding_ratio, K.modified_sliding_ratio, K.averaged_ndcg, K.generalized_recall):
        assert float(f([0, 0, 1], [0, 0])) == 0.0
    assert float(K.average_precision([1, 0], 0)) == 0.0


def test_ranked_half_life_of_empty_lists_is_nan_not_an_error():
    from metaeval.kishida.indicators import ranked_half_life

    out = ranked_half_life(np.zeros((2, 3, 0)))
    assert out.shape == (2, 3) and np.isnan(out).all()
