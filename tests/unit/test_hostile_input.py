"""The promise under hostile input, for every command of ``metaeval --help``: one line naming the file
(exit 1) for rejected input, exit 2 for bad usage before any input is read, no traceback, nothing
written or left behind when input is rejected or the command is interrupted.

Table-driven: :data:`ROWS` holds one row per command (a valid command line on small inputs and its
file options); the cases are derived from the rows and from the parsers themselves (every option
whose argparse type declares its accepted range gets an out-of-range value), so a command added
later is covered by adding its row -- :func:`test_every_command_has_a_row` fails until it is there.
Everything runs in-process (``metaeval.cli.main``) except the signal cases, which need a process of
their own to kill.  :data:`PUBLISH_CAUSES` holds a row per cause of issue 48 that the one publisher
(:mod:`metaeval.publish`) answers: the user's files kept, clashes refused, a failed commit undone,
stale files removed, the API's writes atomic, a closed stdout, ``--out`` no folder, SIGHUP/SIGQUIT.
"""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from metaeval.cli import _commands, build_parser, main

ROOT = Path(__file__).resolve().parents[2]
T, D, R = 5, 8, 4                      # topics, documents per topic, runs


# ------------------------------------------------------------------ the small inputs
def _qrels(rng, shift=0) -> str:
    return "".join(f"{t + 1} 0 d{t}-{k} {(int(rng.integers(0, 3)) + shift) % 3 if k else 2}\n"
                   for t in range(T) for k in range(D))


def _run(rng, name) -> str:
    return "".join(f"{t + 1} Q0 d{t}-{k} {i + 1} {20 - i}.5 {name}\n"
                   for t in range(T) for i, k in enumerate(rng.permutation(D)))


@pytest.fixture(scope="module")
def inp(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("hostile")
    rng = np.random.default_rng(41)
    (d / "qrels.txt").write_text(_qrels(rng))
    (d / "qrels2.txt").write_text(_qrels(rng, 1))
    (d / "gains.txt").write_text((d / "qrels.txt").read_text().replace(" 2\n", " 1\n"))      # C/W/L gains in [0, 1]
    (d / "runs").mkdir()
    for r in range(R):
        (d / "runs" / f"R{r}.run").write_text(_run(rng, f"R{r}"))
    (d / "mats").mkdir()
    for m in ("AP", "RR"):
        x = rng.random((T, R))
        (d / "mats" / f"{m}.csv").write_text(
            "topic," + ",".join(f"R{r}" for r in range(R)) + "\n"
            + "".join(f"{t + 1}," + ",".join(repr(float(v)) for v in x[t]) + "\n" for t in range(T)))
    (d / "results").mkdir()
    for r in range(R):
        (d / "results" / f"R{r}").write_text("".join(f"map {t + 1} {rng.random():.4f}\n" for t in range(T)))
    (d / "divqrels.txt").write_text("".join(f"{t + 1} {i} d{t}-{k} {int(rng.integers(0, 2)) if k else 1}\n"
                                            for t in range(T) for i in (1, 2) for k in range(D)))
    return d


# ------------------------------------------------------------------ one row per command
@dataclass
class Row:
    """``argv(inp, out)``: a command line that succeeds on the small inputs; ``files``: its file
    options, each ``(flag or None for a positional, input path relative to inp, kind)``, kind
    ``qrels``/``run``/``matrix``/``results``/``divqrels``; ``out``: whether it takes ``--out``."""

    argv: object
    files: list = field(default_factory=list)
    out: bool = True


def _runs(i):
    return str(i / "runs")


ROWS: dict[str, Row] = {
    "bayes": Row(lambda i, o: ["bayes", "--matrices", str(i / "mats"), "--metrics", "AP", "--draws", "100", "--chains",
                               "2", "--no-figures", "--out", str(o), "--quiet"],
                 [("--matrices", "mats/AP.csv", "matrix")]),
    "compare": Row(lambda i, o: ["compare", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i), "--metrics", "AP",
                                 "--out", str(o), "--quiet"],
                   [("--qrels", "qrels.txt", "qrels"), ("--runs", "runs/R1.run", "run")]),
    "cwl_eval": Row(lambda i, o: ["cwl_eval", str(i / "gains.txt"), str(i / "runs" / "R0.run")],
                    [(None, "gains.txt", "qrels"), (None, "runs/R0.run", "run")], out=False),
    "evaluate": Row(lambda i, o: ["evaluate", "--qrels", str(i / "qrels.txt"), "--run", str(i / "runs" / "R0.run"),
                                  "--metrics", "AP", "--out", str(o)],
                    [("--qrels", "qrels.txt", "qrels"), ("--run", "runs/R0.run", "run")]),
    "incompleteness": Row(lambda i, o: ["incompleteness", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i),
                                        "--metrics", "AP", "--fractions", "0.5", "--trials", "2", "--B", "20",
                                        "--no-condensed", "--no-figures", "--out", str(o), "--quiet"],
                          [("--qrels", "qrels.txt", "qrels"), ("--runs", "runs/R1.run", "run")]),
    "ingest": Row(lambda i, o: ["ingest", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i), "--out", str(o)],
                  [("--qrels", "qrels.txt", "qrels"), ("--runs", "runs/R1.run", "run")]),
    "judgments": Row(lambda i, o: ["judgments", "--qrels", f"a={i / 'qrels.txt'}", f"b={i / 'qrels2.txt'}",
                                   "--results", f"c={i / 'results'}", "--metrics", "trec.map", "--reference", "a",
                                   "--runs", _runs(i), "--B", "20", "--no-figures", "--out", str(o), "--quiet"],
                     [("--qrels", "qrels2.txt", "qrels"), ("--runs", "runs/R1.run", "run"),
                      ("--results", "results/R1", "results")]),
    "matrices": Row(lambda i, o: ["matrices", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i), "--metrics", "AP",
                                  "--out", str(o), "--quiet"],
                    [("--qrels", "qrels.txt", "qrels"), ("--runs", "runs/R1.run", "run")]),
    "measures": Row(lambda i, o: ["measures"], out=False),
    "meta": Row(lambda i, o: ["meta", "--matrices", str(i / "mats"), "--B", "20", "--rthsd-B", "20", "--no-figures",
                              "--out", str(o), "--quiet"],
                [("--matrices", "mats/RR.csv", "matrix")]),
    "ndeval": Row(lambda i, o: ["ndeval", str(i / "divqrels.txt"), str(i / "runs" / "R0.run")],
                  [(None, "divqrels.txt", "divqrels"), (None, "runs/R0.run", "run")], out=False),
    "ntcir": Row(lambda i, o: ["ntcir", "compute", "-r", str(i / "qrels.txt"), "-out", "x"], out=False),
    "ppi": Row(lambda i, o: ["ppi", "--qrels", str(i / "qrels.txt"), "--judge", str(i / "qrels2.txt"), "--runs",
                             _runs(i), "--metrics", "AP", "--labelled", "3", "--trials", "5", "--sizes", "2,3",
                             "--no-figures", "--out", str(o), "--quiet"],
               [("--qrels", "qrels.txt", "qrels"), ("--judge", "qrels2.txt", "qrels"), ("--runs", "runs/R1.run", "run")]),
    "paper_tables": Row(lambda i, o: ["paper-tables", "kishida", "--L", "3", "--M", "5", "--out", str(o)]),
    "reproducibility": Row(lambda i, o: ["reproducibility", "--qrels", str(i / "qrels.txt"), "--orig",
                                         str(i / "runs" / "R0.run"), str(i / "runs" / "R1.run"), "--rep",
                                         f"x={i / 'runs' / 'R2.run'},{i / 'runs' / 'R3.run'}", "--metrics", "AP",
                                         "--no-figures", "--out", str(o), "--quiet"],
                           [("--qrels", "qrels.txt", "qrels"), ("--orig", "runs/R1.run", "run")]),
    "simulate": Row(lambda i, o: ["simulate", "--params", '{"topics": 3, "runs": 3}', "--out", str(o), "--quiet"]),
    "stage": Row(lambda i, o: ["stage", "kendall", "--matrices", str(i / "mats"), "--out", str(o), "--quiet"],
                 [("--matrices", "mats/RR.csv", "matrix")]),
    "standardisation": Row(lambda i, o: ["standardisation", "--matrices", str(i / "mats"), "--topics", "2",
                                         "--trials", "5", "--no-figures", "--out", str(o), "--quiet"],
                           [("--matrices", "mats/RR.csv", "matrix")]),
    "standardise": Row(lambda i, o: ["standardise", "--matrices", str(i / "mats"), "--out", str(o), "--quiet"],
                       [("--matrices", "mats/RR.csv", "matrix")]),
    "error_rates": Row(lambda i, o: ["test-errors", "--matrices", str(i / "mats"), "--metrics", "AP", "--pairs", "1",
                                     "--trials", "5", "--topics", "5", "--deltas", "0.05", "--B", "10", "--tests",
                                     "paired-t", "--no-figures", "--out", str(o), "--quiet"],
                       [("--matrices", "mats/AP.csv", "matrix")]),          # the metric it reads
    "trec_eval": Row(lambda i, o: ["trec_eval", str(i / "qrels.txt"), str(i / "runs" / "R0.run")],
                     [(None, "qrels.txt", "qrels"), (None, "runs/R0.run", "run")], out=False),
}

