"""Display labels of runs and measures (issue 31, section 2; docs/outputs.md, "Labels"): default
short run labels, a labels file shown in every Markdown/LaTeX table and figure while the CSVs keep
the names, and a run named by its label, file stem or runid, a measure by any alias, wherever one
is named."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.cli import main
from metaeval.errors import InputError, InputWarning
from metaeval.labels import default_run_labels, read_labels, resolve_run, run_labels

from conftest import DL19


def test_default_labels_strip_shared_decorations_only():
    official = [f"dl-20-official-input.{r}" for r in ("pash_f1", "pash_f2", "bigIR-BERT-R", "d_d2q_duo",
                                                       "fr_pass_roberta", "med_1k", "p_bm25")]
    modern = [f"{r}_msmarco-passage-trec-dl-2020-judged" for r in ("bm25", "monot5", "splade-v2")]
    labels = default_run_labels(official + modern)
    assert labels["dl-20-official-input.pash_f1"] == "pash_f1"
    assert labels["dl-20-official-input.med_1k"] == "med_1k"
    assert labels["monot5_msmarco-passage-trec-dl-2020-judged"] == "monot5"
    # DL19's names, the simulated runs' and short shared stems keep their names (recorded outputs)
    dl19 = ["bm25base_p", "bm25base_ax_p", "bm25tuned_p", "bm25tuned_prf_p", "idst_bert_p1", "idst_bert_p2",
            "TUW19-p1-f", "TUW19-p1-re", "p_bert", "ICT-BERT2", "runid2"]
    assert default_run_labels(dl19) == {r: r for r in dl19}
    sim = [f"RUN{i:02d}" for i in range(1, 31)]
    assert default_run_labels(sim) == {r: r for r in sim}
    # never empty, never two runs with one label, never another run's name
    assert default_run_labels(["team-run-x.a", "team-run-x.b", "c"]) == {
        "team-run-x.a": "a", "team-run-x.b": "b", "c": "c"}
    clash = default_run_labels(["x-long-prefix.a", "x-long-prefix.b", "a"])
    assert clash["x-long-prefix.a"] != "a"


def test_labels_file_runids_and_resolution(tmp_path):
    f = tmp_path / "labels.txt"
    f.write_text("\ufeff# run and measure labels\nrunA BM25 (Anserini)\n\ntag-b monoT5\nnDCG@10 nDCG@10\n", encoding="utf-8")
    given = read_labels(f)
    assert given == {"runA": "BM25 (Anserini)", "tag-b": "monoT5", "nDCG@10": "nDCG@10"}
    labels = run_labels(["runA", "runB"], given, {"runB": "tag-b"})
    assert labels == {"runA": "BM25 (Anserini)", "runB": "monoT5"}
    runs = ["runA", "runB"]
    assert resolve_run("monoT5", runs, labels) == "runB"                     # by label
    assert resolve_run("tag-b", runs, labels, {"runB": "tag-b"}) == "runB"  # by runid
    assert resolve_run("runA", runs, labels) == "runA"                      # by file stem
    assert resolve_run("nope", runs, labels) == "nope"
    with pytest.raises(ValueError, match="names 2 runs"):
        resolve_run("x", runs, {"runA": "x", "runB": "x"})
    bad = tmp_path / "bad.txt"
    bad.write_text("runA\n")
    with pytest.raises(InputError, match="bad.txt:1:.*NAME LABEL"):
        read_labels(bad)
    bad.write_text("a x\na y\n")
    with pytest.raises(InputError, match="bad.txt:2:.*twice"):
        read_labels(bad)


# -------------------------------------------------------- a run and a measure wherever one is named

def _toy(tmp_path):
    q = tmp_path / "qrels.txt"
    rng = np.random.default_rng(3)
    lines = [f"t{t} 0 d{d} {int(rng.choice(3, p=[0.6, 0.3, 0.1]))}" for t in range(12) for d in range(20)]
    q.write_text("\n".join(lines) + "\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    for k, stem in enumerate(["trec-2024-official.alpha", "trec-2024-official.beta", "trec-2024-official.gamma"]):
        rows = []
        for t in range(12):
            sc = rng.normal(0, 1, 20) + (k + 1) * 0.3 * np.array([int(ln.split()[3]) for ln in lines[t * 20:(t + 1) * 20]])
            order = np.argsort(-sc, kind="stable")
            rows += [f"t{t} Q0 d{d} {i + 1} {sc[d]:.6f} tag{k}" for i, d in enumerate(order)]
        (runs / f"{stem}.run").write_text("\n".join(rows) + "\n")
    return q, runs


def test_compare_names_runs_and_measures_any_way(tmp_path, capsys):
    q, runs = _toy(tmp_path)
    base = ["compare", "--qrels", str(q), "--runs", str(runs / "trec-2024-official.alpha.run"),
            str(runs / "trec-2024-official.beta.run"), str(runs / "trec-2024-official.gamma.run"),  # one --runs
            "--metrics", "AP", "nDCG@10", "--sort-by", "nDCG@10"]          # nDCG@10 = trec.ndcg_cut@10 here
    tables = {}
    for how in ("trec-2024-official.alpha", "alpha", "tag0"):              # file stem, default label, runid
        assert main(base + ["--baseline", how]) == 0, how
        tables[how] = capsys.readouterr().out
    assert tables["alpha"] == tables["tag0"] == tables["trec-2024-official.alpha"]
    assert tables["alpha"].splitlines()[0] == "| run | AP | trec.ndcg_cut@10 |"
    assert "| alpha (baseline) |" in tables["alpha"]                        # the short label
    labels = tmp_path / "labels.txt"
    labels.write_text("tag1 Beta\nnDCG@10 nDCG@10\nMAP mean AP\n")          # runid; measures by alias
    out = tmp_path / "cmp"
    assert main(base + ["--baseline", "Beta", "--labels", str(labels), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "| run | mean AP | nDCG@10 |"
    assert "| Beta (baseline) |" in text and "| alpha |" in text
    assert "Beta" in (out / "compare.tex").read_text()
    csv = pd.read_csv(out / "compare.csv")                                   # the names stay in the CSV
    assert set(csv["other"]) == {"trec-2024-official.beta"} and set(csv["metric"]) == {"AP", "trec.ndcg_cut@10"}


def test_meta_evaluate_select_by_any_alias(tmp_path):
    q, runs = _toy(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        scores = metaeval.evaluate(q, runs, ["AP", "nDCG@10", "RR"])
    assert "trec.ndcg_cut@10" in set(scores.measure)
    for name in ("nDCG@10", "trec.ndcg_cut@10", "NDCG@10"):
        res = metaeval.meta_evaluate(scores, B=50, seed=1, select_by=name, top_runs=2)
        assert len(res.kendall) == 3
    res = metaeval.meta_evaluate(scores, B=50, seed=1, metrics=["MAP", "nDCG@10"])
    assert set(res.kendall[["metric_a", "metric_b"]].iloc[0]) == {"AP", "trec.ndcg_cut@10"}


# ------------------------------------------------------------------ every table and figure, DL19

DL19_RUNS = ["bm25base_p", "p_bert", "idst_bert_p1", "TUW19-p3-f", "ICT-BERT2", "runid2"]


@pytest.mark.shared_data
def test_dl19_labels_in_every_table_and_figure(tmp_path, monkeypatch):
    """`metaeval meta --labels FILE` on DL19 matrices: every Markdown/LaTeX table and every figure
    shows the labels of the runs and measures, never their names; every CSV keeps the names."""
    import matplotlib.figure

    mdir = tmp_path / "m"
    args = ["matrices", "--qrels", str(DL19 / "qrels.txt"), "--out", str(mdir), "--quiet",
            "--metrics", "AP", "nDCG@10", "RR", "Q-measure", "--runs"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        assert main(args + [str(DL19 / "runs" / f"{r}.run.gz") for r in DL19_RUNS]) == 0
    labels = tmp_path / "labels.txt"
    mapping = {"bm25base_p": "BM25", "p_bert": "BERT (p)", "idst_bert_p1": "IDST-1", "TUW19-p3-f": "TUW-3",
               "ICT-BERT2": "ICT-2", "runid2": "R2", "nDCG@10": "nDCG-10", "Q-measure": "Qm"}
    labels.write_text("".join(f"{k} {v}\n" for k, v in mapping.items()))
    shown: dict[str, list[str]] = {}
    real_savefig = matplotlib.figure.Figure.savefig

    def savefig(fig, fname, *a, **kw):
        import matplotlib.text

        shown[Path(str(fname)).name] = [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
        return real_savefig(fig, fname, *a, **kw)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    out = tmp_path / "meta"
    assert main(["meta", "--matrices", str(mdir), "--out", str(out), "--B", "100", "--rthsd-B", "100",
                 "--labels", str(labels), "--quiet"]) == 0
    names = ["bm25base_p", "p_bert", "idst_bert_p1", "TUW19-p3-f", "ICT-BERT2", "runid2", "trec.ndcg_cut@10",
             "Q-measure"]
    md = sorted((out / "tables").glob("*.md"))
    assert len(md) > 10
    for f in md + sorted((out / "tables").glob("*.tex")):
        text = f.read_text()
        cells = {c.strip().strip("*") for ln in text.splitlines() for c in ln.split("|") + ln.split("&")}
        tex_names = {n.replace("_", r"\_") for n in names}
        assert not (cells & (set(names) | tex_names)), (f.name, cells & (set(names) | tex_names))
    with_labels = [f for f in md if any(v in f.read_text() for v in mapping.values())]
    assert len(with_labels) >= len(md) - 3, [f.name for f in md if f not in with_labels]
    for csv in (out / "tables").glob("*.csv"):                              # the names stay in the CSVs
        assert not any(f",{v}," in csv.read_text() for v in ("BM25", "IDST-1", "nDCG-10"))
    assert shown, "no figure drawn"
    for name, texts in shown.items():
        leaked = [t for t in texts if any(n == t or n in t.split() for n in names)]
        assert not leaked, (name, leaked[:5])
    assert any("BM25" in t or "nDCG-10" in t for texts in shown.values() for t in texts)


# ------------------------------------------------------- the Kendall table: two names, one measure

def test_kendall_table_notes_two_names_of_one_measure(tmp_path):
    rng = np.random.default_rng(5)
    topics, runs = [f"t{i}" for i in range(15)], [f"r{j}" for j in range(6)]
    a = pd.DataFrame(rng.random((15, 6)), index=topics, columns=runs)
    mats = {"MSnDCG@10": a, "trec.ndcg_cut@10": a.copy(), "AP": pd.DataFrame(rng.random((15, 6)), index=topics,
                                                                               columns=runs)}
    res = metaeval.meta_evaluate(mats, B=50, seed=1)
    res.write(tmp_path / "o", figures=False)
    md = (tmp_path / "o" / "tables" / "kendall.md").read_text()
    tex = (tmp_path / "o" / "tables" / "kendall.tex").read_text()
    note = "MSnDCG@10 and trec.ndcg_cut@10 are the same measure here"
    assert note in md.splitlines()[0] and note.replace("_", r"\_") in tex
    assert "Note" not in (tmp_path / "o" / "tables" / "kendall.csv").read_text()      # no new CSV column
    # distinct measures: no note
    del mats["trec.ndcg_cut@10"]
    metaeval.meta_evaluate(mats, B=50, seed=1).write(tmp_path / "p", figures=False)
    assert "same measure" not in (tmp_path / "p" / "tables" / "kendall.md").read_text()


def test_messages_show_numbers_not_numpy_reprs():
    """No ``np.float64(3.5)`` in a message: numbers are printed as numbers."""
    from metaeval.meta.run import MetaConfig
    from metaeval.meta.samples import sample_rng
    from metaeval.meta.stability import stability_method

    msgs = []
    for call in (lambda: sample_rng(np.float64(-1.0), 10, 10),
                 lambda: MetaConfig(tss_systems=(np.int64(1),)),
                 lambda: MetaConfig(tss_min_diff=(np.float64(-0.5),)),
                 lambda: stability_method(pd.DataFrame(np.ones((3, 3))), B=10, seed=1,
                                          fuzziness=[np.float64(-0.1)])):
        with pytest.raises(ValueError) as e:
            call()
        msgs.append(str(e.value))
    assert all("np." not in m for m in msgs), msgs
    assert "-0.5" in msgs[2] and "-0.1" in msgs[3]


def test_pipeline_config_labels_reach_the_writers_job(tmp_path):
    """`labels:` in the config (a mapping) becomes a labels file passed to the meta job (dry run)."""
    import subprocess
    import sys

    from conftest import ROOT

    q, runs = _toy(tmp_path)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"collections:\n  toy:\n    qrels: {q}\n    runs: {runs}\n    gains: '1:2'\n    top_runs: null\n"
                   f"metrics: [AP, RR]\nresults: {tmp_path / 'res'}\nlabels: {{trec-2024-official.alpha: Alpha}}\n"
                   "kishida: {enabled: false}\nsummary: {enabled: false}\nsweeps: {gains: {enabled: false}}\n")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                           str(tmp_path), "--configfile", str(cfg), "-n", "-p", "--cores", "1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = proc.stdout + proc.stderr
    import re

    m = re.search(r"--labels (\S+)", text)
    assert m, text[-2000:]
    assert read_labels(m.group(1).strip("'")) == {"trec-2024-official.alpha": "Alpha"}


def test_api_compare_takes_the_baseline_by_label(tmp_path):
    q, runs = _toy(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        scores = metaeval.evaluate(q, runs, ["AP", "nDCG@10"])
    ref = metaeval.compare(scores, baseline="trec-2024-official.beta", metrics=["AP", "nDCG@10"])
    pd.testing.assert_frame_equal(metaeval.compare(scores, baseline="beta", metrics=["MAP", "nDCG@10"]), ref)
    pd.testing.assert_frame_equal(metaeval.compare(scores, baseline="B", labels={"trec-2024-official.beta": "B"},
                                                   metrics=["AP", "trec.ndcg_cut@10"]), ref)
    assert set(ref["other"]) == {"trec-2024-official.beta"}
