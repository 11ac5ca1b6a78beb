"""Compile a pipeline's LaTeX tables and figures where papers are written: every ``.tex`` table
``\\input`` and every figure PDF ``\\includegraphics``'d at its own size (in a ``figure`` when it fits
the column, a ``figure*`` otherwise, with its caption of the outputs, ``.snakemake/metaeval/report-captions/``
beside the results folder) into an ACM ``acmart`` sigconf document and into a 10 pt two-column
``article``, compiled with pdflatex; the problems a reader of the paper would see -- an overfull box,
a float too large for the page, a figure wider than the column (at the default ``figures: {width:
column}``), a figure without its caption -- are returned, one line each, naming the table or figure.

Used by tests/pipeline/test_latex_compile.py (on the reduced DAG's tables and on the DL19 example's)
and runnable alone on a results folder, saving the first page of each document as a PNG::

    python tests/_latex.py results [PNG_DIR]

(``PNG_DIR``: the first page of each document and the first page with a figure.)

pdflatex (TeX Live: texlive-latex-extra, texlive-publishers for acmart, texlive-fonts-recommended,
texlive-fonts-extra for Libertine) is required: :func:`require_pdflatex` skips a test without it,
or fails it when CI is set (tests/conftest.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: the preamble of each document (``\\input`` needs booktabs only)
DOCUMENTS = {
    "acmart": "\\documentclass[sigconf]{acmart}\n\\settopmatter{printacmref=false}\n\\setcopyright{none}\n"
              "\\renewcommand\\footnotetextcopyrightpermission[1]{}\n\\usepackage{booktabs}\n",
    "article": "\\documentclass[10pt,twocolumn]{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n",
}
#: what the figures need (acmart loads graphicx itself)
_FIGURE_PREAMBLE = "\\usepackage{graphicx}\n\\newsavebox\\metaevalfig\n"

#: what the log says of a box or float that does not fit the page
_PROBLEM = re.compile(r"^(Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\).*|"
                      r"LaTeX Warning: Float too large for page by ([\d.]+)pt.*)$", re.M)
_MARK = re.compile(r"^METAEVAL-(?:TABLE|FIGURE) (\S+)$", re.M)
#: what the document says of a figure wider than the column (its width, the column's) or without caption
_WIDE = re.compile(r"^METAEVAL-WIDE ([\d.]+)pt ([\d.]+)pt$", re.M)
_NO_CAPTION = re.compile(r"^METAEVAL-NO-CAPTION$", re.M)


def pdflatex() -> str | None:
    return shutil.which("pdflatex")


def require_pdflatex() -> str:
    """pdflatex's path, or skip (fail when CI is set) with a one-line reason."""
    import pytest
    from conftest import in_ci

    path = pdflatex()
    if path is None:
        reason = ("pdflatex not on PATH (Debian: apt-get install texlive-latex-extra texlive-publishers "
                  "texlive-fonts-recommended texlive-fonts-extra)")
        if in_ci():
            pytest.fail(f"{reason} [required because CI is set]", pytrace=False)
        pytest.skip(reason)
    return path


def tables_of(results: Path) -> list[Path]:
    """Every ``.tex`` table under ``results`` (collections' ``tables/`` and ``summary/``): the results
    tables first (what a paper prints first), then by path."""
    found = [p for p in Path(results).rglob("*.tex") if "report" not in p.parts]
    return sorted(found, key=lambda p: (p.name != "results.tex", p.as_posix()))


def figures_of(results: Path) -> list[Path]:
    """Every figure PDF under ``results`` (collections' ``figures/``, ``summary/``, the judgments'
    and ppi's), by path."""
    return sorted(p for p in Path(results).rglob("*.pdf") if "report" not in p.parts)


def caption_file(figure: Path) -> Path:
    """The figure's caption of the outputs (docs/outputs.md, "Report captions"): the RST file the
    workflow writes under ``.snakemake/metaeval/report-captions/`` of the working directory (the
    folder above ``results``): ``figure_NAME`` of a collection's ``figures/``, ``summary_figure_NAME``
    of ``summary/``, ``SCOPE_figure_NAME`` of a stage's folder (``judgments``, ``ppi``)."""
    figure = Path(figure)
    parts = figure.parts
    i = max(j for j, part in enumerate(parts) if part == "results") if "results" in parts else len(parts) - 3
    captions = Path(*parts[:i]) / ".snakemake" / "metaeval" / "report-captions"
    scope = figure.parent.name
    key = {"figures": "figure", "summary": "summary_figure"}.get(scope, f"{scope}_figure")
    return captions / f"{key}_{figure.stem}.rst"


def figure_caption(figure: Path) -> str | None:
    """The caption of :func:`caption_file` as one paragraph of LaTeX (special characters escaped),
    None when there is none."""
    from metaeval.report.render import escape_latex

    f = caption_file(figure)
    if not f.is_file():
        return None
    text = " ".join(f.read_text(encoding="utf-8").split())
    return escape_latex(text) or None


