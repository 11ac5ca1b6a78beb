"""Prediction-powered intervals (``metaeval ppi``): each estimator equals ppi_py 0.2.3 on random and real
vectors, vectorised over runs equals a per-run loop, the pairs are the estimators on per-topic
differences, the budget table equals a literal loop, coverage on a simulated biased judge, and bad
input -- one line naming the file and the topic, exit 1, nothing written."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pandas as pd
import pytest

from metaeval import outputs as O
from metaeval.cli import main
from metaeval.meta import ppi as P

ppi_py = pytest.importorskip("ppi_py")


def _oracle(Y, Yh, Yu, alpha):
    """``(4, 3)``: mean, low, high of human, judge, ppi (lambda 1), ppi++ by ppi_py, one run."""
    out = []
    lo, hi = ppi_py.classical_mean_ci(Y, alpha=alpha)
    out.append((Y.mean(), lo, hi))
    a = np.concatenate([Yh, Yu])
    lo, hi = ppi_py.classical_mean_ci(a, alpha=alpha)
    out.append((a.mean(), lo, hi))
    for lam in (1, None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = ppi_py.ppi_mean_pointestimate(Y, Yh, Yu, lam=lam)
            lo, hi = ppi_py.ppi_mean_ci(Y, Yh, Yu, alpha=alpha, lam=lam)
        out.append(tuple(float(np.ravel(v)[0]) for v in (m, lo, hi)))
    return np.array(out, dtype=float)


def _mine(iv, r):
    return np.stack([iv.mean[:, r], iv.low[:, r], iv.high[:, r]], axis=1)


@pytest.mark.parametrize("n,N,R,alpha,seed", [(2, 3, 3, 0.05, 0), (10, 40, 5, 0.1, 1), (25, 7, 4, 0.01, 2),
                                              (50, 400, 3, 0.05, 3)])
def test_estimators_equal_ppi_py_on_random_vectors(n, N, R, alpha, seed):
    rng = np.random.default_rng(seed)
    Y = rng.random((n, R))
    Yh = np.clip(0.6 * Y + rng.normal(0.15, 0.2, (n, R)), 0, 1)
    Yu = rng.beta(2, 3, (N, R))
    iv = P.estimate(Y, Yh, Yu, alpha)
    for r in range(R):
        np.testing.assert_allclose(_mine(iv, r), _oracle(Y[:, r], Yh[:, r], Yu[:, r], alpha), rtol=0, atol=1e-9)
    # lambda of ppi++ is clipped to [0, 1] as ppi_py clips it: an anti-correlated judge gets 0
    iv = P.estimate(Y, 1 - Y, Yu, alpha)
    assert (iv.lam[3] == 0).all()
    np.testing.assert_allclose(iv.mean[3], iv.mean[0], rtol=0, atol=1e-15)


def test_vectorised_over_runs_and_trials_equals_a_per_run_loop():
    rng = np.random.default_rng(7)
    Y, Yh, Yu = rng.random((3, 12, 6)), rng.random((3, 12, 6)), rng.random((3, 30, 6))
    iv = P.estimate(Y, Yh, Yu, 0.05)
    for t in range(3):
        for r in range(6):
            one = P.estimate(Y[t, :, r], Yh[t, :, r], Yu[t, :, r], 0.05)
            for a, b in zip((iv.mean, iv.low, iv.high, iv.lam), (one.mean, one.low, one.high, one.lam)):
                np.testing.assert_array_equal(a[:, t, r], b)


def test_pairs_are_the_estimators_on_differences():
    rng = np.random.default_rng(3)
    Y, Yh, Yu = rng.random((15, 4)), rng.random((15, 4)), rng.random((20, 4))
    df = P.pairs_table("AP", list("abcd"), Y, Yh, Yu, 0.05)
    assert list(df.columns) == list(P.PAIRS_COLUMNS) and len(df) == 6 * 4
    row = df[(df.run == "b") & (df.other == "d")]
    assert list(row.estimator) == list(P.ESTIMATORS)
    exp = _oracle(Y[:, 1] - Y[:, 3], Yh[:, 1] - Yh[:, 3], Yu[:, 1] - Yu[:, 3], 0.05)
    np.testing.assert_allclose(row[["diff", "ci_low", "ci_high"]].to_numpy(float), exp, rtol=0, atol=1e-9)
    assert (row.significant.to_numpy() == ((exp[:, 1] > 0) | (exp[:, 2] < 0))).all()


def test_budget_equals_a_literal_loop(monkeypatch):
    rng = np.random.default_rng(5)
    J, A, R = 14, 11, 4                     # the judge's topics; the first A are human topics too
    Yh_all = rng.random((J, R))
    Yd = np.clip(Yh_all[:A] + rng.normal(-0.1, 0.15, (A, R)), 0, 1)
    target = Yd.mean(axis=0) + 0.01
    sizes, T, seed, alpha = (3, 6), 25, 11, 0.1
    monkeypatch.setattr(P, "_CHUNK", 40)          # several chunks of trials: the same numbers
    got = P.budget_table("m", Yd, Yh_all[:A], Yh_all, target, sizes, T, seed, alpha)
    assert list(got.columns) == list(P.BUDGET_COLUMNS)
    rows = []
    for n in sizes:
        idx = P.budget_sets(A, n, T, seed)
        assert idx.shape == (T, n) and all(len(set(r)) == n for r in idx.tolist())
        cover = np.zeros((4, T))
        width = np.zeros((4, T))
        for t in range(T):
            L = idx[t].tolist()
            U = [k for k in range(J) if k not in L]
            for r in range(R):
                o = _oracle(Yd[L, r], Yh_all[L, r], Yh_all[U, r], alpha)
                cover[:, t] += (o[:, 1] <= target[r]) & (target[r] <= o[:, 2])
                width[:, t] += o[:, 2] - o[:, 1]
        cover /= R
        width /= R
        for e, name in enumerate(P.ESTIMATORS):
            eq = n * (width[0].mean() / width[e].mean()) ** 2          # as narrow from human topics alone
            rows.append(("m", name, n, T, cover[e].mean(), cover[e].std(ddof=1) / np.sqrt(T), width[e].mean(),
                         eq, eq - n))
    exp = pd.DataFrame(rows, columns=list(P.BUDGET_COLUMNS))
    pd.testing.assert_frame_equal(got[["metric", "estimator", "labelled", "trials", "coverage"]],
                                  exp[["metric", "estimator", "labelled", "trials", "coverage"]])
    np.testing.assert_allclose(got[["coverage_se", "mean_width"]].to_numpy(float),
                               exp[["coverage_se", "mean_width"]].to_numpy(float), rtol=0, atol=1e-9)
    np.testing.assert_allclose(got[["human_only_topics", "topics_saved"]].to_numpy(float),
                               exp[["human_only_topics", "topics_saved"]].to_numpy(float), rtol=1e-9, atol=0)
    human = got[got.estimator == "human"]
    assert (human["human_only_topics"] == human["labelled"]).all() and (human["topics_saved"] == 0).all()
    # the first trials do not depend on how many are drawn
    np.testing.assert_array_equal(P.budget_sets(A, 3, 10, seed), P.budget_sets(A, 3, T, seed)[:10])


def test_coverage_on_a_simulated_biased_judge():
    """A judge that overrates every topic by 0.1 with noise: at 20 labelled topics the ppi interval
    covers the human mean about 1 - alpha of the time, the judge-only interval far less."""
    rng = np.random.default_rng(2024)
    J, R = 200, 5
    Y = rng.beta(2, 3, (J, R)) * np.linspace(0.6, 1.0, R)
    Yh = np.clip(Y + 0.1 + rng.normal(0, 0.15, (J, R)), 0, 1)
    T = 2000
    df = P.budget_table("AP", Y, Yh, Yh, Y.mean(axis=0), [20], T, 1, 0.05).set_index("estimator")
    mc = 3 * np.sqrt(0.95 * 0.05 / T)             # Monte Carlo error of a coverage of 0.95 from T trials
    assert abs(df.loc["ppi", "coverage"] - 0.95) < mc + 0.01, df
    assert abs(df.loc["human", "coverage"] - 0.95) < mc + 0.02, df
    assert df.loc["judge", "coverage"] < 0.5, df
    assert df.loc["ppi++", "mean_width"] <= df.loc["human", "mean_width"] + 1e-12


# ------------------------------------------------------------------------------ files and the command
def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


@pytest.fixture
def toy(tmp_path):
    """8 topics, 3 runs of 4 documents; the human judges topics 1-6, the judge (two files) 1-8."""
    rng = np.random.default_rng(0)
    docs = [f"d{i}" for i in range(6)]
    human, judge_a, judge_b, runs = [], [], [], {f"r{k}": [] for k in range(3)}
    for t in range(1, 9):
        lv = rng.integers(0, 3, len(docs))
        lv[t % len(docs)] = 2
        jl = np.clip(lv + rng.integers(-1, 2, len(docs)), 0, 2)
        for d, a, b in zip(docs, lv, jl):
            if t <= 6:
                human.append(f"{t} 0 {d} {a}")
            (judge_a if t <= 4 else judge_b).append(f"{t} 0 {d} {b}")
        for k, name in enumerate(runs):
            order = rng.permutation(len(docs))[:4]
            runs[name] += [f"{t} Q0 {docs[i]} {r + 1} {10 - r} {name}" for r, i in enumerate(order)]
    rd = tmp_path / "runs"
    rd.mkdir()
    for name, lines in runs.items():
        _write(rd / f"{name}.txt", lines)
    return {"qrels": _write(tmp_path / "human.txt", human), "judge": [_write(tmp_path / "ja.txt", judge_a),
            _write(tmp_path / "jb.txt", judge_b)], "runs": str(rd), "tmp": tmp_path}


def _argv(toy, out, *extra):
    return ["ppi", "--qrels", toy["qrels"], "--judge", *toy["judge"], "--runs", toy["runs"], "--metrics", "AP",
            "nDCG@10", "--out", str(out), "--order", "file", *extra]


def test_command_writes_the_declared_files_and_equals_the_api(toy):
    import metaeval

    out = toy["tmp"] / "out"
    lab = _write(toy["tmp"] / "lab.txt", ["# labelled", "2", "3", "5"])
    rc, so, err = _run(_argv(toy, out, "--labelled-topics", lab, "--sizes", "2,4", "--trials", "30", "--seed", "3"))
    assert rc == 0, err
    for f in O.files("ppi"):
        assert (out / f).is_file(), f
    for o in O.tables("ppi"):
        df = pd.read_csv(out / "tables" / f"{o.name}.csv")
        assert tuple(df.columns) == o.columns
    res = metaeval.ppi(toy["qrels"], toy["judge"], toy["runs"], metrics=["AP", "nDCG@10"], labelled_topics=lab,
                       sizes=[2, 4], trials=30, seed=3, order="file")
    assert res.labelled == ["2", "3", "5"] and res.unlabelled == ["1", "4", "6", "7", "8"]
    means = pd.read_csv(out / "tables" / "ppi_means.csv")
    np.testing.assert_allclose(means["mean"].to_numpy(float), res.means["mean"].to_numpy(float), rtol=1e-12)
    # real per-topic scores: each row equals ppi_py on the run's vectors
    for m, (H, Jd) in res.scores.items():
        for run in res.runs:
            exp = _oracle(H.loc[res.labelled, run].to_numpy(), Jd.loc[res.labelled, run].to_numpy(),
                          Jd.loc[res.unlabelled, run].to_numpy(), 0.05)
            got = res.means[(res.means.metric == m) & (res.means.run == run)]
            np.testing.assert_allclose(got[["mean", "ci_low", "ci_high"]].to_numpy(float), exp, rtol=0, atol=1e-9)
    assert "Angelopoulos" in (out / "tables" / "ppi_means.md").read_text()


@pytest.mark.parametrize("case,where,topic", [
    ("judge_missing", "human.txt", None), ("no_human", "lab.txt", "7"), ("one", "lab.txt", "2")])
def test_bad_input_one_line_exit_1_nothing_written(toy, case, where, topic):
    out = toy["tmp"] / "out"
    if case == "judge_missing":              # the judge's second file lacks topics 5-8
        argv = ["ppi", "--qrels", toy["qrels"], "--judge", toy["judge"][0], "--runs", toy["runs"], "--out", str(out),
                "--order", "file"]
        where, topic = "ja.txt", "5"
    else:
        lab = _write(toy["tmp"] / "lab.txt", ["2", "7"] if case == "no_human" else ["2"])
        argv = _argv(toy, out, "--labelled-topics", lab)
    rc, so, err = _run(argv)
    lines = [x for x in err.splitlines() if "error" in x]
    assert rc == 1, err
    assert len(lines) == 1 and where in lines[0] and f"topic {topic}" in lines[0], err
    assert not out.exists()


@pytest.mark.shared_data
def test_real_vectors_dl19(shared_data):
    d = shared_data / "trec-dl19-passage"
    r = d / "reannotation"
    judge = [str(r / f"{n}.txt") for n in ("andrew-parry", "ferdinand-schlatt", "guglielmo-faggioli",
                                             "saber-zerhoudi")]
    runs = [str(d / "runs" / f"{n}.run.gz") for n in ("bm25base_p", "idst_bert_p1", "UNH_bm25")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = P.run_ppi(str(d / "qrels.txt"), judge, runs, metrics=["nDCG@10"], labelled=12, seed=4, sizes=[10],
                        trials=20, order="file")
    assert len(res.labelled) == 12 and len(res.unlabelled) == 31
    H, Jd = res.scores["nDCG@10"]
    for run in res.runs:
        exp = _oracle(H.loc[res.labelled, run].to_numpy(), Jd.loc[res.labelled, run].to_numpy(),
                      Jd.loc[res.unlabelled, run].to_numpy(), 0.05)
        got = res.means[res.means.run == run]
        np.testing.assert_allclose(got[["mean", "ci_low", "ci_high"]].to_numpy(float), exp, rtol=0, atol=1e-9)


def test_pipeline_example_config_plans_one_ppi_job():
    """config/examples/trec-dl19-ppi.yaml validates against the schema and its plan has the collection's
    ppi job: every declared ppi file a target, the job's options those of `metaeval stage ppi` (the
    stage's parameters, the collection's data), the judge's files its inputs."""
    import shlex
    from pathlib import Path

    import yaml
    from snakemake.utils import validate

    from metaeval import dag
    from metaeval.cli import build_parser

    root = Path(__file__).resolve().parents[2]
    cfg = yaml.safe_load((root / "config" / "examples" / "trec-dl19-ppi.yaml").read_text(encoding="utf-8"))
    validate(cfg, str(root / "workflow" / "schemas" / "config.schema.yaml"))
    plan = dag.Plan(cfg)
    assert plan.job_collections("ppi") == ["trec-dl19-ppi"]
    want = {f"results/trec-dl19-ppi/ppi/{f}" for f in O.files("ppi")}
    assert want <= set(plan.targets())
    args = shlex.split(plan.job_args("ppi", "trec-dl19-ppi")) + shlex.split(plan.data_args("trec-dl19-ppi"))
    ns = build_parser().parse_args(["stage", "ppi", *args, "--out", "O"])
    assert ns.ppi_labelled == 10 and ns.ppi_seed == 20190701 and ns.ppi_sizes == [5, 10, 20, 30, 40]
    assert len(ns.ppi_judge) == 4 and ns.ppi_metrics == ["nDCG@10", "AP(rel=2)"]
    assert ns.order == "file" and ns.gains == "1:2:3" and ns.qrels[0].endswith("qrels.txt") and ns.runs
    assert plan.job_inputs("ppi", "trec-dl19-ppi") == [str(f) for f in ns.ppi_judge]


