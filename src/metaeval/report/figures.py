"""The meta-evaluation figures, drawn from the tables' CSVs alone (PNG and PDF, same stem).

Every function takes the DataFrame read from a table CSV (see ``docs/outputs.md``) and a path stem,
and returns ``[STEM.png, STEM.pdf]``.  Drawing uses ``matplotlib.figure.Figure`` with the Agg canvas
(no pyplot, no display, no global backend switch), matplotlib's default style (a user's
``matplotlibrc`` does not leak in), ``svg.hashsalt`` fixed, and no creation date / software
version in the files, so a rerun writes byte-identical PNG and PDF files.  Each file is written
atomically.

Which figures exist, the table each is drawn from, its caption and the paper figure it
regenerates are declared in :mod:`metaeval.outputs`, each figure with its drawing function
(:attr:`metaeval.stages.Output.draw`, found by :func:`plotter`; the summary figures are drawn by
:mod:`metaeval.report.summary` with :mod:`metaeval.report.summary_figures`).
"""

from __future__ import annotations

import math
from pathlib import Path
from collections.abc import Callable, Mapping

import matplotlib
import numpy as np
import pandas as pd
import matplotlib.colors

from .. import outputs as O
from ..meta.bootstrap import tstar_asl
from .csvio import read_table
from .figure_layout import (DPI, MANY_COLORS, MAX_HEIGHT, MIN_PT, PANEL_MIN_WIDTH, SEQUENTIAL, current_settings, _COLORS, _LEGEND_INSIDE, _RC, _legend, _no_data, _rc, _style, _unique,  # noqa: F401
                            declare_panels, first_shown, new_figure, palette_png, panel_title, save_figure, side_legend)

__all__ = [
    "plot_run_means", "plot_asl_curves", "plot_swap_rates", "plot_mr_pt", "plot_tstar",
    "make_all_figures", "plotter", "figure_kwargs", "save_figure", "new_figure",
    "plot_rank_correlation",
    "plot_pvalue_curves",
]

# the drawing basics (style, rc, figure, saving, legends) live in report/figure_layout.py, which the
# plug-in figure modules (report/standardisation.py, ...) import without importing this module


def _pick_metric(df: pd.DataFrame, metric: str | None) -> str | None:
    metrics = _unique(df["metric"]) if len(df) else []
    if metric is not None and (metric in metrics or not metrics):
        return metric
    for m in ("AP", "AveP"):
        if m in metrics:
            return m
    return metrics[0] if metrics else None


# --------------------------------------------------------------------------------------------
# per-collection figures
# --------------------------------------------------------------------------------------------

def _draw_run_means(ax, df: pd.DataFrame, metric: str, style: dict, label: str | None) -> None:
    vals = np.sort(df.loc[df["metric"] == metric, "mean"].to_numpy(dtype=float))[::-1]
    ax.plot(np.arange(1, len(vals) + 1), vals, label=label, markersize=3, **style)


def short_name(name: str, chars: int) -> str:
    """``name`` in at most ``chars`` characters: its start and end around an ellipsis (run names
    differ at either end: a team's prefix, a variant's suffix)."""
    if len(name) <= chars:
        return name
    head = (chars - 1) // 2
    return name[:head] + "\u2026" + name[len(name) - (chars - 1 - head):]


#: height of a run's row in the run-means figure (inches): a 7 pt name and its gap
RUN_ROW = 0.12
#: runs up to which every run is named; beyond, every k-th (the rest ticked, unnamed)
RUNS_NAMED = 90


def _run_names(names: list[str]) -> list[str]:
    """Run names for a y axis: under half the figure's width at 7 pt (long names: their shared
    prefix and suffix off, then :func:`short_name`)."""
    chars = max(12, int(0.45 * current_settings().width * 72 / (MIN_PT * 0.6)))
    if max(map(len, names), default=0) <= chars:
        return names
    from ..labels import default_run_labels

    short = default_run_labels(names)
    return [short_name(short.get(r, r), chars) for r in names]


