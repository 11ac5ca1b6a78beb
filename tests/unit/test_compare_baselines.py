"""``metaeval compare --baseline A B``: every run against each baseline in one table, the correction
over all the comparisons made (statsmodels' Holm on the whole family), each baseline's significance
marked by its letter in Markdown and LaTeX; one baseline as before."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.meta.compare import compare
from metaeval.report.compare import render_compare


def _scores() -> dict:
    rng = np.random.default_rng(11)
    n = 30
    base = rng.uniform(0.2, 0.6, size=(n, 1))
    shift = np.array([0.0, 0.03, 0.12, -0.1, 0.0])       # A, B, good, bad, same-as-A
    X = np.clip(base + shift + rng.normal(0, 0.04, size=(n, 5)), 0, 1)
    X[:, 4] = X[:, 0] + rng.normal(0, 0.001, size=n)
    df = pd.DataFrame(X, index=[f"t{j:02d}" for j in range(n)], columns=["A", "B", "good", "bad", "twin"])
    return {"AP": df, "nDCG@10": df * 0.9}


def test_every_run_against_each_baseline_one_correction_over_all_comparisons():
    from statsmodels.stats.multitest import multipletests

    mats = _scores()
    df = compare(mats, baseline=["A", "B"])
    ap = df[df.metric == "AP"]
    # A against every other run, then B against every run but A (that pair once)
    assert list(zip(ap.run, ap.other)) == [("B", "A"), ("good", "A"), ("bad", "A"), ("twin", "A"),
                                           ("good", "B"), ("bad", "B"), ("twin", "B")]
    X = mats["AP"]
    p = [stats.ttest_rel(X[r], X[o]).pvalue for r, o in zip(ap.run, ap.other)]
    assert np.allclose(ap.p_value, p, rtol=0, atol=1e-12)
    want = multipletests(p, method="holm")[1]
    assert np.allclose(ap.p_adjusted, want, rtol=0, atol=1e-12) and set(ap.correction) == {"holm"}
    # one baseline: its own, smaller family; the unadjusted numbers are the same comparisons'
    one = compare(mats, baseline="A")
    one_ap = one[one.metric == "AP"].reset_index(drop=True)
    mine = ap[ap.other == "A"].reset_index(drop=True)
    pd.testing.assert_frame_equal(one_ap.drop(columns=["p_adjusted", "significant"]),
                                  mine.drop(columns=["p_adjusted", "significant"]))
    assert (mine.p_adjusted >= one_ap.p_adjusted).all()
    assert compare(mats, baseline=["A"]).equals(one)                 # a list of one is one baseline
    with pytest.raises(ValueError, match="given twice"):
        compare(mats, baseline=["A", "A"])
    with pytest.raises(ValueError, match="one baseline"):
        compare(mats, baseline=["A", "B"], risk_alpha=1.0)


def test_tables_mark_each_baselines_significance_by_its_letter():
    mats = _scores()
    df = compare(mats, baseline=["A", "B"])
    md = render_compare(df, baseline=["A", "B"], n_topics=30)
    tex = render_compare(df, baseline=["A", "B"], fmt="tex", n_topics=30)
    rows = {ln.split(" | ")[0].strip("| "): ln for ln in md.splitlines() if ln.startswith("| ")}
    assert list(rows)[1:3] == ["(a) A (baseline)", "(b) B (baseline)"]
    ap = df[df.metric == "AP"].set_index(["run", "other"])
    for run in ("good", "bad", "twin"):
        letters = "".join(x for x, b in (("a", "A"), ("b", "B")) if ap.loc[(run, b), "significant"])
        cell = rows[run].split(" | ")[1]
        assert cell.endswith(f"<sup>{letters}</sup>") if letters else "<sup>" not in cell, (run, cell)
    assert rows["good"].split(" | ")[1].endswith("<sup>ab</sup>")
    assert not ap.loc[("twin", "A"), "significant"]                  # no letter a on the twin of A
    if ap.loc[("B", "A"), "significant"]:              # two baselines mark each other
        assert rows["(a) A (baseline)"].split(" | ")[1].endswith("<sup>b</sup>")
        assert rows["(b) B (baseline)"].split(" | ")[1].endswith("<sup>a</sup>")
    assert "Holm correction over the comparisons with the 2 baselines per metric" in md
    assert r"$^{\mathrm{ab}}$" in tex and "(a) A (baseline) &" in tex
    with pytest.raises(ValueError, match="one baseline"):
        render_compare(df, baseline=["A", "B"], show=["p"])


def test_the_command_takes_several_baselines(tmp_path, capsys):
    from metaeval.cli import main

    mats = _scores()
    d = tmp_path / "m"
    d.mkdir()
    for name, df in mats.items():
        df.rename_axis("topic").to_csv(d / f"{name}.csv")
    out = tmp_path / "out"
    assert main(["compare", "--matrices", str(d), "--baseline", "A", "B", "--out", str(out), "--quiet"]) == 0
    csv = pd.read_csv(out / "compare.csv")
    assert set(csv.other) == {"A", "B"} and len(csv) == 2 * 7
    assert "(b) B (baseline)" in (out / "compare.md").read_text()
    for bad in (["--show", "p"], ["--risk-alpha", "1"]):
        with pytest.raises(SystemExit) as e:
            main(["compare", "--matrices", str(d), "--baseline", "A", "B", *bad, "--quiet"])
        assert e.value.code == 2
    capsys.readouterr()


#: sha256 (first 16 hex digits) of compare.{csv,md,tex} for one baseline, recorded with the code
#: before several baselines were possible (the library versions of constraints.txt)
ONE_BASELINE = {("--show", "p", "es"): ("cc5cc91d0e9f2224", "0b12891c3552bf84", "7708987752e3fd47"),
                ("--risk-alpha", "1", "--test", "wilcoxon"): ("f69e75954f4f96d5", "a1f3c43d6eec95b1",
                                                               "53f4442726235aea")}


def test_one_baseline_writes_the_bytes_it_always_wrote(tmp_path):
    import hashlib

    from metaeval.cli import main

    d = tmp_path / "m"
    d.mkdir()
    for name, df in _scores().items():
        df.rename_axis("topic").to_csv(d / f"{name}.csv")
    for extra, want in ONE_BASELINE.items():
        out = tmp_path / "o"
        assert main(["compare", "--matrices", str(d), "--baseline", "B", *extra, "--out", str(out), "--quiet"]) == 0
        got = tuple(hashlib.sha256((out / f).read_bytes()).hexdigest()[:16]
                    for f in ("compare.csv", "compare.md", "compare.tex"))
        assert got == want, extra
