"""A stage is typed (issue 46): the parameters a stage reads are fields mypy knows, so a misspelt one
is refused before anything runs (``cfg.swap_treshold``), and a plug-in's parameters are read through
:meth:`MetaConfig.plugin`, typed as the plug-in's own parameter class."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]

SNIPPET = '''\
from metaeval.meta.stages import MetaConfig
from _toy_stage import ToyParams


def threshold(cfg: MetaConfig) -> float:
    return cfg.swap_treshold


def scale(cfg: MetaConfig) -> float:
    return cfg.plugin(ToyParams).toy_scale


def scale_typo(cfg: MetaConfig) -> float:
    return cfg.plugin(ToyParams).toy_scael
'''


def _mypy(path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MYPYPATH=os.pathsep.join([str(ROOT / "src"), str(TESTS)]))
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(path.parent / "mypy.ini"),
                           "--no-incremental", "--follow-imports", "silent", str(path)],
                          capture_output=True, text=True, env=env, timeout=120, cwd=path.parent)


def test_mypy_refuses_a_misspelt_parameter(tmp_path):
    (tmp_path / "mypy.ini").write_text("[mypy]\npython_version = 3.11\nignore_missing_imports = true\n"
                                       "cache_dir = /dev/null\ncheck_untyped_defs = true\n")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(SNIPPET)
    r = _mypy(snippet)
    errors = [ln for ln in r.stdout.splitlines() if ": error:" in ln]
    # exactly the two typos, each on its line; the typed plug-in access passes
    assert errors == [
        'snippet.py:6: error: "MetaConfig" has no attribute "swap_treshold"; maybe "swap_threshold"?  [attr-defined]',
        'snippet.py:14: error: "ToyParams" has no attribute "toy_scael"; maybe "toy_scale"?  [attr-defined]',
    ], r.stdout + r.stderr


def test_plugin_parameters_by_class_and_by_name():
    code = ("from metaeval.meta.stages import MetaConfig\n"
            "from _toy_stage import ToyParams\n"
            "cfg = MetaConfig.of(toy_scale=3.0, swap_threshold=0.1)\n"
            "assert cfg.plugin(ToyParams) is cfg.plugin('toy') and cfg.plugin(ToyParams).toy_scale == 3.0\n"
            "assert not hasattr(cfg, 'toy_scale') and cfg.swap_threshold == 0.1\n"
            "try:\n    cfg.plugin('kendall')\nexcept KeyError as e:\n    print(e)\n")
    path = [str(ROOT / "src"), str(TESTS)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, METAEVAL_STAGES="_toy_stage", PYTHONPATH=os.pathsep.join(path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "\"no plug-in stage's parameters 'kendall'; known: toy\""


def test_nothing_is_attached_to_the_plan():
    """The stages' plan hooks return a frozen JobPlan each; the plan of the shipped config has no
    attribute its constructor does not set itself (none named by a stage)."""
    import dataclasses

    import yaml
    from snakemake.utils import validate

    from metaeval import dag
    from metaeval.meta import stages
    from metaeval.stages import JobPlan

    cfg = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    validate(cfg, str(ROOT / "workflow/schemas/config.schema.yaml"))      # the defaults filled in
    plan = dag.Plan(cfg)
    hooked = [s.name for s in stages.REGISTRY if s.plan is not None]
    assert sorted(plan.jobs) == sorted(hooked) and all(isinstance(j, JobPlan) for j in plan.jobs.values())
    assert set(vars(plan)) == {"_parse", "config", "warnings", "notes", "results", "sim_root", "collections",
                               "vocabulary", "metrics", "select_by", "primary_measure", "geometric",
                               "matrix_metrics", "eval_matrices", "values", "conditions", "jobs", "summary",
                               "other_jobs", "own_jobs", "method_stages", "own_job_stages", "meta_stages", "meta_matrices"}
    job = plan.job("incompleteness")
    try:
        job.threads = 9       # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise AssertionError("a JobPlan is frozen")
    assert job.threads == cfg["incompleteness"]["jobs"] and plan.is_on("incompleteness")


def _plugin_env(modules: str) -> dict:
    path = [str(ROOT / "src"), str(TESTS)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, METAEVAL_STAGES=modules, PYTHONPATH=os.pathsep.join(path))


def test_a_plugin_table_across_collections(tmp_path):
    """The recipe across collections, out of the package (tests/_toy_summary.py): its summary table
    is built by the builder the stage declares (Output.build), one column per collection,
    and the summary job reads its source table."""
    code = ("import sys\nfrom pathlib import Path\nimport pandas as pd\n"
            "from metaeval import outputs\nfrom metaeval.report.summary import summary_builder\n"
            "from metaeval.report.tables import write_table\n"
            "root = Path(sys.argv[1])\n"
            "best = {c: pd.DataFrame({'metric': ['AP', 'RR'], 'best': [v, 2 * v]}) for c, v in (('a', 0.5), ('b', 0.25))}\n"
            "o = outputs.get('toy_summary', 'summary')\n"
            "table = summary_builder(o.name)(lambda t: best if t == o.source else {})\n"
            "written = write_table(table, root / o.name, kind=o.layout)\n"
            "print(sorted(p.name for p in written), 'toy_best' in outputs.SUMMARY_SOURCES)\n")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                       env=_plugin_env("_toy_summary"), timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "['toy_summary.csv', 'toy_summary.md', 'toy_summary.tex'] True"
    assert (tmp_path / "toy_summary.csv").read_text() == "metric,a,b\nAP,0.5,0.25\nRR,1.0,0.5\n"


def test_a_plugin_with_a_job_of_its_own(tmp_path):
    """The recipe "own job", out of the package (tests/_toy_ownjob.py): kind other with a run; its
    option generated from its parameter class (checked as parsed), ``metaeval stage toy_ownjob``
    and ``metaeval.run_stage`` write the same files of its scope (values against numpy's quantile by
    hand), its schema section and report captions follow; its file parameter (a topics file, typed
    ``Path``) is an option and a keyword like any other (its DAG job: tests/unit/test_add_stage.py)."""
    m = tmp_path / "m"
    m.mkdir()
    (m / "AP.csv").write_text("topic,r1,r2\nt1,0.1,0.5\nt2,0.3,0.2\nt3,0.9,0.4\n")
    (m / "RR.csv").write_text("topic,r1,r2\nt1,1,0.5\nt2,0.25,1\nt3,0.5,0.2\n")
    (tmp_path / "topics.txt").write_text("t1\nt3\n")
    code = ("import json, sys, yaml\nimport metaeval\nfrom metaeval import dag, outputs\nfrom metaeval.cli import main\n"
            "rc = main(['stage', 'toy_ownjob', '--matrices', sys.argv[1], '--out', sys.argv[2] + '/cli',"
            " '--toy-quantile', '0.25', '--quiet'])\n"
            "try:\n    main(['stage', 'toy_ownjob', '--matrices', sys.argv[1], '--out', sys.argv[2] + '/bad',"
            " '--toy-quantile', '2'])\nexcept SystemExit as e:\n    bad = e.code\n"
            "t = metaeval.run_stage('toy_ownjob', sys.argv[1], toy_quantile=0.25, out=sys.argv[2] + '/api', figures=False)\n"
            "main(['stage', 'toy_ownjob', '--matrices', sys.argv[1], '--out', sys.argv[2] + '/sub', '--toy-quantile', '0.25',"
            " '--toy-topics', sys.argv[2] + '/topics.txt', '--quiet'])\n"
            "from pathlib import Path\n"
            "sub = metaeval.run_stage('toy_ownjob', sys.argv[1], toy_quantile=0.25, toy_topics=Path(sys.argv[2]) / 'topics.txt')\n"
            "try:\n    metaeval.run_stage('toy_ownjob', sys.argv[1], toy_quantil=0.25)\n"
            "except TypeError as e:\n    err = str(e)\n"
            "schema = yaml.safe_load(dag.replace_schema_block(open(sys.argv[3]).read()))['properties']['toy_ownjob']\n"
            "from snakemake.utils import validate\n"
            "cfg = yaml.safe_load('collections: {c: {qrels: q.txt, runs: r}}\\ntoy_ownjob: {topics: t.txt}\\n')\n"
            "open(sys.argv[2] + '/schema.yaml', 'w').write(dag.replace_schema_block(open(sys.argv[3]).read()))\n"
            "validate(cfg, sys.argv[2] + '/schema.yaml')\n"
            "plan = dag.Plan(cfg)\n"
            "print(json.dumps([rc, bad, t['toy_quantiles']['quantile'].tolist(), err, schema['properties']['quantile'],\n"
            "                  sub['toy_quantiles']['quantile'].tolist(), plan.job_inputs('toy_ownjob', 'c'),\n"
            "                  plan.job_args('toy_ownjob', 'c'),\n"
            "                  outputs.report_captions()['toy_ownjob_table_toy_quantiles']]))\n")
    r = subprocess.run([sys.executable, "-c", code, str(m), str(tmp_path), str(ROOT / "workflow/schemas/config.schema.yaml")],
                       capture_output=True, text=True, env=_plugin_env("_toy_ownjob"), timeout=120, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    import json

    rc, bad, values, err, schema, sub, inputs, args, caption = json.loads(r.stdout.splitlines()[-1])
    # the 0.25 quantile (linear): AP r1 (0.1, 0.3, 0.9) -> 0.1 + 0.5 * 0.2; r2 (0.2, 0.4, 0.5) -> 0.3; RR ...
    want = "metric,run,quantile\nAP,r1,0.2\nAP,r2,0.30000000000000004\nRR,r1,0.375\nRR,r2,0.35\n"
    assert rc == 0 and (tmp_path / "cli" / "tables" / "toy_quantiles.csv").read_text() == want
    assert sorted(p.relative_to(tmp_path / "cli").as_posix() for p in (tmp_path / "cli").rglob("toy_*")) == [
        "figures/toy_quantiles.pdf", "figures/toy_quantiles.png", "tables/toy_quantiles.csv",
        "tables/toy_quantiles.md", "tables/toy_quantiles.tex"]
    assert bad == 2 and "metaeval stage: error: argument --toy-quantile: must be a number in [0, 1], got '2'" in r.stderr
    assert values == [0.2, 0.30000000000000004, 0.375, 0.35]
    assert err == "run_stage('toy_ownjob'): unknown parameter 'toy_quantil'; known: toy_quantile, toy_topics"
    assert schema == {"description": "The toy own job's quantile.", "type": "number", "minimum": 0, "maximum": 1,
                      "default": 0.5}
    assert caption.startswith("Each run's quantile of its topic scores. After nothing (a test).")
    assert (tmp_path / "api" / "tables" / "toy_quantiles.csv").read_text() == want
    # the topics file: t1 and t3 only, from the command and the API alike
    import numpy as np

    kept = {"AP": [[0.1, 0.5], [0.9, 0.4]], "RR": [[1, 0.5], [0.5, 0.2]]}
    assert sub == [float(q) for m in ("AP", "RR") for q in np.quantile(np.array(kept[m]), 0.25, axis=0)]
    rows = (tmp_path / "sub" / "tables" / "toy_quantiles.csv").read_text().splitlines()[1:]
    assert [float(row.split(",")[2]) for row in rows] == sub
    # its DAG job: the file its config block names is an input, and its option
    assert inputs == ["t.txt"] and args == "--toy-quantile 0.5 --toy-topics t.txt"
