"""The layout model (:class:`Layout` of :class:`Cell`) and its two renderers: a Markdown pipe
table and a LaTeX booktabs ``table`` environment.  Nothing here knows what a table means."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Cell", "Layout", "escape_latex", "escape_markdown", "render_markdown", "render_latex", "label_key"]


@dataclass(frozen=True)
class Cell:
    """One table cell: plain text (escaped per format), optionally bold; ``tex`` overrides LaTeX."""
    text: str
    bold: bool = False
    tex: str | None = None


@dataclass
class Layout:
    header: list
    rows: list
    align: str = ""                           # one of l/r/c per column; default l then r...

    def alignment(self) -> str:
        n = len(self.header)
        return self.align if len(self.align) == n else "l" + "r" * (n - 1)


def _cell(x) -> Cell:
    return x if isinstance(x, Cell) else Cell(str(x))


_TEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}
_TEX_RE = re.compile("|".join(re.escape(k) for k in _TEX_ESCAPES))


def escape_latex(text: str) -> str:
    """Escape LaTeX's special characters (metric names carry ``_ % @ , (``; ``@ , (`` are safe)."""
    return _TEX_RE.sub(lambda m: _TEX_ESCAPES[m.group(0)], str(text))


_MD_RE = re.compile(r"([\\|*`])")


def escape_markdown(text: str) -> str:
    """Escape the characters that break a pipe-table cell or start emphasis/code."""
    return _MD_RE.sub(r"\\\1", str(text))


def render_markdown(layout: Layout, caption: str | None = None) -> str:
    memo: dict = {}                           # cells repeat (millions of p-values, few texts)

    def md(c) -> str:
        c = _cell(c)
        t = memo.get(c)
        if t is None:
            t = escape_markdown(c.text)
            t = memo[c] = f"**{t}**" if c.bold and t else t
        return t

    marks = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = []
    if caption:
        lines += [f"**{escape_markdown(caption)}**", ""]
    lines.append("| " + " | ".join(md(h) for h in layout.header) + " |")
    lines.append("|" + "|".join(marks.get(a, "---") for a in layout.alignment()) + "|")
    for row in layout.rows:
        lines.append("| " + " | ".join(md(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def label_key(label: str) -> str:
    """A ``\\label`` key from a table's name (``COLLECTION:TABLE``): ``tab:`` and the name with every
    character outside ``A-Za-z0-9:_-`` as ``-``."""
    return "tab:" + re.sub(r"[^A-Za-z0-9:_-]", "-", label)


def render_latex(layout: Layout, caption: str | None = None, label: str | None = None, *,
                 csv: str | None = None, total_rows: int | None = None) -> str:
    """The booktabs table(s) of ``layout``, placed by :func:`metaeval.report.texfit.fit_table`: one
    ``table`` or ``table*`` float, or one per part of a split table; a table cut to its first rows
    says so in its caption (``total_rows``: the rows of the whole table, ``csv``: where they are)."""
    from .texfit import fit_table

    memo: dict = {}

    def tex(c) -> str:
        c = _cell(c)
        t = memo.get(c)
        if t is None:
            t = c.tex if c.tex is not None else escape_latex(c.text)
            t = memo[c] = rf"\textbf{{{t}}}" if c.bold and t else t
        return t

    total = len(layout.rows) if total_rows is None else total_rows
    key = label_key(label) if label else None
    align = layout.alignment()
    lines: list[str] = []
    for place in fit_table(layout, caption or ""):
        if place.part > 1:
            lines.append("")
        lines += [rf"\begin{{{place.env}}}[tbp]", r"\centering"]
        if place.size:
            lines.append(place.size)
        if place.part == 1:
            text = escape_latex(caption) if caption else ""
        else:
            text = rf"Table~\ref{{{key}}} continued." if key else "Continued."
        if place.parts > 1:
            text += f" Part {place.part} of {place.parts}."
        if place.rows < total:
            text += escape_latex(f" Shown: the first {place.rows} of {total} rows"
                                 + (f"; every row is in {csv}." if csv else "."))
        if text:
            lines.append(rf"\caption{{{text.strip()}}}")
        if key:
            lines.append(rf"\label{{{key}}}" if place.part == 1 else rf"\label{{{key}:{place.part}}}")
        cols = place.columns
        lines += [rf"\begin{{tabular}}{{{''.join(align[j] for j in cols)}}}", r"\toprule",
                  " & ".join(tex(layout.header[j]) for j in cols) + r" \\", r"\midrule"]
        for row in layout.rows[:place.rows]:
            lines.append(" & ".join(tex(row[j]) if j < len(row) else "" for j in cols) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", rf"\end{{{place.env}}}"]
    return "\n".join(lines) + "\n"
