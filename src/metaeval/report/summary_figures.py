"""The cross-collection figures of ``summary/`` (drawn by :mod:`metaeval.report.summary`): one
bar group per metric and one bar per collection, ASL curves and discriminative power side by side,
run means of every collection in one plot."""

from __future__ import annotations

import math
from pathlib import Path
from collections.abc import Mapping

import numpy as np
import pandas as pd

from . import figure_layout as FL          # FL.save_figure: the one place a test captures figures
from .figure_layout import _COLORS, _legend, _no_data, _rc, _style, _unique, new_figure
from .figures import _draw_asl, _draw_run_means, _ordered_tests, _pick_metric

__all__ = ["plot_metric_by_collection", "plot_asl_by_collection", "plot_run_means_by_collection",
           "plot_discpower_by_collection"]



def plot_metric_by_collection(wide: pd.DataFrame, path_stem, *, ylabel: str, title: str,
                              id_col: str = "metric") -> list[Path]:
    """Grouped bars: one group per metric, one bar per collection (Sakai (2007a) Figs 9-10,
    Sakai (2007b) Figs 14, 15, 20 -- the papers draw them as 3-D bars)."""
    collections = [c for c in wide.columns if c != id_col]
    metrics = [str(m) for m in wide[id_col]] if id_col in wide.columns else []
    with _rc():
        fig = new_figure(max(5.0, 0.55 * len(metrics) * max(1, len(collections)) ** 0.5 + 2), 4.0)
        ax = fig.add_subplot()
        if not metrics or not collections:
            _no_data(ax, title)
            return FL.save_figure(fig, path_stem)
        x = np.arange(len(metrics))
        width = 0.8 / len(collections)
        for i, c in enumerate(collections):
            vals = pd.to_numeric(wide[c], errors="coerce").to_numpy(dtype=float)
            ax.bar(x + (i - (len(collections) - 1) / 2) * width, np.nan_to_num(vals, nan=0.0),
                   width, label=str(c), color=_COLORS[i % len(_COLORS)])
        ax.set_xticks(x)
        ax.set_xticklabels(metrics, rotation=45, ha="right")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
        _legend(ax, len(collections))
        fig.tight_layout()
        return FL.save_figure(fig, path_stem)


def plot_asl_by_collection(asls: Mapping[str, pd.DataFrame], path_stem, *, test: str = "paired",
                           alpha: float = 0.05) -> list[Path]:
    """One panel of ASL curves per collection (Sakai (2007b) Figs 10-13 side by side)."""
    names = list(asls)
    ncols = min(2, max(1, len(names)))
    nrows = max(1, math.ceil(len(names) / ncols))
    with _rc():
        fig = new_figure(5.0 * ncols, 3.6 * nrows)
        if not names:
            _no_data(fig.add_subplot(), f"{test} ASL")
            return FL.save_figure(fig, path_stem)
        axes = fig.subplots(nrows, ncols, squeeze=False)
        palette = _unique(m for df in asls.values() for m in df.loc[df["test"] == test, "metric"])
        for i, name in enumerate(names):
            ax = axes[i // ncols][i % ncols]
            n = _draw_asl(ax, asls[name], test, alpha, palette)
            ax.set_title(f"{name}: {test} test ASL curves")
            _legend(ax, n)
        for j in range(len(names), nrows * ncols):
            axes[j // ncols][j % ncols].set_axis_off()
        fig.tight_layout()
        return FL.save_figure(fig, path_stem)


def plot_run_means_by_collection(run_means: Mapping[str, pd.DataFrame], path_stem, *,
                                 metric: str | None = None) -> list[Path]:
    """The mean ``metric`` (the primary measure; default AP, else each collection's first metric) of
    the runs of every collection in one plot (Sakai (2007a) Fig. 8 / Sakai (2007b) Fig. 1)."""
    with _rc():
        fig = new_figure(5.5, 3.8)
        ax = fig.add_subplot()
        drawn = 0
        chosen = metric
        for i, (name, df) in enumerate(run_means.items()):
            m = _pick_metric(df, metric)
            if m is None or not (df["metric"] == m).any():
                continue
            chosen = chosen or m
            _draw_run_means(ax, df, m, _style(i), f"{name} ({m})" if m != metric else str(name))
            drawn += 1
        if drawn:
            ax.set_xlabel("runs sorted by mean")
            ax.set_ylabel(f"mean {chosen}")
            ax.set_title(f"Distribution of mean {chosen} over the runs")
            ax.grid(True, alpha=0.3)
            _legend(ax, drawn)
        else:
            _no_data(ax, "run means")
        return FL.save_figure(fig, path_stem)


def plot_discpower_by_collection(wide: pd.DataFrame, path_stem, *, alpha: float = 0.05) -> list[Path]:
    """Discriminative power by test across collections: one panel per collection, the tests on
    the x axis, one line per metric (% of pairs with p < alpha).  ``wide``: the summary table
    ``metric, test, COLLECTION...`` (percentages)."""
    collections = [c for c in wide.columns if c not in ("metric", "test")]
    ncols = min(2, max(1, len(collections)))
    nrows = max(1, math.ceil(len(collections) / ncols))
    with _rc():
        fig = new_figure(5.5 * ncols, 3.8 * nrows)
        if not len(wide) or not collections:
            _no_data(fig.add_subplot(), "discriminative power")
            return FL.save_figure(fig, path_stem)
        axes = fig.subplots(nrows, ncols, squeeze=False)
        tests = _ordered_tests(wide["test"])
        metrics = _unique(wide["metric"])
        x = np.arange(len(tests))
        for i, c in enumerate(collections):
            ax = axes[i // ncols][i % ncols]
            val = {(m, t): v for m, t, v in zip(wide["metric"], wide["test"],
                                                  pd.to_numeric(wide[c], errors="coerce"))}
            for k, m in enumerate(metrics):
                ax.plot(x, [val.get((m, t), np.nan) for t in tests], label=str(m), markersize=3,
                        linewidth=1, **_style(k, n=len(metrics)))
            ax.set_xticks(x)
            ax.set_xticklabels(tests, rotation=45, ha="right")
            ax.set_ylabel(f"% pairs with p < {alpha:g}")
            ax.set_ylim(0, 100)
            ax.set_title(f"{c}: discriminative power by test")
            ax.grid(True, alpha=0.3)
        for j in range(len(collections), nrows * ncols):
            axes[j // ncols][j % ncols].set_axis_off()
        _legend(axes[0][0], len(metrics))                    # lays the panels out too
        return FL.save_figure(fig, path_stem)
