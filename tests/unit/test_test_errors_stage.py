"""The pipeline part of issue 29: the stage ``test_errors`` (its module declares the parameters of
``metaeval test-errors`` and the config block ``test_errors:``), one job per collection when
enabled, its tables and figures declared (metaeval.outputs) and drawn from the tables."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from metaeval import dag, outputs as O

ROOT = Path(__file__).resolve().parents[2]


def _validated(cfg: dict) -> dict:
    from snakemake.utils import validate

    cfg = copy.deepcopy(cfg)
    validate(cfg, str(ROOT / "workflow/schemas/config.schema.yaml"))
    return cfg


def _config(**test_errors) -> dict:
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    if test_errors:
        cfg["test_errors"] = test_errors
    return _validated(cfg)


def test_defaults_are_those_of_the_command():
    from metaeval.cli import build_parser
    from metaeval.meta import error_rates as te
    from metaeval.meta.stages import error_rates as st
    from metaeval.meta.urbano_tests import TESTS

    assert (st.DEFAULT_TOPICS, st.DEFAULT_DELTAS, st.DEFAULT_ALPHAS, st.TESTS) == (
        te.DEFAULT_TOPICS, te.DEFAULT_DELTAS, te.DEFAULT_ALPHAS, TESTS)
    args = build_parser().parse_args(["test-errors", "--matrices", "m", "--out", "o"])
    cfg = _config()["test_errors"]
    assert cfg == {"enabled": False, "metrics": None, "pairs": args.pairs, "topics": list(args.topics),
                   "trials": args.trials, "deltas": list(args.deltas), "alphas": list(args.alphas),
                   "tests": list(args.tests), "B": args.B, "seed": args.seed}


def test_declared_tables_and_figures():
    cols1 = ("metric", "n_topics", "test", "alpha", "rate", "se", "trials")
    cols = ("metric", "n_topics", "test", "delta", "alpha", "rate", "se", "trials")
    for name, want in (("test_errors_type1", cols1), ("test_errors_power", cols), ("test_errors_type3", cols)):
        o = O.get(name)
        assert o.columns == want and o.condition == "test_errors" and o.stages == ("test_errors",)
        assert "Urbano, Lima & Hanjalic (2019)" in O.caption(o)
    figs = {o.name: o.source for o in O.figures("collection", test_errors=True) if "test_errors" in o.stages}
    assert figs == {"test_errors_type1": "test_errors_type1", "test_errors_power": "test_errors_power",
                    "test_errors_type3": "test_errors_type3"}
    assert not [o for o in O.outputs("collection", test_errors=False) if "test_errors" in o.stages]
    caps = O.report_captions()
    assert "Urbano, Lima & Hanjalic (2019)" in caps["figure_test_errors_power"]


def test_plan_off_by_default_and_on_when_enabled():
    off = dag.Plan(_config())
    assert off.conditions["test_errors"] is False and "test_errors" not in off.other_jobs
    assert not [t for t in off.targets() if "test_errors" in t]
    on = dag.Plan(_config(enabled=True, metrics=["AP"], topics=[25, 50], trials=100, deltas=[0.05],
                          alphas=[0.01, 0.05], tests=["paired-t", "sign"], B=200, seed=3))
    assert on.conditions["test_errors"] is True and on.other_jobs == ["test_errors"]
    # the options of its job, `metaeval stage test_errors` (an own job's spelt after its parameters)
    assert on.own_job_args("test_errors", "ntcir3-chinese") == (
        "--te-metrics AP --te-pairs 20 --te-topics 25,50 --te-trials 100 --te-deltas 0.05 --te-alphas 0.01,0.05 "
        "--te-tests paired-t,sign --te-B 200 --te-seed 3")
    # null metrics: the config's (canonical) metrics
    assert dag.Plan(_config(enabled=True)).own_job_args("test_errors", "ntcir3-chinese").startswith(
        "--te-metrics " + " ".join(off.metrics) + " --te-pairs 20 --te-topics 25,50,100 --te-trials 1000 "
        "--te-deltas 0.01,")
    c = "results/ntcir3-chinese"
    want = {f"{c}/tables/test_errors_{k}.{x}" for k in ("type1", "power", "type3") for x in ("csv", "md", "tex")}
    want |= {f"{c}/figures/test_errors_{k}.{x}" for k in ("type1", "power") for x in ("png", "pdf")}
    want |= {f"{c}/test_errors"}                         # the folder of margins.csv and copulas.csv
    assert want <= set(on.targets()) and not want & set(off.targets())
    # the meta job does not write (or view) the stage's tables: its own job does
    assert "test_errors_type1" not in on.report_view_names()
    assert on.report_view_names("test_errors") == ["test_errors_type1", "test_errors_power", "test_errors_type3"]


def test_bad_block_is_rejected():
    with pytest.raises(Exception, match="tests|enum|not one of"):
        _config(enabled=True, tests=["t-test"])


def test_figures_drawn_from_the_tables(tmp_path):
    """The pipeline's plotters draw both figures from the tables the command writes (PNG + PDF)."""
    import numpy as np
    import pandas as pd

    from metaeval.meta.error_rates import test_errors
    from metaeval.meta.stages.error_rates import frames
    from metaeval.pipeline import write_own_outputs
    from metaeval.report.figures import make_all_figures

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.beta(2, 3, size=(30, 8)), index=[str(i) for i in range(30)],
                     columns=[f"r{i}" for i in range(8)])
    res = test_errors({"AP": X, "nDCG": X ** 0.5}, pairs=2, topics=(10,), trials=20, deltas=(0.05,),
                      alphas=(0.05,), tests=("paired-t", "sign"), B=50)
    written = {p.name for p in write_own_outputs("test_errors", frames(res), tmp_path)}   # as its command and job
    assert {"margins.csv", "copulas.csv"} <= written
    assert {"test_errors_type1.png", "test_errors_type1.pdf", "test_errors_power.png", "test_errors_power.pdf"} \
        <= written
    drawn = {p.name for p in make_all_figures(tmp_path / "tables", tmp_path / "again")}
    assert {"test_errors_type1.png", "test_errors_power.png"} <= drawn
    # the same figure from the table as the command drew (one panel row per metric)
    assert (tmp_path / "again/test_errors_type1.png").read_bytes() == \
        (tmp_path / "figures/test_errors_type1.png").read_bytes()


@pytest.mark.slow
def test_dry_run_has_the_job_only_when_enabled(tmp_path):
    from _pipeline_run import REDUCED

    def dry(text, *target):
        cfg = tmp_path / "config.yaml"
        cfg.write_text(text)
        cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
               "--configfile", str(cfg), "-n", "-p", *target]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(ROOT / "src")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
        assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
        return r.stdout

    off = dry(REDUCED)
    assert "test-errors" not in off and "test_errors" not in off
    on = dry(REDUCED + "test_errors: {enabled: true, metrics: [AP], topics: [10], trials: 20, pairs: 2}\n")
    # one job per collection, of the generic rule own_job_test_errors (workflow/rules/own_job.smk)
    assert on.count("-m metaeval stage test_errors ") == 2
    assert ("-m metaeval stage test_errors --matrices results/simA/matrices --metrics AP --te-metrics AP "
            "--te-pairs 2 --te-topics 10 --te-trials 20 --te-deltas 0.01,") in on
    assert "--out results/simA --quiet" in on
    assert "results/simA/figures/test_errors_power.png" in on and "results/simB/tables/test_errors_type3.csv" in on
    assert "-m metaeval.report.views results/simA/tables results/simA/report" in on
