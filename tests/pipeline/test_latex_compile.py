"""The LaTeX tables and figures in a paper (docs/outputs.md, "LaTeX tables in a paper", "Figures for
print"): every ``.tex`` table of the reduced default DAG (tests/_pipeline_run.py, shared with the
other pipeline tests) ``\\input`` and every figure PDF placed at its own size with its caption, into
ACM ``acmart`` sigconf and into a 10 pt two-column ``article``, compiled with pdflatex: no overfull
box, no float too large for the page (every figure at most MAX_HEIGHT of
metaeval.report.figure_layout tall, its caption below it), no figure wider than the column.  The DL19 example's are compiled
the same way at the end of tests/pipeline/test_pipeline_dl19.py's DAG run; the full default config's
in .ci/run.
The character-width model of metaeval.report.texfit errs wide of what pdflatex sets."""

from __future__ import annotations

import re

import pytest

from _latex import (compile_document, compile_problems, figure_caption, figures_of, problems, require_pdflatex,
                    tables_of)
from _pipeline_run import reduced_run


@pytest.mark.slow                       # the reduced DAG run: the whole-DAG step
def test_reduced_dag_tables_and_figures_compile_in_two_column_papers(tmp_path):
    require_pdflatex()
    results = reduced_run() / "results"
    tables = tables_of(results)
    names = {t.name for t in tables}
    assert {"results.tex", "run_means.tex", "discriminative_power.tex", "asl.tex"} <= names
    figures = figures_of(results)
    assert len(figures) == 27 and {"simA/figures/run_means.pdf", "summary/run_means.pdf"} <= \
        {"/".join(f.parts[-2:]) if f.parent.name == "summary" else "/".join(f.parts[-3:]) for f in figures}
    found = compile_problems(results, tmp_path)
    assert found == {"acmart": [], "article": []}, found
    # every table and figure in each document, each figure with its caption of the outputs
    for kind in ("acmart", "article"):
        doc = (tmp_path / kind / f"{kind}.tex").read_text()
        assert doc.count("\\input{") == len(tables) and doc.count("\\includegraphics{") == len(figures)
        for f in figures:
            assert figure_caption(f) and f"\\caption{{{figure_caption(f)}}}" in doc, f
    assert "Mean score of every run" in figure_caption(results / "simA" / "figures" / "run_means.pdf")
    # stable labels: tab:COLLECTION:TABLE, fig:COLLECTION:FIGURE
    assert r"\label{fig:simA:run_means}" in doc and r"\label{fig:summary:run_means}" in doc
    # stable labels: tab:COLLECTION:TABLE
    assert r"\label{tab:simA:results}" in (results / "simA" / "tables" / "results.tex").read_text()


def test_a_figure_wider_than_the_column_or_without_caption_fails(tmp_path):
    """The check can fail: a figure 4 in wide (wider than either column) and one without its
    caption file are problems; one at the column width with its caption is not."""
    require_pdflatex()
    from metaeval.report.figure_layout import new_figure
    from metaeval.report.figure_size import WIDTHS

    figs = tmp_path / "results" / "c" / "figures"
    figs.mkdir(parents=True)
    captions = tmp_path / ".snakemake" / "metaeval" / "report-captions"
    captions.mkdir(parents=True)
    for name, width in (("wide", 4.0), ("column", WIDTHS["column"]), ("nocaption", WIDTHS["column"])):
        fig = new_figure(width, 1.5)
        fig.text(0.1, 0.5, name, fontsize=9)
        fig.savefig(figs / f"{name}.pdf")
        if name != "nocaption":
            (captions / f"figure_{name}.rst").write_text(f"The {name} figure: 100% of a_b.\n")
    assert figure_caption(figs / "wide.pdf") == r"The wide figure: 100\% of a\_b."
    for kind in ("acmart", "article"):
        _, log = compile_document(kind, [], tmp_path / kind, figures=sorted(figs.glob("*.pdf")))
        found = problems(log)
        assert [line.split(": ")[0] for line in found] == ["c/figures/nocaption.pdf", "c/figures/wide.pdf"], found
        assert "no caption (figure_nocaption.rst missing)" in found[0]
        assert "wider than the column (289.07928pt in a " in found[1] and "pt too wide)" in found[1]
        assert problems(log, wide_figures=True) == found[:1]


def test_width_model_errs_wide_of_pdflatex(tmp_path):
    """Texts set by pdflatex in both classes at each size are no wider than the model says."""
    require_pdflatex()
    from metaeval.report import texfit

    samples = ["0.1234", "nDCG@1000", "P-plus(gains=10:20:30)", "dl-20-official-input.pash_f1", "Q-measure",
               "WWWW mmmm 0000", "AG_Q-measure", "242/435 = 56%"]
    for kind in ("acmart", "article"):
        lines = []
        for i, size in enumerate(texfit.SIZES):
            for j, s in enumerate(samples):
                for bold in (False, True):
                    tex = s.replace("_", r"\_").replace("%", r"\%")
                    tex = rf"\textbf{{{tex}}}" if bold else tex
                    lines.append(rf"\settowidth\w{{{size.command}{{}}{tex}}}\typeout{{W {i} {j} {int(bold)} \the\w}}")
        f = tmp_path / kind / "w.tex"
        f.parent.mkdir(parents=True)
        f.write_text("\\newlength\\w\n" + "\n".join(lines) + "\n")
        _, log = compile_document(kind, [], tmp_path / kind, preamble_input=f)
        got = re.findall(r"^W (\d) (\d) (\d) ([\d.]+)pt$", log, re.M)
        assert len(got) == len(samples) * len(texfit.SIZES) * 2
        for i, j, b, w in got:
            model = texfit.text_width(samples[int(j)], texfit.SIZES[int(i)], bold=b == "1")
            assert float(w) <= model, (kind, samples[int(j)], texfit.SIZES[int(i)].command, b, w, model)
