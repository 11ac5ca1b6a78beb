"""The optional C run scanner (``metaeval.treceval._trecscan``) against the numpy reader it replaces.

``rank_run_file`` must give exactly what ``_rank_one(q, read_trec_run(path, q.topic_bytes), ...)``
gives (rel, num_ret, present, run id), for every option (-M, -J, -c, version 9), or decline (None)
so that the numpy reader runs -- and then raise the very same InputError.  The C tests are skipped
when the extension is not built, and fail instead when the environment variable CI is set.
"""

from __future__ import annotations

import math
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DL19, in_ci
from metaeval.errors import InputError
from metaeval.treceval import ranking as tr
from metaeval.treceval import reader as te
from metaeval.cnum import c_atof

ROOT = Path(__file__).resolve().parents[2]


def _ext():
    try:
        from metaeval.treceval import _trecscan
    except ImportError:
        return None
    return _trecscan


EXT = _ext()


@pytest.fixture(scope="module")
def cext():
    """The built extension; skipped when absent, a failure when CI is set."""
    if EXT is None:
        reason = ("metaeval.treceval._trecscan is not built (no C compiler at install time?): "
                  "pip install -e . builds it")
        if in_ci():
            pytest.fail(f"{reason} [required because CI is set]", pytrace=False)
        pytest.skip(reason)
    return EXT


@pytest.fixture(autouse=True)
def _cext_enabled(monkeypatch):
    monkeypatch.delenv("METAEVAL_NO_CEXT", raising=False)


# ---------------------------------------------------------------------------------- helpers

OPTIONS = [dict(), dict(max_docs=3), dict(max_docs=0), dict(max_docs=-2), dict(judged_only=True),
           dict(complete=True), dict(complete=True, max_docs=0), dict(complete=True, judged_only=True),
           dict(max_docs=2, judged_only=True, complete=True), dict(version=9),
           dict(version=9, complete=True, max_docs=1)]


def _pure(q, path, max_docs=None, judged_only=False, complete=False, version=10):
    run = te.read_trec_run(path, q.topic_bytes)
    rel, num_ret, present = tr._rank_one(q, run, max_docs, judged_only, complete, version == 9)
    return rel, num_ret, present, run.run_id


def _c(q, path, max_docs=None, judged_only=False, complete=False, version=10):
    return tr._scan_file(q, str(path), max_docs, judged_only, complete, version == 9)


def _same(a, b) -> None:
    assert a[0].dtype == b[0].dtype == np.int32
    assert a[0].shape == b[0].shape
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1].dtype == b[1].dtype and a[2].dtype == b[2].dtype
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2], b[2])
    assert a[3] == b[3]


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


# ---------------------------------------------------------------------------------- DL19

@pytest.mark.shared_data
def test_dl19_runs_c_equals_numpy(cext):
    q = te.read_trec_qrels(DL19 / "qrels.txt")
    runs = sorted((DL19 / "runs").glob("*.run.gz"))
    assert len(runs) == 37
    for p in runs:
        run = te.read_trec_run(p, q.topic_bytes)
        for kw in (dict(), dict(max_docs=10, judged_only=True), dict(complete=True, version=9)):
            got = _c(q, p, **kw)
            assert got is not None, f"the C scanner declined {p.name}"
            rel, num_ret, present = tr._rank_one(q, run, kw.get("max_docs"), kw.get("judged_only", False),
                                                 kw.get("complete", False), kw.get("version") == 9)
            _same(got, (rel, num_ret, present, run.run_id))


@pytest.mark.shared_data
def test_dl19_cli_output_identical_without_the_extension(cext, tmp_path):
    import gzip

    runs = []
    for p in sorted((DL19 / "runs").glob("*.run.gz"))[::6]:
        runs.append(tmp_path / p.name[:-3])
        runs[-1].write_bytes(gzip.decompress(p.read_bytes()))
    outs = []
    for env in ({}, {"METAEVAL_NO_CEXT": "1"}):
        for args in (["-q", "-m", "all_trec"], ["-q", "-c", "-J", "-M", "100", "-m", "all_trec"],
                     ["--trec-eval-version", "9", "-c", "-m", "official"]):
            r = subprocess.run([sys.executable, "-m", "metaeval", "trec_eval", *args, str(DL19 / "qrels.txt"),
                                *map(str, runs)], capture_output=True, env={**os.environ, **env}, timeout=600)
            assert r.returncode == 0, r.stderr.decode()[-2000:]
            outs.append(r.stdout)
    assert outs[:3] == outs[3:]
    assert all(len(o) > 1000 for o in outs)


