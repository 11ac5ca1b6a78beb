"""One rule for the conventions of an input (docs/io.md, "Conventions"; issue 31, section 1).

TREC input (six-column runs, TREC-form qrels; or DataFrames) is read with trec_eval's conventions --
ranked by score, names in ir_measures' vocabulary -- through a file, a DataFrame with or without
``rank``, the command line, the API and the pipeline alike, and gives trec_eval's values; NTCIR input
keeps NTCIREVAL's; a run whose file order is not by decreasing score gets one warning (tied scores in
another order are no disagreement)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.cli import main
from metaeval.errors import InputWarning
from metaeval.io.conventions import config_order, default_order, input_form

from conftest import DL19, ROOT, WWW4

# judgments (topic, doc, grade); run "a" lists its documents in an order its scores contradict on
# topics t1 and t3; run "b"'s file order is its score order
JUDGED = [("t1", "d1", 2), ("t1", "d2", 1), ("t1", "d3", 0), ("t1", "d4", 1),
          ("t2", "d1", 1), ("t2", "d5", 2), ("t2", "d6", 0),
          ("t3", "d2", 2), ("t3", "d7", 1)]
RUN_A = [("t1", "d3", 1.0), ("t1", "d1", 4.0), ("t1", "d9", 2.0), ("t1", "d2", 3.0),
         ("t2", "d5", 9.0), ("t2", "d6", 8.0), ("t2", "d1", 7.0),
         ("t3", "d7", 1.0), ("t3", "d8", 1.0), ("t3", "d2", 0.5)]    # t3: a tie, trec_eval: d8 before d7
RUN_B = [("t1", "d2", 5.0), ("t1", "d4", 4.0), ("t1", "d1", 3.0),
         ("t2", "d1", 2.0), ("t2", "d5", 1.5),
         ("t3", "d2", 1.0)]
GIVEN = ["nDCG@10", "AP", "P@5", "RR"]
TREC_NAMES = ["trec.ndcg_cut@10", "AP", "Prec@5", "RR"]          # ir_measures' vocabulary
NTCIR_NAMES = ["nDCG@10", "AP", "Prec@5", "RR"]                   # NTCIREVAL's
TREC_EVAL = {"trec.ndcg_cut@10": "ndcg_cut_10", "AP": "map", "Prec@5": "P_5", "RR": "recip_rank"}


def _run_text(rows, name):
    return "".join(f"{t} Q0 {d} {i + 1} {s} {name}\n" for i, (t, d, s) in enumerate(rows))


@pytest.fixture()
def trec(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in JUDGED))
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, rows in (("a", RUN_A), ("b", RUN_B)):
        (runs / f"{name}.run").write_text(_run_text(rows, name))
    frame = pd.DataFrame([(name, t, d, s, i + 1) for name, rows in (("a", RUN_A), ("b", RUN_B))
                          for i, (t, d, s) in enumerate(rows)],
                         columns=["run", "query_id", "doc_id", "score", "rank"])
    qframe = pd.DataFrame(JUDGED, columns=["query_id", "doc_id", "relevance"])
    return q, runs, frame, qframe


def _quiet_evaluate(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        return metaeval.evaluate(*args, **kw)


def _pytrec(judged, runs: dict, names) -> pd.DataFrame:
    """pytrec_eval (trec_eval 9.0.x; the same values as 10.0 for these measures) per run and topic."""
    import pytrec_eval

    qrels: dict = {}
    for t, d, g in judged:
        qrels.setdefault(t, {})[d] = int(g)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {TREC_EVAL[n] for n in names} - {"P_5"} | {"P"})
    rows = []
    for run, lines in runs.items():
        r: dict = {}
        for t, d, s in lines:
            r.setdefault(t, {})[d] = float(s)
        res = ev.evaluate(r)
        for t in sorted(qrels):
            for n in names:
                rows.append((run, t, n, res.get(t, {}).get(TREC_EVAL[n], 0.0)))
    return pd.DataFrame(rows, columns=["run", "topic", "measure", "value"])


def _same(a: pd.DataFrame, b: pd.DataFrame, exact=True) -> None:
    key = ["run", "topic", "measure"]
    a = a.sort_values(key, ignore_index=True)
    b = b.sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(a, b, check_exact=exact, check_dtype=False, rtol=1e-12)
    assert len(a) > 0


def _matrices_cli(tmp_path, qrels, runs, *extra) -> tuple[pd.DataFrame, str]:
    out = tmp_path / "m"
    proc = subprocess.run([sys.executable, "-m", "metaeval", "matrices", "--qrels", str(qrels), "--runs",
                           str(runs), "--out", str(out), "--metrics", *GIVEN, *extra],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    rows = []
    for f in sorted(out.glob("*.csv")):
        if f.name == "topics.csv":
            continue
        m = pd.read_csv(f, dtype={"topic": str}).set_index("topic")
        for run in m.columns:
            rows += [(run, t, f.stem, float(v)) for t, v in m[run].items()]
    return pd.DataFrame(rows, columns=["run", "topic", "measure", "value"]), proc.stderr


# ------------------------------------------------------------------ the rule, on a synthetic TREC case

def test_trec_input_is_read_with_trec_evals_conventions_everywhere(trec, tmp_path):
    q, runs, frame, qframe = trec
    assert input_form(q, runs) == "trec" and default_order(None, q, runs) == "score"
    ref = _pytrec(JUDGED, {"a": RUN_A, "b": RUN_B}, TREC_NAMES)
    by_file = _quiet_evaluate(q, runs, GIVEN)
    assert list(dict.fromkeys(by_file.measure)) == TREC_NAMES
    _same(by_file, ref)                                              # trec_eval's values
    _same(_quiet_evaluate(qframe, frame, GIVEN), by_file)            # DataFrames with rank
    _same(_quiet_evaluate(qframe, frame.drop(columns="rank"), GIVEN), by_file)      # without rank
    _same(_quiet_evaluate(q, frame, GIVEN), by_file)                 # mixed
    _same(_quiet_evaluate(qframe, runs, GIVEN), by_file)
    as_dict = {n: df.drop(columns="run") for n, df in frame.groupby("run")}
    _same(_quiet_evaluate(q, as_dict, GIVEN), by_file)
    cli, _ = _matrices_cli(tmp_path, q, runs)                         # what the pipeline's job runs
    _same(cli, by_file)
    # the file order is what trec_eval does NOT do: the test can fail
    file_order = _quiet_evaluate(q, runs, GIVEN, order="file", vocabulary="ir_measures")
    assert not np.array_equal(file_order.value.to_numpy(), by_file.value.to_numpy())


def test_evaluate_command_and_trec_eval_drop_in_agree(trec, capsys):
    q, runs, _, _ = trec
    assert main(["evaluate", "--qrels", str(q), "--runs", str(runs / "a.run"), "--metrics", *GIVEN]) == 0
    out = capsys.readouterr().out
    means = {ln.split()[1].rstrip("="): float(ln.split()[2]) for ln in out.splitlines() if ln.startswith("ALL ")}
    # trec.ndcg_cut@10=, not @0010: zero-padding is NTCIREVAL's print form of its own measures only
    assert list(means) == ["trec.ndcg_cut@10", "AP", "Prec@0005", "RR"]
    means["Prec@5"] = means.pop("Prec@0005")
    assert main(["trec_eval", "-m", "ndcg_cut.10", "-m", "map", "-m", "P.5", "-m", "recip_rank", str(q),
                 str(runs / "a.run")]) == 0
    te = {ln.split()[0]: float(ln.split()[2]) for ln in capsys.readouterr().out.splitlines()}
    for name, key in TREC_EVAL.items():
        assert means[name] == te[key], name


def test_pipeline_collection_gets_the_same_order(trec, tmp_path):
    """`order: null` (the default) resolves as the command line does; simulated collections (NTCIR
    form) keep file order; an explicit order wins."""
    q, runs, _, _ = trec
    assert config_order({"qrels": str(q), "runs": str(runs), "order": None}) == "score"
    assert config_order({"qrels": str(q), "runs": [str(runs)], "order": "file"}) == "file"
    assert config_order({"simulate": {"preset": "ntcir3-chinese"}, "order": None}) == "file"
    nq = tmp_path / "ntcir.txt"
    nq.write_text("".join(f"{t} {d} L{g}\n" for t, d, g in JUDGED))
    assert config_order({"qrels": str(nq), "runs": str(runs)}) == "file"
    # the metrics job of a config without `order:` is called with --order score (a dry run)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"collections:\n  syn:\n    qrels: {q}\n    runs: {runs}\n    gains: '1:2'\n"
                   f"    top_runs: null\nmetrics: [AP, nDCG@10]\nresults: {tmp_path / 'res'}\n"
                   "kishida: {enabled: false}\nsummary: {enabled: false}\nsweeps: {gains: {enabled: false}}\n")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                           str(tmp_path), "--configfile", str(cfg), "-n", "-p", "--cores", "1",
                           f"{tmp_path / 'res'}/syn/collection.npz"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = proc.stdout + proc.stderr
    assert "--order score" in text and "trec.ndcg_cut@10" in text


def test_ntcir_input_keeps_ntcireval_conventions(trec, tmp_path):
    q, runs, _, _ = trec
    nq = tmp_path / "ntcir.txt"
    nq.write_text("".join(f"{t} {d} L{g}\n" for t, d, g in JUDGED))
    assert input_form(nq, runs) == "ntcir"
    got = _quiet_evaluate(nq, runs, GIVEN)
    assert list(dict.fromkeys(got.measure)) == NTCIR_NAMES
    _same(got, _quiet_evaluate(q, runs, GIVEN, order="file"))       # file order, NTCIREVAL's names
    # the order and the vocabulary are overridden together or apart
    _same(_quiet_evaluate(nq, runs, GIVEN, order="score"), _quiet_evaluate(q, runs, GIVEN))
    assert set(_quiet_evaluate(q, runs, GIVEN, vocabulary="ntcireval").measure) == set(NTCIR_NAMES)


def test_disagreement_warning_once_per_run_and_only_then(trec, tmp_path, capsys):
    q, runs, frame, qframe = trec
    for order, used in ((None, "ranked by score order"), ("file", "ranked by file order")):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            metaeval.evaluate(q, runs, ["AP"], order=order)
        msgs = [str(x.message) for x in w if "decreasing score" in str(x.message)]
        assert len(msgs) == 1, msgs                                  # run a only, once
        # t1's scores rise down the list; t3 only orders a tie otherwise than by DOCID: no disagreement
        assert "run a:" in msgs[0] and "1 topic of 3" in msgs[0] and used in msgs[0], msgs[0]
    with warnings.catch_warnings():                                  # order='score' asked for: silent
        warnings.simplefilter("error", InputWarning)
        metaeval.evaluate(q, runs, ["AP"], order="score")
    with warnings.catch_warnings(record=True) as w:                  # DataFrames: the same rule
        warnings.simplefilter("always")
        metaeval.evaluate(qframe, frame, ["AP"])
    msgs = [str(x.message) for x in w if "decreasing score" in str(x.message)]
    assert len(msgs) == 1 and "run 'a'" in msgs[0] and "rank order" in msgs[0]
    with warnings.catch_warnings():                                  # orders agree: no warning
        warnings.simplefilter("error", InputWarning)
        metaeval.evaluate(q, runs / "b.run", ["AP"])
        metaeval.evaluate(qframe, frame[frame.run == "b"], ["AP"])
    _, err = _matrices_cli(tmp_path, q, runs)
    assert err.count("not by decreasing score on") == 1 and "run a:" in err and "metaeval: warning:" in err
    assert main(["compare", "--qrels", str(q), "--runs", str(runs), "--metrics", "AP", "--quiet"]) == 0
    assert capsys.readouterr().err.count("not by decreasing score on") == 1
    assert main(["compare", "--qrels", str(q), "--runs", str(runs), "--metrics", "AP", "--quiet",
                 "--order", "score"]) == 0
    assert "decreasing score" not in capsys.readouterr().err


# ------------------------------------------------------------------------------ DL19 (shared data)

DL19_RUNS = ["bm25base_p", "p_bert", "idst_bert_p1", "TUW19-p3-f"]


def _dl19_trec_eval_means(names):
    """trec_eval's per-run means through the byte-exact drop-in (``metaeval trec_eval``)."""
    out = {}
    for run in DL19_RUNS:
        proc = subprocess.run([sys.executable, "-m", "metaeval", "trec_eval", "-m", "ndcg_cut.10", "-m", "map",
                               str(DL19 / "qrels.txt"), str(DL19 / "runs" / f"{run}.run.gz")],
                              capture_output=True, text=True, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr
        for ln in proc.stdout.splitlines():
            k, _, v = ln.split()
            out[(run, k)] = float(v)
    return out


@pytest.mark.shared_data
def test_dl19_file_frames_cli_api_equal_trec_eval(tmp_path):
    files = [DL19 / "runs" / f"{r}.run.gz" for r in DL19_RUNS]
    ms = ["nDCG@10", "AP"]
    api = _quiet_evaluate(DL19 / "qrels.txt", files, ms)
    assert list(dict.fromkeys(api.measure)) == ["trec.ndcg_cut@10", "AP"]
    # DataFrames read the way a user reads them (pandas), with and without rank
    frames = []
    for p in files:
        df = pd.read_csv(p, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                         dtype={"query_id": str, "doc_id": str, "score": str})
        df["score"] = df["score"].astype(float)
        df["run"] = p.name[: -len(".run.gz")]
        frames.append(df[["run", "query_id", "doc_id", "score", "rank"]])
    runs = pd.concat(frames, ignore_index=True)
    qrels = pd.read_csv(DL19 / "qrels.txt", sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str})[["query_id", "doc_id", "relevance"]]
    _same(_quiet_evaluate(qrels, runs, ms), api)
    _same(_quiet_evaluate(qrels, runs.drop(columns="rank"), ms), api)
    # the command line (compare prints the means)
    d = tmp_path / "runs"
    d.mkdir()
    for p in files:
        (d / p.name).symlink_to(p)
    cli, err = _matrices_cli(tmp_path, DL19 / "qrels.txt", d)
    cli = cli[cli.measure.isin(["trec.ndcg_cut@10", "AP"])]
    _same(cli, api)
    # the files are in score order; only tied scores are ordered otherwise than by DOCID: no warning
    assert "decreasing score" not in err and "disagree" not in err
    # trec_eval's means (printed %.4f) and pytrec_eval's per-topic values (exact)
    te = _dl19_trec_eval_means(ms)
    means = api.groupby(["run", "measure"]).value.mean()
    for run in DL19_RUNS:
        assert round(means[(run, "trec.ndcg_cut@10")], 4) == te[(run, "ndcg_cut_10")]
        assert round(means[(run, "AP")], 4) == te[(run, "map")]
    import pytrec_eval

    qd: dict = {}
    for t, dd, g in qrels.itertuples(index=False):
        qd.setdefault(t, {})[dd] = int(g)
    ev = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut_10", "map"})
    for run, df in runs.groupby("run"):
        rd: dict = {}
        for t, dd, s in df[["query_id", "doc_id", "score"]].itertuples(index=False):
            rd.setdefault(t, {})[dd] = float(s)
        res = ev.evaluate(rd)
        got = api[api.run == run].set_index(["topic", "measure"]).value
        for t in sorted(set(api.topic)):
            assert got[(t, "trec.ndcg_cut@10")] == pytest.approx(res[t]["ndcg_cut_10"], rel=1e-12, abs=1e-15)
            assert got[(t, "AP")] == pytest.approx(res[t]["map"], rel=1e-12, abs=1e-15)


@pytest.mark.shared_data
def test_www4_ntcir_input_defaults_to_file_order():
    qrels, run = WWW4 / "qrels.txt", WWW4 / "runs" / "THUIR-CO-NEW-2.run.gz"
    assert input_form(qrels, [run]) == "ntcir"
    _same(_quiet_evaluate(qrels, run, ["nDCG@10", "AP"]),
          _quiet_evaluate(qrels, run, ["nDCG@10", "AP"], order="file", vocabulary="ntcireval"))
    # its `metaeval evaluate` output equals NTCIREVAL's: tests/conformance/test_cli_evaluate.py::
    # test_www4_run_reproduces_reference_nev, without --order
