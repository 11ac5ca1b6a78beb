"""``metaeval trec_eval``: byte for byte what trec_eval 10.0 prints.

* every case of trec_eval's own test suite (``shared/data/trec-eval-tests``, its README lists the
  commands) but the preference formats, which are refused with a one-line message;
* the 37 TREC DL 2019 passage runs against trec_eval 10.0's outputs in
  ``trec-dl19-passage/reference/trec_eval`` (``-q -c -m all_trec``, ``-q -c -l2 -M100 -m all_trec``,
  ``-q -J -l2 -m all_trec``), all runs in one call (run after run);
* trec_eval's malformed-input cases: one line naming file and line, trec_eval 10.0's exit status (2
  for a malformed file, 4 for what it finds computing a measure); refused options exit 2.
"""

from __future__ import annotations

import gzip

import pytest

from metaeval.cli import main

CASES = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m",
                              "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m",
                              "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4",
                              "-msuccess.2,5,20", "qrels.test", "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"]),
]

PREFS = [
    ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"],
    ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"],
    ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"],
]


def _run(args, capsys):
    rc = main(["trec_eval", *args])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


@pytest.fixture(scope="module")
def suite(shared_data):
    return shared_data / "trec-eval-tests"


@pytest.mark.shared_data
@pytest.mark.parametrize("expected,args", CASES, ids=[f"{e}:{i}" for i, (e, _) in enumerate(CASES)])
def test_trec_eval_suite(suite, expected, args, capsys, monkeypatch):
    monkeypatch.chdir(suite)
    rc, out, err = _run(args, capsys)
    assert rc == 0, err
    assert out == (suite / expected).read_text()


@pytest.mark.shared_data
@pytest.mark.parametrize("args", PREFS, ids=["prefs", "qrels_prefs", "qrels_jg"])
def test_preference_formats_refused(suite, args, capsys, monkeypatch):
    monkeypatch.chdir(suite)
    rc, out, err = _run(args, capsys)
    assert rc == 2 and out == ""
    assert "not supported" in err.splitlines()[0]


DL19_CASES = {"aqc": ["-q", "-c", "-m", "all_trec"],
              "aqcl2M100": ["-q", "-c", "-l2", "-M100", "-m", "all_trec"],
              "aqJl2": ["-q", "-J", "-l2", "-m", "all_trec"]}


@pytest.mark.shared_data
@pytest.mark.parametrize("case", sorted(DL19_CASES))
def test_dl19_reference(shared_data, case, capsys):
    dl = shared_data / "trec-dl19-passage"
    runs = sorted((dl / "runs").glob("*.run.gz"))
    assert len(runs) == 37
    rc, out, err = _run([*DL19_CASES[case], str(dl / "qrels.txt"), *map(str, runs)], capsys)
    assert rc == 0, err
    ref = "".join(gzip.open(dl / "reference" / "trec_eval" / case / (r.name[:-len(".run.gz")] + ".txt.gz"),
                            "rt").read() for r in runs)
    assert out == ref


# ----------------------------------------------------------------------------------- bad input
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"
RUN = "1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n2 Q0 c 1 1.0 r\n"


