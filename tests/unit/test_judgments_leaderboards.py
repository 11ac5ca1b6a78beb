"""``metaeval judgments`` beyond qrels and runs: leaderboards in every AutoJudge layout (and a CSV of
means) compared without runs, the correlations TREC's AutoJudge evaluation reports (against
autojudge-evaluate 1.1.0 on the same leaderboard files), the per-topic correlations (scipy), the
label overlap (scikit-learn), labels above the reference's scale, and label agreement alone."""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from metaeval.meta.judgments_run import run_judgments

RUNS = [f"run{i:02d}" for i in range(12)]
TOPICS = [f"{100 + t}" for t in range(8)]


@pytest.fixture
def nltk_data(tmp_path_factory, monkeypatch):
    """autojudge-base reads NLTK's English stopwords on import (and would download punkt)."""
    d = tmp_path_factory.mktemp("nltk")
    (d / "corpora" / "stopwords").mkdir(parents=True)
    (d / "corpora" / "stopwords" / "english").write_text("a\nthe\n")
    (d / "tokenizers" / "punkt").mkdir(parents=True)
    monkeypatch.setenv("NLTK_DATA", str(d))
    if "nltk" in sys.modules:
        import nltk

        monkeypatch.setattr(nltk.data, "path", [str(d), *nltk.data.path])
    return d


def _boards(seed: int):
    """Two leaderboards {measure: topics x runs}: values multiples of 1/8 on 8 topics (means exact,
    ties real), and a continuous measure (no ties)."""
    rng = np.random.default_rng(seed)
    q = rng.random(len(RUNS))
    out = {}
    for name, noise in (("truth", 0.2), ("judge", 0.35)):
        coarse = np.clip(np.round((q + noise * rng.standard_normal((8, len(RUNS)))) * 8) / 8, 0, 1)
        fine = np.clip(q + noise * rng.standard_normal((8, len(RUNS))), 0, 1)
        out[name] = {"coarse": coarse, "fine": fine}
    return out


def _write(boards, folder, fmt):
    """Write each leaderboard in layout ``fmt``; returns {name: path}."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, ms in boards.items():
        rows = [(r, t, m, float(M[i, j])) for m, M in ms.items() for j, r in enumerate(RUNS)
                for i, t in enumerate(TOPICS)]
        means = {(r, m): float(np.ascontiguousarray(M).mean(axis=0)[j]) for m, M in ms.items()
                 for j, r in enumerate(RUNS)}
        if fmt in ("trec_eval", "ir_measures_q"):
            d = folder / name
            d.mkdir()
            for r in RUNS:
                lines = [(f"{m}\t{t}\t{v!r}" if fmt == "trec_eval" else f"{t}\t{m}\t{v!r}")
                         for rr, t, m, v in rows if rr == r]
                if fmt == "trec_eval":
                    lines += [f"{m}\tall\t{means[(r, m)]!r}" for m in ms] + [f"runid\tall\t{r}"]
                (d / f"{r}.txt").write_text("\n".join(lines) + "\n")
            paths[name] = d
            continue
        p = folder / f"{name}.{ {'jsonl': 'jsonl', 'csv': 'csv'}.get(fmt, 'tsv')}"
        if fmt == "jsonl":
            text = "".join(json.dumps({"run_id": r, "topic_id": t, "measure": m, "value": v}) + "\n"
                           for r, t, m, v in rows)
        elif fmt == "ranking":
            text = "".join(f"{t} Q0 {r} 0 {v!r} {m}\n" for r, t, m, v in rows)
        elif fmt == "csv":
            text = "run,measure,value\n" + "".join(f"{r},{m},{v!r}\n" for (r, m), v in means.items())
        else:
            order = {"ir_measures": (0, 1, 2, 3), "tot": (0, 2, 1, 3), "rag4reports": (1, 0, 2, 3)}[fmt]
            full = rows + [(r, "all", m, v) for (r, m), v in means.items()]
            text = "".join("\t".join(str(x) if k < 3 else repr(x) for k, x in ((k, row[k]) for k in order)) + "\n"
                           for row in full)
        p.write_text(text)
        paths[name] = p
    return paths


def _judge(paths, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_judgments(None, "truth", None, results={k: str(v) for k, v in paths.items()}, B=20, top_k=5,
                             **kw)


MEAN_COLUMNS = ["metric", "qrels", "runs", "tau", "tau_b", "tau_ap", "rbo", "tau_top", "max_rank_change", "pearson",
                "spearman", "tau_ap_b", "tau_gap"]


@pytest.mark.parametrize("seed", [0, 1])
def test_correlations_equal_autojudge_evaluate(seed, tmp_path, nltk_data):
    """pearson, spearman, tau_b, tau_ap_b, tau_gap (and tau_top where the means have no ties) are
    autojudge-evaluate 1.1.0's correlation / tauap_b / tau_gap / kendall@k on the same files."""
    paths = _write(_boards(seed), tmp_path / "b", "ir_measures")
    ra = _judge(paths).tables["ranking_agreement"].set_index("metric")
    from autojudge_evaluate.evaluation import LeaderboardEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = LeaderboardEvaluator(paths["truth"], truth_format="ir_measures", eval_format="ir_measures",
                                  correlation_methods=["kendall", "pearson", "spearman", "tauap_b", "tau_gap",
                                                       "kendall@5"]).evaluate(paths["judge"])
    for m in ("coarse", "fine"):
        want = ev[(m, m)]
        row = ra.loc[m]
        for ours, theirs in (("tau_b", "kendall"), ("pearson", "pearson"), ("spearman", "spearman"),
                             ("tau_ap_b", "tauap_b"), ("tau_gap", "tau_gap")):
            assert row[ours] == pytest.approx(want[theirs], abs=1e-12), (m, ours)
        if m == "fine":
            assert row["tau_top"] == pytest.approx(want["kendall@5"], abs=1e-12)
            assert row["tau"] == pytest.approx(want["kendall"], abs=1e-12)