def test_no_unlabelled_topic_leaves_the_ppi_rows_empty_and_labelled_n_is_seeded(toy):
    from metaeval.errors import InputWarning

    lab = ["1", "2", "3", "4"]
    with pytest.warns(InputWarning, match="topics not in the qrels ignored"), \
            pytest.warns(InputWarning, match="every topic the judge"):
        res = P.run_ppi(toy["qrels"], toy["judge"][0], toy["runs"], metrics=["AP"], labelled_topics=lab, sizes=[2],
                        trials=5, order="file")
    m = res.means.set_index("estimator")
    assert res.unlabelled == [] and m.loc[["ppi", "ppi++"], "mean"].isna().all()
    assert m.loc[["human", "judge"], "mean"].notna().all() and len(res.budget) == 4
    kw = dict(metrics=["AP"], labelled=3, seed=9, sizes=[2], trials=5, order="file")
    with warnings.catch_warnings(record=True):      # the runs read again (their warnings asserted above)
        a = P.run_ppi(toy["qrels"], toy["judge"], toy["runs"], **kw)
        b = P.run_ppi(toy["qrels"], toy["judge"], toy["runs"], **kw)
    assert a.labelled == b.labelled and len(a.labelled) == 3 and set(a.labelled) <= set(a.human_topics)
    pd.testing.assert_frame_equal(a.budget, b.budget)


