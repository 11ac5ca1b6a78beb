"""Label agreement between qrels sets (issue 28, section 2): every kappa equals scikit-learn's
``cohen_kappa_score`` and every alpha the ``krippendorff`` package, on the DL19 re-annotation and on
random small cases; confusion counts sum to ``pairs``; the union, conflict and fill policies."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.errors import InputError
from metaeval.io.judgments import read_sets
from metaeval.meta.judgments import agreement_tables, binary_confusion, kappa

sklearn_metrics = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")

FIRST = ["andrew-parry", "ferdinand-schlatt", "guglielmo-faggioli", "saber-zerhoudi"]
SECOND = ["eugene-yang", "froebe", "harry-scells", "sean-macavaney"]


def _check(names, L, item_topic, topics, thr):
    la, ta, conf = agreement_tables(names, L, item_topic, topics, threshold=thr)
    K = int(L.max()) + 1
    labels = list(range(K))
    rows = la[la["qrels_a"] != "all"]
    n_common = sum(((L[i] >= 0) & (L[j] >= 0)).any() for i in range(len(names)) for j in range(i + 1, len(names)))
    assert len(rows) == n_common
    for rec in rows.to_dict("records"):
        a, b = L[names.index(rec["qrels_a"])], L[names.index(rec["qrels_b"])]
        both = (a >= 0) & (b >= 0)
        x, y = a[both], b[both]
        assert rec["pairs"] == both.sum()
        assert rec["topics"] == len(np.unique(item_topic[both]))
        assert rec["agreement"] == pytest.approx(np.mean(x == y), abs=1e-15)
        for col, w in (("kappa", None), ("kappa_linear", "linear"), ("kappa_quadratic", "quadratic")):
            ref = sklearn_metrics.cohen_kappa_score(x, y, labels=labels, weights=w)
            assert rec[col] == pytest.approx(ref, abs=1e-12, nan_ok=True), col
        refb = sklearn_metrics.cohen_kappa_score(x >= thr, y >= thr, labels=[False, True])
        assert rec["kappa_binary"] == pytest.approx(refb, abs=1e-12, nan_ok=True)
        data = np.stack([x, y]).astype(float)
        if len(np.unique(data)) > 1:
            for lvl in ("nominal", "ordinal", "interval"):
                ref = krippendorff.alpha(reliability_data=data, level_of_measurement=lvl)
                assert rec[f"alpha_{lvl}"] == pytest.approx(ref, abs=1e-12), lvl
        cm = conf[(rec["qrels_a"], rec["qrels_b"])]
        assert int(cm.iloc[:, 1:].to_numpy().sum()) == rec["pairs"]
        ref_cm = sklearn_metrics.confusion_matrix(x, y, labels=labels)
        np.testing.assert_array_equal(cm.iloc[:, 1:].to_numpy(), ref_cm)
    last = la.iloc[-1]
    assert (last["qrels_a"], last["qrels_b"]) == ("all", "all")
    data = np.where(L >= 0, L, np.nan).astype(float)
    data = data[:, (L >= 0).sum(axis=0) >= 2]
    assert last["pairs"] == data.shape[1]
    for lvl in ("nominal", "ordinal", "interval"):
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement=lvl)
        assert last[f"alpha_{lvl}"] == pytest.approx(ref, abs=1e-12), lvl
    # per-topic rows: their pairs sum to the pair's, their kappa is sklearn's on the topic
    for rec in ta.sample(min(len(ta), 20), random_state=0).to_dict("records"):
        a, b = L[names.index(rec["qrels_a"])], L[names.index(rec["qrels_b"])]
        sel = (a >= 0) & (b >= 0) & (item_topic == topics.index(rec["topic"]))
        assert rec["pairs"] == sel.sum()
        with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            ref = sklearn_metrics.cohen_kappa_score(a[sel], b[sel], labels=labels)
        assert rec["kappa"] == pytest.approx(ref, abs=1e-12, nan_ok=True)
    tot = ta.groupby(["qrels_a", "qrels_b"])["pairs"].sum()
    for rec in rows.to_dict("records"):
        assert tot[(rec["qrels_a"], rec["qrels_b"])] == rec["pairs"]
    return la


@pytest.mark.parametrize("seed", range(6))
def test_random_small_cases(seed):
    rng = np.random.default_rng(seed)
    S, N, K = int(rng.integers(2, 5)), int(rng.integers(5, 60)), int(rng.integers(2, 5))
    L = rng.integers(0, K, size=(S, N)).astype(np.int8)
    L[rng.random((S, N)) < 0.3] = -1
    L[:, 0] = 0
    L[:, 1] = K - 1                          # every pair has an item in common, every level used
    T = int(rng.integers(1, 4))
    topics = [f"t{i}" for i in range(T)]
    item_topic = np.sort(rng.integers(0, T, size=N)).astype(np.int32)
    _check([f"s{i}" for i in range(S)], L, item_topic, topics, int(rng.integers(1, K)))


def test_chunking_does_not_change_counts():
    from metaeval.meta.judgments import pair_counts

    rng = np.random.default_rng(3)
    L = rng.integers(-1, 4, size=(4, 1000)).astype(np.int8)
    it = np.sort(rng.integers(0, 7, size=1000))
    a = pair_counts(L, it, 7, 4)
    b = pair_counts(L, it, 7, 4, chunk_cells=17)
    np.testing.assert_array_equal(a.per_topic, b.per_topic)
    np.testing.assert_array_equal(a.by_m, b.by_m)


def test_kappa_binary_collapse():
    C = np.array([[5, 1, 0], [2, 3, 1], [0, 1, 4]])
    np.testing.assert_array_equal(binary_confusion(C, 2), [[11, 1], [1, 4]])
    assert np.isnan(kappa(np.array([[3, 0], [0, 0]])))


@pytest.mark.shared_data
def test_dl19_reannotation(shared_data):
    d = shared_data / "trec-dl19-passage" / "reannotation"
    sets = {"nist": [str(shared_data / "trec-dl19-passage" / "qrels.txt")]}
    sets.update({n: [str(d / f"{n}.txt")] for n in FIRST + SECOND})
    js = read_sets(sets)
    names = list(js.names)
    from metaeval.errors import InputWarning

    # annotators of different groups judged no pair in common: the warning says how many pairs are left out
    with pytest.warns(InputWarning, match="22 pair"):
        la = _check(names, js.labels, js.item_topic, list(js.topics), 2)
    # the README's pooled numbers: the eight files against NIST
    nist = js.labels[0]
    x, y = [], []
    for n in FIRST + SECOND:
        lab = js.labels[names.index(n)]
        both = (lab >= 0) & (nist >= 0)
        x.append(nist[both])
        y.append(lab[both])
    x, y = np.concatenate(x), np.concatenate(y)
    assert round(sklearn_metrics.cohen_kappa_score(x, y), 3) == 0.112
    # every re-annotator against NIST; pairs of annotators of different groups with no pair in common: no row
    assert (la["qrels_a"] == "nist").sum() == 8
    assert ((la["qrels_a"] == "andrew-parry") & (la["qrels_b"] == "eugene-yang")).sum() == 1


@pytest.mark.shared_data
def test_dl19_union_conflict_and_fill(shared_data, tmp_path):
    d = shared_data / "trec-dl19-passage" / "reannotation"
    first = [str(d / f"{n}.txt") for n in FIRST]
    both = [str(d / "saber-zerhoudi.txt"), str(d / "sean-macavaney.txt")]
    with pytest.raises(InputError) as e:
        read_sets({"pair": both})                    # the two members of a pair disagree
    msg = str(e.value)
    assert "saber-zerhoudi.txt:861" in msg and "sean-macavaney.txt:861" in msg and "3167284" in msg
    assert "pair" in msg and "\n" not in msg
    read_sets({"first": first})                      # the first members judged disjoint pairs
    js = read_sets({"first": first, "nist": str(shared_data / "trec-dl19-passage" / "qrels.txt")},
                   on_conflict="max", fill={"hybrid": "first+nist"})
    f, n, h = js.labels
    np.testing.assert_array_equal(h, np.where(f >= 0, f, n))
    # max: the highest label any of the files gives the shared topic's pairs
    lo = read_sets({"pair": both}, on_conflict="min").labels[0]
    hi = read_sets({"pair": both}, on_conflict="max").labels[0]
    assert (lo <= hi).all() and (lo < hi).any()
    assert len(js.topics) == 43


def test_conflict_between_files_names_both(tmp_path):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("1 0 d1 1\n1 0 d2 0\n")
    b.write_text("1 0 d2 0\n1 0 d1 2\n")
    with pytest.raises(InputError) as e:
        read_sets({"x": [str(a), str(b)]})
    msg = str(e.value)
    assert f"{a}:1" in msg and f"{b}:2" in msg and "d1" in msg and "topic 1" in msg
    js = read_sets({"x": [str(a), str(b)]}, on_conflict="first")
    assert js.labels.tolist() == [[1, 0]]
    js = read_sets({"x": [str(a), str(b)]}, on_conflict="max")
    assert js.labels.tolist() == [[2, 0]]


def test_one_set_has_no_rows():
    la, ta, conf = agreement_tables(["only"], np.array([[0, 1, 2]], np.int8), np.array([0, 0, 1]), ["a", "b"])
    assert len(la) == 0 and len(ta) == 0 and conf == {}
    assert list(la.columns)[:3] == ["qrels_a", "qrels_b", "topics"]
