"""The figures of the simulated error rates of the test_errors stage (Urbano, Lima & Hanjalic 2019;
written with its tables and folder by the own jobs' writer, :func:`metaeval.pipeline.write_own_outputs`):
``tables/test_errors_{type1,power,type3}.{csv,md,tex}``, ``test_errors/{margins,copulas}.csv`` and
the figures ``figures/test_errors_type1.{png,pdf}`` (rate against alpha per test, one panel per metric
and topic set size), ``figures/test_errors_power.{png,pdf}`` (power against delta at alpha = 0.05) and
``figures/test_errors_type3.{png,pdf}`` (the type III error rate against delta at alpha = 0.05),
drawn from the tables as the pipeline draws them (the plotters the stage's figures name:
:attr:`metaeval.stages.Output.draw`)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["plot_test_errors_type1", "plot_test_errors_power",
           "plot_test_errors_type3"]



def _panels(table, path_stem, x: str, ylabel: str, title, diagonal: bool = False, ylim=None) -> list[Path]:
    """One panel per metric and topic set size (a block of panels per metric, the blocks wrapping
    so that the figure keeps within :data:`metaeval.report.figure_layout.MAX_ASPECT`): ``rate``
    against ``x``, one line per test, its binomial standard error ``se`` as a band."""
    import math

    import numpy as np

    from .figure_layout import (_legend, _no_data, _rc, _style, _unique, block_axes, block_columns, declare_panels,
                                new_figure, save_figure)

    with _rc():
        metrics = _unique(table["metric"]) if len(table) else []
        sizes = sorted(int(n) for n in table["n_topics"].unique()) if len(table) else []
        k = block_columns(len(metrics), max(1, len(sizes)), 4.2, 3.8)
        fig = new_figure(4.2 * max(1, len(sizes)) * k, 3.8 * max(1, math.ceil(len(metrics) / k)))
        if not metrics:
            _no_data(fig.add_subplot(), "test_errors")
            return save_figure(fig, path_stem)
        blocks = block_axes(fig, len(metrics), len(sizes), k)
        declare_panels(fig, "metrics", f"{Path(path_stem).name}.csv", per=max(1, len(sizes)))
        for i, m in enumerate(metrics):
            g = table[table["metric"] == m]
            for j, n in enumerate(sizes):
                ax, h = blocks[i][j], g[g["n_topics"] == n]
                tests = _unique(h["test"])
                for t, test in enumerate(tests):
                    s = h[h["test"] == test].sort_values(x, kind="mergesort")
                    xs, ys = s[x].to_numpy(float), s["rate"].to_numpy(float)
                    style = {kk: v for kk, v in _style(t).items() if kk != "marker"}
                    (line,) = ax.plot(xs, ys, marker="o", markersize=3, label=str(test), **style)
                    if "se" in s.columns:
                        se = np.nan_to_num(s["se"].to_numpy(float))
                        ax.fill_between(xs, ys - se, ys + se, alpha=0.15, color=line.get_color(), linewidth=0)
                if diagonal and len(h):
                    lim = float(h[x].max())
                    ax.plot([0, lim], [0, lim], color="grey", linestyle="--", linewidth=1)
                if ylim:
                    ax.set_ylim(*ylim)
                ax.set_title(title(m, n), fontsize=10)
                ax.set_xlabel(x)
                ax.set_ylabel(ylabel)
                ax.grid(True, alpha=0.3)
            _legend(blocks[i][-1], len(_unique(g["test"])))
        fig.tight_layout()
        return save_figure(fig, path_stem)


def plot_test_errors_type1(table, path_stem) -> list[Path]:
    """Type I error rate against alpha per test, one panel per metric and topic set size (the
    diagonal rate = alpha dashed; Urbano, Lima & Hanjalic 2019, Figs. 2-3)."""
    return _panels(table, path_stem, "alpha", "type I error rate", lambda m, n: f"{m}, {n} topics", diagonal=True)


def _at_alpha(table):
    if len(table):
        alpha = 0.05 if (table["alpha"] == 0.05).any() else float(table["alpha"].iloc[0])
        return table[table["alpha"] == alpha], alpha
    return table, 0.05


def plot_test_errors_power(table, path_stem) -> list[Path]:
    """Power against delta per test at alpha = 0.05 (else the first level), with its standard
    error, one panel per metric and topic set size (Urbano, Lima & Hanjalic 2019, Figs. 4-5)."""
    table, alpha = _at_alpha(table)
    return _panels(table, path_stem, "delta", "power", lambda m, n: f"{m}, {n} topics, alpha = {alpha:g}",
                   ylim=(0, 1))


def plot_test_errors_type3(table, path_stem) -> list[Path]:
    """Type III error rate (significant in the wrong direction) against delta per test at alpha =
    0.05 (else the first level), with its standard error, one panel per metric and topic set size
    (Urbano, Lima & Hanjalic 2019, Fig. 6)."""
    table, alpha = _at_alpha(table)
    return _panels(table, path_stem, "delta", "type III error rate",
                   lambda m, n: f"{m}, {n} topics, alpha = {alpha:g}")
