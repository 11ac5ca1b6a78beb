"""The configured size and formats of the figures (``figures: {width: column | text | INCHES,
formats: [png, pdf]}``, ``--figure-width`` / ``--figure-formats`` of every command that draws):
the process-wide settings :func:`metaeval.report.figure_layout.save_figure` draws at -- standard
library only, so a command's parser checks them without importing matplotlib."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["WIDTHS", "FORMATS", "MIN_PT", "WIDTH_RANGE", "FigureSettings", "parse_width", "parse_formats",
           "current_settings", "figure_settings"]

#: the named widths (inches): a column of a two-column paper and the text width of one, each the
#: narrower of ACM sigconf's (241.1 pt, 506.3 pt) and a 10 pt two-column article's (229.5 pt, 469 pt;
#: metaeval.report.texfit): 3.17 in (229.1 pt) and 6.48 in (468.3 pt), so a figure at its own size
#: fits both (tests/_latex.py compiles them)
WIDTHS = {"column": 3.17, "text": 6.48}
#: the formats a figure is written in: the PNG (the HTML report embeds it) and the vector PDF
FORMATS = ("png", "pdf")
#: no text of a figure is smaller than this (points, at the figure's final size)
MIN_PT = 7.0
#: the narrowest and widest figure accepted (inches)
WIDTH_RANGE = (2.0, 20.0)


@dataclass(frozen=True)
class FigureSettings:
    """The configured size and formats of every figure a process draws."""

    width: float = WIDTHS["column"]
    formats: tuple[str, ...] = FORMATS


_SETTINGS = [FigureSettings()]


def parse_width(value: str | float) -> float:
    """``column`` (3.17 in), ``text`` (6.48 in) or a width in inches, within :data:`WIDTH_RANGE`;
    ValueError naming the accepted values otherwise."""
    if isinstance(value, str) and value.strip().lower() in WIDTHS:
        return WIDTHS[value.strip().lower()]
    try:
        w = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"figure width {value!r}: expected column, text or inches") from None
    if not (math.isfinite(w) and WIDTH_RANGE[0] <= w <= WIDTH_RANGE[1]):
        raise ValueError(f"figure width {value!r}: expected column, text or inches between "
                         f"{WIDTH_RANGE[0]:g} and {WIDTH_RANGE[1]:g}")
    return w


def parse_formats(value) -> tuple[str, ...]:
    """The figure formats of ``value`` (``"pdf,png"`` or a list), in :data:`FORMATS`' order; PNG
    required (the HTML report embeds it); ValueError otherwise."""
    items = [x.strip().lower() for x in (value.split(",") if isinstance(value, str) else value)]
    bad = [x for x in items if x not in FORMATS]
    if bad or not items:
        raise ValueError(f"figure formats {value!r}: expected some of {', '.join(FORMATS)}")
    if "png" not in items:
        raise ValueError(f"figure formats {value!r}: png is required (the HTML report embeds it)")
    return tuple(f for f in FORMATS if f in items)


def current_settings() -> FigureSettings:
    return _SETTINGS[-1]


@contextlib.contextmanager
def figure_settings(width: str | float | None = None, formats=None) -> Iterator[FigureSettings]:
    """Draw with ``width`` (:func:`parse_width`) and ``formats`` (:func:`parse_formats`) inside the
    block (None: as outside it, by default a column wide, PNG and PDF)."""
    cur = current_settings()
    new = FigureSettings(cur.width if width is None else parse_width(width),
                         cur.formats if formats is None else parse_formats(formats))
    _SETTINGS.append(new)
    try:
        yield new
    finally:
        _SETTINGS.pop()


