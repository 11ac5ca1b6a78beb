"""Compile a pipeline's LaTeX tables where papers are written: every ``.tex`` table ``\\input`` into
an ACM ``acmart`` sigconf document and into a 10 pt two-column ``article``, compiled with pdflatex;
the problems a reader of the paper would see -- an overfull box, a float too large for the page --
are returned, one line each, naming the table.

Used by tests/pipeline/test_latex_compile.py (on the reduced DAG's tables and on the DL19 example's)
and runnable alone on a results folder, saving the first page of each document as a PNG::

    python tests/_latex.py results [PNG_DIR]

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

#: what the log says of a box or float that does not fit the page
_PROBLEM = re.compile(r"^(Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\).*|"
                      r"LaTeX Warning: Float too large for page by ([\d.]+)pt.*)$", re.M)
_MARK = re.compile(r"^METAEVAL-TABLE (\S+)$", re.M)


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


#: a paragraph of a paper's text before the tables
_TEXT = "\\section{Results}\n" + "The tables of the pipeline, each \\verb|\\input| as written. " * 6 + "\n\n"


def document(kind: str, tables: list[Path]) -> str:
    """A document of class ``kind`` that ``\\input``s every table as a paper does (its floats placed
    by LaTeX), each table's name typed into the log before it (:func:`problems` names the table of a
    problem)."""
    body = []
    for i, t in enumerate(tables, 1):
        body += [f"\\typeout{{METAEVAL-TABLE {t.as_posix()}}}", f"\\input{{{t.as_posix()}}}"]
        if i % 4 == 0:                 # the floats placed before more come (LaTeX's float queue is finite)
            body.append("\\clearpage")
    title = "\\title{Tables}\n\\maketitle\n" if kind == "acmart" else ""
    return (DOCUMENTS[kind] + "\\extrafloats{500}\n\\begin{document}\n" + title + _TEXT + "\n".join(body)
            + "\n\\clearpage\n\\end{document}\n")


def compile_document(kind: str, tables: list[Path], work: Path, timeout: int = 300,
                     preamble_input: Path | None = None) -> tuple[Path, str]:
    """Compile :func:`document` in ``work`` (as ``KIND.tex``); return the PDF and the log's text.
    ``preamble_input``: a file ``\\input`` after ``\\begin{document}`` (measurements).  Raises
    ``AssertionError`` with the log's end when pdflatex stops with an error."""
    work.mkdir(parents=True, exist_ok=True)
    text = document(kind, tables)
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


def problems(log: str) -> list[str]:
    """``TABLE: Overfull \\hbox (Xpt too wide) ...`` for every overfull box or float too large in
    ``log``, naming the table it occurred in."""
    marks = [(m.start(), m.group(1)) for m in _MARK.finditer(log)]
    out = []
    for m in _PROBLEM.finditer(log):
        table = next((name for pos, name in reversed(marks) if pos < m.start()), "(preamble)")
        out.append(f"{'/'.join(Path(table).parts[-3:])}: {m.group(1).strip()}")
    return out


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


def compile_problems(results: Path, work: Path, png: Path | None = None) -> dict[str, list[str]]:
    """``{document class: [problem, ...]}`` of every table under ``results`` compiled in each
    document of :data:`DOCUMENTS` (in ``work/KIND``); ``png``: page 1 of each saved there."""
    tables = [t.resolve() for t in tables_of(results)]
    out = {}
    for kind in DOCUMENTS:
        pdf, log = compile_document(kind, tables, Path(work) / kind)
        out[kind] = problems(log)
        if png is not None:          # page 1, and page 2: the first page a table* can go to
            for page in (1, 2):
                first_page_png(pdf, Path(png) / f"{Path(results).parent.name or 'results'}-{kind}-p{page}.png", page)
    return out


def main(argv: list[str]) -> int:
    """``python tests/_latex.py RESULTS [PNG_DIR]``: print the problems of each document (exit 1 if
    any); with ``PNG_DIR``, pages 1 and 2 of each as ``NAME-CLASS-pN.png`` (NAME: the folder above
    RESULTS)."""
    import tempfile

    results = Path(argv[0]).resolve()
    png = Path(argv[1]) if len(argv) > 1 else None
    tables = tables_of(results)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="metaeval-latex-") as work:
        for kind in DOCUMENTS:
            pdf, log = compile_document(kind, tables, Path(work) / kind)
            found = problems(log)
            bad += len(found)
            print(f"{kind}: {len(tables)} tables, {len(found)} problems")
            for line in found:
                print("  " + line)
            if png is not None:
                for page in (1, 2):
                    first_page_png(pdf, png / f"{results.parent.name}-{kind}-p{page}.png", page)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