def plot_run_means(run_means: pd.DataFrame, path_stem, *, metric: str | None = None,
                   metrics: list[str] | None = None) -> list[Path]:
    """Mean score of every run under every metric of the table (or ``metrics``), one line per
    metric, the runs named on the y axis (horizontal names, 7 pt, one row each: readable at the
    column width with 60 runs, every k-th named beyond :data:`RUNS_NAMED`) and sorted by their
    mean ``metric`` (default AP, else the first metric), best at the top (Sakai (2007a) Fig. 8 /
    Sakai (2007b) Fig. 1, which plot AP alone)."""
    with _rc():
        order_by = _pick_metric(run_means, metric)
        shown = [m for m in (metrics if metrics is not None else _unique(run_means["metric"]))
                 if (run_means["metric"] == m).any()] if len(run_means) else []
        if order_by is None or not (run_means["metric"] == order_by).any() or not shown:
            fig = new_figure(5.0, 3.5)
            _no_data(fig.add_subplot(), f"run means of {order_by}")
            return save_figure(fig, path_stem)
        if order_by in shown:                                # the ordering metric first
            shown = [order_by] + [m for m in shown if m != order_by]
        wide = run_means.pivot_table(index="run", columns="metric", values="mean", sort=False)
        runs = wide[order_by].sort_values(ascending=False, kind="stable").index.tolist()
        n = len(runs)
        fig = new_figure(current_settings().width, max(2.0, RUN_ROW * n + 1.0))
        ax = fig.add_subplot()
        y = np.arange(n)
        for i, m in enumerate(shown):
            ax.plot(wide.loc[runs, m].to_numpy(dtype=float), y, label=m,
                    linewidth=1.6 if m == order_by else 0.8, **_style(i, n=len(shown)))
        step = max(1, math.ceil(n / RUNS_NAMED))
        ax.set_yticks(y[::step], _run_names([str(r) for r in runs])[::step])
        ax.set_yticks(y, minor=True)
        ax.set_ylim(n - 0.5, -0.5)                           # the best run at the top
        ax.set_ylabel(f"runs, by mean {order_by}")
        ax.set_xlabel("mean over the topics")
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_title(f"Mean score of every run ({len(shown)} metric{'s' if len(shown) != 1 else ''})")
        if len(shown) > 1:
            fig.legend(*ax.get_legend_handles_labels(), loc="lower center", frameon=False)
        return save_figure(fig, path_stem)


def _curves(frame: pd.DataFrame, value: str) -> dict[str, dict]:
    """``{test: {metric: values of column value, sorted}}``, tests and metrics in order of first
    appearance (as :func:`_unique`): one factorisation of each text column instead of a
    comparison of millions of strings per test and metric (campaign scale: 8 million p-values)."""
    tc, tests = pd.factorize(frame["test"], sort=False, use_na_sentinel=False)
    mc, metrics = pd.factorize(frame["metric"], sort=False, use_na_sentinel=False)
    v = frame[value].to_numpy(dtype=float)
    out: dict[str, dict] = {}
    for i, t in enumerate(tests):
        rows = np.flatnonzero(tc == i)
        sub = mc[rows]
        out[t] = {metrics[j]: np.sort(v[rows[sub == j]]) for j in pd.unique(sub)}
    return out


def _draw_asl(ax, asl: pd.DataFrame, test: str, alpha: float, palette: list | None = None) -> int:
    curves = _curves(asl, "asl").get(test, {})
    metrics = list(curves)
    palette = palette or metrics                 # a metric keeps its colour across panels
    for m in metrics:
        vals = curves[m]
        ax.plot(np.arange(1, len(vals) + 1), vals, label=str(m), linewidth=1,
                **_style(palette.index(m), marker=False, n=len(palette)))
    if metrics:
        ax.axhline(alpha, color="black", linewidth=0.6, linestyle=":")
        ax.set_xlabel("system pairs sorted by ASL")
        ax.set_ylabel("ASL")
        ax.set_ylim(0, 1)
        ax.grid(True, alpha=0.3)
    else:
        _no_data(ax, f"{test} ASL")
    return len(metrics)


def plot_asl_curves(asl: pd.DataFrame, path_stem, *, test: str = "paired",
                    alpha: float = 0.05) -> list[Path]:
    """ASL of every system pair, pairs sorted by ASL, one line per metric (Sakai (2007b) Figs 10-13)."""
    with _rc():
        fig = new_figure(6.0, 4.0)
        ax = fig.add_subplot()
        n = _draw_asl(ax, asl, test, alpha)
        ax.set_title(f"{test.capitalize()} test ASL curves (alpha = {alpha:g})")
        _legend(ax, n)
        return save_figure(fig, path_stem)


