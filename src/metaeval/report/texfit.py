"""Where a LaTeX table goes in a two-column paper: the column (``table``), the text width
(``table*``), or split -- decided from the table's width and height measured with a character-width
model of the fonts papers are set in (docs/outputs.md, "LaTeX tables in a paper").

The model: every character of a cell's text is as wide as in the wider of Computer Modern (T1,
the 10 pt two-column ``article``) and Linux Libertine (ACM ``acmart`` sigconf, 9 pt), at the size
the table is set in (normal, ``\\small``, ``\\footnotesize``), measured with pdflatex (TeX Live
2022); a column is its widest cell plus ``2 \\tabcolsep`` (6 pt each side); the page is the smaller
of the two classes' (column 229.5 pt, text 469 pt, height 550 pt).  A table fits when its width is
at most :data:`MARGIN` of the available width (kerning and ligatures only narrow a text; the model
errs wide).  The rule, first that fits:

1. the column at normal size, then ``\\small``, then ``\\footnotesize`` -> ``table``;
2. the text width at normal size, ``\\small``, ``\\footnotesize`` -> ``table*``;
3. split: the label columns (the leading left-aligned ones) repeated in every part and the other
   columns (a table's measures or metric groups) dealt in order into as few parts as fit the
   text width at ``\\small`` -- one float per part (``table*``, or ``table`` when a part fits the
   column), the caption of each naming its part.

A table whose rows do not fit the page height at the chosen size shows its first rows (the best
runs: the tables are in rank order) and says in its caption that the rest is in the CSV.

Nothing here knows what a table means: it reads a :class:`~metaeval.report.render.Layout` (its
header, rows and alignment; this module imports nothing of the package) and the caption only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Placement", "fit_table", "text_width", "table_width", "COLUMN_WIDTH", "TEXT_WIDTH", "TEXT_HEIGHT",
           "MARGIN", "SIZES"]

#: the narrower of the two papers' column widths (pt): a 10 pt two-column ``article``'s (229.5;
#: ``acmart`` sigconf: 241.15)
COLUMN_WIDTH = 229.5
#: the narrower text width (pt): the ``article``'s (469.0; ``acmart`` sigconf: 506.3)
TEXT_WIDTH = 469.0
#: the lower page's text height (pt): the ``article``'s (550; ``acmart`` sigconf: 626)
TEXT_HEIGHT = 550.0
#: ``\tabcolsep`` (pt) of the ``article`` (``acmart``: 5)
TABCOLSEP = 6.0
#: the share of a width (and height) a table may take by the model
MARGIN = 0.95

# Widths (pt) of the printable ASCII characters 33..126 ('!'..'~'), the wider of Computer Modern
# T1 (article, 10 pt) and Linux Libertine (acmart sigconf, 9 pt), rounded up to 0.01 pt, measured
# with pdflatex's \settowidth; the space is the interword space.  N normal, B bold (normal size),
# S \small, F \footnotesize.
_N = (2.78, 5, 8.34, 5, 8.34, 7.78, 2.78, 3.89, 3.89, 5, 7.78, 2.78, 3.34, 2.78, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
      2.78, 2.78, 7.78, 7.78, 7.78, 4.73, 8.06, 7.5, 7.09, 7.23, 7.64, 6.81, 6.53, 7.85, 7.5, 3.62, 5.14, 7.78,
      6.25, 9.17, 7.5, 7.78, 6.81, 7.78, 7.36, 5.56, 7.23, 7.5, 7.5, 10.28, 7.5, 7.5, 6.11, 3.21, 5, 3.21, 6.11,
      7.78, 2.78, 5, 5.56, 4.45, 5.56, 4.45, 3.06, 5, 5.56, 2.78, 3.06, 5.28, 2.78, 8.34, 5.56, 5, 5.56, 5.28,
      3.92, 3.95, 3.89, 5.56, 5.28, 7.23, 5.28, 5.28, 4.45, 5, 2.78, 5, 6.11)
_B = (3.5, 5.75, 9.59, 5.75, 9.59, 8.95, 3.2, 4.48, 4.48, 5.75, 8.95, 3.2, 3.84, 3.2, 5.75, 5.75, 5.75, 5.75, 5.75,
      5.75, 5.75, 5.75, 5.75, 5.75, 5.75, 3.2, 3.2, 8.95, 8.95, 8.95, 5.43, 8.95, 8.7, 8.18, 8.31, 8.82, 7.56,
      7.24, 9.04, 9, 4.37, 5.95, 9.02, 6.92, 10.92, 9, 8.64, 7.86, 8.64, 8.63, 6.39, 8, 8.85, 8.7, 11.89, 8.7,
      8.7, 7.03, 3.58, 5.75, 3.58, 7.03, 8.95, 3.2, 5.59, 6.39, 5.11, 6.39, 5.27, 3.52, 5.75, 6.39, 3.2, 3.52,
      6.07, 3.2, 9.59, 6.39, 5.75, 6.39, 6.07, 4.74, 4.54, 4.48, 6.39, 6.07, 8.31, 6.07, 6.07, 5.11, 5.75, 3.2,
      5.75, 7.03)
_S = (2.57, 4.63, 7.71, 4.63, 7.71, 7.2, 2.57, 3.6, 3.6, 4.63, 7.2, 2.57, 3.09, 2.57, 4.63, 4.63, 4.63, 4.63, 4.63,
      4.63, 4.63, 4.63, 4.63, 4.63, 4.63, 2.57, 2.57, 7.2, 7.2, 7.2, 4.37, 7.2, 6.94, 6.55, 6.68, 7.07, 6.3, 6.04,
      7.26, 6.94, 3.34, 4.76, 7.2, 5.78, 8.48, 6.94, 7.2, 6.3, 7.2, 6.81, 5.14, 6.68, 6.94, 6.94, 9.51, 6.94, 6.94,
      5.66, 2.85, 4.63, 2.85, 5.66, 7.2, 2.57, 4.63, 5.14, 4.12, 5.14, 4.12, 2.83, 4.63, 5.14, 2.57, 2.83, 4.89,
      2.57, 7.71, 5.14, 4.63, 5.14, 4.89, 3.62, 3.65, 3.6, 5.14, 4.89, 6.68, 4.89, 4.89, 4.12, 4.63, 2.57, 4.63,
      5.66)
_F = (2.37, 4.25, 7.09, 4.25, 7.09, 6.61, 2.37, 3.31, 3.31, 4.25, 6.61, 2.37, 2.84, 2.37, 4.25, 4.25, 4.25, 4.25,
      4.25, 4.25, 4.25, 4.25, 4.25, 4.25, 4.25, 2.37, 2.37, 6.61, 6.61, 6.61, 4.02, 6.61, 6.37, 6.02, 6.14, 6.49,
      5.78, 5.55, 6.67, 6.37, 3.07, 4.37, 6.61, 5.31, 7.79, 6.37, 6.61, 5.78, 6.61, 6.26, 4.73, 6.14, 6.37, 6.37,
      8.73, 6.37, 6.37, 5.2, 2.5, 4.25, 2.5, 5.2, 6.61, 2.37, 4.25, 4.73, 3.78, 4.73, 3.78, 2.6, 4.25, 4.73, 2.37,
      2.6, 4.49, 2.37, 7.09, 4.73, 4.25, 4.73, 4.49, 3.32, 3.36, 3.31, 4.73, 4.49, 6.14, 4.49, 4.49, 3.78, 4.25,
      2.37, 4.25, 5.2)


@dataclass(frozen=True)
class _Size:
    command: str          # "" (normal), "\small", "\footnotesize"
    widths: tuple         # the normal-weight widths of '!'..'~'
    space: float          # the interword space
    bold: float           # a bold character over the normal-size bold one (the largest ratio, Computer Modern)
    row: float            # a row's height (pt): the size's \baselineskip in the article


#: the sizes a table may be set in, largest first (the article's sizes: 10, 9 and 8 pt; acmart's
#: are a point smaller)
SIZES = (_Size("", _N, 3.34, 1.0, 12.0), _Size(r"\small", _S, 3.09, 0.928, 11.0),
         _Size(r"\footnotesize", _F, 2.84, 0.856, 9.5))
#: the bold interword space at normal size (Computer Modern bold: 3.83 pt)
_BOLD_SPACE = 3.84
#: a character outside ASCII (a Greek letter, a dagger): as wide as an 'M'
_WIDE = 9.17
#: a table's rules and their gaps (pt), a caption's skip above the table (pt)
_RULES = 12.0
_CAPTION_SKIP = 10.0


def text_width(text: str, size: _Size = SIZES[0], bold: bool = False) -> float:
    """The model's width (pt) of ``text`` set in ``size``."""
    w = 0.0
    for ch in text:
        o = ord(ch)
        if o == 32:
            w += _BOLD_SPACE * size.bold if bold else size.space
        elif 33 <= o <= 126:
            w += (_B[o - 33] * size.bold) if bold else size.widths[o - 33]
        else:
            w += _WIDE * (size.row / 12.0)
    return w


