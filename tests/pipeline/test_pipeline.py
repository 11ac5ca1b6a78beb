"""The Snakemake pipeline end to end on a reduced config: every contract output, determinism,
the cluster-generic executor (each job its own process) and the SLURM profile dry run."""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from _pipeline_run import ROOT, reduced_copy, reduced_run, snakemake

pytestmark = pytest.mark.slow

TABLE_COLUMNS = {
    "kendall": ["metric_a", "metric_b", "tau", "z0", "p_value"],
    "bootstrap_paired": ["metric", "pairs", "significant", "sensitivity", "estimated_diff"],
    "bootstrap_unpaired": ["metric", "pairs", "significant", "sensitivity", "estimated_diff"],
    "swap": ["metric", "diff_required", "max_diff", "relative", "pct_satisfying"],
    "swap_rates": ["metric", "bin", "comparisons", "swaps", "swap_rate"],
    "stability": ["metric", "f", "minority_rate", "proportion_ties"],
    "asl": ["metric", "test", "system_x", "system_y", "asl"],
    "run_means": ["metric", "run", "mean"],
    "tstar": ["metric", "system_x", "system_y", "t_observed", "t_star"],
    "anova": ["metric", "topics", "systems", "S_A", "S_B", "S_E", "V_A", "V_B", "V_E", "F_A", "F_B", "p_A", "p_B"],
    "pvalues": ["metric", "test", "system_x", "system_y", "diff", "effect_size", "p_value"],
    "discriminative_power": ["metric", "test", "alpha", "pairs", "significant", "share"],
    "topic_set_size": ["metric", "method", "alpha", "beta", "min_diff", "systems", "variance", "n"],
}
TABLES = ["collection", "kendall", "bootstrap_paired", "bootstrap_unpaired", "swap", "swap_rates",
          "stability", "gain_kendall", "gain_bootstrap", "preferred_rank", "asl", "run_means", "tstar",
          "anova", "pvalues", "discriminative_power", "topic_set_size"]
FIGURES = ["run_means", "asl_paired", "asl_unpaired", "swap_rates", "mr_pt", "tstar", "pvalues"]


def check_collection_outputs(res: Path, n_runs: int, metrics: list[str], sweep: bool = True) -> None:
    """Every contract table (CSV/MD/TeX, contract columns) and figure (PNG/PDF) of one collection."""
    pairs = n_runs * (n_runs - 1) // 2
    for t in TABLES:
        if not sweep and t.startswith("gain_"):
            assert not (res / "tables" / f"{t}.csv").exists()
            continue
        for ext in ("csv", "md", "tex"):
            f = res / "tables" / f"{t}.{ext}"
            assert f.is_file() and f.stat().st_size > 0, f
    for name, cols in TABLE_COLUMNS.items():
        df = pd.read_csv(res / "tables" / f"{name}.csv", keep_default_na=False, na_values=[""])
        assert list(df.columns) == cols, (name, list(df.columns))
        assert len(df) > 0, name
    for fig in FIGURES:
        for ext in ("png", "pdf"):
            f = res / "figures" / f"{fig}.{ext}"
            assert f.is_file() and f.stat().st_size > 1000, f
    # round_trip: the CSV's floats read exactly with pandas < 3 too (the lower bounds, .ci/run)
    paired = pd.read_csv(res / "tables" / "bootstrap_paired.csv", float_precision="round_trip")
    assert (paired["pairs"] == pairs).all()
    assert set(metrics) <= set(paired["metric"])
    sens = paired["sensitivity"].to_numpy()
    assert (sens[:-1] >= sens[1:]).all()                       # sorted by sensitivity
    assert ((paired["significant"] / paired["pairs"]) == paired["sensitivity"]).all()
    unpaired = pd.read_csv(res / "tables" / "bootstrap_unpaired.csv")
    assert (unpaired["pairs"] == pairs).all()
    asl = pd.read_csv(res / "tables" / "asl.csv")
    assert set(asl["test"]) == {"paired", "unpaired"}
    assert len(asl[(asl["test"] == "paired") & (asl["metric"] == metrics[0])]) == pairs
    means = pd.read_csv(res / "tables" / "run_means.csv", dtype={"run": str})
    assert means.groupby("metric").size().eq(n_runs).all()
    # discriminative power: the bootstrap tests' p-values are the ASLs; one Discpower file per metric
    pv = pd.read_csv(res / "tables" / "pvalues.csv")
    for test, name in (("paired", "paired-bootstrap"), ("unpaired", "unpaired-bootstrap")):
        a = asl[(asl["test"] == test) & (asl["metric"] == metrics[0])]
        p = pv[(pv["test"] == name) & (pv["metric"] == metrics[0])]
        assert (p["p_value"].to_numpy() == a["asl"].to_numpy()).all(), name
    texts = sorted(f.name for f in (res / "pvalues").iterdir() if not f.name.startswith("."))  # Snakemake's
    # .snakemake_timestamp marks a directory output
    plain = [m for m in metrics if not m.startswith(("AG_", "G_"))]
    assert texts == sorted(f"{m}.rthsd.5000" for m in plain)
    assert len((res / "pvalues" / f"{metrics[0]}.rthsd.5000").read_text().splitlines()) == pairs
    assert (res / "matrices" / "topics.csv").is_file()
    assert len(pd.read_csv(res / "runs_used.csv")) == n_runs