#: the drop-ins keep their reference tool's own option handling
DROP_INS = ("trec_eval", "ndeval", "cwl_eval", "ntcir")
#: the commands whose --out may be a file or a folder (a pipeline job's), or is a file
OUT_FILE = ("evaluate", "ingest", "stage")


def test_every_command_has_a_row():
    assert sorted(ROWS) == _commands()          # the command modules and drop-ins


# ------------------------------------------------------------------ the checks
def _promise(rc, err: str, out: Path | None, *, rejected_file: str | None = None, codes=(1,)) -> None:
    """Exit 0 or one of ``codes`` (a drop-in: its reference tool's); no traceback; rejected: exactly
    one error line (naming the file) among metaeval's own lines, and ``out`` absent (nor anything
    beside it)."""
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert all(ln.startswith(("metaeval", "  ", "trec_eval", "ndeval", "cwl_eval")) for ln in lines), err
    if rc == 0:
        return
    assert rc in codes if codes else rc != 0, (rc, err)
    errors = [ln for ln in lines if " error" in ln or ln.startswith(("trec_eval:", "ndeval:", "cwl_eval"))]
    assert len(errors) == 1, err
    if rejected_file is not None:
        assert rejected_file in errors[0], errors[0]
    if out is not None:
        assert not out.exists(), err
        assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]


