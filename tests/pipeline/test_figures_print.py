"""Figures for print (issue 47, item 3): every figure PDF of the reduced default DAG (the shared
run of tests/_pipeline_run.py, no DAG run of its own) is as wide as configured -- a column of a
two-column paper, 3.17 in, by default -- and prints no text under 7 pt at that size, read back
from the PDF with pdfminer.six (the sizes a reader sees, not the ones matplotlib was asked for)."""

from __future__ import annotations

from pathlib import Path

import pytest

from _pipeline_run import reduced_run
from metaeval.report.figure_size import MIN_PT, WIDTHS

#: the text of a PDF printed smaller than this is a failure (points; float rounding aside)
TOLERANCE = 0.01


def pdf_page_and_sizes(pdf: Path) -> tuple[float, list[tuple[float, str]]]:
    """``(page width in points, [(printed size in points, character)])`` of a one-page PDF: a
    character's printed size is its font size times the scale of its text matrix (at any angle),
    as pdfminer.six's layout analyser hands each character to its device."""
    import math

    from pdfminer.converter import PDFPageAggregator
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage

    sizes: list[tuple[float, str]] = []

    class Sizes(PDFPageAggregator):
        def render_char(self, matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate):
            a, b, c, d = matrix[:4]
            text = font.to_unichr(cid)
            if text.strip():
                sizes.append((fontsize * math.sqrt(abs(a * d - b * c)), text))
            return super().render_char(matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate)

    rm = PDFResourceManager()
    device = Sizes(rm)
    interp = PDFPageInterpreter(rm, device)
    with open(pdf, "rb") as fh:
        pages = list(PDFPage.get_pages(fh))
        assert len(pages) == 1, pdf
        interp.process_page(pages[0])
    x0, _, x1, _ = pages[0].mediabox
    return float(x1 - x0), sizes


def test_the_size_check_can_fail(tmp_path):
    """A PDF with 5 pt text, 4 in wide (matplotlib, not through save_figure): both found."""
    from metaeval.report.figure_layout import new_figure

    fig = new_figure(4.0, 2.0)
    fig.text(0.1, 0.5, "small", fontsize=5)
    fig.text(0.1, 0.2, "turned", fontsize=9, rotation=90)
    fig.text(0.6, 0.2, "slanted", fontsize=8, rotation=45)
    fig.savefig(tmp_path / "f.pdf")
    width, sizes = pdf_page_and_sizes(tmp_path / "f.pdf")
    assert width == pytest.approx(4.0 * 72)
    assert sorted({round(s, 3) for s, _ in sizes}) == [5.0, 8.0, 9.0]


@pytest.mark.slow
def test_figures_readable():
    work = reduced_run()
    pdfs = sorted((work / "results").rglob("*.pdf"))
    pngs = sorted((work / "results").rglob("figures/*.png")) + sorted((work / "results" / "summary").glob("*.png"))
    assert len(pdfs) >= 20 and {p.with_suffix(".pdf") for p in pngs} <= set(pdfs)
    small, wrong_width = [], []
    for pdf in pdfs:
        width, sizes = pdf_page_and_sizes(pdf)
        if abs(width - WIDTHS["column"] * 72) > 0.01:
            wrong_width.append((str(pdf.relative_to(work)), width / 72))
        assert sizes, f"{pdf.name}: no text read"
        low = min(s for s, _ in sizes)
        if low < MIN_PT - TOLERANCE:
            small.append((str(pdf.relative_to(work)), round(low, 2), "".join(ch for s, ch in sizes if s == low)[:30]))
    assert wrong_width == []
    assert small == []
