"""The kishida-* measures in the metric registry: names, conventions, and real data (DL19, WWW-4)
against the official NTCIREVAL output (v_Q vs Q-measure, v_G with binary gains vs AP)."""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np
import pytest

from metaeval.collection import PAD, Collection
from metaeval.kishida import indicators as K
from metaeval.kishida.measures import DEFAULT_N, MEASURE_NAMES
from metaeval.metrics import REGISTRY, evaluate, parse_measure

from conftest import DL19, WWW4

#: the names to put in the DL19 example configuration
DL19_CONFIG_NAMES = ["kishida-vG", "kishida-vSprime", "kishida-vD@10"]


def _collection(lists, level_counts, depth):
    R, T = len(lists), len(level_counts)
    levels = np.full((R, T, depth), PAD, np.int8)
    lengths = np.zeros((R, T), np.int64)
    for r, run in enumerate(lists):
        for t, lst in enumerate(run):
            levels[r, t, :len(lst)] = lst
            lengths[r, t] = len(lst)
    return Collection(topics=tuple(f"t{t}" for t in range(T)), runs=tuple(f"r{r}" for r in range(R)),
                      levels=levels, lengths=lengths, level_counts=np.asarray(level_counts, np.int64))


@pytest.fixture(scope="module")
def small():
    # topic 0: levels L0..L3 counts 5, 1, 1, 1 (ideal 3, 2, 1); topic 1: 4, 2, 0, 1 (ideal 3, 1, 1)
    lists = [[[3, 2, 1, 0, 0], [0, -1, 1, 3, 1]],
             [[0, 0, 1, 2, 3], [1, 0, 0, 0, 0]],
             [[-1, 3, 0, -1, 2], [3, 1, 1, 0, -1]]]
    return _collection(lists, [[5, 1, 1, 1], [4, 2, 0, 1]], depth=5)


def test_names():
    assert set(MEASURE_NAMES) <= set(REGISTRY)
    for name in MEASURE_NAMES:
        assert re.fullmatch(r"kishida-[A-Za-z]+", name), name
        assert "Kishida 2005" in REGISTRY[name].doc
    # distinct file stems on case-insensitive disks: bases equal up to case only if one always has
    # a cutoff and the other never (NTCIREVAL's nRBP@l and ndeval's NRBP)
    by_lower: dict[str, list[str]] = {}
    for n in REGISTRY:
        by_lower.setdefault(n.lower(), []).append(n)
    for names in by_lower.values():
        if len(names) > 1:
            assert len(names) == 2 and {REGISTRY[n].cutoff for n in names} == {"required", "forbidden"}, names
    assert parse_measure("kishida-vD(b=3)@10").name == "kishida-vD(b=3)@10"
    assert parse_measure("kishida-zr(N=1000)").param("N") == 1000
    with pytest.raises(ValueError):
        parse_measure("kishida-Rprec@10")
    with pytest.raises(ValueError):
        parse_measure("kishida-vD(b=1)")


def test_measures_equal_array_functions(small):
    names = ["kishida-vG", "kishida-vW", "kishida-vQ", "kishida-vS", "kishida-vSprime", "kishida-vD",
             "kishida-vD@3", "kishida-gP@5", "kishida-gR", "kishida-RHL", "kishida-Rprec",
             "kishida-zr(N=50)", "kishida-zp(N=50)@4", "kishida-vG(gains=1:1:1)", "kishida-vD(b=3)@4"]
    res = evaluate(small, names)
    ideal = [np.array([3, 2, 1.]), np.array([3, 1, 1.])]
    x = K.degrees_from_levels(small.levels)
    for r in range(3):
        for t in range(2):
            xi, y = x[r, t], ideal[t]
            xn = K.fit_length(xi, DEFAULT_N)         # no cutoff: n = 1000, padded with zeros
            assert res["kishida-vG"][r, t] == pytest.approx(K.generalized_average_precision(xi, y))
            assert res["kishida-vW"][r, t] == pytest.approx(K.weighted_average_precision(xi, y))
            assert res["kishida-vQ"][r, t] == pytest.approx(K.q_measure(xi, y))
            assert res["kishida-vS"][r, t] == pytest.approx(K.sliding_ratio(xi, y))
            assert res["kishida-vSprime"][r, t] == pytest.approx(K.modified_sliding_ratio(xi, y))
            assert res["kishida-vD"][r, t] == pytest.approx(K.averaged_ndcg(xn, y))
            assert res["kishida-vD@3"][r, t] == pytest.approx(K.averaged_ndcg(xi[:3], y))
            assert res["kishida-vD(b=3)@4"][r, t] == pytest.approx(K.averaged_ndcg(xi[:4], y, b=3))
            assert res["kishida-gP@5"][r, t] == pytest.approx(xi.sum() / 3 / 5)
            assert res["kishida-gR"][r, t] == pytest.approx(xi.sum() / y.sum())
            assert res["kishida-Rprec"][r, t] == pytest.approx(K.r_precision(xi, 3))
            assert res["kishida-zr(N=50)"][r, t] == pytest.approx(K.normalized_recall(xi, 3, 50))
            assert res["kishida-zp(N=50)@4"][r, t] == pytest.approx(K.normalized_precision(xi[:4], 3, 50))
            assert res["kishida-vG(gains=1:1:1)"][r, t] == pytest.approx(K.average_precision(xi, 3))
            rhl = res["kishida-RHL"][r, t]
            assert (np.isnan(rhl) and not xi.any()) or rhl == pytest.approx(K.ranked_half_life(xi))
    # the ideal list of topic 0 scores 1 on vS', vD (and v_G, v_Q)
    for name in ("kishida-vSprime", "kishida-vD@5", "kishida-vG", "kishida-vQ"):
        assert evaluate(small, [name])[name][0, 0] == pytest.approx(1.0)
    # the run 32100-like list of topic 0 is pattern 32100 of Tables 3-5; 00123 is run 1
    assert res["kishida-vQ"][1, 0] == pytest.approx(0.5134680134680135)


