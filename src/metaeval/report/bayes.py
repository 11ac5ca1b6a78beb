"""The figures of the bayes stage (Sakai 2017; Benham et al. 2020; its tables,
``tables/bayes_{runs,pairs,fit}.{csv,md,tex}``, the Markdown and LaTeX of ``bayes_pairs`` with the
paired t test's p-value of every pair, :mod:`.bayes_layouts`, are written with them by the own
jobs' writer, :func:`metaeval.pipeline.write_own_outputs`): the figures ``figures/bayes_intervals.{png,pdf}`` (every run's 95% credible interval, best first) and
``figures/bayes_p_greater.{png,pdf}`` (the ``P(row > column)`` matrix), drawn from the tables as the
pipeline draws them (the plotters the figures declare, :attr:`metaeval.stages.Output.draw`).  The
figures are laid out here, by hand, at the configured width (a column by default): names at 7 pt, at
most :data:`MAX_HEIGHT` tall, every k-th run named on the intervals' axis and the top runs alone in
the matrix when all do not fit (a foot says which); :func:`bayes_labels`: the labels they and the
tables show (``metaeval bayes``, :func:`metaeval.api.bayes`)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from .figure_layout import MAX_HEIGHT

__all__ = ["MAX_HEIGHT", "bayes_labels", "plot_bayes_intervals", "plot_bayes_p_greater"]

# the tallest figure: figure_layout.MAX_HEIGHT (a page of a paper less its caption).  Runs beyond
# what fits are named every k-th (the intervals) or left out (the matrix: the top runs); metrics
# beyond what fits at their panels' least height are left out, the first shown; the foot says so
#: a point size of the texts: the least (tick labels, axis labels, the foot) and the panel titles'
_PT, _TITLE_PT = 7.0, 8.0
#: a run's row on a run axis (inches): a 7 pt name and its gap
_ROW = _PT * 1.25 / 72
#: the narrowest data area of an interval panel, the smallest side of a matrix (inches)
_MIN_DATA, _MIN_SIDE = 1.2, 1.5
#: the largest side of a matrix's cell (inches): a matrix of few runs is not blown up to the width
_MAX_CELL = 0.3
#: the lowest data area of an interval panel and the smallest side of a matrix when the panels of
#: many metrics cannot all get their room within MAX_HEIGHT (inches)
_LEAST = 0.8
#: a tick and its pad (inches), the margin between a panel's texts and its neighbours', the pads
#: of a panel's title and axis label (inches)
_TICK, _MARGIN, _TITLE_PAD, _LABEL_PAD = 0.1, 0.05, 0.07, 0.03


def _line(pt: float) -> float:
    """The height of a line of text at ``pt`` points (inches)."""
    return pt * 1.25 / 72


def _width(fig, text: str, pt: float = _PT) -> float:
    """The width (inches) of ``text`` at ``pt`` points, as the figure's renderer draws it."""
    from matplotlib.font_manager import FontProperties

    r = fig.canvas.get_renderer()
    w, _, _ = r.get_text_width_height_descent(text, FontProperties(size=pt), ismath=False)
    return float(w) / fig.dpi


def _wrap(fig, text: str, width: float, pt: float = _PT) -> list[str]:
    """``text`` in lines no wider than ``width`` inches at ``pt`` points: broken between words, a
    word wider than the width cut."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and _width(fig, f"{lines[-1]} {word}", pt) <= width:
            lines[-1] = f"{lines[-1]} {word}"
            continue
        while len(word) > 1 and _width(fig, word, pt) > width:
            k = len(word) - 1
            while k > 1 and _width(fig, word[:k], pt) > width:
                k -= 1
            lines.append(word[:k])
            word = word[k:]
        lines.append(word)
    return lines


def _axis_names(runs: list[str], width: float) -> dict[str, str]:
    """``{run: its name on an axis}``: under half the figure's ``width`` at 7 pt, shortened as the
    other figures' run names (:func:`metaeval.report.figure_layout.shorten_names`)."""
    from .figure_layout import shorten_names

    chars = max(12, int(0.45 * width * 72 / (_PT * 0.6)))
    if max(map(len, runs), default=0) <= chars:
        return {r: r for r in runs}
    return dict(zip(runs, shorten_names(runs, chars)))


