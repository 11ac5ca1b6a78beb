"""The Python API (``metaeval.evaluate`` / ``metaeval.meta_evaluate``): same numbers as the CLI,
from files and from pandas DataFrames; ``import metaeval`` stays light."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.cli import main
from metaeval.errors import InputError, InputWarning
from metaeval.meta.matrices import load_matrices
from metaeval.report.csvio import read_table

from conftest import DL19, ROOT

MEASURES = ["AP", "Q-measure", "nDCG@10", "RR", "P-plus", "Prec@1000", "kishida-vG"]


def _tidy_from_matrices(d, measures):
    """The matrices folder of ``metaeval matrices`` as the API's tidy frame."""
    mats = load_matrices(d, measures)
    rows = []
    for m, mat in mats.items():
        long = mat.stack().rename("value").reset_index()          # topic, run, value
        long["measure"] = m
        rows.append(long)
    df = pd.concat(rows, ignore_index=True)
    return df[["run", "topic", "measure", "value"]]


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    key = ["run", "topic", "measure"]
    a = a.sort_values(key, ignore_index=True)
    b = b.sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(a, b, check_exact=True, check_dtype=False)
    assert len(a) > 0


def _read_trec_qrels(path):
    return pd.read_csv(path, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "relevance"],
                       dtype={"query_id": str, "doc_id": str})[["query_id", "doc_id", "relevance"]]


def _read_trec_runs(folder):
    frames = []
    for p in sorted(folder.glob("*.run.gz")):
        df = pd.read_csv(p, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                         dtype={"query_id": str, "doc_id": str, "score": str})
        df["score"] = df["score"].astype(float)
        df["run"] = p.name[: -len(".run.gz")]
        frames.append(df[["run", "query_id", "doc_id", "score", "rank"]])
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def dl19_cli(tmp_path_factory):
    out = {}
    for order in ("file", "score"):
        d = tmp_path_factory.mktemp(f"cli-{order}")
        assert main(["matrices", "--qrels", str(DL19 / "qrels.txt"), "--runs", str(DL19 / "runs"),
                     "--out", str(d), "--gains", "1:2:3", "--order", order, "--vocabulary", "ntcireval",
                     "--metrics", *MEASURES, "--quiet"]) == 0
        out[order] = _tidy_from_matrices(d, MEASURES)
    return out


@pytest.mark.shared_data
def test_evaluate_from_paths_equals_matrices(dl19_cli):
    # order: file (NTCIREVAL's conventions) as the matrices compared with; the default of TREC input
    # (by score, ir_measures' names) is tested in tests/unit/test_conventions.py
    got = metaeval.evaluate(DL19 / "qrels.txt", DL19 / "runs", MEASURES, gains="1:2:3", order="file")
    assert list(got.columns) == ["run", "topic", "measure", "value"]
    assert got["value"].dtype == np.float64
    assert got["run"].nunique() == 37 and got["topic"].nunique() == 43
    assert len(got) == 37 * 43 * len(MEASURES)
    _same(got, dl19_cli["file"])
    # a glob and a list of paths name the same runs
    files = sorted((DL19 / "runs").glob("*.run.gz"))
    _same(metaeval.evaluate(str(DL19 / "qrels.txt"), [str(f) for f in files], MEASURES, gains=(1, 2, 3),
                            order="file"), got)


