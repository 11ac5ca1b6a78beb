"""Outputs usable with 80+ runs and what the pipeline noticed on the console: the report views
(tables over the limit shown by their first rows, per-pair LaTeX for the top runs; the size of the
report of an 80-run, 25-measure collection is tested with its figures in
tests/unit/test_figures_readable.py); the warnings of the jobs' logs are listed once each at the
end of a DAG run and of a command; an API warning points at the caller."""

from __future__ import annotations

import csv
import io
import os
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from metaeval import logsummary as L
from metaeval.report import views as V

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- report views
def test_report_view_is_the_table_or_its_first_rows(tmp_path):
    src = tmp_path / "t.csv"
    rows = [f"AP,run{i:03d},{i / 7:.6f}\n" for i in range(1000)]
    src.write_text("metric,run,mean\n" + "".join(rows))
    small = V.report_view(src, tmp_path / "v1.csv", max_bytes=10**6)
    assert (tmp_path / "v1.csv").read_bytes() == src.read_bytes() and small == {"rows": 1000, "of": 1000, "whole": True}
    big = V.report_view(src, tmp_path / "v2.csv", max_bytes=1000)
    text = (tmp_path / "v2.csv").read_text()
    assert len(text.encode()) <= 1000 and text.startswith("metric,run,mean\n") and text.endswith("\n")
    assert text == "metric,run,mean\n" + "".join(rows[:big["rows"]]) and not big["whole"]
    back = pd.read_csv(tmp_path / "v2.csv")
    assert list(back.columns) == ["metric", "run", "mean"] and len(back) == big["rows"] > 30


def test_views_command_notes_a_shortened_table(tmp_path, capsys):
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "big.csv").write_text("a,b\n" + "1,2\n" * 100_000)
    (tmp_path / "tables" / "small.csv").write_text("a,b\n1,2\n")
    assert V.main([str(tmp_path / "tables"), str(tmp_path / "report"), "big", "small", "--max-mb", "0.01"]) == 0
    err = capsys.readouterr().err
    assert "first 2499 of 100000 rows of big.csv" in err and "small.csv" not in err
    assert not any(err.startswith(p) for p in L.PREFIXES)        # the log's, not the console summary's
    assert V.html_rows(tmp_path / "report" / "small.html") == [["a", "b"], ["1", "2"]]   # shown inline
    big = (tmp_path / "report" / "big.html").read_text()
    assert V.html_rows(tmp_path / "report" / "big.html")[-1] == ["1", "2"] and len(V.html_rows(tmp_path / "report" / "big.html")) == 2500
    assert "<p>The first 2499 of 100000 rows; every row is in big.csv.</p>" in big


# --------------------------------------------------------------------------- log summary
def test_log_summary_lists_each_warning_once_with_its_logs(tmp_path):
    logs = tmp_path / "results" / "logs"
    (logs / "c1").mkdir(parents=True)
    (logs / "c2").mkdir()
    miss = "metaeval: warning: runs/r3: run r3: 2 topics of the qrels missing from the run: empty list, 0 on every metric"
    (logs / "c1" / "metrics-AP.log").write_text(f"{miss}\nmetaeval matrices: 1 file\n")
    (logs / "c1" / "metrics-RR.log").write_text(f"{miss}\n{miss}\nmetaeval: note: something else\n")
    (logs / "c2" / "meta.log").write_text("metaeval stage: paired AP\n")
    text = L.log_summary(logs)
    lines = text.splitlines()
    assert lines[0].startswith("metaeval: the jobs noticed 2 kinds of thing (1 of warning")
    assert lines[1] == (f"  warning: {miss[len('metaeval: warning: '):]} [2 logs] "
                        f"({logs / 'c1' / 'metrics-AP.log'} and 1 other log)")
    assert lines[2] == f"  note: something else ({logs / 'c1' / 'metrics-RR.log'})"
    assert L.log_summary(logs, since=os.path.getmtime(logs / "c2" / "meta.log") + 10) == ""
    assert L.log_summary(tmp_path / "nothing") == ""