# ---------------------------------------------------------------------------------- synthetic

QRELS = b"""1 0 d1 2
1 0 d2 0
1 0 d3 -1
1 0 D1 1
1 0 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 3
10 0 d1 1
10 0 d10 -5
10 0 d1x 0
2 0 d2 1
2 0 d3 2
2 0 d4 7
q-7 0 d1 1
"""
TOPICS = ["1", "10", "2", "q-7", "3", "x", "1x"]           # "3", "x", "1x": not in the qrels
DOCS = ["d1", "d2", "d3", "d4", "D1", "d10", "d1x", "d5", "e", "d1" * 20,
        "a" * 106, "a" * 105, "a" * 107]

ODD_SCORES = ["1e400", "-1e400", "1e-400", "nan", "NaN", "-nan", "inf", "-Infinity", "INF", "infinit",
              "in", "na", "-0", "+0", "0", "-0.0e7", "00012.5000", "1.5abc", "0x1p3", "0X10", "1_0",
              ".5", "-.5e-3", "1.", "1.e1", "e5", ".", "-", "+", "1e", "1e+", "1.5e-", "+.1E+01",
              "123456789012345678901234567", "0.1000000000000000055511151231257827",
              "2.2250738585072014e-308", "4.9e-324", "2.4703282292062327e-324", "9007199254740993",
              "1.7976931348623157e308", "1.7976931348623159e308", "0.30000000000000004",
              "3.0000000000000001", "1e22", "1e23", "123456789012345e-30", "1e0000000000000000000005",
              "7.2057594037927933e16", "9.999999999999999e22", "8.98846567431158e307",
              "0.9906681403517723", "52.802642822265625", "-6.070099353790283", "1234567890123456789",
              "12345678901234567890", "0.000000000000000000000000001234", "5e-324", "1e-323"]


def _mantissa_token():
    """16-25 digit mantissas with a dot anywhere and an optional exponent."""
    return st.builds(
        lambda sign, digits, dot, exp: sign + (digits[:dot] + "." + digits[dot:] if dot is not None else digits) + exp,
        st.sampled_from(["", "-", "+"]),
        st.text("0123456789", min_size=16, max_size=25),
        st.one_of(st.none(), st.integers(0, 25)),
        st.one_of(st.just(""), st.builds(lambda e, s, v: f"{e}{s}{v}", st.sampled_from("eE"),
                                          st.sampled_from(["", "-", "+"]), st.integers(0, 40))))


SCORE = st.one_of(st.sampled_from(ODD_SCORES), _mantissa_token(),
                  st.floats(allow_nan=False).map(repr),
                  st.decimals(allow_nan=False, allow_infinity=False, places=4).map(str),
                  st.integers(-10 ** 20, 10 ** 20).map(str),
                  st.sampled_from(["1", "2", "2.0", "0.5", "1e0", "20e-1"]))   # ties, some spelled differently


def test_scores_read_as_c_atof(cext):
    for tok in ODD_SCORES:
        got = cext.atof_token(tok.encode())
        want = c_atof(tok.encode())
        if math.isnan(want):
            assert got is None, tok
        else:
            assert got is not None and _bits(got) == _bits(want), (tok, got, want)


# too_slow / data_too_large: the machine may be loaded; the examples stay the same
SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]


@settings(max_examples=400, deadline=None, suppress_health_check=SLOW_OK)
@given(tok=st.one_of(SCORE, st.text("0123456789.eE+-_xinfaINFA", max_size=30)))
def test_score_tokens_read_as_c_atof(cext, tok):
    got = cext.atof_token(tok.encode())
    want = c_atof(tok.encode())
    if math.isnan(want):
        assert got is None
    else:
        assert got is not None and _bits(got) == _bits(want), (tok, got, want)


@pytest.fixture(scope="module")
def qrels(tmp_path_factory):
    p = tmp_path_factory.mktemp("trecscan") / "qrels"
    p.write_bytes(QRELS)
    return te.read_trec_qrels(p)


LINE = st.fixed_dictionaries({
    "topic": st.sampled_from(TOPICS),
    "doc": st.sampled_from(DOCS),
    "score": SCORE,
    "rank": st.sampled_from(["1", "0", "-3", "x", "1e9"]),
    "tag": st.sampled_from(["runA", "r_b", "R", "#t"]),
    "sep": st.sampled_from([" ", "\t", "  ", " \t ", "\x0b", "\x0c", "\r"]),
    "lead": st.sampled_from(["", "", "", " ", "\t"]),
    "extra": st.sampled_from(["", "", "", " x", "\tx y z", " 1.5 #"]),
    "end": st.sampled_from(["\n", "\n", "\n", "\r\n", " \n"]),
})
NOISE = st.sampled_from(["\n", "   \n", "\t\r\n", "# a comment\n", "  # indented comment\n",
                         "#1 Q0 d1 1 1 runZ\n", "#\n"])


