"""``metaeval compare`` as a paper needs it: the tidy frame of ``metaeval.evaluate`` accepted, the
confidence interval of the difference (against scipy and a literal bootstrap loop), the printed
table's options (p-values, effect sizes, rows by mean) and readable labels for many runs; the
refusal of rthsd with two runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.cli import main
from metaeval.meta.compare import compare

QRELS = "T1 d1 L1\nT1 d2 L2\nT2 d1 L1\nT2 d3 L2\nT3 d2 L1\n"
RUNS = {"a": "T1 Q0 d2 1 3 a\nT1 Q0 d1 2 2 a\nT2 Q0 d3 1 3 a\nT3 Q0 d2 1 1 a\n",
        "b": "T1 Q0 d1 1 3 b\nT2 Q0 d1 1 3 b\nT2 Q0 d3 2 1 b\nT3 Q0 d9 1 1 b\n"}


@pytest.fixture
def two_runs(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    files = []
    for name, text in RUNS.items():
        (tmp_path / f"{name}.run").write_text(text)
        files += ["--runs", str(tmp_path / f"{name}.run")]
    return ["--qrels", str(tmp_path / "qrels.txt"), *files]


def test_rthsd_with_two_runs_is_a_usage_error_not_a_run_file(two_runs, tmp_path, capsys):
    out = tmp_path / "o"
    with pytest.raises(SystemExit) as e:
        main(["compare", *two_runs, "--test", "rthsd", "--out", str(out)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last.startswith("metaeval compare: error: --test rthsd compares all runs given and needs at least 3")
    assert "--test permutation" in last and ".run" not in err
    assert not out.exists()


def _scores(m=4, n=12, seed=3):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 1, size=(n, 1))
    X = np.clip(base + rng.normal(0, 0.15, size=(n, m)) + np.linspace(0, 0.2, m), 0, 1)
    return pd.DataFrame(X, index=[f"t{j:02d}" for j in range(n)], columns=[f"r{i}" for i in range(m)])


def test_compare_takes_the_tidy_frame_of_evaluate():
    import metaeval

    rng = np.random.default_rng(0)
    topics = [f"q{t}" for t in range(15)]
    docs = [f"d{d}" for d in range(30)]
    qrels = pd.DataFrame([(t, d, int(rng.choice(3, p=[0.6, 0.3, 0.1]))) for t in topics for d in docs],
                         columns=["query_id", "doc_id", "relevance"])
    runs = pd.concat([pd.DataFrame({"run": f"run{k}", "query_id": qrels.query_id, "doc_id": qrels.doc_id,
                                    "score": k * qrels.relevance + rng.normal(0, 3, len(qrels))})
                      for k in range(1, 5)])
    scores = metaeval.evaluate(qrels, runs, ["nDCG@10", "AP"], gains="1:2", vocabulary="ntcireval")
    got = metaeval.compare(scores, baseline="run1")
    # the measures in evaluate's order, each the same table as from the topic x run matrices
    assert list(dict.fromkeys(got["metric"])) == ["nDCG@10", "AP"]
    mats = {m: scores[scores.measure == m].pivot(index="topic", columns="run", values="value")
            for m in ("nDCG@10", "AP")}
    ref = compare(mats, baseline="run1")
    pd.testing.assert_frame_equal(got, ref)
    assert list(got["run"][:3]) == ["run2", "run3", "run4"] and (got["other"] == "run1").all()


def test_diff_interval_paired_t_equals_scipy():
    X = _scores()
    got = compare({"AP": X}, baseline="r0", test="paired-t", ci=0.9)
    for row in got.itertuples(index=False):
        ci = stats.ttest_rel(X[row.run], X[row.other]).confidence_interval(0.9)
        assert row.diff_ci_low == pytest.approx(ci.low, abs=1e-14)
        assert row.diff_ci_high == pytest.approx(ci.high, abs=1e-14)
        assert row.diff_ci_low < row.diff < row.diff_ci_high
    # the interval of the mean difference for wilcoxon, sign and permutation too (documented)
    for test in ("wilcoxon", "sign", "permutation"):
        other = compare({"AP": X}, baseline="r0", test=test, ci=0.9, B=200)
        np.testing.assert_array_equal(other["diff_ci_low"], got["diff_ci_low"])


def test_diff_interval_bootstrap_equals_a_literal_loop():
    from metaeval.meta.samples import BootstrapSamples

    X = _scores(m=3, n=10)
    B, seed = 500, 11
    got = compare({"AP": X}, test="bootstrap", B=B, seed=seed)      # all pairs
    idx = BootstrapSamples.from_seed(seed, X.shape[0], B).indices    # the test's samples Q*b
    for row in got.itertuples(index=False):
        d = (X[row.run] - X[row.other]).to_numpy()
        boot = []
        for b in range(B):                      # the mean difference over each bootstrap sample
            s = 0.0
            for i in idx[b]:
                s += d[i]
            boot.append(s / len(d))
        lo, hi = np.quantile(boot, [0.025, 0.975])
        assert (row.diff_ci_low, row.diff_ci_high) == (lo, hi)
    # one comparison (a lone column) sums the same way
    one = compare({"AP": X[["r0", "r1"]]}, test="bootstrap", B=B, seed=seed).iloc[0]
    first = got.iloc[0]
    assert (one.diff_ci_low, one.diff_ci_high) == (first.diff_ci_low, first.diff_ci_high)


def test_diff_interval_tukey_is_the_simultaneous_interval():
    X = _scores(m=5, n=9)
    n, m = X.shape
    A = X.to_numpy()
    g = A.mean()
    VE = ((A - A.mean(axis=0) - A.mean(axis=1, keepdims=True) + g) ** 2).sum() / ((m - 1) * (n - 1))
    half = stats.studentized_range.ppf(0.95, m, (m - 1) * (n - 1)) * (VE / n) ** 0.5
    for test in ("tukey-hsd", "rthsd"):
        got = compare({"AP": X}, test=test, B=100)
        np.testing.assert_allclose(got["diff_ci_high"] - got["diff"], half, rtol=1e-9)
        np.testing.assert_allclose(got["diff"] - got["diff_ci_low"], half, rtol=1e-9)
        # consistent with the test: significant exactly when 0 lies outside the interval
        if test == "tukey-hsd":
            outside = (got["diff_ci_low"] > 0) | (got["diff_ci_high"] < 0)
            assert (outside == got["significant"]).all()


def test_printed_table_shows_p_and_effect_sizes_and_sorts_by_mean(tmp_path, capsys):
    from metaeval.report.compare import render_compare

    X = _scores(m=4, n=12)
    d = tmp_path / "m"
    d.mkdir()
    X.rename_axis("topic").to_csv(d / "AP.csv")
    assert main(["compare", "--matrices", str(d), "--baseline", "r1", "--show", "p", "es", "ci",
                 "--sort-by", "AP", "--out", str(tmp_path / "o")]) == 0
    md = capsys.readouterr().out
    df = pd.read_csv(tmp_path / "o" / "compare.csv")
    lines = md.splitlines()
    assert lines[0] == "| run | AP | p | ES | diff CI |"
    body = [ln.split(" | ") for ln in lines[2:6]]
    assert body[0][0] == "| r1 (baseline)" and body[0][2:] == ["", "", " |"]
    # the others by descending mean AP
    order = df.sort_values("mean", ascending=False)["run"].tolist()
    assert [b[0][2:] for b in body[1:]] == order
    for b in body[1:]:
        row = df.set_index("run").loc[b[0][2:]]
        assert b[1].startswith(f"{row['mean']:.4f}")
        assert b[2] == ("<0.0001" if row["p_adjusted"] < 1e-4 else f"{row['p_adjusted']:.4f}")
        assert b[3] == f"{row['effect_size']:.2f}"
        assert b[4] == f"[{row['diff_ci_low']:.4f}, {row['diff_ci_high']:.4f}] |"
    assert "p: the p-value against the baseline, adjusted" in md
    tex = render_compare(df, baseline="r1", fmt="tex", show=["p", "es", "dz", "ci"])
    assert r"run & AP & p & ES & d\_z & diff CI \\" in tex
    assert "sqrt(V\\_E)" in tex and "Cohen's d\\_z" in tex and "d_z" not in tex.replace("\\_", "")
    # without the options: the table as before
    plain = render_compare(df, baseline="r1")
    assert plain.splitlines()[0] == "| run | AP |"
    with pytest.raises(SystemExit):
        main(["compare", "--matrices", str(d), "--show", "p"])            # needs a baseline
    assert "--show needs --baseline" in capsys.readouterr().err


def test_labels_stay_readable_with_40_runs():
    from metaeval.report.compare import render_compare

    rng = np.random.default_rng(5)
    m, n = 40, 30
    X = pd.DataFrame(rng.uniform(0, 1, (n, 1)) + np.linspace(0, 0.8, m) + rng.normal(0, 0.05, (n, m)),
                     index=[f"t{j}" for j in range(n)], columns=[f"run{i:02d}" for i in range(m)])
    df = compare({"AP": X}, test="tukey-hsd")
    md = render_compare(df)
    rows = md.splitlines()[2:2 + m]
    labels = [r.split(" ")[1] for r in rows]
    assert labels[:3] == ["(a)", "(b)", "(c)"] and labels[26:28] == ["(aa)", "(ab)"]
    best = rows[-1]                                           # run39, the highest mean
    sup = best.split("<sup>")[1].split("</sup>")[0]
    beaten = sup.split(",")
    # each label separated by a comma, exactly the runs significantly below
    letters = {f"run{i:02d}": lab[1:-1] for i, lab in enumerate(labels)}
    sig = df[(df["significant"]) & ((df["run"] == "run39") | (df["other"] == "run39"))]
    expect = sorted((letters[r if r != "run39" else o] for r, o in zip(sig["run"], sig["other"])),
                    key=lambda s: (len(s), s))
    assert beaten == expect and len(beaten) > 26
    # 26 runs or fewer: letters run together, as before
    small = render_compare(compare({"AP": X.iloc[:, :5]}, test="tukey-hsd"))
    assert "," not in "".join(small.split("<sup>")[1:]).split("</sup>")[0]
