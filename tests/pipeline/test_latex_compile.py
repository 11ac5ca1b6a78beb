"""The LaTeX tables in a paper (docs/outputs.md, "LaTeX tables in a paper"): every ``.tex`` table of
the reduced default DAG (tests/_pipeline_run.py, shared with the other pipeline tests) ``\\input``
into ACM ``acmart`` sigconf and into a 10 pt two-column ``article``, compiled with pdflatex: no
overfull box, no float too large for the page.  The DL19 example's tables are compiled the same way
at the end of tests/pipeline/test_pipeline_dl19.py's DAG run; the full default config's in .ci/run.
The character-width model of metaeval.report.texfit errs wide of what pdflatex sets."""

from __future__ import annotations

import re

from _latex import compile_document, compile_problems, require_pdflatex, tables_of
from _pipeline_run import reduced_run


def test_reduced_dag_tables_compile_in_two_column_papers(tmp_path):
    require_pdflatex()
    results = reduced_run() / "results"
    tables = tables_of(results)
    names = {t.name for t in tables}
    assert {"results.tex", "run_means.tex", "discriminative_power.tex", "asl.tex"} <= names
    found = compile_problems(results, tmp_path)
    assert found == {"acmart": [], "article": []}, found
    # stable labels: tab:COLLECTION:TABLE
    assert r"\label{tab:simA:results}" in (results / "simA" / "tables" / "results.tex").read_text()


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
