"""Layout helpers of the figures, sized for print and readable with 80+ runs and 25 measures:
every figure saved at the configured width (``figures: {width: column | text | INCHES}``: a column
of a two-column paper, 3.17 in, by default), every text at least :data:`MIN_PT` points at that
size (set in points at the final size: a figure is laid out again at its width, never shrunk),
panels wrapped into the columns the width holds, legends below the panels, the Okabe & Ito (2008)
colours (a line style and marker each besides, readable in grey), the configured formats (vector
PDF beside the PNG), and the PNG stored with a 256-colour palette (the HTML report embeds every
figure).  Used by :mod:`metaeval.report.figures`; tests/unit/test_figures_readable.py and
tests/pipeline/test_figures_print.py check the result."""

from __future__ import annotations

from typing import Any

import contextlib
import math
import warnings
import io
from pathlib import Path
from collections.abc import Iterator

import matplotlib
import matplotlib.colors
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..util import atomic_dir_outputs, atomic_write

__all__ = ["MANY_COLORS", "palette_png", "side_legend", "panel_title", "DPI", "new_figure", "save_figure",
           "FigureSettings", "WIDTHS", "FORMATS", "MIN_PT", "parse_width", "parse_formats", "figure_settings",
           "current_settings", "fit_to_width", "SEQUENTIAL", "MAX_HEIGHT", "declare_panels", "first_shown"]

from .figure_size import (FORMATS, MIN_PT, WIDTH_RANGE, WIDTHS, FigureSettings, current_settings,  # noqa: F401
                          figure_settings, parse_formats, parse_width)

#: the categorical colours of Okabe & Ito (2008), distinguishable by colour-blind readers; beyond
#: eight series the line style and marker tell them apart (in grey too)
OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"]
#: sequential colour map, uniform in lightness (readable in grey) and for colour-blind readers
SEQUENTIAL = "cividis"
#: kept for the plug-in modules: as many colours as series, the Okabe-Ito ones repeated
MANY_COLORS = OKABE_ITO


def palette_png(png: bytes) -> bytes:
    """The PNG with at most 256 colours, no dithering, deterministic: a third of the size for line
    plots and heat maps that look the same (the HTML report embeds every figure; the PDF keeps the
    vector drawing).  A drawing of 256 colours or fewer keeps them exactly; one of more (the
    anti-aliased edges of lines and text) is reduced by a fast octree, which on this project's
    figures is four times faster than median cut, gives smaller files and departs less from the
    drawing (largest channel difference about 45 of 255 against 75)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        rgb = im.convert("RGB")
        few = rgb.getcolors(256) is not None
        q = rgb.quantize(256, method=Image.Quantize.MEDIANCUT if few else Image.Quantize.FASTOCTREE,
                         dither=Image.Dither.NONE)
    out = io.BytesIO()
    q.save(out, format="PNG")
    return out.getvalue()


def side_legend(fig, handles, labels) -> None:
    """A figure legend for many series (25, long names): drawn below the panels by
    :func:`save_figure` (:func:`fit_to_width`), in as many columns as the width holds, the figure
    made taller by its height so that nothing covers the data."""
    fig.legend(handles, labels, loc="lower center", frameon=False)


def panel_title(text: str, width_in: float, pt: float = 8.0) -> str:
    """``text`` wrapped to lines that fit a panel ``width_in`` inches wide at ``pt`` points
    (DejaVu Sans averages under 0.6 em a character): titles of long names do not run into the
    neighbouring panel's."""
    import textwrap

    chars = max(12, int(width_in * 72 / (pt * 0.6)) - 2)
    return "\n".join(textwrap.wrap(text, chars, break_long_words=True, break_on_hyphens=False))


# ------------------------------------------------------------------ the drawing basics
DPI = 150
_RC: dict[Any, Any] = {"svg.hashsalt": "metaeval", "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8,
       "xtick.labelsize": 7, "ytick.labelsize": 7, "legend.fontsize": 7, "figure.titlesize": 8,
       "legend.title_fontsize": 7, "lines.linewidth": 1.0, "lines.markersize": 3,
       "pdf.compression": 6, "pdf.fonttype": 42, "figure.dpi": DPI}
_PNG_META = {"Software": None}
_PDF_META = {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}

#: the series colours: Okabe-Ito, blue and vermillion first, yellow last (faint on white)
_COLORS = [OKABE_ITO[i] for i in (4, 5, 2, 0, 6, 1, 7, 3)]
_MARKERS = ["o", "s", "^", "v", "D", "x", "+", "*", "<", ">", "p", "h"]
_LINES = ["-", "--", "-.", ":"]


