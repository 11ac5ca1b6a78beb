"""Captions about this data (issue 47 item 4): every caption names the collection, the number of runs
and topics, the measure as labelled, the method with its citation and settings (B, alpha, the test
and its correction); "Regenerates Table N of ..." only where the config declares the collection a
reproduction of the papers (``reproduction:``; the simulated default config does), else "After Table
N of ..."; the report's front page names measure families after the tool whose semantics they follow."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

import _published_boards as PB
from metaeval import dag
from metaeval import outputs as O
from metaeval.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def _caption(md: Path) -> str:
    return md.read_text(encoding="utf-8").split("\n", 1)[0].strip("*")


def test_a_caption_states_the_data_the_method_and_its_settings():
    ctx = O.caption_context(measure="MAP", runs=59, topics=54, collection="trec-dl20", B=2000, permutations=500)
    cap = O.caption(O.get("bootstrap_paired"), alpha=0.01, context=ctx)
    assert cap == ("Paired bootstrap sensitivity (the paired bootstrap test of Sakai (2006; 2007b), B = 2000 "
                   "bootstrap samples): system pairs with ASL < alpha = 0.01, and the estimated overall difference "
                   "required (two significant figures). Data: trec-dl20, 59 runs, 54 topics. After Table 4 of "
                   "Sakai (2007a) / Table 2 of Sakai (2007b).")
    assert O.caption(O.get("run_means"), context=ctx).startswith(
        "Mean performance of the 59 runs over the 54 topics, best first by mean MAP. Data: trec-dl20")
    dp = O.caption(O.get("discriminative_power"), context=ctx)
    assert "randomised Tukey HSD with B = 500 permutations" in dp and "B = 2000 bootstrap samples" in dp
    assert "Buckley & Voorhees (2000)" in O.caption(O.get("stability"), context=ctx)
    assert "Voorhees & Buckley (2002)" in O.caption(O.get("swap"), context=ctx)
    # a reproduction of the papers regenerates them; the Kishida (2005) tables always do
    assert O.caption(O.get("bootstrap_paired"), context={**ctx, "reproduction": True}).endswith(
        "Regenerates Table 4 of Sakai (2007a) / Table 2 of Sakai (2007b).")
    assert "Regenerates Table 1 of Kishida (2005)" in O.caption(O.get("table1", "kishida"))


def _matrices(folder: Path, runs: list[str], topics: int = 8) -> Path:
    rng = np.random.default_rng(11)
    folder.mkdir(parents=True)
    q = np.linspace(0.2, 0.7, len(runs))
    for m in ("AP", "RR"):
        x = np.clip(q[None] + 0.2 * rng.standard_normal((topics, len(runs))), 0, 1)
        pd.DataFrame(x, index=pd.Index([f"t{i}" for i in range(topics)], name="topic"),
                     columns=runs).to_csv(folder / f"{m}.csv")
    return folder


def test_meta_tables_describe_the_users_collection(tmp_path):
    runs = [f"dl-20-official-input.{r}" for r in ("1", "2", "bm25", "monot5")]
    mdir = _matrices(tmp_path / "m", runs)
    (tmp_path / "labels.txt").write_text("AP MAP\n", encoding="utf-8")
    out = tmp_path / "out"
    small = ["--B", "20", "--rthsd-B", "20", "--fuzziness", "0.05", "--sweep-metrics", "--no-figures", "--quiet"]
    rc, so, err = _run(["meta", "--matrices", mdir, "--out", out, *small, "--collection-name", "trec-dl20",
                        "--labels", tmp_path / "labels.txt"])
    assert rc == 0, err
    mds = sorted((out / "tables").glob("*.md"))
    assert len(mds) > 10
    for md in mds:
        cap = _caption(md)
        assert "Regenerates" not in cap, md.name
        assert "Data: trec-dl20, 4 runs, 8 topics." in cap, (md.name, cap)
    assert "best first by mean MAP" in _caption(out / "tables" / "run_means.md")
    assert "B = 20 bootstrap samples" in _caption(out / "tables" / "bootstrap_paired.md")
    # the runs 1 and 2 lose the collection's prefix as the others do
    shown = {ln.split("|")[1].strip() for ln in (out / "tables" / "run_means.md").read_text().splitlines()[4:]}
    assert shown == {"1", "2", "bm25", "monot5"}
    rc, so, err = _run(["meta", "--matrices", mdir, "--out", tmp_path / "rep", *small, "--reproduction"])
    assert rc == 0, err
    assert "Regenerates Table 4 of Sakai (2007a)" in _caption(tmp_path / "rep" / "tables" / "bootstrap_paired.md")


def test_judgments_captions_name_the_test_and_each_rankings_topics(tmp_path):
    nist, syndl = PB.write_boards(tmp_path / "boards", empty=False)
    out = tmp_path / "out"
    rc, so, err = _run(["judgments", "--results", f"nist={nist}", f"syndl={syndl}", "--reference", "nist",
                        "--out", out, "--B", "20", "--no-figures", "--topic-set", "own", "--test", "wilcoxon",
                        "--correction", "bh"])
    assert rc == 0, err
    da = _caption(out / "tables" / "decision_agreement.md")
    assert "(Wilcoxon signed-rank test, Benjamini-Hochberg correction over the run pairs)" in da
    assert f"Data: {len(PB.RUNS)} runs, {len(PB.NIST_TOPICS)} topics." in da and "Regenerates" not in da
    ra = _caption(out / "tables" / "ranking_agreement.md")
    csv = pd.read_csv(out / "tables" / "ranking_agreement.csv")
    own = int(csv["topics"].iloc[0])
    assert own != len(PB.NIST_TOPICS)
    assert f"Topics each ranking is over: nist {len(PB.NIST_TOPICS)}, syndl {own}." in ra
    assert "need not contain the estimate" in ra


def _validated(cfg: dict) -> dict:
    from snakemake.utils import validate

    validate(cfg, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    return cfg


def test_the_default_reproduces_the_papers_and_a_trec_config_does_not():
    from metaeval.frontpage import front_page, measure_sources

    default = dag.Plan(_validated(yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))))
    assert default.reproduction
    assert " --reproduction" in default.writers_args("ntcir3-chinese")
    trec = dag.Plan(_validated(yaml.safe_load((ROOT / "config" / "examples" / "trec-dl19.yaml").read_text(
        encoding="utf-8"))))
    c = trec.collections[0]
    assert not trec.reproduction and "--reproduction" not in trec.writers_args(c)
    assert f"--collection-name {c}" in trec.writers_args(c)
    # measure families after the tool whose semantics they follow: MAP, MRR, P@10 read as ir_measures'
    assert measure_sources(["AP", "RR", "Prec@10", "trec.ndcg_cut@10", "Q-measure"], "ir_measures") == [
        ("trec_eval 10.0", ["AP", "RR", "Prec@10", "trec.ndcg_cut@10"]), ("NTCIREVAL (Sakai 2011)", ["Q-measure"])]
    assert measure_sources(["AP", "trec.map"], "ntcireval") == [("NTCIREVAL (Sakai 2011)", ["AP"]),
                                                               ("trec_eval 10.0", ["trec.map"])]
    page = front_page(trec.config, trec)
    assert "regenerates" not in page.split("Each caption", 1)[0].lower().split("meta-evaluated")[-1]
    assert "After Table N" in page


def test_own_jobs_captions_state_their_data_and_labels_name_the_collection(tmp_path):
    """The own jobs (standardisation, test errors, bayes) state the data their tables were computed on, and
    label them ``tab:COLLECTION:TABLE`` when their matrices are the collection's ``matrices/`` folder
    (as the pipeline lays a collection out): two collections in one paper, no label twice."""
    coll = tmp_path / "trec-dl20"
    _matrices(coll / "matrices", ["bm25", "monot5", "colbert", "splade"], topics=9)
    rc, _, err = _run(["standardise", "--experiment", "--matrices", coll / "matrices", "--out", coll,
                       "--topics", "5", "--trials", "5", "--no-figures", "--quiet"])
    assert rc == 0, err
    rc, _, err = _run(["test-errors", "--matrices", coll / "matrices", "--out", coll, "--trials", "5",
                       "--pairs", "2", "--topics", "5", "--B", "20", "--no-figures", "--quiet"])
    assert rc == 0, err
    rc, _, err = _run(["bayes", "--matrices", coll / "matrices", "--out", coll, "--draws", "100", "--chains", "2",
                       "--no-figures", "--quiet"])
    assert rc == 0, err
    names = ["standardisation_within", "standardisation_between", "test_errors_type1", "test_errors_power",
             "test_errors_type3", "bayes_runs", "bayes_pairs", "bayes_fit"]
    for name in names:
        cap = _caption(coll / "tables" / f"{name}.md")
        assert "Data: trec-dl20, 4 runs, 9 topics." in cap, (name, cap)
        assert "Regenerates" not in cap, (name, cap)
        assert f"\\label{{tab:trec-dl20:{name}}}" in (coll / "tables" / f"{name}.tex").read_text(encoding="utf-8")