def plot_swap_rates(swap_rates: pd.DataFrame, path_stem, *, threshold: float = 0.05) -> list[Path]:
    """Swap rate against performance-difference bin (lower edge), one line per metric."""
    with _rc():
        fig = new_figure(6.0, 4.0)
        ax = fig.add_subplot()
        metrics = _unique(swap_rates["metric"])
        for i, m in enumerate(metrics):
            sub = swap_rates[swap_rates["metric"] == m].sort_values("bin", kind="mergesort")
            rate = sub["swap_rate"].to_numpy(dtype=float)
            if "comparisons" in sub.columns:
                rate = np.where(sub["comparisons"].to_numpy(dtype=float) > 0, rate, np.nan)
            ax.plot(sub["bin"].to_numpy(dtype=float), rate, label=str(m), markersize=3, **_style(i, n=len(metrics)))
        if metrics:
            ax.axhline(threshold, color="black", linewidth=0.6, linestyle=":")
            ax.set_xlabel("performance difference bin (lower edge)")
            ax.set_ylabel("swap rate")
            ax.set_title("Swap rate against performance difference")
            ax.grid(True, alpha=0.3)
            _legend(ax, len(metrics))
        else:
            _no_data(ax, "swap rates")
        return save_figure(fig, path_stem)


def plot_mr_pt(stability: pd.DataFrame, path_stem) -> list[Path]:
    """MR-PT curves: minority rate against proportion of ties as f varies (Sakai (2007b) Figs 17-18)."""
    with _rc():
        fig = new_figure(5.0, 4.0)
        ax = fig.add_subplot()
        metrics = _unique(stability["metric"])
        for i, m in enumerate(metrics):
            sub = stability[stability["metric"] == m].sort_values("f", kind="mergesort")
            ax.plot(sub["proportion_ties"].to_numpy(dtype=float),
                    sub["minority_rate"].to_numpy(dtype=float), label=str(m), markersize=3,
                    **_style(i, n=len(metrics)))
        if metrics:
            ax.set_xlabel("proportion of ties (PT)")
            ax.set_ylabel("minority rate (MR)")
            ax.set_title("MR-PT curves")
            ax.grid(True, alpha=0.3)
            _legend(ax, len(metrics))
        else:
            _no_data(ax, "stability")
        return save_figure(fig, path_stem)