@pytest.mark.shared_data
def test_evaluate_from_dataframes_equals_matrices(dl19_cli):
    qrels = _read_trec_qrels(DL19 / "qrels.txt")
    runs = _read_trec_runs(DL19 / "runs")
    # file order: the frame's row order, as NTCIREVAL and `metaeval matrices` read a run file
    _same(metaeval.evaluate(qrels, runs, MEASURES, gains="1:2:3", order="file"), dl19_cli["file"])
    # with or without a rank column: by score with trec_eval's tie rule = `metaeval matrices --order
    # score` (the names read in vocabulary ntcireval, as the matrices compared with)
    for frame in (runs, runs.drop(columns="rank")):
        by_score = metaeval.evaluate(qrels, frame, MEASURES, gains="1:2:3", vocabulary="ntcireval")
        _same(by_score, dl19_cli["score"])
    # a dict of frames, rows shuffled: ranked by score the order of rows does not matter
    shuffled = runs.drop(columns="rank").sample(frac=1.0, random_state=1)
    as_dict = {name: df.drop(columns="run") for name, df in shuffled.groupby("run")}
    with warnings.catch_warnings():                  # frames without rank: rows claim no ranking, no warning
        warnings.simplefilter("error", InputWarning)
        got = metaeval.evaluate(qrels, as_dict, MEASURES, gains="1:2:3", vocabulary="ntcireval")
    _same(got, dl19_cli["score"])
    # mixed: qrels from a frame, runs from files
    _same(metaeval.evaluate(qrels, DL19 / "runs", MEASURES, gains="1:2:3", order="file"), dl19_cli["file"])
    _same(metaeval.evaluate(qrels, DL19 / "runs", MEASURES, gains="1:2:3", vocabulary="ntcireval"),
          dl19_cli["score"])


def _toy():
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"],
                          "doc_id": ["a", "b", "c", "a", "d"],
                          "relevance": [2, 1, 0, 1, -1]})
    run = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"],
                        "doc_id": ["c", "a", "b", "d", "a"],
                        "score": [3.0, 2.0, 1.0, 5.0, 5.0],
                        "rank": [1, 2, 3, 2, 1]})
    return qrels, run


def test_evaluate_orders_by_score_with_or_without_rank():
    """One rule (docs/io.md, Conventions): a frame with a score is ranked by score as trec_eval ranks
    it, whether or not it has a rank column; order='rank' asks for the rank column."""
    qrels, run = _toy()
    by_rank = metaeval.evaluate(qrels, run, ["RR"], order="rank").set_index("topic")["value"]
    assert by_rank["q1"] == 0.5 and by_rank["q2"] == 1.0      # q2: rank puts a (relevant) first
    # ties on score are broken by doc_id descending (trec_eval): d before a
    for frame in (run, run.drop(columns="rank")):
        by_score = metaeval.evaluate(qrels, frame, ["RR"]).set_index("topic")["value"]
        assert by_score["q1"] == 0.5 and by_score["q2"] == 0.5
    # no score column: the rank column is the only order the frame carries
    by_rank_only = metaeval.evaluate(qrels, run.drop(columns="score"), ["RR"]).set_index("topic")["value"]
    assert by_rank_only["q2"] == 1.0
    file_order = metaeval.evaluate(qrels, run, ["RR"], order="file").set_index("topic")["value"]
    assert file_order["q2"] == 0.5
    tidy = metaeval.evaluate(qrels, run, ["AP", "RR"])
    assert list(tidy["run"].unique()) == ["run"] and list(tidy["measure"]) == ["AP", "RR", "AP", "RR"]


def test_evaluate_merges_spellings_with_a_warning():
    qrels, run = _toy()
    with pytest.warns(InputWarning, match="same measure"):
        df = metaeval.evaluate(qrels, run, ["Q", "Q-measure(beta=1)", "PDoc@2", "Prec@2"])
    assert list(df["measure"].unique()) == ["Q-measure", "Prec@2"]


def test_evaluate_rejects_bad_frames():
    qrels, run = _toy()
    with pytest.raises(InputError, match="missing column"):
        metaeval.evaluate(qrels.rename(columns={"relevance": "rel"}), run, ["AP"])
    bad = run.copy()
    bad.loc[1, "doc_id"] = "x y"
    with pytest.raises(InputError, match="row 1: doc_id"):
        metaeval.evaluate(qrels, bad, ["AP"])
    bad = run.drop(columns="rank").copy()
    bad.loc[2, "score"] = np.nan
    with pytest.raises(InputError, match="row 2: score"):
        metaeval.evaluate(qrels, bad, ["AP"])
    with pytest.raises(ValueError, match="unknown measure"):
        metaeval.evaluate(qrels, run, ["NoSuchMeasure"])