@st.composite
def run_text(draw):
    lines = draw(st.lists(LINE, min_size=0, max_size=25))
    if draw(st.booleans()):                    # usually no repeated document: the result path
        seen, kept = set(), []
        for ln in lines:
            if (ln["topic"], ln["doc"]) not in seen:
                seen.add((ln["topic"], ln["doc"]))
                kept.append(ln)
        lines = kept
    if draw(st.booleans()):
        lines.sort(key=lambda ln: ln["topic"])            # topic blocks, as runs usually are
    out = []
    for ln in lines:
        while draw(st.integers(0, 5)) == 0:
            out.append(draw(NOISE))
        s = ln["sep"]
        out.append(f"{ln['lead']}{ln['topic']}{s}Q0{s}{ln['doc']}{s}{ln['rank']}{s}{ln['score']}{s}{ln['tag']}"
                   f"{ln['extra']}{ln['end']}")
    text = "".join(out)
    if text and draw(st.booleans()):
        text = text.rstrip("\n")                  # no final LF
    return text.encode()


def _plain(q, data: bytes) -> bool:
    """Input the C scanner must accept: no repeated document and no NaN score in a qrels topic,
    at least one result line."""
    kept, found = set(), False
    topics = set(q.topics)
    for line in data.split(b"\n"):
        f = line.split()
        if not f or f[0].startswith(b"#"):
            continue
        found = True
        t = f[0].decode()
        if t not in topics:
            continue
        if (t, f[2]) in kept or math.isnan(c_atof(f[4])):
            return False
        kept.add((t, f[2]))
    return found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, *SLOW_OK])
@given(data=run_text(), opt=st.sampled_from(OPTIONS))
def test_generated_runs_c_equals_numpy(cext, qrels, tmp_path, data, opt):
    path = tmp_path / "run"
    path.write_bytes(data)
    try:
        want = _pure(qrels, path, **opt)
    except InputError as e:
        assert _c(qrels, path, **opt) is None       # declined: the numpy reader words the error
        with pytest.raises(InputError) as got:
            tr.rank_run_file(qrels, path, **opt)
        assert str(got.value) == str(e)
        return
    got = _c(qrels, path, **opt)
    if _plain(qrels, data):
        assert got is not None, "the C scanner declined a plain run"
        _same(got, want)
    else:
        assert got is None                          # a NaN score: the numpy reader orders it
    _same(tr.rank_run_file(qrels, path, **opt), want)


def test_repeated_document_same_message(cext, qrels, tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"1 Q0 d1 1 2.5 r\n1 Q0 d2 2 2 r\n# c\n1 Q0 d1 3 1 r\n")
    with pytest.raises(InputError) as pure:
        _pure(qrels, path)
    assert "d1 retrieved twice for topic 1 (lines 1 and 4)" in str(pure.value)
    assert _c(qrels, path) is None
    with pytest.raises(InputError) as got:
        tr.rank_run_file(qrels, path)
    assert str(got.value) == str(pure.value)


@pytest.mark.parametrize("data", [
    b"\xef\xbb\xbf1 Q0 d1 1 2 r\n",                  # UTF-8 byte-order mark (dropped by the numpy reader)
    b"1 Q0 d\xc3\xa9 1 2 r\n1 Q0 d1 1 2 r\n",       # UTF-8 DOCID
    b"1 Q0 d1 1 2 r\n# caf\xc3\xa9\n",               # UTF-8 comment
    b"1 Q0 d1 1 2 r\x01\n1 Q0 d2 1 2 r x\n",        # a control byte: the two numpy tokenisers differ
    b"1 Q0 d1 1 nan r\n1 Q0 d2 1 2 r\n",             # NaN score
    b"1 Q0 d1 1 2 r\n1 Q0 d1 1 2 r\n",               # repeated document
])
def test_unusual_input_declined_then_read_by_numpy(cext, qrels, tmp_path, data):
    path = tmp_path / "run"
    path.write_bytes(data)
    assert _c(qrels, path) is None
    try:
        want = _pure(qrels, path)
    except InputError as e:
        with pytest.raises(InputError) as got:
            tr.rank_run_file(qrels, path)
        assert str(got.value) == str(e)
    else:
        _same(tr.rank_run_file(qrels, path), want)


