"""The project's run reader through the C extension (``metaeval.io._cext``: ``metaeval._reader``'s
``number_column``, ``hash_column``, ``regular_split``, ``first_index``, ``order_ties``) against its
numpy code, the specification (``METAEVAL_NO_CEXT=1``): the same tokens, scores (bit for bit),
hashes, labels, entries, warnings and errors (file:line), on adversarial input.

The C tests are skipped when the extension is not built, and fail instead when CI is set.
"""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import in_ci
from metaeval.errors import InputError
from metaeval.io import _cext, load_collection
from metaeval.io._text import _buffer, _fast_split, hash_rows, _words, parse_float32, parse_float64, check_numeric, tokenize


@pytest.fixture(autouse=True)
def cext(monkeypatch):
    """The built extension, enabled; skipped when absent, a failure when CI is set."""
    monkeypatch.delenv("METAEVAL_NO_CEXT", raising=False)
    if _cext.c_reader() is None:
        reason = "metaeval._reader is not built (no C compiler at install time?): pip install -e . builds it"
        if in_ci():
            pytest.fail(f"{reason} [required because CI is set]", pytrace=False)
        pytest.skip(reason)
    return _cext.c_reader()


def write(path, text, gz=False):
    data = text.encode("utf-8") if isinstance(text, str) else text
    if gz:
        data = gzip.compress(data)
    path.write_bytes(data)
    return str(path)


def both(monkeypatch, fn):
    """``fn()`` through the C path and through the numpy path: ``(c, numpy)``, each the value or
    ``("error", message)``, with the warnings' messages."""
    out = []
    for env in ("0", "1"):
        monkeypatch.setenv("METAEVAL_NO_CEXT", env)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = fn()
            except InputError as e:
                r = ("error", str(e))
        out.append((r, [f"{x.category.__name__}: {x.message}" for x in w]))
    monkeypatch.setenv("METAEVAL_NO_CEXT", "0")
    return out


# ------------------------------------------------------------------------------ columns
def _tokens_file(tmp_path, toks, sep=" "):
    return write(tmp_path / "t", "".join(f"x{sep}{t}\n" for t in toks))


def _hard_decimals(rng) -> list[str]:
    toks = [repr(float(x)) for x in rng.uniform(-50, 50, 2000)]
    toks += [f"{rng.integers(0, 10**12)}.{rng.integers(0, 10**9)}" for _ in range(1000)]
    f = rng.uniform(0.001, 100, 2000).astype(np.float32)      # next to float32 rounding midpoints
    mids = (f.astype(np.float64) + np.nextafter(f, np.float32(np.inf)).astype(np.float64)) / 2
    for m, eps in zip(mids, rng.choice([0, 1e-17, -1e-17, 1e-16, -1e-16], size=len(mids))):
        toks.append(repr(float(m + eps * m)))
    d = rng.uniform(1, 2, 500)                                  # next to float64 midpoints, 17-25 digits
    toks += [f"{x:.{k}f}" for x, k in zip(d, rng.integers(15, 25, 500))]
    toks += ["".join(rng.choice(list("0123456789"), size=k)) for k in rng.integers(1, 90, 300)]
    toks += ["0." + "0" * k + "1" for k in range(0, 70, 7)]
    toks += ["1e5", "-2.5E-3", "0", "-0.0", "+0", "-0", ".5", "5.", "+.5", "-.5e+3", "1e400", "-1e400",
             "1e-400", "-1e-400", "3.4028235e38", "3.4028236e38", "1e39", "-7", "+3.25", "1E+0", "00012",
             "9007199254740993", "123456789012345678901234567890", "1.5e-45", "7e-46", "2.5e-324"]
    return toks