def _trec_collection(d: Path, missing: int = 2) -> tuple[Path, Path]:
    """5 topics, 4 runs of 10 documents; run r3 lacks the last ``missing`` topics."""
    runs = d / "runs"
    runs.mkdir(parents=True)
    topics = [f"{t}" for t in range(101, 106)]
    q = []
    for t in topics:
        q += [f"{t} 0 d{t}-{k} {2 if k < 2 else (1 if k < 4 else 0)}" for k in range(8)]
    (d / "qrels.txt").write_text("\n".join(q) + "\n")
    for r in range(4):
        lines = []
        for t in topics[:len(topics) - (missing if r == 3 else 0)]:
            docs = [(k * (1, 3, 7, 9)[r] + r) % 10 for k in range(10)]          # no document twice
            lines += [f"{t} Q0 d{t}-{k} {i + 1} {20 - i} r{r}" for i, k in enumerate(docs)]
        (runs / f"r{r}.txt").write_text("\n".join(lines) + "\n")
    return d / "qrels.txt", runs


def test_command_ends_with_its_warnings_once_per_kind(tmp_path, capsys):
    """A command's warnings: one line per kind at its end, never each message and then a summary
    repeating them."""
    from metaeval.cli import main

    qrels, runs = _trec_collection(tmp_path)
    (runs / "r1.txt").write_text((runs / "r1.txt").read_text() + "101 Q0 d101-0 99 0 r1\n")   # a duplicate
    assert main(["matrices", "--qrels", str(qrels), "--runs", str(runs), "--metrics", "AP",
                 "--order", "score", "--out", str(tmp_path / "m"), "--quiet"]) == 0
    err = capsys.readouterr().err.splitlines()
    warn = [ln for ln in err if ln.startswith("metaeval: warning:")]
    assert any("run r3: 2 topics" in ln for ln in warn) and len(warn) >= 2
    assert len(warn) == len(err) and len(set(warn)) == len(warn), err
    assert not any("warnings (" in ln for ln in err), err


