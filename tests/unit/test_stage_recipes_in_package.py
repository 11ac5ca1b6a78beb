"""The four recipes of docs/architecture.md inside the package (issue 46): each toy stage module of
the plug-in tests (tests/_toy_stage.py per collection, tests/_toy_summary.py across collections,
tests/_toy_labelled.py on the labelled collection, tests/_toy_ownjob.py a job of its own) copied
unchanged into a temporary copy of the package's stage folder, ``metaeval/meta/stages/``, and
registered by the catalogue's one line -- no other file of the package changed -- works as a stage
of the package: its parameters typed in ``MetaConfig``, its table's own layout, its figure's
plotter, its summary builder, its place among the methods and its own job through the CLI and the
API.  (The same modules as plug-ins: tests/unit/test_add_stage.py, tests/unit/test_stage_types.py;
one DAG dry run there covers the rules -- a second one here would double the suite's DAG time.)"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]
TOYS = ("_toy_stage", "_toy_summary", "_toy_labelled", "_toy_ownjob")

CHECK = r'''
import json, sys
from pathlib import Path
import pandas as pd
import metaeval
from metaeval.meta import stages
from metaeval.meta.stages import MetaConfig, _toy_stage, _toy_summary, _toy_ownjob
from metaeval.meta.run import run_stage
from metaeval.report.figures import plotter
from metaeval.report.summary import summary_builder
from metaeval.report.tables import write_table
from metaeval.cli import main

out = Path(sys.argv[1])
mats = {"AP": pd.DataFrame({"r1": [0.1, 0.3, 0.9], "r2": [0.5, 0.2, 0.4]}, index=["t1", "t2", "t3"])}
toy = run_stage("toy", mats, ["AP"], MetaConfig.of(toy_scale=3.0))["toy"]
written = write_table(toy, out / "toy", kind="toy")
best = {c: pd.DataFrame({"metric": ["AP"], "best": [v]}) for c, v in (("a", 0.5), ("b", 0.25))}
summary = summary_builder("toy_summary")(lambda t: best if t == "toy_best" else {})
api = metaeval.run_stage("toy_ownjob", mats, toy_quantile=0.25)["toy_quantiles"]
rc = main(["stage", "toy_ownjob", "--matrices", sys.argv[2], "--out", str(out / "own"), "--toy-quantile", "0.25",
           "--quiet"])
print(json.dumps({
    "file": metaeval.__file__,
    "plug_ins": [s.name for s in stages.plug_in_stages()],
    "kinds": {n: stages.get(n).kind for n in ("toy", "toy_summary", "toy_labelled", "toy_ownjob")},
    "methods": [n for n in stages.method_stages() if n.startswith("toy")],
    "own_jobs": list(stages.own_job_stages()),
    "typed": MetaConfig().plugin(_toy_stage.ToyParams).toy_scale,
    "toy": toy["scaled_mean"].tolist(),
    "layout": (out / "toy.md").read_text().splitlines()[2],
    "plotter": plotter("toy")[0] is _toy_stage.plot_toy,
    "summary": summary.to_csv(index=False),
    "api": api["quantile"].tolist(),
    "cli": [rc, (out / "own" / "tables" / "toy_quantiles.csv").read_text()],
}))
'''


def test_the_four_recipes_inside_the_package(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "metaeval", src / "metaeval", ignore=shutil.ignore_patterns("__pycache__"))
    folder = src / "metaeval" / "meta" / "stages"
    for toy in TOYS:                                  # each recipe: its module, unchanged
        shutil.copy(TESTS / f"{toy}.py", folder / f"{toy}.py")
    catalogue = folder / "__init__.py"               # ... and the catalogue's line registering it
    text = catalogue.read_text(encoding="utf-8")
    assert text.count("\nplug_ins_here()\n") == 1
    catalogue.write_text(text.replace("\nplug_ins_here()\n", f"\nfrom . import {', '.join(TOYS)}  # noqa: E402\n"
                                      f"register({', '.join(t + '.STAGE' for t in TOYS)})\nplug_ins_here()\n"),
                         encoding="utf-8")
    # no other file of the package changed
    changed = []
    for d in [src / "metaeval", *[p for p in (src / "metaeval").rglob("*") if p.is_dir()]]:
        rel = d.relative_to(src / "metaeval")
        cmp = filecmp.dircmp(d, ROOT / "src" / "metaeval" / rel, ignore=["__pycache__"])
        changed += [f"{rel}/{f}" for f in cmp.left_only + cmp.diff_files if f != "__pycache__"]
    assert sorted(changed) == sorted(["meta/stages/__init__.py"] + [f"meta/stages/{t}.py" for t in TOYS])

    m = tmp_path / "m"
    m.mkdir()
    (m / "AP.csv").write_text("topic,r1,r2\nt1,0.1,0.5\nt2,0.3,0.2\nt3,0.9,0.4\n")
    env = {k: v for k, v in os.environ.items() if k != "METAEVAL_STAGES"}
    env["PYTHONPATH"] = os.pathsep.join([str(src)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    r = subprocess.run([sys.executable, "-c", CHECK, str(tmp_path / "o"), str(m)], capture_output=True, text=True,
                       env=env, timeout=120, cwd=tmp_path, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.splitlines()[-1])
    assert got["file"] == str(src / "metaeval" / "__init__.py") and got["plug_ins"] == []
    assert got["kinds"] == {"toy": "matrices", "toy_summary": "matrices", "toy_labelled": "labelled",
                            "toy_ownjob": "other"}
    from metaeval.meta.stages import own_job_stages

    # the package's own jobs (bayes, ...) and the toy's, a stage of the package now
    assert got["methods"] == ["toy", "toy_summary", "toy_labelled"]
    assert sorted(got["own_jobs"]) == sorted([*own_job_stages(), "toy_ownjob"])
    assert got["typed"] == 2.0
    assert got["toy"] == [(0.1 + 0.3 + 0.9) / 3 * 3, (0.5 + 0.2 + 0.4) / 3 * 3]
    assert got["layout"] == "| run | scaled mean |" and got["plotter"] is True
    assert got["summary"] == "metric,a,b\nAP,0.5,0.25\n"
    assert got["api"] == [0.2, 0.30000000000000004]
    assert got["cli"] == [0, "metric,run,quantile\nAP,r1,0.2\nAP,r2,0.30000000000000004\n"]