def _style(i: int, marker: bool = True, n: int = 0) -> dict:
    """Line style of series ``i``: an Okabe-Ito colour, beyond eight series a second line style
    (``n``, the number of series, kept for the callers)."""
    st = {"color": _COLORS[i % len(_COLORS)], "linestyle": _LINES[(i // len(_COLORS)) % len(_LINES)]}
    if marker:                      # each colour's k-th repeat a marker further on: 96 series, a style each
        st["marker"] = _MARKERS[(i + i // len(_COLORS)) % len(_MARKERS)]
    return st


@contextlib.contextmanager
def _rc() -> Iterator[None]:
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        matplotlib.rcParams.update(_RC)
        yield


def new_figure(width: float = 6.0, height: float = 4.0) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


#: no figure is more than this many times as wide as tall, or as tall as wide (panels wrap)
MAX_ASPECT = 4.5


def block_columns(n_blocks: int, block_cols: int, panel_w: float, panel_h: float) -> int:
    """How many blocks of ``block_cols`` panels (``panel_w`` x ``panel_h`` inches) side by side:
    the count whose figure is nearest a 4:3 landscape, within :data:`MAX_ASPECT` either way."""
    import math

    n_blocks = max(1, n_blocks)  # an empty table still draws its one "no data" panel
    best, score = 1, None
    for k in range(1, n_blocks + 1):
        w, h = k * block_cols * panel_w, math.ceil(n_blocks / k) * panel_h
        bad = max(w / h, h / w) > MAX_ASPECT
        s = (bad, abs(math.log((w / h) / (4 / 3))))
        if score is None or s < score:
            best, score = k, s
    return best


def block_axes(fig: Figure, n_blocks: int, block_cols: int, k: int) -> list[list]:
    """A grid of ``n_blocks`` blocks of ``block_cols`` panels, ``k`` blocks a row: the axes of each
    block (the grid's unused panels switched off)."""
    import math

    rows = max(1, math.ceil(n_blocks / k))
    axes = fig.subplots(rows, k * block_cols, squeeze=False)
    out = []
    for b in range(n_blocks):
        r, c = divmod(b, k)
        out.append([axes[r][c * block_cols + j] for j in range(block_cols)])
    for b in range(n_blocks, rows * k):
        r, c = divmod(b, k)
        for j in range(block_cols):
            axes[r][c * block_cols + j].set_axis_off()
    return out


def _within_aspect(fig: Figure) -> None:
    """Make a figure wider than :data:`MAX_ASPECT` times its height taller (the axes keep their
    fractions of the figure; the width is the configured one)."""
    w, h = fig.get_size_inches()
    if w > MAX_ASPECT * h:
        fig.set_size_inches(w, w / MAX_ASPECT)


#: the narrowest panel of a grid (inches): an axis with 7 pt tick labels and its label; a grid of
#: more columns than the width holds of these is wrapped into fewer (two to a 3.17 in column)
PANEL_MIN_WIDTH = 1.55
#: the lowest panel (inches)
PANEL_MIN_HEIGHT = 1.4
#: no figure is taller than this (inches), at any width: the figure and its caption fit the page of
#: a 10 pt two-column article, the lower of the two classes' (tests/_latex.py; acmart sigconf's is
#: 626 pt, its captions 9 pt).  The article's text height, 550 pt, less \abovecaptionskip (10 pt)
#: and 13 caption lines of 12 pt (156 pt: the longest figure caption, rank_correlation's 618
#: characters, sets 13 lines in the 229.5 pt column, 163.4 pt with the skip, measured with
#: pdflatex), leaves 384 pt = 5.33 in; 5.3 in = 381.6 pt.  A figure that would be taller gets lower
#: panels (down to :data:`PANEL_MIN_HEIGHT`), then fewer run names, then its first panels with a
#: foot naming what is left out (:func:`fit_to_width`)
MAX_HEIGHT = 5.3


def _raise_fonts(fig: Figure) -> None:
    """Every text of ``fig`` at least :data:`MIN_PT` points."""
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        if float(t.get_fontsize()) < MIN_PT:
            t.set_fontsize(MIN_PT)


def _grid_panels(fig: Figure):
    """``(rows, columns, panels in reading order)`` of a figure whose axes are the cells of one
    grid (``fig.subplots``); None for one placed by hand (``add_axes``) or spanning cells."""
    axes = fig.axes
    specs = [ax.get_subplotspec() for ax in axes]
    if not axes or any(s is None for s in specs):
        return None
    grids = {id(s.get_gridspec()) for s in specs if s is not None}
    if len(grids) != 1:
        return None
    cells = []
    for ax, s in zip(axes, specs):
        assert s is not None
        if len(s.rowspan) != 1 or len(s.colspan) != 1:
            return None
        cells.append((s.rowspan.start, s.colspan.start, ax))
    nrows, ncols = specs[0].get_gridspec().get_geometry()      # type: ignore[union-attr]
    return nrows, ncols, [ax for _, _, ax in sorted(cells, key=lambda c: (c[0], c[1]))]


def _legend_below(fig: Figure, width: float, spacing: float = 0.5) -> float:
    """The figure's legends (:func:`side_legend`, a legend beside the panels) moved below them, in
    as many columns as ``width`` holds, ``spacing`` em between rows: their height in inches (0: none)."""
    legends = list(fig.legends)
    if not legends:
        return 0.0
    handles: list[Any] = []
    labels: list[str] = []
    for leg in legends:
        handles += list(leg.legend_handles)
        labels += [t.get_text() for t in leg.get_texts()]
        leg.remove()
    r = fig.canvas.get_renderer()                     # type: ignore[attr-defined]  # the Agg canvas
    ncol = max(1, min(len(labels), 8))
    while True:
        leg = fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=ncol,
                         frameon=False, borderaxespad=0.2, columnspacing=0.8, handlelength=1.5,
                         handletextpad=0.4, labelspacing=spacing)
        box = leg.get_window_extent(r)
        if box.width <= width * fig.dpi - 4 or ncol == 1:
            break
        leg.remove()
        ncol -= 1
    return box.height / fig.dpi + 0.05


def shorten_names(names: list[str], chars: int) -> list[str]:
    """Run names in at most ``chars`` characters: without the prefix and suffix they share
    (:func:`metaeval.labels.default_run_labels`), then a longer one's start and end around an
    ellipsis (names differ at either end: a team's prefix, a variant's suffix)."""
    from ..labels import default_run_labels

    short = default_run_labels([n for n in names if n])
    out = []
    for n in names:
        n = short.get(n, n)
        head = (chars - 1) // 2
        out.append(n if len(n) <= chars else n[:head] + "\u2026" + n[len(n) - (chars - 1 - head):])
    return out


def declare_panels(fig: Figure, noun: str, source: str, per: int = 1) -> None:
    """Say what ``fig``'s panels show, for the foot :func:`fit_to_width` prints when it shows only
    the first ones: ``noun`` (plural: ``metrics``, ``tests``, ``methods``), ``per`` panels each, in
    the order the panels were added, all of them in the table ``source`` (``tstar.csv``)."""
    fig._metaeval_panels = (noun, source, max(1, per))     # type: ignore[attr-defined]


def first_shown(shown: int, total: int, noun: str, source: str) -> str:
    """The foot of a figure showing its first ``shown`` of ``total`` panels (:data:`MAX_HEIGHT`)."""
    return f"first {shown} of {total} {noun} shown; all in {source}"


#: height of the foot's line (inches): a 7 pt line and its gap
_FOOT_LINE = MIN_PT * 1.3 / 72


def _foot(fig: Figure, text: str, width: float) -> float:
    """``text`` at the bottom left of ``fig`` at :data:`MIN_PT`, wrapped to ``width`` (one foot a
    figure: laid out again, the figure keeps the one it has): its height in inches."""
    old = getattr(fig, "_metaeval_foot", None)
    if old is not None:
        old.remove()
    text = panel_title(text, width - 0.2, MIN_PT)
    fig._metaeval_foot = fig.text(0.1 / width, 0.04, text, ha="left", va="bottom",   # type: ignore[attr-defined]
                                  fontsize=MIN_PT, linespacing=1.1)
    return (text.count("\n") + 1) * _FOOT_LINE + 0.08


def _thin_names(ax, k: int) -> None:
    """Every ``k``-th named row of ``ax``'s y axis keeps its name (the others a minor tick): the
    rows of a panel naming more runs than its height holds at 7 pt."""
    locs = list(ax.get_yticks())
    names = [t.get_text() for t in ax.get_yticklabels()]
    named = [(y, n) for y, n in zip(locs, names) if n]
    if k <= 1 or len(named) <= 1:
        return
    minor = sorted(set(ax.get_yticks(minor=True)) | set(locs))
    keep = named[::k]
    ax.set_yticks([y for y, _ in keep], [n for _, n in keep])
    ax.set_yticks(minor, minor=True)


def fit_to_width(fig: Figure, width: float | None = None) -> None:
    """Lay ``fig`` out again at ``width`` inches (default: the configured one): every text at
    least :data:`MIN_PT` points (points at the final size), the panels of a grid wrapped into the
    columns the width holds (each at least :data:`PANEL_MIN_WIDTH` wide, its aspect kept down to
    :data:`PANEL_MIN_HEIGHT`), the figure legends below the panels, then a tight layout.  A figure
    placed by hand keeps its panels' fractions (its plotter draws at :func:`current_settings`).

    No figure is taller than :data:`MAX_HEIGHT`; one that would be (many panels, or a panel naming
    many runs) is laid out, first that fits: (1) its panels lower, down to :data:`PANEL_MIN_HEIGHT`
    and a 7 pt line per named row; (2) every k-th row of a panel naming its rows named (the rows
    all drawn, the others ticked); (3) its first panels, in the order drawn (:func:`declare_panels`
    says what they are), and a foot "first K of N metrics shown; all in TABLE.csv".  A figure placed
    by hand is made no taller (its plotter lays itself out within it: :func:`plot_rank_correlation`)."""
    width = current_settings().width if width is None else width
    w, h = fig.get_size_inches()
    _raise_fonts(fig)
    grid = _grid_panels(fig)
    if grid is None:
        if abs(w - width) > 1e-9 or h > MAX_HEIGHT:
            fig.set_size_inches(width, min(h, MAX_HEIGHT))
        return
    nrows, ncols, axes = grid
    for ax in [ax for ax in axes if not ax.axison]:       # a grid's unused cells
        ax.remove()
    panels = [ax for ax in axes if ax.axison] or axes[:1]
    total = len(panels)
    panels_of = getattr(fig, "_metaeval_panels", None)
    cols = max(1, min(ncols, len(panels), int(width // PANEL_MIN_WIDTH)))
    rows = math.ceil(len(panels) / cols)
    pw, w0, h0 = width / cols, w / ncols, h / nrows
    ph = max(PANEL_MIN_HEIGHT, min(h0, h0 * pw / w0) if pw < w0 else h0)
    if (rows, cols) != (nrows, ncols):
        gs = fig.add_gridspec(rows, cols)
        for i, ax in enumerate(panels):
            ax.set_subplotspec(gs[i // cols, i % cols])
    title_pt = float(_RC["axes.titlesize"])
    for ax in panels:                                      # titles within their panel, at most 8 pt
        for t in (ax.title, ax._left_title, ax._right_title):       # type: ignore[attr-defined]
            text = t.get_text()
            if text:
                t.set_fontsize(min(t.get_fontsize(), title_pt))
                t.set_text("\n".join(panel_title(line, max(1.0, pw - 0.5), t.get_fontsize()) for line in text.split("\n")))
    chars = max(12, int(0.45 * width * 72 / (MIN_PT * 0.6)))
    for ax in panels:                                      # names longer than half the width: shortened
        for axis in (ax.yaxis, ax.xaxis):
            texts = [t.get_text() for t in axis.get_ticklabels()]
            if max(map(len, texts), default=0) > chars:
                axis.set_ticks(axis.get_ticklocs(), shorten_names(texts, chars))
    row = MIN_PT * 1.25 / 72                               # a panel naming its rows (runs): a 7 pt line each

    def named() -> int:
        return max((sum(1 for t in ax.get_yticklabels() if t.get_text()) for ax in panels), default=0)

    ph = max(ph, named() * row + 0.9)
    for ax in panels:                                      # columns named beyond the panel's width: every k-th
        labels = ax.get_xticklabels()
        if sum(1 for t in labels if t.get_text()) * MIN_PT * 1.25 / 72 > 0.8 * pw and labels[0].get_rotation() == 90:
            k = math.ceil(len(labels) * MIN_PT * 1.25 / 72 / (0.8 * pw))
            ax.set_xticks(ax.get_xticks()[::k], [t.get_text() for t in labels][::k])
    lines = max((ax.get_title().count("\n") for ax in panels), default=0)
    title_h = lines * title_pt * 1.25 / 72                 # a panel's title of several lines: above its height
    ph += title_h
    fig.set_size_inches(width, rows * ph)
    below = _legend_below(fig, width)
    first = getattr(fig, "_metaeval_total", None)          # the panels before any was left out
    if first is None:
        first = fig._metaeval_total = total                # type: ignore[attr-defined]
    noun, source, per = panels_of if panels_of is not None else ("panels", "the table", 1)
    foot_h = _foot(fig, first_shown(total // per, first // per, noun, source), width) if first > total else 0.0
    if rows * ph + below + foot_h > MAX_HEIGHT and below:     # a long legend: its rows closer
        below = _legend_below(fig, width, 0.2)
    if rows * ph + below + foot_h > MAX_HEIGHT:
        natural, room = ph, MAX_HEIGHT - below - foot_h

        def least() -> float:                              # the lowest panel: its names a 7 pt line each
            return max(PANEL_MIN_HEIGHT, named() * row + 0.9) + title_h

        ph = max(least(), room / rows)                     # (1) lower panels
        n = named()
        if rows * ph > room and n > 1:                     # (2) every k-th row named
            fits = max(1, int((max(PANEL_MIN_HEIGHT + title_h, room / rows) - title_h - 0.9) / row))
            for ax in panels:
                _thin_names(ax, math.ceil(n / fits))
            ph = max(least(), room / rows)
        if rows * ph > room and len(panels) > per:         # (3) the first panels, and a foot
            left = MAX_HEIGHT - below
            foot_h = _foot(fig, first_shown(first, first, noun, source), width)
            keep = max(per, (max(1, int((left - foot_h) / ph)) * cols) // per * per)
            for ax in panels[keep:]:
                ax.remove()
            panels = panels[:keep]
            foot_h = _foot(fig, first_shown(len(panels) // per, first // per, noun, source), width)
            rows = math.ceil(len(panels) / cols)
            ph = max(least(), min(natural, (left - foot_h) / rows))
            gs = fig.add_gridspec(rows, cols)
            for i, ax in enumerate(panels):
                ax.set_subplotspec(gs[i // cols, i % cols])
    for ax in panels:                                      # axis labels within their panel's side
        for label, room in ((ax.xaxis.label, max(1.0, pw - 0.45)), (ax.yaxis.label, 0.75 * ph)):
            text = label.get_text()
            if text and "\n" not in text and len(text) * float(label.get_fontsize()) * 0.6 / 72 > room:
                label.set_text(panel_title(text, room, float(label.get_fontsize())))
    height = rows * ph + below + foot_h
    fig.set_size_inches(width, height)
    if foot_h:                                             # the legend above the foot
        fig._metaeval_foot.set_y(0.04 / height)            # type: ignore[attr-defined]
        for leg in fig.legends:
            leg.set_bbox_to_anchor((0.5, foot_h / height), transform=fig.transFigure)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                    # "not compatible with tight_layout": left as drawn
        for _ in range(2):                                 # the second pass: with the ticks the first one made
            fig.tight_layout(rect=(0, (below + foot_h) / height, 1, 1), pad=0.5)


def save_figure(fig: Figure, path_stem) -> list[Path]:
    """Lay ``fig`` out at the configured width (:func:`fit_to_width`), render it to the configured
    formats in memory (:func:`figure_settings`: PNG and PDF by default), then write ``STEM.png``,
    ``STEM.pdf`` atomically (a figure beyond :data:`MAX_ASPECT` first made less elongated)."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    stem = Path(path_stem)
    settings = current_settings()
    fit_to_width(fig, settings.width)
    _within_aspect(fig)
    # fig.tight_layout() leaves a placeholder layout engine, for which every savefig draws the
    # figure once more before printing it (the layout it would run does nothing): laid out already,
    # the figure is saved without it -- the same bytes, a sixth less drawing time
    if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
        fig.set_layout_engine(None)
    blobs = {}
    for fmt, meta in (("png", _PNG_META), ("pdf", _PDF_META)):
        if fmt not in settings.formats:
            continue
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=DPI, metadata=meta)
        blobs[fmt] = palette_png(buf.getvalue()) if fmt == "png" else buf.getvalue()
    paths: list[Path] = []
    with atomic_dir_outputs(paths):
        for fmt, blob in blobs.items():
            path = Path(f"{stem}.{fmt}")
            with atomic_write(path, "wb") as fh:
                fh.write(blob)
            paths.append(path)
    return paths


def _no_data(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"no data: {what}", ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _unique(values) -> list:
    return list(dict.fromkeys(values))


#: series up to which a legend is drawn inside the axes ("best"); above it beside them
_LEGEND_INSIDE = 6


def _legend(ax, n: int) -> None:
    """Few series on one panel: the legend inside it (placed where it covers least); else below the
    panels (:func:`side_legend`), where it covers no panel's data at a column's width."""
    if n and n <= _LEGEND_INSIDE and len(ax.figure.axes) == 1:
        ax.legend(loc="best", ncol=1, frameon=False)
        ax.figure.tight_layout()
    elif n:
        side_legend(ax.figure, *ax.get_legend_handles_labels())
