"""Layout helpers of the figures that stay readable with 80+ runs and 25 measures:
a colour per series beyond ten, a legend beside the panels, panel titles wrapped to the panel
width, and the PNG stored with a 256-colour palette (the HTML report embeds every figure).
Used by :mod:`metaeval.report.figures`; tests/unit/test_figures_readable.py checks the result."""

from __future__ import annotations

from typing import Any

import contextlib
import io
from pathlib import Path
from collections.abc import Iterator

import matplotlib
import matplotlib.colors
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..util import atomic_dir_outputs, atomic_write

__all__ = ["MANY_COLORS", "palette_png", "side_legend", "panel_title", "DPI", "new_figure", "save_figure"]

#: more series than figures._COLORS (23 series on DL20): a colour each from tab20, tab20b and
#: tab20c (60), line style and marker still varying with the index
MANY_COLORS = [matplotlib.colors.to_hex(c) for name in ("tab20", "tab20b", "tab20c")
               for c in matplotlib.colormaps[name].colors]  # type: ignore[attr-defined]  # ListedColormap


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
    """A figure legend right of the panels, in as many columns as its height needs, the figure
    widened by its width so that nothing covers the data, then the panels laid out (tight) in
    what is left: readable with 25 series and long names."""
    w, h = fig.get_size_inches()
    r = fig.canvas.get_renderer()
    ncol = 1
    while True:
        leg = fig.legend(handles, labels, loc="upper right", bbox_to_anchor=(1.0, 1.0), ncol=ncol,
                         frameon=False, borderaxespad=0.3)
        box = leg.get_window_extent(r)
        if box.height <= fig.bbox.height - 4 or ncol >= len(labels):
            break
        leg.remove()
        ncol += 1
    lw = box.width / fig.dpi + 0.1
    fig.set_size_inches(w + lw, h)
    fig.tight_layout(rect=(0, 0, w / (w + lw), 1))


def panel_title(text: str, width_in: float, pt: float = 8.0) -> str:
    """``text`` wrapped to lines that fit a panel ``width_in`` inches wide at ``pt`` points
    (DejaVu Sans averages under 0.6 em a character): titles of long names do not run into the
    neighbouring panel's."""
    import textwrap

    chars = max(12, int(width_in * 72 / (pt * 0.6)) - 2)
    return "\n".join(textwrap.wrap(text, chars, break_long_words=True, break_on_hyphens=False))


# ------------------------------------------------------------------ the drawing basics
DPI = 150
_RC: dict[Any, Any] = {"svg.hashsalt": "metaeval", "font.size": 8, "axes.titlesize": 9, "legend.fontsize": 7,
       "pdf.compression": 6, "figure.dpi": DPI}
_PNG_META = {"Software": None}
_PDF_META = {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}

_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]
_MARKERS = ["o", "s", "^", "v", "D", "x", "+", "*", "<", ">", "p", "h"]
_LINES = ["-", "--", "-.", ":"]


def _style(i: int, marker: bool = True, n: int = 0) -> dict:
    """Line style of series ``i``; ``n`` (the number of series) above len(_COLORS): a colour each."""
    colors = MANY_COLORS if n > len(_COLORS) else _COLORS
    st = {"color": colors[i % len(colors)], "linestyle": _LINES[(i // len(_COLORS)) % len(_LINES)]}
    if marker:
        st["marker"] = _MARKERS[i % len(_MARKERS)]
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
    """Stretch the shorter side of a figure beyond :data:`MAX_ASPECT` (the axes keep their
    fractions of the figure)."""
    w, h = fig.get_size_inches()
    if w > MAX_ASPECT * h:
        fig.set_size_inches(w, w / MAX_ASPECT)
    elif h > MAX_ASPECT * w:
        fig.set_size_inches(h / MAX_ASPECT, h)


def save_figure(fig: Figure, path_stem) -> list[Path]:
    """Render ``fig`` to PNG and PDF in memory, then write ``STEM.png`` and ``STEM.pdf`` atomically
    (a figure beyond :data:`MAX_ASPECT` first made less elongated).  The figure is laid out
    already (``tight_layout``, :func:`side_legend`): a layout engine is not run again."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    stem = Path(path_stem)
    _within_aspect(fig)
    # fig.tight_layout() leaves a placeholder layout engine, for which every savefig draws the
    # figure once more before printing it (the layout it would run does nothing): laid out already,
    # the figure is saved without it -- the same bytes, a sixth less drawing time
    if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
        fig.set_layout_engine(None)
    blobs = {}
    for fmt, meta in (("png", _PNG_META), ("pdf", _PDF_META)):
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
    if n and n <= _LEGEND_INSIDE:
        ax.legend(loc="best", ncol=1, frameon=False)
        ax.figure.tight_layout()
    elif n:
        side_legend(ax.figure, *ax.get_legend_handles_labels())