def test_api_warning_points_at_the_caller(tmp_path):
    from metaeval import api

    qrels, runs = _trec_collection(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api.collection(qrels, runs, order="score")
    mine = [w for w in caught if "missing from the run" in str(w.message)]
    assert len(mine) == 1
    assert mine[0].filename == __file__, mine[0].filename


@pytest.mark.slow
def test_dag_run_ends_with_a_console_summary_naming_the_run(tmp_path):
    """A tiny collection, a run missing two topics: Snakemake's console (its stderr) ends with the
    summary naming the run and the log; rule all's inputs are not listed; the report views exist."""
    from _pipeline_run import snakemake

    qrels, runs = _trec_collection(tmp_path / "data")
    (tmp_path / "config.yaml").write_text(f"""\
collections:
  tiny:
    qrels: {qrels}
    runs: {runs}
    order: score
    top_runs: null
metrics: [AP, "nDCG@10"]
geometric: []
bootstrap: {{B: 50, alpha: 0.05, seed: 1}}
stability: {{fuzziness: [0.05]}}
discpower: {{B: 50, tss_systems: [2]}}
incompleteness: {{enabled: false}}
sweeps: {{gains: {{enabled: false}}}}
kishida: {{enabled: false}}
summary: {{enabled: false}}
""")
    profile = str(ROOT / "workflow" / "profiles" / "default")
    r = snakemake(tmp_path, "--configfile", "config.yaml", "--profile", profile, "--cores", "2", timeout=900)
    err = r.stderr
    start = err.rindex("metaeval: the jobs noticed")
    tail = err[start:]
    assert "run r3: 2 topics of the qrels missing from the run" in tail
    assert "results/logs/tiny/" in tail
    assert tail.count("run r3: 2 topics") == 1
    assert "every table and figure of tiny" in err
    assert "localrule all:\n    input:" not in err
    view = tmp_path / "results" / "tiny" / "report" / "run_means.html"      # the Markdown view, as an HTML table
    md = tmp_path / "results" / "tiny" / "tables" / "run_means.md"
    assert V.html_rows(view) == list(csv.reader(io.StringIO(V.paper_view_csv(md).decode())))


def test_per_pair_tables_list_the_top_runs_pairs(tmp_path):
    """asl of 45 runs: the Markdown/LaTeX list the pairs of the top K runs by mean AP (ties by
    name), the CSV every pair; K configurable, 0 = every pair; 22 runs or fewer: every pair."""
    from itertools import combinations

    from metaeval.meta.run import MetaConfig
    from metaeval.pipeline import write_tables

    runs = [f"r{i:02d}" for i in range(45)]
    means = pd.DataFrame({"metric": "AP", "run": runs, "mean": [((i * 7) % 45) / 45 for i in range(45)]})
    asl = pd.DataFrame([("AP", "paired", x, y, 0.5) for x, y in combinations(runs, 2)],
                       columns=["metric", "test", "system_x", "system_y", "asl"])
    top = means.sort_values("mean", ascending=False)["run"].tolist()[:5]
    write_tables({"run_means": means, "asl": asl}, tmp_path / "k5", pair_top_runs=5)
    md = (tmp_path / "k5" / "asl.md").read_text()
    body = [ln for ln in md.splitlines() if ln.startswith("| r")]
    assert len(body) == 10 and all(ln.split("|")[1].strip() in top and ln.split("|")[2].strip() in top for ln in body)
    assert "top 5 of 45 runs by mean AP" in md and "top 5 of 45 runs" in (tmp_path / "k5" / "asl.tex").read_text()
    assert pd.read_csv(tmp_path / "k5" / "asl.csv").shape[0] == 990
    write_tables({"run_means": means, "asl": asl}, tmp_path / "all", pair_top_runs=0)
    assert len([ln for ln in (tmp_path / "all" / "asl.md").read_text().splitlines() if ln.startswith("| r")]) == 990
    few = means[means["run"].isin(runs[:22])]
    write_tables({"run_means": few, "asl": asl[asl["system_y"].isin(runs[:22]) & asl["system_x"].isin(runs[:22])]},
                 tmp_path / "few")
    text = (tmp_path / "few" / "asl.md").read_text()
    assert "runs by mean" not in text and len([ln for ln in text.splitlines() if ln.startswith("| r")]) == 231
    with pytest.raises(ValueError, match="pair_top_runs"):
        MetaConfig(pair_top_runs=-1)


def _long_tables(rng, metrics, runs) -> dict[str, pd.DataFrame]:
    """The long tables of a track's overview at their default grids: test errors (5 tests, 3 topic
    set sizes, 10 deltas, 19 alphas) and risk against a baseline (4 risk weights)."""

    from metaeval.meta.risk import RISK_COLUMNS
    from metaeval.meta.stages.error_rates import DEFAULT_ALPHAS, DEFAULT_DELTAS, DEFAULT_TOPICS, TESTS

    def rate():
        r = float(rng.uniform(0, 1))
        return r, (r * (1 - r) / 100) ** 0.5, 100

    type1 = pd.DataFrame([(m, n, t, a, *rate()) for m in metrics for n in DEFAULT_TOPICS for t in TESTS
                          for a in DEFAULT_ALPHAS], columns=["metric", "n_topics", "test", "alpha", "rate", "se", "trials"])
    cols = ["metric", "n_topics", "test", "delta", "alpha", "rate", "se", "trials"]
    long = [(m, n, t, d, a) for m in metrics for n in DEFAULT_TOPICS for t in TESTS for d in DEFAULT_DELTAS
            for a in DEFAULT_ALPHAS]
    power = pd.DataFrame([(*k, *rate()) for k in long], columns=cols)
    type3 = pd.DataFrame([(*k, *rate()) for k in long], columns=cols)
    risk = pd.DataFrame([(m, r, runs[0], a, *rng.normal(0, 1, 5), 10, 5) for m in metrics for a in (1.0, 2.0, 5.0, 10.0)
                         for r in runs], columns=RISK_COLUMNS)
    return {"test_errors_type1": type1, "test_errors_power": power, "test_errors_type3": type3, "risk": risk}


@pytest.mark.slow
def test_paper_tables_of_an_80_run_collection(tmp_path):
    """What an organiser prints, on 80 runs: the run table by the primary measure (select_by when
    meta-evaluated, else the first metric), best first, its caption saying so; every Markdown /
    LaTeX table at most ~250 lines (test errors and risk wide, the long ones their first rows with
    a note), the CSVs every row, their bytes those of the data; the report shows the Markdown view
    (4 decimals, labels) as CSV."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "tests"))
    from _synth_tables import frames

    from metaeval.labels import labels_for
    from metaeval.pipeline import write_tables
    from metaeval.report.csvio import csv_text
    from metaeval.report.layout_catalogue import KINDS

    metrics = ["AP", "Q-measure", "nDCG@10", "RR"]
    fr = frames(seed=5, runs=80, topics=20, B=50, metrics=metrics, test_errors=False)
    runs = sorted(fr["run_means"]["run"].unique())
    fr.update(_long_tables(np.random.default_rng(2), metrics[:3], runs))
    labels = labels_for(runs, metrics, {"nDCG@10": "nDCG-10"})
    write_tables(fr, tmp_path / "t", select_by="nDCG@10", labels=labels)
    rm = fr["run_means"]
    best = rm[rm["metric"] == "nDCG@10"].sort_values(["mean", "run"], ascending=[False, True])["run"].tolist()
    md = (tmp_path / "t" / "run_means.md").read_text()
    assert [ln.split("|")[1].strip() for ln in md.splitlines()[4:]] == [labels.get(r, r) for r in best]
    assert "Mean performance of the 80 runs over the topics, best first by mean nDCG-10" in md
    # select_by not meta-evaluated: the first metric orders the runs
    write_tables({"run_means": rm}, tmp_path / "u", select_by="P@10")
    first = rm[rm["metric"] == "AP"].sort_values(["mean", "run"], ascending=[False, True])["run"].tolist()
    assert [ln.split("|")[1].strip() for ln in (tmp_path / "u" / "run_means.md").read_text().splitlines()[4:]] == first
    # every view printable, the CSVs whole and unchanged
    for name, df in fr.items():
        md = (tmp_path / "t" / f"{name}.md").read_text().splitlines()
        tex = (tmp_path / "t" / f"{name}.tex").read_text().splitlines()
        assert len(md) <= 250 and len(tex) <= 260, (name, len(md), len(tex))
        spec = KINDS[name]
        data = spec.sort(df) if spec.sort is not None else df
        assert (tmp_path / "t" / f"{name}.csv").read_text() == csv_text(data), name
    power = (tmp_path / "t" / "test_errors_power.md").read_text()
    assert "| Metric | Topics | delta | alpha | paired-t | wilcoxon | sign | bootstrap | permutation |" in power
    assert "URisk (alpha=1)" in (tmp_path / "t" / "risk.md").read_text()
    t1 = (tmp_path / "t" / "test_errors_type1.md").read_text().splitlines()
    assert len(fr["test_errors_type1"]) == 855 and len(t1) == 4 + 3 * 3 * 19       # tests as columns
    # a long table without a wide form: its first rows, and the caption says where the rest is
    inc = fr["incompleteness"]
    many = pd.concat([inc.assign(level=str(0.001 * (k + 1))) for k in range(40)], ignore_index=True)
    write_tables({"incompleteness": many}, tmp_path / "v")
    text = (tmp_path / "v" / "incompleteness.md").read_text()
    assert f"Shown: the first 240 of {len(many)} rows; every row is in incompleteness.csv." in text
    assert len(text.splitlines()) == 244 and len(pd.read_csv(tmp_path / "v" / "incompleteness.csv")) == len(many)
    # the report's view: the Markdown table as an HTML table (4 decimals, labels), shown inline
    info = V.write_report_views(tmp_path / "t", tmp_path / "report", list(fr))
    cells = V.html_rows(tmp_path / "report" / "run_means.html")
    view = pd.DataFrame(cells[1:], columns=cells[0])
    assert list(view.columns) == ["run", "AP", "Q-measure", "nDCG-10", "RR"] and info["run_means"]["whole"]
    assert view["run"].tolist() == [labels.get(r, r) for r in best]
    assert view["AP"].str.fullmatch(r"\d\.\d{4}").all()
