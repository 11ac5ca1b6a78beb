"""metaeval.meta.risk against literal loops of the papers' formulas (Wang et al. 2012; Dinçer,
Macdonald & Ounis 2014, 2016) and scipy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.meta.risk import (RISK_COLUMNS, georisk, risk_based, risk_measures, risk_table, trisk, urisk,
                                zrisk)


def _lit_riskbased(r, b, a):
    return r - b if r >= b else (1 + a) * (r - b)


def _lit_urisk(run, base, a):
    # Wang et al. (2012): (1/c) [sum_wins (r - b) - (1 + a) sum_losses (b - r)]
    c = len(run)
    wins = sum(r - b for r, b in zip(run, base) if r > b)
    losses = sum(b - r for r, b in zip(run, base) if r < b)
    return (wins - (1 + a) * losses) / c


def _lit_trisk(run, base, a):
    # Dinçer et al. (2014): URisk / SE, SE = sample sd of the risk values / sqrt(c)
    vals = [_lit_riskbased(r, b, a) for r, b in zip(run, base)]
    c = len(vals)
    m = sum(vals) / c
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (c - 1))
    t = m / (sd / math.sqrt(c))
    return t, 2 * stats.t.sf(abs(t), c - 1)


def _lit_zrisk(X, j, a):
    # Dinçer et al. (2016), eq. of ZRisk: X is topics x systems
    c, r = len(X), len(X[0])
    S = [sum(X[q][k] for q in range(c)) for k in range(r)]
    T = [sum(X[q][k] for k in range(r)) for q in range(c)]
    N = sum(T)
    total = 0.0
    for q in range(c):
        e = S[j] * T[q] / N
        z = (X[q][j] - e) / math.sqrt(e) if e > 0 else 0.0
        total += z if z >= 0 else (1 + a) * z
    return total


def _lit_georisk(X, j, a):
    c = len(X)
    S = sum(X[q][j] for q in range(c))
    phi = 0.5 * (1 + math.erf(_lit_zrisk(X, j, a) / c / math.sqrt(2)))
    return math.sqrt(S / c * phi)


@pytest.fixture
def small():
    rng = np.random.default_rng(30)
    X = rng.uniform(0, 1, size=(12, 5))
    X[3, :] = 0.0             # a topic every run scores 0 on: e = 0 there
    X[5, 2] = X[5, 0]         # a tie with the baseline (column 0)
    return X


def test_riskbased_is_the_ndeval_macro():
    assert risk_based(0.5, 0.3, 5) == pytest.approx(0.2)
    assert risk_based(0.3, 0.5, 5) == pytest.approx(-1.2)
    assert risk_based(0.4, 0.4, 5) == 0.0
    assert risk_based(0.3, 0.5, 0) == pytest.approx(-0.2)


@pytest.mark.parametrize("a", [0, 1, 5, 10])
def test_urisk_trisk_equal_a_literal_loop(small, a):
    X = small
    u = urisk(X, X[:, 0], a)
    t, p = trisk(X, X[:, 0], a)
    for j in range(1, X.shape[1]):
        assert u[j] == pytest.approx(_lit_urisk(X[:, j], X[:, 0], a), abs=1e-15)
        lt, lp = _lit_trisk(list(X[:, j]), list(X[:, 0]), a)
        assert t[j] == pytest.approx(lt, rel=1e-12)
        assert p[j] == pytest.approx(lp, rel=1e-10)
    # against scipy: the one-sample t test of the risk values
    res = stats.ttest_1samp(risk_based(X[:, 3], X[:, 0], a), 0.0)
    assert t[3] == pytest.approx(res.statistic, rel=1e-13) and p[3] == pytest.approx(res.pvalue, rel=1e-12)
    # the baseline against itself: no risk, t = 0, p = 1
    assert u[0] == 0.0 and t[0] == 0.0 and p[0] == 1.0


@pytest.mark.parametrize("a", [0, 1, 5, 10])
def test_zrisk_georisk_equal_the_papers_formula(small, a):
    X = small
    z, g = zrisk(X, a), georisk(X, a)
    rows = X.tolist()
    for j in range(X.shape[1]):
        assert z[j] == pytest.approx(_lit_zrisk(rows, j, a), rel=1e-12, abs=1e-13)
        assert g[j] == pytest.approx(_lit_georisk(rows, j, a), rel=1e-12)


def test_zrisk_hand_case():
    # 2 topics x 2 runs: S = (3, 1), T = (2, 2), N = 4 -> e = [[1.5, .5], [1.5, .5]]
    X = np.array([[2.0, 0.0], [1.0, 1.0]])
    z00, z10 = 0.5 / math.sqrt(1.5), -0.5 / math.sqrt(1.5)
    z01, z11 = -0.5 / math.sqrt(0.5), 0.5 / math.sqrt(0.5)
    assert zrisk(X, 1).tolist() == pytest.approx([z00 + 2 * z10, 2 * z01 + z11])
    assert zrisk(X, 0).tolist() == pytest.approx([0.0, 0.0], abs=1e-15)
    phi = stats.norm.cdf((z00 + 2 * z10) / 2)
    assert georisk(X, 1)[0] == pytest.approx(math.sqrt(1.5 * phi))


def test_vectorised_over_alphas(small):
    a = [0, 1, 5]
    assert urisk(small, small[:, 1], a).shape == (3, 5)
    for i, av in enumerate(a):
        np.testing.assert_array_equal(urisk(small, small[:, 1], a)[i], urisk(small, small[:, 1], av))
        np.testing.assert_array_equal(zrisk(small, a)[i], zrisk(small, av))
        np.testing.assert_array_equal(georisk(small, a)[i], georisk(small, av))
        np.testing.assert_array_equal(trisk(small, small[:, 1], a)[0][i], trisk(small, small[:, 1], av)[0])


def test_negative_scores_give_nan_zrisk():
    X = np.array([[0.5, -0.1], [0.2, 0.3]])
    assert np.isnan(zrisk(X, 1)).all() and np.isnan(georisk(X, 1)).all()
    assert np.isfinite(urisk(X, X[:, 0], 1)).all()


def test_bad_alpha_rejected(small):
    with pytest.raises(ValueError, match="alpha"):
        urisk(small, small[:, 0], -1)


def test_risk_table_rows_and_values(small):
    runs = ["a", "b", "c", "d", "e"]
    df = pd.DataFrame(small, index=[str(i) for i in range(12)], columns=runs)
    tab = risk_table({"AP": df, "P@10": df * 0.5}, "c", [1, 5])
    assert list(tab.columns) == RISK_COLUMNS
    assert len(tab) == 2 * 2 * 4
    assert tab[tab.metric == "AP"]["run"].tolist() == ["a", "b", "d", "e"] * 2
    row = tab[(tab.metric == "AP") & (tab.run == "e") & (tab.alpha == 5)].iloc[0]
    assert row["urisk"] == pytest.approx(_lit_urisk(small[:, 4], small[:, 2], 5))
    assert row["zrisk"] == pytest.approx(_lit_zrisk(small.tolist(), 4, 5))
    assert row["wins"] == int((small[:, 4] > small[:, 2]).sum())
    assert row["losses"] == int((small[:, 4] < small[:, 2]).sum())
    m = risk_measures(small, 2, [5])
    assert row["georisk"] == m["georisk"][0, 4]
    # zrisk/georisk scale-free in the measure? ZRisk scales with sqrt: x -> x/2 halves N and e
    half = tab[(tab.metric == "P@10") & (tab.run == "e") & (tab.alpha == 5)].iloc[0]
    assert half["zrisk"] == pytest.approx(row["zrisk"] / math.sqrt(2))
    with pytest.raises(ValueError, match="baseline 'zz'"):
        risk_table({"AP": df}, "zz", [1])


def test_risk_matrix_column_means_are_urisk(small):
    from metaeval.meta.risk import risk_matrix

    df = pd.DataFrame(small, index=[f"t{i}" for i in range(12)], columns=list("abcde"))
    rm = risk_matrix(df, "b", 5)
    assert rm.shape == df.shape and list(rm.columns) == list("abcde") and (rm["b"] == 0).all()
    for j, run in enumerate("abcde"):
        assert rm[run].tolist() == [_lit_riskbased(r, b, 5) for r, b in zip(small[:, j], small[:, 1])]
        assert rm[run].mean() == pytest.approx(urisk(small, small[:, 1], 5)[j], abs=1e-15)
    with pytest.raises(ValueError, match="baseline 'z'"):
        risk_matrix(df, "z", 1)
