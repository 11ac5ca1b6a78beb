"""config/examples/trec-dl19-official.yaml: TREC DL's official measures (ir_measures names, runs
ranked by score) beside the NTCIR family.  The config validates, every name resolves to the
canonical name its comments promise, and the pipeline's metrics job on the real DL19 runs writes
trec.ndcg_cut@10 equal to trec_eval 10.0's ndcg_cut_10 for every run and topic."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest
import yaml

from _pipeline_run import ROOT, snakemake
from conftest import DL19

EXAMPLE = ROOT / "config" / "examples" / "trec-dl19-official.yaml"
OFFICIAL = {"nDCG@10": "trec.ndcg_cut@10", "RR(rel=2)@10": "RR(rel=2)@10",
            "AP(rel=2)@1000": "trec.map_cut(rel=2)@1000", "R(rel=2)@1000": "trec.recall(rel=2)@1000"}


def test_official_example_names_resolve_to_the_promised_canonical_names():
    from metaeval.metrics.registry import parse_measure

    cfg = yaml.safe_load(EXAMPLE.read_text())
    assert cfg["vocabulary"] == "ir_measures" and cfg["collections"]["trec-dl19-official"]["order"] == "score"
    got = {m: parse_measure(m, cfg["vocabulary"]).name for m in cfg["metrics"]}
    for name, canon in OFFICIAL.items():
        assert got[name] == canon
        assert canon in EXAMPLE.read_text()                     # the comment says which measure
    assert {"AP", "Q-measure", "P-plus", "MSnDCG@10"} <= set(got.values())
    assert len(set(got.values())) == len(got)


@pytest.mark.slow
@pytest.mark.shared_data
def test_official_example_metrics_job_equals_trec_eval(tmp_path):
    override = {"trec-dl19-official": {"qrels": str(DL19 / "qrels.txt"), "runs": str(DL19 / "runs"),
                                       "order": "score", "gains": "1:2:3", "top_runs": 30, "depth": 1000}}
    snakemake(tmp_path, "--configfile", str(EXAMPLE), "--cores", "1", "--quiet", "rules",
              "--config", f"collections={json.dumps(override)}", "--",
              "results/trec-dl19-official/matrices/topics.csv", timeout=600)
    mats = tmp_path / "results" / "trec-dl19-official" / "matrices"
    for canon in OFFICIAL.values():
        assert (mats / f"{canon}.csv").is_file(), canon
    nd = pd.read_csv(mats / "trec.ndcg_cut@10.csv", index_col="topic", dtype={"topic": str})
    assert nd.shape == (43, 37)
    for run in nd.columns:
        with gzip.open(DL19 / "reference" / "trec_eval" / "aqc" / f"{run}.txt.gz", "rt") as fh:
            ref = {t: v for m, t, v in (line.split() for line in fh) if m == "ndcg_cut_10" and t != "all"}
        assert len(ref) == 43
        for t, v in ref.items():
            assert f"{nd.loc[t, run]:.4f}" == v, (run, t)