def test_reduced_dag_writes_every_contract_output():
    work = reduced_run()
    res = work / "results"
    check_collection_outputs(res / "simA", 6, ["AP", "RR", "nDCG@100", "AG_AP"])
    check_collection_outputs(res / "simB", 7, ["AP", "RR", "nDCG@100", "AG_AP"])
    assert "G_AP" in set(pd.read_csv(res / "simA" / "tables" / "swap.csv")["metric"])
    coll = pd.read_csv(res / "simA" / "tables" / "collection.csv")
    assert len(coll) == 15 and {"R", "R(L1)", "R(L2)", "R(L3)"} <= set(coll.columns)
    gb = pd.read_csv(res / "simA" / "tables" / "gain_bootstrap.csv")
    assert len(gb) == 3 and gb["default"].sum() == 1
    # the simulated collections were written at run time in the real file forms
    assert (work / "data/simulated/simA/qrels.txt").is_file()
    assert len(list((work / "data/simulated/simB/runs").glob("*.run"))) == 7
    # cross-collection summary and the Kishida reproduction
    summary = pd.read_csv(res / "summary" / "sensitivity_paired.csv")
    assert list(summary.columns) == ["metric", "simA", "simB"]
    assert list(pd.read_csv(res / "summary" / "discriminative_power.csv").columns) == ["metric", "test", "simA",
                                                                                        "simB"]
    assert any((res / "summary").glob("*.png"))
    for i in range(1, 6):
        assert (res / "kishida" / f"table{i}.csv").is_file()
    # every job logged and benchmarked: per collection the matrices, then the meta-evaluation (every
    # method stage, the tables, the figures) in one process
    for job in ("metrics", "meta"):
        assert (res / "logs" / "simA" / f"{job}.log").is_file(), job
        assert (res / "benchmarks" / "simA" / f"{job}.tsv").is_file(), job
    # the stages on the matrices pass their tables on in memory: the only part folder left is that
    # of the stage run by its own job (incompleteness)
    assert sorted(p.name for p in (res / "simA" / "parts").iterdir()) == ["incompleteness"]
    # the incompleteness stage (a stage on the labelled collection): its job, tables and trials
    assert (res / "benchmarks" / "simA" / "incompleteness.tsv").is_file()
    inc = pd.read_csv(res / "simA" / "tables" / "incompleteness.csv", dtype={"level": str})
    assert list(inc.columns) == ["metric", "method", "level", "trials", "tau", "tau_sd", "tau_ap", "rmse",
                                 "significant_pairs", "pairs"]
    assert set(inc["method"]) == {"judged"} and (inc["pairs"] == 15).all()
    assert "AP(judged_only=True)" in set(inc["metric"])
    trials = pd.read_csv(res / "simA" / "incompleteness" / "trials.csv")
    assert len(trials) == (inc["trials"]).sum()
    for fig in ("incompleteness", "pool_reuse"):
        assert (res / "simA" / "figures" / f"{fig}.png").is_file()