def test_budget_states_the_human_topics_the_judge_saves(toy):
    """The budget answers its question (issue: "how many human topics does the judge save?"): per
    size, human_only_topics = size x (human width / width)^2 and topics_saved = that - size, in the
    table, on the console line and in the width figure's second row."""
    out = toy["tmp"] / "out"
    rc, so, err = _run(_argv(toy, out, "--sizes", "2,4", "--trials", "40", "--seed", "3"))
    assert rc == 0, err
    b = pd.read_csv(out / "tables" / "ppi_budget.csv")
    assert list(b.columns)[-2:] == ["human_only_topics", "topics_saved"]
    for (m, n), g in b.groupby(["metric", "labelled"]):
        g = g.set_index("estimator")
        w_h = g.loc["human", "mean_width"]
        for est in P.ESTIMATORS:
            exp = n * (w_h / g.loc[est, "mean_width"]) ** 2
            assert g.loc[est, "human_only_topics"] == pytest.approx(exp, rel=1e-12)
            assert g.loc[est, "topics_saved"] == pytest.approx(exp - n, rel=1e-12, abs=1e-12)
    pp = b[(b.metric == "AP") & (b.estimator == "ppi++")].sort_values("labelled")
    line = next(ln for ln in so.splitlines() if "budget AP" in ln)
    for r in pp.itertuples():
        assert f"{r.labelled} labelled ~ {r.human_only_topics:.1f} human-only" in line, line
    assert "human_only_topics" in (out / "tables" / "ppi_budget.md").read_text()


def test_judge_sharing_no_topic_refused_before_any_run_is_read(toy, monkeypatch):
    """What the qrels decide is refused first: a judge that judged none of the human topics is an
    error before one run is read (the runs here do not even exist)."""
    import metaeval.io.judgments as J

    judge = _write(toy["tmp"] / "judge_other.txt", [f"{t} 0 d{k} 1" for t in (90, 91) for k in range(3)])

    def no_runs(*a, **k):
        raise AssertionError("a run was read")

    monkeypatch.setattr(J, "label_sets", no_runs)
    out = toy["tmp"] / "out"
    rc, so, err = _run(["ppi", "--qrels", toy["qrels"], "--judge", judge, "--runs", str(toy["tmp"] / "nowhere"),
                        "--out", str(out), "--order", "file"])
    lines = [x for x in err.splitlines() if x.strip()]
    assert rc == 1 and len(lines) == 1, err
    assert "judge_other.txt" in lines[0] and "no topic in common" in lines[0], err
    assert not out.exists()
