"""One results folder, one configuration (metaeval.runconfig).

Acceptance: the README's sequence -- the default config's run, then an own config into the same
(default) results folder, then ``--report`` -- leaves every summary and the report describing one
config: the second run is refused with a message naming both sets of collections.  The "default"
run is the reduced two-collection run the pipeline tests share (tests/_pipeline_run.py), the own
config a one-collection tiny one.  Also: the effective config written and its first lines printed
at the start of a run, and no "coroutine ... was never awaited" warning (the profile's constant
disk_mb)."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import yaml

from _pipeline_run import ROOT, reduced_copy, snakemake, snakemake_result
from metaeval import runconfig

MINE = """\
collections:
  mine:
    simulate: {preset: ntcir5-chinese, topics: 10, runs: 5, depth: 100, candidates: 400, pool_depth: 20}
metrics: [AP, RR]
bootstrap: {B: 20}
"""


def _tree(d):
    return {p.relative_to(d): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_readme_sequence_one_config_per_results_folder(tmp_path):
    work = reduced_copy(tmp_path / "work")                # "the default config" (simA, simB)
    res = work / "results"
    rec = yaml.safe_load((res / runconfig.RECORD).read_text())
    assert list(rec["collections"]) == ["simA", "simB"] and rec["bootstrap"]["B"] == 200
    summary_before = _tree(res / "summary")
    (work / "my.yaml").write_text(MINE)

    # the own config into the default results folder: refused before any job, nothing written
    r = snakemake_result(work, "--configfile", "my.yaml", "--cores", "1")
    assert r.returncode != 0
    err = r.stdout + r.stderr
    assert ("results/ holds the results of another configuration (it holds simA, simB, this config "
            "has mine; see results/effective-config.yaml): run my.yaml into its own folder") in err
    assert "--config results=OTHER" in err and "or delete results/ first" in err
    assert not (res / "mine").exists() and not (work / "data" / "simulated" / "mine").exists()
    assert _tree(res / "summary") == summary_before
    # a report of the own config is refused the same way
    assert snakemake_result(work, "--configfile", "my.yaml", "--report", "results/mine.html").returncode != 0
    assert not (res / "mine.html").exists()

    # the README's report (with the profile): one config, no coroutine warnings
    r = snakemake(work, "--profile", str(ROOT / "workflow/profiles/default"), "--configfile", "reduced.yaml",
                  "--report", "results/report-seq.html")
    assert "never awaited" not in r.stderr + r.stdout
    html = (res / "report-seq.html").read_text(encoding="utf-8").replace("\\n", " ")
    # the front page (metaeval.frontpage) names this config's collections and bootstrap; a measure
    # name is text, not an e-mail address (nDCG@100 was a mailto: link)
    assert "on 2 collections (simA and simB)" in html and "Bootstrap B = 200, alpha = 0.05, seed = 7" in html
    assert "AP, RR and nDCG&#64;100 (NTCIREVAL" in html and "mailto:" not in html
    for name in ("sensitivity_paired", "swap_pct_satisfying"):
        cols = pd.read_csv(res / "summary" / f"{name}.csv").columns.tolist()
        assert cols[1:] == ["simA", "simB"], (name, cols)

    # same collections, another parameter: a run would re-run what it affects, the report is refused
    r = snakemake_result(work, "--configfile", "reduced.yaml", "--config", "bootstrap={B: 100}",
                         "--report", "results/changed.html")
    assert r.returncode != 0
    assert "results/ was written by another configuration (differs in bootstrap.B" in r.stdout + r.stderr
    r = snakemake(work, "--configfile", "reduced.yaml", "--config", "bootstrap={B: 100}", "-n")
    assert "bootstrap_paired" in r.stdout + r.stderr

    # the own config into its own folder runs, printing what it inherits; the record says the same
    r = snakemake(work, "--profile", str(ROOT / "workflow/profiles/default"), "--configfile", "my.yaml",
                  "--config", "results=results-mine", "--", "results-mine/mine/matrices/AP.csv")
    out = r.stdout + r.stderr
    assert "never awaited" not in out
    first = out[out.index("metaeval: effective config"):].splitlines()
    assert first[0] == "metaeval: effective config (my.yaml + defaults) -> results-mine/effective-config.yaml"
    assert first[1] == "  From the defaults (not in the config given):"
    inherited = [ln.strip() for ln in first[2:] if ln.startswith("    ")]
    assert any(ln.startswith("kishida: {enabled: true, R: [10, 50, 100], ") for ln in inherited)
    assert any(ln.startswith("sweeps: {gains: {enabled: true, metrics: [P-plus, P-measure, O-measure]")
               for ln in inherited)
    # the per-collection defaults (order null: the input's conventions, issue 31; standardisation and
    # risk keys, issue 30)
    mine = [ln for ln in inherited if ln.startswith("collections.mine: ")]
    assert len(mine) == 1 and mine[0].startswith("collections.mine: {gains: '1:2:3', top_runs: 30, depth: 1000, "
                                                 "qrels_form: auto, std_leave_one_out: false")
    assert not any(ln.startswith(("metrics:", "bootstrap: {B")) for ln in inherited)   # given, not inherited
    text = (work / "results-mine" / runconfig.RECORD).read_text()
    assert [f"#   {ln}" for ln in inherited] == [ln for ln in text.splitlines() if ln.startswith("#   ")]
    eff = yaml.safe_load(text)
    assert eff["metrics"] == ["AP", "RR"] and eff["kishida"]["enabled"] is True and eff["kishida"]["M"] == 1000
    assert eff["bootstrap"] == {"B": 20, "alpha": 0.05, "seed": 0}


def test_conflict_lines_and_inherited_lines():
    a = {"collections": {"x": {"simulate": {"preset": "p"}, "gains": "1:2"}}, "metrics": ["AP"],
         "bootstrap": {"B": 10, "alpha": 0.05}, "kishida": {"enabled": True}}
    b = yaml.safe_load(yaml.safe_dump(a))
    b["bootstrap"]["B"] = 20
    b["collections"]["x"]["gains"] = "1:2:3"
    # parameters differ, the collections' data do not: the run may go on, the report may not
    assert runconfig.collection_conflict(a, b, "res", ["b.yaml"]) is None
    assert runconfig.changed_keys(a, b) == ["collections.x.gains", "bootstrap.B"]
    assert runconfig.report_conflict(a, b, "res").startswith(
        "res/ was written by another configuration (differs in collections.x.gains, bootstrap.B;")
    assert runconfig.report_conflict(a, a, "res") is None
    b["collections"]["x"]["simulate"]["preset"] = "q"
    assert "the data of collection(s) x differ" in runconfig.collection_conflict(a, b, "res", ["b.yaml"])
    assert runconfig.collection_conflict(None, b, "res", []) is None          # nothing recorded
    given = runconfig.leaf_paths({"collections": {"x": {"simulate": {"preset": "p"}}}, "metrics": ["AP"],
                                  "bootstrap": {"B": 10}})
    assert runconfig.inherited_lines(a, given) == ["collections.x: {gains: '1:2'}", "bootstrap: {alpha: 0.05}",
                                                   "kishida: {enabled: true}"]
    assert re.match(r"# The effective configuration", runconfig.effective_config_text(a, given, ["a.yaml"]))


@pytest.mark.parametrize("names, words", [(["tiny"], "on 1 collection (tiny)"),
                                          (["a", "b"], "on 2 collections (a and b)")])
def test_report_intro_counts_collections_in_words(names, words):
    """The report's front page (metaeval.frontpage, rendered by Snakemake with Jinja2)."""
    from types import SimpleNamespace

    import jinja2

    from metaeval.frontpage import front_page

    plan = SimpleNamespace(collections=names, metrics=["AP"], meta_stages=["paired"], own_job_stages=[],
                           other_jobs=[], titles=lambda s: list(s), primary_measure="AP", select_by="AP",
                           kishida=False, summary=True, is_on=lambda s: False)
    cfg = {"collections": {n: {} for n in names}, "bootstrap": {"B": 20, "alpha": 0.05, "seed": 1},
           "swap": {"threshold": 0.05}}
    text = jinja2.Template(front_page(cfg, plan, "x: {a: 1}\n")).render(snakemake=SimpleNamespace(config=cfg))
    assert words in " ".join(text.split()) and "B = 20" in text and "x: {a: 1}" in text


def test_report_front_page_prints_measure_names_as_text():
    """A measure's name with reStructuredText markup (nDCG@100: an e-mail address to docutils) is
    printed as it is written, not as a link."""
    from types import SimpleNamespace

    import jinja2
    from docutils.core import publish_parts

    from metaeval.frontpage import front_page

    plan = SimpleNamespace(collections=["c_1"], metrics=["AP", "nDCG@100"], meta_stages=["paired"],
                           own_job_stages=[], other_jobs=[], titles=lambda s: list(s), primary_measure="nDCG@100",
                           select_by="nDCG@100", kishida=False, summary=False,
                           is_on=lambda s: False)
    cfg = {"collections": {"c_1": {}}, "bootstrap": {"B": 20, "alpha": 0.05, "seed": 1}, "swap": {"threshold": 0.05}}
    text = jinja2.Template(front_page(cfg, plan)).render(snakemake=SimpleNamespace(config=cfg))
    html = publish_parts(text, writer="html")["body"]
    assert "mailto:" not in html and "<a " not in html
    assert "AP and nDCG&#64;100 (NTCIREVAL" in html and "(c_1)" in html and "mean nDCG&#64;100" in html
