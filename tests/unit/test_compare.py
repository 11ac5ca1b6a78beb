"""``metaeval compare`` and ``metaeval.meta.compare``: every p-value against scipy /
statsmodels on TREC DL19 for the baseline and the all-pairs families, the bootstrap and rthsd
p-values equal to the meta-evaluation stages', bad input, the CLI and the paper-style table."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import DL19, dl19_matrices
from metaeval.cli import main
from metaeval.report.compare import render_compare, run_letter
from metaeval.meta.compare import COMPARE_COLUMNS, compare

METRICS = ["AP", "nDCG@10", "RR"]
BASE = "bm25base_p"
EXAMPLE_RUNS = ["p_bert", "idst_bert_p1", "TUW19-p3-f", BASE]


@pytest.fixture(scope="module")
def dl19():
    return dl19_matrices(METRICS)


def _family(df, baseline):
    runs = list(df.columns)
    if baseline is None:
        return [(runs[i], runs[j]) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    return [(r, baseline) for r in runs if r != baseline]


def _ref_p(test, x, y):
    if np.array_equal(x, y):
        return 1.0
    if test == "paired-t":
        return stats.ttest_rel(x, y).pvalue
    if test == "wilcoxon":
        return stats.wilcoxon(x, y).pvalue
    return stats.binomtest(int((x > y).sum()), int((x != y).sum()), 0.5).pvalue


@pytest.mark.parametrize("baseline", [BASE, None], ids=["baseline", "all-pairs"])
@pytest.mark.parametrize("test", ["paired-t", "wilcoxon", "sign"])
def test_classical_tests_against_scipy_dl19(dl19, test, baseline):
    from statsmodels.stats.multitest import multipletests

    metrics = ["AP", "RR"] if baseline is None else METRICS
    got = compare(dl19, baseline=baseline, metrics=metrics, test=test)
    assert list(got.columns) == COMPARE_COLUMNS
    for m in metrics:
        df = dl19[m]
        sub = got[got["metric"] == m]
        fam = _family(df, baseline)
        assert list(zip(sub["run"], sub["other"])) == fam
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = np.array([_ref_p(test, df[a].to_numpy(), df[b].to_numpy()) for a, b in fam])
        np.testing.assert_allclose(sub["p_value"], ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(sub["p_adjusted"], multipletests(ref, method="holm")[1], rtol=1e-9, atol=1e-12)
        assert (sub["correction"] == "holm").all()
        assert (sub["significant"] == (sub["p_adjusted"] < 0.05)).all()
    for corr, sm in (("bonferroni", "bonferroni"), ("bh", "fdr_bh"), ("none", None)):
        g = compare(dl19, baseline=baseline, metrics=["AP"], test=test, correction=corr)
        p = g["p_value"].to_numpy()
        np.testing.assert_allclose(g["p_adjusted"], p if sm is None else multipletests(p, method=sm)[1],
                                   rtol=1e-12, atol=0)


def test_descriptives_against_plain_loops(dl19):
    got = compare(dl19, baseline=BASE, metrics=["nDCG@10"])
    df = dl19["nDCG@10"]
    n, m = df.shape
    X = df.to_numpy()
    # V_E of the two-way ANOVA over all 37 runs, by a plain loop
    cm = [sum(X[j][i] for j in range(n)) / n for i in range(m)]
    rm = [sum(X[j][i] for i in range(m)) / m for j in range(n)]
    g = sum(cm) / m
    VE = sum((X[j][i] - cm[i] - rm[j] + g) ** 2 for j in range(n) for i in range(m)) / ((m - 1) * (n - 1))
    for row in got.itertuples(index=False):
        x, y = df[row.run].to_numpy(), df[row.other].to_numpy()
        d = x - y
        # Sakai (2014): the interval of the run's mean from V_E, phi_E = (m - 1)(n - 1)
        lo, hi = stats.t.interval(0.95, (m - 1) * (n - 1), loc=x.mean(), scale=(VE / n) ** 0.5)
        assert row.mean == pytest.approx(x.mean(), abs=1e-12) and row.other_mean == pytest.approx(y.mean(), abs=1e-12)
        assert (row.ci_low, row.ci_high) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
        assert row.diff == pytest.approx(x.mean() - y.mean(), abs=1e-12)
        dci = stats.ttest_rel(x, y).confidence_interval(0.95)
        assert (row.diff_ci_low, row.diff_ci_high) == (pytest.approx(dci.low, abs=1e-12),
                                                       pytest.approx(dci.high, abs=1e-12))
        assert row.effect_size == pytest.approx((x.mean() - y.mean()) / VE ** 0.5, rel=1e-9)
        assert row.d_z == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
        assert (row.wins, row.ties, row.losses) == (int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))


def test_permutation_exact_equals_scipy(dl19):
    """2^12 <= B: the exact sign-flip distribution, equal to scipy.stats.permutation_test."""
    sub = {m: dl19[m].iloc[:12][EXAMPLE_RUNS] for m in ("AP", "nDCG@10")}
    for baseline in (BASE, None):
        got = compare(sub, baseline=baseline, test="permutation", B=10000)
        for row in got.itertuples(index=False):
            x, y = sub[row.metric][row.run].to_numpy(), sub[row.metric][row.other].to_numpy()
            ref = stats.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis),
                                         permutation_type="samples", n_resamples=np.inf).pvalue
            assert row.p_value == pytest.approx(ref, rel=1e-9, abs=1e-12), (row.run, row.other)


def test_permutation_randomised_near_scipy(dl19):
    sub = {"AP": dl19["AP"][EXAMPLE_RUNS]}
    got = compare(sub, baseline=BASE, test="permutation", B=20000, seed=2)
    for row in got.itertuples(index=False):
        x, y = sub["AP"][row.run].to_numpy(), sub["AP"][row.other].to_numpy()
        ref = stats.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis),
                                     permutation_type="samples", n_resamples=20000,
                                     rng=np.random.default_rng(9)).pvalue
        assert abs(row.p_value - ref) <= 5 * np.sqrt(max(ref, 1e-3) / 20000) + 2e-4
    # reproducible and batch-independent
    a = compare(sub, test="permutation", B=3000, seed=4)
    b = compare(sub, test="permutation", B=3000, seed=4, batch=7)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_bootstrap_rthsd_tukey_equal_the_stages(dl19):
    from metaeval.meta.discpower import stage_discpower
    from metaeval.meta.run import MetaConfig, stage_paired

    cfg = MetaConfig(B=400, seed=3)
    st = stage_discpower(dl19, ["AP", "RR"], B_r=600, seed=3)["pvalues"]
    for m in ("AP", "RR"):
        asl = stage_paired(dl19, m, cfg)["asl"]
        allp = compare(dl19, metrics=[m], test="bootstrap", B=400, seed=3)
        np.testing.assert_array_equal(allp["p_value"], asl["asl"])
        base = compare(dl19, baseline=BASE, metrics=[m], test="bootstrap", B=400, seed=3)
        key = {frozenset(p): v for p, v in zip(zip(asl["system_x"], asl["system_y"]), asl["asl"])}
        np.testing.assert_array_equal(base["p_value"], [key[frozenset(p)] for p in zip(base["run"], base["other"])])
        for test in ("rthsd", "tukey-hsd"):
            ref = st[(st["metric"] == m) & (st["test"] == test)]
            got = compare(dl19, metrics=[m], test=test, B=600, seed=3)
            np.testing.assert_array_equal(got["p_value"], ref["p_value"])
            assert (got["correction"] == "none").all() and (got["p_adjusted"] == got["p_value"]).all()
            key = {frozenset(p): v for p, v in zip(zip(ref["system_x"], ref["system_y"]), ref["p_value"])}
            gb = compare(dl19, baseline=BASE, metrics=[m], test=test, B=600, seed=3)
            np.testing.assert_array_equal(gb["p_value"], [key[frozenset(p)] for p in zip(gb["run"], gb["other"])])


def test_bad_input_and_documented_results():
    X = pd.DataFrame({"a": [0.1, 0.5, 0.3, 0.2], "b": [0.1, 0.5, 0.3, 0.2], "c": [0.2, 0.6, 0.4, 0.3],
                      "d": [0.3, 0.1, 0.9, 0.0]}, index=["t1", "t2", "t3", "t4"])
    with pytest.raises(ValueError, match="baseline 'zz' is not among the runs"):
        compare({"AP": X}, baseline="zz")
    with pytest.raises(ValueError, match=r"metric\(s\) 'nDCG@10' not available"):
        compare({"AP": X}, metrics=["nDCG@10"])
    with pytest.raises(ValueError, match="rthsd .* needs at least 3"):
        compare({"AP": X[["a", "c"]]}, test="rthsd")
    with pytest.raises(ValueError, match="at least 2 topics"):
        compare({"AP": X.iloc[:1]})
    with pytest.raises(ValueError, match="controls the family-wise error"):
        compare({"AP": X}, test="rthsd", correction="holm")
    with pytest.raises(ValueError, match="unknown test"):
        compare({"AP": X}, test="anova")
    # identical runs (a, b) and a constant difference (c - a = 0.1): documented, never NaN
    for test in ("paired-t", "wilcoxon", "sign", "permutation", "bootstrap", "rthsd", "tukey-hsd"):
        r = compare({"AP": X}, test=test, B=200).set_index(["run", "other"])
        assert r.loc[("a", "b"), "p_value"] == 1.0, test
        assert r[["p_value", "p_adjusted"]].notna().all().all(), test
        assert (r.loc[("a", "b"), "d_z"], r.loc[("a", "b"), "ties"]) == (0.0, 4)
    r = compare({"AP": X}, test="paired-t").set_index(["run", "other"])
    assert r.loc[("a", "c"), "p_value"] == 0.0 and r.loc[("a", "c"), "d_z"] == -np.inf
    one = compare(X[["a", "d"]], test="paired-t")                  # one comparison: no correction
    assert one["metric"].tolist() == ["score"] and one["correction"].tolist() == ["none"]


def _write_matrices(tmp_path, mats):
    d = tmp_path / "matrices"
    d.mkdir()
    for m, df in mats.items():
        df.rename_axis("topic").to_csv(d / f"{m}.csv")
    return d


def test_cli_worked_example(dl19, tmp_path, capsys):
    """The README example: three DL19 runs against a baseline on AP and nDCG@10."""
    runs = [str(DL19 / "runs" / f"{r}.run.gz") for r in EXAMPLE_RUNS]
    out = tmp_path / "cmp"
    # file order (NTCIREVAL's conventions), as the matrices compared with; the README's example (TREC
    # input: trec_eval's conventions) is the test below
    args = ["compare", "--qrels", str(DL19 / "qrels.txt"), "--baseline", BASE, "--metrics", "AP", "nDCG@10",
            "--order", "file", "--out", str(out)]
    for r in runs:
        args += ["--runs", r]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert text == (out / "compare.md").read_text()
    assert text.splitlines()[:6] == [
        "| run | AP | nDCG@10 |",
        "|---|---:|---:|",
        "| bm25base_p (baseline) | 0.3773 | 0.5069 |",
        "| TUW19-p3-f | 0.4739† | 0.6903† |",
        "| idst_bert_p1 | 0.5290† | 0.7621† |",
        "| p_bert | 0.5049† | 0.7357† |",
    ]
    assert "paired t-test (two-sided), Holm correction over the comparisons with the baseline" in text
    csv = pd.read_csv(out / "compare.csv")
    assert list(csv.columns) == COMPARE_COLUMNS and len(csv) == 6
    ref = compare({m: dl19[m][sorted(EXAMPLE_RUNS)] for m in ("AP", "nDCG@10")}, baseline=BASE)
    np.testing.assert_allclose(csv["p_value"], ref["p_value"], rtol=1e-12)
    assert r"\dagger" in (out / "compare.tex").read_text()


def test_cli_matrices_all_pairs_and_errors(dl19, tmp_path, capsys):
    d = _write_matrices(tmp_path, {m: dl19[m][EXAMPLE_RUNS] for m in ("AP", "RR")})
    out = tmp_path / "o"
    assert main(["compare", "--matrices", str(d), "--test", "rthsd", "--B", "500", "--out", str(out),
                 "--format", "csv"]) == 0
    csv = pd.read_csv(out / "compare.csv")
    assert len(csv) == 2 * 6 and set(csv["test"]) == {"rthsd"} and set(csv["correction"]) == {"none"}
    assert capsys.readouterr().out == (out / "compare.csv").read_text()
    md = (out / "compare.md").read_text()
    assert "| (a) " in md and "randomised Tukey HSD test" in md
    # bad input: one line on stderr, exit 1, nothing written
    bad = tmp_path / "bad"
    for extra, msg in ((["--baseline", "nope"], "baseline 'nope' is not among the runs"),
                       (["--metrics", "nDCG@10"], "metric 'nDCG@10' not available")):
        assert main(["compare", "--matrices", str(d), "--out", str(bad), *extra]) == 1
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1 and "Traceback" not in err
        assert not bad.exists()


def test_cli_test_choices_match_the_library():
    from metaeval.cli.compare import TESTS
    from metaeval.meta.compare import COMPARE_TESTS

    assert TESTS == COMPARE_TESTS


def test_render_all_pairs_letters():
    df = pd.DataFrame({"metric": "AP", "run": ["x", "x", "y"], "other": ["y", "z", "z"], "test": "paired-t",
                       "correction": "holm", "mean": [0.5, 0.5, 0.3], "other_mean": [0.3, 0.1, 0.1],
                       "significant": [True, True, False]})
    md = render_compare(df, alpha=0.05)
    assert "| (a) x | 0.5000<sup>bc</sup> |" in md and "| (b) y | 0.3000 |" in md and "| (c) z | 0.1000 |" in md
    tex = render_compare(df, fmt="tex")
    assert r"0.5000$^{\mathrm{bc}}$" in tex
    assert [run_letter(i) for i in (0, 25, 26, 27)] == ["a", "z", "aa", "ab"]


@pytest.mark.shared_data
def test_readme_worked_example_is_what_the_command_prints(tmp_path, capsys):
    """The README's "Comparing runs" block is the output of the command shown above it."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Comparing runs", 1)[1].split("\n## ", 1)[0]
    command = re.search(r"```sh\n(.*?)```", section, re.S).group(1).replace("\\\n", " ")
    expected = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    import shlex

    words = shlex.split(command)
    assert words[:2] == ["metaeval", "compare"]
    args = [w.replace("$DL19", str(DL19)) for w in words[1:]]
    args[args.index("--out") + 1] = str(tmp_path / "cmp")
    assert main(args) == 0
    assert capsys.readouterr().out == expected
