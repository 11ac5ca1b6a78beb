"""config/examples/trec-web2013-diversity.yaml end to end: the whole DAG
on per-intent qrels (``qrels_form: intents``) writes every table and figure for the six diversity
metrics; the matrices equal ``metaeval matrices --qrels-form intents``.  B is reduced through
--config to keep the test fast."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from _pipeline_run import ROOT, snakemake
from conftest import DATA as _DATA, DEFAULT_DATA
from test_pipeline import check_collection_outputs

pytestmark = pytest.mark.slow

EXAMPLE = ROOT / "config" / "examples" / "trec-web2013-diversity.yaml"
DATA = _DATA / "trec-web2013-diversity"


def test_example_config():
    cfg = yaml.safe_load(EXAMPLE.read_text())
    c = cfg["collections"]["trec-web2013-diversity"]
    assert c["qrels_form"] == "intents" and c["gains"] == "1:2:3:4"
    default = DEFAULT_DATA / "trec-web2013-diversity"        # the example names the default place
    assert (ROOT / c["qrels"]).resolve() == (default / "qrels.txt").resolve()
    assert (ROOT / c["intent_probs"]).resolve() == (default / "intents.txt").resolve()
    assert cfg["metrics"] == ["D#-MSnDCG@10", "D-MSnDCG@10", "I-rec@10", "alpha-nDCG@10",
                              "ERR-IA@10", "nERR-IA@10"]


def test_diversity_example_runs_end_to_end(tmp_path):
    from conftest import require_data

    require_data(DATA)
    cfg = yaml.safe_load(EXAMPLE.read_text())
    c = cfg["collections"]["trec-web2013-diversity"]
    override = {"trec-web2013-diversity": {**c, "qrels": str(DATA / "qrels.txt"), "runs": str(DATA / "runs"),
                                           "intent_probs": str(DATA / "intents.txt")}}
    snakemake(tmp_path, "--configfile", str(EXAMPLE), "--cores", "2", "--quiet", "rules",
              "--config", f"collections={json.dumps(override)}", "bootstrap={B: 100}", timeout=1200)
    res = tmp_path / "results" / "trec-web2013-diversity"
    check_collection_outputs(res, 20, cfg["metrics"], sweep=False)
    kendall = pd.read_csv(res / "tables" / "kendall.csv")
    assert set(kendall["metric_a"]) | set(kendall["metric_b"]) == set(cfg["metrics"])
    m = pd.read_csv(res / "matrices" / "alpha-nDCG@10.csv", dtype={"topic": str}).set_index("topic")
    ref = pd.read_csv(DATA / "reference" / "ndeval" / "div-run-01.ndeval", dtype={"topic": str})
    ref = ref[ref["topic"] != "amean"].set_index("topic")["alpha-nDCG@10"]
    assert all("%.6f" % m.loc[t, "div-run-01"] == "%.6f" % v for t, v in ref.items())
