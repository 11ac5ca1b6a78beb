"""Qrels and runs without a topic in common (the qrels of another collection): exit 1 naming both
files from every entry point -- evaluate, matrices, compare, metaeval.evaluate, the pipeline -- never
warnings followed by a table of zeros."""

from __future__ import annotations

import pandas as pd
import pytest

import metaeval
from metaeval.cli import main
from metaeval.errors import InputError

from _pipeline_run import snakemake_result

QRELS = "101 0 d1 1\n101 0 d2 2\n102 0 d3 1\n"
RUNS = {"a": "0201 Q0 d1 1 3 a\n0201 Q0 d2 2 2 a\n0202 Q0 d3 1 3 a\n",
        "b": "0202 Q0 d1 1 3 b\n0203 Q0 d2 1 1 b\n"}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "runs").mkdir()
    for name, text in RUNS.items():
        (tmp_path / "runs" / f"{name}.run").write_text(text)
    return tmp_path / "qrels.txt", tmp_path / "runs"


def _names_both(err, q, run, topics="0201, 0202, 0203"):
    line = err.strip()
    assert line.count("\n") == 0 and "Traceback" not in line, err
    assert line.startswith(f"metaeval: error: {q}: no topic in common with the runs {run}"), err
    assert "the qrels' topics are 101, 102, the runs' " + topics + ";" in line


def test_cli_entry_points_exit_1_naming_both(files, tmp_path, capsys):
    q, runs = files
    assert main(["evaluate", "--qrels", str(q), "--runs", str(runs / "a.run")]) == 1
    _names_both(capsys.readouterr().err, q, runs / "a.run", "0201, 0202")
    out = tmp_path / "m"
    assert main(["matrices", "--qrels", str(q), "--runs", str(runs), "--out", str(out), "--quiet"]) == 1
    _names_both(capsys.readouterr().err, q, f"{runs / 'a.run'} (and 1 other run)")
    assert not out.exists()
    assert main(["compare", "--qrels", str(q), "--runs", str(runs), "--out", str(tmp_path / "c")]) == 1
    _names_both(capsys.readouterr().err, q, f"{runs / 'a.run'} (and 1 other run)")
    assert not (tmp_path / "c").exists()


def test_api_raises_naming_both(files):
    q, runs = files
    with pytest.raises(InputError, match=f"{q}: no topic in common with the runs"):
        metaeval.evaluate(str(q), str(runs), ["AP"])
    qdf = pd.DataFrame({"query_id": ["101", "102"], "doc_id": ["d1", "d3"], "relevance": [1, 1]})
    rdf = pd.DataFrame({"run": "a", "query_id": ["0201", "0202"], "doc_id": ["d1", "d3"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="no topic in common with the runs"):
        metaeval.evaluate(qdf, rdf, ["AP"])
    # one topic in common is enough: the others are the usual warnings
    rdf.loc[1, "query_id"] = "102"
    with pytest.warns(UserWarning):
        v = metaeval.evaluate(qdf, rdf, ["AP"])
    assert v.set_index("topic").loc["102", "value"] == 1.0


def test_pipeline_job_fails_naming_both(files, tmp_path):
    q, runs = files
    (tmp_path / "c.yaml").write_text(
        f"collections:\n  x: {{qrels: {q}, runs: {runs}, gains: '1:2'}}\nmetrics: [AP]\n"
        "sweeps: {gains: {enabled: false}}\nkishida: {enabled: false}\nsummary: {enabled: false}\n")
    r = snakemake_result(tmp_path, "--configfile", "c.yaml", "--cores", "1", "--show-failed-logs",
                         "results/x/matrices/AP.csv")
    assert r.returncode != 0
    assert f"{q}: no topic in common with the runs {runs / 'a.run'}" in r.stdout + r.stderr
    assert not (tmp_path / "results" / "x" / "matrices" / "AP.csv").exists()
