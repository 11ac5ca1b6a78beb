"""One name per measure: defaults dropped, a key given twice rejected, aliases merged, and two
spellings of one measure computed once (with a warning) by `metaeval matrices`, `metaeval evaluate`
and the pipeline's config handling."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pytest

import metaeval.metrics  # noqa: F401  (registers the measures)
from metaeval.cli import main
from metaeval.errors import InputWarning
from metaeval.metrics.registry import ALIASES, REGISTRY, parse_measure, unique_measures

from conftest import ROOT


@pytest.mark.parametrize("spelled,canonical", [
    ("Q-measure(beta=1)", "Q-measure"),
    ("Q-measure(beta=1.0)", "Q-measure"),
    ("Q-measure(beta=0.5)", "Q-measure(beta=0.5)"),
    ("nDCG(logb=2)@10", "nDCG@10"),
    ("NCUrb,P(gamma=0.95)@10", "NCUrb,P@10"),
    ("RBP(persistence=0.95)", "RBP"),
    ("P-plus(beta=1,gains=10:20:30)", "P-plus(gains=10:20:30)"),
    ("kishida-vD(b=2)@10", "kishida-vD@10"),
])
def test_parameters_at_their_default_are_dropped(spelled, canonical):
    assert parse_measure(spelled).name == canonical
    assert parse_measure(canonical).name == canonical            # canonical names are fixed points


@pytest.mark.parametrize("text", ["Q-measure(beta=1,beta=2)", "Q-measure(beta=1, beta=1)",
                                  "P-plus(gains=1:2,gains=1:2)"])
def test_a_key_given_twice_is_an_error(text):
    with pytest.raises(ValueError, match="given twice"):
        parse_measure(text)


@pytest.mark.parametrize("alias,canonical", [
    ("Q", "Q-measure"), ("Q(beta=1)", "Q-measure"), ("Q(beta=0.5)", "Q-measure(beta=0.5)"),
    ("PDoc@1000", "Prec@1000"), ("P@10", "Prec@10"), ("MAP", "AP"), ("MAP@10", "AP@10"), ("MRR", "RR"),
    ("Rprec", "R-prec"),
])
def test_aliases_resolve_to_the_canonical_measure(alias, canonical):
    assert parse_measure(alias) == parse_measure(canonical)
    assert parse_measure(alias).name == canonical


def test_q_with_a_cutoff_stays_ntcirevals_q_at_l():
    assert parse_measure("Q@10").name == "Q@10" != parse_measure("Q-measure").name
    for alias, (target, _) in ALIASES.items():
        assert target in REGISTRY, alias


def test_unique_measures_merges_spellings_with_a_warning():
    with pytest.warns(InputWarning) as rec:
        got = unique_measures(["Q", "AP", "Q-measure(beta=1)", "MAP", "nDCG@10"], where="metrics")
    assert [m.name for m in got] == ["Q-measure", "AP", "nDCG@10"]
    msgs = [str(w.message) for w in rec]
    assert len(msgs) == 2
    assert msgs[0] == ("metrics: 'Q-measure(beta=1)' is the same measure as 'Q' (canonical name "
                       "Q-measure); computed once")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(unique_measures(["AP", "Q-measure"])) == 2          # no warning without a duplicate


def _toy_collection(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 a 1\n2 0 d 0\n")
    r = tmp_path / "runs"
    r.mkdir()
    (r / "x.run").write_text("1 Q0 c 1 3 x\n1 Q0 a 2 2 x\n1 Q0 b 3 1 x\n2 Q0 a 1 5 x\n")
    (r / "y.run").write_text("1 Q0 a 1 3 y\n1 Q0 b 2 2 y\n2 Q0 d 1 5 y\n2 Q0 a 2 4 y\n")
    return q, r


def test_matrices_writes_one_matrix_for_two_spellings(tmp_path, capsys):
    q, r = _toy_collection(tmp_path)
    out = tmp_path / "m"
    assert main(["matrices", "--qrels", str(q), "--runs", str(r), "--out", str(out), "--quiet",
                 "--metrics", "Q", "Q-measure(beta=1)", "PDoc@2", "Prec@2", "AP"]) == 0
    err = capsys.readouterr().err
    assert sorted(p.name for p in out.glob("*.csv")) == ["AP.csv", "Prec@2.csv", "Q-measure.csv", "topics.csv"]
    # once each, at the end of the command (two kinds: two lines; never repeated in a summary)
    assert sum(ln.startswith("metaeval: warning:") and "is the same measure as" in ln for ln in err.splitlines()) == 2
    assert "metaeval: warning: --metrics: 'Q-measure(beta=1)' is the same measure as 'Q'" in err


def test_evaluate_cli_prints_one_line_per_measure(tmp_path, capsys):
    q, r = _toy_collection(tmp_path)
    assert main(["evaluate", "--qrels", str(q), "--runs", str(r / "x.run"), "--metrics", "MAP", "AP"]) == 0
    out = capsys.readouterr()
    assert [ln.split()[1] for ln in out.out.splitlines() if ln.startswith("ALL")] == ["AP="]
    assert "same measure" in out.err


def test_pipeline_config_dedups_after_canonicalisation(tmp_path):
    """common.smk: the config's metric list canonicalised, each measure once, with a warning."""
    q, r = _toy_collection(tmp_path)
    cfg = {"collections": {"toy": {"qrels": str(q), "runs": str(r), "gains": "1:2", "top_runs": None}},
           "metrics": ["AP", "Q", "Q-measure", "Q-measure(beta=1)", "PDoc@2", "Prec@2"],
           "geometric": ["MAP"], "select_by": "MAP", "kishida": {"enabled": False},
           "summary": {"enabled": False}, "sweeps": {"gains": {"enabled": False}}}
    (tmp_path / "c.yaml").write_text(json.dumps(cfg))
    res = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-n", "-p",
                          "--configfile", str(tmp_path / "c.yaml"), "--directory", str(tmp_path)],
                         capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT / "src")})
    text = res.stdout + res.stderr
    assert res.returncode == 0, text[-3000:]
    assert text.count("is the same measure as") == 3, text[-3000:]
    assert "matrices/Q-measure.csv" in text and "matrices/Prec@2.csv" in text
    assert "PDoc@2.csv" not in text and "matrices/Q.csv" not in text
    # every stage job is given the canonical names (select_by MAP -> AP, geometric MAP -> AP)
    assert "--select-by AP" in text and "--geometric AP" in text and "MAP" not in text.replace("'MAP'", "")


