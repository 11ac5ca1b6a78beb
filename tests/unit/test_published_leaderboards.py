"""Published data in, no friction out: ``metaeval judgments --results`` on leaderboards shaped as
published ones (SynDL's per-topic ``trec_eval -q`` files; synthetic, tests/_published_boards.py),
warnings one line per kind, the outputs that say something, each command's headline on stdout."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import _published_boards as PB
from metaeval.cli import main


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def boards(tmp_path) -> tuple[Path, Path]:
    return PB.write_boards(tmp_path / "boards")


def _argv(nist, syndl, out, *extra):
    return ["judgments", "--results", f"nist={nist}", f"syndl={syndl}", "--reference", "nist", "--out", out,
            "--B", "200", "--no-figures", *extra]


# ------------------------------------------------------------------ 1. leaderboards as published
def test_a_bad_file_is_one_error_naming_it_unless_skip_bad(boards, tmp_path):
    nist, syndl = boards
    rc, so, err = _run(_argv(nist, syndl, tmp_path / "out"))
    lines = err.strip().splitlines()
    assert rc == 1 and "Traceback" not in err, err
    assert lines[-1].startswith("metaeval: error: ") and "input.broken.ndcgeval" in lines[-1], err
    assert "empty leaderboard file" in lines[-1] and "--skip-bad" in lines[-1], err
    assert len([x for x in lines if "error" in x]) == 1
    assert not (tmp_path / "out").exists()


def test_published_leaderboards_compare_with_one_note_per_kind(boards, tmp_path):
    nist, syndl = boards
    out = tmp_path / "out"
    rc, so, err = _run(_argv(nist, syndl, out, "--skip-bad"))
    assert rc == 0, err
    ra = pd.read_csv(out / "tables" / "ranking_agreement.csv")
    # counters and text fields are no measures; P_1 (no common nonzero topic) and P_20 (syndl only) left out
    assert ra["metric"].tolist() == ["trec.map", "trec.P@10", "trec.ndcg_cut@10", "trec.recip_rank"]
    # tau of the run means on the common topics (syndl's all-zero topics are not among nist's)
    for m, printed in (("trec.map", "map"), ("trec.ndcg_cut@10", "ndcg_cut_10")):
        a = PB.read_means(nist, printed, PB.NIST_TOPICS)
        b = PB.read_means(syndl, printed, PB.NIST_TOPICS)
        row = ra[ra.metric == m].iloc[0]
        assert row["tau"] == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
        assert row["topics"] == 10 and row["topics_reference"] == 10 and row["runs"] == 8
    warn = [x for x in err.splitlines() if x.startswith("metaeval: warning:")]
    assert len(warn) == len(err.strip().splitlines()), err                # no summary repeating them
    assert sum("input.broken.ndcgeval" in x and "skipped" in x for x in warn) == 1, err
    zero = [x for x in warn if "every run scores 0" in x and "results syndl" in x]
    assert len(zero) == 1 and "1115, 1116" in zero[0], err                # one line, not one per measure
    assert sum("trec.P@1" in x and "no topic in common" in x for x in warn) == 1, err
    assert sum("trec.P@20" in x and "does not give" in x for x in warn) == 1, err
    gm = [x for x in warn if "trec.gm_map" in x]
    assert len(gm) == 1 and "also results syndl" in gm[0], err            # grouped across the sets
    assert not any("num_rel_ret" in x or "runid" in x for x in warn), err
    # no header-only output: leaderboards have no labels to agree on and no ranked documents to cover
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert not any(f.startswith(("tables/label_agreement", "judgments/coverage", "judgments/topic_agreement"))
                   for f in written), written
    for f in written:
        if f.endswith(".csv"):
            text = (out / f).read_text()
            assert len(text.splitlines()) > 1 and "<NA>" not in text, f
    # the headline on stdout: the tau of the first metric
    tau = ra.iloc[0]["tau"]
    assert f"syndl: Kendall's tau {tau:.4f}" in so and "trec.map" in so, so


def test_topics_own_gives_both_topic_counts(tmp_path):
    nist, syndl = PB.write_boards(tmp_path / "boards", empty=False)
    out = tmp_path / "out"
    rc, so, err = _run(_argv(nist, syndl, out, "--topic-set", "own"))
    assert rc == 0 and "Traceback" not in err, err
    ra = pd.read_csv(out / "tables" / "ranking_agreement.csv").set_index("metric")
    assert ra.loc["trec.map", "topics"] == 14 and ra.loc["trec.map", "topics_reference"] == 10
    # P_1: syndl over its 9 nonzero topics (11 less its two all-zero ones), nist over its 5
    assert ra.loc["trec.P@1", "topics"] == 9 and ra.loc["trec.P@1", "topics_reference"] == 5
    a = PB.read_means(nist, "map", PB.NIST_TOPICS)
    b = PB.read_means(syndl, "map", [t for t in PB.SYNDL_TOPICS if t not in PB.ZERO_TOPICS])
    assert ra.loc["trec.map", "tau"] == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
    da = pd.read_csv(out / "tables" / "decision_agreement.csv")
    assert set(da["metric"]) == set(ra.index) and (da["pairs"] == 28).all()


# ------------------------------------------------------------------ 2. one vocabulary of measure names
@pytest.mark.parametrize("spelled", ["trec.map", "map", "trec.ndcg_cut_10", "trec.ndcg_cut@10", "ndcg_cut_10"])
def test_metrics_by_any_name_of_the_vocabulary(tmp_path, spelled):
    nist, syndl = PB.write_boards(tmp_path / "boards", empty=False)
    out = tmp_path / "out"
    rc, so, err = _run(_argv(nist, syndl, out, "--metrics", spelled))
    assert rc == 0, err
    ra = pd.read_csv(out / "tables" / "ranking_agreement.csv")
    assert ra["metric"].tolist() == ["trec.map" if "map" in spelled else "trec.ndcg_cut@10"]


def test_a_counter_asked_for_is_refused_as_one(tmp_path):
    nist, syndl = PB.write_boards(tmp_path / "boards", empty=False)
    rc, so, err = _run(_argv(nist, syndl, tmp_path / "out", "--metrics", "trec.num_rel_ret"))
    assert rc == 1 and "not a measure" in err and "Traceback" not in err, err


# ------------------------------------------------------------------ hostile round, cause 10
def test_a_missing_run_topic_value_is_said(tmp_path):
    """A (run, topic) value missing from a leaderboard (trec_eval -q without -c) is scored 0 as
    trec_eval -c does -- and said, as the qrels path says it."""
    nist, syndl = PB.write_boards(tmp_path / "boards", drop=("p_run3", "1104"), empty=False)
    rc, so, err = _run(_argv(nist, syndl, tmp_path / "out"))
    assert rc == 0, err
    hole = [x for x in err.splitlines() if "missing where other runs give the topic" in x]
    assert len(hole) == 1 and "results syndl" in hole[0] and "p_run3" in hole[0] and "trec_eval -c" in hole[0], err
    rr = pd.read_csv(tmp_path / "out" / "tables" / "run_ranks.csv")
    got = rr[(rr.metric == "trec.map") & (rr.qrels == "syndl") & (rr.run == "p_run3")]["mean"].iloc[0]
    assert got == pytest.approx(PB.read_means(syndl, "map", PB.NIST_TOPICS)[3], abs=1e-12)


# ------------------------------------------------------------------ 3. warnings by kind
def _dl19_shaped(d: Path, runs: int = 37) -> tuple[Path, Path]:
    """The official DL19 case: 200 topics retrieved, 43 judged."""
    rng = np.random.default_rng(3)
    judged = [str(1000 + t) for t in range(0, 200, 200 // 43)][:43]
    q = [f"{t} 0 d{t}-{k} {int(rng.integers(0, 4)) if k else 3}" for t in judged for k in range(6)]
    (d / "runs").mkdir(parents=True)
    (d / "qrels.txt").write_text("\n".join(q) + "\n")
    for r in range(runs):
        lines = [f"{1000 + t} Q0 d{1000 + t}-{k} {i + 1} {20 - i} run{r:02d}"
                 for t in range(200) for i, k in enumerate(rng.permutation(6))]
        (d / "runs" / f"run{r:02d}.txt").write_text("\n".join(lines) + "\n")
    return d / "qrels.txt", d / "runs"


def test_one_warning_line_per_kind_not_per_run(tmp_path):
    qrels, runs = _dl19_shaped(tmp_path / "dl19")
    rc, so, err = _run(["matrices", "--qrels", qrels, "--runs", runs, "--metrics", "AP", "--out", tmp_path / "m",
                        "--quiet"])
    assert rc == 0, err
    lines = err.strip().splitlines()
    warn = [x for x in lines if x.startswith("metaeval: warning:")]
    assert len(warn) == 1, err                                           # one kind: one line, not 37
    assert "157" in warn[0] and "37 in all" in warn[0] and "run run00" in warn[0], warn
    assert len(lines) == 1, err                                          # never repeated in a summary


def test_reproducibility_names_runs_as_the_user_did_and_prints_on_stdout(tmp_path):
    qrels, runs = _dl19_shaped(tmp_path / "dl19", runs=4)
    r = sorted(runs.iterdir())
    rc, so, err = _run(["reproducibility", "--qrels", qrels, "--orig", r[0], r[1], "--rep", f"a={r[2]},{r[3]}",
                        "--out", tmp_path / "out", "--no-figures"])
    assert rc == 0, err
    assert "r00000" not in err and "run run00" in err, err
    assert so.startswith("metaeval reproducibility:") and "  a: Effect Ratio " in so, so