@pytest.mark.parametrize("qrels,run,args,where,code", [
    # trec_eval 10.0's exit statuses: 2 "Quit in file" (malformed), 4 "Can't calculate measure" /
    # "result qid not found" (duplicate docs, a missing topic)
    ("1 0 a\n", RUN, [], "qrels.txt:1", 2),                          # 3 fields
    ("1 0 a 1\n\n2 0 c 2\n", RUN, [], "qrels.txt:2", 2),              # blank qrels line
    ("1 0 a 1 x\n", RUN, [], "qrels.txt:1", 2),                      # 5 fields
    (QRELS, "1 Q0 a 1 3.0 r\n1 Q0 b 2\n", [], "run.txt:2", 2),        # short run line
    (QRELS, "1 Q0 a 1 3.0 r\n1 Q0 a 2 2.0 r\n2 Q0 c 1 1 r\n", [], "run.txt:2", 4),   # duplicate doc
    ("1 0 a 1\n1 0 a 0\n2 0 c 1\n", RUN, [], "qrels.txt:2", 4),       # judged twice
    (QRELS, "1 Q0 a 1 3.0 r\n", [], "run.txt", 4),                    # qrels topic 2 missing, no -c
    (QRELS, "1 Q0 a 1 3.0 r\n", [], "--trec-eval-version 9", 4),      # ... says how to skip it
    (QRELS, RUN, ["-M", "-1"], "-M -1", 2),                          # trec_eval 10.0 crashes on it
    (QRELS, RUN, ["-m", "nosuch"], "illegal measure", 2),
    (QRELS, RUN, ["-m", "P.0,5"], "Negative cutoff", 2),
    (QRELS, RUN, ["-m", "P.5,5"], "duplicate cutoffs", 2),
    (QRELS, RUN, ["-m", "ndcg.1"], "malformed pair", 2),
    (QRELS, RUN, ["-m", "P."], "improper measure", 2),
    (QRELS, RUN, ["-D", "1"], "not supported", 2),
    (QRELS, RUN, ["-R", "foo"], "Illegal rel_format", 2),
])
def test_bad_input(tmp_path, capsys, qrels, run, args, where, code):
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.txt").write_text(run)
    rc, out, err = _run([*args, str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")], capsys)
    assert rc == code and out == ""
    assert where in err.splitlines()[0]
    assert "Traceback" not in err


def test_small_example_literal(tmp_path, capsys):
    """A hand-checked example: ties broken by DOCID descending, negative judgment = pooled unjudged,
    ``#`` comments skipped, extra run columns ignored."""
    (tmp_path / "q").write_text("# comment\n1 0 a 1\n1 0 b 0\n1 0 c -1\n1 0 d 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 x\n# c\n1 Q0 b 2 1.0 x extra\n1 Q0 d 3 0.5 x\n"
                                "1 Q0 e 4 2.0 x\n1 Q0 c 5 0.1 run1\n")
    rc, out, err = _run(["-q", "-m", "relstring", "-m", "map", "-m", "P.2", str(tmp_path / "q"),
                         str(tmp_path / "r")], capsys)
    assert rc == 0, err
    # ranking: e (2.0), then b, a tie at 1.0 -> docno descending: b, a; then d, c
    # rel: e nonpool '-', b 0, a 1, d 2, c unjudged '.'; relevant (>=1): a at 3, d at 4; R = 2
    ap = (1 / 3 + 2 / 4) / 2
    assert out.splitlines() == [
        f"map                   \t1\t{ap:6.4f}",
        "P_2                   \t1\t0.0000",
        "relstring             \t1\t'-012.'",
        f"map                   \tall\t{ap:6.4f}",
        "P_2                   \tall\t0.0000",
    ]


@pytest.mark.shared_data
def test_results_from_stdin(suite, capsys, monkeypatch):
    """trec_eval 10.0 reads the results from stdin when the file is '-'."""
    import io
    import sys

    monkeypatch.chdir(suite)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((suite / "results.test").read_bytes())))
    rc, out, err = _run(["qrels.test", "-"], capsys)
    assert rc == 0, err
    assert out == (suite / "out.test").read_text()


