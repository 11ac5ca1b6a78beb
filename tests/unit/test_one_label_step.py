"""One run-name rule and one label step (issue 47 item 5, issue 49 item 4): the runs' default labels
-- the collection's shared prefix and extension stripped, as ``metaeval compare`` shows them -- and
the ``labels:`` given reach the Markdown, LaTeX and figures of ``judgments`` and ``ppi`` as they reach
the meta-evaluation's tables, the CSV keeping the canonical names; DL 2020's runs ``1`` and ``2``
lose the prefix as every other run does.  (That a label change re-runs the judgments and ppi jobs:
tests/pipeline/test_reruns.py.)"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pandas as pd

import _published_boards as PB
from metaeval.cli import main
from metaeval.labels import default_run_labels

SYSTEMS = ["bm25", "monot5", "splade", "colbert", "ance", "tct", "dpr", "unicoil"]


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def _md_runs(path: Path) -> set[str]:
    """The ``run`` column of a Markdown table."""
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    col = [h.lower() for h in head].index("run")
    return {[c.strip() for c in ln.strip("|").split("|")][col] for ln in lines[2:]}


def test_digits_left_after_the_collections_prefix_are_the_systems_name():
    dl20 = [f"dl-20-official-input.{r}" for r in ("1", "2", "pash_f1", "bigIR-BERT-R", "Fast_ForwardP_2",
                                                   "Fast_ForwardP_5", "p_bm25")]
    got = default_run_labels(dl20)
    assert got == {n: n.split(".", 1)[1] for n in dl20}
    # a published leaderboard's files: the shared prefix and the extension stripped
    boards = [f"input.{s}.ndcgeval" for s in SYSTEMS]
    assert default_run_labels(boards) == {f"input.{s}.ndcgeval": s for s in SYSTEMS}
    assert default_run_labels([f"{s}.ndcgeval" for s in SYSTEMS[:2]]) == {"bm25.ndcgeval": "bm25",
                                                                           "monot5.ndcgeval": "monot5"}
    # a prefix shared by a few runs only keeps the name it would leave without a letter
    few = default_run_labels(["Fast_ForwardP_2", "Fast_ForwardP_5", "bm25", "pash_f1"])
    assert few["Fast_ForwardP_2"] == "Fast_ForwardP_2"


def test_judgments_results_show_the_runs_as_compare_does(tmp_path):
    nist, syndl = PB.write_boards(tmp_path / "boards", empty=False)
    for d in (nist, syndl):
        for r, s in zip(PB.RUNS, SYSTEMS):
            (d / r).rename(d / f"input.{s}.ndcgeval")
    labels = tmp_path / "labels.txt"
    labels.write_text("input.bm25.ndcgeval BM25 (Anserini)\ntrec.map MAP\n", encoding="utf-8")
    out = tmp_path / "out"
    rc, so, err = _run(["judgments", "--results", f"nist={nist}", f"syndl={syndl}", "--reference", "nist",
                        "--out", out, "--B", "20", "--no-figures", "--labels", labels])
    assert rc == 0, err
    csv = pd.read_csv(out / "tables" / "run_ranks.csv")
    assert set(csv["run"]) == {f"input.{s}.ndcgeval" for s in SYSTEMS}          # the CSV keeps the names
    assert "trec.map" in set(csv["metric"])
    # the default labels (prefix and extension stripped) and the labels given, in every text
    assert _md_runs(out / "tables" / "run_ranks.md") == set(SYSTEMS[1:]) | {"BM25 (Anserini)"}
    tex = (out / "tables" / "run_ranks.tex").read_text(encoding="utf-8")
    assert "ndcgeval" not in tex and "input." not in tex and "monot5" in tex
    for t in ("ranking_agreement", "decision_agreement", "run_ranks"):
        md = (out / "tables" / f"{t}.md").read_text(encoding="utf-8")
        assert "| MAP |" in md and "trec.map" not in md, t


def _ppi_toy(tmp_path: Path) -> dict:
    """6 topics, 3 runs named with a shared prefix; the human judges topics 1-4, the judge 1-6."""
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(5)]
    human, judge, runs = [], [], {f"dl-19-official-input.{s}": [] for s in SYSTEMS[:3]}
    for t in range(1, 7):
        lv = rng.integers(0, 3, len(docs))
        lv[t % len(docs)] = 2
        for d, a in zip(docs, lv):
            if t <= 4:
                human.append(f"{t} 0 {d} {a}")
            judge.append(f"{t} 0 {d} {min(2, a + (d == 'd0'))}")
        for name in runs:
            order = rng.permutation(len(docs))[:4]
            runs[name] += [f"{t} Q0 {docs[i]} {r + 1} {10 - r} x" for r, i in enumerate(order)]
    rd = tmp_path / "runs"
    rd.mkdir()
    for name, lines in runs.items():
        (rd / f"{name}.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "human.txt").write_text("\n".join(human) + "\n")
    (tmp_path / "judge.txt").write_text("\n".join(judge) + "\n")
    return {"qrels": tmp_path / "human.txt", "judge": tmp_path / "judge.txt", "runs": rd}


def test_ppi_shows_the_runs_short_and_takes_labels(tmp_path, monkeypatch):
    toy = _ppi_toy(tmp_path)
    (tmp_path / "labels.txt").write_text("AP Average precision\n", encoding="utf-8")
    drawn: dict = {}
    import metaeval.report.ppi as rp

    def spy(table, path_stem, *, labels=None, **kw):    # what the figures name their runs and panels
        drawn.update(labels or {})
        return []
    for f in ("plot_ppi_intervals", "plot_ppi_width", "plot_ppi_coverage"):
        monkeypatch.setattr(rp, f, spy)
    out = tmp_path / "out"
    rc, so, err = _run(["ppi", "--qrels", toy["qrels"], "--judge", toy["judge"], "--runs", toy["runs"],
                        "--metrics", "AP", "--sizes", "2", "--trials", "5", "--order", "file", "--out", out,
                        "--labels", tmp_path / "labels.txt"])
    assert rc == 0, err
    full = {f"dl-19-official-input.{s}" for s in SYSTEMS[:3]}
    assert set(pd.read_csv(out / "tables" / "ppi_means.csv")["run"]) == full
    assert _md_runs(out / "tables" / "ppi_means.md") == set(SYSTEMS[:3])
    md = (out / "tables" / "ppi_means.md").read_text(encoding="utf-8")
    assert "| Average precision |" in md and "dl-19-official-input" not in md
    assert {drawn[r] for r in full} == set(SYSTEMS[:3]) and drawn["AP"] == "Average precision"


def test_bayes_shows_the_runs_short_and_takes_labels(tmp_path, monkeypatch):
    """``metaeval bayes`` (the pipeline's bayes job runs it with ``--labels``): the runs' default
    labels and the labels given in its Markdown, LaTeX and figures, the CSVs keeping the names; the
    API takes them too."""
    import metaeval
    import metaeval.report.bayes as rb

    rng = np.random.default_rng(5)
    runs = [f"dl-19-official-input.{s}" for s in SYSTEMS[:4]]
    M = pd.DataFrame(rng.uniform(0.1, 0.9, (8, 4)) + np.linspace(0, 0.2, 4), columns=runs,
                     index=pd.Index([f"t{t}" for t in range(8)], name="topic"))
    (tmp_path / "m").mkdir()
    M.to_csv(tmp_path / "m" / "AP.csv")
    (tmp_path / "labels.txt").write_text("AP Average precision\ndl-19-official-input.bm25 BM25 (Anserini)\n",
                                         encoding="utf-8")
    drawn: dict = {}

    def spy(name):
        def draw(table, path_stem):         # what the figures name their runs and panels
            drawn[name] = {c: set(table[c]) for c in ("metric", "run", "other") if c in table.columns}
            return []
        return draw
    for f in ("plot_bayes_intervals", "plot_bayes_p_greater"):
        monkeypatch.setattr(rb, f, spy(f))
    shown = {"BM25 (Anserini)"} | set(SYSTEMS[1:4])
    out = tmp_path / "out"
    rc, _, err = _run(["bayes", "--matrices", tmp_path / "m", "--out", out, "--draws", "100", "--chains", "2",
                        "--labels", tmp_path / "labels.txt", "--quiet"])
    assert rc == 0, err
    for t in ("bayes_runs", "bayes_pairs"):
        csv = pd.read_csv(out / "tables" / f"{t}.csv")
        assert set(csv["run"]) == set(runs) and set(csv["metric"]) == {"AP"}         # the CSV keeps the names
        assert _md_runs(out / "tables" / f"{t}.md") == shown
        for ext in ("md", "tex"):
            text = (out / "tables" / f"{t}.{ext}").read_text(encoding="utf-8")
            assert "Average precision" in text and "dl-19-official-input" not in text, (t, ext)
    pairs_md = (out / "tables" / "bayes_pairs.md").read_text(encoding="utf-8")
    assert "| Average precision | BM25 (Anserini) | monot5 |" in pairs_md
    fit_md = (out / "tables" / "bayes_fit.md").read_text(encoding="utf-8")
    assert "| Average precision |" in fit_md
    assert drawn["plot_bayes_intervals"] == {"metric": {"Average precision"}, "run": shown}
    assert drawn["plot_bayes_p_greater"] == {"metric": {"Average precision"}, "run": shown, "other": shown}
    # the API: a labels mapping; without one the default labels (the shared prefix off)
    drawn.clear()
    metaeval.bayes({"AP": M}, draws=100, chains=2, out=tmp_path / "api", labels={"AP": "MAP"})
    assert _md_runs(tmp_path / "api" / "tables" / "bayes_runs.md") == set(SYSTEMS[:4])
    assert drawn["plot_bayes_intervals"] == {"metric": {"MAP"}, "run": set(SYSTEMS[:4])}


def test_a_measure_among_the_words_of_a_cell_is_shown_by_its_label():
    """Kendall's ``(a) NAME`` rows, stability's ``NAME MR / PT`` and the ASL table's ``NAME (paired)``
    headers: the measure's label in the Markdown and LaTeX, its name in the CSV."""
    from metaeval.report.tables import table_texts

    labels = {"AP(rel=2)": "AP (rel >= 2)", "trec.ndcg_cut@10": "nDCG@10", "RR": "MRR"}
    names = ["AP(rel=2)", "RR", "trec.ndcg_cut@10"]
    kendall = pd.DataFrame({"metric_a": ["AP(rel=2)", "AP(rel=2)", "RR"],
                            "metric_b": ["RR", "trec.ndcg_cut@10", "trec.ndcg_cut@10"],
                            "tau": [0.4667, 0.6, 0.8667], "z0": [1.3, 1.7, 2.4], "p_value": [0.19, 0.09, 0.02]})
    stability = pd.DataFrame({"metric": names, "f": [0.05] * 3, "minority_rate": [0.1, 0.2, 0.3],
                              "proportion_ties": [0.01, 0.02, 0.03]})
    for name, df in (("kendall", kendall), ("stability", stability)):
        texts = table_texts(df, name, kind=name, labels=labels)
        for ext in (".md", ".tex"):
            body = texts[ext].split("\n", 2)[2]                 # the table, not its caption
            assert not any(n in body for n in ("AP(rel=2)", "trec.ndcg", "ndcg\\_cut")), (name, ext, body)
        assert "(a) AP (rel >= 2)" in texts[".md"] or "AP (rel >= 2) MR / PT" in texts[".md"], texts[".md"]
        assert "MRR" in texts[".md"] and "trec.ndcg_cut@10" in texts[".csv"]
    from metaeval.labels import relabeller

    shown = relabeller({"AP": "MAP", "AP(rel=2)": "AP2", "run-1": "one"})
    assert [shown(t) for t in ("AP(rel=2) (paired)", "AG_AP (unpaired)", "APX", "tau-a", "0.50", "run-1")] == [
        "AP2 (paired)", "AG_MAP (unpaired)", "APX", "tau-a", "0.50", "one"]


def test_summary_shows_the_measures_by_their_labels(tmp_path, monkeypatch):
    """The cross-collection tables and figures: ``labels:`` reach them too (the summary job reads the
    labels and re-runs when they change: tests/pipeline/test_reruns.py)."""
    import metaeval.report.summary as S
    from metaeval.pipeline import write_summary

    runs = ["r1", "r2", "r3"]
    for c in ("a", "b"):
        (tmp_path / c / "tables").mkdir(parents=True)
        pd.DataFrame({"metric": ["AP(rel=2)"] * 3 + ["RR"] * 3, "run": runs * 2,
                      "mean": [0.3, 0.2, 0.1, 0.5, 0.4, 0.3]}).to_csv(tmp_path / c / "tables" / "run_means.csv",
                                                                       index=False)
        pd.DataFrame({"metric_a": ["AP(rel=2)"], "metric_b": ["RR"], "tau": [1.0], "z0": [1.0],
                      "p_value": [0.3]}).to_csv(tmp_path / c / "tables" / "kendall.csv", index=False)
    drawn: dict = {}

    def spy(name):
        def draw(t, read, stem, cfg):
            drawn[name] = ({m for df in read("run_means").values() if df is not None for m in df["metric"]},
                           cfg["metric"])
            return []
        return draw
    monkeypatch.setattr(S, "summary_plotter", spy)
    write_summary({"a": tmp_path / "a", "b": tmp_path / "b"}, tmp_path / "sum", metric="AP(rel=2)",
                  labels_file={"AP(rel=2)": "AP (rel >= 2)"})
    md = (tmp_path / "sum" / "kendall.md").read_text(encoding="utf-8")
    assert "| AP (rel >= 2) | RR |" in md and "AP(rel=2)" not in md
    assert "AP(rel=2)" in (tmp_path / "sum" / "kendall.csv").read_text(encoding="utf-8")
    assert drawn["run_means"] == ({"AP (rel >= 2)", "RR"}, "AP (rel >= 2)")
