"""Writing what ``metaeval bayes`` computed (:class:`metaeval.meta.bayes.BayesResult`; Sakai 2017;
Benham et al. 2020): ``tables/bayes_{runs,pairs,fit}.{csv,md,tex}`` (the Markdown and LaTeX of
``bayes_pairs`` with the paired t test's p-value of every pair, :mod:`.bayes_layouts`) and the
figures ``figures/bayes_intervals.{png,pdf}`` (every run's 95% credible interval, best first) and
``figures/bayes_p_greater.{png,pdf}`` (the ``P(row > column)`` matrix), drawn from the tables as the
pipeline draws them (:data:`metaeval.report.figures.PLOTTERS`).  Every file is written atomically; a
failure removes what was written."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["plot_bayes_intervals", "plot_bayes_p_greater", "write_bayes"]

#: inches per run on a run axis (a tick label of fontsize 5 each)
_PER_RUN = 0.1


def _grid(fig, n: int) -> list:
    """``n`` panels in a grid of ``ceil(sqrt(n))`` columns (the unused ones switched off)."""
    k = max(1, math.ceil(math.sqrt(max(n, 1))))
    rows = max(1, math.ceil(max(n, 1) / k))
    axes = fig.subplots(rows, k, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_axis_off()
    return list(axes[:n])


def _best_first(g: pd.DataFrame) -> list[str]:
    """The runs of one metric's ``bayes_runs`` rows, by decreasing posterior mean (then name)."""
    return [str(r) for r, _ in sorted(zip(g["run"], g["mean"].astype(float)), key=lambda x: (-x[1], x[0]))]


def plot_bayes_intervals(table: pd.DataFrame, path_stem: str | os.PathLike) -> list[Path]:
    """Every run's posterior mean and 95% credible interval, best first (top), a panel per metric."""
    from .figure_layout import _no_data, _rc, _unique, declare_panels, new_figure, save_figure

    with _rc():
        metrics = _unique(table["metric"]) if len(table) else []
        runs = _unique(table["run"]) if len(table) else []
        k = max(1, math.ceil(math.sqrt(max(len(metrics), 1))))
        rows = max(1, math.ceil(max(len(metrics), 1) / k))
        fig = new_figure(5.5 * k, rows * (_PER_RUN * len(runs) + 1.4))
        if not metrics:
            _no_data(fig.add_subplot(), "bayes_runs")
            return save_figure(fig, path_stem)
        declare_panels(fig, "metrics", "bayes_runs.csv")
        for ax, m in zip(_grid(fig, len(metrics)), metrics):
            g = table[table["metric"] == m].set_index("run")
            order = _best_first(g.reset_index())
            g = g.loc[order]
            y = np.arange(len(order))[::-1]
            mu = g["mean"].to_numpy(float)
            err = np.vstack([mu - g["ci_low"].to_numpy(float), g["ci_high"].to_numpy(float) - mu])
            ax.errorbar(mu, y, xerr=err, fmt="o", markersize=2.5, capsize=1.5, linewidth=0.8, color="#1f77b4")
            ax.set_yticks(y)
            ax.set_yticklabels(order, fontsize=5)
            ax.set_ylim(-0.8, len(order) - 0.2)
            ax.set_title(str(m), fontsize=9)
            ax.set_xlabel("posterior mean, 95% credible interval", fontsize=8)
            ax.grid(True, axis="x", alpha=0.3)
        fig.tight_layout()
        return save_figure(fig, path_stem)


def plot_bayes_p_greater(table: pd.DataFrame, path_stem: str | os.PathLike) -> list[Path]:
    """``P(row > column)`` of every pair of runs, runs ordered best first (by the mean difference to
    the others), a panel per metric."""
    from .figure_layout import _no_data, _rc, _unique, new_figure, save_figure

    with _rc():
        metrics = _unique(table["metric"]) if len(table) else []
        runs = _unique(list(table["run"]) + list(table["other"])) if len(table) else []
        k = max(1, math.ceil(math.sqrt(max(len(metrics), 1))))
        rows = max(1, math.ceil(max(len(metrics), 1) / k))
        label = 5 * 0.62 / 72 * max((len(str(r)) for r in runs), default=1)     # inches of the longest label
        side = _PER_RUN * len(runs) + label + 0.8
        fig = new_figure(k * (side + 0.8), rows * side)
        if not metrics:
            _no_data(fig.add_subplot(), "bayes_pairs")
            return save_figure(fig, path_stem)
        im = None
        for ax, m in zip(_grid(fig, len(metrics)), metrics):
            g = table[table["metric"] == m]
            score = g.groupby("run", sort=False)["diff"].mean()
            order = [str(r) for r, _ in sorted(score.items(), key=lambda x: (-float(x[1]), str(x[0])))]
            pos = {r: i for i, r in enumerate(order)}
            P = np.full((len(order), len(order)), np.nan)
            P[[pos[str(r)] for r in g["run"]], [pos[str(o)] for o in g["other"]]] = g["p_greater"].to_numpy(float)
            im = ax.imshow(P, vmin=0, vmax=1, cmap="RdBu_r", interpolation="nearest", aspect="auto")
            ax.set_xticks(range(len(order)))
            ax.set_xticklabels(order, rotation=90, fontsize=5)
            ax.set_yticks(range(len(order)))
            ax.set_yticklabels(order, fontsize=5)
            ax.set_title(f"{m}: P(row > column)", fontsize=9)
            fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
        fig.tight_layout()
        return save_figure(fig, path_stem)


def write_bayes(result, out_dir: str | os.PathLike, *, figures: bool = True) -> list[Path]:
    """Write every table and figure of ``result`` (:class:`metaeval.meta.bayes.BayesResult`) under
    ``out_dir``; returns the paths."""
    from .. import outputs as O
    from ..util import atomic_dir_outputs
    from .bayes_layouts import T_PVALUES
    from .tables import write_table

    out = Path(out_dir)
    tables = result.tables
    tp: dict = {}
    for m, p in result.t_pvalues.items():
        g = tables["bayes_pairs"]
        g = g[g["metric"] == m]
        tp.update({(str(m), str(r), str(o)): float(v) for r, o, v in zip(g["run"], g["other"], p)})
    written: list = []                     # removed again if a later file fails
    with atomic_dir_outputs(written):
        for o in O.tables("collection", bayes=True):
            if o.name in tables:
                written += write_table(tables[o.name], out / "tables" / o.name,
                                       context={T_PVALUES: tp} if o.name == "bayes_pairs" else None)
        if figures:
            draw = {"bayes_intervals": plot_bayes_intervals, "bayes_p_greater": plot_bayes_p_greater}
            for o in O.figures("collection", bayes=True):
                if o.name in draw:
                    written += draw[o.name](tables[o.source], out / "figures" / o.name)
    return written