@pytest.mark.shared_data
def test_version_9_switch(suite, capsys, monkeypatch):
    """--trec-eval-version 9: a qrels topic missing from the run is skipped (10.0 stops), and
    with -c it counts in the summary without per-topic lines."""
    monkeypatch.chdir(suite)
    rc, out, err = _run(["--trec-eval-version", "9", "-q", "qrels.test", "results.trunc"], capsys)
    assert rc == 0, err
    assert "num_q                 \tall\t2" in out.splitlines()
    rc, out_c, err = _run(["--trec-eval-version", "9", "-q", "-c", "-m", "all_trec", "qrels.test",
                           "results.trunc"], capsys)
    rc10, out10, _ = _run(["-q", "-c", "-m", "all_trec", "qrels.test", "results.trunc"], capsys)
    topics10 = {line.split("\t")[1] for line in out10.splitlines()} - {"all"}
    topics9 = {line.split("\t")[1] for line in out_c.splitlines()} - {"all"}
    assert len(topics9) == len(topics10) - 1
    summ = lambda text: [x for x in text.splitlines() if "\tall\t" in x]   # noqa: E731
    assert summ(out_c) == summ(out10)           # the same summary: the missing topic counts as 0


def test_score_reader_is_strtod_exact(tmp_path):
    """The vectorised score reader gives C's strtod (= Python's float, both correctly rounded) bit
    for bit, signed zeros included, on repr/%.17g/%e forms and odd tokens (atof's prefix rule)."""
    import numpy as np

    from metaeval.io.treceval import read_trec_run

    rng = np.random.default_rng(7)
    x = rng.normal(0, 1, 6000) * 10.0 ** rng.integers(-25, 25, 6000)
    toks = [repr(float(v)) for v in x] + ["%.17g" % v for v in x[:2000]] + ["%.6e" % v for v in x[:2000]]
    toks += ["-0", "0.000", "1e5", ".5", "5.", "+3", "1e-400", "12345678901234567890123", "9007199254740993",
             "0.1000000000000000055511151231257827", "5e-", "1.5abc", "abc", "-0e3", "1E+2"]
    (tmp_path / "r").write_text("".join(f"1 Q0 d{i} {i} {t} x\n" for i, t in enumerate(toks)))
    got = read_trec_run(tmp_path / "r").scores

    def atof(t):
        import re
        m = re.match(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", t)
        return float(m.group(0)) if m else 0.0

    want = np.array([atof(t) for t in toks])
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))


def _small_runs(tmp_path, n, capsys, monkeypatch):
    """``n`` small run files (about 50 bytes each) beside the qrels: ``(runs, args, output of one
    process)``."""
    (tmp_path / "q").write_text(QRELS)
    runs = []
    for i in range(n):
        p = tmp_path / f"r{i}"
        p.write_text(f"1 Q0 a 1 {i}.5 r{i}\n1 Q0 b 2 {4 - i}.0 r{i}\n2 Q0 c 1 1.0 r{i}\n")
        runs.append(str(p))
    args = ["-q", "-m", "all_trec", str(tmp_path / "q"), *runs]
    monkeypatch.setenv("METAEVAL_SERIAL", "1")
    rc, serial, err = _run(args, capsys)
    assert rc == 0, err
    monkeypatch.delenv("METAEVAL_SERIAL")
    return runs, args, serial


def _fork_spy(monkeypatch) -> list:
    """Count the processes the drop-in forks (in the parent: the child's count is its own)."""
    import os

    forks, real = [], os.fork

    def spy():
        forks.append(1)
        return real()

    monkeypatch.setattr(os, "fork", spy)
    return forks


