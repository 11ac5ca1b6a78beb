"""Where a LaTeX table goes (metaeval.report.texfit): the column, the text width, or split; the
first rows that fit the page; stable labels.  (Compiled with pdflatex: tests/pipeline/test_latex_compile.py.)"""

from __future__ import annotations

import re

from metaeval.report import texfit
from metaeval.report.render import Cell, Layout, render_latex


def _layout(cols: int, rows: int = 5, name: str = "run-name") -> Layout:
    header = ["Run"] + [f"M{j}" for j in range(cols)]
    body = [[f"{name}{i}"] + [f"0.{1000 + i * 7 + j:04d}" for j in range(cols)] for i in range(rows)]
    return Layout(header, body)


def test_the_model_sums_character_widths():
    assert texfit.text_width("0.1234") == 5 * 5 + 2.78           # digits 5 pt, the point 2.78 pt
    assert texfit.text_width("ab", bold=True) > texfit.text_width("ab")
    assert texfit.table_width([10.0, 20.0]) == 10 + 20 + 4 * texfit.TABCOLSEP


def test_narrow_table_is_a_column_table():
    [p] = texfit.fit_table(_layout(3))
    assert (p.env, p.size, p.columns, p.rows, p.parts) == ("table", "", (0, 1, 2, 3), 5, 1)
    assert p.width <= texfit.COLUMN_WIDTH * texfit.MARGIN


def test_wider_table_goes_to_the_text_width_then_smaller_then_split():
    places = [texfit.fit_table(_layout(c)) for c in (4, 5, 10, 11, 12)]
    assert [(p[0].env, p[0].size, len(p)) for p in places] == [
        ("table", "", 1), ("table*", "", 1), ("table*", r"\small", 1), ("table*", r"\footnotesize", 1),
        ("table*", r"\small", 2)]
    # a table just too wide for the column at normal size: \small in the column
    [p] = texfit.fit_table(Layout(["Run", "A", "B", "C", "D"], [["r" * 13, "0.1234", "0.1234", "0.1234", "0.1234"]]))
    assert (p.env, p.size) == ("table", r"\small")


def test_too_wide_table_is_split_by_columns_label_column_repeated():
    layout = _layout(40)
    places = texfit.fit_table(layout)
    assert len(places) > 1 and [p.part for p in places] == list(range(1, len(places) + 1))
    assert all(p.columns[0] == 0 and p.width <= texfit.TEXT_WIDTH * texfit.MARGIN for p in places)
    shown = [j for p in places for j in p.columns[1:]]
    assert shown == list(range(1, 41))                      # every column once, in order
    tex = render_latex(layout, "Caption.", "coll:wide")
    assert tex.count(r"\begin{tabular}") == len(places)
    assert re.findall(r"\\label\{([^}]*)\}", tex) == ["tab:coll:wide"] + [f"tab:coll:wide:{i}"
                                                                           for i in range(2, len(places) + 1)]
    assert rf"\caption{{Table~\ref{{tab:coll:wide}} continued. Part 2 of {len(places)}.}}" in tex


def test_long_table_shows_the_rows_that_fit_and_says_so():
    layout = _layout(3, rows=120)
    [p] = texfit.fit_table(layout, "A caption.")
    assert 30 < p.rows < 120
    # the rows and their rules under the caption fit the page height
    assert (p.rows + 1) * 12 + 12 + 22 <= texfit.TEXT_HEIGHT
    tex = render_latex(layout, "A caption.", "c:t", csv="t.csv", total_rows=300)
    assert f"Shown: the first {p.rows} of 300 rows; every row is in t.csv." in tex
    assert tex.count(r" \\") == p.rows + 1


def test_bold_cells_are_measured_bold():
    plain = Layout(["a"], [[Cell("W" * 5)]])
    bold = Layout(["a"], [[Cell("W" * 5, bold=True)]])
    assert texfit.fit_table(bold)[0].width > texfit.fit_table(plain)[0].width


def test_labels_name_the_collection_where_the_pipeline_writes(tmp_path):
    """tab:COLLECTION:TABLE for results/NAME/tables beside results/NAME/matrices (also while written
    under replace_dir's temporary name), else tab:TABLE: bytes independent of the folder."""
    import pandas as pd

    from metaeval.pipeline import collection_scope
    from metaeval.report.tables import write_table

    res = tmp_path / "results" / "trec-dl19"
    assert collection_scope(res / "tables", res / "matrices") == "trec-dl19"
    assert collection_scope(res / ".tables.new-12-ab3", res / "matrices") == "trec-dl19"
    assert collection_scope(tmp_path / "out" / "tables", res / "matrices") is None
    assert collection_scope(tmp_path / "m", res / "matrices") is None
    df = pd.DataFrame({"metric": ["AP"], "mean": [0.5]})
    write_table(df, tmp_path / "a" / "t", label_scope="trec-dl19")
    write_table(df, tmp_path / "b" / "t")
    assert r"\label{tab:trec-dl19:t}" in (tmp_path / "a" / "t.tex").read_text()
    assert r"\label{tab:t}" in (tmp_path / "b" / "t.tex").read_text()
