"""One test per input policy (docs/io.md): errors name file and line (or topic), warnings state the
fallback, and the CLI exits 1 on rejected input without leaving any output or temporary file."""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest

from metaeval.cli import main
from metaeval.errors import InputError, InputWarning
from metaeval.io import load_collection, read_qrels

QRELS = "T1 d1 L1\nT1 d2 L0\nT2 d1 L2\nT2 d3 L0\nT3 d5 L1\n"
RUN = ("T1 Q0 d1 1 3 r\nT1 Q0 d2 2 2 r\n"
       "T2 Q0 d3 1 3 r\nT2 Q0 d1 2 2 r\n"
       "T3 Q0 d5 1 1 r\n")


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def load(tmp_path, qrels=QRELS, run=RUN, **kw):
    q = write(tmp_path / "qrels.txt", qrels)
    r = write(tmp_path / "runs" / "R.run", run)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        c = load_collection(q, r, **kw)
    return c, [str(x.message) for x in w if issubclass(x.category, InputWarning)], q, r


def error(tmp_path, qrels=QRELS, run=RUN, **kw) -> InputError:
    with pytest.raises(InputError) as e:
        load(tmp_path, qrels, run, **kw)
    return e.value


def cli(args, capsys):
    rc = main([str(a) for a in args])
    return rc, capsys.readouterr().err


def leftovers(d):
    return sorted(p.name for p in d.rglob("*")) if d.exists() else []


# --------------------------------------------------------------------------- warnings
def test_topic_missing_from_run_scores_zero_one_warning_per_run(tmp_path):
    from metaeval.metrics import evaluate

    run = "T1 Q0 d1 1 3 r\n"                                        # T2, T3 missing
    c, w, q, r = load(tmp_path, run=run)
    assert c.topics == ("T1", "T2", "T3")
    np.testing.assert_array_equal(c.lengths[0], [1, 0, 0])
    missing = [m for m in w if "missing from the run" in m]
    assert len(missing) == 1 and "2 topics" in missing[0] and str(r) in missing[0]
    v = evaluate(c, ["AP", "nDCG@10", "RR", "Q-measure"])
    for name, mat in v.items():
        assert mat[0, 1] == 0 and mat[0, 2] == 0, name


def test_run_topic_absent_from_qrels_ignored_with_warning(tmp_path):
    c, w, q, r = load(tmp_path, run=RUN + "T9 Q0 d1 1 3 r\nT8 Q0 d1 1 1 r\n")
    assert c.topics == ("T1", "T2", "T3")
    ign = [m for m in w if "not in the qrels" in m]
    assert len(ign) == 1 and "T8" in ign[0] and "T9" in ign[0] and "2 topics" in ign[0]
    assert str(r) in ign[0]


def test_repeated_document_keeps_first_position(tmp_path):
    run = RUN.replace("T2 Q0 d1 2 2 r\n", "T2 Q0 d1 2 2 r\nT2 Q0 d3 3 1 r\nT2 Q0 d9 4 1 r\n")
    c, w, q, r = load(tmp_path, run=run)
    t2 = c.topics.index("T2")
    np.testing.assert_array_equal(c.levels[0, t2, :4], [0, 2, -1, -2])   # d3 d1 d9 (2nd d3 dropped)
    assert c.lengths[0, t2] == 3
    dup = [m for m in w if "repeated in topic" in m]
    assert len(dup) == 1
    assert f"{r}:5:" in dup[0] and "d3" in dup[0] and "T2" in dup[0]


def test_repeated_document_order_score_keeps_best_position(tmp_path):
    run = "T1 Q0 d2 1 1 r\nT1 Q0 d1 2 2 r\nT1 Q0 d2 3 5 r\n"
    c, w, q, r = load(tmp_path, qrels="T1 d1 L1\nT1 d2 L0\n", run=run, order="score")
    np.testing.assert_array_equal(c.levels[0, 0, :3], [0, 1, -2])          # d2 (5.0) d1; d2 (1.0) dropped
    assert any(f"{r}:1:" in m for m in w)


def test_topic_without_relevant_document_excluded(tmp_path, capsys):
    qrels = QRELS + "T4 d1 L0\nT4 d2 L0\n"
    c, w, q, r = load(tmp_path, qrels=qrels, run=RUN + "T4 Q0 d1 1 1 r\n")
    assert c.topics == ("T1", "T2", "T3") and c.excluded_topics == ("T4",)
    ex = [m for m in w if "excluded" in m]
    assert len(ex) == 1 and "T4" in ex[0] and str(q) in ex[0]
    out = tmp_path / "m"
    rc, err = cli(["matrices", "--qrels", q, "--runs", r, "--out", out, "--metrics", "AP", "--quiet"], capsys)
    assert rc == 0 and "T4" in err
    assert (out / "topics.csv").read_text().splitlines()[-1] == "T4,excluded,no relevant document in the qrels"
    assert "T4" not in (out / "AP.csv").read_text()