def test_meta_evaluate_equals_metaeval_meta(tmp_path):
    """meta_evaluate on a tidy frame gives the CSVs of `metaeval meta` on the same matrices."""
    rng = np.random.default_rng(5)
    topics = [f"t{i:02d}" for i in range(12)]
    runs = [f"r{j}" for j in range(6)]
    base = rng.uniform(0.2, 0.6, len(runs))
    mats = {}
    for m in ("AP", "Q-measure", "nDCG@10"):
        v = np.clip(base + rng.normal(0, 0.2, (len(topics), len(runs))), 0, 1).round(3)
        mats[m] = pd.DataFrame(v, index=pd.Index(topics, name="topic"), columns=pd.Index(runs, name="run"))
    mdir = tmp_path / "matrices"
    mdir.mkdir()
    for m, df in mats.items():
        df.to_csv(mdir / f"{m}.csv")
    opts = ["--B", "40", "--seed", "3", "--alpha", "0.1", "--no-figures", "--quiet"]
    assert main(["meta", "--matrices", str(mdir), "--out", str(tmp_path / "cli"), *opts]) == 0
    tidy = pd.concat([df.stack().rename("value").reset_index().assign(measure=m) for m, df in mats.items()])
    res = metaeval.meta_evaluate(tidy, B=40, seed=3, alpha=0.1)
    files = sorted(p.stem for p in (tmp_path / "cli" / "tables").glob("*.csv"))
    assert sorted(res) == files and "kendall" in files and "bootstrap_paired" in files
    for name in files:
        pd.testing.assert_frame_equal(res[name], read_table(tmp_path / "cli" / "tables" / f"{name}.csv"),
                                      check_exact=True)
    assert res.kendall.equals(res["kendall"])
    # the same from a dict of matrices, and .write gives the same files byte for byte
    res2 = metaeval.meta_evaluate(mats, B=40, seed=3, alpha=0.1)
    res2.write(tmp_path / "api", figures=False)
    for p in (tmp_path / "cli" / "tables").iterdir():
        assert (tmp_path / "api" / "tables" / p.name).read_bytes() == p.read_bytes(), p.name
    with pytest.raises(TypeError, match="unknown option"):
        metaeval.meta_evaluate(mats, bootstrap=10)


def test_import_metaeval_is_light():
    code = ("import sys, time; t = time.perf_counter(); import metaeval; dt = time.perf_counter() - t; "
            "heavy = [m for m in ('snakemake', 'matplotlib', 'scipy', 'pandas') if m in sys.modules]; "
            "print(heavy, dt); assert not heavy, heavy; assert callable(metaeval.evaluate); "
            "assert 'matplotlib' not in sys.modules and 'snakemake' not in sys.modules")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert float(r.stdout.split()[-1]) < 0.5


def test_frames_equal_files_with_utf8_ids_and_a_run_column(tmp_path):
    """The same small collection from files and from frames (non-ASCII ids, runs in one frame)."""
    qrels = pd.DataFrame({"query_id": ["t1", "t1", "t1", "t2", "t2"],
                          "doc_id": ["文書1", "文書2", "d3", "d3", "Dé4"],
                          "relevance": [1, 2, 0, 2, 1]})
    runs = pd.DataFrame({"run": ["b", "b", "b", "a", "a", "a", "a"],
                         "query_id": ["t1", "t1", "t2", "t1", "t2", "t2", "t1"],
                         "doc_id": ["d3", "文書2", "Dé4", "文書1", "d3", "Dé4", "x"],
                         "score": [3.0, 2.0, 1.0, 9.0, 8.0, 7.0, 6.0]})
    (tmp_path / "qrels.txt").write_text("".join(f"{t} 0 {d} {r}\n" for t, d, r in qrels.itertuples(index=False)),
                                        encoding="utf-8")
    rd = tmp_path / "runs"
    rd.mkdir()
    for name, df in runs.groupby("run"):
        lines = [f"{t} Q0 {d} {i + 1} {s} {name}\n" for i, (t, d, s) in
                 enumerate(df[["query_id", "doc_id", "score"]].itertuples(index=False))]
        (rd / f"{name}.run").write_text("".join(lines), encoding="utf-8")
    ms = ["AP", "nDCG@10", "RR"]
    from_files = metaeval.evaluate(tmp_path / "qrels.txt", rd, ms, order="file")
    _same(metaeval.evaluate(qrels, runs, ms, order="file"), from_files)
    _same(metaeval.evaluate(qrels, runs, ms),                      # both TREC input: one rule
          metaeval.evaluate(tmp_path / "qrels.txt", rd, ms))
    _same(metaeval.evaluate(qrels, runs, ms, vocabulary="ntcireval"),
          metaeval.evaluate(tmp_path / "qrels.txt", rd, ms, order="score", vocabulary="ntcireval"))
    assert sorted(from_files["run"].unique()) == ["a", "b"]


