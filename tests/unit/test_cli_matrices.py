"""``metaeval matrices`` and ``metaeval ingest``: CSV layout, exact values, cache paths."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from metaeval.cli import main
from metaeval.collection import Collection
from metaeval.io import load_collection
from metaeval.metrics import evaluate

from conftest import WWW4

QRELS = "T2 d1 L1\nT2 d2 L2\nT10 d1 L1\nT10 d3 L0\nT3 d1 L0\n"
RUNS = {
    "zeta": "T2 Q0 d2 1 3 z\nT2 Q0 d1 2 2 z\nT10 Q0 d3 1 3 z\nT10 Q0 d1 2 2 z\n",
    "alpha": "T10 Q0 d1 1 3 a\nT2 Q0 d9 1 3 a\nT2 Q0 d1 2 1 a\n",
}


@pytest.fixture
def data(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text(QRELS)
    d = tmp_path / "runs"
    d.mkdir()
    for name, text in RUNS.items():
        (d / f"{name}.run").write_text(text)
    return q, d


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_matrices_layout_and_exact_values(tmp_path, data):
    q, d = data
    out = tmp_path / "m"
    rc = main(["matrices", "--qrels", str(q), "--runs", str(d), "--out", str(out), "--metrics", "AP",
               "nDCG@10", "Q-measure(beta=0.5)", "--quiet"])
    assert rc == 0
    assert sorted(p.name for p in out.iterdir()) == [".metaeval-manifest.json", "AP.csv", "Q-measure(beta=0.5).csv",
                                                   "nDCG@10.csv", "topics.csv"]
    c = load_collection(q, d)
    v = evaluate(c, ["AP", "nDCG@10", "Q-measure(beta=0.5)"])
    for name, mat in v.items():
        rows = read_csv(out / f"{name}.csv")
        assert rows[0] == ["topic", "alpha", "zeta"]                 # runs sorted by name
        assert [r[0] for r in rows[1:]] == ["T10", "T2"]              # topics in string order
        got = np.array([[float(x) for x in r[1:]] for r in rows[1:]]).T
        np.testing.assert_array_equal(got, mat)                       # repr round trip: exact
    assert read_csv(out / "topics.csv") == [["topic", "status", "reason"], ["T10", "used", ""],
                                            ["T2", "used", ""],
                                            ["T3", "excluded", "no relevant document in the qrels"]]
    text = (out / "AP.csv").read_bytes()
    assert b"\r" not in text and text.endswith(b"\n")


def test_matrices_unrounded_repr(tmp_path, data):
    q, d = data
    out = tmp_path / "m"
    main(["matrices", "--qrels", str(q), "--runs", str(d), "--out", str(out), "--metrics", "AP", "--quiet"])
    rows = read_csv(out / "AP.csv")
    # zeta on T2: d2 (L2) then d1 (L1): AP = 1; alpha on T2: d9 unjudged, d1 relevant: AP = (1/2)/2
    assert rows[2] == ["T2", "0.25", "1.0"]


def test_default_measures_and_cutoffs(tmp_path, data):
    from metaeval.metrics import ntcir_measures

    q, d = data
    out = tmp_path / "m"
    assert main(["matrices", "--qrels", str(q), "--runs", str(d), "--out", str(out), "--cutoffs", "1,10",
                 "--quiet"]) == 0
    names = {m.name for m in ntcir_measures([1, 10])}
    assert {p.stem for p in out.glob("*.csv")} == names | {"topics"}


def test_ingest_then_matrices_from_collection_equals_direct(tmp_path, data, capsys):
    q, d = data
    npz = tmp_path / "c" / "coll.npz"
    assert main(["ingest", "--qrels", str(q), "--runs", str(d / "*.run"), "--out", str(npz),
                 "--topics-out", str(tmp_path / "c" / "topics.csv")]) == 0
    err = capsys.readouterr().err
    assert "2 runs x 2 topics" in err
    c = Collection.load(npz)
    assert c.runs == ("alpha", "zeta") and c.excluded_topics == ("T3",)
    a, b = tmp_path / "a", tmp_path / "b"
    main(["matrices", "--collection", str(npz), "--out", str(a), "--metrics", "AP", "RR", "--quiet"])
    main(["matrices", "--qrels", str(q), "--runs", str(d), "--out", str(b), "--metrics", "AP", "RR", "--quiet"])
    for f in ("AP.csv", "RR.csv", "topics.csv"):
        assert (a / f).read_bytes() == (b / f).read_bytes()
    assert (tmp_path / "c" / "topics.csv").read_bytes() == (a / "topics.csv").read_bytes()


def test_cache_option_builds_then_reuses(tmp_path, data):
    q, d = data
    cache = tmp_path / "cache.npz"
    args = ["matrices", "--qrels", str(q), "--runs", str(d), "--out", str(tmp_path / "m"), "--metrics",
            "AP", "--cache", str(cache), "--quiet"]
    assert main(args) == 0 and cache.exists()
    mtime = cache.stat().st_mtime_ns
    assert main(args) == 0 and cache.stat().st_mtime_ns == mtime


def test_condensed_and_gains(tmp_path, data):
    q, d = data
    out = tmp_path / "m"
    main(["matrices", "--qrels", str(q), "--runs", str(d), "--out", str(out), "--metrics", "AP",
          "nDCG@10", "--condensed", "--gains", "1:10", "--quiet"])
    c = load_collection(q, d).condensed()
    v = evaluate(c, ["AP", "nDCG@10"], gains=(1, 10))
    rows = read_csv(out / "AP.csv")
    assert rows[2][1] == repr(float(v["AP"][0, 1])) == "0.5"            # alpha T2 condensed: d1 first


@pytest.mark.shared_data
def test_rerun_is_byte_identical(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for o in (a, b):
        main(["matrices", "--qrels", str(WWW4 / "qrels.txt"), "--runs", str(WWW4 / "runs" / "THUIR*"),
              "--out", str(o), "--metrics", "AP", "nDCG@10", "--quiet"])
    for f in ("AP.csv", "nDCG@10.csv", "topics.csv"):
        assert (a / f).read_bytes() == (b / f).read_bytes()


def test_collection_with_qrels_is_usage_error(tmp_path, data):
    q, d = data
    with pytest.raises(SystemExit) as e:
        main(["matrices", "--collection", "x.npz", "--qrels", str(q), "--out", str(tmp_path / "m")])
    assert e.value.code == 2


def test_unreadable_collection_is_input_error(tmp_path, capsys):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    assert main(["matrices", "--collection", str(bad), "--out", str(tmp_path / "m"), "--metrics", "AP"]) == 1
    assert str(bad) in capsys.readouterr().err
    assert not (tmp_path / "m").exists() or not any((tmp_path / "m").iterdir())