def _figure_float(figure: Path) -> list[str]:
    """The lines placing ``figure`` at its own size: in a ``figure`` when no wider than the column,
    else in a ``figure*`` (and the log told its width); its caption and a stable label
    ``fig:SCOPE:NAME``."""
    caption = figure_caption(figure)
    scope = figure.parent.parent.name if figure.parent.name == "figures" else figure.parent.name
    label = f"fig:{scope}:{figure.stem}"
    cap = (f"\\caption{{{caption}}}" if caption is not None else "\\typeout{METAEVAL-NO-CAPTION}\\caption{(none)}") \
        + f"\\label{{{label}}}"
    body = f"\\centering\\usebox\\metaevalfig{cap}"
    return [f"\\sbox\\metaevalfig{{\\includegraphics{{{figure.as_posix()}}}}}",
            "\\ifdim\\wd\\metaevalfig>\\columnwidth",
            "\\typeout{METAEVAL-WIDE \\the\\wd\\metaevalfig\\space\\the\\columnwidth}",
            f"\\begin{{figure*}}[tbp]{body}\\end{{figure*}}",
            "\\else",
            f"\\begin{{figure}}[tbp]{body}\\end{{figure}}",
            "\\fi"]


#: a paragraph of a paper's text before the tables
_TEXT = "\\section{Results}\n" + "The tables of the pipeline, each \\verb|\\input| as written. " * 6 + "\n\n"


def document(kind: str, tables: list[Path], figures: list[Path] = ()) -> str:  # type: ignore[assignment]
    """A document of class ``kind`` that ``\\input``s every table and places every figure as a paper
    does (its floats placed by LaTeX), each one's name typed into the log before it (:func:`problems`
    names the table or figure of a problem)."""
    body = []
    floats = [("TABLE", t) for t in tables] + [("FIGURE", f) for f in figures]
    for i, (what, t) in enumerate(floats, 1):
        body.append(f"\\typeout{{METAEVAL-{what} {t.as_posix()}}}")
        body += [f"\\input{{{t.as_posix()}}}"] if what == "TABLE" else _figure_float(t)
        if i % 4 == 0:                 # the floats placed before more come (LaTeX's float queue is finite)
            body.append("\\clearpage")
    title = "\\title{Tables}\n\\maketitle\n" if kind == "acmart" else ""
    return (DOCUMENTS[kind] + _FIGURE_PREAMBLE + "\\extrafloats{500}\n\\begin{document}\n" + title + _TEXT
            + "\n".join(body) + "\n\\clearpage\n\\end{document}\n")


def compile_document(kind: str, tables: list[Path], work: Path, timeout: int = 300,
                     preamble_input: Path | None = None, figures: list[Path] = ()) -> tuple[Path, str]:  # type: ignore[assignment]
    """Compile :func:`document` of ``tables`` and ``figures`` in ``work`` (as ``KIND.tex``); return the
    PDF and the log's text.
    ``preamble_input``: a file ``\\input`` after ``\\begin{document}`` (measurements).  Raises
    ``AssertionError`` with the log's end when pdflatex stops with an error."""
    work.mkdir(parents=True, exist_ok=True)
    text = document(kind, tables, figures)
    if preamble_input is not None:
        text = text.replace("\\begin{document}\n", f"\\begin{{document}}\n\\input{{{preamble_input.as_posix()}}}\n", 1)
    (work / f"{kind}.tex").write_text(text, encoding="utf-8")
    env = {**os.environ, "max_print_line": "100000"}      # the log's lines unwrapped
    r = subprocess.run([pdflatex() or "pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{kind}.tex"],
                       cwd=work, capture_output=True, text=True, timeout=timeout, env=env)
    log = (work / f"{kind}.log").read_text(encoding="latin-1") if (work / f"{kind}.log").exists() else r.stdout
    if r.returncode != 0:
        raise AssertionError(f"pdflatex failed on {kind}.tex ({r.returncode}):\n{log[-3000:]}")
    return work / f"{kind}.pdf", log


def problems(log: str, wide_figures: bool = False) -> list[str]:
    """``TABLE: Overfull \\hbox (Xpt too wide) ...`` for every overfull box or float too large in
    ``log``, naming the table or figure it occurred in; ``FIGURE: wider than the column ...`` for a
    figure wider than the column (unless ``wide_figures``: a config of ``figures: {width: text}``),
    ``FIGURE: no caption ...`` for one without its caption file."""
    marks = [(m.start(), m.group(1)) for m in _MARK.finditer(log)]
    found = [(m.start(), m.group(1).strip()) for m in _PROBLEM.finditer(log)]
    found += [(m.start(), f"no caption ({caption_file(Path(_owner(marks, m.start()))).name} missing)")
              for m in _NO_CAPTION.finditer(log)]
    if not wide_figures:
        found += [(m.start(), (f"wider than the column ({m.group(1)}pt in a {m.group(2)}pt column: "
                               f"{float(m.group(1)) - float(m.group(2)):.2f}pt too wide)"))
                  for m in _WIDE.finditer(log)]
    return [f"{'/'.join(Path(_owner(marks, pos)).parts[-3:])}: {text}" for pos, text in sorted(found)]