def test_identical_duplicate_qrels_line_accepted(tmp_path):
    c, w, q, r = load(tmp_path, qrels=QRELS + "T1 d1 L1\n")
    assert c.level_counts[c.topics.index("T1")].tolist() == [1, 1, 0]


# ----------------------------------------------------------------------------- errors
def test_conflicting_qrels_labels_name_both_lines(tmp_path):
    e = error(tmp_path, qrels=QRELS + "\nT2 d1 L1\n")
    q = tmp_path / "qrels.txt"
    assert f"{q}:3" in str(e) and f"{q}:7" in str(e)
    assert e.line == 7 and e.topic == "T2"


@pytest.mark.parametrize("label", ["X3", "L-1", "L", "l1", "L1.5"])
def test_unknown_ntcir_label(tmp_path, label):
    e = error(tmp_path, qrels=QRELS + f"T3 d6 {label}\n")
    assert e.line == 6 and e.path == str(tmp_path / "qrels.txt") and label in str(e)


@pytest.mark.parametrize("label", ["1.5", "x", "L1"])
def test_unknown_trec_label(tmp_path, label):
    qrels = "T1 0 d1 1\nT1 0 d2 0\n" + f"T1 0 d3 {label}\n"
    e = error(tmp_path, qrels=qrels)
    assert e.line == 3 and label in str(e)


def test_trec_negative_label_is_nonrelevant(tmp_path):
    c, w, q, r = load(tmp_path, qrels="T1 0 d1 1\nT1 0 d2 -2\n", run="T1 Q0 d2 1 1 r\nT1 Q0 d1 2 1 r\n")
    np.testing.assert_array_equal(c.levels[0, 0, :2], [0, 1])


def test_qrels_mixing_forms(tmp_path):
    e = error(tmp_path, qrels="T1 d1 L1\n\nT1 0 d2 1\n")
    assert e.line == 3 and "mix" in str(e)


@pytest.mark.parametrize("line,lineno", [("T1 d1\n", 6), ("T1 d1 L1 x y\n", 6)])
def test_qrels_wrong_field_count(tmp_path, line, lineno):
    e = error(tmp_path, qrels=QRELS + line)
    assert e.line == lineno and "fields" in str(e)


@pytest.mark.parametrize("bad,what", [("T1 Q0 d7 x 1 r", "rank"), ("T1 Q0 d7 3 1.2.3 r", "score"),
                                      ("T1 Q0 d7 3 abc r", "score"), ("T1 Q0 d7 3 -- r", "score")])
def test_run_non_numeric_fields(tmp_path, bad, what):
    e = error(tmp_path, run="<SYSDESC>x</SYSDESC>\n" + RUN + "\n" + bad + "\n")
    assert e.line == 8 and what in str(e) and e.path == str(tmp_path / "runs" / "R.run")


def test_run_numeric_forms_accepted(tmp_path):
    run = "T1 Q0 d1 1 1e-3 r\nT1 Q0 d2 2.0 -inf r\nT1 Q0 d3 +3 .5 r\nT1 Q0 d4 4 -2E+5 r\n"
    c, w, q, r = load(tmp_path, run=run, order="score")
    assert c.lengths[0, 0] == 4


@pytest.mark.parametrize("bad", ["T1 Q0 d7 3 1", "T1 Q0 d7 3 1 r extra"])
def test_run_wrong_field_count(tmp_path, bad):
    e = error(tmp_path, run=RUN + bad + "\n")
    assert e.line == 6 and "fields" in str(e)


def test_max_level_below_qrels_levels(tmp_path):
    e = error(tmp_path, max_level=1)
    assert "L2" in str(e) and e.line == 3


def test_missing_run_file_and_empty_glob(tmp_path):
    q = write(tmp_path / "q", QRELS)
    with pytest.raises(InputError, match="no such run"):
        load_collection(q, tmp_path / "nope.run")
    with pytest.raises(InputError, match="no run file matches"):
        load_collection(q, str(tmp_path / "*.nothing"))


def test_duplicate_run_names(tmp_path):
    q = write(tmp_path / "q", QRELS)
    a = write(tmp_path / "a" / "R.run", RUN)
    b = write(tmp_path / "b" / "R.txt", RUN)
    with pytest.raises(InputError, match="given twice"):
        load_collection(q, [a, b])


def test_corrupt_gzip(tmp_path):
    q = write(tmp_path / "q", QRELS)
    r = tmp_path / "R.run.gz"
    r.write_bytes(gzip.compress(RUN.encode())[:-12])
    with pytest.raises(InputError) as e:
        load_collection(q, r)
    assert str(r) in str(e.value)