def test_scores_bit_for_bit(tmp_path, monkeypatch):
    """(float) atof of decimal tokens: the C column parser equals numpy's conversion (the
    specification) and float32(float(token)), bit for bit, and is the path taken."""
    toks = _hard_decimals(np.random.default_rng(5))
    t = tokenize(_tokens_file(tmp_path, toks), 2, "test")
    assert _cext.c_numbers(t.buf, *t.span(1), True) is not None        # the C path reads them all
    (c, _), (py, _) = both(monkeypatch, lambda: parse_float32(t, 1, "score"))
    with np.errstate(over="ignore"):
        want = np.array([np.float32(float(x)) for x in toks], np.float32)
    np.testing.assert_array_equal(c.view(np.uint32), py.view(np.uint32))
    np.testing.assert_array_equal(c.view(np.uint32), want.view(np.uint32))
    # atof in double precision (trec_eval 10.0): the same bits on both paths and as float(token)
    (c64, _), (py64, _) = both(monkeypatch, lambda: parse_float64(t, 1, "score"))
    want64 = np.array([float(x) for x in toks], np.float64)
    np.testing.assert_array_equal(c64.view(np.uint64), py64.view(np.uint64))
    np.testing.assert_array_equal(c64.view(np.uint64), want64.view(np.uint64))


@pytest.mark.parametrize("tok", ["inf", "-Infinity", "NaN", "nan", "+inf"])
def test_scores_beyond_decimals_take_the_numpy_path(tmp_path, monkeypatch, tok):
    t = tokenize(_tokens_file(tmp_path, ["1.5", tok, "2"]), 2, "test")
    assert _cext.c_numbers(t.buf, *t.span(1), True) is None
    (c, _), (py, _) = both(monkeypatch, lambda: parse_float32(t, 1, "score"))
    np.testing.assert_array_equal(c.view(np.uint32), py.view(np.uint32))
    assert c[0] == 1.5 and c[2] == 2 and (np.isnan(c[1]) if "n" == tok.lower()[0] else np.isinf(c[1]))


@pytest.mark.parametrize("tok", ["1.2.3", "1e", "e5", "--1", "+-1", "0x10", "1_0", ".", "+", "1e+", "1,5",
                                 "1e5.5", "5..", "infx", "٣"])
def test_bad_numbers_same_error(tmp_path, monkeypatch, tok):
    p = _tokens_file(tmp_path, ["1", "2", tok, "4"])
    for fn in (lambda: parse_float32(tokenize(p, 2, "test"), 1, "score"),
               lambda: check_numeric(tokenize(p, 2, "test"), 1, "rank")):
        (c, wc), (py, wp) = both(monkeypatch, fn)
        assert c[0] == "error" and c == py and wc == wp
        assert f"{p}:3" in c[1] and "is not a number" in c[1]


def test_hashes_equal_numpy(tmp_path):
    """DOCID hashes: the C column hash equals hash_rows (so qrels and runs hashed either way
    match), long ids included."""
    rng = np.random.default_rng(7)
    ids = ["".join(rng.choice(list("abcXYZ019_-:/"), size=k)) for k in rng.integers(1, 80, 3000)]
    ids += ["a" * k for k in (1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200)]
    t = tokenize(_tokens_file(tmp_path, ids, sep="\t"), 2, "test")
    s, e = t.span(1)
    h, long_ = _cext.c_hashes(t.buf, s, e)
    short = np.flatnonzero((e - s) <= 64)
    np.testing.assert_array_equal(long_, np.flatnonzero((e - s) > 64))
    np.testing.assert_array_equal(h[short], hash_rows(_words(t.buf, s[short], e[short])))


