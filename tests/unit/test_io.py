"""Ingest round trips: qrels and runs in every form -> Collection arrays."""

from __future__ import annotations

import gzip
import re
import warnings

import numpy as np
import pytest

from metaeval.collection import PAD, UNJUDGED, Collection
from metaeval.errors import InputWarning
from metaeval.io import expand_runs, load_collection, load_or_build, read_qrels, read_rel, run_name

from conftest import DL19, WWW4

U, P = UNJUDGED, PAD

NTCIR_QRELS = """\
T1 d1 L2
T1 d2 L0
T1 d3 L1

T2 d1 L1
T2 d9 L0
"""

TREC_QRELS = """\
T1 0 d1 2
T1 0 d2 -1
T1 0 d3 1
T2 0 d1 1
T2 0 d9 0
"""

RUN_A = """\
T1 Q0 d3 1 3.0 A
T1 Q0 dx 2 2.0 A
T1 Q0 d1 3 1.0 A
T2 Q0 d9 1 5.0 A
T2 Q0 d1 2 4.0 A
"""


def write(path, text, gz=False):
    path.parent.mkdir(parents=True, exist_ok=True)
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


@pytest.fixture
def files(tmp_path):
    q = write(tmp_path / "qrels.txt", NTCIR_QRELS)
    a = write(tmp_path / "runs" / "A.run", RUN_A)
    b = write(tmp_path / "runs" / "B.run.gz", "T2 Q0 d1 1 1 B\nT1 Q0 d2 1 9 B\n", gz=True)
    return tmp_path, q, a, b


def test_ntcir_qrels_and_plain_and_gz_runs(files):
    root, q, a, b = files
    c = load_collection(q, root / "runs", depth=4)
    assert c.topics == ("T1", "T2")
    assert c.runs == ("A", "B")
    assert c.max_level == 2
    assert c.depth == 4
    np.testing.assert_array_equal(c.levels[0], [[1, U, 2, P], [0, 1, P, P]])
    # B lists T2 before T1 in the file: grouping by topic keeps each topic's own line order
    np.testing.assert_array_equal(c.levels[1], [[0, P, P, P], [1, P, P, P]])
    np.testing.assert_array_equal(c.lengths, [[3, 2], [1, 1]])
    np.testing.assert_array_equal(c.level_counts, [[1, 1, 1], [1, 1, 0]])
    assert c.info["order"] == "file" and c.info["depth"] == 4
    assert c.info["runs"]["B"].endswith("B.run.gz")
    assert c.info["qrels"] == [str(q)]


def test_trec_qrels_equal_ntcir_qrels_negative_is_nonrelevant(files, tmp_path):
    root, q, a, b = files
    t = write(tmp_path / "qrels.trec", TREC_QRELS)
    c1 = load_collection(q, [a, b], depth=4)
    c2 = load_collection(t, [a, b], depth=4)
    np.testing.assert_array_equal(c1.levels, c2.levels)
    np.testing.assert_array_equal(c1.level_counts, c2.level_counts)
    qt = read_qrels(t)
    assert qt.form == "trec" and qt["T1"] == {"d1": 2, "d2": 0, "d3": 1}


def test_qrels_object_per_topic_access(files):
    _, q, _, _ = files
    qr = read_qrels(q)
    assert qr.topics == ("T1", "T2")
    assert qr["T2"] == {"d1": 1, "d9": 0}
    assert "T1" in qr and "T3" not in qr
    assert dict(qr.items())["T1"]["d1"] == 2
    np.testing.assert_array_equal(qr.n_relevant, [2, 1])
    assert read_qrels(q, max_level=3).max_level == 3


def test_ntcireval_per_topic_layout(tmp_path, files):
    """qrels DIR/TID/TID.rel and runs DIR/TID/RUN.res give the same collection as the flat files."""
    root, q, a, b = files
    d = tmp_path / "pertopic"
    write(d / "T1" / "T1.rel", "d1 L2\nd2 L0\nd3 L1\n")
    write(d / "T2" / "T2.rel", "d1 L1\nd9 L0\n")
    write(d / "T1" / "A.res", "d3\ndx\nd1\n")
    write(d / "T2" / "A.res", "d9\nd1\n")
    write(d / "T1" / "B.res", "d2\n")
    write(d / "T2" / "B.res", "d1\n")
    flat = load_collection(q, [a, b], depth=4)
    per = load_collection(d, d, depth=4)
    assert per.runs == flat.runs and per.topics == flat.topics
    np.testing.assert_array_equal(per.levels, flat.levels)
    np.testing.assert_array_equal(per.level_counts, flat.level_counts)
    rel = read_rel(d / "T1" / "T1.rel")
    assert rel.topics == ("T1",) and rel["T1"] == {"d1": 2, "d2": 0, "d3": 1}
    cache = tmp_path / "pt.npz"
    load_or_build(d, d, cache, depth=4)
    mtime = cache.stat().st_mtime_ns
    again = load_or_build(d, d, cache, depth=4)                 # per-topic inputs: cache reused
    assert cache.stat().st_mtime_ns == mtime
    np.testing.assert_array_equal(again.levels, flat.levels)


