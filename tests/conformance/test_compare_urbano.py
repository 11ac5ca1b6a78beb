"""``metaeval compare --conventions urbano2019`` (metaeval.meta.compare_urbano): the p-values of the
README example of Urbano, Lima & Hanjalic (2019) through the API and the CLI, the metaeval
conventions unchanged beside them, the mapping of compare's comparisons to urbano_tests' trials,
and the refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.cli import main
from metaeval.meta import urbano_tests as U
from metaeval.meta.compare import COMPARE_COLUMNS, compare
from metaeval.meta.compare_urbano import urbano_pvalues
from metaeval.meta.samples import sample_rng

DATA = Path(__file__).parents[1] / "data" / "urbano2019"

#: the two-tailed p-values the README of julian-urbano/sigir2019-statistical prints for adhoc8 AP,
#: runs 125 (baseline) vs 126 (R prints 7 significant digits of a vector's smallest element, every
#: element with as many decimals)
README_P2 = {"paired-t": "0.0013193972", "wilcoxon": "0.003445188", "sign": "0.009559879"}


def _readme_matrix() -> pd.DataFrame:
    d = pd.read_csv(DATA / "adhoc8_ap_125_126.csv")
    d.index = [f"t{i + 401}" for i in range(len(d))]
    return d


def _as_printed(p: float, printed: str) -> str:
    return f"{float(p):.{len(printed) - 2}f}"


@pytest.mark.parametrize("test", sorted(README_P2))
def test_readme_example_api(test):
    X = _readme_matrix()
    r = compare(X, baseline="run125", test=test, conventions="urbano2019")
    assert list(r.columns) == COMPARE_COLUMNS and len(r) == 1
    assert (r["run"][0], r["other"][0]) == ("run126", "run125")
    assert _as_printed(r["p_value"][0], README_P2[test]) == README_P2[test]
    # the metaeval conventions keep their own values (scipy's), different for wilcoxon and sign
    m = compare(X, baseline="run125", test=test)
    d = (X["run126"] - X["run125"]).to_numpy()
    ref = {"paired-t": stats.ttest_rel(X["run126"], X["run125"]).pvalue,
           "wilcoxon": stats.wilcoxon(d).pvalue,
           "sign": stats.binomtest(int((d > 1e-12).sum()), int((np.abs(d) > 1e-12).sum())).pvalue}[test]
    assert m["p_value"][0] == pytest.approx(ref, rel=1e-12)
    same = test == "paired-t"
    assert (_as_printed(m["p_value"][0], README_P2[test]) == README_P2[test]) == same
    # every other column is the same under both conventions
    cols = [c for c in COMPARE_COLUMNS if c not in ("p_value", "p_adjusted", "significant")]
    pd.testing.assert_frame_equal(r[cols], m[cols])
    assert r["p_adjusted"][0] == r["p_value"][0]           # one comparison: no correction


def test_readme_example_cli(tmp_path, capsys):
    d = tmp_path / "matrices"
    d.mkdir()
    _readme_matrix().rename_axis("topic").to_csv(d / "AP.csv")
    got = {}
    for conv in ("urbano2019", "metaeval", None):
        for test in sorted(README_P2):
            out = tmp_path / f"{conv}-{test}"
            args = ["compare", "--matrices", str(d), "--baseline", "run125", "--test", test, "--out", str(out),
                    "--quiet"] + ([] if conv is None else ["--conventions", conv])
            assert main(args) == 0
            got[conv, test] = (out / "compare.csv").read_bytes()
            csv = pd.read_csv(out / "compare.csv")
            assert csv["metric"].tolist() == ["AP"] and list(csv.columns) == COMPARE_COLUMNS
            md, tex = (out / "compare.md").read_text(), (out / "compare.tex").read_text()
            note = "Tests with the conventions of Urbano, Lima & Hanjalic (2019)."
            assert (note in md) == (r"Urbano, Lima \& Hanjalic (2019)" in tex) == (conv == "urbano2019")
            if conv == "urbano2019":
                assert _as_printed(csv["p_value"][0], README_P2[test]) == README_P2[test]
            else:
                api = compare({"AP": _readme_matrix()}, baseline="run125", test=test)
                assert csv["p_value"][0] == pytest.approx(api["p_value"][0], rel=1e-15)
    for test in README_P2:                                   # the default is metaeval, byte for byte
        assert got[None, test] == got["metaeval", test]
    assert capsys.readouterr().out == ""


def test_resampling_tests_near_the_readme():
    """bootstrap and permutation: Monte Carlo estimates of the README's (B = 10^6) values, within
    4 standard errors with B = 40000, seeded as compare's."""
    X = _readme_matrix()
    B = 40_000
    for test, want in (("bootstrap", 0.000586), ("permutation", 0.001188)):
        p = compare(X, baseline="run125", test=test, B=B, seed=3, conventions="urbano2019")["p_value"][0]
        assert abs(p - want) <= 4 * np.sqrt(want * (1 - want) / B), (test, p, want)


