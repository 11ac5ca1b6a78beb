"""config/examples/trec-dl19.yaml end to end: the whole DAG on the real
TREC DL19 passage runs writes every table and figure; 30 of 37 runs kept, so every sensitivity
is a count out of 435 pairs.  The incompleteness stage runs every method of the example, at two
fractions and three trials instead of nine and twenty (--config), to keep the test fast; the
example's own settings are checked below and its full scale by benchmarks/bench_incompleteness.py."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from _pipeline_run import ROOT, snakemake
from conftest import DEFAULT_DATA, DL19
from test_pipeline import check_collection_outputs

pytestmark = pytest.mark.slow

EXAMPLE = ROOT / "config" / "examples" / "trec-dl19.yaml"


def test_example_config_points_at_the_shared_data():
    cfg = yaml.safe_load(EXAMPLE.read_text())
    c = cfg["collections"]["trec-dl19"]
    default = DEFAULT_DATA / "trec-dl19-passage"        # the example names the default place
    assert (ROOT / c["qrels"]).resolve() == (default / "qrels.txt").resolve()
    assert (ROOT / c["runs"]).resolve() == (default / "runs").resolve()
    assert c["top_runs"] == 30 and c["gains"] == "1:2:3"
    assert cfg["bootstrap"]["B"] == 1000
    inc = cfg["incompleteness"]                       # the example runs the stage in full
    assert inc["enabled"] and inc["write_qrels"] and inc["trials"] == 20
    assert inc["methods"] == ["judged", "stratified", "depth", "leave-one-group-out"]
    assert inc["fractions"] == [round(0.1 * i, 1) for i in range(1, 10)]


@pytest.mark.shared_data
def test_dl19_example_runs_end_to_end(tmp_path, shared):
    cfg = yaml.safe_load(EXAMPLE.read_text())
    # order: file as the example says (NTCIREVAL's conventions on TREC input; docs/io.md)
    override = {"trec-dl19": {"qrels": str(DL19 / "qrels.txt"), "runs": str(DL19 / "runs"), "order": "file"}}
    smaller = {**cfg["incompleteness"], "fractions": [0.1, 0.9], "trials": 3}
    snakemake(tmp_path, "--configfile", str(EXAMPLE), "--cores", "2", "--quiet", "rules",
              "--config", f"collections={json.dumps(override)}", f"incompleteness={json.dumps(smaller)}",
              timeout=1200)
    # byte-identical to the outputs of version 0.1 (the deliberate changes applied: see
    # tests/pipeline/test_output_checksums.py)
    from test_output_checksums import compare

    compare(tmp_path / "results", "dl19")
    res = tmp_path / "results" / "trec-dl19"
    metrics = cfg["metrics"] + [f"AG_{g}" for g in cfg["geometric"]]
    check_collection_outputs(res, 30, metrics)
    paired = pd.read_csv(res / "tables" / "bootstrap_paired.csv")
    assert (paired["pairs"] == 435).all()
    assert paired["significant"].between(0, 435).all()
    assert "/435 = " in (res / "tables" / "bootstrap_paired.md").read_text()
    unpaired = pd.read_csv(res / "tables" / "bootstrap_unpaired.csv")
    assert (unpaired["pairs"] == 435).all()
    assert set(unpaired["metric"]) >= {"G_AP", "G_Q-measure"}
    coll = pd.read_csv(res / "tables" / "collection.csv")
    assert len(coll) == 43 and (coll["runs"] == 30).all()
    used = pd.read_csv(res / "runs_used.csv")
    assert len(used) == 30
    means = pd.read_csv(res / "tables" / "run_means.csv")
    ap = means[means["metric"] == "AP"]["mean"]
    # the 30 kept runs are the best 30 of the 37 by mean AP
    all_ap = pd.read_csv(res / "matrices" / "AP.csv").drop(columns="topic").mean()
    assert ap.min() >= all_ap.sort_values(ascending=False).iloc[29] - 1e-12
    gk = pd.read_csv(res / "tables" / "gain_kendall.csv")
    assert len(gk) == 3 * 4 and gk["tau"].between(-1, 1).all()
    # Kishida's v_G, v_S', v_D are meta-evaluated like any other metric
    kishida = {"kishida-vG", "kishida-vSprime", "kishida-vD"}
    kendall = pd.read_csv(res / "tables" / "kendall.csv")
    ranked = set(kendall["metric_a"]) | set(kendall["metric_b"])
    assert kishida <= ranked
    for m in kishida:     # one row against every other ranked metric
        assert ((kendall["metric_a"] == m) | (kendall["metric_b"] == m)).sum() == len(ranked) - 1
    assert kishida <= set(paired["metric"]) and kishida <= set(unpaired["metric"])
    summary = pd.read_csv(tmp_path / "results" / "summary" / "sensitivity_paired.csv")
    assert list(summary.columns) == ["metric", "trec-dl19"]
    # the incompleteness stage: the example's four methods (two fractions x three trials), depths, pool reuse
    inc = pd.read_csv(res / "tables" / "incompleteness.csv", dtype={"level": str})
    assert set(inc["method"]) == {"judged", "stratified", "depth"} and (inc["pairs"] == 435).all()
    assert (inc.loc[inc["method"] != "depth", "trials"] == 3).all()
    assert set(inc.loc[inc["method"] == "judged", "level"]) == {"0.1", "0.9"}
    pool = pd.read_csv(res / "tables" / "pool_reuse.csv", dtype={"group": str, "run": str})
    assert set(pool.loc[pool["group"] != "all", "run"]) == set(used["run"])
    qrels = res / "incompleteness" / "qrels"
    assert (qrels / "judged-0.1-3.txt").is_file() and (qrels / "depth-100-1.txt").is_file()
    assert (qrels / "leave-one-group-out-bm.txt").is_file()

    # every table and figure compiles in acmart sigconf and a two-column article, each figure at its
    # own size with its caption (docs/outputs.md, "LaTeX tables in a paper"; tests/pipeline/
    # test_latex_compile.py for the reduced DAG); without pdflatex the rest of the test stands (CI
    # requires it)
    from _latex import compile_problems, figures_of, pdflatex, require_pdflatex, tables_of
    from conftest import in_ci

    if pdflatex() is not None or in_ci():
        require_pdflatex()
        found = compile_problems(tmp_path / "results", tmp_path / "latex")
        assert found == {"acmart": [], "article": []}, found
        doc = (tmp_path / "latex" / "article" / "article.tex").read_text()
        assert doc.count("\\input{") == len(tables_of(tmp_path / "results")) == 32
        assert doc.count("\\includegraphics{") == len(figures_of(tmp_path / "results")) == 17