def _owner(marks: list[tuple[int, str]], pos: int) -> str:
    """The table or figure whose mark is the last before ``pos`` in the log."""
    return next((name for p, name in reversed(marks) if p < pos), "(preamble)")


def overflow_by_table(log: str) -> dict[str, float]:
    """The largest overflow (pt) per table in ``log`` (its box too wide or high, its float too large)."""
    out: dict[str, float] = {}
    for line in problems(log):
        name, _, text = line.partition(": ")
        pt = float(re.search(r"([\d.]+)pt", text).group(1))  # type: ignore[union-attr]
        out[name] = max(out.get(name, 0.0), pt)
    return out


def first_page_png(pdf: Path, dest: Path, page: int = 1) -> Path | None:
    """Page ``page`` (default the first) of ``pdf`` as ``dest`` (pdftoppm, 80 dpi); None without pdftoppm."""
    exe = shutil.which("pdftoppm")
    if exe is None:
        return None
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([exe, "-png", "-r", "80", "-f", str(page), "-l", str(page), "-singlefile", str(pdf),
                    str(dest.with_suffix(""))], check=True, capture_output=True, timeout=120)
    return dest


def first_figure_page(pdf: Path) -> int | None:
    """The page of the first figure of a compiled :func:`document` (its label's, in the ``.aux``
    beside ``pdf``); None without figures."""
    aux = Path(pdf).with_suffix(".aux")
    m = re.search(r"\\newlabel\{fig:[^}]*\}\{\{[^}]*\}\{(\d+)\}", aux.read_text(encoding="latin-1")) \
        if aux.exists() else None
    return int(m.group(1)) if m else None


def page_images(pdf: Path, png: Path, name: str) -> list[Path]:
    """The first two pages of ``pdf`` (page 2: the first a ``table*`` can go to) and the first with
    a figure as ``png/NAME-p1.png``, ``png/NAME-p2.png`` and ``png/NAME-figures-pN.png``."""
    out = [first_page_png(pdf, Path(png) / f"{name}-p{page}.png", page) for page in (1, 2)]
    page = first_figure_page(pdf)
    if page is not None:
        out.append(first_page_png(pdf, Path(png) / f"{name}-figures-p{page}.png", page))
    return [p for p in out if p is not None]


def compile_problems(results: Path, work: Path, png: Path | None = None, name: str | None = None,
                     wide_figures: bool = False) -> dict[str, list[str]]:
    """``{document class: [problem, ...]}`` of every table and figure under ``results`` compiled in
    each document of :data:`DOCUMENTS` (in ``work/KIND``); ``png``: the first page of each and its
    first page with a figure saved there as ``NAME-KIND-...png`` (NAME: the folder above ``results``)."""
    tables = [t.resolve() for t in tables_of(results)]
    figures = [f.resolve() for f in figures_of(results)]
    name = name or Path(results).resolve().parent.name or "results"
    out = {}
    for kind in DOCUMENTS:
        pdf, log = compile_document(kind, tables, Path(work) / kind, figures=figures)
        out[kind] = problems(log, wide_figures)
        if png is not None:
            page_images(pdf, Path(png), f"{name}-{kind}")
    return out


def main(argv: list[str]) -> int:
    """``python tests/_latex.py RESULTS [PNG_DIR [NAME]]``: print the tables and figures compiled and
    the problems of each document (exit 1 if any); with ``PNG_DIR``, the first page of each and its
    first page with a figure as ``NAME-CLASS-p1.png``, ``NAME-CLASS-figures-pN.png`` (NAME: default
    the folder above RESULTS)."""
    import tempfile

    results = Path(argv[0]).resolve()
    png = Path(argv[1]) if len(argv) > 1 else None
    name = argv[2] if len(argv) > 2 else (results.parent.name or "results")
    tables = tables_of(results)
    figures = figures_of(results)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="metaeval-latex-") as work:
        for kind in DOCUMENTS:
            pdf, log = compile_document(kind, tables, Path(work) / kind, figures=figures)
            found = problems(log)
            bad += len(found)
            print(f"{kind}: {len(tables)} tables, {len(figures)} figures, {len(found)} problems")
            for line in found:
                print("  " + line)
            if png is not None:
                page_images(pdf, png, f"{name}-{kind}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