def test_a_rerun_gives_byte_identical_tables(tmp_path):
    """Determinism without a second whole DAG: in a copy of the shared reduced run (another
    folder), one collection's results and simulated data and the summary are deleted, and the files
    compared -- that collection's table CSVs, the summary's and its simulated data -- are rebuilt
    with other cores (1 instead of 2; Snakemake runs the jobs that write them, not the writers job
    that lays them out and draws their figures); they are byte-identical to the first run's, and
    Snakemake re-ran only what was deleted (simA's files untouched)."""
    a = reduced_run()
    b = reduced_copy(tmp_path / "rerun")
    kept = {p: p.stat().st_mtime_ns for p in (b / "results" / "simA").rglob("*.csv")}
    files = sorted(p.relative_to(a) for p in (a / "results").glob("simB/tables/*.csv"))
    files += sorted(p.relative_to(a) for p in (a / "results").glob("summary/*.csv"))
    files += sorted(p.relative_to(a) for p in (a / "data" / "simulated" / "simB").rglob("*") if p.is_file())
    assert len(files) >= 13 + 9 + 8
    for gone in (b / "results" / "simB", b / "results" / "summary", b / "data" / "simulated" / "simB"):
        shutil.rmtree(gone)
    targets = [str(f) for f in files if f.parts[0] == "results"]     # the simulated data: their job's folder
    snakemake(b, "--configfile", "reduced.yaml", "--cores", "1", "--quiet", "rules", "--", *targets)
    assert not (b / "results" / "simB" / "figures").exists()           # the writers job did not run
    for f in files:
        assert filecmp.cmp(a / f, b / f, shallow=False), f"{f} differs between runs"
    assert {p: p.stat().st_mtime_ns for p in kept} == kept, "simA was re-run"


TINY = """\
collections:
  tiny:
    simulate: {preset: ntcir5-chinese, topics: 10, runs: 5, depth: 100, candidates: 400, pool_depth: 20}
metrics: [AP, RR]
geometric: []
bootstrap: {B: 50}
stability: {fuzziness: [0.05]}
sweeps: {gains: {enabled: false}}
kishida: {enabled: false}
"""


def test_cluster_generic_executor_runs_self_contained_jobs(tmp_path):
    """Every job through snakemake-executor-plugin-cluster-generic, submitted by a
    script that detaches it as its own process (like sbatch), with only the files on disk shared."""
    (tmp_path / "tiny.yaml").write_text(TINY)
    logs = tmp_path / "joblogs"
    env_submit = ROOT / "workflow/profiles/local-cluster/submit.sh"
    os.environ["METAEVAL_CLUSTER_LOGS"] = str(logs)
    try:
        r = snakemake(tmp_path, "--configfile", "tiny.yaml",
                      "--profile", str(ROOT / "workflow/profiles/local-cluster"),
                      "--cluster-generic-submit-cmd", str(env_submit))
    finally:
        del os.environ["METAEVAL_CLUSTER_LOGS"]
    out = r.stdout + r.stderr
    assert "cluster-generic" in out or "Submitted job" in out
    res = tmp_path / "results" / "tiny"
    check_collection_outputs(res, 5, ["AP", "RR"], sweep=False)
    job_logs = list(logs.glob("*.out"))
    # one detached process per non-local job (all but the `all` target): simulate, metrics,
    # incompleteness, meta (every other method stage, the table CSVs), writers (the tables laid out,
    # the figures), summary
    n_jobs = out.count("Submitted job")
    assert n_jobs == 6 and len(job_logs) == n_jobs


def test_slurm_profile_dry_runs_cleanly(tmp_path):
    # -F: plan every job even when results/ of an earlier run are up to date; a results folder of
    # its own (the project's results/ may hold another config's, which the pipeline refuses)
    r = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-F", "--profile",
                        "workflow/profiles/slurm", "--config", f"results={tmp_path / 'results'}"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    out = r.stdout + r.stderr
    # every job of the default DAG planned (the job stats' table; the messages no longer name tables)
    for job in ("simulate", "metrics", "meta", "summary"):
        assert re.search(rf"^{job}\s+\d+$", out, re.M), job
    assert "This was a dry-run" in out


def test_per_method_jobs_equal_one_metaeval_meta_run(tmp_path):
    """The collection x method jobs (separate processes, samples derived from the seed) give
    byte-identical tables to a single `metaeval meta` run on the same matrices."""
    from metaeval.cli import main

    res = reduced_run() / "results" / "simA"
    out = tmp_path / "meta"
    rc = main(["meta", "--matrices", str(res / "matrices"), "--out", str(out), "--B", "200",
               "--seed", "7", "--top-runs", "6", "--metrics", "AP", "RR", "nDCG@100",
               "--geometric", "AP", "--fuzziness", "0.01", "0.05", "0.1",
               "--sweep-metrics", "P-plus", "--sweep-gains", "1:1:1", "1:5:10",
               "--default-gains", "1:2:3", "--collection", str(res / "collection.npz"),
               "--no-figures", "--quiet"])
    assert rc == 0
    for t in TABLES:
        assert filecmp.cmp(res / "tables" / f"{t}.csv", out / "tables" / f"{t}.csv",
                           shallow=False), f"{t}.csv differs from metaeval meta"
