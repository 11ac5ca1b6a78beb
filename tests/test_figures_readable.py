"""Figures a reader can read: rank_correlation.png's panel titles do not overlap at any metric
count and undefined cells say so (``n/a`` and a note); run_means.png plots every metric and names
every run.  (Drawn and looked at while writing: the checks here are on the figure objects.)"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from metaeval.report import figures as F


@pytest.fixture
def captured(monkeypatch):
    figs = []

    def keep(fig, stem):
        figs.append(fig)
        return []

    monkeypatch.setattr(F, "save_figure", keep)
    return figs


def _rank_table(metrics, undefined_ref=None, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for a, b in itertools.permutations(metrics, 2):
        row = {"metric_a": a, "metric_b": b}
        for c in F.RANKCORR_TITLES:
            row[c] = float(rng.uniform(-0.2, 1.0))
        if a == undefined_ref:                      # ties in the reference: tau_AP(-a) undefined
            row["tau_ap"] = row["tau_ap_a"] = np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def _overlaps(boxes):
    return [(i, j) for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2) if a.overlaps(b)]


@pytest.mark.parametrize("n", [2, 3, 5, 13])
def test_rank_correlation_titles_do_not_overlap(n, captured):
    metrics = [f"metric{i}" for i in range(n)]
    F.plot_rank_correlation(_rank_table(metrics), "unused")
    fig = captured[-1]
    r = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert len(axes) == 8
    titles = [ax.title.get_window_extent(r) for ax in axes]
    assert not _overlaps(titles), [axes[i].get_title() for pair in _overlaps(titles) for i in pair]
    # each title within its panel's width (it cannot reach the neighbour's)
    for ax, t in zip(axes, titles):
        box = ax.get_window_extent(r)
        assert t.x0 >= box.x0 - 0.15 * fig.dpi and t.x1 <= box.x1 + 0.15 * fig.dpi, ax.get_title()


def test_rank_correlation_marks_undefined_cells(captured):
    metrics = ["AP", "RR", "nDCG@10"]
    F.plot_rank_correlation(_rank_table(metrics, undefined_ref="RR"), "unused")
    fig = captured[-1]
    panels = {ax.get_title().split("\n")[0]: ax for ax in fig.axes if ax.get_title()}
    na = [(t.get_text(), t.get_position()) for t in panels["tau_AP"].texts if "n/a" in t.get_text()]
    # row RR (y = 1): the cells of AP (x = 0) and nDCG@10 (x = 2), the diagonal between them blank
    assert [(s, round(x, 6), y) for s, (x, y) in na] == [("n/a", 0.0, 1), ("n/a", 2.0, 1)]
    assert not [t for t in panels["RBO"].texts if "n/a" in t.get_text()]
    notes = [t.get_text() for t in fig.texts]
    assert any(s.startswith("n/a (grey): undefined") and "tau_AP: either ranking has ties" in s for s in notes)
    # nothing undefined: no note
    F.plot_rank_correlation(_rank_table(metrics), "unused")
    assert not captured[-1].texts


def test_run_means_plots_every_metric_and_names_the_runs(captured):
    rng = np.random.default_rng(2)
    runs = [f"run-{k}" for k in range(12)]
    metrics = ["RR", "AP", "nDCG@10", "Q-measure"]
    df = pd.DataFrame([(m, r, float(rng.uniform())) for m in metrics for r in runs],
                      columns=["metric", "run", "mean"])
    F.plot_run_means(df, "unused")
    ax = captured[-1].axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["AP", "RR", "nDCG@10", "Q-measure"]
    by_ap = df[df.metric == "AP"].sort_values("mean", ascending=False)["run"].tolist()
    assert [t.get_text() for t in ax.get_xticklabels()] == by_ap
    for line in ax.get_lines():                     # each line the metric's means in that run order
        want = df[df.metric == line.get_label()].set_index("run").loc[by_ap, "mean"].to_numpy()
        np.testing.assert_array_equal(line.get_ydata(), want)
    F.plot_run_means(df, "unused", metrics=["AP", "RR"])
    assert [ln.get_label() for ln in captured[-1].axes[0].get_lines()] == ["AP", "RR"]
