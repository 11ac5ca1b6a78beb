"""Benchmark of the Snakemake DAG against the same work done by sequential CLI calls.

On the TREC DL19 example (config/examples/trec-dl19.yaml: 37 runs, 43 topics, 13 metrics + AG_/G_
of AP and Q-measure, the gain sweep, B = 1000), each into a temporary folder:

(a) the DAG: ``snakemake --profile workflow/profiles/default --cores 2`` with the example config
    (the cross-collection summary switched off: the CLI calls below do not write it; ``--summary``
    keeps it and times that too);
(b) the CLI: ``metaeval matrices`` for the same measures (writing the collection cache), then
    ``metaeval meta`` with the same options, the collection tables and the figures, then (when the
    config runs it, as the example does) ``metaeval incompleteness`` with the same options (its
    tables, trials, reduced qrels and figures).

Each round runs both routes twice, interleaved: **cold** (the first run after the README's
``pip install -e``: no compiled bytecode of metaeval -- its ``__pycache__`` folders are removed
before each route -- and no matplotlib font cache -- ``MPLCONFIGDIR`` a fresh empty folder per
route; pip compiles the installed dependencies at install time) and **warm** (bytecode and font
cache in place).  Reports, per condition, the median over ``--repeat`` rounds of the wall time and of the
CPU seconds (user + system of every child process: ``resource.getrusage(RUSAGE_CHILDREN)``) of
both routes and the ratios DAG / CLI; the targets are <= 1.1 in wall time and <= 1.2 in CPU
seconds.  CPU seconds are the less load-sensitive of the two: on a machine busy with other work,
read the CPU ratio.  Also checks that both routes wrote byte-identical table CSVs.  Skips with a
message when the DL19 data are absent (``../shared/data`` beside the project, or
``$METAEVAL_SHARED_DATA``).

    PYTHONPATH=src .venv/bin/python benchmarks/bench_pipeline.py [--repeat 3] [--cores 2] [--summary] [--only warm|cold]
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METAEVAL_SHARED_DATA") or ROOT.parent / "shared" / "data").expanduser().resolve()
DL19 = DATA / "trec-dl19-passage"
EXAMPLE = ROOT / "config" / "examples" / "trec-dl19.yaml"


def _unique(xs):
    return list(dict.fromkeys(xs))


def cli_commands(cfg: dict, work: Path) -> list[list[str]]:
    """The `metaeval` calls doing the DAG's work on the example config: matrices, meta and, when the
    config runs it, incompleteness."""
    from metaeval.metrics import parse_measure

    def canon(m):
        return parse_measure(m).name

    (name, col), = cfg["collections"].items()
    metrics = _unique(canon(m) for m in cfg["metrics"])
    geometric = _unique(canon(m) for m in cfg.get("geometric", []))
    select_by = canon(cfg.get("select_by", "AP"))
    sw = cfg["sweeps"]["gains"]
    sweep_metrics = _unique(canon(m) for m in sw["metrics"])
    variants = list(sw["variants"])
    sweep_names = [canon(f"{m}(gains={g})") for m in sweep_metrics for g in variants]
    matrix_metrics = _unique(metrics + geometric + [select_by] + sweep_metrics + sweep_names)
    boot = cfg["bootstrap"]
    py = [sys.executable, "-m", "metaeval"]
    out = work / name
    matrices = py + ["matrices", "--qrels", str(DL19 / "qrels.txt"), "--runs", str(DL19 / "runs"),
                     "--order", col.get("order", "file"), "--depth", str(col.get("depth", 1000)),
                     "--cache", str(out / "collection.npz"), "--out", str(out / "matrices"),
                     "--gains", col["gains"], "--quiet", "--metrics", *matrix_metrics]
    meta = py + ["meta", "--matrices", str(out / "matrices"), "--collection", str(out / "collection.npz"),
                 "--out", str(out), "--B", str(boot["B"]), "--alpha", str(boot["alpha"]),
                 "--seed", str(boot["seed"]), "--top-runs", str(col["top_runs"]), "--select-by", select_by,
                 "--swap-threshold", str(cfg["swap"]["threshold"]), "--default-gains", col["gains"],
                 "--collection-name", name, "--quiet", "--metrics", *metrics, "--geometric", *geometric,
                 "--sweep-metrics", *sweep_metrics, "--sweep-gains", *variants]
    cmds = [matrices, meta]
    inc = cfg.get("incompleteness") or {}
    if inc.get("enabled"):
        # the DAG's incompleteness job: the same stage on the labelled collection, its tables, trials
        # (and reduced qrels) and figures, in a folder of its own (metaeval meta replaces OUT)
        cmds.append(py + ["incompleteness", "--collection", str(out / "collection.npz"), "--gains", col["gains"],
                          "--out", str(work / f"{name}-incompleteness"), "--B", str(boot["B"]),
                          "--alpha", str(boot["alpha"]), "--seed", str(boot["seed"]),
                          "--top-runs", str(col["top_runs"]), "--select-by", select_by, "--metrics", *metrics,
                          "--method", *inc["methods"],
                          "--fractions", ",".join(str(f) for f in inc["fractions"]),
                          "--depths", ",".join(str(d) for d in inc["depths"]), "--trials", str(inc["trials"]),
                          "--groups", inc["groups"], "--pool-depth", str(inc["pool_depth"]),
                          "--inc-jobs", str(inc.get("jobs", 1)), "--quiet"]
                         + (["--write-qrels"] if inc.get("write_qrels") else [])
                         + ([] if inc.get("condensed", True) else ["--no-condensed"]))
    return cmds


def _cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_cli(cfg: dict, work: Path, env: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of the CLI calls."""
    t, c = time.perf_counter(), _cpu()
    for cmd in cli_commands(cfg, work):
        subprocess.run(cmd, check=True, cwd=work, env=env)
    return time.perf_counter() - t, _cpu() - c