def _cell_width(c, size: _Size) -> float:
    """A cell's width: a :class:`~metaeval.report.render.Cell`'s text (its plain form: the LaTeX
    form's math and macros are narrower), bold or not, or any value's ``str``."""
    text = getattr(c, "text", None)
    if text is None:
        return text_width(str(c), size)
    return text_width(str(text), size, bool(getattr(c, "bold", False)))


#: the most body rows a page can show (at the smallest size, without a caption): only these are
#: measured, whatever the length of the table
_MAX_ROWS = int(TEXT_HEIGHT * MARGIN // SIZES[-1].row) + 1


def _column_widths(layout, size: _Size) -> list[float]:
    """Each column's widest cell (pt) among the header and the rows a page can show."""
    n = len(layout.header)
    widths = [_cell_width(h, size) for h in layout.header]
    for row in layout.rows[:_MAX_ROWS]:
        for j in range(min(n, len(row))):
            widths[j] = max(widths[j], _cell_width(row[j], size))
    return widths


def table_width(column_widths, columns=None) -> float:
    """The width (pt) of a tabular of these columns: each its widest cell plus ``2 \\tabcolsep``."""
    cols = range(len(column_widths)) if columns is None else columns
    return sum(column_widths[j] + 2 * TABCOLSEP for j in cols)


def _caption_height(caption: str, width: float) -> float:
    """The caption's lines at normal size over ``width``, and its skip."""
    if not caption:
        return 0.0
    lines = math.ceil(text_width(caption) / width)
    return _CAPTION_SKIP + 12.0 * lines


def _rows_that_fit(caption: str, width: float, size: _Size) -> int:
    """How many body rows fit the page height under the caption and the header."""
    free = TEXT_HEIGHT * MARGIN - _caption_height(caption, width) - _RULES - size.row
    return max(1, int(free // size.row))


@dataclass(frozen=True)
class Placement:
    """One float of a table: its environment, font size, the layout's columns and rows it shows,
    and its part number (1-based) of ``parts``."""
    env: str                       # "table" or "table*"
    size: str                      # "", "\small", "\footnotesize"
    columns: tuple[int, ...]
    rows: int                      # the first ``rows`` body rows
    part: int = 1
    parts: int = 1
    width: float = 0.0             # the model's width (pt)


def _label_columns(layout) -> int:
    """The leading left-aligned columns (what a row is: metric, run, pair), at least one."""
    align = layout.alignment()
    k = 0
    while k < len(align) - 1 and align[k] == "l":
        k += 1
    return max(1, k)


def fit_table(layout, caption: str = "") -> list[Placement]:
    """The floats of ``layout`` (a :class:`~metaeval.report.render.Layout`) by the rule of the
    module's docstring."""
    n_cols = len(layout.header)
    all_cols = tuple(range(n_cols))
    n_rows = len(layout.rows)
    for env, avail in (("table", COLUMN_WIDTH), ("table*", TEXT_WIDTH)):
        for size in SIZES:
            widths = _column_widths(layout, size)
            w = table_width(widths)
            if w <= avail * MARGIN:
                rows = min(n_rows, _rows_that_fit(caption, avail, size))
                return [Placement(env, size.command, all_cols, rows, width=w)]
    size = SIZES[1]
    widths = _column_widths(layout, size)
    keys = tuple(range(_label_columns(layout)))
    avail = TEXT_WIDTH * MARGIN
    groups: list[list[int]] = []
    for j in range(len(keys), n_cols):
        if groups and table_width(widths, keys + tuple(groups[-1]) + (j,)) <= avail:
            groups[-1].append(j)
        else:
            groups.append([j])
    if not groups:                                   # only label columns, too wide: as they are
        groups = [[]]
    out = []
    for i, g in enumerate(groups, 1):
        cols = keys + tuple(g)
        w = table_width(widths, cols)
        env = "table" if w <= COLUMN_WIDTH * MARGIN else "table*"
        rows = min(n_rows, _rows_that_fit(caption, COLUMN_WIDTH if env == "table" else TEXT_WIDTH, size))
        out.append(Placement(env, size.command, cols, rows, i, len(groups), w))
    return out
