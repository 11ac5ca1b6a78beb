"""The output contract is read from its declarations (metaeval.outputs): the workflow's targets,
the writers' lookup tables and the report captions all agree with them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from metaeval import outputs as O

ROOT = Path(__file__).resolve().parents[2]


def _reduced_config(tmp_path: Path, *, alpha=0.01, threshold=0.1, sweep=True) -> Path:
    from _pipeline_run import REDUCED

    text = REDUCED.replace("alpha: 0.05", f"alpha: {alpha}") + f"swap: {{threshold: {threshold}}}\n"
    if not sweep:
        text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("sweeps:"))
        text += "\nsweeps: {gains: {enabled: false}}\n"
    cfg = tmp_path / "config.yaml"
    cfg.write_text(text)
    return cfg


def _dag_outputs(tmp_path: Path, cfg: Path) -> set[str]:
    """Every output file of the DAG (``snakemake -n --summary``), relative to the work dir."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
           str(tmp_path), "--configfile", str(cfg), "-n", "--summary"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    lines = [ln.split("\t")[0] for ln in r.stdout.splitlines() if "\t" in ln]
    return set(lines[1:])                                   # without the header row


@pytest.fixture(scope="module")
def dag(tmp_path_factory):
    d = tmp_path_factory.mktemp("dag")
    return d, _dag_outputs(d, _reduced_config(d))


def _expected(collections, *, gain_sweep=True, risk=False, standardisation=False, test_errors=False,
              bayes=False) -> set[str]:
    # risk: on only when a collection names a baseline run (tests/unit/test_risk_stage.py)
    want = {f"results/{c}/{f}" for c in collections
            for f in O.files("collection", gain_sweep=gain_sweep, risk=risk, standardisation=standardisation,
                             test_errors=test_errors, bayes=bayes)}
    want |= {f"results/summary/{f}" for f in O.files("summary")}
    want |= {f"results/kishida/{f}" for f in O.files("kishida")}
    return want


def test_every_declared_output_is_a_target_of_the_dag(dag):
    _, outputs = dag
    want = _expected(["simA", "simB"])
    assert want <= outputs, sorted(want - outputs)
    # and nothing published that is not declared (tables/, figures/, pvalues/, summary/, kishida/)
    texts = {o.name for o in O.outputs("collection", "text")}     # C/pvalues/, C/incompleteness/
    published = {p for p in outputs if "/tables/" in p or "/figures/" in p
                 or (p.count("/") == 2 and p.rsplit("/", 1)[1] in texts)
                 or p.startswith(("results/summary/", "results/kishida/"))}
    assert published == want, sorted(published - want)


def test_standardisation_on_adds_its_own_job_and_outputs(tmp_path):
    """`standardisation: {enabled: true}` (off by default) adds the stage's tables, figures and
    folder, written by its job (the generic rule own_job_standardisation), nothing else."""
    cfg = _reduced_config(tmp_path)
    cfg.write_text(cfg.read_text() + "\nstandardisation: {enabled: true, trials: 10}\n")
    outputs = _dag_outputs(tmp_path, cfg)
    want = _expected(["simA", "simB"], standardisation=True)
    assert want <= outputs, sorted(want - outputs)
    extra = want - _expected(["simA", "simB"])
    assert {p.split("/", 2)[2] for p in extra} == {f for o in O.outputs("collection")
                                                  if "standardisation" in o.stages for f in o.files()}


def test_gain_sweep_off_drops_only_its_tables(tmp_path):
    outputs = _dag_outputs(tmp_path, _reduced_config(tmp_path, sweep=False))
    assert _expected(["simA", "simB"], gain_sweep=False) <= outputs
    assert not any("gain_" in p for p in outputs)
    assert {o.name for o in O.tables("collection")} - set(O.names("collection", gain_sweep=False)) \
        == {"gain_kendall", "gain_bootstrap"}


def test_report_captions_come_from_the_declarations_with_the_config_values(dag):
    d, _ = dag
    folder = d / ".snakemake" / "metaeval" / "report-captions"
    want = O.report_captions(alpha=0.01, swap_threshold=0.1, context=O.caption_context(
        measure="AP", B=200, permutations=5000, reproduction=False))        # simA, simB: no reproduction
    off = {O.report_caption_name(o) for o in O.OUTPUTS if o.condition in ("risk", "standardisation", "test_errors",
                                                                         "reproducibility", "bayes")   # not configured
           or o.scope in ("judgments", "ppi")}     # no collection's block: no job of theirs (own_job_NAME)
    for name, text in want.items():
        if name in off:
            continue
        assert (folder / f"{name}.rst").read_text(encoding="utf-8") == text, name
    assert "swap rate <= 10%" in (folder / "table_swap.rst").read_text()
    assert "alpha = 0.01" in (folder / "table_bootstrap_paired.rst").read_text()
    assert "threshold 10%" in (folder / "figure_swap_rates.rst").read_text()