def run_dag(work: Path, cores: int, summary: bool, env: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of the Snakemake run (Snakemake itself and every job)."""
    override = {"trec-dl19": {"qrels": str(DL19 / "qrels.txt"), "runs": str(DL19 / "runs")}}
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(work),
           "--profile", str(ROOT / "workflow" / "profiles" / "default"), "--configfile", str(EXAMPLE),
           "--cores", str(cores), "--config", f"collections={json.dumps(override)}", "results=results"]
    if not summary:
        cmd.append("summary={enabled: false}")
    t, c = time.perf_counter(), _cpu()
    r = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t, _cpu() - c
    if r.returncode:
        sys.exit(f"snakemake failed ({r.returncode}):\n{r.stderr[-4000:]}")
    return wall, cpu


def job_walls(results: Path) -> dict[str, float]:
    """Wall seconds of every DAG job (the `benchmark:` files)."""
    out = {}
    for f in sorted((results / "benchmarks").rglob("*.tsv")):
        rows = f.read_text().splitlines()
        if len(rows) > 1:
            out[str(f.relative_to(results / "benchmarks").with_suffix(""))] = float(rows[1].split("\t")[0])
    return out


def same_tables(a: Path, b: Path) -> list[str]:
    """Table CSVs (the numbers) that differ (or are missing) between two tables/ folders.  The
    Markdown and LaTeX may differ in the collection's name alone: the DAG's folders are collection
    folders (captions "Data: trec-dl19, ...", labels ``tab:trec-dl19:TABLE``), the CLI's
    incompleteness folder is not."""
    names = sorted(p.name for p in a.iterdir() if p.suffix == ".csv")
    return [n for n in names if not (b / n).is_file() or not filecmp.cmp(a / n, b / n, shallow=False)]


def environment(cold: bool, scratch: Path) -> dict:
    """The environment of one route; ``cold``: metaeval's bytecode removed and a fresh, empty
    matplotlib configuration (font cache) folder, as on the first run after an editable install."""
    env = dict(os.environ)
    if cold:
        for d in (ROOT / "src" / "metaeval").rglob("__pycache__"):
            shutil.rmtree(d, ignore_errors=True)
        d = scratch / "mplconfig"
        d.mkdir(parents=True)
        env["MPLCONFIGDIR"] = str(d)
    return env


def _ratio_line(name: str, rows: list[tuple[float, float, float, float]]) -> str:
    """rows: (cli wall, dag wall, cli cpu, dag cpu) per round."""
    cw, dw, cc, dc = (statistics.median(r[i] for r in rows) for i in range(4))
    return (f"{name}: wall CLI {cw:6.2f} s, DAG {dw:6.2f} s, DAG/CLI {dw / cw:.2f} (target <= 1.1);  "
            f"CPU CLI {cc:6.2f} s, DAG {dc:6.2f} s, DAG/CLI {dc / cc:.2f} (target <= 1.2)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds (median reported)")
    ap.add_argument("--cores", type=int, default=2, help="snakemake --cores (default 2)")
    ap.add_argument("--summary", action="store_true",
                    help="let the DAG also write the cross-collection summary (work the CLI does not do)")
    ap.add_argument("--only", choices=["cold", "warm"], help="time one condition only")
    ap.add_argument("--keep", metavar="DIR", help="keep the last round's folders under DIR")
    args = ap.parse_args(argv)
    if not DL19.is_dir():
        print(f"bench_pipeline: skipped: the DL19 data are not at {DL19} (../shared/data beside the project "
              "or $METAEVAL_SHARED_DATA)")
        return 0
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    sys.path.insert(0, str(ROOT / "src"))
    cfg = yaml.safe_load(EXAMPLE.read_text())
    conditions = [args.only] if args.only else ["cold", "warm"]
    results: dict[str, list] = {c: [] for c in conditions}
    for i in range(args.repeat):
        for cond in conditions:
            with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
                tmp = Path(tmp)
                (tmp / "cli").mkdir()
                (tmp / "dag").mkdir()
                row = {}
                for which in (("cli", "dag") if i % 2 == 0 else ("dag", "cli")):
                    env = environment(cond == "cold", tmp / f"{which}-cache")
                    if which == "cli":
                        row["cli"] = run_cli(cfg, tmp / "cli", env)
                    else:
                        row["dag"] = run_dag(tmp / "dag", args.cores, args.summary, env)
                (cw, cc), (dw, dc) = row["cli"], row["dag"]
                results[cond].append((cw, dw, cc, dc))
                print(f"round {i + 1} {cond}: wall CLI {cw:6.2f} s  DAG {dw:6.2f} s  DAG/CLI {dw / cw:.2f}"
                      f"   CPU CLI {cc:6.2f} s  DAG {dc:6.2f} s  DAG/CLI {dc / cc:.2f}"
                      f"   (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)", flush=True)
                diff = same_tables(tmp / "cli" / "trec-dl19" / "tables",
                                   tmp / "dag" / "results" / "trec-dl19" / "tables")
                if (tmp / "cli" / "trec-dl19-incompleteness").is_dir():
                    diff += same_tables(tmp / "cli" / "trec-dl19-incompleteness" / "tables",
                                        tmp / "dag" / "results" / "trec-dl19" / "tables")
                if diff:
                    print(f"  tables differ between the routes: {', '.join(diff)}")
                if i == args.repeat - 1 and cond == conditions[-1]:
                    walls = job_walls(tmp / "dag" / "results")
                    print("  DAG jobs (s): " + ", ".join(f"{k} {v:.2f}" for k, v in walls.items()))
                    if args.keep:
                        shutil.copytree(tmp, Path(args.keep), dirs_exist_ok=True)
    what = "with the summary" if args.summary else "same work"
    print(f"DL19 example ({what}), --cores {args.cores}, median of {args.repeat}:")
    for cond in conditions:
        print("  " + _ratio_line(cond, results[cond]))
    if os.getloadavg()[0] > 0.5 * (os.cpu_count() or 1):
        print("note: the machine was busy with other work; wall times (and their ratio) are only "
              "meaningful on an otherwise idle machine, CPU seconds less affected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