def test_order_score_trec_eval_ties_docid_descending(tmp_path):
    q = write(tmp_path / "q", "1 a L1\n1 b L0\n1 c L2\n1 d L1\n")
    # file order a, b, c, d; scores: d highest, then a/b/c tied
    r = write(tmp_path / "r.run", "1 Q0 a 1 1.0 x\n1 Q0 b 2 1.0 x\n1 Q0 c 3 1.0 x\n1 Q0 d 4 2.5 x\n")
    with pytest.warns(InputWarning, match="not by decreasing score"):   # d's 2.5 after the 1.0s
        f = load_collection(q, r, order="file", depth=4)
    s = load_collection(q, r, order="score", depth=4)
    np.testing.assert_array_equal(f.levels[0, 0], [1, 0, 2, 1])          # a b c d
    np.testing.assert_array_equal(s.levels[0, 0], [1, 2, 0, 1])          # d c b a
    assert s.info["order"] == "score"


def test_order_score_float32_ties_like_trec_eval_9(tmp_path):
    q = write(tmp_path / "q", "1 a L1\n1 b L0\n")
    r = write(tmp_path / "r.run", "1 Q0 a 1 1.000000000001 x\n1 Q0 b 2 1.0 x\n")
    s = load_collection(q, r, order="score", trec_eval_version=9)
    np.testing.assert_array_equal(s.levels[0, 0, :2], [0, 1])             # tie in float32 -> b, a
    d = load_collection(q, r, order="score")                              # trec_eval 10.0: doubles
    np.testing.assert_array_equal(d.levels[0, 0, :2], [1, 0])


def test_order_score_agrees_with_pytrec_eval(tmp_path):
    import pytrec_eval  # test extra: a missing oracle fails, it is not skipped
    rng = np.random.default_rng(7)
    qrels_lines, run_lines, qrels = [], [], {}
    for t in range(12):
        tid = str(100 + t * 37)
        docs = [f"D{k}" for k in rng.permutation(60)[:40]]
        rels = rng.integers(0, 3, size=len(docs))
        qrels[tid] = {}
        for d, r in zip(docs[:25], rels[:25]):
            qrels_lines.append(f"{tid} 0 {d} {r}")
            qrels[tid][d] = int(r)
        scores = rng.integers(0, 6, size=len(docs)) / 2.0          # many ties
        for k, (d, s) in enumerate(zip(docs, scores)):
            run_lines.append(f"{tid} Q0 {d} {k + 1} {s} r")
    qp = write(tmp_path / "qrels", "\n".join(qrels_lines) + "\n")
    rp = write(tmp_path / "run.txt", "\n".join(run_lines) + "\n")
    c = load_collection(qp, rp, order="score")
    run = {}
    for line in run_lines:
        tid, _, d, _, s, _ = line.split()
        run.setdefault(tid, {})[d] = float(s)
    qrels_used = {t: v for t, v in qrels.items() if t in c.topics}
    res = pytrec_eval.RelevanceEvaluator(qrels_used, {"recip_rank", "map"}).evaluate(run)
    for ti, tid in enumerate(c.topics):
        lv = c.levels[0, ti, :c.lengths[0, ti]]
        rel = lv >= 1
        rr = 1.0 / (np.argmax(rel) + 1) if rel.any() else 0.0
        ap = (np.cumsum(rel) / np.arange(1, len(rel) + 1))[rel].sum() / c.n_relevant[ti]
        assert rr == pytest.approx(res[tid]["recip_rank"], abs=1e-12), tid
        assert ap == pytest.approx(res[tid]["map"], abs=1e-12), tid


def test_depth_truncation_after_ordering(tmp_path):
    q = write(tmp_path / "q", "1 a L1\n1 b L1\n1 c L1\n")
    r = write(tmp_path / "r", "1 Q0 a 1 1 x\n1 Q0 b 2 2 x\n1 Q0 c 3 3 x\n")
    with pytest.warns(InputWarning, match="not by decreasing score"):   # NTCIR qrels: file order
        c = load_collection(q, r, depth=2)
    assert c.depth == 2 and c.lengths[0, 0] == 2
    s = load_collection(q, r, order="score", depth=2)
    assert s.lengths[0, 0] == 2
    with pytest.warns(InputWarning, match="not by decreasing score"):
        full = load_collection(q, r, depth=None)
    assert full.depth == 3 and full.lengths[0, 0] == 3


