"""The outputs of the standardisation stage (Urbano, Lima & Hanjalic 2019): the figures ``standardisation_power`` /
``standardisation_tau`` (named by the stage's figures, :attr:`metaeval.stages.Output.draw`) and
its tables' layouts (:mod:`.standardisation_layouts`); the own jobs' writer writes them with its
tables and folder (:func:`metaeval.pipeline.write_own_outputs`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .standardisation_layouts import LAYOUTS

__all__ = ["LAYOUTS", "plot_standardisation_power", "plot_standardisation_tau",
           "STD_ORDER"]

#: the row order of the standardisations
STD_ORDER = ("raw", "z", "N", "U", "E")


def _stds(df) -> list:
    have = list(dict.fromkeys(df["std"]))
    return [s for s in STD_ORDER if s in have] + [s for s in have if s not in STD_ORDER]


def _legend_no_layout(ax, n: int) -> None:
    """The legend: inside a figure's one panel; of several panels (the same standardisations in
    each), one figure legend below them, drawn for the first; no ``tight_layout`` here: the plotters below lay the figure out once at the end
    (a layout per panel made one 80-run, 25-metric figure take 45 s instead of 3 s)."""
    from .figure_layout import _LEGEND_INSIDE, side_legend

    if len(ax.figure.axes) > 1:                       # panels of every metric: the one legend below them
        if ax is ax.figure.axes[0] and n:
            side_legend(ax.figure, *ax.get_legend_handles_labels())
    elif n and n <= _LEGEND_INSIDE:
        ax.legend(loc="best", ncol=1, frameon=False)
    elif n:
        side_legend(ax.figure, *ax.get_legend_handles_labels())


#: the ticks of the alpha axis of the power curves (log scale): the levels a reader looks for
ALPHA_TICKS = (0.001, 0.005, 0.01, 0.05, 0.1)


def _alpha_axis(ax) -> None:
    """A log-scale alpha axis ticked at :data:`ALPHA_TICKS`, labelled as decimals (``0.05``, not
    ``5 x 10^-2``) turned upright (a panel of a column is narrower than five of them), without minor ticks (at 25 metrics, 50 panels: a thousand tick marks fewer to lay
    out and draw)."""
    from matplotlib.ticker import FixedLocator, NullLocator, StrMethodFormatter

    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(ALPHA_TICKS))
    ax.xaxis.set_major_formatter(StrMethodFormatter("{x:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.tick_params(axis="x", labelrotation=90)          # five decimals side by side need 1.4 in at 7 pt


def plot_standardisation_power(table: pd.DataFrame, path_stem) -> list[Path]:
    """Between collections: power (left) and type I error (right) against alpha, one line per
    standardisation, one row per metric (Urbano et al. 2019)."""
    import math

    from .figure_layout import (_no_data, _rc, _style, _unique, block_axes, block_columns, declare_panels, new_figure,
                                save_figure)

    with _rc():
        metrics = _unique(table["metric"]) if len(table) else []
        k = block_columns(len(metrics), 2, 4.5, 3.4)
        fig = new_figure(9.0 * k, 3.4 * max(1, math.ceil(len(metrics) / k)))
        if not metrics:
            _no_data(fig.add_subplot(), "standardisation")
            return save_figure(fig, path_stem)
        axes = block_axes(fig, len(metrics), 2, k)
        declare_panels(fig, "metrics", "standardisation_between.csv", per=2)
        for i, m in enumerate(metrics):
            sub = table[table["metric"] == m]
            stds = _stds(sub)
            for j, col in enumerate(("power", "type1")):
                ax = axes[i][j]
                for k, s in enumerate(stds):
                    d = sub[sub["std"] == s].sort_values("alpha", kind="mergesort")
                    ax.plot(d["alpha"].to_numpy(float), d[col].to_numpy(float), label=str(s), markersize=3,
                            **_style(k))
                if col == "type1":                                   # the nominal rate: y = alpha
                    a = np.sort(sub["alpha"].astype(float).unique())
                    ax.plot(a, a, color="0.5", linewidth=0.8, linestyle=":")
                _alpha_axis(ax)
                ax.set_xlabel("alpha")
                ax.set_ylabel("power" if col == "power" else "type I error rate")
                ax.set_title(f"{m}: {'power' if col == 'power' else 'type I error'} between collections")
                ax.grid(True, alpha=0.3)
            _legend_no_layout(axes[i][0], len(stds))
        fig.tight_layout()
        return save_figure(fig, path_stem)


def plot_standardisation_tau(table: pd.DataFrame, path_stem) -> list[Path]:
    """Within a collection: mean tau_b (with +- its s.d. over the trials) and tau_AP-b between the
    rankings by raw and standardised means, per standardisation, one panel per metric."""
    import math

    from .figure_layout import (_no_data, _rc, _style, _unique, block_axes, block_columns, declare_panels, new_figure,
                                save_figure)

    with _rc():
        metrics = _unique(table["metric"]) if len(table) else []
        k = block_columns(len(metrics), 1, 4.0, 3.6)
        fig = new_figure(4.0 * k, 3.6 * max(1, math.ceil(len(metrics) / k)))
        if not metrics:
            _no_data(fig.add_subplot(), "standardisation")
            return save_figure(fig, path_stem)
        axes = [b[0] for b in block_axes(fig, len(metrics), 1, k)]
        declare_panels(fig, "metrics", "standardisation_within.csv")
        for ax, m in zip(axes, metrics):
            sub = table[table["metric"] == m]
            stds = _stds(sub)
            d = sub.set_index("std").loc[stds]
            x = np.arange(len(stds))
            ax.errorbar(x - 0.1, d["tau"].to_numpy(float), yerr=np.nan_to_num(d["tau_sd"].to_numpy(float)),
                        fmt="o", capsize=3, label="tau_b", **{k: v for k, v in _style(0).items() if k == "color"})
            ax.plot(x + 0.1, d["tau_ap"].to_numpy(float), "s", label="tau_AP-b",
                    **{k: v for k, v in _style(1).items() if k == "color"})
            ax.set_xticks(x)
            ax.set_xticklabels(stds)
            ax.set_xlabel("standardisation")
            ax.set_ylabel("correlation with raw ranking")
            ax.set_title(f"{m}: within a collection")
            ax.grid(True, alpha=0.3)
            _legend_no_layout(ax, 2)
        fig.tight_layout()
        return save_figure(fig, path_stem)