@pytest.fixture(scope="module")
def ir_measures_result(tmp_path_factory):
    return _judge(_write(_boards(3), tmp_path_factory.mktemp("irm"), "ir_measures"))


@pytest.mark.parametrize("fmt", ["trec_eval", "ir_measures_q", "tot", "rag4reports", "ranking", "jsonl", "csv"])
def test_every_layout_gives_the_same_rows(fmt, tmp_path, ir_measures_result):
    """Every layout of the same leaderboards gives ir_measures' rows; a CSV of means the same
    mean-based columns, its topic statistics empty."""
    ref = ir_measures_result
    got = _judge(_write(_boards(3), tmp_path / "b", fmt))
    a, b = ref.tables["ranking_agreement"], got.tables["ranking_agreement"]
    pd.testing.assert_frame_equal(a[MEAN_COLUMNS], b[MEAN_COLUMNS])
    if fmt == "csv":
        assert b["tau_ci_low"].isna().all() and b["topics"].isna().all()
        assert got.tables["topic_ranking_agreement"].empty and got.tables["decision_agreement"].empty
        assert any("means only" in n for n in got.notes)
    else:
        pd.testing.assert_frame_equal(a, b)
        pd.testing.assert_frame_equal(ref.tables["topic_ranking_agreement"], got.tables["topic_ranking_agreement"])
        pd.testing.assert_frame_equal(ref.tables["decision_agreement"], got.tables["decision_agreement"])


