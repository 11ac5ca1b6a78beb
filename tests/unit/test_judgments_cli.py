"""``metaeval judgments`` (issue 28): the files written, ``--results`` read on ``trec_eval -q`` output
equal to the same runs evaluated from qrels, and bad input -- one line naming the file, exit 1,
nothing written."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
import pytest

from metaeval import outputs as O
from metaeval.cli import main

FIRST = ["andrew-parry", "ferdinand-schlatt", "guglielmo-faggioli", "saber-zerhoudi"]
SECOND = ["eugene-yang", "froebe", "harry-scells", "sean-macavaney"]
RUNS = ["bm25base_p", "bm25tuned_rm3_p", "idst_bert_p1", "ICT-BERT2", "TUA1-1", "UNH_bm25", "p_bert",
        "srchvrs_ps_run2", "ms_duet_passage", "TUW19-p3-f"]


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def _dl19(shared_data):
    d = shared_data / "trec-dl19-passage"
    r = d / "reannotation"
    return d, r


def _sets(r, which):
    return ",".join(str(r / f"{n}.txt") for n in which)


def _runs(d, names=RUNS):
    return [str(d / "runs" / f"{n}.run.gz") for n in names]


@pytest.mark.shared_data
def test_writes_every_declared_file(shared_data, tmp_path):
    d, r = _dl19(shared_data)
    out = tmp_path / "out"
    rc, so, err = _run(["judgments", "--qrels", f"nist={d / 'qrels.txt'}", f"first={_sets(r, FIRST)}",
                        f"second={_sets(r, SECOND)}", "--fill", "hybrid=first+nist", "--reference", "nist",
                        "--runs", *_runs(d), "--metrics", "nDCG@10", "AP", "--B", "50", "--out", str(out)])
    assert rc == 0, err
    for f in O.files("judgments"):
        assert (out / f).exists(), f
    for f in ("topic_agreement.csv", "coverage.csv", "confusion/nist__first.csv", "confusion/first__second.csv",
              "qrels/hybrid.txt"):
        assert (out / "judgments" / f).is_file(), f
    for o in O.tables("judgments"):
        df = pd.read_csv(out / "tables" / f"{o.name}.csv")
        assert list(df.columns) == list(o.columns), o.name
    la = pd.read_csv(out / "tables" / "label_agreement.csv")
    conf = pd.read_csv(out / "judgments" / "confusion" / "nist__first.csv", index_col=0)
    row = la[(la.qrels_a == "nist") & (la.qrels_b == "first")].iloc[0]
    assert conf.to_numpy().sum() == row["pairs"]
    ta = pd.read_csv(out / "judgments" / "topic_agreement.csv")
    assert list(ta.columns) == ["qrels_a", "qrels_b", "topic", "pairs", "agreement", "kappa"]
    assert ta[(ta.qrels_a == "nist") & (ta.qrels_b == "first")]["pairs"].sum() == row["pairs"]
    cov = pd.read_csv(out / "judgments" / "coverage.csv")
    assert set(cov["qrels"]) == {"nist", "first", "second", "hybrid"}
    ra = pd.read_csv(out / "tables" / "ranking_agreement.csv")
    assert len(ra) == 2 * 3 and set(ra["reference"]) == {"nist"}
    # the hybrid qrels file reads back to first's judgments filled from nist's
    from metaeval.io.judgments import read_sets

    js = read_sets({"h": str(out / "judgments" / "qrels" / "hybrid.txt"), "f": _sets(r, FIRST).split(","),
                    "n": str(d / "qrels.txt")})
    h, f, n = js.labels
    np.testing.assert_array_equal(h, np.where(f >= 0, f, n))


@pytest.mark.shared_data
def test_results_equal_qrels(shared_data, tmp_path):
    """--results on trec_eval -q files gives the ranking_agreement rows of the same runs from qrels."""
    d, r = _dl19(shared_data)
    union = tmp_path / "first.txt"
    union.write_text("".join((r / f"{n}.txt").read_text() for n in FIRST))
    res = tmp_path / "results"
    res.mkdir()
    for run in _runs(d):
        rc, so, err = _run(["trec_eval", "-q", "-m", "map", "-m", "ndcg_cut.10", str(union), run])
        assert rc == 0, err
        name = run.split("/")[-1].replace(".run.gz", "")
        (res / f"{name}.txt").write_text(so)
    out = tmp_path / "out"
    rc, so, err = _run(["judgments", "--qrels", f"nist={d / 'qrels.txt'}", f"first={union}", "--results",
                        f"first_r={res}", "--reference", "nist", "--runs", *_runs(d), "--order", "score",
                        "--metrics", "trec.map", "trec.ndcg_cut@10", "--B", "200", "--out", str(out)])
    assert rc == 0, err
    ra = pd.read_csv(out / "tables" / "ranking_agreement.csv")
    a = ra[ra.qrels == "first"].drop(columns="qrels").reset_index(drop=True)
    b = ra[ra.qrels == "first_r"].drop(columns="qrels").reset_index(drop=True)
    assert len(a) == len(b) == 2
    pd.testing.assert_frame_equal(a, b)
    rr = pd.read_csv(out / "tables" / "run_ranks.csv")
    ma = rr[rr.qrels == "first"]["mean"].to_numpy()
    mb = rr[rr.qrels == "first_r"]["mean"].to_numpy()
    np.testing.assert_allclose(ma, mb, atol=5e-5)      # trec_eval prints 4 decimals


def _bad(argv, tmp_path, *needles):
    out = tmp_path / "out"
    rc, so, err = _run([*argv, "--out", str(out), "--B", "20"])
    assert rc == 1, err
    lines = [x for x in err.splitlines() if x.startswith("metaeval: error:")]
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], lines[0]
    assert not out.exists()
    return lines[0]


@pytest.mark.shared_data
def test_bad_conflicting_duplicates(shared_data, tmp_path):
    d, r = _dl19(shared_data)
    pair = f"pair={r / 'saber-zerhoudi.txt'},{r / 'sean-macavaney.txt'}"
    _bad(["judgments", "--qrels", f"nist={d / 'qrels.txt'}", pair, "--reference", "nist", "--runs", *_runs(d)], tmp_path,
         "saber-zerhoudi.txt:861", "sean-macavaney.txt:861", "3167284", "1037798")
    # --on-conflict decides
    rc, so, err = _run(["judgments", "--qrels", f"nist={d / 'qrels.txt'}",
                        f"pair={r / 'saber-zerhoudi.txt'},{r / 'sean-macavaney.txt'}", "--on-conflict", "max",
                        "--reference", "nist", "--runs", *_runs(d), "--B", "20", "--no-figures",
                        "--out", str(tmp_path / "ok")])
    assert rc == 0, err


@pytest.mark.shared_data
def test_bad_no_common_topic(shared_data, tmp_path):
    d, r = _dl19(shared_data)
    other = tmp_path / "other.txt"
    other.write_text("1112341 0 D1 1\n1112341 0 D2 0\n")        # a DL19 query NIST did not judge
    _bad(["judgments", "--qrels", f"nist={d / 'qrels.txt'}", f"llm={other}", "--reference", "nist",
          "--runs", *_runs(d)], tmp_path, "nist", "llm", str(other), "in common")


@pytest.mark.shared_data
def test_bad_unknown_reference(shared_data, tmp_path):
    d, r = _dl19(shared_data)
    _bad(["judgments", "--qrels", f"nist={d / 'qrels.txt'}", f"first={_sets(r, FIRST)}", "--reference", "NIST",
          "--runs", *_runs(d)], tmp_path, "unknown reference 'NIST'", str(d / "qrels.txt"))


@pytest.mark.shared_data
def test_bad_results_missing_run(shared_data, tmp_path):
    d, r = _dl19(shared_data)
    res = tmp_path / "results"
    res.mkdir()
    rc, so, err = _run(["trec_eval", "-q", "-m", "map", str(d / "qrels.txt"), _runs(d)[0]])
    (res / f"{RUNS[0]}.txt").write_text(so)
    _bad(["judgments", "--qrels", f"nist={d / 'qrels.txt'}", "--results", f"llm={res}", "--reference", "nist",
          "--runs", *_runs(d, RUNS[:2]), "--metrics", "trec.map"], tmp_path, str(res), RUNS[1])


def test_bad_usage_exit_2(tmp_path):
    rc, so, err = _run(["judgments", "--qrels", "nist", "--reference", "nist", "--runs", "x", "--out",
                        str(tmp_path / "o")])
    assert rc == 2 and "NAME=VALUE" in err
    rc, so, err = _run(["judgments", "--qrels", "a=x", "--fill", "h=a", "--reference", "a", "--runs", "x",
                        "--out", str(tmp_path / "o")])
    assert rc == 2 and "BASE+FROM" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.shared_data
def test_api_equals_the_written_tables(shared_data, tmp_path):
    import metaeval
    from metaeval.report.csvio import read_table

    d, r = _dl19(shared_data)
    from metaeval.errors import InputWarning

    with pytest.warns(InputWarning, match="without a relevant document left out"):   # topic 855410 of second
        res = metaeval.judgments({"nist": str(d / "qrels.txt"), "second": _sets(r, SECOND).split(",")}, "nist",
                                 _runs(d), metrics=["nDCG@10"], B=30, out=tmp_path / "o", figures=False)
    for name, df in res.tables.items():
        back = read_table(tmp_path / "o" / "tables" / f"{name}.csv")
        assert list(back.columns) == list(df.columns)
        for c in df.columns:
            if pd.api.types.is_float_dtype(df[c]):
                np.testing.assert_array_equal(back[c].to_numpy(float), df[c].to_numpy(float), err_msg=c)
    # TREC input: nDCG@10 read as trec_eval's (issue 31's rule), its canonical name trec.ndcg_cut@10
    assert set(res.scores) == {"nist", "second"} and list(res.scores["nist"]) == ["trec.ndcg_cut@10"]


def test_trec_eval_names_map_to_the_registry():
    from metaeval.treceval.names import registry_name

    assert [registry_name(x) for x in ("map", "P_10", "ndcg_cut_10", "iprec_at_recall_0.10", "recip_rank")] == \
        ["trec.map", "trec.P@10", "trec.ndcg_cut@10", "trec.iprec_at_recall(recall=0.1)", "trec.recip_rank"]


@pytest.mark.slow
@pytest.mark.shared_data
def test_pipeline_example_has_one_judgments_job(shared_data, tmp_path):
    """config/examples/trec-dl19-assessors.yaml validates, and its DAG has one judgments job per
    collection with a `judgments:` block (the generic rule own_job_judgments), writing every declared
    judgments file."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    text = (root / "config" / "examples" / "trec-dl19-assessors.yaml").read_text()
    cfg = tmp_path / "config.yaml"
    cfg.write_text(text.replace("../shared/data", str(shared_data)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root / "src")] + [p for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p]))
    r = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"), "--directory", str(tmp_path),
                        "--configfile", str(cfg), "-n", "--summary"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300, env=env)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    rows = [ln.split("\t") for ln in r.stdout.splitlines() if "\t" in ln][1:]
    files = {row[0] for row in rows}
    want = {f"results/trec-dl19-assessors/judgments/{f}" for f in O.files("judgments")}
    assert want <= files, sorted(want - files)
    rules = {row[0]: row[2] for row in rows if len(row) > 2}
    assert {rules[f] for f in want} == {"own_job_judgments"}     # the generic rule of an own job