def test_zr_needs_N(small):
    with pytest.raises(ValueError, match="collection size"):
        evaluate(small, ["kishida-zr"])


# ------------------------------------------------------------------------- real data
def _read_nev(path):
    out = defaultdict(dict)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) == 3 and parts[1].endswith("="):
                out[parts[1][:-1]][parts[0]] = float(parts[2])
    return out


def _check_against_reference(data_dir, gains_ones):
    from metaeval.io import load_collection

    runs = sorted((data_dir / "runs").glob("*.run.gz"))
    c = load_collection(data_dir / "qrels.txt", runs, order="file")      # NTCIREVAL's reference order
    res = evaluate(c, ["kishida-vQ", "kishida-vQ@10", f"kishida-vG(gains={gains_ones})",
                       *DL19_CONFIG_NAMES])
    R = c.n_relevant
    n = 0
    for ri, run in enumerate(c.runs):
        ref = _read_nev(data_dir / "reference" / "ntcireval" / f"{run}.nev")
        for ti, topic in enumerate(c.topics):
            # Eq. 35 == NTCIREVAL Q-measure (beta = 1, gains = levels) on the full list
            assert abs(res["kishida-vQ"][ri, ti] - ref["Q-measure"][topic]) <= 5e-5 + 1e-9, (run, topic)
            # with a cutoff l, NTCIREVAL divides by min(l, R) instead of R
            q10 = res["kishida-vQ@10"][ri, ti] * R[ti] / min(10, R[ti])
            assert abs(q10 - ref["Q@0010"][topic]) <= 5e-5 + 1e-9, (run, topic)
            # v_G with binary degrees == AP
            assert abs(res[f"kishida-vG(gains={gains_ones})"][ri, ti] - ref["AP"][topic]) <= 5e-5 + 1e-9
            n += 1
    for name in DL19_CONFIG_NAMES:
        v = res[name]
        assert v.shape == (len(c.runs), len(c.topics)) and np.isfinite(v).all()
        assert (v >= 0).all() and (v <= 1 + 1e-12).all()
    return n, res


@pytest.mark.shared_data
def test_dl19_against_ntcireval(shared):
    n, res = _check_against_reference(DL19, "1:1:1")
    assert n == 37 * 43
    # the three config measures separate the 37 systems (not constant across runs)
    for name in DL19_CONFIG_NAMES:
        assert np.unique(res[name].mean(axis=1).round(6)).size > 30


@pytest.mark.shared_data
def test_www4_against_ntcireval(shared):
    n, _ = _check_against_reference(WWW4, "1:1")
    assert n == 4 * 50


@pytest.mark.shared_data
def test_dl19_matrices_kendall_bootstrap(shared, tmp_path):
    """The DL19 configuration's Kishida measures go through ``metaeval matrices`` and
    get rows in the Kendall and paired-bootstrap results like any other measure."""
    from metaeval.cli import main
    from metaeval.meta.bootstrap import paired_bootstrap
    from metaeval.meta.kendall import rank_correlations
    from metaeval.meta.matrices import load_matrices

    out = tmp_path / "matrices"
    names = [*DL19_CONFIG_NAMES, "AP"]
    assert main(["matrices", "--qrels", str(DL19 / "qrels.txt"), "--runs", str(DL19 / "runs"),
                 "--out", str(out), "--gains", "1:2:3", "--metrics", *names, "--quiet"]) == 0
    for name in DL19_CONFIG_NAMES:
        assert (out / f"{name}.csv").is_file()
    mats = load_matrices(out, names)
    tau = rank_correlations(mats, names)
    for name in DL19_CONFIG_NAMES:
        assert ((tau["metric_a"] == name) | (tau["metric_b"] == name)).sum() == len(names) - 1
    assert np.isfinite(tau["tau"]).all()
    for name in DL19_CONFIG_NAMES:
        res = paired_bootstrap(mats[name], B=100, seed=1, metric=name)
        assert res.metric == name and res.n_pairs == 37 * 36 // 2 and np.isfinite(res.asl).all()