def _small_matrices(order=("nDCG@10", "AP", "Q-measure")):
    rng = np.random.default_rng(7)
    topics, runs = [f"t{i:02d}" for i in range(10)], [f"r{j}" for j in range(5)]
    return {m: pd.DataFrame(rng.random((len(topics), len(runs))).round(3), index=pd.Index(topics, name="topic"),
                            columns=pd.Index(runs, name="run")) for m in order}


def test_meta_evaluate_keeps_the_metrics_in_the_order_given():
    """A tidy frame in the order nDCG@10, AP, Q-measure (evaluate's order: the order asked): the
    kendall pairs are oriented as the pipeline's kendall.csv of `metrics: [nDCG@10, AP, Q-measure]`
    (the first metric of the config is metric_a), not alphabetically."""
    from metaeval.api import tidy_to_matrices

    mats = _small_matrices()
    tidy = pd.concat([df.stack().rename("value").reset_index().assign(measure=m) for m, df in mats.items()])
    assert list(tidy_to_matrices(tidy)) == ["nDCG@10", "AP", "Q-measure"]
    res = metaeval.meta_evaluate(tidy, B=20, seed=1, rthsd_B=100)
    pairs = list(zip(res.kendall["metric_a"], res.kendall["metric_b"]))
    assert pairs == [("nDCG@10", "AP"), ("nDCG@10", "Q-measure"), ("AP", "Q-measure")]
    # a repr of a line, not the tables; the notebook view: the summary and the main table, 4 decimals
    text = repr(res)
    assert text.startswith("MetaResult(3 measures x 5 runs; ") and "kendall 3 x" in text and len(text) < 600
    page = res._repr_html_()
    assert "<table" in page and "discriminative_power" in page and "kendall: 3 x" in page
    assert not re.search(r"\d\.\d{5}", page)


def test_result_objects_have_a_short_repr_and_a_notebook_view():
    from metaeval.meta.display import NamedTables
    from metaeval.meta.judgments_run import JudgmentsResult
    from metaeval.meta.error_rates import TestErrors

    big = pd.DataFrame({"metric": ["AP"] * 500, "qrels": [f"s{i}" for i in range(500)], "tau": np.linspace(0, 1, 500)})
    mats = _small_matrices()
    j = JudgmentsResult(tables={"label_agreement": big, "ranking_agreement": big}, topic_agreement=big,
                        coverage=big, confusion={("nist", "a"): big}, qrels={"a": "x" * 10_000},
                        scores={"nist": mats, "a": mats}, reference="nist", metrics=["AP", "nDCG@10"])
    text = repr(j)
    assert len(text) < 600 and text.startswith("JudgmentsResult(2 sets against 'nist', metrics AP, nDCG@10; ")
    assert "ranking_agreement 500 x 3" in text and "xxxx" not in text
    page = j._repr_html_()
    assert "ranking_agreement (first 20 of 500 rows)" in page and page.count("<tr") == 21
    assert "0.0020" in page and "0.002004" not in page
    te = TestErrors(big, big, big, big, big)
    assert repr(te) == ("TestErrors(type1 500 x 3, power 500 x 3, type3 500 x 3, margins 500 x 3, "
                        "copulas 500 x 3)")
    assert "type1 (first 20 of 500 rows)" in te._repr_html_()
    nt = NamedTables({"standardisation_within": big}, "standardisation", "standardisation_within")
    assert isinstance(nt, dict) and repr(nt) == "standardisation(standardisation_within 500 x 3)"
    assert "<table" in nt._repr_html_()