def test_empty_run_and_sysdesc_only_run(tmp_path):
    for text in ("", "<SYSDESC>nothing</SYSDESC>\n", "\n\n"):
        c, w, q, r = load(tmp_path, run=text)
        np.testing.assert_array_equal(c.lengths, [[0, 0, 0]])
        assert len(w) == 1 and "3 topics of the qrels missing" in w[0]


def test_empty_qrels(tmp_path):
    e = error(tmp_path, qrels="")
    assert "no topic of the qrels has a relevant document" in str(e)


def test_no_relevant_document_anywhere(tmp_path):
    e = error(tmp_path, qrels="T1 d1 L0\n")
    assert "relevant" in str(e)


def test_read_qrels_errors_name_file(tmp_path):
    p = write(tmp_path / "q.txt", "T1 d1 L1\nT1 d2 Lx\n")
    with pytest.raises(InputError) as e:
        read_qrels(p)
    assert str(e.value).startswith(f"{p}:2:")


# -------------------------------------------------------------------- CLI: exit 1, nothing written
BAD_CASES = {
    "label": (QRELS + "T1 d9 X3\n", RUN, ":6:"),
    "conflict": (QRELS + "T1 d1 L2\n", RUN, ":6"),
    "score": (QRELS, RUN + "T1 Q0 d9 1 nan? r\n", ":6:"),
    "fields": (QRELS, RUN + "T1 Q0 d9 1\n", ":6:"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_cli_matrices_rejects_and_writes_nothing(tmp_path, capsys, case):
    qrels, run, where = BAD_CASES[case]
    q = write(tmp_path / "in" / "qrels.txt", qrels)
    r = write(tmp_path / "in" / "runs" / "R.run", run)
    out = tmp_path / "out"
    out.mkdir()
    rc, err = cli(["matrices", "--qrels", q, "--runs", r.parent, "--out", out, "--metrics", "AP",
                   "--cache", out / "c.npz"], capsys)
    assert rc == 1
    assert err.startswith("metaeval: error: ") and where in err
    assert leftovers(out) == []


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_cli_ingest_and_evaluate_reject_and_write_nothing(tmp_path, capsys, case):
    qrels, run, where = BAD_CASES[case]
    q = write(tmp_path / "in" / "qrels.txt", qrels)
    r = write(tmp_path / "in" / "runs" / "R.run", run)
    out = tmp_path / "out"
    out.mkdir()
    rc, err = cli(["ingest", "--qrels", q, "--runs", r, "--out", out / "c.npz", "--topics-out",
                   out / "topics.csv", "--quiet"], capsys)
    assert rc == 1 and where in err
    rc, err = cli(["evaluate", "--qrels", q, "--runs", r, "--out", out / "R.nev"], capsys)
    assert rc == 1 and where in err
    assert leftovers(out) == []


def test_cli_bad_usage_exit_2(tmp_path):
    with pytest.raises(SystemExit) as e:
        main(["matrices", "--out", str(tmp_path / "o")])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["evaluate", "--qrels", "q", "--runs", "r", "--order", "random"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["evaluate", "--qrels", "q", "--runs", "r", "--metrics", "NoSuchMeasure"])
    assert e.value.code == 2
    assert not (tmp_path / "o").exists()


def test_cli_warnings_go_to_stderr(tmp_path, capsys):
    q = write(tmp_path / "qrels.txt", QRELS)
    r = write(tmp_path / "R.run", "T1 Q0 d1 1 3 r\n")
    rc, err = cli(["evaluate", "--qrels", q, "--runs", r, "--metrics", "AP"], capsys)
    assert rc == 0
    assert "metaeval: warning: " in err and "2 topics of the qrels missing" in err


def test_order_score_needs_scores(tmp_path):
    d = tmp_path / "pt"
    write(d / "T1" / "T1.rel", "d1 L1\n")
    write(d / "T1" / "R.res", "d1\n")
    with pytest.raises(InputError, match="needs scores"):
        load_collection(d, d, order="score")
    write(d / "T1" / "S.res", "d1 L1\n")                     # a .res line must be one DOCID
    with pytest.raises(InputError) as e:
        load_collection(d, d)
    assert e.value.path.endswith("S.res") and e.value.line == 1


@pytest.mark.parametrize("bad", ["abc", "1.2.3", "--1", "1e"])
def test_run_non_numeric_score_order_score(tmp_path, bad):
    e = error(tmp_path, run=RUN + f"T1 Q0 d7 3 {bad} r\n", order="score")
    assert e.line == 6 and "score" in str(e) and bad in str(e)
