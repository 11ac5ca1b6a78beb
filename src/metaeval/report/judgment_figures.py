"""The figures of ``metaeval judgments`` (judgments as a dimension): run means under
each qrels set against the reference's, and the ranking agreement by metric.  Drawn as every
figure (:mod:`metaeval.report.figure_layout`); the stage's figures name them
(:attr:`metaeval.stages.Output.draw`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from . import figure_layout as FL          # FL.save_figure: the one place a test captures figures
from .figure_layout import _LEGEND_INSIDE, _no_data, _rc, _style, _unique, new_figure, panel_title, side_legend

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_judgment_run_means", "plot_judgment_taus"]



def _lab(labels: dict | None, name: object) -> str:
    from ..labels import relabel

    return relabel(str(name), labels or {})


def _tau_note(taus: pd.DataFrame | None, metric: str, labels: dict | None) -> str:
    """The taus of one metric for its panel: each set's when few, else their median and range."""
    if taus is None or not len(taus):
        return ""
    d = taus[taus["metric"] == metric]
    t = d["tau"].to_numpy(float)
    if not len(t) or not np.isfinite(t).any():
        return ""
    if len(d) <= 3:
        return "tau " + ", ".join(f"{_lab(labels, s)} {v:.3f}" for s, v in zip(d["qrels"], t))
    return f"tau median {np.nanmedian(t):.3f} (min {np.nanmin(t):.3f}, max {np.nanmax(t):.3f}; {len(d)} sets)"


def _set_legend(fig: Figure, handles: list, names: list, ax: Axes | None = None) -> None:
    """Few sets: the legend in the panel; many: beside the panels (figure widened to fit)."""
    if ax is not None and len(names) <= _LEGEND_INSIDE:
        ax.legend(handles, names, loc="best", ncol=1, frameon=False)
        fig.tight_layout()
    elif names:
        side_legend(fig, handles, names)
    else:
        fig.tight_layout()


def plot_judgment_run_means(run_ranks: pd.DataFrame, path_stem, *, reference: str | None = None,
                            taus: pd.DataFrame | None = None, labels=None) -> list[Path]:
    """Run means under the reference (x) and under each qrels set (y), one panel per metric, the
    diagonal dotted (Voorhees (2000) Fig. 1); one colour per set, the legend beside the panels when
    there are many, each panel's tau (``taus``: the ranking_agreement table) in its title.
    ``reference``: default the first set of the table; ``labels`` ``{name: label}``."""
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
        others = [s for s in _unique(run_ranks["qrels"]) if s != ref]
        handles: dict = {}
        first = None
        for i, m in enumerate(metrics):
            ax = fig.add_subplot(rows, cols, i + 1)
            first = first or ax
            d = run_ranks[run_ranks["metric"] == m]
            x = d[d["qrels"] == ref].set_index("run")["mean"]
            for j, s in enumerate(others):
                y = d[d["qrels"] == s].set_index("run")["mean"].reindex(x.index)
                if not len(y):
                    continue
                st = _style(j, n=len(others))
                h = ax.scatter(x.to_numpy(float), y.to_numpy(float), s=10, color=st["color"], marker=st["marker"],
                               label=_lab(labels, s))
                handles.setdefault(s, h)
            lo = float(np.nanmin(d["mean"].to_numpy(float)))
            hi = float(np.nanmax(d["mean"].to_numpy(float)))
            ax.plot([lo, hi], [lo, hi], color="0.5", linewidth=0.8, linestyle=":")
            ax.set_xlabel(f"mean under {_lab(labels, ref)}")
            ax.set_ylabel("mean under the other set")
            note = _tau_note(taus, m, labels)
            ax.set_title(panel_title(_lab(labels, m) + (f": {note}" if note else ""), 3.0, 9.0))
            ax.grid(True, alpha=0.3)
        names = [s for s in others if s in handles]
        _set_legend(fig, [handles[s] for s in names], [_lab(labels, s) for s in names],
                    first if len(metrics) == 1 else None)
        return FL.save_figure(fig, path_stem)


def plot_judgment_taus(table: pd.DataFrame, path_stem, *, labels=None) -> list[Path]:
    """Kendall's tau with its BCa interval (Efron 1987; error bars, filled markers) and tau_AP (open
    markers) by metric (x) and qrels set (one colour each); the legend names each set once, and
    the two marker kinds, beside the panel when there are many sets."""
    from matplotlib.lines import Line2D

    with _rc():
        sets = _unique(table["qrels"]) if len(table) else []
        metrics = _unique(table["metric"]) if len(table) else []
        fig = new_figure(max(4.0, min(16.0, 1.5 + len(metrics) * (0.6 + 0.1 * len(sets)))), 3.6)
        ax = fig.add_subplot()
        if not len(table):
            _no_data(ax, "ranking agreement")
            return FL.save_figure(fig, path_stem)
        width = 0.8 / max(1, len(sets))
        handles = []
        for j, s in enumerate(sets):
            d = table[table["qrels"] == s].set_index("metric").reindex(metrics)
            x = np.arange(len(metrics)) + (j - (len(sets) - 1) / 2) * width
            tau = d["tau"].to_numpy(float)
            lo, hi = d["tau_ci_low"].to_numpy(float), d["tau_ci_high"].to_numpy(float)
            st = _style(j, n=len(sets))
            ok = np.isfinite(lo) & np.isfinite(hi)
            if ok.any():
                ax.vlines(x[ok], lo[ok], hi[ok], color=st["color"], linewidth=0.8)
            ax.plot(x, tau, linestyle="none", marker=st["marker"], color=st["color"], markersize=4)
            ap = d["tau_ap"].to_numpy(float)
            if np.isfinite(ap).any():
                open_marker = "o" if st["marker"] in ("x", "+") else st["marker"]   # an unfilled marker has no edge
                ax.scatter(x, ap, s=14, facecolors="none", edgecolors=st["color"], marker=open_marker)
            handles.append(Line2D([], [], linestyle="none", marker=st["marker"], color=st["color"], markersize=4))
        kinds = [Line2D([], [], linestyle="none", marker="o", color="0.3", markersize=4),
                 Line2D([], [], linestyle="none", marker="o", markerfacecolor="none", markeredgecolor="0.3",
                        markersize=4)]
        ax.set_xticks(range(len(metrics)))
        ax.set_xticklabels([_lab(labels, m) for m in metrics], rotation=30, ha="right")
        ax.set_ylabel("correlation with the reference ranking")
        vals = table[["tau", "tau_ap", "tau_ci_low"]].to_numpy(float)
        low = float(np.nanmin(vals)) if np.isfinite(vals).any() else 0.0
        ax.set_ylim(min(0.0, low) - 0.05, 1.02)
        ax.grid(True, alpha=0.3)
        names = [_lab(labels, s) for s in sets] + ["tau (bar: 95% BCa interval)", "tau_AP"]
        _set_legend(fig, handles + kinds, names, ax if len(sets) <= _LEGEND_INSIDE - 2 else None)
        return FL.save_figure(fig, path_stem)