def test_max_level_extends_scale(files):
    root, q, a, b = files
    c = load_collection(q, [a], max_level=3)
    assert c.max_level == 3 and c.level_counts.shape == (2, 4)
    assert c.level_counts[:, 3].sum() == 0


def test_blank_lines_sysdesc_tabs_crlf(tmp_path):
    q = write(tmp_path / "q", "\n1\ta\tL1\r\n\n  1 b   L0 \r\n")
    r = write(tmp_path / "r", "<SYSDESC>a b c d e f</SYSDESC>\n\n1\tQ0\tb\t1\t2\tx\r\n1 Q0 a 2 1 x\n")
    c = load_collection(q, r)
    np.testing.assert_array_equal(c.levels[0, 0, :3], [0, 1, P])


def test_run_names_and_expansion(files):
    root, q, a, b = files
    assert run_name("x/KASYS-CO-REV-6.run.gz") == "KASYS-CO-REV-6"
    assert run_name("a.b.txt") == "a.b"
    assert run_name("R.res") == "R"
    assert [s.name for s in expand_runs(str(root / "runs" / "*"))] == ["A", "B"]
    assert [s.name for s in expand_runs([b, a])] == ["A", "B"]
    assert [s.name for s in expand_runs(root / "runs")] == ["A", "B"]


def test_non_ascii_ids(tmp_path):
    q = write(tmp_path / "q", "話題1 文書α L1\n話題1 文書β L0\n")
    r = write(tmp_path / "r", "話題1 Q0 文書β 1 2 x\n話題1 Q0 文書α 2 1 x\n")
    c = load_collection(q, r)
    assert c.topics == ("話題1",)
    np.testing.assert_array_equal(c.levels[0, 0, :2], [0, 1])


def test_long_ids_and_prefix_ids(tmp_path):
    """Ids sharing long prefixes / differing in length only must not be confused."""
    base = "x" * 40
    q = write(tmp_path / "q", f"1 {base} L1\n1 {base}y L2\n1 {base[:-8]} L0\n")
    r = write(tmp_path / "r", f"1 Q0 {base}y 1 1 x\n1 Q0 {base}yy 2 1 x\n1 Q0 {base[:-8]} 3 1 x\n"
                              f"1 Q0 {base} 4 1 x\n")
    c = load_collection(q, r)
    np.testing.assert_array_equal(c.levels[0, 0, :5], [2, U, 0, 1, P])


def test_cache_round_trip_and_rebuild(tmp_path, files):
    root, q, a, b = files
    cache = tmp_path / "c.npz"
    c1 = load_or_build(q, root / "runs", cache)
    assert cache.exists()
    c2 = Collection.load(cache)
    np.testing.assert_array_equal(c1.levels, c2.levels)
    assert c2.info == c1.info and c2.excluded_topics == c1.excluded_topics
    mtime = cache.stat().st_mtime_ns
    load_or_build(q, root / "runs", cache)                     # up to date: not rewritten
    assert cache.stat().st_mtime_ns == mtime
    import os
    import time
    time.sleep(0.01)
    st = a.stat()
    write(a, RUN_A.replace("T1 Q0 dx", "T1 Q0 d2"))             # other content, OLDER mtime -> rebuilt
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns - 10_000_000_000))
    c3 = load_or_build(q, root / "runs", cache)
    assert c3.levels[0, 0, 1] == 0
    c4 = load_or_build(q, root / "runs", cache, depth=2)      # other depth -> rebuilt
    assert c4.depth == 2


@pytest.mark.shared_data
def test_real_data_header_counts():
    """syslen / jrel / jnonrel of the reference files (WWW4, all runs)."""
    c = load_collection(WWW4 / "qrels.txt", WWW4 / "runs")
    n = 0
    for r, run in enumerate(c.runs):
        for line in open(WWW4 / "reference" / "ntcireval" / f"{run}.nev"):
            m = re.match(r"(\S+) # syslen=(\d+) jrel=(\d+) jnonrel=(\d+)", line)
            if m:
                t = c.topics.index(m[1])
                got = (c.lengths[r, t], c.level_counts[t, 1:].sum(), c.level_counts[t, 0])
                assert got == tuple(map(int, m.groups()[1:])), line
                n += 1
    assert n == len(c.runs) * len(c.topics) == 200


