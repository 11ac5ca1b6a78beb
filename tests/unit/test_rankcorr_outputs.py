"""The rank_correlation outputs: the table's declaration and its Markdown/LaTeX layout
(one full matrix per coefficient), the heat-map figure and the summary table."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from _synth_tables import METRICS, rank_correlation_frame, write_csvs
from metaeval import outputs as O
from metaeval.meta.rankcorr import COEFFICIENTS, RANK_CORRELATION_COLUMNS, SUMMARY_COEFFICIENTS
from metaeval.report.csvio import read_table
from metaeval.report.formatting import format_tau
from metaeval.report.layout_catalogue import layout_table
from metaeval.report.rankcorr_layouts import RANKCORR_LABELS
from metaeval.report.tables import write_table


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return rank_correlation_frame(seed=7)


def test_declarations_match_the_computation():
    t = O.get("rank_correlation")
    assert list(t.columns) == RANK_CORRELATION_COLUMNS
    assert t.stages == ("rank_correlation",)
    assert O.get("rank_correlation", kind="figure").source == "rank_correlation"
    assert O.get("rank_correlation", "summary").source == "rank_correlation"
    assert tuple(RANKCORR_LABELS) == COEFFICIENTS
    cap = O.caption(t)
    for ref in ("Yilmaz et al. (2008)", "Urbano & Marrero (2017)", "Webber et al. (2010)",
                "Corsi & Urbano (2024)"):
        assert ref in cap


def test_the_synthetic_table_has_undefined_values(table):
    # the first metric's ranking has ties: tau_ap undefined wherever it takes part, tau_ap_a where
    # it is the reference
    first = METRICS[0]
    assert table.loc[table["metric_a"] == first, ["tau_ap", "tau_ap_a"]].isna().all().all()
    assert table.loc[table["metric_b"] == first, "tau_ap"].isna().all()
    assert table.loc[table["metric_b"] == first, "tau_ap_a"].notna().all()
    assert table[["tau_a", "rbo_a"]].notna().all().all()


def _md_rows(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in lines]


def test_markdown_is_one_full_matrix_per_coefficient(table, tmp_path):
    paths = write_table(table, tmp_path / "rank_correlation")
    assert [p.name for p in paths] == [f"rank_correlation.{x}" for x in ("csv", "md", "tex")]
    rows = _md_rows((tmp_path / "rank_correlation.md").read_text())
    header, body = rows[0], rows[2:]
    m = len(METRICS)
    assert header == ["coefficient", "metric (reference a)"] + [f"({c})" for c in "abcd"]
    assert len(body) == len(COEFFICIENTS) * m
    val = {(c, a, b): v for c in COEFFICIENTS
           for a, b, v in zip(table["metric_a"], table["metric_b"], table[c])}
    for k, c in enumerate(COEFFICIENTS):
        block = body[k * m:(k + 1) * m]
        assert block[0][0] == RANKCORR_LABELS[c][0] and all(r[0] == "" for r in block[1:])
        for i, row in enumerate(block):
            assert row[1].endswith(METRICS[i])
            cells = [x.strip("*") for x in row[2:]]
            assert len(cells) == m
            for j, cell in enumerate(cells):
                if i == j:
                    assert cell == "-"
                    continue
                v = val[(c, METRICS[i], METRICS[j])]
                assert cell == ("-" if math.isnan(v) else format_tau(v)), (c, i, j)
    # both triangles are filled (a full matrix), and undefined values show as '-'
    tau_ap = body[COEFFICIENTS.index("tau_ap") * m:(COEFFICIENTS.index("tau_ap") + 1) * m]
    assert all(x == "-" for x in tau_ap[0][2:])                    # first metric has ties
    assert tau_ap[1][4] != "-" and tau_ap[2][3] != "-"              # (b, c) and (c, b)
    # tau > 0.8 bold, RBO never
    rbo_rows = body[COEFFICIENTS.index("rbo") * m:]
    assert not any("**" in x for r in rbo_rows for x in r)


def test_csv_keeps_empty_cells_and_latex_the_same_matrix(table, tmp_path):
    write_table(table, tmp_path / "rank_correlation")
    text = (tmp_path / "rank_correlation.csv").read_text()
    assert text.splitlines()[0] == ",".join(RANK_CORRELATION_COLUMNS)
    assert ",," in text and "nan" not in text.lower()
    back = read_table(tmp_path / "rank_correlation.csv")
    pd.testing.assert_frame_equal(back[list(COEFFICIENTS)].reset_index(drop=True),
                                  table[list(COEFFICIENTS)].reset_index(drop=True),
                                  check_exact=False, rtol=1e-15)
    tex = (tmp_path / "rank_correlation.tex").read_text()
    assert r"$\tau_{AP,a}$" in tex and r"RBO$^b$" in tex
    assert tex.count(r" \\") == 1 + len(COEFFICIENTS) * len(METRICS)   # header + rows


def test_empty_table_lays_out_as_a_header():
    empty = pd.DataFrame({c: pd.Series(dtype=float) for c in RANK_CORRELATION_COLUMNS})
    lay = layout_table(empty, "rank_correlation")
    assert lay.rows == []


# ----------------------------------------------------------------------------- the figure
def test_figure_is_written_and_deterministic(table, tmp_path):
    from metaeval.report.figures import plot_rank_correlation

    a = plot_rank_correlation(table, tmp_path / "a" / "rank_correlation")
    b = plot_rank_correlation(table, tmp_path / "b" / "rank_correlation")
    assert [p.name for p in a] == ["rank_correlation.png", "rank_correlation.pdf"]
    for p, q in zip(a, b):
        assert p.stat().st_size > 1000
        assert p.read_bytes() == q.read_bytes(), p.name


def test_figure_has_one_heat_map_per_coefficient_with_the_values(table, monkeypatch):
    from metaeval.report import figures as F

    figs = []
    monkeypatch.setattr(F, "save_figure", lambda fig, stem: figs.append(fig) or [])
    F.plot_rank_correlation(table, "x")
    (fig,) = figs
    panels = [ax for ax in fig.axes if ax.images and ax.get_title()]
    # titles in two lines: the coefficient, then its citation; the first coefficients in the table's
    # order, as many as a page holds at the figure's width (docs/outputs.md, the height rule), the
    # foot naming the others' table
    assert [ax.get_title().replace("\n", " ") for ax in panels] == \
        [F.RANKCORR_TITLES[c] for c in COEFFICIENTS][:len(panels)]
    assert len(panels) >= 2
    if len(panels) < len(COEFFICIENTS):
        feet = [t.get_text().replace("\n", " ") for t in fig.texts]
        assert any(f"first {len(panels)} of {len(COEFFICIENTS)} coefficients shown; all in rank_correlation.csv"
                   in t for t in feet), feet
    m = len(METRICS)
    ncols = len({round(ax.get_position().x0, 3) for ax in panels})     # the grid wraps to the figure's width
    # the metrics named on the axes, or numbered with a key in the foot when their names do not fit
    # beside panels that fit a page
    numbered = [str(i + 1) for i in range(m)]
    names = METRICS if [t.get_text() for t in panels[0].get_yticklabels()] != numbered else numbered
    if names is numbered:
        key = "; ".join(f"{i + 1} {x}" for i, x in enumerate(METRICS))
        assert any(key in t.get_text().replace("\n", " ") for t in fig.texts), [t.get_text() for t in fig.texts]
    for k, (ax, c) in enumerate(zip(panels, COEFFICIENTS)):
        shown = ax.images[0].get_array()
        assert shown.shape == (m, m)
        want = int(np.isfinite(table[c].to_numpy(dtype=float)).sum())
        assert int((~np.ma.getmaskarray(shown)).sum()) == want
        printed = [x for t in ax.texts for x in t.get_text().split() if x != "n/a"]
        assert len(printed) == want                                # one printed value per cell
        na = [x for t in ax.texts for x in t.get_text().split() if x == "n/a"]
        assert len(na) == m * (m - 1) - want                       # every undefined cell says so
        vals = table[c].to_numpy(dtype=float)
        assert sorted(printed) == sorted(F._tau_text(v) for v in vals[np.isfinite(vals)])
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels == (names if k % ncols == 0 else [])         # names on the outer panels
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert labels == (names if k >= len(panels) - ncols else [])


def test_figure_without_data_says_so(monkeypatch):
    from metaeval.report import figures as F

    figs = []
    monkeypatch.setattr(F, "save_figure", lambda fig, stem: figs.append(fig) or [])
    F.plot_rank_correlation(pd.DataFrame(columns=RANK_CORRELATION_COLUMNS), "x")
    assert "no data" in figs[0].axes[0].texts[0].get_text()


# ----------------------------------------------------------------------------- the summary
def test_summary_table_has_tau_ap_b_and_rbo_a_per_collection(tmp_path):
    from metaeval.report.summary import write_summary

    tabs = {"A": rank_correlation_frame(seed=1), "B": rank_correlation_frame(seed=2)}
    for name, df in tabs.items():
        write_csvs({"rank_correlation": df}, tmp_path / name / "tables")
    (tmp_path / "C" / "tables").mkdir(parents=True)                # a collection without it
    written = write_summary({n: tmp_path / n for n in "ABC"}, tmp_path / "summary")
    for x in ("csv", "md", "tex"):
        assert tmp_path / "summary" / f"rank_correlation.{x}" in written
    s = read_table(tmp_path / "summary" / "rank_correlation.csv")
    assert list(s.columns) == ["metric_a", "metric_b", "coefficient", "A", "B", "C"]
    pairs = list(combinations(METRICS, 2))
    assert len(s) == len(pairs) * len(SUMMARY_COEFFICIENTS)
    assert list(s["coefficient"]) == list(SUMMARY_COEFFICIENTS) * len(pairs)
    assert s["C"].isna().all()
    for name, df in tabs.items():
        for rec in s.to_dict("records"):
            want = df.loc[(df["metric_a"] == rec["metric_a"]) & (df["metric_b"] == rec["metric_b"]),
                          rec["coefficient"]].item()
            assert rec[name] == pytest.approx(want, rel=1e-15)
    md = (tmp_path / "summary" / "rank_correlation.md").read_text()
    assert "| metric_a | metric_b | coefficient | A | B | C |" in md
    assert "tau_AP-b" in md                                        # the caption


def test_make_all_figures_draws_it(tmp_path):
    from metaeval.report.figures import make_all_figures

    write_csvs({"rank_correlation": rank_correlation_frame(seed=3)}, tmp_path / "tables")
    written = make_all_figures(tmp_path / "tables", tmp_path / "figures")
    assert sorted(p.name for p in written) == ["rank_correlation.pdf", "rank_correlation.png"]
