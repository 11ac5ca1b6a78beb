"""The figures of ``metaeval judgments`` (judgments as a dimension, issue 28): run means under
each qrels set against the reference's, and the ranking agreement by metric.  Drawn as every
figure (:mod:`metaeval.report.figure_layout`); :data:`metaeval.report.figures.PLOTTERS` maps the
declared figures here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import figure_layout as FL          # FL.save_figure: the one place a test captures figures
from .figure_layout import _legend, _no_data, _rc, _style, _unique, new_figure

__all__ = ["plot_judgment_run_means", "plot_judgment_taus"]



def plot_judgment_run_means(run_ranks: pd.DataFrame, path_stem, *, reference: str | None = None) -> list[Path]:
    """Run means under the reference (x) and under each qrels set (y), one panel per metric, the
    diagonal dotted (Voorhees (2000) Fig. 1).  ``reference``: default the first set of the table."""
    with _rc():
        metrics = _unique(run_ranks["metric"]) if len(run_ranks) else []
        n = max(1, len(metrics))
        cols = min(n, 3)
        rows = -(-n // cols)
        fig = new_figure(3.2 * cols, 3.0 * rows)
        if not metrics:
            _no_data(fig.add_subplot(), "run means")
            return FL.save_figure(fig, path_stem)
        ref = reference or run_ranks["qrels"].iloc[0]
        for i, m in enumerate(metrics):
            ax = fig.add_subplot(rows, cols, i + 1)
            d = run_ranks[run_ranks["metric"] == m]
            x = d[d["qrels"] == ref].set_index("run")["mean"]
            others = [s for s in _unique(d["qrels"]) if s != ref]
            for j, s in enumerate(others):
                y = d[d["qrels"] == s].set_index("run")["mean"].reindex(x.index)
                st = _style(j)
                ax.scatter(x.to_numpy(float), y.to_numpy(float), s=10, color=st["color"], marker=st["marker"],
                           label=str(s))
            lo = float(np.nanmin(d["mean"].to_numpy(float)))
            hi = float(np.nanmax(d["mean"].to_numpy(float)))
            ax.plot([lo, hi], [lo, hi], color="0.5", linewidth=0.8, linestyle=":")
            ax.set_xlabel(f"mean under {ref}")
            ax.set_ylabel("mean under the other set")
            ax.set_title(str(m))
            ax.grid(True, alpha=0.3)
            _legend(ax, len(others))
        fig.tight_layout()
        return FL.save_figure(fig, path_stem)


def plot_judgment_taus(table: pd.DataFrame, path_stem) -> list[Path]:
    """Kendall's tau with its bootstrap interval (error bars) and tau_AP (open markers) by metric
    (x) and qrels set (one series each)."""
    with _rc():
        fig = new_figure(max(4.0, 1.2 * max(1, table["metric"].nunique() if len(table) else 1) + 2.0), 3.6)
        ax = fig.add_subplot()
        if not len(table):
            _no_data(ax, "ranking agreement")
            return FL.save_figure(fig, path_stem)
        metrics = _unique(table["metric"])
        sets = _unique(table["qrels"])
        width = 0.8 / max(1, len(sets))
        for j, s in enumerate(sets):
            d = table[table["qrels"] == s].set_index("metric").reindex(metrics)
            x = np.arange(len(metrics)) + (j - (len(sets) - 1) / 2) * width
            tau = d["tau"].to_numpy(float)
            lo, hi = d["tau_ci_low"].to_numpy(float), d["tau_ci_high"].to_numpy(float)
            st = _style(j)
            # the percentile interval need not contain the point (bootstrap taus run low): drawn as is
            ax.vlines(x, lo, hi, color=st["color"], linewidth=0.8)
            ax.plot(x, tau, linestyle="none", marker=st["marker"], color=st["color"], markersize=4,
                    label=f"{s}: tau")
            ax.scatter(x, d["tau_ap"].to_numpy(float), s=14, facecolors="none", edgecolors=st["color"],
                       marker=st["marker"], label=f"{s}: tau_AP")
        ax.set_xticks(range(len(metrics)))
        ax.set_xticklabels(metrics, rotation=30, ha="right")
        ax.set_ylabel("correlation with the reference ranking")
        ax.set_ylim(min(0.0, float(np.nanmin(table[["tau", "tau_ap", "tau_ci_low"]].to_numpy(float)))) - 0.05, 1.02)
        ax.grid(True, alpha=0.3)
        _legend(ax, 2 * len(sets))
        fig.tight_layout()
        return FL.save_figure(fig, path_stem)
