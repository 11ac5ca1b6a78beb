"""The package's own jobs on the matrices use the own-job recipe (docs/architecture.md, "The four
recipes"): each is run by the generic rule ``own_job_NAME`` (workflow/rules/own_job.smk, no rule of
its own), and ``metaeval stage NAME`` -- the generic command its rule runs -- writes the same bytes
as its own command (``metaeval bayes``, ...), which keeps its options and files."""

from __future__ import annotations

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
        assert main([*words, "--matrices", str(coll / "matrices"), "--out", str(coll), *extra, "--quiet"]) == 0
        outs.append(_files(coll))
    assert outs[0] and outs[0] == outs[1]
    if labels:
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