def test_every_declared_table_has_a_layout_and_every_figure_a_plotter():
    from metaeval.report import figures as F
    from metaeval.report import summary as S
    from metaeval.report.layout_catalogue import KINDS

    # judgments (issue 28): `metaeval judgments` writes its tables and figures itself
    declared = O.tables("collection") + O.tables("summary") + O.tables("judgments")
    for o in declared:
        assert o.layout in KINDS, o.key
    assert set(KINDS) == {o.layout for o in declared}
    for scope in O.SCOPES:                                   # each figure's plotter, as its stage declares it
        for o in O.figures(scope):
            assert callable(S.summary_plotter(o.name) if scope == "summary" else F.plotter(o.layout)[0]), o.key
    for o in O.tables("summary"):                            # each summary table's builder
        assert callable(S.summary_builder(o.name)), o.key
    for o in O.figures("collection"):                        # drawn from a declared table
        assert o.source in O.names("collection"), o.key


def test_the_meta_stages_produce_every_declared_collection_table():
    from metaeval.meta.run import TABLE_ORDER

    assert sorted(TABLE_ORDER) == sorted(O.names("collection"))


def test_declarations_are_complete_and_unique():
    keys = [o.key for o in O.OUTPUTS]
    assert len(keys) == len(set(keys))
    for o in O.OUTPUTS:
        assert o.caption and o.regenerates and o.stages, o.key
        assert re.search(r"\(\d{4}[a-z]?\)", o.regenerates), o.key   # cited by author and year
        assert "paper 00" not in O.caption(o).lower(), o.key
        if o.kind == "table":
            assert o.columns, o.key
    caps = O.report_captions()
    assert set(caps) == {O.report_caption_name(o) for o in O.OUTPUTS if o.kind != "text"}
    assert all(t.strip() for t in caps.values())
    with pytest.raises(KeyError, match="known"):
        O.get("nope")
    with pytest.raises(ValueError, match="unknown condition"):
        O.tables("collection", diversity=True)


def test_captions_and_front_page_say_what_the_config_computes(dag, tmp_path):
    """The captions and the report's front page are generated from what is computed: with
    trec_eval measures only, select_by not among them and Kishida off, the run tables and figures
    are by the first metric, the front page names trec_eval (not NTCIREVAL) and no Kishida
    reproduction; the reduced config (AP first, Kishida on) says so too."""
    d, _ = dag
    folder = d / ".snakemake" / "metaeval" / "report-captions"
    assert "sorted by mean AP" in (folder / "figure_run_means.rst").read_text()
    front = (folder / "front-page.rst").read_text()
    assert "NTCIREVAL" in front and "Kishida (2005) reproduction" in front and "select_by: AP" in front
    cfg = _reduced_config(tmp_path)
    text = cfg.read_text().replace('metrics: [AP, RR, "nDCG@100"]', 'metrics: ["trec.ndcg_cut@10", trec.map]')
    text = text.replace("geometric: [AP]", "geometric: []\nselect_by: RR").replace("kishida: {enabled: true}",
                                                                                 "kishida: {enabled: false}")
    cfg.write_text(text)
    _dag_outputs(tmp_path, cfg)
    caps = tmp_path / ".snakemake" / "metaeval" / "report-captions"
    # as the report shows them (Jinja2, then reStructuredText): the measure's name is text, not a mailto: link
    import jinja2
    from docutils.core import publish_parts

    def shown(name: str) -> str:
        text = jinja2.Template((caps / f"{name}.rst").read_text()).render(snakemake={"wildcards": {"collection": "c"}})
        html = " ".join(publish_parts(text, writer="html")["body"].split())
        assert "mailto:" not in html, html
        return html

    assert "runs named and sorted by mean trec.ndcg_cut&#64;10" in shown("figure_run_means")
    assert "best first by mean trec.ndcg_cut&#64;10" in shown("table_run_means")
    assert "Distribution of the mean trec.ndcg_cut&#64;10" in shown("summary_figure_run_means")
    front = (caps / "front-page.rst").read_text()
    assert "trec_eval 10.0" in front and "NTCIREVAL" not in front and "Kishida" not in front
    assert "ordered by their mean trec.ndcg_cut&#64;10" in shown("front-page")
