"""The results table (stage results_table): compare's p-values against each measure's best run or
the named baselines, checked against scipy and a literal Holm loop; the order, the bold, the marks,
the legend and the precision of its Markdown/LaTeX."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.meta import stages  # noqa: F401  (the catalogue: MetaConfig)
from metaeval.meta.run import MetaConfig
from metaeval.meta.stages.results_table import RESULTS_COLUMNS, legend_note, results_table
from metaeval.report.results_layouts import decimals_for
from metaeval.report.tables import table_texts

METRICS = ["AP", "nDCG@10", "RR"]


def _mats(seed: int = 3, n: int = 25, m: int = 6) -> dict:
    rng = np.random.default_rng(seed)
    runs = [f"run{i}" for i in range(m)]
    base = rng.random((n, 1))
    return {k: pd.DataFrame(np.clip(base + rng.normal(0, 0.15, (n, m)) + np.linspace(0, 0.2, m) * (j + 1), 0, 1),
                            columns=runs)
            for j, k in enumerate(METRICS)}


def _holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment, as a loop."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out = [0.0] * len(p)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - k) * p[i]))
        out[i] = running
    return out


def test_against_the_best_run_equals_scipy_and_a_holm_loop():
    mats = _mats()
    t = results_table(mats, METRICS, MetaConfig.of(results_primary="nDCG@10"))
    assert tuple(t.columns) == RESULTS_COLUMNS
    assert (t["primary"] == "nDCG@10").all() and (t["test"] == "paired-t").all() and (t["correction"] == "holm").all()
    for m in METRICS:
        X = mats[m]
        best = X.columns[int(np.argmax(X.mean().to_numpy()))]
        others = [r for r in X.columns if r != best]
        p = [stats.ttest_rel(X[r], X[best]).pvalue for r in others]
        padj = _holm(p)
        g = t[t["metric"] == m].set_index("run")
        assert g.loc[best, "against"] == "" and np.isnan(g.loc[best, "p_value"])
        for r, pv, pa in zip(others, p, padj):
            assert g.loc[r, "against"] == best
            assert g.loc[r, "p_value"] == pytest.approx(pv, rel=1e-12, abs=1e-300)
            assert g.loc[r, "p_adjusted"] == pytest.approx(pa, rel=1e-12, abs=1e-300)
            assert bool(g.loc[r, "significant"]) == (pa < 0.05)
            assert g.loc[r, "mean"] == X[r].mean()
            assert g.loc[r, "se"] == pytest.approx(X[r].std(ddof=1) / np.sqrt(len(X)), rel=1e-14)
    # every measure's runs in descending order of the primary measure's mean
    want = list(mats["nDCG@10"].mean().sort_values(ascending=False, kind="stable").index)
    for m in METRICS:
        assert list(t.loc[t["metric"] == m, "run"]) == want


def test_layout_bold_marks_order_and_legend():
    mats = _mats()
    t = results_table(mats, METRICS, MetaConfig.of())          # primary: select_by AP
    cap = legend_note(t)
    assert "paired t-test with Holm's correction" in cap and "alpha = 0.05" in cap
    assert "Runs by descending mean AP" in cap and "significantly worse than the measure's best run" in cap
    md = table_texts(t, "results", kind="results", caption=cap)[".md"].splitlines()
    assert md[2] == "| Run | AP | nDCG@10 | RR |"
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in md[4:]]
    assert [r[0] for r in rows] == list(mats["AP"].mean().sort_values(ascending=False, kind="stable").index)
    for j, m in enumerate(METRICS, 1):
        g = t[t["metric"] == m].set_index("run")
        d = decimals_for(g["se"])
        for r in rows:
            run, cell = r[0], r[j]
            text = f"{g.loc[run, 'mean']:.{d}f}"
            if g.loc[run, "mean"] == g["mean"].max():
                text = f"**{text}**"
            if g.loc[run, "significant"]:
                text += "†"
            assert cell == text, (m, run)
    assert any("†" in c for r in rows for c in r)               # the data have marks
    tex = table_texts(t, "results", kind="results", caption=cap)[".tex"]
    assert r"$^\dagger$" in tex and r"\textbf{" in tex


def test_named_baselines_get_letters_and_one_family():
    mats = _mats()
    t = results_table(mats, METRICS, MetaConfig.of(results_baselines=("run1", "run3")))
    from metaeval.meta.compare import compare

    ref = compare(mats, baseline=["run1", "run3"], test="paired-t")
    merged = t.merge(ref, left_on=["metric", "run", "against"], right_on=["metric", "run", "other"])
    assert len(merged) == len(ref)
    assert (merged["p_adjusted_x"] == merged["p_adjusted_y"]).all()
    cap = legend_note(t)
    assert "superscript letters" in cap and "a: run1, b: run3" in cap
    md = table_texts(t, "results", kind="results")[".md"]
    assert "| Run | Baseline | AP | nDCG@10 | RR |" in md
    assert "| run1 | a |" in md and "| run3 | b |" in md


def test_precision_follows_the_standard_error():
    assert decimals_for([0.12]) == 2 and decimals_for([0.012, 0.5]) == 3 and decimals_for([0.0012]) == 4
    assert decimals_for([0.00001]) == 4 and decimals_for([]) == 4


def test_a_bad_primary_or_test_correction_pair_is_one_message():
    with pytest.raises(ValueError, match="primary measure 'P@5' is not among"):
        results_table(_mats(), METRICS, MetaConfig.of(results_primary="P@5"))
    with pytest.raises(ValueError, match="rthsd controls the family-wise error rate itself"):
        results_table(_mats(), METRICS, MetaConfig.of(results_test="rthsd", results_correction="holm"))


def test_no_plain_measure_gives_an_empty_table():
    t = results_table(_mats(), [], MetaConfig.of())
    assert list(t.columns) == list(RESULTS_COLUMNS) and len(t) == 0 and legend_note(t) == ""
    assert table_texts(t, "results", kind="results")[".md"].splitlines()[2] == "| Run |"