def test_byte_order_mark_stripped_with_a_note(tmp_path, capsys):
    """A UTF-8 byte-order mark: stripped, with a note on stderr (trec_eval 10.0 would read it as
    part of the first topic id); the values are those of the file without it."""
    (tmp_path / "q").write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "q0").write_text(QRELS)
    rc, out, err = _run(["-q", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r")], capsys)
    assert rc == 0 and "byte-order mark" in err and str(tmp_path / "q") in err
    rc0, out0, err0 = _run(["-q", "-m", "map", str(tmp_path / "q0"), str(tmp_path / "r")], capsys)
    assert out == out0 and err0 == ""


def test_forked_halves_equal_serial(tmp_path, capsys, monkeypatch):
    """Runs evaluated in two halves, the second by a forked process, print what one process
    prints, run after run in the order given; the first rejected run in that order is the one
    reported, from either half, and nothing is printed."""
    from metaeval.treceval import schedule as te

    runs, args, serial = _small_runs(tmp_path, 5, capsys, monkeypatch)
    monkeypatch.setattr(te, "_PARALLEL_BYTES", 0)
    assert te._halves(runs, [te._size(r) for r in runs]) == 3          # r0-r2 here, r3-r4 forked
    assert te._halves(runs, [1, 1, 1, 1, 100]) == 4 and te._halves(runs, [100, 1, 1, 1, 1]) == 1
    forks = _fork_spy(monkeypatch)
    rc, out, err = _run(args, capsys)
    assert rc == 0, err
    assert forks == [1] and out == serial
    assert [ln.split("\t")[2] for ln in out.splitlines() if ln.startswith("runid")] == [f"r{i}" for i in range(5)]
    bad = "1 Q0 a 1 3.0 r\n1 Q0 a 2 2.0 r\n2 Q0 c 1 1 r\n"           # a document twice: line 2
    good = {i: (tmp_path / f"r{i}").read_text() for i in (2, 3, 4)}
    for rejected, reported in (((2, 4), "r2"), ((3, 4), "r3"), ((4,), "r4")):
        for i in (2, 3, 4):
            (tmp_path / f"r{i}").write_text(bad if i in rejected else good[i])
        rc, out, err = _run(args, capsys)
        assert rc == 4 and out == "", rejected                     # duplicate docs: trec_eval's 4
        assert f"{reported}:2" in err.splitlines()[0] and "Traceback" not in err, (rejected, err)


def test_forked_process_failing_is_one_line(tmp_path, capsys, monkeypatch):
    """Anything but an input error in the forked process (here an exception on run r3, the
    second half's first) is reported in one line naming the runs it evaluated: exit status 1,
    nothing printed, no traceback."""
    from metaeval.treceval import schedule as te

    runs, args, serial = _small_runs(tmp_path, 5, capsys, monkeypatch)
    monkeypatch.setattr(te, "_PARALLEL_BYTES", 0)
    real = te._group_text

    def failing(o, q, paths):
        if runs[3] in paths:
            raise MemoryError("no room")
        return real(o, q, paths)

    monkeypatch.setattr(te, "_group_text", failing)
    rc, out, err = _run(args, capsys)
    assert rc == 1 and out == "" and "Traceback" not in err
    assert err.splitlines() == [f"metaeval trec_eval: error: the process evaluating {runs[3]} and the runs "
                                f"after it failed (MemoryError: no room)"]


def test_forked_only_for_many_runs_none_larger_than_the_fork_limit(tmp_path, capsys, monkeypatch):
    """A second process for many small runs; a run larger than ``_FORK_MAX_RUN`` is evaluated in
    this process (two such scans at once would double the peak memory), and so are runs that add
    up to less than ``_PARALLEL_BYTES``; the bytes printed are the same either way, and so they are
    whatever the runs' grouping."""
    from metaeval.treceval import schedule as te

    runs, args, serial = _small_runs(tmp_path, 4, capsys, monkeypatch)
    forks = _fork_spy(monkeypatch)
    assert _run(args, capsys)[:2] == (0, serial) and forks == []      # 200 bytes: one process
    monkeypatch.setattr(te, "_PARALLEL_BYTES", 0)
    assert _run(args, capsys)[:2] == (0, serial) and forks == [1]
    monkeypatch.setattr(te, "_FORK_MAX_RUN", 40)                      # every run is larger
    assert _run(args, capsys)[:2] == (0, serial) and forks == [1]
    monkeypatch.setattr(te, "_GROUP_BYTES", 100)                      # two runs a group
    assert [len(g) for g in te._groups(runs)] == [2, 2]
    assert _run(args, capsys)[:2] == (0, serial) and forks == [1]