@pytest.mark.shared_data
def test_real_data_topic_order_is_string_order():
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        c = load_collection(DL19 / "qrels.txt", [DL19 / "runs" / "ICT-BERT2.run.gz"], depth=20)
    ref = []
    for line in open(DL19 / "reference" / "ntcireval" / "ICT-BERT2.nev"):
        t = line.split()[0]
        if not ref or ref[-1] != t:
            ref.append(t)
    assert list(c.topics) == ref == sorted(ref)
    assert c.topics[:2] == ("1037798", "104861")


def test_exact_when_document_hashes_collide(tmp_path, monkeypatch):
    """Force every document to the same hash: labels and duplicate detection stay exact."""
    import metaeval.io._text as text_mod

    def const(m):
        return np.zeros(m.shape[0], np.uint64)

    monkeypatch.setattr(text_mod, "hash_rows", const)
    monkeypatch.setenv("METAEVAL_NO_CEXT", "1")     # the patched numpy hash for every id
    q = write(tmp_path / "q", "1 a L1\n1 b L2\n1 c L0\n")
    r = write(tmp_path / "r", "1 Q0 c 1 1 x\n1 Q0 z 2 1 x\n1 Q0 b 3 1 x\n1 Q0 c 4 1 x\n1 Q0 a 5 1 x\n")
    with pytest.warns(InputWarning, match="repeated"):
        c = load_collection(q, r)
    np.testing.assert_array_equal(c.levels[0, 0, :5], [0, U, 2, 1, P])


def test_order_score_long_ids_negative_and_zero_scores(tmp_path):
    q = write(tmp_path / "q", "1 docid-aaaaaaaaaa-2 L1\n1 docid-aaaaaaaaaa-10 L2\n1 z L1\n1 y L2\n")
    r = write(tmp_path / "r", "1 Q0 docid-aaaaaaaaaa-10 1 -1.5 x\n1 Q0 docid-aaaaaaaaaa-2 2 -1.5 x\n"
                              "1 Q0 z 3 0.0 x\n1 Q0 y 4 -0.0 x\n1 Q0 w 5 -2 x\n1 Q0 v 6 7 x\n")
    s = load_collection(q, r, order="score")
    # v(7), then z/y tie at 0 -> z, y (descending), then the -1.5 tie: "...-2" > "...-10" bytewise
    np.testing.assert_array_equal(s.levels[0, 0, :6], [U, 1, 2, 1, 2, U])


def test_exact_when_high_hash_bits_collide(tmp_path, monkeypatch):
    """Equal 32-bit quick-test keys but distinct documents: no spurious repeats."""
    import metaeval.io._text as text_mod
    from metaeval.io._text import hash_rows

    def low(m):
        return hash_rows(m) & np.uint64(0xFFFFFFFF)

    monkeypatch.setattr(text_mod, "hash_rows", low)
    monkeypatch.setenv("METAEVAL_NO_CEXT", "1")     # the patched numpy hash for every id
    q = write(tmp_path / "q", "1 a L1\n1 b L2\n")
    r = write(tmp_path / "r", "1 Q0 b 1 3 x\n1 Q0 c 2 2 x\n1 Q0 a 3 1 x\n")   # file = score order
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputWarning)
        c = load_collection(q, r)
    np.testing.assert_array_equal(c.levels[0, 0, :4], [2, U, 1, P])


def test_parse_float32_equals_c_float_of_atof(tmp_path):
    """The vectorised score parser gives float32(float64(token)) bit for bit, incl. tokens next to
    single-precision rounding midpoints and every non-plain form."""
    from metaeval.io._text import parse_float32, tokenize

    rng = np.random.default_rng(11)
    toks = [repr(float(x)) for x in rng.uniform(-50, 50, 3000)]
    toks += [f"{rng.integers(0, 10**12)}.{rng.integers(0, 10**9)}" for _ in range(2000)]
    f = rng.uniform(0.001, 100, 3000).astype(np.float32)
    mids = (f.astype(np.float64) + np.nextafter(f, np.float32(np.inf)).astype(np.float64)) / 2
    for m, eps in zip(mids, rng.choice([0, 1e-17, -1e-17, 1e-16, -1e-16], size=len(mids))):
        toks.append(repr(float(m + eps * m)))
    toks += ["".join(rng.choice(list("0123456789"), size=k)) for k in rng.integers(1, 26, 500)]
    toks += ["1e5", "-2.5E-3", "inf", "-inf", "0", "-0.0", ".5", "5.", "+.5", "1e400", "-7", "+3.25"]
    p = write(tmp_path / "s", "".join(f"x {t}\n" for t in toks))
    got = parse_float32(tokenize(p, 2, "test"), 1, "score")
    want = np.array([np.float32(float(t)) for t in toks], np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