def test_aliases_find_their_matrix_in_meta_stage_compare_and_the_api(tmp_path, capsys):
    """A measure name given to `metaeval meta`, `metaeval stage`, `metaeval compare --matrices`,
    metaeval.meta_evaluate and metaeval.compare resolves aliases as `metaeval matrices` does
    (PDoc@1000 finds Prec@1000.csv, MAP finds AP.csv, Q finds Q-measure.csv), AG_/G_ kept; the
    results are those of the canonical names, byte for byte."""
    import pandas as pd

    import metaeval
    from metaeval.meta.matrices import load_matrices, matrix_for
    from test_meta_cli import write_matrices

    mats = write_matrices(tmp_path / "m", metrics=("AP", "Prec@1000", "Q-measure"))
    assert matrix_for("PDoc@1000", {"Prec@1000"}) == "Prec@1000"
    assert matrix_for("AG_MAP", {"AP"}) == "AG_AP" and matrix_for("G_Q", {"Q-measure"}) == "G_Q-measure"
    assert matrix_for("P@10", {"P@10", "Prec@10"}) == "P@10"          # a file's own name wins
    assert matrix_for("nonsense(", {"AP"}) == "nonsense("               # left for the caller to report
    opts = ["--B", "60", "--rthsd-B", "60", "--seed", "3", "--top-runs", "6", "--fuzziness", "0.05",
            "--sweep-metrics", "--quiet"]
    canonical = ["--metrics", "AP", "Prec@1000", "Q-measure", "--geometric", "AP", "--select-by", "AP"]
    aliases = ["--metrics", "MAP", "PDoc@1000", "Q", "--geometric", "MAP", "--select-by", "MAP"]
    for name, args in (("c", canonical), ("a", aliases)):
        assert main(["meta", "--matrices", str(mats), "--out", str(tmp_path / name), "--no-figures",
                     *args, *opts]) == 0, capsys.readouterr().err
        assert main(["stage", "kendall", "--matrices", str(mats), "--out", str(tmp_path / f"k{name}"),
                     *args, *opts]) == 0, capsys.readouterr().err
        assert main(["stage", "select_runs", "--matrices", str(mats), "--out", str(tmp_path / f"{name}.csv"),
                     *args[-2:], "--top-runs", "6"]) == 0, capsys.readouterr().err
        assert main(["compare", "--matrices", str(mats), "--metrics", *args[1:4], "--baseline", "run00",
                     "--out", str(tmp_path / f"cmp{name}")]) == 0, capsys.readouterr().err
    tables = sorted(p.name for p in (tmp_path / "c" / "tables").iterdir())
    assert "kendall.csv" in tables and "bootstrap_paired.csv" in tables
    for f in tables:
        assert (tmp_path / "a" / "tables" / f).read_bytes() == (tmp_path / "c" / "tables" / f).read_bytes(), f
    assert "Prec@1000" in (tmp_path / "a" / "tables" / "kendall.csv").read_text()
    assert (tmp_path / "ka" / "kendall.csv").read_bytes() == (tmp_path / "kc" / "kendall.csv").read_bytes()
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "c.csv").read_bytes()
    assert (tmp_path / "cmpa" / "compare.csv").read_bytes() == (tmp_path / "cmpc" / "compare.csv").read_bytes()
    # the Python API
    scores = load_matrices(mats)
    kw = dict(B=60, rthsd_B=60, seed=3, top_runs=6, fuzziness=(0.05,), sweep_metrics=())
    a = metaeval.meta_evaluate(scores, metrics=["MAP", "PDoc@1000", "Q"], geometric=("MAP",),
                               select_by="MAP", **kw)
    c = metaeval.meta_evaluate(scores, metrics=["AP", "Prec@1000", "Q-measure"], geometric=("AP",), **kw)
    for t in ("kendall", "bootstrap_paired", "swap", "run_means"):
        pd.testing.assert_frame_equal(a[t], c[t])
    pd.testing.assert_frame_equal(metaeval.compare(scores, baseline="run00", metrics=["PDoc@1000", "Q"]),
                                  metaeval.compare(scores, baseline="run00", metrics=["Prec@1000", "Q-measure"]))
