"""The display of what stage ``ppi`` computed (:class:`metaeval.meta.ppi.PPIResult`): its figures'
plotters (interval width and coverage against the number of labelled topics, the runs' intervals
side by side; the stage declares them, :mod:`metaeval.meta.stages.ppi`, scope ``ppi``) and what its
tables' captions and labels show (:func:`ppi_shown`); :func:`metaeval.pipeline.write_own_outputs`
writes them under ``DIR/tables`` and ``DIR/figures``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from ..meta.ppi import PPIResult

__all__ = ["plot_ppi_coverage", "plot_ppi_intervals", "plot_ppi_width", "ppi_labels", "ppi_shown"]


def ppi_labels(res: PPIResult, labels_file=None) -> dict:
    """``{name: label}`` of the runs (their default labels, :func:`metaeval.labels.default_run_labels`,
    and those given) and the metrics (by any alias) named in ``labels_file`` (a path, a mapping or
    None: the default run labels alone), as ``metaeval compare --labels``."""
    from ..labels import labels_for

    return labels_for([str(r) for r in res.runs], [str(m) for m in res.metrics],
                      dict(labels_file) if isinstance(labels_file, dict) else labels_file)


def _lab(labels: dict | None, name: object) -> str:
    from ..labels import relabel

    return relabel(str(name), labels or {})


def _budget_panels(table: pd.DataFrame, path_stem: str | os.PathLike, y: str, ylabel: str, nominal: float | None,
                   saved: bool = False, labels: dict | None = None) -> list[Path]:
    """One panel per metric of ``y`` against the labelled topics; ``saved``: a second row with the
    human-only topics an equally narrow interval would need (the human line the diagonal)."""
    from .figure_layout import _legend, _no_data, _rc, _style, _unique, new_figure, save_figure

    with _rc():
        metrics = _unique(table["metric"]) if len(table) else []
        saved = saved and "human_only_topics" in table.columns
        rows = 2 if saved else 1
        fig = new_figure(4.2 * max(1, len(metrics)), 3.6 * rows)
        if not metrics:
            _no_data(fig.add_subplot(), "ppi_budget")
            return save_figure(fig, path_stem)
        grid = fig.subplots(rows, len(metrics), squeeze=False)
        for row, (col, label) in enumerate([(y, ylabel)] + ([("human_only_topics", "human-only topics, as narrow")]
                                                             if saved else [])):
            for ax, m in zip(grid[row], metrics):
                g = table[table["metric"] == m]
                for k, est in enumerate(_unique(g["estimator"])):
                    s = g[g["estimator"] == est].sort_values("labelled", kind="mergesort")
                    x, v = s["labelled"].to_numpy(float), s[col].to_numpy(float)
                    if col == "coverage":
                        ax.errorbar(x, v, yerr=2 * np.nan_to_num(s["coverage_se"].to_numpy(float)), label=str(est),
                                    capsize=2, **_style(k))
                    else:
                        ax.plot(x, v, label=str(est), **_style(k))
                if nominal is not None and row == 0:
                    ax.axhline(nominal, color="grey", linestyle="--", linewidth=1)
                    ax.set_ylim(0, 1.02)
                ax.set_title(_lab(labels, m))
                ax.set_xlabel("human-labelled topics")
                ax.set_ylabel(label)
                ax.grid(True, alpha=0.3)
        _legend(grid[0][-1], len(_unique(table["estimator"])))
        fig.tight_layout()
        return save_figure(fig, path_stem)


def plot_ppi_width(table: pd.DataFrame, path_stem: str | os.PathLike, *, labels: dict | None = None) -> list[Path]:
    """Mean interval width against the number of labelled topics, a line per estimator; below, the
    human-only topics an equally narrow interval would need (``human_only_topics``); ``labels``
    ``{name: label}`` of the metrics."""
    return _budget_panels(table, path_stem, "mean_width", "mean interval width", None, saved=True, labels=labels)


def plot_ppi_coverage(table: pd.DataFrame, path_stem: str | os.PathLike, *, alpha: float = 0.05,
                      labels: dict | None = None) -> list[Path]:
    """Coverage against the number of labelled topics (+- 2 s.e.), the nominal 1 - alpha dashed."""
    return _budget_panels(table, path_stem, "coverage", "coverage of the human mean", 1.0 - float(alpha),
                          labels=labels)


def plot_ppi_intervals(table: pd.DataFrame, path_stem: str | os.PathLike, *, labels: dict | None = None) -> list[Path]:
    """Every run's four intervals side by side (runs by their human mean, shown by their ``labels``),
    a panel per metric."""
    from .figure_layout import _no_data, _rc, _style, _unique, new_figure, save_figure

    with _rc():
        metrics = _unique(table["metric"]) if len(table) else []
        runs = _unique(table["run"]) if len(table) else []
        fig = new_figure(max(6.0, 0.28 * len(runs) + 2), 3.4 * max(1, len(metrics)))
        if not metrics:
            _no_data(fig.add_subplot(), "ppi_means")
            return save_figure(fig, path_stem)
        axes = fig.subplots(len(metrics), 1, squeeze=False)[:, 0]
        for ax, m in zip(axes, metrics):
            g = table[table["metric"] == m]
            hm = g[g["estimator"] == "human"].set_index("run")["mean"]
            order = sorted(_unique(g["run"]), key=lambda r: (-float(hm.get(r, np.nan)), r))
            x0 = {r: i for i, r in enumerate(order)}
            ests = _unique(g["estimator"])
            for k, est in enumerate(ests):
                s = g[g["estimator"] == est]
                x = np.array([x0[r] for r in s["run"]], float) + (k - (len(ests) - 1) / 2) * 0.18
                mu = s["mean"].to_numpy(float)
                err = np.vstack([mu - s["ci_low"].to_numpy(float), s["ci_high"].to_numpy(float) - mu])
                st = _style(k)
                ax.errorbar(x, mu, yerr=err, fmt=st["marker"], color=st["color"], markersize=3, capsize=1.5,
                            linewidth=0.8, label=str(est))
            ax.set_xticks(range(len(order)))
            ax.set_xticklabels([_lab(labels, r) for r in order], rotation=90, fontsize=6)
            ax.set_title(_lab(labels, m))
            ax.set_ylabel("mean score")
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(loc="upper right", frameon=False, ncol=len(ests))
        fig.tight_layout()
        return save_figure(fig, path_stem)


def ppi_shown(inputs, frames, params, labels_file=None):
    """What the stage's outputs show of a run (:attr:`metaeval.stages.StageInfo.shown`): its
    result (``inputs.extra["result"]``, a :class:`~metaeval.meta.ppi.PPIResult`) gives the captions
    their runs, human topics and alpha, and the labels of its runs and metrics
    (:func:`ppi_labels` of ``labels_file``)."""
    from .. import outputs as O
    from ..stages import Shown

    res = inputs.extra["result"]
    context = O.caption_context(runs=len(res.runs), topics=len(res.human_topics))
    return Shown(context={**context, "alpha": res.alpha}, labels=ppi_labels(res, labels_file))
