"""The layout model (:class:`Layout` of :class:`Cell`) and its two renderers: a Markdown pipe
table and a LaTeX booktabs ``table`` environment.  Nothing here knows what a table means."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Cell", "Layout", "escape_latex", "escape_markdown", "render_markdown", "render_latex"]


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


def render_latex(layout: Layout, caption: str | None = None, label: str | None = None) -> str:
    memo: dict = {}

    def tex(c) -> str:
        c = _cell(c)
        t = memo.get(c)
        if t is None:
            t = c.tex if c.tex is not None else escape_latex(c.text)
            t = memo[c] = rf"\textbf{{{t}}}" if c.bold and t else t
        return t

    lines = [r"\begin{table}[htbp]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{escape_latex(caption)}}}")
    if label:
        lines.append(rf"\label{{tab:{re.sub(r'[^A-Za-z0-9:_-]', '-', label)}}}")
    lines += [rf"\begin{{tabular}}{{{layout.alignment()}}}", r"\toprule",
              " & ".join(tex(h) for h in layout.header) + r" \\", r"\midrule"]
    for row in layout.rows:
        lines.append(" & ".join(tex(c) for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