def test_topic_correlations_equal_scipy(tmp_path):
    from scipy import stats

    boards = _boards(4)
    tr = _judge(_write(boards, tmp_path / "a", "ir_measures")).tables["topic_ranking_agreement"]
    assert len(tr) == 2 * len(TOPICS)
    for rec in tr.to_dict("records"):
        i = TOPICS.index(rec["topic"])
        x, y = boards["truth"][rec["metric"]][i], boards["judge"][rec["metric"]][i]
        n = len(x)
        ta = sum(np.sign(x[j] - x[k]) * np.sign(y[j] - y[k]) for j in range(n) for k in range(j + 1, n)) / (n * (n - 1) / 2)
        assert rec["tau"] == pytest.approx(ta, abs=1e-12)
        assert rec["tau_b"] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
        assert rec["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
        assert rec["spearman"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
        assert rec["runs"] == len(RUNS) and rec["reference"] == "truth" and rec["qrels"] == "judge"


def _qrels(tmp_path, S=3, T=6, D=12, seed=0, top=3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, top + 1, (T, D))
    sets = {}
    for s in range(S):
        lab = np.clip(truth + rng.integers(-1, 2, (T, D)), 0, top)
        judged = rng.random((T, D)) < (1.0 if s == 0 else 0.85)
        p = tmp_path / f"q{s}.txt"
        p.write_text("".join(f"{t} 0 d{t}_{k} {lab[t, k]}\n" for t in range(T) for k in range(D) if judged[t, k]))
        sets[f"q{s}"] = str(p)
    return sets


def test_label_overlap_equals_sklearn(tmp_path):
    from sklearn.metrics import (
        adjusted_rand_score,
        f1_score,
        jaccard_score,
        precision_score,
        recall_score,
    )

    from metaeval.io.judgments import read_sets

    sets = _qrels(tmp_path, S=4)
    js = read_sets(sets)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        la = run_judgments(sets, "q2", None).tables["label_agreement"]
    for rec in la[la["qrels_a"] != "all"].to_dict("records"):
        a, b = js.labels[js.index(rec["qrels_a"])], js.labels[js.index(rec["qrels_b"])]
        both = (a >= 0) & (b >= 0)
        truth, pred = (b, a) if rec["qrels_b"] == "q2" else (a, b)
        t, p = truth[both] >= 2, pred[both] >= 2
        kw = {"zero_division": np.nan}
        assert rec["precision"] == pytest.approx(precision_score(t, p, **kw), abs=1e-15)
        assert rec["recall"] == pytest.approx(recall_score(t, p, **kw), abs=1e-15)
        assert rec["f1"] == pytest.approx(f1_score(t, p, **kw), abs=1e-15)
        assert rec["jaccard"] == pytest.approx(jaccard_score(t, p), abs=1e-15)
        assert rec["ari"] == pytest.approx(adjusted_rand_score(a[both], b[both]), abs=1e-15)
    from metaeval.meta.judgments import adjusted_rand, overlap

    assert adjusted_rand(np.array([[[5, 0], [0, 0]]]))[0] == adjusted_rand_score([0] * 5, [0] * 5) == 1.0
    assert np.isnan(overlap(np.array([[[5, 0], [0, 0]]]), [True])["precision"][0])


def test_labels_above_the_scale_warn_and_clip(tmp_path):
    sets = _qrels(tmp_path, S=2)
    p = tmp_path / "q1.txt"
    lines = p.read_text().splitlines()
    lines[:3] = [ln.rsplit(" ", 1)[0] + " 5" for ln in lines[:3]]
    p.write_text("\n".join(lines) + "\n")
    with pytest.warns(UserWarning, match=r"qrels set q1 .*3 label\(s\) above the reference q0's highest level 3"):
        res = run_judgments(sets, "q0", None)
    assert res.tables["label_agreement"]["pairs"].iloc[0] > 0
    clipped = tmp_path / "c.txt"
    clipped.write_text("\n".join(ln.rsplit(" ", 1)[0] + " 3" if ln.endswith(" 5") else ln for ln in lines) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = run_judgments(sets, "q0", None, clip=True).tables["label_agreement"]
        b = run_judgments({"q0": sets["q0"], "q1": str(clipped)}, "q0", None).tables["label_agreement"]
    pd.testing.assert_frame_equal(a, b)


def test_label_agreement_alone_many_sets_and_one_run(tmp_path):
    """33 label sets without runs (several NAME=PATH after one --qrels); one run: label agreement
    and coverage, no ranking."""
    from metaeval.cli import main

    sets = _qrels(tmp_path, S=33, T=3, D=6)
    out = tmp_path / "o"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["judgments", "--qrels", *[f"{k}={v}" for k, v in sets.items()], "--reference", "q0", "--quiet",
                   "--no-figures", "--out", str(out)])
    assert rc == 0
    la = pd.read_csv(out / "tables" / "label_agreement.csv")
    assert len(la) == 33 * 32 // 2 + 1
    # no ranking of runs: its tables and figures are not written (never a header-only file)
    assert not (out / "tables" / "ranking_agreement.csv").exists()
    assert not (out / "tables" / "decision_agreement.csv").exists()
    run = tmp_path / "r.run"
    run.write_text("".join(f"{t} Q0 d{t}_{k} {k + 1} {10 - k} r\n" for t in range(3) for k in range(5)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run_judgments({k: sets[k] for k in ("q0", "q1")}, "q0", [str(run)])
    assert len(res.tables["label_agreement"]) == 2 and res.tables["ranking_agreement"].empty
    assert res.coverage["run"].tolist().count("r") == 2 and any("1 run given" in n for n in res.notes)


def _cli(argv):
    import contextlib
    import io

    from metaeval.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def test_cli_leaderboards_with_labels(tmp_path):
    """Several NAME=PATH after one --results; --labels names sets and measures in Markdown and
    figures, the CSV keep the names; the summary line gives the mean per-topic tau."""
    paths = _write(_boards(5), tmp_path / "b", "ir_measures")
    labels = tmp_path / "labels.txt"
    labels.write_text("judge LLM-judge\ncoarse nDCG-coarse\n")
    out = tmp_path / "o"
    rc, so, err = _cli(["judgments", "--results", f"truth={paths['truth']}", f"judge={paths['judge']}",
                        "--reference", "truth", "--labels", str(labels), "--B", "20", "--no-figures", "--out", str(out)])
    assert rc == 0, err
    assert "mean per-topic tau" in so
    md = (out / "tables" / "ranking_agreement.md").read_text()
    assert "LLM-judge" in md and "nDCG-coarse" in md
    csv = pd.read_csv(out / "tables" / "ranking_agreement.csv")
    assert set(csv["qrels"]) == {"judge"} and set(csv["metric"]) == {"coarse", "fine"}
    assert (out / "tables" / "topic_ranking_agreement.csv").is_file()


def test_bad_leaderboards_one_line_exit_1(tmp_path):
    paths = _write(_boards(6), tmp_path / "b", "ir_measures")
    bad = tmp_path / "bad.tsv"
    lines = paths["judge"].read_text().splitlines()
    lines[4] = lines[4].rsplit("\t", 1)[0] + "\tn/a"
    bad.write_text("\n".join(lines) + "\n")
    dup = tmp_path / "dup.tsv"
    dup.write_text(paths["judge"].read_text() + paths["judge"].read_text().splitlines()[0] + "\n")
    missing = tmp_path / "missing.tsv"
    missing.write_text("".join(ln + "\n" for ln in paths["judge"].read_text().splitlines() if not ln.startswith("run03\t")))
    qrels = tmp_path / "q.txt"
    qrels.write_text("100 0 d1 1\n")
    for argv, needles in (
            (["--results", f"truth={paths['truth']}", f"judge={bad}"], [f"{bad}:5", "'n/a' is not a number"]),
            (["--results", f"truth={paths['truth']}", f"judge={dup}"], [str(dup), "given twice"]),
            (["--results", f"truth={paths['truth']}", f"judge={missing}"], ["judge", "run03"]),
            (["--qrels", f"truth={qrels}", "--results", f"judge={paths['judge']}"], ["without --runs"])):
        out = tmp_path / "o"
        rc, so, err = _cli(["judgments", *argv, "--reference", "truth", "--B", "20", "--out", str(out)])
        lines_err = [x for x in err.splitlines() if x.startswith("metaeval: error:")]
        assert rc == 1 and len(lines_err) == 1, err
        for n in needles:
            assert n in lines_err[0], lines_err[0]
        assert not out.exists()