def plot_tstar(tstar: pd.DataFrame, path_stem, *, bins: int = 40) -> list[Path]:
    """Histogram of the bootstrap t* of the chosen pair, observed t marked (Sakai (2007b) Figs 4-5).

    One panel per metric.
    """
    metrics = _unique(tstar["metric"])
    ncols = min(3, max(1, len(metrics)))
    nrows = max(1, math.ceil(len(metrics) / ncols))
    with _rc():
        fig = new_figure(3.2 * ncols, 2.6 * nrows)
        if not metrics:
            _no_data(fig.add_subplot(), "t*")
            return save_figure(fig, path_stem)
        axes = fig.subplots(nrows, ncols, squeeze=False)
        declare_panels(fig, "metrics", "tstar.csv")
        for i, m in enumerate(metrics):
            ax = axes[i // ncols][i % ncols]
            sub = tstar[tstar["metric"] == m]
            ts = sub["t_star"].to_numpy(dtype=float)
            ts = ts[np.isfinite(ts)]
            t0 = float(sub["t_observed"].iloc[0])
            lo, hi = (min(ts.min(), t0), max(ts.max(), t0)) if len(ts) else (t0 - 1, t0 + 1)
            if lo == hi:
                lo, hi = lo - 1, hi + 1
            edges = np.linspace(lo, hi, bins + 1)
            if np.isfinite(edges).all():                      # hist's bars as one outline: ~2x faster to draw
                ax.stairs(np.histogram(ts, bins=edges)[0], edges, fill=True, color=_COLORS[0], alpha=0.8)
            else:                                             # no finite t* and t undefined: no bar, as hist draws
                ax.hist(ts, bins=edges, color=_COLORS[0], alpha=0.8)
            ax.axvline(t0, color=_COLORS[1], linewidth=1.2, label=f"observed t = {t0:.3f}")
            asl = tstar_asl(ts, t0)
            x, y = (short_name(str(sub[c].iloc[0]), 16) for c in ("system_x", "system_y"))
            ax.set_title(f"{m}: {x} vs {y}\nt = {t0:.3f} (line), B = {len(ts)}, ASL = {asl:.3f}",
                         fontsize=_RC["axes.titlesize"])
            ax.set_xlabel("t*")
            ax.set_ylabel("frequency")
        for j in range(len(metrics), nrows * ncols):
            axes[j // ncols][j % ncols].set_axis_off()
        fig.tight_layout()
        return save_figure(fig, path_stem)


#: the coefficients of the ``rank_correlation`` table, in its column order, with the
#: panel titles of :func:`plot_rank_correlation`
RANKCORR_TITLES = {"tau_a": "Kendall's tau-a", "tau_b": "Kendall's tau-b",
                   "tau_ap": "tau_AP (Yilmaz et al. 2008)",
                   "tau_ap_a": "tau_AP-a (Urbano & Marrero 2017)",
                   "tau_ap_b": "tau_AP-b (Urbano & Marrero 2017)",
                   "rbo": "RBO (Webber et al. 2010)", "rbo_a": "RBO^a (Corsi & Urbano 2024)",
                   "rbo_b": "RBO^b (Corsi & Urbano 2024)"}


def _tau_text(v: float) -> str:
    s = f"{v:.2f}"
    return s[1:] if s.startswith("0.") else ("-" + s[2:] if s.startswith("-0.") else s)


#: the values below which a cell of the cividis scale (-1 .. 1) is dark: printed white
_DARK_BELOW = -0.1
_CELL_CHARS = 5            # characters per heat-map cell (".86" centred in 5)
_MONO_ADVANCE = 0.6021     # advance of every DejaVu Sans Mono glyph, in em (1233 / 2048)
_VALUE_PT_MAX = 10.0       # wide cells (few metrics) keep this size, with more characters per cell


def _print_values(ax, mat: np.ndarray, fontsize: float, chars: int = _CELL_CHARS) -> None:
    """Print ``mat``'s finite values in their cells, white on dark cells (cividis below
    :data:`_DARK_BELOW`), black
    elsewhere.  One text per run of adjacent cells of a row with the same colour, in a monospaced
    font whose pitch puts exactly ``chars`` characters in a cell, so each value sits
    centred in its cell; a few hundred texts instead of one per cell (drawing a text costs about
    a millisecond per format)."""
    n = mat.shape[1]
    for i in range(n):
        row = mat[i]
        j = 0
        while j < n:
            if not np.isfinite(row[j]):
                j += 1
                continue
            dark = row[j] < _DARK_BELOW
            start = j
            while j < n and np.isfinite(row[j]) and (row[j] < _DARK_BELOW) == dark:
                j += 1
            text = "".join(_tau_text(v).center(chars) for v in row[start:j])
            lead = len(text) - len(text.lstrip())
            trail = len(text) - len(text.rstrip())
            # centre of the printed characters, in cell units (cell c spans c - 0.5 .. c + 0.5)
            x = start - 0.5 + (lead + len(text) - trail) / 2.0 / chars
            ax.text(x, i, text.strip(), ha="center", va="center", fontsize=fontsize,
                    family="DejaVu Sans Mono", color="white" if dark else "black",
                    parse_math=False)


def _print_undefined(ax, undefined: np.ndarray, fontsize: float, chars: int = _CELL_CHARS) -> None:
    """``n/a`` in every undefined cell (one text per run of adjacent cells of a row, placed as
    :func:`_print_values` places values)."""
    n = undefined.shape[1]
    for i in range(n):
        j = 0
        while j < n:
            if not undefined[i, j]:
                j += 1
                continue
            start = j
            while j < n and undefined[i, j]:
                j += 1
            text = "n/a".center(chars) * (j - start)
            lead = len(text) - len(text.lstrip())
            trail = len(text) - len(text.rstrip())
            x = start - 0.5 + (lead + len(text) - trail) / 2.0 / chars
            ax.text(x, i, text.strip(), ha="center", va="center", fontsize=fontsize,
                    family="DejaVu Sans Mono", color="0.35", parse_math=False)


#: why a coefficient can be undefined (the figure's note; docs/outputs.md)
_UNDEFINED_WHY = {"tau_ap": "tau_AP: either ranking has ties", "tau_ap_a": "tau_AP-a: the reference a has ties"}


def plot_rank_correlation(table: pd.DataFrame, path_stem) -> list[Path]:
    """The ``rank_correlation`` table as heat maps: one panel per coefficient (2 rows of 4), each
    the full metric x metric matrix (row = reference ranking a, column = estimate b) on one
    diverging colour scale from -1 to 1, values printed to 2 decimals; undefined values are grey
    cells marked ``n/a`` and explained in a note below the panels, the diagonal is blank (Yilmaz et
    al. (2008), Urbano & Marrero (2017), Webber et al. (2010), Corsi & Urbano (2024)).  Metric names
    label the outer panels only; panel titles are two lines (name, citation) and a panel is at
    least as wide as its title.  The panels are placed by fixed margins computed from the metric
    names (no tight layout: with some 1,000 printed values, every extra draw costs seconds)."""
    coefs = [c for c in RANKCORR_TITLES if c in table.columns]
    metrics = (_unique(m for pr in zip(table["metric_a"], table["metric_b"]) for m in pr)
               if len(table) and {"metric_a", "metric_b"} <= set(table.columns) else [])
    n = len(metrics)
    with _rc():
        if not metrics or not coefs:
            fig = new_figure(5.0, 3.5)
            _no_data(fig.add_subplot(), "rank correlations")
            return save_figure(fig, path_stem)
        width = current_settings().width
        size, title_pt = MIN_PT, _RC["axes.titlesize"]        # metric names, titles (points)
        row = size * 1.25 / 72                                # a name's row (inches)
        right, gap = 0.75, 0.12

        def panels(names: list[str], ncols: int) -> tuple[float, float]:
            label = max(len(v) for v in names) * size * 0.6 / 72 + 0.1      # inches
            return label, (width - label - 0.3 - right - (ncols - 1) * gap) / ncols

        most = max(1, min(4, len(coefs), int(width // PANEL_MIN_WIDTH)))  # 2 panels a column, 4 a text width
        every = list(coefs)

        def layout(names: list[str], key: str, ncols: int, shown: list[str]) -> dict:
            """The panels of ``shown`` in ``ncols`` columns: their sizes, titles, foot and the height."""
            label, side = panels(names, ncols)
            nrows = math.ceil(len(shown) / ncols)
            titles = {c: "\n(".join(panel_title(part, side + gap, title_pt) for part in RANKCORR_TITLES[c].split(" (", 1))
                      for c in shown}
            title_h = max(t.count("\n") + 1 for t in titles.values()) * title_pt * 1.25 / 72 + 0.08
            why = [c for c in shown if pd.to_numeric(table[c], errors="coerce").isna().any()]
            note = ("n/a (grey): undefined" + (f" ({'; '.join(_UNDEFINED_WHY[c] for c in why if c in _UNDEFINED_WHY)})"
                                                if any(c in _UNDEFINED_WHY for c in why) else "")) if why else ""
            cut = first_shown(len(shown), len(every), "coefficients", "rank_correlation.csv") \
                if len(shown) < len(every) else ""
            foot = "\n".join(panel_title(t, width - 0.2, size) for t in (note, key, cut) if t)
            note_h = (foot.count("\n") + 1) * size * 1.3 / 72 + 0.1 if foot else 0.0
            top, bottom = title_h + 0.05, label + 0.35 + note_h
            return {"label": label, "side": side, "nrows": nrows, "titles": titles, "title_h": title_h, "foot": foot,
                    "top": top, "bottom": bottom, "height": top + nrows * side + (nrows - 1) * title_h + bottom}

        names, key, step = [str(m) for m in metrics], "", 1
        for ncols in range(most, 0, -1):                      # the names on the axes, a cell a 7 pt line
            label, side = panels(names, ncols)
            if side >= 0.6 and side / n >= row and (ncols == most or layout(names, key, ncols, coefs)["height"] <= MAX_HEIGHT):
                break
        else:                                                 # too many or too long: numbered, with a key
            ncols = most
            names = [str(i + 1) for i in range(n)]
            label, side = panels(names, ncols)
            step = max(1, math.ceil(row / (side / n)))
            key = "; ".join(f"{i + 1} {m}" for i, m in enumerate(metrics))
        lay = layout(names, key, ncols, coefs)
        while lay["height"] > MAX_HEIGHT and len(coefs) > ncols:    # the first coefficients, a row fewer
            coefs = coefs[:(math.ceil(len(coefs) / ncols) - 1) * ncols]
            lay = layout(names, key, ncols, coefs)
        label, side, nrows, titles, title_h = lay["label"], lay["side"], lay["nrows"], lay["titles"], lay["title_h"]
        foot, top, bottom, height = lay["foot"], lay["top"], lay["bottom"], lay["height"]
        left = label + 0.3
        cell = side / n
        fig = new_figure(width, height)
        index = {m: i for i, m in enumerate(metrics)}
        ia = table["metric_a"].map(index).to_numpy(dtype=int)
        ib = table["metric_b"].map(index).to_numpy(dtype=int)
        cmap = matplotlib.colormaps[SEQUENTIAL].with_extremes(bad="white")   # uniform lightness: readable in grey
        grey = matplotlib.colors.ListedColormap(["0.88"]).with_extremes(bad=(0, 0, 0, 0))
        # the values in a monospaced font, `chars` characters per cell (see _print_values): at most
        # _VALUE_PT_MAX points, so wide cells (few metrics) get more characters, not bigger ones
        chars = max(_CELL_CHARS, math.ceil(cell * 72.0 / (_VALUE_PT_MAX * _MONO_ADVANCE)))
        chars += 1 - chars % 2                  # odd, as 5: a 3-character value sits exactly centred
        mono = cell * 72.0 / (chars * _MONO_ADVANCE)
        single = False
        if mono < MIN_PT:                       # too small a cell for 5 characters at 7 pt: a text per value
            chars = 0                           # when 3 characters and a gap fit, else the colours alone
            single = cell * 72.0 >= 3 * _MONO_ADVANCE * MIN_PT + 2.0
        image = None
        for k, c in enumerate(coefs):
            r, q = divmod(k, ncols)
            x0 = left + q * (side + gap)
            y0 = height - top - (r + 1) * side - r * title_h
            ax = fig.add_axes((x0 / width, y0 / height, side / width, side / height))
            mat = np.full((n, n), np.nan)
            mat[ia, ib] = pd.to_numeric(table[c], errors="coerce").to_numpy(dtype=float)
            undefined = np.zeros((n, n), dtype=bool)
            undefined[ia, ib] = ~np.isfinite(mat[ia, ib])
            np.fill_diagonal(undefined, False)
            np.fill_diagonal(mat, np.nan)
            image = ax.imshow(np.ma.masked_invalid(mat), cmap=cmap, vmin=-1.0, vmax=1.0,
                              interpolation="nearest", aspect="auto")
            if undefined.any():
                ax.imshow(np.ma.masked_where(~undefined, np.ones((n, n))), cmap=grey, vmin=0.0, vmax=1.0,
                          interpolation="nearest", aspect="auto")
                if chars:
                    _print_undefined(ax, undefined, mono, chars)
            if chars:                           # else the colours alone (the values: the table)
                _print_values(ax, mat, mono, chars)
            elif single:
                for i, j in zip(*np.nonzero(np.isfinite(mat) | undefined)):
                    v = mat[i, j]
                    ax.text(j, i, "n/a" if undefined[i, j] else _tau_text(v), ha="center", va="center",
                            fontsize=MIN_PT, family="DejaVu Sans Mono", parse_math=False,
                            color="0.35" if undefined[i, j] else ("white" if v < _DARK_BELOW else "black"))
            # metric names on the outer panels only (every panel has the same rows and columns)
            bottom_row = r == nrows - 1 or k + ncols >= len(coefs)
            if bottom_row:
                ax.set_xticks(np.arange(n)[::step], names[::step], rotation=90 if not key else 0, fontsize=size)
            else:
                ax.set_xticks([])
            if q == 0:
                ax.set_yticks(np.arange(n)[::step], names[::step], fontsize=size)
            else:
                ax.set_yticks([])
            ax.set_title(titles[c], fontsize=title_pt, linespacing=1.1)
            if q == 0:
                ax.set_ylabel("reference a")
            if bottom_row:
                ax.set_xlabel("estimate b")
        cax = fig.add_axes(((width - right + 0.15) / width, bottom / height, 0.12 / width,
                            (height - top - bottom) / height))
        assert image is not None                              # a panel was drawn
        fig.colorbar(image, cax=cax, ticks=[-1.0, -0.5, 0.0, 0.5, 1.0])
        if foot:
            fig.text(0.1 / width, 0.08 / height, foot, ha="left", va="bottom", fontsize=size, linespacing=1.1)
        return save_figure(fig, path_stem)


# --------------------------------------------------------------------------------------------
# discriminative power (stage discpower): p-value curves, and discriminative power by test
# --------------------------------------------------------------------------------------------

#: the tests of ``pvalues.csv`` in the order of metaeval.meta.discpower.TESTS (spelt out: this
#: module does not import the scipy-based meta.discpower)
DISCPOWER_TESTS = ("rthsd", "tukey-hsd", "paired-t", "paired-t-holm", "paired-t-bh", "wilcoxon", "sign",
                   "paired-bootstrap", "unpaired-bootstrap")


def _ordered_tests(values) -> list:
    present = _unique(values)
    return [t for t in DISCPOWER_TESTS if t in present] + [t for t in present if t not in DISCPOWER_TESTS]


def plot_pvalue_curves(pvalues: pd.DataFrame, path_stem, *, alpha: float = 0.05) -> list[Path]:
    """p-value curves (Sakai (2014); the ASL curves of Sakai (2007b) Figs 10-13 for every test):
    one panel per test, the p-values of every system pair sorted, one line per metric (a metric
    keeps its colour across panels), alpha dotted."""
    curves = _curves(pvalues, "p_value") if len(pvalues) else {}
    tests = _ordered_tests(list(curves))
    ncols = min(3, max(1, len(tests)))
    nrows = max(1, math.ceil(len(tests) / ncols))
    with _rc():
        fig = new_figure(3.4 * ncols, 2.8 * nrows)
        if not tests:
            _no_data(fig.add_subplot(), "p-values")
            return save_figure(fig, path_stem)
        axes = fig.subplots(nrows, ncols, squeeze=False)
        declare_panels(fig, "tests", "pvalues.csv")
        palette = [m for m in pd.factorize(pvalues["metric"], sort=False, use_na_sentinel=False)[1]]
        for i, t in enumerate(tests):
            ax = axes[i // ncols][i % ncols]
            for m, vals in curves[t].items():
                ax.plot(np.arange(1, len(vals) + 1), vals, label=str(m), linewidth=1,
                        **_style(palette.index(m), marker=False, n=len(palette)))
            ax.axhline(alpha, color="black", linewidth=0.6, linestyle=":")
            ax.set_ylim(0, 1)
            ax.set_title(f"{t} (alpha = {alpha:g})")
            ax.set_xlabel("pairs by p-value")
            ax.set_ylabel("p-value")
            ax.grid(True, alpha=0.3)
        for j in range(len(tests), nrows * ncols):
            axes[j // ncols][j % ncols].set_axis_off()
        handles, labels = axes[0][0].get_legend_handles_labels()
        if len(labels) > _LEGEND_INSIDE:                     # many metrics: beside the panels
            side_legend(fig, handles, labels)
            return save_figure(fig, path_stem)
        fig.legend(handles, labels, loc="lower center", ncol=min(6, max(1, len(labels))), frameon=False)
        fig.tight_layout(rect=(0, 0.03 + 0.025 * math.ceil(len(labels) / 6), 1, 1))
        return save_figure(fig, path_stem)


def plot_incompleteness(table: pd.DataFrame, path_stem) -> list[Path]:
    """tau (left) and tau_AP (right) against the level, one row per method, one line per metric
    with its s.d. band over trials (Buckley & Voorhees 2004; Sakai SIGIR 2007; Zobel 1998;
    Sakai & Kando 2008)."""
    with _rc():
        methods = _unique(table["method"]) if len(table) else []
        fig = new_figure(8.0, 3.5 * max(1, len(methods)))
        if not methods:
            _no_data(fig.add_subplot(), "incompleteness")
            return save_figure(fig, path_stem)
        metrics = _unique(table["metric"])
        axes = fig.subplots(len(methods), 2, squeeze=False)
        declare_panels(fig, "methods", "incompleteness.csv", per=2)     # a method's two panels in a row
        for j, method in enumerate(methods):
            sub = table[table["method"] == method]
            for row, col in enumerate(("tau", "tau_ap")):
                ax = axes[j][row]
                for i, m in enumerate(metrics):
                    d = sub[sub["metric"] == m].copy()
                    d["x"] = d["level"].astype(float)
                    d = d.sort_values("x", kind="mergesort")
                    x, y = d["x"].to_numpy(float), d[col].to_numpy(float)
                    (line,) = ax.plot(x, y, label=str(m), markersize=3, **_style(i, n=len(metrics)))
                    if col == "tau":
                        sd = np.nan_to_num(d["tau_sd"].to_numpy(float))
                        ax.fill_between(x, y - sd, y + sd, alpha=0.12 if len(metrics) <= _LEGEND_INSIDE else 0.04,
                                        color=line.get_color())
                ax.set_xlabel("fraction of judgments kept" if method in ("judged", "stratified") else "pool depth")
                ax.set_ylabel("Kendall's tau-a" if col == "tau" else "tau_AP")
                ax.set_title(f"{method}: {'tau' if col == 'tau' else 'tau_AP'}")
                ax.grid(True, alpha=0.3)
        _legend(axes[0][-1], len(metrics))
        return save_figure(fig, path_stem)


def plot_pool_reuse(table: pd.DataFrame, path_stem) -> list[Path]:
    """Pool reuse: delta (reduced - full mean) of every left-out run, one line per metric, the runs
    named on the y axis as in :func:`plot_run_means` (Zobel 1998; Büttcher et al. 2007)."""
    with _rc():
        runs_df = table[table["group"] != "all"] if len(table) else table
        if not len(runs_df):
            fig = new_figure(5.0, 3.5)
            _no_data(fig.add_subplot(), "pool reuse")
            return save_figure(fig, path_stem)
        metrics = _unique(runs_df["metric"])
        runs = _unique(runs_df["run"])
        n = len(runs)
        fig = new_figure(current_settings().width, max(2.0, RUN_ROW * n + 1.0))
        ax = fig.add_subplot()
        pos = {r: i for i, r in enumerate(runs)}
        for i, m in enumerate(metrics):
            d = runs_df[runs_df["metric"] == m]
            ax.plot(d["delta"].to_numpy(float), [pos[r] for r in d["run"]], label=str(m), **_style(i, n=len(metrics)))
        ax.axvline(0.0, color="0.5", linewidth=0.8, linestyle=":")
        step = max(1, math.ceil(n / RUNS_NAMED))
        ax.set_yticks(np.arange(n)[::step], _run_names([str(r) for r in runs])[::step])
        ax.set_yticks(np.arange(n), minor=True)
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_xlabel("reduced - full mean")
        ax.set_title("pool reuse (leave one group out)")
        ax.grid(True, axis="x", alpha=0.3)
        if len(metrics) > 1:
            fig.legend(*ax.get_legend_handles_labels(), loc="lower center", frameon=False)
        return save_figure(fig, path_stem)


# --------------------------------------------------------------------------------------------
# every figure of one collection
# --------------------------------------------------------------------------------------------

def plotter(name: str) -> tuple[Callable[..., list[Path]], dict]:
    """``(draw, keyword arguments)`` of the figure whose layout key is ``name`` (``NAME`` per
    collection, ``SCOPE_NAME`` in a stage's own scope): the plotter and fixed keyword arguments its
    stage declares (:attr:`metaeval.stages.Output.draw`, ``draw_kwargs``); the configured ones:
    :func:`figure_kwargs`."""
    from ..meta import stages

    for s in stages.REGISTRY:
        for o in s.outputs:
            if o.kind == "figure" and o.layout == name and o.draw is not None:
                return stages.resolve(o.draw), dict(o.draw_kwargs)
    raise KeyError(f"no plotter for figure {name!r} (its stage declares it: Output(..., draw=...))")


def figure_kwargs(name: str, *, measure: str | None = None, **params: float) -> dict:
    """The keyword arguments of figure ``name``'s plotter: its fixed ones and those its output
    declares (:attr:`metaeval.stages.Output.plot_params`) from the configured values -- the
    caption parameters ``params`` (``alpha``, ``swap_threshold``; a parameter not given its
    default) and ``measure`` (the primary measure, which orders the runs; None: not passed)."""
    _, fixed = plotter(name)
    kwargs = dict(fixed)
    out = O.for_layout(name, "figure")
    values: dict = dict(O.caption_values(**params), measure=measure)
    for keyword, value in (out.plot_params if out is not None else ()):
        if values[value] is not None:
            kwargs[keyword] = values[value]
    return kwargs


def relabel_frame(df: pd.DataFrame, labels) -> pd.DataFrame:
    """``df`` with every text value that is a run or measure name replaced by its label
    (:mod:`metaeval.labels`): what a figure drawn from the table shows."""
    if not labels:
        return df
    from ..labels import relabel

    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col].dtype):
            # each distinct value relabelled once (a p-value table repeats a few names millions of times)
            vals = out[col].to_numpy(dtype=object)
            codes, distinct = pd.factorize(vals)
            shown = np.array([relabel(v, labels) if isinstance(v, str) else v for v in distinct] + [None],
                             dtype=object)[codes]
            missing = codes < 0
            shown[missing] = vals[missing]
            out[col] = shown.tolist()
    return out


def make_all_figures(tables_dir, figures_dir, *, labels=None, select_by: str | None = None,
                     frames: Mapping[str, pd.DataFrame] | None = None, **params: float) -> list[Path]:
    """Draw every declared per-collection figure (:func:`metaeval.outputs.figures`) whose input
    ``TABLE.csv`` exists in ``tables_dir``; ``params``: the caption parameters' configured values
    (``alpha``, ``swap_threshold``: the dotted lines and titles); ``labels`` ({name: label}) name the runs and measures;
    ``select_by``: the configured measure ranking the runs (the run means' order when they hold it,
    else their first metric).  ``frames``: the tables themselves instead (``{TABLE: DataFrame}``,
    each as its CSV holds it: :func:`metaeval.report.tables.csv_frame`; ``tables_dir`` is not
    read), the figures of those only -- ``metaeval meta`` draws from the tables it has just
    written without reading them back."""
    tables_dir, figures_dir = Path(tables_dir), Path(figures_dir)
    measure = None if select_by is None else dict(labels or {}).get(select_by, select_by)
    cache: dict[str, pd.DataFrame] = {}
    written: list[Path] = []
    for out in O.figures("collection"):
        source = out.source
        if source is None:
            continue
        csv = tables_dir / f"{source}.csv"
        if (source not in frames) if frames is not None else not csv.is_file():
            continue
        if source not in cache:
            cache[source] = relabel_frame(frames[source] if frames is not None else read_table(csv), labels)
        draw, _ = plotter(out.layout)
        written += draw(cache[source], figures_dir / out.name,
                        **figure_kwargs(out.layout, measure=measure, **params))
    return written

