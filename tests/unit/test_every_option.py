"""Every option reaches its computation (issue 48): each option of every command, walked from the
argparse parsers themselves, either changes what the command writes (its files and stdout differ
from the run without it) or is refused (a usage error, exit 2, or one error line naming it).

Table-driven and in-process on tiny inputs: :data:`BASE` holds one valid command line per command;
:data:`ALT` a cheap alternative value per option (the words that replace the option's in the base
line).  An option of the stage declarations (``metaeval meta``'s, shared by ``stage`` and
``incompleteness``) runs through ``metaeval stage NAME`` with the stage that reads it
(:data:`STAGE_OF`), the cheapest command that computes it; ``meta`` and ``incompleteness`` then
show that the option reaches the same ``MetaConfig`` field.  An option that only names an input or
an output is checked by its files (another input file, another output path or format).  A command
or an option added later fails :func:`test_every_option_has_a_row` until it has a row.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from metaeval.cli import build_parser, main

T, D, R = 6, 8, 4
DROP_INS = ("trec_eval", "ndeval", "cwl_eval", "ntcir", "measures")       # their reference tool's options


@pytest.fixture(scope="module")
def inp(tmp_path_factory) -> Path:
    return make_inputs(tmp_path_factory.mktemp("options"))


def make_inputs(d: Path) -> Path:
    """Graded qrels (two sets), four runs whose file order is not their score order, with unjudged
    documents and two scores equal in single precision, three matrices, labels, a topic list."""
    rng = np.random.default_rng(48)
    for name, shift in (("qrels.txt", 0), ("qrels2.txt", 1)):
        (d / name).write_text("".join(f"{t + 1} 0 d{t}-{k} {(int(rng.integers(0, 3)) + shift) % 3 if k else 2}\n"
                                      for t in range(T) for k in range(D)))
    (d / "runs").mkdir()
    for r in range(R):                    # unjudged documents; two scores equal in single precision
        lines = []
        for t in range(T):
            docs = [f"d{t}-{k}" for k in rng.permutation(D)] + [f"u{t}-{k}" for k in range(3)]
            docs = [docs[i] for i in rng.permutation(len(docs))]
            k = docs.index(f"d{t}-0")              # relevant (L2), ranked just above the unjudged u.-9 it ties
            docs = [x for x in docs if x != f"d{t}-0"]           # in single precision (trec_eval 9 ranks u first)
            docs[1:1] = [f"d{t}-0", f"u{t}-9"] if k >= 0 else []
            scores = np.sort(rng.random(len(docs)))[::-1]
            scores[1] = scores[2] = 0.9
            rows = [f"{t + 1} Q0 {doc} {i + 1} {float(x)!r}{'00000001' if i == 1 else ''} R{r}\n"
                    for i, (doc, x) in enumerate(zip(docs, scores))]
            rows[2:4] = rows[3:1:-1]           # file order not score order
            lines += rows
        (d / "runs" / f"R{r}.run").write_text("".join(lines))
    (d / "mats").mkdir()
    for m in ("AP", "RR", "nDCG@5"):
        x = rng.random((T * 3, R))
        if m == "RR":
            x[:, 3] = x[:, 2]                  # two runs tied: Kendall's tau-b is not tau-a
        (d / "mats" / f"{m}.csv").write_text("topic," + ",".join(f"R{r}" for r in range(R)) + "\n" + "".join(
            f"t{t}," + ",".join(repr(float(v)) for v in x[t]) + "\n" for t in range(T * 3)))
    (d / "mats2").mkdir()
    for m in ("AP", "RR", "nDCG@5"):
        x = rng.random((T * 3, R))
        (d / "mats2" / f"{m}.csv").write_text("topic," + ",".join(f"R{r}" for r in range(R)) + "\n" + "".join(
            f"t{t}," + ",".join(repr(float(v)) for v in x[t]) + "\n" for t in range(T * 3)))
    (d / "results").mkdir()
    for r in range(R):
        (d / "results" / f"R{r}").write_text("".join(f"{m} {t + 1} {float(rng.random()):.4f}\n" for t in range(T)
                                                     for m in ("map", "ndcg_cut_5")))
    (d / "runs_used.csv").write_text("run\nR0\nR1\nR2\n")
    (d / "labels.txt").write_text("R0 first\nR1 second\n")
    (d / "topics.txt").write_text("1\n2\n3\n")
    return d


def _runs(i: Path) -> str:
    return str(i / "runs")


#: measures every reading option changes: by score or file order, depth, gains, the scale's top level
GRADED = ("AP", "Q-measure", "nERR@5", "nDCG@5")

#: one valid command line per command (``i`` the inputs, ``o`` the output path)
BASE = {
    "compare": lambda i, o: ["compare", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i), "--metrics", *GRADED,
                             "--out", str(o), "--format", "csv"],
    "evaluate": lambda i, o: ["evaluate", "--qrels", str(i / "qrels.txt"), "--runs", str(i / "runs" / "R0.run"),
                              "--metrics", *GRADED, "--out", str(o)],
    "ingest": lambda i, o: ["ingest", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i), "--out", str(o),
                            "--quiet"],
    "matrices": lambda i, o: ["matrices", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i), "--metrics", *GRADED,
                              "--out", str(o), "--quiet"],
    "judgments": lambda i, o: ["judgments", "--qrels", f"a={i / 'qrels.txt'}", f"b={i / 'qrels2.txt'}", "--reference",
                               "a", "--runs", _runs(i), "--metrics", "AP", "nDCG@5", "--B", "20", "--no-figures",
                               "--out", str(o), "--quiet"],
    "ppi": lambda i, o: ["ppi", "--qrels", str(i / "qrels.txt"), "--judge", str(i / "qrels2.txt"), "--runs", _runs(i),
                         "--metrics", "AP", "nDCG@5", "--labelled", "4", "--trials", "5", "--sizes", "2,3",
                         "--no-figures", "--out", str(o), "--quiet"],
    "reproducibility": lambda i, o: ["reproducibility", "--qrels", str(i / "qrels.txt"), "--orig",
                                     str(i / "runs" / "R0.run"), str(i / "runs" / "R1.run"), "--rep",
                                     f"x={i / 'runs' / 'R2.run'},{i / 'runs' / 'R3.run'}", "--metrics", "AP",
                                     "nDCG@5", "--no-figures", "--out", str(o), "--quiet"],
    "simulate": lambda i, o: ["simulate", "--params", '{"topics": 3, "runs": 3}', "--out", str(o), "--quiet"],
    "paper-tables": lambda i, o: ["paper-tables", "kishida", "--L", "3", "--M", "5", "--out", str(o)],
    "standardisation": lambda i, o: ["standardisation", "--matrices", str(i / "mats"), "--metrics", "AP", "RR",
                                     "--topics", "3", "--trials", "5", "--no-figures", "--out", str(o), "--quiet"],
    "standardise": lambda i, o: ["standardise", "--matrices", str(i / "mats"), "--metrics", "AP", "RR", "--out",
                                 str(o), "--quiet"],
    "test-errors": lambda i, o: ["test-errors", "--matrices", str(i / "mats"), "--metrics", "AP", "--pairs", "1",
                                 "--trials", "5", "--topics", "5", "--deltas", "0.05", "--B", "10", "--tests",
                                 "paired-t", "--no-figures", "--out", str(o), "--quiet"],
    "incompleteness": lambda i, o: ["incompleteness", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i),
                                    "--metrics", "AP", "--method", "judged", "--fractions", "0.5", "--trials", "2",
                                    "--B", "20", "--no-condensed", "--no-figures", "--out", str(o), "--quiet"],
    "stage": lambda i, o: ["stage", "kendall", "--matrices", str(i / "mats"), "--out", str(o), "--quiet"],
}
BASE["bayes"] = lambda i, o: ["bayes", "--qrels", str(i / "qrels.txt"), "--runs", _runs(i), "--metrics", *GRADED,
                              "--draws", "100", "--chains", "2", "--no-figures", "--out", str(o), "--quiet"]
BASE["meta"] = lambda i, o: ["meta", "--matrices", str(i / "mats"), "--out", str(o), "--no-figures", "--quiet"]
BASE["reproduce"] = BASE["paper-tables"]


class Refused(list):
    """Alternative words the command refuses (exit 2, or 1 with one error line), or, accepted, that change its
    output."""


#: the options of the stage declarations (meta, stage, incompleteness): alternative words and the
#: stage (``metaeval stage NAME``) whose tables they change
SHARED: dict[str, tuple[str, list[str]]] = {
    "--B": ("paired", ["50"]),
    "--alpha": ("paired", ["0.1"]),
    "--seed": ("paired", ["7"]),
    "--top-runs": ("kendall", ["2"]),
    "--select-by": ("kendall", ["RR"]),
    "--metrics": ("kendall", ["AP", "RR"]),
    "--geometric": ("paired", ["AP"]),
    "--batch": ("paired", Refused(["0"])),                   # memory only: any valid value, the same numbers
    "--labels": ("kendall", ["LABELS"]),
    "--pair-top-runs": ("paired", Refused(["0"])),           # the Markdown of a per-pair table of > 22 runs
    "--kendall": ("kendall", ["b"]),
    "--swap-threshold": ("swap", ["0.5"]),
    "--swap-max": ("swap", ["difference"]),
    "--swap-rule": ("swap", ["first"]),
    "--fuzziness": ("stability", ["0.3"]),
    "--sweep-metrics": ("gain_sweep", ["AP"]),
    "--sweep-gains": ("gain_sweep", ["1:1:1"]),
    "--default-gains": ("gain_sweep", ["1:2:3"]),
    "--rbo-p": ("rank_correlation", ["0.5"]),
    "--rthsd-B": ("discpower", ["50"]),
    "--tss-beta": ("discpower", ["0.5"]),
    "--tss-min-diff": ("discpower", ["0.3"]),
    "--tss-systems": ("discpower", ["3"]),
    "--risk-baseline": ("risk", ["R0"]),
    "--risk-alpha": ("risk", ["2"]),
    "--results-primary": ("results_table", ["RR"]),
    "--results-test": ("results_table", ["sign"]),
    "--results-correction": ("results_table", ["none"]),
    "--results-baselines": ("results_table", ["R0"]),
    "--collection-name": ("kendall", ["X"]),                 # the captions' data sentence
    "--reproduction": ("kendall", []),                       # the captions' "Regenerates"
}

class Writes(str):
    """The option writes a file outside the output folder: the path (a word of :func:`_words`) it names."""


OUT = "out"             # the output path: the base run's files are found there
INPUT = "input"         # an input named: another file (ALT_INPUT) gives other numbers

#: per command, the alternative words of its own options (SHARED for the stage declarations')
ALT: dict[str, dict[str, object]] = {
    "compare": {
        "--qrels": ["QRELS2"], "--runs": ["RUN0", "RUN1"], "--matrices": Refused(["MATS"]),
        "--gains": ["1:9"], "--cutoffs": Refused(["3"]), "--condensed": [], "--metrics": ["RR"], "--max-level": ["3"],
        "--vocabulary": ["ntcireval"], "--order": ["file"], "--trec-eval-version": ["9"], "--depth": ["2"],
        "--baseline": ["R1"], "--risk-alpha": Refused(["1"]), "--labels": ["LABELS"], "--test": ["sign"],
        "--correction": ["bonferroni"], "--alpha": ["0.2"], "--B": Refused(["50"]), "--seed": Refused(["5"]),
        "--conventions": ["urbano2019"], "--show": Refused(["p"]), "--sort-by": ["nDCG@5"], "--out": OUT,
        "--format": ["md"], "--quiet": []},
    "evaluate": {
        "--qrels": ["QRELS2"], "--runs": ["RUN1"], "--run": ["RUN1"], "--gains": ["1:9"], "--cutoffs": Refused(["3"]),
        "--condensed": [], "--metrics": ["RR"], "--max-level": ["3"], "--vocabulary": ["ntcireval"], "--order": ["file"],
        "--trec-eval-version": ["9"], "--depth": ["2"], "--qrels-form": Refused(["ec"]),
        "--intent-probs": Refused(["TOPICS"]), "--no-means": [], "--out": OUT},
    "ingest": {
        "--qrels": ["QRELS2"], "--runs": ["RUN0", "RUN1"], "--order": ["file"], "--trec-eval-version": ["9"],
        "--depth": ["2"], "--max-level": ["3"], "--qrels-form": Refused(["ec"]), "--intent-probs": Refused(["TOPICS"]),
        "--out": OUT, "--topics-out": Writes("TOPICS_OUT"), "--quiet": []},
    "matrices": {
        "--qrels": ["QRELS2"], "--runs": ["RUN0", "RUN1"], "--collection": Refused(["RUN0"]), "--cache": Writes("CACHE"),
        "--out": OUT, "--gains": ["1:9"], "--cutoffs": Refused(["3"]), "--condensed": [], "--metrics": ["RR"],
        "--max-level": ["3"], "--vocabulary": ["ntcireval"], "--order": ["file"], "--trec-eval-version": ["9"],
        "--depth": ["2"], "--qrels-form": Refused(["ec"]), "--intent-probs": Refused(["TOPICS"]), "--quiet": [],
        "--std-runs": ["R0", "R1"], "--std-factors": Refused(["TOPICS"]), "--leave-one-out": Refused([])},
    "judgments": {
        "--qrels": ["a=QRELS", "b=QRELS2", "c=QRELS2"], "--reference": ["b"], "--runs": ["RUN0", "RUN1", "RUN2"],
        "--out": OUT, "--metrics": ["RR"], "--gains": ["1:9"], "--threshold": ["1"], "--top-k": ["2"],
        "--test": ["sign"], "--correction": ["bonferroni"], "--B": ["50"], "--alpha": ["0.2"], "--rbo-p": ["0.5"],
        "--seed": ["5"], "--fill": ["h=a+b"], "--on-conflict": Refused(["max"]), "--topic-set": ["own"],
        "--topics": ["own"],
        "--results": ["c=RESULTS"], "--results-format": Refused(["csv"]), "--skip-bad": Refused([]),
        "--clip": Refused([]), "--labels": ["LABELS"], "--order": ["file"], "--trec-eval-version": ["9"],
        "--depth": ["2"], "--no-figures": [], "--quiet": []},
    "ppi": {
        "--qrels": ["QRELS2"], "--judge": ["QRELS"], "--runs": ["RUN0", "RUN1"], "--metrics": ["RR"], "--out": OUT,
        "--labelled-topics": Refused(["TOPICS"]), "--labelled": ["3"], "--alpha": ["0.2"], "--seed": ["5"],
        "--sizes": ["2"], "--trials": ["7"], "--gains": ["1:9"], "--on-conflict": Refused(["max"]),
        "--order": ["file"], "--trec-eval-version": ["9"], "--depth": ["2"], "--no-figures": [],
        "--quiet": []},
    "reproducibility": {
        "--qrels": ["QRELS2"], "--orig": ["RUN1", "RUN0"], "--rep": ["x=RUN3,RUN2"], "--rep-qrels": ["QRELS2"],
        "--metrics": ["RR"], "--out": OUT, "--depth": ["2"], "--rbo-p": ["0.5"], "--no-figures": [],
        "--quiet": []},
    "simulate": {
        "--out-root": Refused(["ROOT"]), "--out": OUT, "--params": ['{"topics": 4, "runs": 3}'], "--seed": ["5"],
        "--list": [], "--quiet": []},
    "paper-tables": {
        "--out": OUT, "--R": ["10,20"], "--v": ["0.2"], "--j": ["50"], "--thetas": ["0.8"], "--L": ["4"], "--N": ["5"],
        "--M": ["6"], "--seed": ["5"], "--degrees": ["2,1"], "--n": ["3"], "--b": ["10"]},
    "standardisation": {
        "--matrices": ["MATS2"], "--out": OUT, "--metrics": ["AP"], "--std": ["z"], "--topics": ["4"], "--trials": ["6"],
        "--seed": ["5"], "--no-figures": [], "--quiet": []},
    "standardise": {
        "--matrices": ["MATS2"], "--out": OUT, "--std": ["N"], "--metrics": ["AP"], "--std-runs": ["R0", "R1"],
        "--std-factors": Refused(["TOPICS"]), "--leave-one-out": Refused([]), "--experiment": Refused([]),
        "--topics": Refused(["4"]), "--trials": Refused(["6"]), "--seed": Refused(["5"]), "--no-figures": Refused([]),
        "--quiet": []},
    "test-errors": {
        "--matrices": ["MATS2"], "--out": OUT, "--metrics": ["nDCG@5"], "--pairs": ["2"], "--topics": ["4"], "--trials": ["6"],
        "--deltas": ["0.1"], "--alphas": ["0.1"], "--tests": ["sign"], "--B": Refused(["20"]), "--seed": ["5"],
        "--conventions": ["urbano2019"], "--no-figures": [], "--quiet": []},
    "incompleteness": {
        "--qrels": ["QRELS2"], "--runs": ["RUN0", "RUN1", "RUN2"], "--collection": Refused(["RUN0"]), "--order": ["file"],
        "--depth": ["2"], "--trec-eval-version": ["9"], "--gains": ["1:9"], "--out": OUT, "--no-figures": [],
        "--metrics": ["RR"], "--method": ["stratified"], "--fractions": ["0.3"], "--depths": Refused(["2"]),
        "--trials": ["3"], "--groups": Refused(["(R)"]), "--pool-runs": Refused(["R0"]), "--pool-depth": Refused(["2"]),
        "--no-condensed": Refused([]), "--write-qrels": [], "--inc-jobs": Refused(["2"]), "--quiet": []},
    "stage": {
        "--out": OUT, "--matrices": ["MATS2"], "--run-list": ["RUNS_USED"], "--parts": Refused(["MATS"]),
        "--texts": Refused(["MATS"]), "--stages": Refused(["kendall"]), "--collection": Refused(["RUN0"]),
        "--gains": Refused(["1:9"]), "--folder": Refused(["MATS"]), "--write-parts": Refused([]),
        "--runs-used": Refused(["MATS"]), "--tables": Refused(["MATS"]), "--figures": Refused(["MATS"]),
        "--jobs": Refused(["2"]), "--formats": Refused(["csv"]), "--views": Refused(["x"]),
        "--collection-dirs": Refused(["MATS"]), "--method": Refused(["depth"]), "--fractions": Refused(["0.3"]),
        "--depths": Refused(["2"]), "--trials": Refused(["3"]), "--groups": Refused(["(R)"]),
        "--pool-runs": Refused(["R0"]), "--pool-depth": Refused(["2"]), "--no-condensed": Refused([]),
        "--write-qrels": Refused([]), "--inc-jobs": Refused(["2"]), "--quiet": [], "--no-figures": Refused([]),
        # an own job on the data's (ppi, judgments: walked through their own commands)
        "--qrels": Refused(["QRELS2"]), "--runs": Refused(["RUN0"]), "--order": Refused(["file"]),
        "--depth": Refused(["2"]), "--trec-eval-version": Refused(["9"]),
        # an own job's options (its values walked through its own command: `metaeval bayes --draws`)
        "--bayes-metrics": Refused(["RR"]), "--bayes-draws": Refused(["120"]), "--bayes-chains": Refused(["3"]),
        "--bayes-seed": Refused(["5"]),
        "--te-metrics": Refused(["RR"]), "--te-pairs": Refused(["2"]), "--te-topics": Refused(["4"]),
        "--te-trials": Refused(["6"]), "--te-deltas": Refused(["0.1"]), "--te-alphas": Refused(["0.1"]),
        "--te-tests": Refused(["sign"]), "--te-B": Refused(["20"]), "--te-seed": Refused(["5"]),
        "--te-conventions": Refused(["urbano2019"]),
        "--std-metrics": Refused(["RR"]), "--std": Refused(["z"]), "--std-topics": Refused(["4"]),
        "--std-trials": Refused(["6"]), "--std-seed": Refused(["5"]),
        **{f"--kishida-{o}": Refused([v]) for o, v in (("R", "10,20"), ("v", "0.2"), ("j", "50"), ("thetas", "0.8"),
                                                      ("L", "4"), ("N", "5"), ("M", "6"), ("seed", "5"),
                                                      ("degrees", "2,1"), ("n", "3"), ("b", "10"))},
        "--rp-qrels": Refused(["QRELS2"]), "--rp-orig": Refused(["RUN1", "RUN0"]), "--rp-reps": Refused(["x=RUN3,RUN2"]),
        "--rp-rep-qrels": Refused(["QRELS2"]), "--rp-metrics": Refused(["RR"]), "--rp-depth": Refused(["2"]),
        "--rp-rbo-p": Refused(["0.5"]),
        "--ppi-judge": Refused(["QRELS2"]), "--ppi-metrics": Refused(["RR"]), "--ppi-labelled-topics": Refused(["x"]),
        "--ppi-labelled": Refused(["3"]), "--ppi-alpha": Refused(["0.1"]), "--ppi-seed": Refused(["5"]),
        "--ppi-sizes": Refused(["2,3"]), "--ppi-trials": Refused(["6"]), "--ppi-on-conflict": Refused(["max"]),
        "--judgments-reference": Refused(["nist"]), "--judgments-qrels": Refused(["b=QRELS2"]),
        "--judgments-fill": Refused(["h=b+reference"]), "--judgments-results": Refused(["b=MATS"]),
        "--judgments-results-format": Refused(["csv"]), "--judgments-metrics": Refused(["RR"]),
        "--judgments-threshold": Refused(["1"]), "--judgments-top-k": Refused(["3"]),
        "--judgments-test": Refused(["sign"]), "--judgments-correction": Refused(["bh"]),
        "--judgments-B": Refused(["20"]), "--judgments-alpha": Refused(["0.1"]), "--judgments-rbo-p": Refused(["0.8"]),
        "--judgments-seed": Refused(["5"]), "--judgments-on-conflict": Refused(["max"]),
        "--judgments-topic-set": Refused(["own"]), "--judgments-skip-bad": Refused([]), "--judgments-clip": Refused([])},
    "meta": {"--matrices": ["MATS2"], "--out": OUT, "--collection": Refused(["RUN0"]), "--no-figures": [],
             "--quiet": []},
}
ALT["bayes"] = {
    "--matrices": Refused(["MATS"]), "--qrels": ["QRELS2"], "--runs": ["RUN0", "RUN1", "RUN2"], "--gains": ["1:9"],
    "--cutoffs": Refused(["3"]), "--condensed": [], "--metrics": ["RR"], "--max-level": ["3"],
    "--vocabulary": ["ntcireval"], "--order": ["file"], "--trec-eval-version": ["9"], "--depth": ["2"], "--out": OUT,
    "--draws": ["120"], "--chains": ["3"], "--seed": ["5"], "--labels": ["LABELS"], "--no-figures": [], "--quiet": []}
ALT["reproduce"] = ALT["paper-tables"]


def _subparsers() -> dict:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return {name: p for name, p in sub.choices.items() if name not in DROP_INS}


def _options(p) -> list[str]:
    return [a.option_strings[-1] for a in p._actions if a.option_strings and a.dest != "help"]


def _words(words, i: Path, tmp: Path) -> list[str]:
    subst = {"QRELS": str(i / "qrels.txt"), "QRELS2": str(i / "qrels2.txt"), "MATS": str(i / "mats"),
             "MATS2": str(i / "mats2"), "LABELS": str(i / "labels.txt"), "TOPICS": str(i / "topics.txt"),
             "RESULTS": str(i / "results"), "RUNS_USED": str(i / "runs_used.csv"), "CACHE": str(tmp / "c.npz"),
             "TOPICS_OUT": str(tmp / "topics-out.txt"), "ROOT": str(tmp / "root"),
             **{f"RUN{r}": str(i / "runs" / f"R{r}.run") for r in range(R)}}
    out = []
    for w in words:
        for k in sorted(subst, key=len, reverse=True):
            w = w.replace(k, subst[k])
        out.append(w)
    return out


def _without(argv: list[str], option: str) -> list[str]:
    """``argv`` without ``option`` and its values (up to the next option)."""
    out, skip = [], False
    for w in argv:
        if w == option:
            skip = True
            continue
        if skip and w.startswith("--"):
            skip = False
        if not skip:
            out.append(w)
    return out


def _snapshot(out: Path, stdout: str, stderr: str = "") -> dict:
    files = {}
    if out.is_file():
        files["."] = out.read_bytes()
    elif out.is_dir():
        files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    return {"files": files, "stdout": stdout, "stderr": stderr}


def _call(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code
    cap = capsys.readouterr()
    if isinstance(rc, str):                 # sys.exit(message): Python prints it and exits 1
        return 1, cap.out, cap.err + rc + "\n"
    return rc, cap.out, cap.err


def _last(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def _check(cmd: str, option: str, alt, inp: Path, tmp: Path, capsys, base=None) -> None:
    """The option with its alternative changes the output of ``base`` (else: the command's line), or is refused;
    a flag the base line gives is checked by leaving it out."""
    base = base or BASE[cmd]
    o0, o1 = tmp / "base", tmp / "alt"

    def line(o):
        argv = base(inp, o)
        return ["reproduce", *argv[1:]] if cmd == "reproduce" else argv
    argv0 = line(o0)
    rc, out0, err0 = _call(argv0, capsys)
    assert rc == 0, f"{cmd}: the base line fails: {_last(err0)}"
    if alt == OUT:
        assert o0.exists(), argv0
        return
    if isinstance(alt, Writes):
        target = Path(_words([alt], inp, tmp)[0])
        rc, _, err = _call(line(o1) + [option, str(target)], capsys)
        assert rc == 0 and target.exists(), f"{cmd} {option}: rc {rc}, {target} not written: {_last(err)}"
        return
    if option in argv0 and alt == [] and not isinstance(alt, Refused):     # a flag of the base line: without it
        argv0, argv1 = _without(argv0, option), line(o1)
        o0 = tmp / "without"
        argv0 = _without(line(o0), option)
        rc, out0, err0 = _call(argv0, capsys)
        assert rc == 0, f"{cmd} without {option}: rc {rc}: {_last(err0)}"
    else:
        argv1 = _without(line(o1), option) + [option, *_words(alt, inp, tmp)]
    rc, out1, err1 = _call(argv1, capsys)
    err = err1
    if isinstance(alt, Refused) and rc != 0:    # refused: a usage error, or the input it asks for rejected
        errors = [ln for ln in err.splitlines() if " error" in ln]
        assert rc in (1, 2) and "Traceback" not in err and len(errors) == 1, f"{cmd} {option}: rc {rc}: {err}"
        return
    assert rc == 0, f"{cmd} {option} {' '.join(alt)}: rc {rc}: {_last(err)}"
    if option == "--quiet":                     # what it silences: stdout or the progress on stderr
        same = (out1, err1) == (out0, err0)
    else:
        same = _snapshot(o1, out1) == _snapshot(o0, out0)
    assert not same, f"{cmd} {option} {' '.join(alt)}: the same output"


def _cases():
    cases = []
    for cmd, p in sorted(_subparsers().items()):
        for opt in _options(p):
            cases.append((cmd, opt))
    return cases


CASES = _cases()

#: the figures' width and formats (issue 47), on every command that draws: the walk's base lines
#: draw no figure (--no-figures), so the values it tries are the ones refused as they are parsed
#: (tests/unit/test_figures.py and tests/pipeline/test_figures_print.py check what they draw)
for _c, _o in CASES:
    if _o in ("--figure-width", "--figure-formats"):
        ALT.setdefault(_c, {})[_o] = Refused(["1"] if _o == "--figure-width" else ["pdf"])

#: the stages ``metaeval stage NAME`` cannot run alone on a folder of matrices (the gain sweep reads
#: its variant matrices, discpower the parts of paired and unpaired): their options are walked
#: through ``metaeval meta``, which reads the same declared parameter
VIA_META = ("gain_sweep", "discpower")

#: options that do not yet reach a computation nor are refused (issue 48, open): each fails the walk
#: today; a fix turns its case into an unexpected pass, which fails until it leaves this list
from metaeval.meta.stages import get as _stage, own_job_stages as _own_job_stages  # noqa: E402

_OTHER_KIND = "an option of another kind of stage (tables, figures, parts, the labelled collection): " \
              "accepted and ignored by `metaeval stage kendall`"
_TINY = "no effect on the walk's tiny input (no conflicting labels, no significant pair): its input to be made"
KNOWN: dict[tuple[str, str], str] = {
    **{("stage", o): _OTHER_KIND for o in (
        "--parts", "--texts", "--stages", "--collection", "--gains", "--folder", "--write-parts", "--runs-used",
        "--tables", "--figures", "--jobs", "--formats", "--views", "--collection-dirs", "--method", "--fractions",
        "--depths", "--trials", "--groups", "--pool-runs", "--pool-depth", "--no-condensed", "--write-qrels",
        "--inc-jobs", "--qrels", "--runs", "--order", "--depth", "--trec-eval-version")},
    # an own job's options on `metaeval stage` (bayes: --bayes-draws ...), walked through its own command
    **{("stage", prm.stage_option): _OTHER_KIND for own in _own_job_stages() for prm in _stage(own).params
       if prm.option},
    **{(c, "--select-by"): "without --top-runs it selects nothing: to be refused" for c in ("stage", "incompleteness")},
    **{(c, "--pair-top-runs"): "the Markdown of a per-pair table of more than 22 runs only" for c in ("meta", "stage")},
    **{(c, "--swap-rule"): "the walk's swap rates never differ between the two rules" for c in ("meta", "stage")},
    **{(c, "--risk-alpha"): "without --risk-baseline there is no risk table: to be refused" for c in ("meta", "stage")},
    **{("meta", o): "the gain sweep runs only when its variant matrices are present: to be refused otherwise"
       for o in ("--sweep-metrics", "--sweep-gains", "--default-gains")},
    **{("stage", o): "the gain sweep runs only when its variant matrices are present: to be refused otherwise"
       for o in ("--sweep-metrics", "--sweep-gains", "--default-gains")},
    ("stage", "--labels"): "labels reach Markdown, LaTeX and figures; `stage kendall` writes a CSV part only",
    ("stage", "--collection-name"): "captions only: `stage kendall` writes a CSV part only",
    ("stage", "--reproduction"): "captions only: `stage kendall` writes a CSV part only",
    ("incompleteness", "--gains"): "the walk's incompleteness line scores AP only, which no gain changes",
    ("incompleteness", "--groups"): "leave-one-group-out only; its default cannot tell given from not given",
    ("incompleteness", "--pool-depth"): "leave-one-group-out only; its default cannot tell given from not given",
    ("incompleteness", "--no-condensed"): "condensed variants leave the walk's tables unchanged: to be checked",
    ("incompleteness", "--inc-jobs"): "processes only: the numbers must not change (by design)",
    ("judgments", "--gains"): _TINY, ("judgments", "--threshold"): _TINY,
    ("judgments", "--on-conflict"): _TINY, ("judgments", "--topic-set"): _TINY, ("judgments", "--topics"): _TINY,
    ("judgments", "--results-format"): "auto already reads the walk's files as this layout",
    ("judgments", "--skip-bad"): "no bad leaderboard file in the walk's inputs", ("judgments", "--clip"): _TINY,
    ("ppi", "--on-conflict"): _TINY,
    ("ppi", "--gains"): "AP and trec_eval's nDCG (relevance levels as gains) ignore --gains: to be refused",
    ("matrices", "--std-runs"): "only with a standardised measure (std=) among --metrics: to be refused otherwise",
    ("matrices", "--leave-one-out"): "only with --std-runs: to be refused otherwise",
    ("test-errors", "--B"): "paired-t only resamples nothing; the DAG's job passes --B always, so refusing it "
                            "needs the job's arguments to leave it out",
    ("test-errors", "--conventions"): "a single choice, the default",
}

#: the cases the suite walks (the whole walk, METAEVAL_OPTION_WALK=1, is a step of .ci/run: about
#: four minutes on 2 cores, beyond the suite's budget)
SENTINELS = {("ppi", "--trec-eval-version"), ("evaluate", "--trec-eval-version"), ("simulate", "--out-root"),
             ("stage", "--swap-threshold"), ("ingest", "--topics-out"), ("reproducibility", "--rbo-p")}
WALK = os.environ.get("METAEVAL_OPTION_WALK") == "1"


def test_every_option_has_a_row():
    missing = [(c, o) for c, o in CASES if o not in ALT.get(c, {}) and o not in SHARED]
    assert sorted({c for c, _ in CASES}) == sorted(BASE)
    assert not missing, missing
    assert set(KNOWN) <= set(CASES) and SENTINELS <= set(CASES)


def _params():
    out = []
    for c, o in CASES:
        if not WALK and (c, o) not in SENTINELS:
            continue
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[(c, o)])] if (c, o) in KNOWN else []
        out.append(pytest.param(c, o, marks=marks, id=f"{c}{o}"))
    return out


@pytest.mark.parametrize("cmd, option", _params())
def test_option_reaches_its_computation(cmd, option, inp, tmp_path, capsys):
    own = ALT.get(cmd, {})
    if option in own:
        _check(cmd, option, own[option], inp, tmp_path, capsys)
        return
    stage, alt = SHARED[option]
    if cmd == "stage" and stage in VIA_META:
        cmd = "meta"
    if cmd == "stage":
        base = (lambda i, o: ["stage", stage, "--matrices", str(i / "mats"), "--out", str(o), "--quiet"])
        _check(cmd, option, alt, inp, tmp_path, capsys, base)
    else:
        _check(cmd, option, alt, inp, tmp_path, capsys)