def _call(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code
    cap = capsys.readouterr()
    return rc, cap.err


# ------------------------------------------------------------------ hostile files
def _content(path: Path) -> bytes:
    return path.read_bytes()


def _nan(kind: str, text: str) -> str:
    lines = text.splitlines(keepends=True)
    f = lines[1].split(" " if kind != "matrix" else ",")
    f[-1 if kind in ("qrels", "divqrels", "matrix", "results") else 4] = "nan" + ("\n" if kind != "run" else "")
    lines[1] = (" " if kind != "matrix" else ",").join(f)
    return "".join(lines)


def _duplicate(kind: str, text: str) -> str:
    """The first data line again with another value (a contradiction), or for a run the same document."""
    lines = text.splitlines(keepends=True)
    i = 1 if kind == "matrix" else 0
    f = lines[i].rstrip("\n").split("," if kind == "matrix" else " ")
    if kind == "run":
        return text + " ".join(f) + "\n"
    f[-1] = "0.123" if kind in ("matrix", "results") else ("0" if f[-1] != "0" else "1")
    return text + ("," if kind == "matrix" else " ").join(f) + "\n"


VARIANTS = ("empty", "truncated-gzip", "bom", "crlf", "nan", "duplicate", "unreadable", "binary")


def _spoil(path: Path, kind: str, variant: str) -> None:
    text = path.read_text()
    if variant == "empty":
        path.write_text("")
    elif variant == "truncated-gzip":
        data = gzip.compress(text.encode())
        path.write_bytes(data[: len(data) // 2])
    elif variant == "bom":
        path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    elif variant == "crlf":
        path.write_bytes(text.replace("\n", "\r\n").encode())
    elif variant == "nan":
        path.write_text(_nan(kind, text))
    elif variant == "duplicate":
        path.write_text(_duplicate(kind, text))
    elif variant == "unreadable":                   # a folder where a file is expected (root reads any file)
        path.unlink()
        path.mkdir()
    elif variant == "binary":
        path.write_bytes(b"\xff\xfe\x00garbage\x80\n")


FILE_CASES = [(cmd, flag, rel, kind, v) for cmd, row in ROWS.items() for flag, rel, kind in row.files
              for v in VARIANTS]


@pytest.fixture
def spoilt(inp, tmp_path):
    """A private copy of the inputs (hard links but for the file to spoil)."""
    import shutil

    def make(rel, kind, variant):
        d = tmp_path / "in"
        shutil.copytree(inp, d, copy_function=os.link)
        p = d / rel
        text = p.read_text()
        p.unlink()
        p.write_text(text)
        _spoil(p, kind, variant)
        return d
    return make


@pytest.mark.parametrize("cmd, flag, rel, kind, variant", FILE_CASES,
                         ids=[f"{c}-{f or 'arg'}-{Path(r).name}-{v}" for c, f, r, k, v in FILE_CASES])
def test_hostile_file(cmd, flag, rel, kind, variant, spoilt, tmp_path, capsys):
    d = spoilt(rel, kind, variant)
    out = tmp_path / "out"
    rc, err = _call(ROWS[cmd].argv(d, out), capsys)
    _promise(rc, err, out if ROWS[cmd].out else None, rejected_file=Path(rel).name,
             codes=None if cmd in DROP_INS else (1,))


# ------------------------------------------------------------------ numeric options out of range
def _bad_values(schema: dict) -> list[str]:
    """Values the declared ``schema`` (of one value) refuses."""
    if schema is None:
        return []
    s = schema.get("items", schema) if schema.get("type") == "array" or "items" in schema else schema
    if "oneOf" in s:
        s = s["oneOf"][0]
    out = []
    if "minimum" in s:
        out.append(str(s["minimum"] - 1))
    if "exclusiveMinimum" in s:
        out.append(str(s["exclusiveMinimum"]))
    if "maximum" in s:
        out.append(str(s["maximum"] + 1))
    if "exclusiveMaximum" in s:
        out.append(str(s["exclusiveMaximum"]))
    if s.get("type") == "number" or (isinstance(s.get("type"), list) and "number" in s["type"]):
        out.append("nan")
    return out


def _numeric_cases():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    cases = []
    for name, p in sub.choices.items():
        if name in DROP_INS:
            continue
        for a in p._actions:
            if not a.option_strings:
                continue
            t = a.type
            vals = _bad_values(getattr(t, "schema", None)) if t is not None else []
            if t is float:                           # a float option without a declared range
                vals = ["nan"]
            cases += [(name, a.option_strings[-1], v) for v in vals]
    return cases


NUMERIC_CASES = _numeric_cases()


def test_numeric_cases_cover_the_issue_options():
    have = {(c, o) for c, o, _ in NUMERIC_CASES}
    for c, o in [("compare", "--B"), ("compare", "--alpha"), ("meta", "--B"), ("meta", "--top-runs"),
                 ("meta", "--fuzziness"), ("meta", "--tss-systems"), ("incompleteness", "--depths"),
                 ("incompleteness", "--fractions"), ("incompleteness", "--trials"), ("incompleteness", "--inc-jobs"),
                 ("incompleteness", "--pool-depth"), ("judgments", "--alpha"), ("judgments", "--rbo-p"),
                 ("test-errors", "--deltas"), ("ppi", "--alpha")]:
        assert (c, o) in have, (c, o)


def _required(name: str) -> list[str]:
    """The command's required options and positionals, each with a dummy value (no input exists)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[name]
    argv = []
    for a in sub._actions:
        if a.option_strings and a.required:
            argv += [a.option_strings[-1]] + ["x=y"] * (a.nargs if isinstance(a.nargs, int) else 1)
        elif not a.option_strings and a.dest != "help":
            argv += [next(iter(a.choices)) if a.choices else "kendall"]
    return argv


@pytest.mark.parametrize("cmd, option, value", NUMERIC_CASES,
                         ids=[f"{c}{o}={v}" for c, o, v in NUMERIC_CASES])
def test_out_of_range_option_is_a_usage_error_before_input(cmd, option, value, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)                   # the dummy paths, should anything be made of them
    argv = [cmd, *_required(cmd), f"{option}={value}"]
    rc, err = _call(argv, capsys)
    assert rc == 2, (argv, rc, err)
    assert option in err and "Traceback" not in err


# ------------------------------------------------------------------ --out
OUT_CMDS = [c for c, r in ROWS.items() if r.out]


#: stage's --out is a file or a folder, by stage: no wrong kind of existing path
OUT_CASES = [(c, w) for c in OUT_CMDS for w in ("existing-file", "parent-is-file", "unwritable")
             if (c, w) != ("stage", "existing-file")]


@pytest.mark.parametrize("cmd, where", OUT_CASES)
def test_out_refused_before_input_is_read(cmd, where, tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("keep")
    if where == "existing-file":
        out = tmp_path if cmd in OUT_FILE else afile      # a folder where a file is written, or the reverse
    elif where == "parent-is-file":
        out = afile / "out"
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        out = (ro / "out") if os.geteuid() != 0 else Path("/proc/metaeval-no-such/out")
    missing = tmp_path / "no-input"               # no input exists: --out must be refused first
    rc, err = _call(ROWS[cmd].argv(missing, out), capsys)
    assert rc == 1, (rc, err)
    assert "Traceback" not in err and "no-input" not in err, err
    assert len([ln for ln in err.splitlines() if "error" in ln]) == 1, err
    assert afile.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["afile"] + (["ro"] if where == "unwritable" else []))


# ------------------------------------------------------------------ interrupted mid-run, in-process
def _interrupt_at_first_rename(monkeypatch, exc):
    """The first file or folder renamed into place (the output being written) raises ``exc`` instead
    (SIGTERM: the signal is delivered to this process there, as a ``kill`` would)."""
    real = {"replace": os.replace, "rename": os.rename}
    state = {"done": False}

    def fire(name):
        def f(*a, **k):
            if not state["done"]:
                state["done"] = True
                if exc == "SIGTERM":
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(0.01)
                else:
                    raise KeyboardInterrupt
            return real[name](*a, **k)
        return f
    monkeypatch.setattr(os, "replace", fire("replace"))
    monkeypatch.setattr(os, "rename", fire("rename"))


FOLDER_CMDS = [c for c in OUT_CMDS if c not in OUT_FILE]


@pytest.mark.parametrize("cmd", FOLDER_CMDS)
@pytest.mark.parametrize("how, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_interrupted_command_leaves_nothing(cmd, how, code, inp, tmp_path, monkeypatch, capsys):
    out = tmp_path / "sub" / "out"
    _interrupt_at_first_rename(monkeypatch, how)
    rc, err = _call(ROWS[cmd].argv(inp, out), capsys)
    monkeypatch.undo()
    assert rc == code, (rc, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err and lines[-1].startswith("metaeval: ") and "nothing written" in lines[-1], err
    assert not (tmp_path / "sub").exists()          # nor the folder made for it


# ------------------------------------------------------------------ signals to a process with workers
def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """Inputs on which meta and incompleteness run a few seconds with workers."""
    d = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(7)
    (d / "qrels.txt").write_text("".join(f"{t} 0 d{k} {int(rng.integers(0, 3))}\n" for t in range(30)
                                         for k in range(60)))
    (d / "runs").mkdir()
    for r in range(8):
        (d / "runs" / f"R{r}.run").write_text("".join(f"{t} Q0 d{k} {i} {100 - i} R{r}\n" for t in range(30)
                                                      for i, k in enumerate(rng.permutation(60))))
    (d / "mats").mkdir()
    for m in ("AP", "RR", "nDCG", "P10"):
        x = rng.random((30, 8))
        (d / "mats" / f"{m}.csv").write_text("topic," + ",".join(f"R{r}" for r in range(8)) + "\n" + "".join(
            f"t{t}," + ",".join(repr(float(v)) for v in x[t]) + "\n" for t in range(30)))
    return d


#: few and small (each a process of its own); every command's SIGTERM and SIGINT are checked in-process above
SIGNAL_CASES = [("meta", signal.SIGTERM, 143), ("incompleteness", signal.SIGINT, 130)]


def _default_signals() -> None:
    """The child's SIGINT and SIGTERM at their defaults: a suite started in the background (``cmd &``
    from a script) inherits SIGINT ignored, which the command rightly keeps ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("cmd, sig, code", SIGNAL_CASES, ids=[f"{c}-{s.name}" for c, s, _ in SIGNAL_CASES])
def test_signal_mid_run_ends_workers_and_output(cmd, sig, code, big, tmp_path):
    out = tmp_path / "out"
    argv = {"meta": ["meta", "--matrices", str(big / "mats"), "--B", "2000", "--quiet"],
            "incompleteness": ["incompleteness", "--qrels", str(big / "qrels.txt"), "--runs", str(big / "runs"),
                               "--metrics", "AP", "--trials", "50", "--inc-jobs", "2", "--no-figures",
                               "--quiet"]}[cmd]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    p = subprocess.Popen([sys.executable, "-m", "metaeval", *argv, "--out", str(out)], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_default_signals)
    kids: list[int] = []
    t0 = time.monotonic()
    while not kids and p.poll() is None and time.monotonic() - t0 < 60:
        time.sleep(0.05)
        kids = _children(p.pid)
    assert kids, "no worker was forked"
    p.send_signal(sig)
    err = p.communicate(timeout=60)[1]
    assert p.returncode == code, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines == [f"metaeval: {'terminated' if code == 143 else 'interrupted'}; nothing written"], err
    assert sorted(x.name for x in tmp_path.iterdir()) == []
    t0 = time.monotonic()
    while any(_alive(k) for k in kids) and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    assert not any(_alive(k) for k in kids)


# ------------------------------------------------------------------ the publisher (issue 48, causes 1-7, 15)
def _tree(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and inode (a file replaced by equal bytes differs)."""
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_ino)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _beside(out: Path) -> list[str]:
    return [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]


def _judgments_argv(inp: Path, out: Path, *extra: str) -> list[str]:
    return ["judgments", "--qrels", f"a={inp / 'qrels.txt'}", f"b={inp / 'qrels2.txt'}", *extra, "--reference", "a",
            "--runs", _runs(inp), "--B", "20", "--no-figures", "--out", str(out), "--quiet"]


def _c1_simulate_out(inp, tmp, capsys, monkeypatch):
    out = tmp / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for runs in (3, 2):                       # a rerun with fewer runs: its stale run removed, the notes kept
        rc, err = _call(["simulate", "--params", f'{{"topics": 3, "runs": {runs}}}', "--out", str(out), "--quiet"],
                        capsys)
        assert rc == 0, err
    assert (out / "notes.txt").read_text() == "mine" and (out / "qrels.txt").is_file()
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["RUN01.run", "RUN02.run"]


def _c1_simulate_out_root(inp, tmp, capsys, monkeypatch):
    (tmp / "sim" / "ntcir3-chinese").mkdir(parents=True)
    (tmp / "sim" / "ntcir3-chinese" / "notes.txt").write_text("mine")
    rc, err = _call(["simulate", "ntcir3-chinese", "--params", '{"topics": 3, "runs": 3}', "--out-root",
                     str(tmp / "sim"), "--quiet"], capsys)
    assert rc == 0 and (tmp / "sim" / "ntcir3-chinese" / "notes.txt").read_text() == "mine", err
    assert (tmp / "sim" / "ntcir3-chinese" / "qrels.txt").is_file()


def _c2_users_file_where_a_folder_goes(inp, tmp, capsys, monkeypatch):
    out = tmp / "out"
    out.mkdir()
    (out / "tables").write_text("mine")
    rc, err = _call(ROWS["ppi"].argv(inp, out), capsys)
    _promise(rc, err, None, rejected_file=f"{out}/tables")
    assert rc == 1 and "exists and is not a folder" in err, err
    assert (out / "tables").read_text() == "mine" and [p.name for p in out.iterdir()] == ["tables"]
    assert _beside(out) == []


def _c3_failed_publish_is_undone(inp, tmp, capsys, monkeypatch):
    """The second run's move into ``out/tables`` fails (a read-only folder; this suite may run as root,
    so the failure is made): its ``judgments/`` files, moved first, are moved back out."""
    out = tmp / "out"
    rc, err = _call(_judgments_argv(inp, out), capsys)
    assert rc == 0, err
    before = _tree(out)
    real = {"replace": os.replace, "rename": os.rename}

    def failing(name):
        def f(src, dst, *a, **k):
            if str(dst).startswith(str(out / "tables")) and f"{os.sep}.out.new-" in str(src):
                raise PermissionError(13, "Permission denied", str(dst))
            return real[name](src, dst, *a, **k)
        return f
    monkeypatch.setattr(os, "replace", failing("replace"))
    monkeypatch.setattr(os, "rename", failing("rename"))
    rc, err = _call(_judgments_argv(inp, out), capsys)
    monkeypatch.undo()
    _promise(rc, err, None, rejected_file=f"{out}/tables/")
    assert rc == 1 and "Permission denied" in err and ".new-" not in err, err
    assert _tree(out) == before and _beside(out) == []


def _c4_rerun_removes_its_stale_files(inp, tmp, capsys, monkeypatch):
    out = tmp / "out"
    rc, err = _call(_judgments_argv(inp, out, f"d={inp / 'qrels2.txt'}"), capsys)
    assert rc == 0 and (out / "judgments" / "confusion" / "a__d.csv").is_file(), err
    (out / "notes.txt").write_text("mine")
    rc, err = _call(_judgments_argv(inp, out), capsys)          # set d dropped
    assert rc == 0, err
    assert sorted(p.name for p in (out / "judgments" / "confusion").iterdir()) == ["a__b.csv"]
    assert (out / "notes.txt").read_text() == "mine"
    assert "a__d" not in (out / ".metaeval-manifest.json").read_text()


def _fail_first_write(monkeypatch, exc):
    """The first file renamed into place raises ``exc``."""
    real = {"replace": os.replace, "rename": os.rename}
    fired = []

    def fire(name):
        def f(*a, **k):
            if not fired:
                fired.append(name)
                raise exc
            return real[name](*a, **k)
        return f
    monkeypatch.setattr(os, "replace", fire("replace"))
    monkeypatch.setattr(os, "rename", fire("rename"))
    return fired


def _c5_api_write_interrupted(inp, tmp, capsys, monkeypatch):
    import pandas as pd

    import metaeval

    mats = {m: pd.read_csv(inp / "mats" / f"{m}.csv", index_col=0) for m in ("AP", "RR")}
    res = metaeval.meta_evaluate(mats, B=20, rthsd_B=20)
    out = tmp / "sub" / "out"
    fired = _fail_first_write(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        res.write(out, figures=False)
    monkeypatch.undo()
    assert fired and not (tmp / "sub").exists()
    paths = res.write(out, figures=False)                     # then written, the paths the published ones
    assert paths and all(Path(p).is_file() and Path(p).is_relative_to(out) for p in paths)


def _c5_api_out_disk_full(inp, tmp, capsys, monkeypatch):
    import metaeval

    out = tmp / "sub" / "out"
    fired = _fail_first_write(monkeypatch, OSError(28, "No space left on device"))
    with pytest.raises(OSError, match="No space left"):
        metaeval.ppi(str(inp / "qrels.txt"), str(inp / "qrels2.txt"), _runs(inp), metrics=["AP"], labelled=3,
                     trials=5, sizes=[2, 3], out=out, figures=False)
    monkeypatch.undo()
    assert fired and not (tmp / "sub").exists()


class _ClosedStdout:
    """A standard output whose reader is gone (``| true``)."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def _c6(cmd):
    def check(inp, tmp, capsys, monkeypatch):
        out = tmp / "out"
        argv = [a for a in ROWS[cmd].argv(inp, out) if a != "--quiet"]
        monkeypatch.setattr(sys, "stdout", _ClosedStdout())
        rc, err = _call(argv, capsys)
        monkeypatch.undo()
        assert out.is_dir() and len(list(out.rglob("*.csv"))) >= 1, err        # committed first
        assert rc == 0 and "standard output is closed" in err, err
        assert _beside(out) == []
    return check


def _c7_out_not_a_folder(inp, tmp, capsys, monkeypatch):
    """``--out`` empty, a FIFO, a device, a link to a file or to nothing: exit 2 for every command with
    ``--out``, before any input is read, the path untouched."""
    monkeypatch.chdir(tmp)
    (tmp / "f").write_text("keep")
    os.mkfifo(tmp / "fifo")
    (tmp / "to-file").symlink_to(tmp / "f")
    (tmp / "to-dev").symlink_to("/dev/null")
    (tmp / "dangling").symlink_to(tmp / "nothing")
    targets = ["", "fifo", "to-file", "to-dev", "dangling"]
    try:
        os.mknod(tmp / "dev", 0o600 | __import__("stat").S_IFCHR, os.makedev(1, 3))
        targets.append("dev")
    except OSError:                        # not permitted here: the link to /dev/null stands for it
        pass
    before = sorted(p.name for p in tmp.iterdir())
    missing = tmp / "no-input"
    for cmd in OUT_CMDS:
        for t in targets:
            rc, err = _call(ROWS[cmd].argv(missing, t if t == "" else tmp / t), capsys)
            assert rc == 2 and "--out" in err and "no-input" not in err and "Traceback" not in err, (cmd, t, err)
    assert sorted(p.name for p in tmp.iterdir()) == before and (tmp / "f").read_text() == "keep"
    assert (tmp / "fifo").is_fifo() and (tmp / "to-dev").is_symlink()


def _c15(signame, code, cmd):
    def check(inp, tmp, capsys, monkeypatch):
        sig = getattr(signal, signame)
        old = signal.signal(sig, lambda *a: None)        # the suite's own process survives either way
        try:
            out = tmp / "sub" / "out"
            real = {"replace": os.replace, "rename": os.rename}
            sent = []

            def fire(name):
                def f(*a, **k):
                    if not sent:
                        sent.append(1)
                        os.kill(os.getpid(), sig)
                        time.sleep(0.01)
                    return real[name](*a, **k)
                return f
            monkeypatch.setattr(os, "replace", fire("replace"))
            monkeypatch.setattr(os, "rename", fire("rename"))
            rc, err = _call(ROWS[cmd].argv(inp, out), capsys)
            monkeypatch.undo()
        finally:
            signal.signal(sig, old)
        assert sent and rc == code, (rc, err)
        assert err.strip().splitlines()[-1] == f"metaeval: {'hung up' if code == 129 else 'quit'} ({signame}); " \
                                               "nothing written", err
        assert not (tmp / "sub").exists()                 # no hidden .out.new-PID-* folder either
    return check


#: one row per cause of issue 48 that the publisher answers: (cause, case, check)
PUBLISH_CAUSES = [
    (1, "simulate-out-keeps-other-files", _c1_simulate_out),
    (1, "simulate-out-root-keeps-other-files", _c1_simulate_out_root),
    (2, "users-file-where-tables-go", _c2_users_file_where_a_folder_goes),
    (3, "failed-publish-undone", _c3_failed_publish_is_undone),
    (4, "rerun-removes-stale", _c4_rerun_removes_its_stale_files),
    (5, "api-write-ctrl-c", _c5_api_write_interrupted),
    (5, "api-out-disk-full", _c5_api_out_disk_full),
    (6, "compare-closed-stdout", _c6("compare")),
    (6, "ppi-closed-stdout", _c6("ppi")),
    (7, "out-not-a-folder", _c7_out_not_a_folder),
    (15, "sighup", _c15("SIGHUP", 129, "ppi")),
    (15, "sigquit", _c15("SIGQUIT", 131, "simulate")),
]


@pytest.mark.parametrize("cause, case, check", PUBLISH_CAUSES, ids=[f"{c}-{n}" for c, n, _ in PUBLISH_CAUSES])
def test_publish_cause(cause, case, check, inp, tmp_path, capsys, monkeypatch):
    check(inp, tmp_path, capsys, monkeypatch)



# ------------------------------------------------------------------ issue 48: a row per cause
# Each row runs one command in-process on the small inputs and asserts the value, file or line the
# promise asks for (each fails on the commit before the fix).  A stream (``<(cat FILE)``) is an
# ``os.pipe`` read through ``/dev/fd/N``: it can be read once, as a FIFO or process substitution.
def _pipe(text: str | bytes) -> str:
    r, w = os.pipe()
    os.write(w, text.encode() if isinstance(text, str) else text)       # < 64 KiB: the pipe holds it
    os.close(w)
    _PIPES.append(r)
    return f"/dev/fd/{r}"


_PIPES: list[int] = []


@pytest.fixture
def pipes():
    yield _pipe
    while _PIPES:
        os.close(_PIPES.pop())


def _compare_csv(i, o, qrels, runs) -> list[str]:
    return ["compare", "--qrels", qrels, "--runs", *runs, "--metrics", "AP", "RR", "--format", "csv", "--out", str(o),
            "--quiet"]


def _tie_inputs(tmp: Path) -> Path:
    """Three runs whose two top scores differ only beyond single precision: trec_eval 9 ties them
    (docno descending puts the relevant z first), trec_eval 10 does not (the non-relevant b first)."""
    d = tmp / "tie"
    (d / "runs").mkdir(parents=True)
    (d / "q.txt").write_text("".join(f"{t} 0 z{t} 1\n{t} 0 b{t} 0\n{t} 0 c{t} 1\n" for t in range(1, 5)))
    for r in range(3):
        (d / "runs" / f"R{r}.run").write_text("".join(f"{t} Q0 b{t} 1 1.00000002{r} R{r}\n{t} Q0 z{t} 2 1.00000001 R{r}\n"
                                                      f"{t} Q0 c{t} 3 0.5 R{r}\n" for t in range(1, 5)))
    return d


def _ppi_tie(tmp: Path, version: str, out: Path, *extra: str) -> list[str]:
    d = _tie_inputs(tmp)
    return ["ppi", "--qrels", str(d / "q.txt"), "--judge", str(d / "q.txt"), "--runs", str(d / "runs"), "--metrics", "AP",
            "--trials", "3", "--sizes", "2", "--no-figures", "--quiet", "--out", str(out), "--trec-eval-version", version,
            *extra]


def _means(out: Path, run: str = "R0", estimator: str = "human") -> float:
    import pandas as pd

    df = pd.read_csv(out / "tables" / "ppi_means.csv")
    return float(df[(df.run == run) & (df.estimator == estimator)]["mean"].iloc[0])


def _one_error(err: str, *words: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err and len([ln for ln in lines if "error" in ln]) == 1, err
    for w in words:
        assert w in lines[-1], (w, err)


def _c8_qrels(inp, tmp, pipes, capsys):
    ref = tmp / "ref"
    assert _call(_compare_csv(inp, ref, str(inp / "qrels.txt"), [_runs(inp)]), capsys)[0] == 0
    out = tmp / "out"
    rc, err = _call(_compare_csv(inp, out, pipes((inp / "qrels.txt").read_text()), [_runs(inp)]), capsys)
    assert rc == 0, err
    assert (out / "compare.csv").read_bytes() == (ref / "compare.csv").read_bytes()


def _c8_runs(inp, tmp, pipes, capsys):
    rc, err = _call(["evaluate", "--qrels", pipes((inp / "qrels.txt").read_text()), "--runs",
                     pipes(gzip.compress((inp / "runs" / "R0.run").read_bytes())), "--metrics", "AP", "--out",
                     str(tmp / "p.csv")], capsys)
    assert rc == 0, err
    rc, err = _call(["evaluate", "--qrels", str(inp / "qrels.txt"), "--runs", str(inp / "runs" / "R0.run"),
                     "--metrics", "AP", "--out", str(tmp / "f.csv")], capsys)
    got, want = (tmp / "p.csv").read_text().splitlines(), (tmp / "f.csv").read_text().splitlines()
    assert [ln.split(",")[1:] for ln in got] == [ln.split(",")[1:] for ln in want] and len(got) > 1


def _c8_trec_eval(inp, tmp, pipes, capsys):
    q, r = inp / "qrels.txt", inp / "runs" / "R0.run"
    assert main(["trec_eval", "-m", "map", str(q), str(r)]) == 0
    want = capsys.readouterr().out
    assert main(["trec_eval", "-m", "map", pipes(q.read_text()), pipes(r.read_text())]) == 0
    cap = capsys.readouterr()
    assert cap.out == want and want.startswith("map"), cap.err


def _c8_results(inp, tmp, pipes, capsys):
    import json

    rows = [{"run_id": f"R{r}", "topic_id": str(t + 1), "measure": "AP", "value": 0.1 * r + 0.01 * t}
            for r in range(R) for t in range(T)]
    text = "".join(json.dumps(x) + "\n" for x in rows)
    (tmp / "board.jsonl").write_text(text)
    got = []
    for board in (str(tmp / "board.jsonl"), pipes(text)):
        out = tmp / f"out{len(got)}"
        rc, err = _call(["judgments", "--qrels", f"a={inp / 'qrels.txt'}", f"b={inp / 'qrels2.txt'}", "--results",
                         f"c={board}", "--results-format", "jsonl", "--metrics", "AP", "--reference", "a", "--runs",
                         _runs(inp), "--B", "20", "--no-figures", "--out", str(out), "--quiet"], capsys)
        assert rc == 0, err
        got.append(sorted((p.name, p.read_bytes()) for p in (out / "tables").glob("*.csv")))
    assert got[0] == got[1] and got[0]


def _c9_cli(inp, tmp, pipes, capsys):
    v = {}
    for version in ("9", "10"):
        rc, err = _call(_ppi_tie(tmp / version, version, tmp / f"o{version}"), capsys)
        assert rc == 0, err
        v[version] = _means(tmp / f"o{version}")
    # a literal: the two relevant documents at ranks 1 and 3 (ties kept by docno, trec_eval 9) or 2 and 3
    assert v["9"] == (1 / 1 + 2 / 3) / 2 and v["10"] == (1 / 2 + 2 / 3) / 2, v


def _c9_api_and_dag(inp, tmp, pipes, capsys):
    import metaeval
    from metaeval import dag
    from metaeval.meta.stages import ppi as ppi_stage

    d = _tie_inputs(tmp)
    from metaeval.errors import InputWarning

    with pytest.warns(InputWarning, match="every topic the judge"):
        res = metaeval.ppi(str(d / "q.txt"), str(d / "q.txt"), str(d / "runs"), metrics=["AP"], trials=3, sizes=[2],
                           trec_eval_version=9)
    m = res.means
    assert float(m[(m.run == "R0") & (m.estimator == "human")]["mean"].iloc[0]) == (1 / 1 + 2 / 3) / 2
    import yaml
    from snakemake.utils import validate

    cfg = yaml.safe_load((ROOT / "config" / "examples" / "trec-dl19-ppi.yaml").read_text())
    for version, words in ((9, " --trec-eval-version 9"), (10, "")):
        c = dict(cfg, trec_eval_version=version)
        validate(c, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
        plan = dag.Plan(c)
        args = plan.data_args(plan.job("ppi").collections[0])        # the collection's data, as its job reads it
        assert "--depth 1000" + words in args and args.count("--trec-eval-version") == (version == 9), args
    assert ppi_stage.STAGE.data                                       # its job on the collection's data


def _c11(inp, tmp, pipes, capsys):
    import pandas as pd

    same = tmp / "R0-again.run"
    same.write_text((inp / "runs" / "R0.run").read_text())
    out = tmp / "out"
    rc, err = _call(["reproducibility", "--qrels", str(inp / "qrels.txt"), "--orig", str(inp / "runs" / "R0.run"),
                     str(same), "--rep", f"x={inp / 'runs' / 'R2.run'},{inp / 'runs' / 'R3.run'}", "--metrics", "AP",
                     "--no-figures", "--out", str(out), "--quiet"], capsys)
    assert rc == 0, err
    eff = pd.read_csv(out / "tables" / "effects.csv")
    assert eff["er"].isna().all() and "inf" not in (out / "tables" / "effects.csv").read_text()
    assert "Effect Ratio" in err and "undefined" in err and "AP" in err, err


def _c12(kind):
    def case(inp, tmp, pipes, capsys):
        import shutil

        runs = tmp / "runs"
        shutil.copytree(inp / "runs", runs)
        bad = runs / "R9.run"
        if kind == "dangling":
            bad.symlink_to(tmp / "gone.run")
        else:
            bad.symlink_to(bad)
        for spec in (str(runs), str(runs / "*.run")):
            rc, err = _call(_compare_csv(inp, tmp / "out", str(inp / "qrels.txt"), [spec]), capsys)
            assert rc == 1, err
            _one_error(err, "R9.run", "symbolic link")
            assert not (tmp / "out").exists()
    return case


def _c13(argv, option):
    def case(inp, tmp, pipes, capsys):
        rc, err = _call(argv(inp, tmp / "out"), capsys)
        assert rc == 1, err
        _one_error(err, "would need", "of memory", f"lower {option}")
        assert not (tmp / "out").exists()
    return case


def _c14_metrics(inp, tmp, pipes, capsys):
    rc, err = _call(["compare", "--qrels", str(inp / "qrels.txt"), "--runs", _runs(inp), "--metrics", "",
                     "--out", str(tmp / "out")], capsys)
    assert rc == 2 and "--metrics" in err.splitlines()[-1] and "Traceback" not in err, err


def _c14_results_through_a_file(inp, tmp, pipes, capsys):
    from metaeval.runconfig import results_problem

    (tmp / "afile").write_text("x")
    assert results_problem(tmp / "afile" / "res") == (f"config: results: {tmp / 'afile' / 'res'} lies under "
                                                      f"{tmp / 'afile'}, which is a file, not a folder")
    assert results_problem(tmp / "afile").endswith("is a file, not a folder")
    assert results_problem(tmp / "new" / "res") is None and results_problem(tmp) is None
    assert "results_problem(RES)" in (ROOT / "workflow" / "rules" / "common.smk").read_text()


def _c16(inp, tmp, pipes, capsys):
    plain = tmp / "lt.txt"
    plain.write_text("1\n2\n3\n")
    bom = tmp / "lt-bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf1\r\n2\r\n3\r\n")
    gz = tmp / "lt.gz"
    gz.write_bytes(gzip.compress(bom.read_bytes()))
    got = []
    for f in (str(plain), str(bom), str(gz), pipes(gz.read_bytes())):
        out = tmp / f"o{len(got)}"
        argv = ROWS["ppi"].argv(inp, out)
        k = argv.index("--labelled")
        rc, err = _call(argv[:k] + argv[k + 2:] + ["--labelled-topics", f], capsys)
        assert rc == 0, err
        got.append((out / "tables" / "ppi_means.csv").read_bytes())
    assert got[1:] == got[:1] * 3


def _c17_jsonl_true(inp, tmp, pipes, capsys):
    import json

    rows = [{"run_id": f"R{r}", "topic_id": str(t + 1), "measure": "map", "value": 0.5} for r in range(R) for t in range(T)]
    rows[3]["value"] = True
    board = tmp / "board.jsonl"
    board.write_text("".join(json.dumps(x) + "\n" for x in rows))
    rc, err = _call(["judgments", "--qrels", f"a={inp / 'qrels.txt'}", f"b={inp / 'qrels2.txt'}", "--results",
                     f"c={board}", "--metrics", "trec.map", "--reference", "a", "--runs", _runs(inp), "--B", "20",
                     "--no-figures", "--out", str(tmp / "out"), "--quiet"], capsys)
    assert rc == 1, err
    _one_error(err, f"{board}:4: value true is not a number")


def _c17_frames(inp, tmp, pipes, capsys):
    import pandas as pd

    import metaeval

    q = pd.read_csv(inp / "qrels.txt", sep=" ", names=["query_id", "iter", "doc_id", "relevance"])
    calls = [(lambda: metaeval.ppi(q, str(inp / "qrels2.txt"), _runs(inp), metrics=["AP"]), "qrels: a DataFrame"),
             (lambda: metaeval.ppi(str(inp / "qrels.txt"), q, _runs(inp), metrics=["AP"]), "judge: a DataFrame"),
             (lambda: metaeval.judgments({"a": q, "b": str(inp / "qrels2.txt")}, _runs(inp), reference="a"),
              "qrels set a: a DataFrame"),
             (lambda: metaeval.reproducibility(str(inp / "qrels.txt"), [q, q], {"x": ("a", "b")}, metrics=["AP"]),
              "orig: a DataFrame")]
    for call, words in calls:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value).startswith(words) and "\n" not in str(e.value), str(e.value)


def _c17_params(inp, tmp, pipes, capsys):
    for bad in ("{bad", "[1, 2]"):
        rc, err = _call(["simulate", "--params", bad, "--out", str(tmp / "out")], capsys)
        assert rc == 2 and "--params" in err.splitlines()[-1] and not (tmp / "out").exists(), err


def _c17_pipe_in_run_name(inp, tmp, pipes, capsys):
    import shutil

    runs = tmp / "runs"
    shutil.copytree(inp / "runs", runs)
    (runs / "R0.run").rename(runs / "a|b.run")
    out = tmp / "out"
    rc, err = _call(["compare", "--qrels", str(inp / "qrels.txt"), "--runs", str(runs), "--metrics", "AP",
                     "--out", str(out), "--quiet"], capsys)
    assert rc == 0, err
    rows = [ln for ln in (out / "compare.md").read_text().splitlines() if ln.startswith("|")]
    assert any("a\\|b" in ln for ln in rows)
    assert {len(ln.replace("\\|", "").split("|")) for ln in rows} == {4}     # | run | AP |: no shifted cell


def _c17_duplicate_yaml_keys(inp, tmp, pipes, capsys):
    from metaeval.runconfig import duplicate_key

    cfg = tmp / "c.yaml"
    cfg.write_text("results: r\nbootstrap:\n  B: 10\n  alpha: 0.05\n  B: 20\n")
    assert duplicate_key(cfg) == (f"{cfg}:5: config key 'B' given twice in one mapping (first on line 3); YAML would "
                                  f"keep the last silently -- give it once")
    cfg.write_text("results: r\nbootstrap: {B: 10}\ncollections: {a: {B: 10}}\n")
    assert duplicate_key(cfg) is None
    assert duplicate_key(ROOT / "config.yaml") is None
    assert "duplicate_key(" in (ROOT / "workflow" / "rules" / "common.smk").read_text()


CAUSES = {
    "8-qrels-from-a-stream": _c8_qrels,
    "8-runs-from-streams-gzip": _c8_runs,
    "8-trec_eval-streams": _c8_trec_eval,
    "8-results-from-a-stream": _c8_results,
    "9-ppi-trec-eval-version-cli": _c9_cli,
    "9-ppi-trec-eval-version-api-dag": _c9_api_and_dag,
    "11-effect-ratio-zero-effect": _c11,
    "12-dangling-symlink": _c12("dangling"),
    "12-symlink-loop": _c12("loop"),
    "13-ppi-trials": _c13(lambda i, o: ROWS["ppi"].argv(i, o)[:-4] + ["--trials", "10000000000000000", "--out", str(o),
                                                                       "--quiet"], "--trials"),
    "13-compare-bootstrap-B": _c13(lambda i, o: ["compare", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i),
                                                 "--metrics", "AP", "--test", "bootstrap", "--B", "1000000000000000",
                                                 "--out", str(o), "--quiet"], "--B"),
    "13-simulate-topics": _c13(lambda i, o: ["simulate", "--params", '{"topics": 1000000000000, "runs": 3}',
                                             "--out", str(o), "--quiet"], "topics"),
    "14-metrics-empty": _c14_metrics,
    "14-results-through-a-file": _c14_results_through_a_file,
    "16-labelled-topics-bom-crlf-gzip": _c16,
    "17-jsonl-value-true": _c17_jsonl_true,
    "17-api-dataframes": _c17_frames,
    "17-simulate-params-json": _c17_params,
    "17-pipe-in-run-name": _c17_pipe_in_run_name,
    "17-duplicate-yaml-keys": _c17_duplicate_yaml_keys,
}


@pytest.mark.parametrize("cause", list(CAUSES))
def test_issue48_cause(cause, inp, tmp_path, pipes, capsys):
    CAUSES[cause](inp, tmp_path, pipes, capsys)
