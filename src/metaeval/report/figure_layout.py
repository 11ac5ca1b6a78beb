"""Layout helpers of the figures that stay readable with 80+ runs and 25 measures (issue 31):
a colour per series beyond ten, a legend beside the panels, panel titles wrapped to the panel
width, and the PNG stored with a 256-colour palette (the HTML report embeds every figure).
Used by :mod:`metaeval.report.figures`; tests/test_figures_readable.py checks the result."""

from __future__ import annotations

import io

import matplotlib
import matplotlib.colors  # noqa: F401  (to_hex)

__all__ = ["MANY_COLORS", "palette_png", "side_legend", "panel_title"]

#: more series than figures._COLORS (issue 31: 23 series on DL20): a colour each from tab20, tab20b and
#: tab20c (60), line style and marker still varying with the index
MANY_COLORS = [matplotlib.colors.to_hex(c) for name in ("tab20", "tab20b", "tab20c")
               for c in matplotlib.colormaps[name].colors]


def palette_png(png: bytes) -> bytes:
    """The PNG with at most 256 colours (median cut, no dithering; deterministic): a third of the
    size for line plots and heat maps that look the same (issue 31: the HTML report embeds every
    figure; the PDF keeps the vector drawing)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        q = im.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
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