def _place(fig, x: float, y: float, w: float, h: float):
    """Axes ``w`` x ``h`` inches at ``x, y`` inches from the figure's bottom left corner: placed by
    hand (:func:`metaeval.report.figure_layout.fit_to_width` keeps a figure placed by hand as drawn
    at the configured width)."""
    W, H = fig.get_size_inches()
    return fig.add_axes((x / W, y / H, w / W, h / H))


def _foot(fig, lines: list[str]) -> None:
    """What the figure leaves out, below its panels (left-aligned, 7 pt)."""
    if lines:
        W, H = fig.get_size_inches()
        fig.text(_MARGIN / W, 0.5 * _MARGIN / H, "\n".join(lines), fontsize=_PT, ha="left", va="bottom",
                 linespacing=1.1)


def _foot_height(lines: list[str]) -> float:
    """The height (inches) of a foot of ``lines`` (:func:`_foot`), 0 without one."""
    return len(lines) * _line(_PT) + _MARGIN if lines else 0.0


def _metrics_that_fit(fig, metrics: list, cols: int, least: float, csv: str,
                      extra: float = 0.0) -> tuple[list, int, list[str]]:
    """``(metrics shown, rows, foot)``: every metric when its rows of panels at their ``least``
    height (inches) and ``extra`` (a colour bar) fit :data:`MAX_HEIGHT` with two lines of foot to
    spare, else the first that do, which the foot says (every metric in ``csv``)."""
    rows = math.ceil(len(metrics) / cols)
    W = fig.get_size_inches()[0]
    text = f"The first {{}} of {len(metrics)} metrics shown (all in {csv})"
    fit = max(1, int((MAX_HEIGHT - extra - _foot_height(["", "", ""])) // least))
    if rows <= fit:
        return metrics, rows, []
    shown = metrics[:fit * cols]
    return shown, fit, _wrap(fig, text.format(len(shown)), W - 2 * _MARGIN)


def _nth(k: int) -> str:
    return f"{k}{'nd' if k % 10 == 2 and k % 100 != 12 else 'rd' if k % 10 == 3 and k % 100 != 13 else 'th'}"


def _best_first(g: pd.DataFrame) -> list[str]:
    """The runs of one metric's ``bayes_runs`` rows, by decreasing posterior mean (then name)."""
    return [str(r) for r, _ in sorted(zip(g["run"], g["mean"].astype(float)), key=lambda x: (-x[1], str(x[0])))]


def _empty(what: str, path_stem) -> list[Path]:
    from .figure_layout import _no_data, current_settings, new_figure, save_figure

    fig = new_figure(current_settings().width, 2.0)
    _no_data(fig.add_subplot(), what)
    return save_figure(fig, path_stem)


def plot_bayes_intervals(table: pd.DataFrame, path_stem: str | os.PathLike) -> list[Path]:
    """Every run's posterior mean and 95% credible interval, best first (top), a panel per metric,
    laid out at the configured width (a column: 3.17 in): the panels side by side as far as each
    keeps a data area :data:`_MIN_DATA` wide beside its run names, one row of 7 pt per named run,
    the figure at most :data:`MAX_HEIGHT` tall -- beyond, every k-th run named (all ticked), which
    the foot says."""
    from matplotlib.ticker import MaxNLocator

    from .figure_layout import _rc, _unique, current_settings, new_figure, save_figure

    with _rc():
        metrics = _unique(table["metric"]) if len(table) else []
        if not metrics:
            return _empty("bayes_runs", path_stem)
        W = current_settings().width
        fig = new_figure(W, 1.0)                 # sized once its texts are measured
        names = _axis_names(_unique(str(r) for r in table["run"]), W)
        orders = {m: _best_first(table[table["metric"] == m]) for m in metrics}
        n = max(len(o) for o in orders.values())
        left = max(_width(fig, s) for s in names.values()) + _TICK + _MARGIN
        right = 0.15                             # half an x tick label past the data area
        cols = max(1, min(len(metrics), int(W // (left + right + _MIN_DATA))))
        rows = math.ceil(len(metrics) / cols)
        pw = W / cols
        dw = pw - left - right
        xlabel = _wrap(fig, "posterior mean, 95% credible interval", dw)
        titles = {m: _wrap(fig, str(m), pw - 2 * _MARGIN, _TITLE_PT) for m in metrics}
        top = max(map(len, titles.values())) * _line(_TITLE_PT) + _TITLE_PAD + _MARGIN
        bottom = _TICK + _line(_PT) + _LABEL_PAD + len(xlabel) * _line(_PT) + _MARGIN
        span = n + 0.2                           # the y range: a run a unit, 0.1 beyond either end
        metrics, rows, foot = _metrics_that_fit(fig, metrics, cols, top + _LEAST + bottom, "bayes_runs.csv")
        k = 1
        if rows * (top + _ROW * span + bottom) > MAX_HEIGHT - _foot_height(foot):
            longest = f"Every {_nth(99)} of {n} runs named (all in bayes_runs.csv)"
            room = max((MAX_HEIGHT - _foot_height(foot + _wrap(fig, longest, W - 2 * _MARGIN))) / rows
                       - top - bottom, _LEAST)
            k = math.ceil(_ROW * span / room)
            foot = foot + _wrap(fig, f"Every {_nth(k)} of {n} runs named (all in bayes_runs.csv)",
                                W - 2 * _MARGIN)
        dh = max(_ROW * span / k, _LEAST)
        cell = top + dh + bottom
        foot_h = _foot_height(foot)
        fig.set_size_inches(W, rows * cell + foot_h)
        H = rows * cell + foot_h
        for i, m in enumerate(metrics):
            r, c = divmod(i, cols)
            ax = _place(fig, c * pw + left, H - r * cell - top - dh, dw, dh)
            g = table[table["metric"] == m].set_index("run")
            order = orders[m]
            g = g.loc[order]
            y = np.arange(len(order))[::-1]
            mu = g["mean"].to_numpy(float)
            err = np.vstack([mu - g["ci_low"].to_numpy(float), g["ci_high"].to_numpy(float) - mu])
            ax.errorbar(mu, y, xerr=err, fmt="o", markersize=2.0, capsize=1.2, linewidth=0.7, color="#0072B2")
            ax.set_yticks(y[::k], [names[str(r)] for r in order][::k], fontsize=_PT)
            ax.set_yticks(y, minor=True)
            ax.tick_params(axis="y", which="minor", length=1.5)
            ax.set_ylim(-0.6, n - 0.4)
            ax.xaxis.set_major_locator(MaxNLocator(nbins=max(2, int(dw / 0.45))))
            ax.tick_params(axis="x", labelsize=_PT)
            ax.set_title("\n".join(titles[m]), fontsize=_TITLE_PT, pad=_TITLE_PAD * 72)
            ax.set_xlabel("\n".join(xlabel), fontsize=_PT, labelpad=_LABEL_PAD * 72)
            ax.grid(True, axis="x", alpha=0.3)
        _foot(fig, foot)
        return save_figure(fig, path_stem)


def plot_bayes_p_greater(table: pd.DataFrame, path_stem: str | os.PathLike) -> list[Path]:
    """``P(row > column)`` of every pair of runs, runs ordered best first (by the mean difference to
    the others: the order of the posterior means), a panel per metric and one colour bar below,
    laid out at the configured width (a column: 3.17 in): a cell at least 7 pt a side, every run
    shown named on both axes, the figure at most :data:`MAX_HEIGHT` tall -- beyond, the top runs
    of each metric alone, which the foot says (every pair in ``bayes_pairs.csv``)."""
    import matplotlib

    from .figure_layout import _rc, _unique, current_settings, new_figure, save_figure

    with _rc():
        metrics = _unique(table["metric"]) if len(table) else []
        if not metrics:
            return _empty("bayes_pairs", path_stem)
        W = current_settings().width
        fig = new_figure(W, 1.0)                 # sized once its texts are measured
        names = _axis_names(_unique([str(r) for r in table["run"]] + [str(o) for o in table["other"]]), W)
        orders = {}
        for m in metrics:
            g = table[table["metric"] == m]
            score = g.groupby("run", sort=False)["diff"].mean()
            orders[m] = [str(r) for r, _ in sorted(score.items(), key=lambda x: (-float(x[1]), str(x[0])))]
        n = max(len(o) for o in orders.values())
        lw = max(_width(fig, s) for s in names.values())
        left, right = lw + _TICK + _MARGIN, _MARGIN
        cols = max(1, min(len(metrics), int(W // (left + right + _MIN_SIDE))))
        rows = math.ceil(len(metrics) / cols)
        pw = W / cols
        side_w = pw - left - right
        titles = {m: _wrap(fig, str(m), pw - 2 * _MARGIN, _TITLE_PT) for m in metrics}
        top = max(map(len, titles.values())) * _line(_TITLE_PT) + _TITLE_PAD + _MARGIN
        below = lw + _TICK + _MARGIN            # the column names, upright
        bar = 0.08 + 0.08 + _TICK + 2 * _line(_PT) + 0.04 + _MARGIN    # the colour bar, its ticks and label

        metrics, rows, foot = _metrics_that_fit(fig, metrics, cols, top + _LEAST + below, "bayes_pairs.csv",
                                                bar)

        def side(foot_h: float) -> float:
            return min(side_w, max((MAX_HEIGHT - bar - foot_h) / rows - top - below, _LEAST))

        s = min(side(_foot_height(foot)), max(_MAX_CELL * n, _MIN_SIDE))
        shown = min(n, int(s / _ROW + 1e-9))
        if shown < n:
            text = ("The top {} of {} runs by posterior mean" + (", per metric" if len(metrics) > 1 else "")
                    + " (every pair in bayes_pairs.csv)")
            s = side(_foot_height(foot + _wrap(fig, text.format(n, n), W - 2 * _MARGIN)))
            shown = max(2, min(n, int(s / _ROW + 1e-9)))
            foot = foot + _wrap(fig, text.format(shown, n), W - 2 * _MARGIN)
        foot_h = _foot_height(foot)
        cell = top + s + below
        H = rows * cell + bar + foot_h
        fig.set_size_inches(W, H)
        cmap = matplotlib.colormaps["RdBu_r"].with_extremes(bad="0.8")      # the diagonal grey, not 0.5's white
        im = None
        for i, m in enumerate(metrics):
            r, c = divmod(i, cols)
            ax = _place(fig, c * pw + left + (side_w - s) / 2, H - r * cell - top - s, s, s)
            g = table[table["metric"] == m]
            order = orders[m][:shown]
            pos = {run: j for j, run in enumerate(order)}
            keep = np.array([str(a) in pos and str(b) in pos for a, b in zip(g["run"], g["other"])], dtype=bool)
            g = g[keep]
            P = np.full((len(order), len(order)), np.nan)
            P[[pos[str(a)] for a in g["run"]], [pos[str(b)] for b in g["other"]]] = g["p_greater"].to_numpy(float)
            im = ax.imshow(P, vmin=0, vmax=1, cmap=cmap, interpolation="nearest", aspect="auto")
            labels = [names[run] for run in order]
            ax.set_xticks(range(len(order)), labels, rotation=90, fontsize=_PT)
            ax.set_yticks(range(len(order)), labels, fontsize=_PT)
            ax.tick_params(length=2.0, pad=1.5)
            ax.set_title("\n".join(titles[m]), fontsize=_TITLE_PT, pad=_TITLE_PAD * 72)
        bw = min(2.0, W - 2 * _MARGIN - 0.3)
        cax = _place(fig, (W - bw) / 2, foot_h + _MARGIN + 2 * _line(_PT) + 0.04 + _TICK, bw, 0.08)
        assert im is not None                   # a panel per metric, at least one
        cb = fig.colorbar(im, cax=cax, orientation="horizontal", ticks=[0, 0.25, 0.5, 0.75, 1])
        cb.ax.tick_params(labelsize=_PT)
        cb.set_label("P(row > column)", fontsize=_PT, labelpad=2)
        _foot(fig, foot)
        return save_figure(fig, path_stem)


def bayes_labels(result, labels_file=None, run_files=None) -> dict:
    """``{name: label}`` of the runs of ``result`` (:class:`metaeval.meta.bayes.BayesResult`; their
    default labels, :func:`metaeval.labels.default_run_labels`, and those given) and its metrics
    (by any alias) named in ``labels_file`` (a path, a mapping or None: the default run labels
    alone), as ``metaeval compare --labels``; ``run_files`` ({run: path}) gives the runids a file
    may name runs by."""
    from ..labels import labels_for

    runs = list(dict.fromkeys(str(r) for r in result.runs["run"]))
    metrics = list(dict.fromkeys(str(m) for m in result.fit["metric"]))
    return labels_for(runs, metrics, dict(labels_file) if isinstance(labels_file, dict) else labels_file, run_files)
