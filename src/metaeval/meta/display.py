"""The result objects' common form and how they show themselves: every result has ``.tables``
(``{name: DataFrame}``, the content of its command's ``tables/NAME.csv``) and ``.write(out)`` (the
command's files; :class:`Result`), a short ``repr`` (what it holds, one line per part, never the
tables' contents) and ``_repr_html_`` (that summary, then the main table's first rows with numbers
to 4 decimals, as the Markdown tables print them).  Pandas only."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["NamedTables", "Result", "html_view", "short_repr", "summary_lines"]

#: rows of the main table shown by ``_repr_html_``
HTML_ROWS = 20
#: characters of a ``repr`` at most
REPR_CHARS = 600

_STYLE = ("<style>.metaeval-result table{border-collapse:collapse;font-size:90%}"
          ".metaeval-result th,.metaeval-result td{padding:2px 8px;text-align:right}"
          ".metaeval-result thead th{border-bottom:1px solid #888}"
          ".metaeval-result tbody tr:nth-child(even){background:#f4f4f4}</style>")


def _shape(value) -> str:
    if isinstance(value, pd.DataFrame):
        return f"{value.shape[0]} x {value.shape[1]}"
    if isinstance(value, Mapping):
        return f"{len(value)} entries"
    if isinstance(value, (list, tuple)):
        return f"{len(value)} items"
    return type(value).__name__


def summary_lines(parts: Mapping[str, object]) -> list[str]:
    """``name: rows x columns`` (or the number of entries) of each part."""
    return [f"{name}: {_shape(v)}" for name, v in parts.items()]


def short_repr(title: str, parts: Mapping[str, object], head: str = "") -> str:
    """``Title(head; name rows x cols, ...)`` cut at :data:`REPR_CHARS` characters."""
    body = ", ".join(f"{n} {_shape(v)}" for n, v in parts.items())
    text = f"{title}({head + '; ' if head else ''}{body})"
    return text if len(text) <= REPR_CHARS else text[:REPR_CHARS - 5] + " ...)"


def _fmt(v) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4f}"
    return str(v)


def html_view(title: str, parts: Mapping[str, object], main: str | None, head: str = "",
              rows: int = HTML_ROWS) -> str:
    """The notebook view: the title and what each part holds, then the first ``rows`` rows of
    the part ``main`` (a DataFrame), numbers to 4 decimals."""
    out = [_STYLE, '<div class="metaeval-result">', f"<p><b>{html.escape(title)}</b>"
           + (f" &mdash; {html.escape(head)}" if head else "") + "</p>",
           "<ul>" + "".join(f"<li>{html.escape(ln)}</li>" for ln in summary_lines(parts)) + "</ul>"]
    df = parts.get(main) if main is not None else None
    if main is not None and isinstance(df, pd.DataFrame):
        shown = df.head(rows)
        note = f" (first {rows} of {len(df)} rows)" if len(df) > rows else ""
        out.append(f"<p>{html.escape(main)}{html.escape(note)}</p>")
        out.append(shown.to_html(index=False, border=0, formatters={c: _fmt for c in shown.columns},
                                 na_rep=""))
    out.append("</div>")
    return "\n".join(out)


class Result:
    """What every computation of the API returns: its tables as ``.tables`` (``{name: DataFrame}``)
    and ``.write(out, *, figures=True)``, which writes the files of the command line's ``--out``
    and returns their paths.  The writers belong to the output layer, above this one: the API
    attaches each result's writer (``_writer``); a result made without the API has none."""

    _writer: Callable[..., Any] | None = None        # (result, folder, figures, *, figure_width=, figure_formats=)

    def write(self, out: str | Path, *, figures: bool = True, figure_width: str | float | None = None,
              figure_formats: str | Sequence[str] | None = None) -> list[Path]:
        """Write the command's files into the folder ``out`` (figures too unless ``figures`` is
        false; ``figure_width``: ``"column"`` (3.17 in, the default), ``"text"`` (6.48 in) or inches,
        ``figure_formats``: of ``("png", "pdf")``, as ``--figure-width`` / ``--figure-formats``);
        the paths written."""
        if self._writer is None:
            raise TypeError(f"{type(self).__name__}.write: made outside the metaeval API, no writer attached "
                            "(the metaeval.* functions return results that write themselves)")
        if figure_width is None and figure_formats is None:
            return list(self._writer(self, Path(out), figures) or [])
        return list(self._writer(self, Path(out), figures, figure_width=figure_width,
                                 figure_formats=figure_formats) or [])


class NamedTables(dict, Result):
    """A ``{table: DataFrame}`` dict (as the API returns for incompleteness and standardisation)
    that shows a summary rather than every row."""

    #: the table ``_repr_html_`` shows (the first when ``None``)
    main: str | None = None

    def __init__(self, tables: Mapping[str, pd.DataFrame], title: str = "tables", main: str | None = None):
        super().__init__(tables)
        self.title, self.main = title, main

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        return dict(self)

    def __repr__(self) -> str:
        return short_repr(self.title, self)

    def _repr_html_(self) -> str:
        main = self.main if self.main in self else next(iter(self), None)
        return html_view(self.title, self, main)
