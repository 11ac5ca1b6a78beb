"""Adding a stage is one module (docs/architecture.md, "Add a stage"): a toy stage with one typed
parameter, a table and a figure, declared in tests/_toy_stage.py and registered with
METAEVAL_STAGES, shows in `metaeval meta --help`, in the config schema (with its default), in
MetaConfig, in the arguments of the collection's `meta` job of a Snakemake dry run, in the output
contract (its table and figure DAG targets, their report captions), in the tables `metaeval meta`
writes and the figures `metaeval stage figures` draws -- with no other file touched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml

from test_meta_cli import write_matrices

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]


def _env(stages="_toy_stage"):
    path = [str(ROOT / "src"), str(TESTS)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, METAEVAL_STAGES=stages, PYTHONPATH=os.pathsep.join(path))


def _run(args, stages="_toy_stage", **kw):
    return subprocess.run(args, capture_output=True, text=True, env=_env(stages), timeout=300, **kw)


def test_toy_stage_from_one_module(tmp_path):
    # the command line: its option, with its help
    r = _run([sys.executable, "-m", "metaeval", "meta", "--help"])
    assert r.returncode == 0, r.stderr
    assert "--toy-scale S" in r.stdout and "toy: multiply each run's mean by S" in r.stdout

    # the config schema: its section, default filled in; MetaConfig has the field; the job's arguments
    code = ("import json, sys, yaml\n"
            "from metaeval import dag, outputs\n"
            "from metaeval.meta.run import MetaConfig\n"
            "text = dag.replace_schema_block(open('workflow/schemas/config.schema.yaml').read())\n"
            "toy = yaml.safe_load(text)['properties']['toy']\n"
            "args = dag.stage_arguments('toy', {'toy': {'scale': 3.5}}, {'metrics': ['AP', 'RR']})\n"
            "caps = outputs.report_captions()\n"
            "from metaeval.report.figures import make_all_figures\n"      # its figure, from its table
            "drawn = make_all_figures(sys.argv[1], sys.argv[2])\n"
            "print(json.dumps([toy, MetaConfig().plugin('toy').toy_scale, args, outputs.names('collection'),\n"
            "                  outputs.names('collection', 'figure'), [caps['table_toy'], caps['figure_toy']],\n"
            "                  sorted(p.name for p in drawn)]))\n")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "toy.csv").write_text("metric,run,scaled_mean\nAP,r1,0.5\nAP,r2,0.25\n")
    r = _run([sys.executable, "-c", code, str(tmp_path / "t"), str(tmp_path / "f")], cwd=ROOT)
    assert r.returncode == 0, r.stderr
    toy, default, args, tables, figures, captions, drawn = __import__("json").loads(r.stdout)
    assert toy["properties"]["scale"] == {"description": "The toy stage's factor.", "type": "number",
                                          "exclusiveMinimum": 0, "default": 2.0}
    assert toy["description"] == "A toy stage (tests/_toy_stage.py)." and toy["additionalProperties"] is False
    assert default == 2.0 and args == "--toy-scale 3.5 --metrics AP RR"
    assert "toy" in tables and "toy" in figures and drawn == ["toy.pdf", "toy.png"]
    # the report: the captions of its table and figure
    assert captions[0].startswith("Each run's mean, scaled. After nothing (a test).")   # no reproduction
    assert captions[1] == "Each run's scaled mean. After nothing (a test).\n"

    # the DAG: the collection's meta job passes the configured value and writes the toy table
    cfg = tmp_path / "c.yaml"
    cfg.write_text("collections:\n  sim: {simulate: {preset: ntcir5-chinese, topics: 8, runs: 5}}\n"
                   "metrics: [AP, RR]\nkishida: {enabled: false}\nincompleteness: {enabled: false}\n"
                   "toy: {scale: 4.5}\ntoy_ownjob: {quantile: 0.25, topics: topics.txt}\n")
    (tmp_path / "topics.txt").write_text("1\n2\n")
    # (with a stage on the labelled collection from outside the package too, tests/_toy_labelled.py:
    # its own job per collection writes its part, which the meta job reads -- and a stage with a job
    # of its own, tests/_toy_ownjob.py: the generic rule own_job_NAME of workflow/rules/own_job.smk
    # writes its scope's files, its file parameter's option from its config key -- the same dry run)
    r = _run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-n", "-p",
              "--configfile", str(cfg), "--directory", str(tmp_path)],
             stages="_toy_stage,_toy_labelled,_toy_ownjob", cwd=tmp_path)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    meta = [ln for ln in r.stdout.splitlines() if " stage meta " in ln]
    assert len(meta) == 1 and " --toy-scale 4.5 " in meta[0], meta
    assert "results/sim/tables/toy.csv" in r.stdout and "results/sim/figures/toy.png" in r.stdout
    labelled = [ln for ln in r.stdout.splitlines() if " stage toy_labelled --matrices " in ln]
    assert len(labelled) == 1 and "--collection results/sim/collection.npz" in labelled[0], labelled
    assert "--out results/sim/parts/toy_labelled " in labelled[0] and " --parts results/sim/parts " in meta[0]
    assert "results/sim/tables/toy_relevant.csv" in r.stdout
    own = [ln for ln in r.stdout.splitlines() if " stage toy_ownjob --" in ln]
    from metaeval.report.figure_size import WIDTHS

    assert own == [f"Shell command: {sys.executable} -m metaeval stage toy_ownjob --matrices results/sim/matrices --metrics AP RR"
                   f" --toy-quantile 0.25 --toy-topics topics.txt --figure-width {WIDTHS['column']:g} --figure-formats png,pdf --out results/sim/toy_ownjob"
                   " --quiet > results/logs/sim/toy_ownjob.log 2>&1"], own
    assert all(f"results/sim/toy_ownjob/{f}" in r.stdout for f in
               ("tables/toy_quantiles.csv", "tables/toy_quantiles.tex", "figures/toy_quantiles.png"))

    # the outputs: metaeval meta runs it and writes its table (CSV, Markdown, LaTeX)
    mats = write_matrices(tmp_path / "m")
    r = _run([sys.executable, "-m", "metaeval", "meta", "--matrices", str(mats), "--out", str(tmp_path / "o"),
              "--B", "50", "--rthsd-B", "50", "--no-figures", "--quiet", "--toy-scale", "3"])
    assert r.returncode == 0, r.stderr
    got = pd.read_csv(tmp_path / "o" / "tables" / "toy.csv")
    ap = pd.read_csv(mats / "AP.csv", index_col="topic")
    mine = got[got["metric"] == "AP"].set_index("run")["scaled_mean"]
    assert list(got["metric"].unique()) == ["AP", "RR", "nDCG@10"]
    assert all(abs(mine[r] - 3 * ap[r].mean()) < 1e-12 for r in ap.columns)
    assert {p.name for p in (tmp_path / "o" / "tables").glob("toy.*")} == {"toy.csv", "toy.md", "toy.tex"}
    assert "| run | scaled mean |" in (tmp_path / "o" / "tables" / "toy.md").read_text()    # its own layout


def test_schema_block_is_generated_from_the_declarations():
    """workflow/schemas/config.schema.yaml's stage sections are those the stage modules declare
    (regenerate: python -m metaeval.dag schema)."""
    from metaeval import dag

    text = (ROOT / "workflow/schemas/config.schema.yaml").read_text(encoding="utf-8")
    assert dag.replace_schema_block(text) == text, "run: python -m metaeval.dag schema"
    props = yaml.safe_load(text)["properties"]
    # the common parameters' sections (bootstrap; labels and pair_top_runs of the tables job), the
    # methods', those of the stages with a job of their own, then sweeps
    from metaeval.meta import stages

    # (the stages' sections read from the registry: in registry order within a rank)
    rank = {path[0]: s.schema_rank for s in stages.REGISTRY for path, _ in s.sections if len(path) == 1}
    ranked = sorted(rank, key=lambda p: rank[p])
    assert list(props)[5:8] == ["bootstrap", "labels", "pair_top_runs"]
    assert list(props)[8:8 + len(ranked)] == ranked
    it = iter(ranked)
    assert all(p in it for p in ["swap", "stability", "rank_correlation", "discpower", "incompleteness",
                                 "standardisation", "test_errors", "reproducibility",
                                 "bayes", "sweeps"])


def test_adding_a_stage_touches_these_files():
    """The checklist of docs/architecture.md names the files a new stage touches: its module (its
    parameters, computation and outputs), its lines in the catalogue, its layouts (their module and
    its import in the layout catalogue), its docs and tests -- and counts them; none of the central
    modules, nor a central table of plotters or builders (its outputs name them: Output.draw, build)."""
    doc = (ROOT / "docs/architecture.md").read_text(encoding="utf-8")
    part = doc[doc.index("**Add a stage**"):]
    part = part[:part.index("\n**", 3)]
    files = ["src/metaeval/meta/stages/NAME.py", "src/metaeval/meta/stages/__init__.py",
             "src/metaeval/report/NAME_layouts.py", "src/metaeval/report/layout_catalogue.py", "docs/meta.md",
             "docs/outputs.md", "config/README.md", "tests/test_NAME.py"]
    for f in files:
        assert f"`{f}`" in part, f
    assert f"{len(files)} files" in part
    for gone in ("STAGE_ARGS", "_meta_options", "MetaConfig", "config.schema.yaml", "TABLE_ORDER",
                 "_STAGE_SECONDS", "outputs.py", "dag.py", "pipeline.py", "cli/stage.py", "report/layouts.py",
                 "report/figures.py", "report/summary.py"):
        assert f"touch {gone}" not in part
        assert f"`src/metaeval/{gone}`" not in part
    for gone in ("PLOTTERS", "TABLE_BUILDERS", "FIGURE_PLOTTERS", "summary_builders", "summary_plotters"):
        assert gone not in doc, gone                    # one contract: the outputs name their plotters


def test_meta_package_names_are_the_functions():
    """metaeval.meta imports its names on first use; a function named as its module
    (collection_stats, compare, rthsd) stays the function after the module is imported."""
    import importlib
    import types

    import metaeval.meta as M

    for name in ("collection_stats", "compare", "rthsd"):
        importlib.import_module(f"metaeval.meta.{name}")
        assert isinstance(getattr(M, name), types.FunctionType), name
    assert all(hasattr(M, n) for n in M.__all__)


def test_a_stage_module_that_does_not_load_is_one_line():
    r = subprocess.run([sys.executable, "-m", "metaeval", "meta", "--help"], capture_output=True, text=True,
                       env=dict(_env(), METAEVAL_STAGES="no_such_stage_module"), timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == ("metaeval: error: stage module 'no_such_stage_module' (METAEVAL_STAGES, "
                                "register_stage_module): No module named 'no_such_stage_module'")