def _runs(n=30, m=5, seed=11):
    rng = np.random.default_rng(seed)
    base = rng.beta(2, 5, size=n)
    X = np.clip(base[:, None] + rng.normal(0, 0.08, size=(n, m)) + np.linspace(0, 0.05, m), 0, 1)
    X = np.round(X, 4)
    X[:, 3] = X[:, 1]                                        # identical runs
    X[:, 4] = np.clip(X[:, 0] + 0.02, 0, 1) if (X[:, 0] <= 0.98).all() else X[:, 0]
    return pd.DataFrame(X, index=[f"q{i}" for i in range(n)], columns=list("abcde"))


@pytest.mark.parametrize("test", U.TESTS)
@pytest.mark.parametrize("baseline", ["b", None])
def test_comparisons_are_trials_b_other_e_run(test, baseline):
    """Each row's p-value is urbano_tests' two-tailed p on (b = other, e = run), computed for that
    comparison alone (a literal loop; the resampling tests draw from the seed-derived stream of
    compare's tests, shared by the comparisons); NaN only where R gives none, mapped to metaeval's value."""
    X = _runs()
    B, seed = 700, 5
    r = compare(X, baseline=baseline, test=test, B=B, seed=seed, correction="none", conventions="urbano2019")
    assert not r["p_value"].isna().any()
    n = len(X)
    for _, row in r.iterrows():
        b, e = X[row["other"]].to_numpy()[None], X[row["run"]].to_numpy()[None]
        if test in ("bootstrap", "permutation"):
            stream = "paired" if test == "bootstrap" else "permutation"
            fn = U.bootstrap_test if test == "bootstrap" else U.permutation_test
            want = fn(b, e, B, sample_rng(seed, n, B, stream))[1][0]
        else:
            want = {"paired-t": U.t_test, "wilcoxon": U.wilcoxon_test, "sign": U.sign_test}[test](b, e)[1][0]
        if np.isnan(want):
            d = e - b
            assert test in ("paired-t", "wilcoxon", "sign") and np.ptp(d) == 0 or np.abs(d).max() <= 0.01
            want = 0.0 if test == "paired-t" and np.abs(d).max() > 0 else 1.0
        assert row["p_value"] == pytest.approx(want, rel=1e-12, abs=0), (row["run"], row["other"])
    if baseline is None:                                     # identical runs b, d: p = 1 by every test
        assert r.set_index(["run", "other"]).loc[("b", "d"), "p_value"] == 1.0


def test_resamples_independent_of_batch():
    X = _runs().to_numpy()
    ia, ib = np.triu_indices(X.shape[1], 1)
    for test in ("bootstrap", "permutation"):
        full = urbano_pvalues(X[:, ib], X[:, ia], test, B=300, seed=2)
        for batch in (1, 3):
            np.testing.assert_array_equal(urbano_pvalues(X[:, ib], X[:, ia], test, B=300, seed=2, batch=batch), full)


def test_refusals(tmp_path, capsys):
    X = _runs()
    for test in ("rthsd", "tukey-hsd"):
        with pytest.raises(ValueError, match="no counterpart in Urbano, Lima & Hanjalic"):
            compare(X, test=test, conventions="urbano2019")
    with pytest.raises(ValueError, match="unknown conventions 'r'"):
        compare(X, conventions="r")
    d = tmp_path / "m"
    d.mkdir()
    X.rename_axis("topic").to_csv(d / "AP.csv")
    out = tmp_path / "o"
    for test in ("rthsd", "tukey-hsd"):
        with pytest.raises(SystemExit) as ex:
            main(["compare", "--matrices", str(d), "--test", test, "--conventions", "urbano2019", "--out", str(out)])
        assert ex.value.code == 2
        err = capsys.readouterr().err
        assert f"--test {test} has no counterpart" in err and "Traceback" not in err
        assert not out.exists()