def test_first_index_equals_a_loop():
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 17, 5000):
        keys = rng.integers(0, max(1, n // 3), n).astype(np.uint64) * np.uint64(0x10000000001)
        first, repeats = _cext.c_first_index(keys)
        seen, want = {}, []
        for i, k in enumerate(keys.tolist()):
            want.append(seen.setdefault(k, i))
        np.testing.assert_array_equal(first, np.array(want, np.int64))
        assert repeats == sum(1 for i, j in enumerate(want) if i != j)


@pytest.mark.parametrize("text", [
    "a b\nc d\n", "a b\nc d", "a\tb\r\nc d\r\n", "a b\n\nc d\n", "a  b\nc d\n", "a b \nc d\n",
    "a b\nc\n", "a b c\nd e f\n", " a b\nc d\n", "a b\nc d\n\n", "a b\x0bc d\n", "a\n", "\n", ""])
def test_split_equals_numpy(tmp_path, text, monkeypatch):
    """The C one-pass split accepts exactly _fast_split's form, with the same separators; any other
    text is the numpy tokenizer's (same table or same error)."""
    buf, body = _buffer(text.encode(), 0)
    p = np.flatnonzero(buf[:body] <= 32)
    for allowed in ((2,), (3,), (2, 3)):
        want = _fast_split("f", buf, p, allowed, 1)
        got = _cext.c_regular_split(buf, body, allowed)
        if want is None:
            assert got is None
        else:
            np.testing.assert_array_equal(got[0], want._sep)
            assert got[1] == want.ncols
    path = write(tmp_path / "f", text)

    def table():
        t = tokenize(path, (2, 3), "test")
        return [t.line.tolist()] + [[t.token(i, c) for i in range(t.n)] for c in range(t.ncols)]
    (c, _), (py, _) = both(monkeypatch, table)
    assert c == py


# ------------------------------------------------------------------------------ whole collections
QRELS = """\
1 0 d1 1
1 0 d2 2
1 0 d3 0
1 0 dup 1
2 0 d1 1
2 0 e1 0
3 0 z 0
"""

LONG = "L" * 70

RUNS = {
    "ties": "1 Q0 d3 1 1.0 t\n1 Q0 d1 2 1.0 t\n1 Q0 d2 3 1.0 t\n1 Q0 dx 4 1.00000001 t\n1 Q0 d0 5 2 t\n"
            "2 Q0 a 1 5 t\n2 Q0 e1 2 5 t\n2 Q0 d1 3 5.0 t\n",
    "exponents": "1 Q0 d1 1 1e5 x\n1 Q0 d2 2 -2.5E-3 x\n1 Q0 d3 3 1e400 x\n1 Q0 d4 4 1e-400 x\n"
                 "1 Q0 d5 5 -1e-400 x\n1 Q0 d6 6 +.5 x\n1 Q0 d7 7 5. x\n1 Q0 d8 8 -0 x\n1 Q0 d9 9 1e39 x\n",
    "nan_inf": "1 Q0 d1 1 nan x\n1 Q0 d2 2 inf x\n1 Q0 d3 3 -Infinity x\n1 Q0 d4 4 NaN x\n1 Q0 d5 5 0 x\n",
    "tabs_crlf": "1\tQ0\td2\t1\t3\tx\r\n1 Q0  d1 2 2 x\r\n\r\n2\tQ0\td1\t1\t1\tx",
    "dups": "1 Q0 d1 1 3 x\n1 Q0 d2 2 2 x\n1 Q0 d1 3 1 x\n1 Q0 dup 4 5 x\n1 Q0 dup 5 5 x\n2 Q0 d1 1 1 x\n"
            "2 Q0 d1 2 9 x\n",
    "long_ids": f"1 Q0 {LONG} 1 3 x\n1 Q0 d1 2 3 x\n1 Q0 {LONG}b 3 3 x\n2 Q0 d1 1 1 x\n",
    "unknown_topics": "9 Q0 d1 1 1 x\n1 Q0 d2 1 1 x\n8 Q0 d1 1 1 x\n1 Q0 d1 2 7 x\n",
    "sysdesc": "<SYSDESC>a run</SYSDESC>\n1 Q0 d1 1 0.5 x\n1 Q0 d2 2 0.25 x\n",
    "blocks": "1 Q0 d1 1 1 x\n2 Q0 d1 1 1 x\n1 Q0 d2 2 9 x\n2 Q0 e1 2 2 x\n1 Q0 d3 3 0.5 x\n",
}

BAD = {
    "bad_rank": "1 Q0 d1 1 1 x\n1 Q0 d2 two 1 x\n",
    "bad_score": "1 Q0 d1 1 1 x\n\n1 Q0 d2 2 1.2.3 x\n",
    "short_line": "1 Q0 d1 1 1 x\n1 Q0 d2 2 1\n",
    "long_score": "1 Q0 d1 1 1 x\n1 Q0 d2 2 " + "1" * 80 + "x x\n",
}


def _collection(qrels, runs, order, depth):
    c, e = load_collection(qrels, runs, order=order, depth=depth, entries=True)
    return (c.levels.tobytes(), c.lengths.tobytes(), e.tobytes(), c.topics, c.runs, c.levels.shape)


@pytest.mark.parametrize("gz", [False, True])
def test_collections_equal_numpy(tmp_path, monkeypatch, gz):
    """Every run of RUNS (ties, exponents, +.5, 1e400, NaN, tabs, CRLF, repeats, long ids, unknown
    topics, a header, interleaved topics; plain and gzip), both orders, three depths: the C and
    numpy paths give the same collection and the same warnings."""
    q = write(tmp_path / "qrels", QRELS)
    paths = [write(tmp_path / f"{name}.run", text, gz) for name, text in RUNS.items()]
    seen: list = []
    for order in ("file", "score"):
        for depth in (1000, None, 2):
            (c, wc), (py, wp) = both(monkeypatch, lambda: _collection(q, paths, order, depth))
            assert c[0] != "error"
            assert c == py and wc == wp
            seen += wc
    # the cases do reach the policies (the order warning: under order 'file' only, as asked)
    text = "\n".join(seen)
    for what in ("repeated", "not in the qrels", "decreasing score", "missing from the run"):
        assert what in text


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_runs_same_error(tmp_path, monkeypatch, name):
    q = write(tmp_path / "qrels", QRELS)
    p = write(tmp_path / f"{name}.run", BAD[name])
    (c, wc), (py, wp) = both(monkeypatch, lambda: _collection(q, [p], "score", 1000))
    assert c == py and wc == wp
    if name != "long_score":
        assert c[0] == "error" and f"{p}:" in c[1]


@pytest.mark.parametrize("version", [9, 10])
def test_score_order_ties_by_docid(tmp_path, monkeypatch, version):
    """Many tied scores (equal in float32, distinct in float64): DOCID descending, then file
    order for a repeated DOCID -- the same on both paths, and as a literal sort says (trec_eval 9:
    scores compared in float32, 10: in float64)."""
    rng = np.random.default_rng(9)
    docs = [f"d{k}" for k in rng.integers(0, 400, 3000)]
    scores = rng.choice(["1", "1.00000001", "2", "0.5", "2.0000000001", "-0", "0"], size=3000)
    run = "".join(f"1 Q0 {d} {i + 1} {s} x\n" for i, (d, s) in enumerate(zip(docs, scores)))
    q = write(tmp_path / "qrels", "1 0 d1 1\n" + "".join(f"1 0 d{k} {k % 3}\n" for k in range(2, 400, 2)))
    p = write(tmp_path / "r.run", run)
    (c, wc), (py, wp) = both(monkeypatch, lambda: load_collection(q, [p], order="score", depth=None,
                                                                  trec_eval_version=version).levels)
    np.testing.assert_array_equal(c, py)
    assert wc == wp
    # literal: score (float32 or float64) descending, DOCID descending, first occurrence kept
    prec = np.float32 if version == 9 else np.float64
    rows = sorted(range(3000), key=lambda i: (-prec(float(scores[i])), tuple(-b for b in docs[i].encode()) + (1,), i))
    seen, levels = set(), []
    qrel = {"d1": 1, **{f"d{k}": k % 3 for k in range(2, 400, 2)}}
    for i in rows:
        if docs[i] not in seen:
            seen.add(docs[i])
            levels.append(qrel.get(docs[i], -1))
    np.testing.assert_array_equal(c[0, 0, :len(levels)], levels)


# ------------------------------------------------------------------------------ random runs
_TOPICS = ["1", "1", "1", "2", "3", "9"]
_DOCS = ["d1", "d2", "d3", "dup", "e1", "z", "a", "d10", "D1", "d1x", "L" * 65, "L" * 66]
_NUMS = ["1", "2", "2.0", "1.00000001", "-0", "0", "+.5", "5.", "1e400", "-1e400", "1e-400", "3.4028236e38",
         "0.9906681403517723", "-6.070099353790283", "12345678901234567890.5", "1" * 70, "7e-46", "1e5",
         "2.5E-3"]
_SPECIAL = ["nan", "inf", "-Inf"]
_TIES = ["1", "2.0", "-0", "0", "1.00000001", "0.1", "0.10000000149011612"]     # equal in float32
_BAD = ["x", "1.2.3", "1e", "0x1", "1_0", "--1"]
_SEPS = [" ", " ", " ", "\t", "  ", " \t"]
_ENDS = ["\n", "\n", "\n", "\r\n", " \n", "\n\n"]


@st.composite
def _run_text(draw):
    n = draw(st.integers(0, 40))
    rows = [[draw(st.sampled_from(_TOPICS)), "Q0", draw(st.sampled_from(_DOCS)),
             draw(st.sampled_from(["1", "2", "10", "0", "-3", "1e2"])),
             draw(st.sampled_from(_TIES if draw(st.booleans()) else _NUMS)), "tag"] for _ in range(n)]
    fault = draw(st.sampled_from(["none", "none", "none", "rank", "score", "special", "short"]))
    if n and fault != "none":                                      # one unusual line
        r = rows[draw(st.integers(0, n - 1))]
        if fault == "rank":
            r[3] = draw(st.sampled_from(_BAD))
        elif fault == "score":
            r[4] = draw(st.sampled_from(_BAD))
        elif fault == "special":
            r[4] = draw(st.sampled_from(_SPECIAL))
        else:
            del r[draw(st.integers(1, 5)):]
    text = ""
    for r in rows:
        sep = draw(st.sampled_from(_SEPS)) if draw(st.integers(0, 9)) == 0 else " "
        text += sep.join(r) + (draw(st.sampled_from(_ENDS)) if draw(st.integers(0, 9)) == 0 else "\n")
    if text and draw(st.integers(0, 3)) == 0:
        text = text.rstrip("\n")                                   # no final newline
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=_run_text(), order=st.sampled_from(["file", "score"]), depth=st.sampled_from([1000, None, 1, 3]),
       gz=st.booleans())
def test_random_runs_equal_numpy(tmp_path_factory, monkeypatch, run, order, depth, gz):
    """Random runs of tricky tokens, separators and line ends (and now and then a bad number or a
    short line): the C and numpy paths give the same collection, warnings and error."""
    d = tmp_path_factory.mktemp("r")
    q = write(d / "qrels", QRELS)
    p = write(d / "r.run", run, gz)
    (c, wc), (py, wp) = both(monkeypatch, lambda: _collection(q, [p], order, depth))
    assert c == py and wc == wp


# ------------------------------------------------------------------ randomised Tukey HSD sums
@pytest.mark.parametrize("shape", [(250, 30), (3, 2), (40, 7)])
def test_rthsd_ranges_equal_numpy(monkeypatch, shape):
    """The permuted sums of the randomised Tukey HSD test by the C loop (int16 positions) and by
    numpy's gather and add.reduce: the same ranges, bit for bit, on values of every magnitude and
    sign, in batches that do and do not divide B."""
    import importlib

    rthsd = importlib.import_module("metaeval.meta.rthsd")
    rng = np.random.default_rng(7)
    n, m = shape
    A = rng.standard_normal((n, m)) * 10.0 ** rng.integers(-8, 8, (n, m))
    stack = np.stack([A, np.round(rng.random((n, m)), 4), -A])
    for batch in (None, 7):
        c, py = both(monkeypatch, lambda: rthsd.rthsd_ranges(stack, B=123, seed=11, batch=batch).tobytes())
        assert c == py


def test_gather_sums_refuses_bad_positions(cext):
    flat, out = np.zeros(6), np.empty((1, 3))
    with pytest.raises(IndexError):
        cext.gather_sums(flat, np.array([[[0, 1, 3], [0, 1, 2]]], dtype=np.int16), out, 2, 3)
    with pytest.raises(ValueError):
        cext.gather_sums(flat, np.zeros((1, 2, 2), dtype=np.int16), out, 2, 3)