@pytest.mark.parametrize("data", [b"", b"\n\n", b"# only a comment\n", b"1 Q0 d1 1\n", b"1 Q0 d1 1 2 r\n1 Q0\n",
                                  b"1 Q0 d1 1 2 r\n\x00", b"\xff\xfe1\x00"])
def test_bad_input_same_error(cext, qrels, tmp_path, data):
    path = tmp_path / "run"
    path.write_bytes(data)
    with pytest.raises(InputError) as pure:
        _pure(qrels, path)
    assert _c(qrels, path) is None
    with pytest.raises(InputError) as got:
        tr.rank_run_file(qrels, path)
    assert str(got.value) == str(pure.value)


def test_missing_file_same_error(cext, qrels, tmp_path):
    with pytest.raises(InputError) as pure:
        _pure(qrels, tmp_path / "nope")
    with pytest.raises(InputError) as got:
        tr.rank_run_file(qrels, tmp_path / "nope")
    assert str(got.value) == str(pure.value)


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null here")
def test_non_regular_file_left_to_numpy(cext, qrels):
    """Pipes and devices (bash's <(...)) go to the numpy reader untouched (they can be read once)."""
    assert _c(qrels, "/dev/null") is None
    with pytest.raises(InputError) as pure:
        _pure(qrels, "/dev/null")
    with pytest.raises(InputError) as got:
        tr.rank_run_file(qrels, "/dev/null")
    assert str(got.value) == str(pure.value)


def test_gzip_run_scanned(cext, qrels, tmp_path):
    import gzip

    data = b"10 Q0 d1 1 2 a\n10 Q0 d10 2 2 b\n1 Q0 d3 1 1e400 c\n3 Q0 d1 1 1 last\n"
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(data))
    got = _c(qrels, path, complete=True)
    assert got is not None
    _same(got, _pure(qrels, path, complete=True))
    assert got[3] == "last"


def test_no_cext_env_forces_numpy(cext, qrels, tmp_path, monkeypatch):
    path = tmp_path / "run"
    path.write_bytes(b"1 Q0 d1 1 2 r\n2 Q0 d4 1 2 r\n")
    assert tr.c_scanner() is cext and _c(qrels, path) is not None
    monkeypatch.setenv("METAEVAL_NO_CEXT", "1")
    assert tr.c_scanner() is None and _c(qrels, path) is None
    _same(tr.rank_run_file(qrels, path), _pure(qrels, path))


def test_rank_run_files_matches_rank_runs(qrels, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"1 Q0 d1 1 2 r\n1 Q0 d2 1 2 r\n10 Q0 d1x 1 1 r\n2 Q0 d9 1 0 ra\n")
    b.write_bytes(b"2 Q0 d4 1 3 rb\n2 Q0 d3 1 3 rb\n")
    got = tr.rank_run_files(qrels, [a, b], names=["A", "B"], max_docs=5, complete=True)
    want = tr.rank_runs(qrels, [te.read_trec_run(a, qrels.topic_bytes), te.read_trec_run(b, qrels.topic_bytes)],
                        names=["A", "B"], max_docs=5, complete=True)
    for f in ("topics", "runs", "run_ids", "num_rel_positive"):
        assert getattr(got, f) == getattr(want, f)
    for f in ("rel", "num_ret", "present", "rel_levels"):
        np.testing.assert_array_equal(getattr(got, f), getattr(want, f))


def test_underscore_scores_read_as_atof_by_numpy(tmp_path):
    """float() and numpy read "1_0" as 10; C's atof (trec_eval) reads 1 -- on both numpy paths."""
    six = tmp_path / "six"
    six.write_bytes(b"1 Q0 d1 1 1_0 r\n1 Q0 d2 1 2e1_0 r\n1 Q0 d3 1 " + b"1" * 40 + b"_1 r\n")
    seven = tmp_path / "seven"
    seven.write_bytes(six.read_bytes().replace(b" r\n", b" r x\n"))
    want = [1.0, 20.0, float("1" * 40)]
    assert te.read_trec_run(six).scores.tolist() == want
    assert te.read_trec_run(seven).scores.tolist() == want


def test_fresh_build_declared():
    """setup.py declares the extensions (the scanner, the line printer, the reader's loops) as
    optional (installs without a compiler) and the build artefacts are ignored by git."""
    setup = (ROOT / "setup.py").read_text()
    for name in ("treceval._trecscan", "treceval._trecfmt", "_reader"):
        path = name.replace(".", "/")
        assert f'Extension("metaeval.{name}", ["src/metaeval/{path}.c"], optional=True' in setup
    ignore = (ROOT / ".gitignore").read_text().split()
    assert "*.so" in ignore and "build/" in ignore
