"""One test per case of bad input, interrupted runs and stale caches (docs/io.md states
each rule).  Each test is the reproduction and the fixed behaviour: clean values, or a one-line
error naming file and line, never a traceback, never a mixed output."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

from metaeval.cli import main
from metaeval.errors import InputError
from metaeval.io import load_collection, load_or_build, read_qrels

ROOT = Path(__file__).resolve().parents[2]
from conftest import WWW4  # noqa: E402
BOM = b"\xef\xbb\xbf"
QRELS = b"T1 d1 L1\nT1 d2 L0\nT1 d3 L2\nT2 d1 L2\nT2 d4 L1\n"
RUN = (b"T1 Q0 d3 1 3.5 r\nT1 Q0 d2 2 2.5 r\nT1 Q0 d1 3 1.5 r\n"
       b"T2 Q0 d4 1 3 r\nT2 Q0 d9 2 2 r\nT2 Q0 d1 3 1 r\n")


def wb(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def collection(tmp_path, qrels=QRELS, run=RUN, name="R.run", **kw):
    q = wb(tmp_path / "qrels.txt", qrels)
    r = wb(tmp_path / "runs" / name, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_collection(q, r, **kw)


def cli(args, capsys):
    try:
        rc = main([str(a) for a in args])
    except SystemExit as e:                 # usage errors (exit 2) come from argparse
        rc = e.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def one_line_error(err: str, path) -> None:
    lines = [ln for ln in err.splitlines() if ln.startswith("metaeval: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert str(path) in lines[0], err


def shared_or_skip(path: Path) -> Path:
    from conftest import require_data

    return require_data(path)


# ------------------------------------------------------------------------- case 1: BOMs
def test_case1_bom_stripped_in_qrels_run_and_res(tmp_path):
    clean = collection(tmp_path / "a")
    for qb, rb in ((BOM + QRELS, RUN), (QRELS, BOM + RUN), (BOM + QRELS, BOM + RUN)):
        c = collection(tmp_path / "b", qb, rb)
        assert c.topics == clean.topics == ("T1", "T2")
        np.testing.assert_array_equal(c.levels, clean.levels)
    # NTCIREVAL per-topic .res: the first document stays judged
    root = tmp_path / "res"
    wb(root / "T1" / "T1.rel", BOM + b"d1 L1\nd2 L0\n")
    wb(root / "T1" / "R.res", BOM + b"d1\nd2\n")
    c = load_collection(root, root)
    np.testing.assert_array_equal(c.levels[0, 0, :2], [1, 0])


def test_case1_bom_on_real_www4_qrels_keeps_scores(tmp_path):
    www4 = shared_or_skip(WWW4)
    q = wb(tmp_path / "q.txt", BOM + (www4 / "qrels.txt").read_bytes())
    runs = sorted((www4 / "runs").iterdir())[:1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = load_collection(www4 / "qrels.txt", runs)
        b = load_collection(q, runs)
    assert a.topics == b.topics and "\ufeff0201" not in b.topics
    np.testing.assert_array_equal(a.levels, b.levels)
    np.testing.assert_array_equal(a.level_counts, b.level_counts)


@pytest.mark.parametrize("data, what", [
    (b"\xff\xfe" + "T1 d1 L1\n".encode("utf-16-le"), "UTF-16"),
    ("T1 d1 L1\n".encode("utf-16-be"), "NUL"),
    (b"T1 d1 L1\n" + BOM + b"T1 d2 L0\n", "byte-order mark"),
    (b"T1 d1 L1\nT1 d\xe9 L0\n", "not UTF-8"),
])
def test_case1_other_encodings_refused(tmp_path, data, what):
    q = wb(tmp_path / "q.txt", data)
    with pytest.raises(InputError, match=what) as e:
        read_qrels(q)
    assert e.value.path == str(q) and e.value.line is not None


# ------------------------------------------------------------------ case 2: long ids
def _peak(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("where", ["run", "qrels"])
def test_case2_long_id_memory_proportional(tmp_path, where):
    long_id = b"x" * (1 << 20)                                  # 1 MB document id
    base = b"".join(b"T1 Q0 d%d %d 1 r\n" % (i, i) for i in range(20000))
    run = base + b"T1 Q0 " + long_id + b" 9 1 r\n" if where == "run" else base
    qrels = QRELS + (b"T1 " + long_id + b" L1\n" if where == "qrels" else b"")
    size = len(run) + len(qrels)
    peak = _peak(lambda: collection(tmp_path, qrels, run))
    assert peak < 40 * size, (peak, size)                     # was 42-72 GiB
    c = collection(tmp_path, qrels, run)
    if where == "qrels":
        assert c.level_counts[0].sum() == 4


def test_case2_long_id_labels_exact(tmp_path):
    a, b = b"y" * 10000, b"y" * 9999 + b"z"
    q = b"T1 " + a + b" L2\nT1 " + b + b" L1\nT1 d1 L0\n"
    r = b"T1 Q0 " + b + b" 1 1 r\nT1 Q0 d1 2 1 r\nT1 Q0 " + a + b" 3 1 r\nT1 Q0 " + a + b" 4 1 r\n"
    c = collection(tmp_path, q, r)
    np.testing.assert_array_equal(c.levels[0, 0, :4], [1, 0, 2, -2])   # repeat of a dropped


# ------------------------------------------------------------------------ case 3: scores
@pytest.mark.parametrize("score", ["\u0661\u0662", "1_000", "0x1p3", "1e", "nan(1)", "１"])
def test_case3_bad_scores_one_line_error(tmp_path, capsys, score):
    run = RUN.replace(b"T1 Q0 d2 2 2.5 r", b"T1 Q0 d2 2 " + score.encode() + b" r")
    q = wb(tmp_path / "qrels.txt", QRELS)
    r = wb(tmp_path / "runs" / "R.run", run)
    for order in ("score", "file"):
        rc, _, err = cli(["evaluate", "--qrels", q, "--runs", r, "--order", order, "--metrics", "AP"], capsys)
        assert rc == 1
        one_line_error(err, f"{r}:2")


def test_case3_nan_scores_rank_last(tmp_path):
    run = (b"T1 Q0 d3 1 nan r\nT1 Q0 d2 2 -inf r\nT1 Q0 d1 3 2 r\n"
           b"T2 Q0 d4 1 NaN r\nT2 Q0 d1 2 -NAN r\nT2 Q0 d9 3 inf r\n")
    c = collection(tmp_path, QRELS, run, order="score")
    np.testing.assert_array_equal(c.levels[0, 0, :3], [1, 0, 2])      # d1(2), d2(-inf), d3(nan)
    np.testing.assert_array_equal(c.levels[0, 1, :3], [-1, 1, 2])     # d9(inf), then NaNs d4 > d1


# ------------------------------------------------------------------------- case 4: gains
def test_case4_gains_rule_everywhere(tmp_path, capsys):
    q = wb(tmp_path / "qrels.txt", QRELS)                             # levels L0..L2
    r = wb(tmp_path / "runs" / "R.run", RUN)
    rc, out3, _ = cli(["evaluate", "--qrels", q, "--runs", r, "--gains", "1:2:3", "--metrics", "RBP",
                       "ERR", "--no-means"], capsys)
    assert rc == 0
    rc, out2, _ = cli(["evaluate", "--qrels", q, "--runs", r, "--gains", "1:2", "--metrics", "RBP", "ERR",
                       "--no-means"], capsys)
    assert rc == 0 and out3 != out2                                    # H = 3: the third value counts
    # the same numbers as the drop-in (ntcir compute -g 1:2:3) on topic T1
    rel = wb(tmp_path / "T1.rel", b"d1 L1\nd2 L0\nd3 L2\n")
    lab = wb(tmp_path / "T1.lab", b"d3 L2\nd2 L0\nd1 L1\n")
    rc, drop, _ = cli(["ntcir", "compute", "-r", rel, "-g", "1:2:3", "-out", "T1", lab], capsys)
    for name in ("RBP=", "ERR="):
        a = [ln for ln in out3.splitlines() if ln.startswith("T1 " + name)]
        b = [ln for ln in drop.splitlines() if ln.startswith("T1 " + name)]
        assert a == b and a, (a, b)
    for cmd in (["evaluate", "--runs", r], ["matrices", "--runs", r, "--out", tmp_path / "m"]):
        rc, _, err = cli([cmd[0], "--qrels", q, *cmd[1:], "--gains", "3:2:1", "--metrics", "AP"], capsys)
        assert rc == 2 and "must not decrease" in err
        rc, _, err = cli([cmd[0], "--qrels", q, *cmd[1:], "--gains", "1", "--metrics", "AP"], capsys)
        assert rc == 1 and "labels above H" in err
    assert not (tmp_path / "m").exists()
    from metaeval.checks import check_collection
    with pytest.raises(InputError, match="must not decrease"):
        check_collection("c", q, r, "3:2:1")
    with pytest.raises(InputError, match="labels above H"):
        check_collection("c", q, r, "1")
    check_collection("c", q, r, "1:2:3")


# ----------------------------------------------------------------- case 5, 6, 7: meta/matrices
@pytest.fixture
def matrices_dir(tmp_path):
    rng = np.random.default_rng(0)
    q = wb(tmp_path / "q.txt", "".join(f"T{t} d{d} L{(d + t) % 3}\n" for t in range(3)
                                       for d in range(8)).encode())
    for r in range(2):
        wb(tmp_path / "runs" / f"R{r}.run", "".join(
            f"T{t} Q0 d{d} {k} {10 - k} x\n" for t in range(3)
            for k, d in enumerate(rng.permutation(8))).encode())
    m = tmp_path / "m"
    assert main(["matrices", "--qrels", str(q), "--runs", str(tmp_path / "runs"), "--out", str(m),
                 "--metrics", "AP", "Q-measure", "--quiet"]) == 0
    return m


def test_case5_meta_unknown_metric_one_line_error(tmp_path, capsys, matrices_dir):
    rc, _, err = cli(["meta", "--matrices", matrices_dir, "--out", tmp_path / "o", "--metrics", "NOPE",
                      "--B", "20", "--no-figures", "--quiet"], capsys)
    assert rc == 1 and "NOPE" in err and "available: AP, Q-measure" in err
    one_line_error(err, matrices_dir)


def test_case6_matrices_out_is_a_file(tmp_path, capsys):
    q = wb(tmp_path / "qrels.txt", QRELS)
    r = wb(tmp_path / "runs" / "R.run", RUN)
    f = wb(tmp_path / "file.txt", b"keep")
    rc, _, err = cli(["matrices", "--qrels", q, "--runs", r, "--out", f, "--metrics", "AP", "--quiet"], capsys)
    assert rc == 1 and f.read_bytes() == b"keep"
    one_line_error(err, f)


def test_case7_two_runs_three_topics_no_warning_no_inf(tmp_path, matrices_dir, capsys):
    out = tmp_path / "o"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)          # any RuntimeWarning fails the run
        rc, _, err = cli(["meta", "--matrices", matrices_dir, "--out", out, "--B", "200", "--no-figures",
                          "--quiet"], capsys)
    assert rc == 0 and "warning" not in err.lower(), err
    md = (out / "tables" / "tstar.md").read_text()
    assert "inf" not in md and "nan" not in md.lower()
    from metaeval.meta.bootstrap import tstar_summary
    import pandas as pd

    def summ(ts, t0):
        df = pd.DataFrame({"metric": "m", "system_x": "x", "system_y": "y", "t_observed": t0, "t_star": ts})
        r = tstar_summary(df).iloc[0]
        return r["mean"], r["sd"], r["asl"]

    mean, sd, asl = summ([np.inf, -np.inf, 1.0, 3.0], 2.0)
    assert (mean, asl) == (2.0, 0.75) and sd == pytest.approx(2 ** 0.5)
    mean, sd, asl = summ([np.inf], 1.0)
    assert np.isnan(mean) and np.isnan(sd) and asl == 1.0


# ------------------------------------------------------------------ case 8/9: the pipeline
def _pipeline(tmp_path, runs_dir, gains='"1:2"'):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"collections:\n  c1:\n    qrels: {tmp_path / 'qrels.txt'}\n    runs: {runs_dir}\n"
                   f"    gains: {gains}\n    top_runs: null\nmetrics: [AP, RR]\n"
                   f"bootstrap: {{B: 20}}\nkishida: {{enabled: false}}\n"
                   f"sweeps: {{gains: {{enabled: false}}}}\n")
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
           "--profile", str(ROOT / "workflow" / "profiles" / "default"), "--configfile", str(cfg), "-c1"]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})


@pytest.mark.slow
def test_case8_failed_job_shows_its_cause_on_the_console(tmp_path):
    wb(tmp_path / "qrels.txt", QRELS)
    wb(tmp_path / "runs" / "A.run", RUN)
    wb(tmp_path / "runs" / "B.run", RUN.replace(b"2.5", b"two"))       # found only by the job
    r = _pipeline(tmp_path, tmp_path / "runs")
    assert r.returncode != 0
    console = r.stdout + r.stderr
    assert "score 'two' is not a number" in console, console[-3000:]


@pytest.mark.parametrize("case", ["empty runs", "gains"])
def test_case9_errors_found_before_any_job(tmp_path, case):
    wb(tmp_path / "qrels.txt", QRELS)
    (tmp_path / "empty").mkdir()
    wb(tmp_path / "runs" / "A.run", RUN)
    if case == "empty runs":
        r, msg = _pipeline(tmp_path, tmp_path / "empty"), "run directory holds no files"
    else:
        r, msg = _pipeline(tmp_path, tmp_path / "runs", '"1"'), "labels above H"
    console = r.stdout + r.stderr
    assert r.returncode != 0 and msg in console and "collections.c1" in console, console[-3000:]
    assert "Execute" not in console and not (tmp_path / "results").exists()


# ----------------------------------------------------------------------- case 11: the cache
def test_case11_cache_keyed_on_content_not_mtime(tmp_path):
    q = wb(tmp_path / "qrels.txt", QRELS)
    r = wb(tmp_path / "runs" / "R.run", RUN)
    cache = tmp_path / "c.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = load_or_build(q, r, cache)
        st = r.stat()
        wb(r, RUN.replace(b"T1 Q0 d3 1", b"T1 Q0 d7 1"))                # same size, other content
        os.utime(r, ns=(st.st_atime_ns, st.st_mtime_ns - 10**9))        # and an older mtime
        b = load_or_build(q, r, cache)
    assert a.levels[0, 0, 0] == 2 and b.levels[0, 0, 0] == -1


# ------------------------------------------------------------------- case 12: ntcir label
def test_case12_ntcir_label_duplicate_judgment_message(tmp_path, capsys, monkeypatch):
    import io
    rel = wb(tmp_path / "0201.rel", b"d1 L1\nd1 L2\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO("d1\n"))
    rc, _, err = cli(["ntcir", "label", "-r", rel], capsys)
    assert rc == 1 and "topic topic" not in err and "of topic" not in err
    assert f"{rel}:2: document d1 is judged L1 at {rel}:1 and L2 at {rel}:2" in err


def test_case1_bom_in_ntcir_label_input(tmp_path, capsys):
    rel = wb(tmp_path / "0201.rel", b"d1 L1\nd2 L0\n")
    res = wb(tmp_path / "R.res", BOM + b"d1\nd2\n")
    rc, out, _ = cli(["ntcir", "label", "-r", rel, res], capsys)
    assert rc == 0 and out == "d1 L1\nd2 L0\n"
