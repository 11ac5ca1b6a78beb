"""The package's own jobs on the matrices use the own-job recipe (docs/architecture.md, "The four
recipes"): each is run by the generic rule ``own_job_NAME`` (workflow/rules/own_job.smk, no rule of
its own), and ``metaeval stage NAME`` -- the generic command its rule runs -- writes the same bytes
as its own command (``metaeval bayes``, ...), which keeps its options and files."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval.cli import main

ROOT = Path(__file__).resolve().parents[2]

#: stage -> (its own command's words, the same run through `metaeval stage NAME`, its config block)
CONVERTED = {
    "bayes": (["bayes", "--metrics", "AP", "RR", "--draws", "100", "--chains", "2", "--seed", "3"],
              ["stage", "bayes", "--metrics", "AP", "RR", "--bayes-metrics", "AP", "RR", "--bayes-draws", "100",
               "--bayes-chains", "2", "--bayes-seed", "3"],
              "bayes: {enabled: true, metrics: [AP], draws: 100, chains: 2}\n"),
    "test_errors": (["test-errors", "--metrics", "AP", "RR", "--pairs", "2", "--topics", "5,6", "--trials", "10",
                     "--deltas", "0.05,0.1", "--alphas", "0.01,0.05", "--tests", "paired-t,sign,bootstrap", "--B", "50",
                     "--seed", "3"],
                    ["stage", "test_errors", "--metrics", "AP", "RR", "--te-metrics", "AP", "RR", "--te-pairs", "2",
                     "--te-topics", "5,6", "--te-trials", "10", "--te-deltas", "0.05,0.1", "--te-alphas", "0.01,0.05",
                     "--te-tests", "paired-t,sign,bootstrap", "--te-B", "50", "--te-seed", "3"],
                    "test_errors: {enabled: true, metrics: [AP], topics: [10], trials: 20, pairs: 2}\n"),
    "standardisation": (["standardise", "--experiment", "--metrics", "AP", "RR", "--std", "z", "E", "U", "--topics", "4",
                         "--trials", "10", "--seed", "3"],
                        ["stage", "standardisation", "--metrics", "AP", "RR", "--std-metrics", "AP", "RR", "--std", "z",
                         "E", "U", "--std-topics", "4", "--std-trials", "10", "--std-seed", "3"],
                        "standardisation: {enabled: true, topics: 5, trials: 10}\n"),
}
#: the converted stages whose own command takes --labels (the others' show every name)
LABELLED = ("bayes",)
#: an own job on the collection's data (StageInfo.data) -> (its own command's words, the same run through
#: `metaeval stage NAME`); {Q}, {J}, {R}: a human's qrels, another assessor's (a judge's), the runs
ON_DATA = {
    "ppi": (["ppi", "--qrels", "{Q}", "--judge", "{J}", "--runs", "{R}", "--labelled", "4", "--sizes", "2,3",
             "--trials", "5", "--seed", "3", "--metrics", "AP", "RR", "--order", "file"],
            ["stage", "ppi", "--qrels", "{Q}", "--runs", "{R}", "--order", "file", "--ppi-judge", "{J}",
             "--ppi-labelled", "4", "--ppi-sizes", "2,3", "--ppi-trials", "5", "--ppi-seed", "3", "--ppi-metrics",
             "AP", "RR"]),
    "judgments": (["judgments", "--qrels", "ref={Q}", "other={J}", "--reference", "ref", "--runs", "{R}", "--fill",
                   "hybrid=other+ref", "--B", "20", "--top-k", "3", "--metrics", "AP", "RR", "--order", "file"],
                  ["stage", "judgments", "--qrels", "{Q}", "--runs", "{R}", "--order", "file", "--judgments-reference",
                   "ref", "--judgments-qrels", "other={J}", "--judgments-fill", "hybrid=other+ref", "--judgments-B", "20",
                   "--judgments-top-k", "3", "--judgments-metrics", "AP", "RR"]),
}


def _matrices(folder: Path) -> None:
    rng = np.random.default_rng(7)
    folder.mkdir(parents=True)
    topics, runs = [f"t{i}" for i in range(12)], [f"sys_r{i}" for i in range(5)]
    for m in ("AP", "RR"):
        df = pd.DataFrame(rng.beta(2, 3, size=(len(topics), len(runs))), index=topics, columns=runs)
        df.index.name = "topic"
        df.to_csv(folder / f"{m}.csv")


def _files(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix in (".csv", ".md", ".tex") and "matrices" not in p.parts}


@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_an_own_job_of_the_package(name):
    from metaeval.meta.stages import get, own_job_stages

    st = get(name)
    assert st.own_job and name in own_job_stages() and st.run is not None
    assert not (ROOT / "workflow" / "rules" / f"{name}.smk").exists()
    assert f"rules/{name}.smk" not in (ROOT / "Snakefile").read_text()


@pytest.mark.parametrize(("name", "labels"), [(n, False) for n in sorted(CONVERTED)] + [(n, True) for n in LABELLED])
def test_the_generic_command_writes_the_commands_bytes(tmp_path, name, labels):
    own, generic, _ = CONVERTED[name]
    extra = []
    if labels:
        (tmp_path / "labels.txt").write_text("sys_r1 First\nAP AveP\n")
        extra = ["--labels", str(tmp_path / "labels.txt")]
    outs = []
    for way, words in (("own", own), ("generic", generic)):
        coll = tmp_path / way / "C"                 # the pipeline's layout: C/matrices beside C/tables
        _matrices(coll / "matrices")
        # the tables and texts compared (figures: tests/unit/test_test_errors_stage.py and the DAG's checksums)
        assert main([*words, "--matrices", str(coll / "matrices"), "--out", str(coll), *extra, "--no-figures",
                     "--quiet"]) == 0
        outs.append(_files(coll))
    assert outs[0] and outs[0] == outs[1]
    if labels:
        assert any("First" in v.decode() for k, v in outs[0].items() if k.endswith(".md"))


def _data(folder: Path) -> dict:
    """8 topics of 6 documents judged by two assessors, 4 runs of 5 documents: the words {Q}, {J}, {R}."""
    rng = np.random.default_rng(5)
    docs = [f"d{i}" for i in range(6)]
    human, other, runs = [], [], {f"sys_r{k}": [] for k in range(4)}
    for t in range(1, 9):
        lv = rng.integers(0, 3, len(docs))
        lv[t % len(docs)] = 2
        jl = np.clip(lv + rng.integers(-1, 2, len(docs)), 0, 2)
        human += [f"{t} 0 {d} {a}" for d, a in zip(docs, lv)]
        other += [f"{t} 0 {d} {b}" for d, b in zip(docs, jl)]
        for name in runs:
            runs[name] += [f"{t} Q0 {docs[i]} {r + 1} {10 - r} {name}" for r, i in enumerate(rng.permutation(6)[:5])]
    (folder / "runs").mkdir(parents=True)
    for name, lines in runs.items():
        (folder / "runs" / f"{name}.txt").write_text("".join(x + "\n" for x in lines))
    (folder / "human.txt").write_text("".join(x + "\n" for x in human))
    (folder / "other.txt").write_text("".join(x + "\n" for x in other))
    return {"{Q}": str(folder / "human.txt"), "{J}": str(folder / "other.txt"), "{R}": str(folder / "runs")}


@pytest.mark.parametrize("name", sorted(ON_DATA))
def test_the_generic_command_on_the_data_writes_the_commands_bytes(tmp_path, name):
    """An own job on the collection's qrels and runs (``ppi``, ``judgments``): ``metaeval stage NAME
    --qrels --runs --NAME-...`` writes what its own command writes, byte for byte (tables, figures,
    its folder, the folder's manifest: the stage's files, as its command's), the runs and measures
    shown by --labels; it is of the recipe (no rule of its own)."""
    from metaeval.meta.stages import get

    assert get(name).own_job and get(name).data and not (ROOT / "workflow" / "rules" / f"{name}.smk").exists()
    files = _data(tmp_path / "data")
    (tmp_path / "labels.txt").write_text("sys_r1 First\nAP AveP\n")
    extra = ["--labels", str(tmp_path / "labels.txt")]
    outs = []
    for way, words in zip(("own", "generic"), ON_DATA[name]):
        out = tmp_path / way
        words = [functools.reduce(lambda w, kv: w.replace(*kv), files.items(), w) for w in words]
        assert main(words + ["--out", str(out), "--figure-formats", "png", *extra, "--quiet"]) == 0
        outs.append({str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert outs[0] and outs[0] == outs[1]
    assert any(k.endswith(".png") for k in outs[0]) and any(k.endswith(".tex") for k in outs[0])
    assert any("First" in v.decode() for k, v in outs[0].items() if k.endswith(".md"))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONVERTED))
def test_its_rule_is_the_generic_one(tmp_path, name):
    from _pipeline_run import REDUCED

    cfg = tmp_path / "config.yaml"
    cfg.write_text(REDUCED + CONVERTED[name][2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    r = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                        "--configfile", str(cfg), "-n", "-p"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300, env=env, check=False)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    jobs = [ln.split()[0] for ln in r.stdout.split("Job stats:")[1].split("total")[0].splitlines()[3:] if ln.strip()]
    assert f"own_job_{name}" in jobs and name not in jobs
    shells = [ln for ln in r.stdout.splitlines() if ln.startswith("Shell command:") and f" stage {name} " in ln]
    assert len(shells) == 2 and all("--out results/simA " in s or "--out results/simB " in s for s in shells)
    assert all("-m metaeval.report.views" in s for s in shells)
    # the reduced config's Kishida reproduction: one job for the run, the generic rule's
    assert "own_job_kishida" in jobs and "kishida" not in jobs
    kishida = [ln for ln in r.stdout.splitlines() if ln.startswith("Shell command:") and " stage kishida " in ln]
    assert len(kishida) == 1 and " --kishida-M 1000 " in kishida[0] and "--out results/kishida " in kishida[0]


def _runs(d: Path) -> dict:
    """A qrels file and four runs of three topics (the reproducibility stage's input)."""
    rng = np.random.default_rng(5)
    (d / "qrels.txt").write_text("".join(f"{t} 0 d{t}-{k} {int(rng.integers(0, 3))}\n" for t in range(1, 4)
                                         for k in range(6)))
    files = {}
    for r in range(4):
        files[r] = d / f"r{r}.run"
        files[r].write_text("".join(f"{t} Q0 d{t}-{k} {i + 1} {10 - i} r{r}\n" for t in range(1, 4)
                                    for i, k in enumerate(rng.permutation(6))))
    return {"qrels": str(d / "qrels.txt"), **{f"r{r}": str(f) for r, f in files.items()}}


#: the own jobs for the whole run: (its own command's words, the same through `metaeval stage NAME`,
#: run_stage's keywords), of the input files
RUN_WIDE = {
    "kishida": lambda f: (["paper-tables", "kishida", "--L", "5", "--M", "20", "--R", "10,20", "--b", "3"],
                          ["stage", "kishida", "--kishida-L", "5", "--kishida-M", "20", "--kishida-R", "10,20",
                           "--kishida-b", "3"],
                          {"kishida_L": 5, "kishida_M": 20, "kishida_R": (10, 20), "kishida_b": 3.0}),
    "reproducibility": lambda f: (
        ["reproducibility", "--qrels", f["qrels"], "--orig", f["r0"], f["r1"], "--rep", f"x={f['r2']},{f['r3']}",
         "--metrics", "AP", "P@5", "--depth", "4", "--no-figures", "--quiet"],
        ["stage", "reproducibility", "--rp-qrels", f["qrels"], "--rp-orig", f["r0"], f["r1"], "--rp-reps",
         f"x={f['r2']},{f['r3']}", "--rp-metrics", "AP", "P@5", "--rp-depth", "4", "--figure-formats", "png"],
        {"rp_qrels": Path(f["qrels"]), "rp_orig": (Path(f["r0"]), Path(f["r1"])), "rp_reps": (f"x={f['r2']},{f['r3']}",),
         "rp_metrics": ("AP", "P@5"), "rp_depth": 4}),
}


@pytest.mark.parametrize("name", sorted(RUN_WIDE))
def test_a_job_for_the_run_of_the_package(tmp_path, name):
    """An own job for the whole run (StageInfo.run_wide): no rule of its own; its command, `metaeval
    stage NAME` (no matrices; its file parameters' options, paths) and run_stage write the same
    tables (the figures: the same plotters, drawn once)."""
    import metaeval
    from metaeval.meta.stages import get, own_job_stages

    st = get(name)
    assert st.own_job and st.run_wide and name in own_job_stages()
    assert not (ROOT / "workflow" / "rules" / f"{name}.smk").exists()
    assert f"rules/{name}.smk" not in (ROOT / "Snakefile").read_text()
    own, generic, keywords = RUN_WIDE[name](_runs(tmp_path))
    outs = []
    for way, words in (("own", own), ("generic", generic)):
        assert main([*words, "--out", str(tmp_path / way)] + (["--quiet"] if way == "generic" else [])) == 0
        outs.append(_files(tmp_path / way))
    metaeval.run_stage(name, out=tmp_path / "api", figures=False, **keywords)
    outs.append(_files(tmp_path / "api"))
    assert outs[0] and outs[0] == outs[1] == outs[2]


def test_no_figures_of_an_own_job_and_refused_elsewhere(tmp_path, capsys):
    """``metaeval stage NAME --no-figures``: an own job writes its tables and no figure, as its own
    command's ``--no-figures``; a stage that draws nothing refuses the option (exit 2, one line)."""
    coll = tmp_path / "C"
    _matrices(coll / "matrices")
    args = ["stage", "bayes", "--matrices", str(coll / "matrices"), "--metrics", "AP", "--bayes-metrics", "AP",
            "--bayes-draws", "100", "--bayes-chains", "2", "--out", str(coll), "--quiet"]
    assert main([*args, "--no-figures"]) == 0
    assert list((coll / "tables").glob("bayes_*.csv")) and not (coll / "figures").exists()
    with pytest.raises(SystemExit) as e:
        main(["stage", "kendall", "--matrices", str(coll / "matrices"), "--out", str(tmp_path / "k"), "--no-figures"])
    assert e.value.code == 2 and "--no-figures" in capsys.readouterr().err


def _cli(argv) -> int:
    try:
        return main(argv)
    except SystemExit as e:
        return int(e.code or 0)


def test_a_reproduction_is_a_name_and_exactly_two_run_files(tmp_path, capsys):
    """The reproducibility stage's reproductions are typed file parameters (``rp_reps: tuple[NamedFiles,
    ...]``) parsed by one function, :func:`reproduction`, which demands two run files (baseline,
    advanced): one or three files are a usage error (exit 2, worded as always) of ``metaeval stage
    reproducibility --rp-reps``, of the stage's own command ``metaeval reproducibility --rep`` (the
    same parser) and of ``run_stage`` (a word or a NamedFiles)."""
    import argparse

    import metaeval
    from metaeval.meta.stages import NamedFiles, get
    from metaeval.meta.stages.reproducibility import reproduction

    prm = next(p for p in get("reproducibility").params if p.name == "rp_reps")
    assert prm.file and prm.parse is reproduction and prm.option == "--rep" and prm.metavar == "NAME=B,A"
    assert reproduction("x=a.run,b.run") == NamedFiles("x", (Path("a.run"), Path("b.run")))
    pair = NamedFiles("x", (Path("a"), Path("b")))
    assert reproduction(pair) is pair
    for bad in ("x=a", "x=a,b,c", "x=a,", "x=,b", "=a,b", "x", "x="):
        with pytest.raises(argparse.ArgumentTypeError) as e:
            reproduction(bad)
        assert str(e.value) == f"expected NAME=BASELINE,ADVANCED (two run files), got {bad!r}"
    for files in (("a",), ("a", "b", "c")):
        with pytest.raises(argparse.ArgumentTypeError, match="two run files"):
            reproduction(NamedFiles("x", tuple(Path(f) for f in files)))
    f = _runs(tmp_path)
    three = f"x={f['r1']},{f['r2']},{f['r3']}"
    for words, option in ((["stage", "reproducibility", "--rp-qrels", f["qrels"], "--rp-orig", f["r0"], f["r1"],
                            "--rp-reps", three], "--rp-reps"),
                          (["reproducibility", "--qrels", f["qrels"], "--orig", f["r0"], f["r1"], "--rep", three],
                           "--rep")):
        assert _cli([*words, "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert f"argument {option}: expected NAME=BASELINE,ADVANCED (two run files), got {three!r}" in err
        assert not (tmp_path / "o").exists()
    for reps in ((f"x={f['r2']}",), (NamedFiles("x", (Path(f["r1"]), Path(f["r2"]), Path(f["r3"]))),)):
        with pytest.raises(argparse.ArgumentTypeError, match="two run files"):
            metaeval.run_stage("reproducibility", rp_qrels=f["qrels"], rp_orig=(f["r0"], f["r1"]), rp_reps=reps)
    # a word and its NamedFiles: the same tables
    word = metaeval.run_stage("reproducibility", rp_qrels=f["qrels"], rp_orig=(f["r0"], f["r1"]),
                              rp_reps=(f"x={f['r2']},{f['r3']}",), rp_metrics=("AP",), rp_depth=4)
    typed = metaeval.run_stage("reproducibility", rp_qrels=Path(f["qrels"]), rp_orig=(Path(f["r0"]), Path(f["r1"])),
                               rp_reps=(reproduction(f"x={f['r2']},{f['r3']}"),), rp_metrics=("AP",), rp_depth=4)
    assert set(word) == set(typed) and all(word[k].equals(typed[k]) for k in word)


def _reproducibility_config(f: dict, **block) -> dict:
    from snakemake.utils import validate

    cfg = {"collections": {"c": {"qrels": "q", "runs": "r"}},
           "reproducibility": {"enabled": True, "qrels": f["qrels"], "orig": [f["r0"], f["r1"]],
                               "reproductions": {"x": [f["r2"], f["r3"]], "y": [f["r4"], f["r5"]]}, **block}}
    validate(cfg, str(ROOT / "workflow/schemas/config.schema.yaml"))
    return cfg


def test_the_reproducibility_jobs_inputs_are_the_files_its_parameters_name(tmp_path):
    """No plan, no input list of its own: the job of ``reproducibility: {enabled: true}`` reads the
    files of its file parameters (metaeval.dag.Plan.job_inputs) -- the qrels, the reproductions'
    qrels (replicability), the original pair and both runs of every reproduction --, the config's
    ``reproductions: {NAME: [B, A]}`` its named sets (Plan.own_job_values), its command line's
    ``--rp-reps NAME=B,A`` words."""
    import shlex

    from metaeval import dag
    from metaeval.meta.stages import NamedFiles, get

    f = _runs(tmp_path)
    for r in (4, 5):
        f[f"r{r}"] = str(tmp_path / f"r{r}.run")
        Path(f[f"r{r}"]).write_text(Path(f[f"r{r - 2}"]).read_text())
    f["q2"] = str(tmp_path / "qrels2.txt")
    Path(f["q2"]).write_text(Path(f["qrels"]).read_text())
    from metaeval.meta.stages import reproducibility as module

    assert get("reproducibility").plan is None and not hasattr(module, "inputs") and not hasattr(module, "plan")
    runs = [f[f"r{r}"] for r in range(6)]
    for block, qrels in (({}, [f["qrels"]]), ({"rep_qrels": f["q2"]}, [f["qrels"], f["q2"]])):
        plan = dag.Plan(_reproducibility_config(f, **block))
        inputs = plan.job_inputs("reproducibility")
        assert len(inputs) == len(set(inputs)) and set(inputs) == {*qrels, *runs}
        for pair in (f["r2"], f["r3"]), (f["r4"], f["r5"]):       # every reproduction's two runs
            assert set(pair) <= set(inputs)
        assert plan.own_job_values("reproducibility")["rp_reps"] == (
            NamedFiles("x", (Path(f["r2"]), Path(f["r3"]))), NamedFiles("y", (Path(f["r4"]), Path(f["r5"]))))
        args = shlex.split(plan.job_args("reproducibility"))
        at = args.index("--rp-reps")
        assert args[at + 1:at + 3] == [f"x={f['r2']},{f['r3']}", f"y={f['r4']},{f['r5']}"]
        assert args[at + 3].startswith("--")
        assert _cli(["stage", "reproducibility", *args, "--rp-metrics", "AP", "--rp-depth", "4", "--no-figures",
                     "--out", str(tmp_path / "out"), "--quiet"]) == 0
        rep = pd.read_csv(tmp_path / "out" / "tables" / "effects.csv")
        assert rep["reproduction"].tolist() == ["x", "y"]
