"""Runs read and labelled on two cores (``metaeval.io.ingest._read_runs``, ``metaeval.workers.split_map``):
the same collection, bit for bit, the same warnings in the same order and the same first error as
one process gives (``METAEVAL_SERIAL=1``)."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from metaeval.errors import InputError
from metaeval.io import ingest
from metaeval.workers import MISSING, split_map

QRELS = "".join(f"{t} 0 d{d} {(d * 7 + t) % 3}\n" for t in range(1, 6) for d in range(12)) + "6 0 d1 0\n"


def _run(name: str, seed: int, skip_topic: int | None = None, dup: bool = False, bad: bool = False) -> str:
    rng = np.random.default_rng(seed)
    lines = []
    for t in range(1, 6):
        if t == skip_topic:
            continue
        docs = rng.permutation(15)[:10]
        scores = -np.sort(-np.round(rng.random(10), 1))  # descending, ties among rounded scores
        for r, (d, s) in enumerate(zip(docs, scores), 1):
            lines.append(f"{t} Q0 d{d} {r} {s} {name}\n")
    if dup:
        lines.append(lines[0].replace(" 1 ", " 11 ", 1))
    if bad:
        lines.insert(5, "3 Q0 d1 x 0.5 bad\n")
    return "".join(lines)


def _write(tmp_path, specs) -> tuple[str, list[str]]:
    (tmp_path / "qrels").write_text(QRELS)
    paths = []
    for i, kw in enumerate(specs):
        p = tmp_path / f"r{i}.txt"
        p.write_text(_run(f"r{i}", i, **kw))
        paths.append(str(p))
    return str(tmp_path / "qrels"), paths


def _load(qrels, runs, monkeypatch, serial: bool):
    monkeypatch.setattr(ingest, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(ingest, "cores", lambda: 2)
    if serial:
        monkeypatch.setenv("METAEVAL_SERIAL", "1")
    else:
        monkeypatch.delenv("METAEVAL_SERIAL", raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c, entry = ingest.load_collection(qrels, runs, entries=True)
    return c, entry, [str(w.message) for w in caught]


def test_split_map_order_and_missing():
    assert split_map(lambda x: x * x, range(7), 3) == [x * x for x in range(7)]
    parent = os.getpid()

    def fails_forked(x):
        if os.getpid() != parent and x == 5:
            raise ValueError("x")
        return -x

    assert split_map(fails_forked, range(7), 3) == [0, -1, -2, MISSING, MISSING, MISSING, MISSING]
    with pytest.raises(ZeroDivisionError):                 # this process's error: raised, the child ended
        split_map(lambda x: 1 // (x - 1), range(5), 2)


@pytest.mark.parametrize("specs,n_warnings", [
    ([{}, {}, {}, {}], 1),                                 # clean: every run labelled ahead
    ([{}, {"dup": True}, {}, {"skip_topic": 2}], 4),       # warnings in both halves
    ([{"skip_topic": 4}] * 4, 2),                          # a topic no run retrieved: labelled again
])
def test_two_cores_as_one(specs, n_warnings, tmp_path, monkeypatch):
    qrels, runs = _write(tmp_path, specs)
    c1, e1, w1 = _load(qrels, runs, monkeypatch, serial=True)
    c2, e2, w2 = _load(qrels, runs, monkeypatch, serial=False)
    assert w2 == w1
    assert c2.topics == c1.topics and c2.runs == c1.runs
    for a in ("levels", "lengths", "level_counts", "qrels_row", "judged_topic", "judged_docs", "judged_level"):
        np.testing.assert_array_equal(getattr(c2, a), getattr(c1, a))
    np.testing.assert_array_equal(e2, e1)
    assert len(w1) == n_warnings                           # the qrels' own warning first


def test_labelled_ahead_when_clean(tmp_path, monkeypatch):
    qrels, runs = _write(tmp_path, [{}, {}, {}])
    monkeypatch.setattr(ingest, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(ingest, "cores", lambda: 2)
    monkeypatch.delenv("METAEVAL_SERIAL", raising=False)
    from metaeval.io.qrels import read_qrels

    got = ingest._read_runs(read_qrels(qrels), ingest._runs_arg(runs), "score", 1000, 10)
    assert [type(r).__name__ for r in got] == ["_Labelled"] * 3


@pytest.mark.parametrize("bad", [(3,), (0, 3)])
def test_first_error_in_order(bad, tmp_path, monkeypatch):
    qrels, runs = _write(tmp_path, [{"bad": i in bad} for i in range(4)])
    for serial in (True, False):
        with pytest.raises(InputError) as e:
            _load(qrels, runs, monkeypatch, serial)
        assert f"r{bad[0]}.txt:6" in str(e.value)


def test_split_map_beside_threads_stays_here():
    import threading

    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert split_map(lambda x: os.getpid(), range(4), 2) == [os.getpid()] * 4
    finally:
        stop.set()
        t.join()
    assert split_map(lambda x: os.getpid(), range(4), 2)[3] != os.getpid()
