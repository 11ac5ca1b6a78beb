"""Layouts of metaeval.report on small hand-made frames, CSV determinism and atomicity."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from metaeval import outputs as O
from metaeval.report import tables as T
from metaeval.report.csvio import csv_text
from metaeval.report.formatting import format_percent, format_tau, sig_figs
from metaeval.report.layout_catalogue import KINDS, layout_table
from metaeval.report.render import Cell, escape_latex, render_latex, render_markdown
from metaeval.report.tables import write_table


def _read(stem, ext):
    return (stem.parent / f"{stem.name}.{ext}").read_text(encoding="utf-8")


def _md_rows(text):
    return [ln for ln in text.splitlines() if ln.startswith("| ")][1:]


def boot_frame():
    return pd.DataFrame({
        "metric": ["AP", "Q-measure", "nDCG@1000", "PDoc@1000"],
        "pairs": [435, 435, 435, 435],
        "significant": [240, 242, 240, 116],
        "sensitivity": [240 / 435, 242 / 435, 240 / 435, 116 / 435],
        "estimated_diff": [0.1051, 0.0995, 0.12999, 0.0153],
    })


# ------------------------------------------------------------------ number formatting

@pytest.mark.parametrize("x, want", [
    (0.1, "0.10"), (0.0995, "0.10"), (0.1051, "0.11"), (0.125, "0.13"), (1.42, "1.4"),
    (0.0153, "0.015"), (0.0, "0"), (142.0, "140"), (0.996, "1.0"), (float("nan"), "-"),
])
def test_sig_figs_two_significant_figures(x, want):
    assert sig_figs(x) == want


@pytest.mark.parametrize("x, want", [
    (0.85754, ".8575"), (0.85755, ".8576"), (-0.1234, "-.1234"), (1.0, "1.0000"), (None, "-"),
])
def test_format_tau(x, want):
    assert format_tau(x) == want


def test_format_percent_paper_style():
    assert format_percent(55.632) == "56%"
    assert format_percent(5.6) == "5.6%"
    assert format_percent(0.4) == "0.4%"
    assert format_percent(8.05, integer=True) == "8%"
    assert format_percent(0) == "0%"


# ------------------------------------------------------------------ bootstrap tables

def test_bootstrap_markdown_cells_and_raw_csv(tmp_path):
    stem = tmp_path / "bootstrap_paired"
    paths = write_table(boot_frame(), stem)
    assert [p.name for p in paths] == ["bootstrap_paired.csv", "bootstrap_paired.md",
                                       "bootstrap_paired.tex"]
    rows = _md_rows(_read(stem, "md"))
    assert rows[0] == "| Q-measure | 242/435 = 56% | 0.10 |"
    # ties on sensitivity broken by metric name: AP before nDCG@1000
    assert rows[1] == "| AP | 240/435 = 55% | 0.11 |"
    assert rows[2] == "| nDCG@1000 | 240/435 = 55% | 0.13 |"
    assert rows[3] == "| PDoc@1000 | 116/435 = 27% | 0.015 |"
    csv = pd.read_csv(stem.parent / "bootstrap_paired.csv")
    assert list(csv["metric"]) == ["Q-measure", "AP", "nDCG@1000", "PDoc@1000"]
    assert csv.loc[0, "estimated_diff"] == 0.0995               # never rounded
    assert csv.loc[2, "estimated_diff"] == 0.12999
    assert csv.loc[0, "sensitivity"] == 242 / 435


def test_bootstrap_latex_booktabs(tmp_path):
    stem = tmp_path / "bootstrap_unpaired"
    write_table(boot_frame(), stem, caption="Unpaired 5% test_x")
    tex = _read(stem, "tex")
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert tex.count(rule) == 1
    assert r"\begin{tabular}{lrr}" in tex
    assert r"\caption{Unpaired 5\% test\_x}" in tex
    assert r"Q-measure & 242/435 = 56\% & 0.10 \\" in tex
    assert r"$\alpha$" in tex


# ------------------------------------------------------------------ Kendall

def kendall_frame():
    return pd.DataFrame({
        "metric_a": ["RR", "RR", "NWRR"],
        "metric_b": ["NWRR", "O-measure", "O-measure"],
        "tau": [0.8575, 0.8, 0.80001],
        "z0": [6.0, 5.0, 5.5], "p_value": [1e-9, 1e-7, 1e-8],
    })


def test_kendall_triangle_bold_over_08(tmp_path):
    stem = tmp_path / "kendall"
    write_table(kendall_frame(), stem)
    md = _read(stem, "md")
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert lines[0] == "| metric | (b) | (c) |"
    rows = _md_rows(md)
    assert rows[0] == "| (a) RR | **.8575** | .8000 |"          # exactly 0.8 is not bold
    assert rows[1] == "| (b) NWRR | - | **.8000** |"             # 0.80001 > 0.8 is bold
    assert rows[2] == "| (c) O-measure | - | - |"
    tex = _read(stem, "tex")
    assert r"(a) RR & \textbf{.8575} & .8000 \\" in tex


def test_kendall_reversed_pair_is_found():
    df = kendall_frame()
    df.loc[2, ["metric_a", "metric_b"]] = ["O-measure", "NWRR"]
    lay = layout_table(df, "kendall")
    assert [c.text for c in lay.rows[1]] == ["(b) NWRR", "-", ".8000"]


# ------------------------------------------------------------------ swap

def test_swap_columns_i_to_iv(tmp_path):
    df = pd.DataFrame({"metric": ["RR", "P-measure"], "diff_required": [0.19, 0.15],
                       "max_diff": [0.9524, 0.8636], "relative": [0.19 / 0.9524, 0.15 / 0.8636],
                       "pct_satisfying": [20.4, 31.2]})
    stem = tmp_path / "swap"
    write_table(df, stem)
    rows = _md_rows(_read(stem, "md"))
    assert rows == ["| P-measure | 0.1500 | 0.8636 | 17% | **31%** |",
                    "| RR | 0.1900 | 0.9524 | 20% | **20%** |"]
    assert r"\%pairs satisfying (ii)" in _read(stem, "tex")


def test_swap_rates_and_stability_layouts():
    rates = pd.DataFrame({"metric": ["AP"] * 3 + ["RR"] * 3, "bin": [0.0, 0.01, 0.2] * 2,
                          "comparisons": [10, 5, 3] * 2, "swaps": [5, 1, 0] * 2,
                          "swap_rate": [0.5, 0.2, 0.0, 0.4, 0.1, 0.0]})
    lay = layout_table(rates, "swap_rates")
    assert [c.text for c in lay.header] == ["difference bin", "AP", "RR"]
    assert [c.text for c in lay.rows[0]] == ["0.00-0.01", "0.5000", "0.4000"]
    assert lay.rows[-1][0].text == ">= 0.20"
    stab = pd.DataFrame({"metric": ["AP", "AP", "RR", "RR"], "f": [0.01, 0.02, 0.01, 0.02],
                         "minority_rate": [0.05, 0.04, 0.07, 0.06],
                         "proportion_ties": [0.1, 0.2, 0.15, 0.25]})
    lay = layout_table(stab, "stability")
    assert [c.text for c in lay.header] == ["f", "AP MR / PT", "RR MR / PT"]
    assert [c.text for c in lay.rows[1]] == ["0.02", "0.0400 / 0.2000", "0.0600 / 0.2500"]


# ------------------------------------------------------------------ Sakai (2007a) Tables 1, 5-9

def test_collection_table_means_per_topic():
    df = pd.DataFrame({"topic": ["001", "002"], "R": [10, 21], "R(L1)": [6, 11],
                       "R(L2)": [3, 7], "R(L3)": [1, 3], "runs": [30, 30]})
    lay = layout_table(df, "collection")
    assert [c.text for c in lay.header] == ["|Q|", "R/topic", "R(L3)/topic", "R(L2)/topic",
                                            "R(L1)/topic", "runs used"]
    assert [c.text if isinstance(c, Cell) else c for c in lay.rows[0]] == \
        ["2", "15.5", "2.0", "5.0", "8.5", "30"]
    md = render_markdown(lay)
    assert "\\|Q\\|" in md                      # a pipe inside a cell is escaped
    assert "$|Q|$" in render_latex(lay)


def test_gain_kendall_accepts_metric_pairs():
    df = pd.DataFrame({"metric_a": ["P-plus(gains=1:2:3)"] * 2 + ["O-measure(gains=1:2:3)"] * 2,
                       "metric_b": ["P-plus(gains=10:20:30)", "P-plus(gains=1:1:1)",
                                    "O-measure(gains=10:20:30)", "O-measure(gains=1:1:1)"],
                       "tau": [0.9586, 0.7655, 0.8115, 0.6506]})
    lay = layout_table(df, "gain_kendall")
    assert [c.text for c in lay.header] == ["metric (default gains)", "10:20:30", "1:1:1"]
    assert [(c.text, c.bold) for c in lay.rows[0]] == [("P-plus(gains=1:2:3)", False),
                                                        (".9586", True), (".7655", False)]


def test_gain_bootstrap_labels_and_grouping():
    df = pd.DataFrame({"metric": ["P-plus(gains=1:2:3)", "P-plus(gains=10:20:30)",
                                  "O-measure(gains=1:2:3)", "O-measure(gains=1:1:1)"],
                       "pairs": 435, "significant": [77, 73, 63, 54],
                       "sensitivity": np.array([77, 73, 63, 54]) / 435,
                       "estimated_diff": [0.14, 0.15, 0.16, 0.18],
                       "default": [True, False, True, False]})
    lay = layout_table(df.iloc[::-1].reset_index(drop=True), "gain_bootstrap")
    # grouped by family (first appearance = O-measure in the reversed frame), sensitivity desc
    assert [r[0].text for r in lay.rows] == ["O-measure 1:2:3 (default)", "O-measure 1:1:1",
                                            "P-plus 1:2:3 (default)", "P-plus 10:20:30"]
    assert lay.rows[0][1].text == "63/435 = 14%"
    # metaeval.meta.sweep names the default row by the bare metric with gains "default"
    sweep = df.assign(metric=["P-plus", "P-plus(gains=10:20:30)", "O-measure", "O-measure(gains=1:1:1)"],
                      gains=["default", "10:20:30", "default", "1:1:1"])
    lay = layout_table(sweep, "gain_bootstrap")
    assert [r[0].text for r in lay.rows] == ["P-plus (default)", "P-plus 10:20:30",
                                            "O-measure (default)", "O-measure 1:1:1"]


def test_preferred_rank_count_total_cells():
    df = pd.DataFrame({"topic": ["001"] * 3 + ["002"] * 3, "run": ["r1"] * 3 + ["r7"] * 3,
                       "max_rp": [63] * 3 + [285] * 3, "level": ["L1", "L2", "L3"] * 2,
                       "count": [0, 1, 1, 1, 2, 1], "total": [16, 12, 14, 103, 73, 64]})
    lay = layout_table(df, "preferred_rank")
    assert [c.text for c in lay.header] == ["Topic ID", "maxr_p", "run", "L3", "L2", "L1"]
    assert [c.text for c in lay.rows[0]] == ["001", "63", "r1", "1(14)", "1(12)", "0(16)"]
    assert [c.text for c in lay.rows[1]] == ["002", "285", "r7", "1(64)", "2(73)", "1(103)"]


def test_tstar_and_run_means_and_asl_layouts():
    ts = pd.DataFrame({"metric": "AP", "system_x": "a", "system_y": "b", "t_observed": 2.0,
                       "t_star": [-3.0, -1.0, 0.5, 2.5]})
    lay = layout_table(ts, "tstar")
    assert [c.text for c in lay.rows[0]][:5] == ["AP", "a", "b", "2.000", "4"]
    assert lay.rows[0][-1].text == "0.500"
    rm = pd.DataFrame({"metric": ["AP", "AP", "RR", "RR"], "run": ["x", "y", "x", "y"],
                       "mean": [0.5, 0.25, 1 / 3, 0.0]})
    lay = layout_table(rm, "run_means")
    assert [c.text for c in lay.rows[0]] == ["x", "0.5000", "0.3333"]
    asl = pd.DataFrame({"metric": "AP", "test": ["paired", "unpaired"], "system_x": "x",
                        "system_y": "y", "asl": [0.01, 0.2]})
    lay = layout_table(asl, "asl")
    assert [c.text for c in lay.header] == ["system X", "system Y", "AP (paired)", "AP (unpaired)"]


# ------------------------------------------------------------------ escaping, dispatch

def test_latex_escaping_of_metric_names():
    assert escape_latex("P-plus(gains=1:2:3)@10") == "P-plus(gains=1:2:3)@10"
    assert escape_latex("AG_AveP, 5% & #1 {x} ~ ^ \\") == \
        r"AG\_AveP, 5\% \& \#1 \{x\} \textasciitilde{} \textasciicircum{} \textbackslash{}"
    df = boot_frame().assign(metric=["G_AP", "nDCG@10%", "a&b", "x$y"])
    tex = render_latex(layout_table(df, "bootstrap_paired"))
    for name in (r"G\_AP", r"nDCG@10\%", r"a\&b", r"x\$y"):
        assert name in tex


def test_markdown_escapes_pipes_and_stars():
    df = pd.DataFrame({"metric": ["a|b", "x*y"], "value": [1.0, 2.0]})
    md = render_markdown(layout_table(df))
    assert "| a\\|b | 1.0000 |" in md and "| x\\*y | 2.0000 |" in md


def test_kind_inferred_from_stem_else_generic(tmp_path):
    write_table(kendall_frame(), tmp_path / "kendall")
    assert "(a) RR" in _read(tmp_path / "kendall", "md")
    write_table(kendall_frame(), tmp_path / "other")
    assert "| metric_a | metric_b | tau | z0 | p_value |" in _read(tmp_path / "other", "md")
    with pytest.raises(ValueError, match="unknown table kind"):
        write_table(kendall_frame(), tmp_path / "x", kind="nope")
    with pytest.raises(ValueError, match="missing column"):
        write_table(kendall_frame(), tmp_path / "y", kind="bootstrap_paired")
    assert not list(tmp_path.glob("x.*")) and not list(tmp_path.glob("y.*"))


def test_every_kind_is_dispatched_and_captioned():
    for name, spec in KINDS.items():
        assert spec.layout is not None
        out = O.for_layout(name)
        assert out is not None and out.kind == "table", name     # every layout is a declared table
        assert "Regenerates" in T.table_caption(name) and "(20" in T.table_caption(name), name


def test_stem_with_dots_keeps_full_name(tmp_path):
    paths = write_table(boot_frame(), tmp_path / "P-plus(gains=0.3:0.2:0.1)", kind="bootstrap_paired")
    assert [p.name for p in paths] == [f"P-plus(gains=0.3:0.2:0.1).{e}" for e in ("csv", "md", "tex")]


# ------------------------------------------------------------------ CSV determinism

def test_csv_byte_identical_and_full_precision(tmp_path):
    rng = np.random.default_rng(7)
    df = pd.DataFrame({"metric": ["m"] * 50, "run": [f"r{i}" for i in range(50)],
                       "mean": rng.random(50) / 3, "n": np.arange(50)})
    df.loc[3, "mean"] = np.nan
    df.loc[4, "mean"] = 0.1 + 0.2
    original = df.copy()
    write_table(df, tmp_path / "a" / "run_means")
    write_table(df, tmp_path / "b" / "run_means")
    a = (tmp_path / "a" / "run_means.csv").read_bytes()
    assert a == (tmp_path / "b" / "run_means.csv").read_bytes()
    write_table(df, tmp_path / "a" / "run_means")
    assert a == (tmp_path / "a" / "run_means.csv").read_bytes()
    assert b"\r" not in a and a.endswith(b"\n")
    back = pd.read_csv(io.BytesIO(a), float_precision="round_trip")   # exact with pandas < 3 too
    np.testing.assert_array_equal(back["mean"].to_numpy(), df["mean"].to_numpy())  # exact
    assert b"0.30000000000000004" in a
    pd.testing.assert_frame_equal(df, original)                  # input not mutated


def test_float32_and_object_columns_are_written_exactly():
    df = pd.DataFrame({"x": np.array([0.1], dtype=np.float32), "y": pd.Series([0.25], dtype=object)})
    text = csv_text(df)
    assert text == f"x,y\n{float(np.float32(0.1))!r},0.25\n"


# ------------------------------------------------------------------ atomicity

def test_failure_while_rendering_leaves_no_file(tmp_path, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("boom")
    monkeypatch.setattr(T, "render_latex", boom)
    with pytest.raises(RuntimeError):
        write_table(boot_frame(), tmp_path / "bootstrap_paired")
    assert list(tmp_path.iterdir()) == []


def test_failure_while_writing_leaves_no_file(tmp_path, monkeypatch):
    real = T.atomic_write
    calls = []

    def flaky(path, *a, **k):
        calls.append(path)
        if str(path).endswith(".tex"):
            raise OSError("disk full")
        return real(path, *a, **k)
    monkeypatch.setattr(T, "atomic_write", flaky)
    with pytest.raises(OSError):
        write_table(boot_frame(), tmp_path / "bootstrap_paired")
    assert len(calls) == 3
    assert list(tmp_path.iterdir()) == []                        # .csv and .md removed again


def test_csv_text_fast_path_is_pandas_bytes():
    """csv_text joins the fields itself when none needs quoting: the bytes pandas' to_csv writes
    for the same texts (floats as shortest repr, NaN empty, -0.0 kept, ints as str), and pandas
    itself for a field that needs quotes or a missing text."""
    import numpy as np
    import pandas as pd

    from metaeval.report.csvio import csv_text

    rng = np.random.default_rng(0)
    n = 5000
    df = pd.DataFrame({"metric": rng.choice(["AP", "nDCG@10"], n), "pairs": rng.integers(0, 99, n),
                       "diff": rng.normal(0, 0.1, n), "p_value": rng.integers(0, 50, n) / 50})
    df.loc[3, "diff"] = np.nan
    df.loc[4, "diff"] = -0.0
    df.loc[5, "p_value"] = np.inf

    def reference(f):
        g = f.copy()
        for c in g.columns:
            if g[c].dtype.kind == "f":
                g[c] = ["" if v != v else repr(v) for v in g[c].tolist()]
        return g.to_csv(index=False, lineterminator="\n")

    assert csv_text(df) == reference(df)
    quoted = df.head(3).assign(metric=['a,b', 'say "x"', "c"])
    assert csv_text(quoted) == reference(quoted)
    missing = df.head(3).assign(metric=["a", None, "c"])
    assert csv_text(missing) == reference(missing)


def test_long_table_csv_is_streamed_with_the_same_bytes(tmp_path, monkeypatch):
    """A table over STREAM_ROWS rows has its CSV written block by block (never one string): the
    same three files as the one-string path."""
    import numpy as np

    from metaeval.report import csvio

    rng = np.random.default_rng(1)
    df = pd.DataFrame({"metric": "AP", "test": "rthsd", "system_x": [f"r{i}" for i in range(50)],
                       "system_y": "s", "diff": rng.normal(size=50), "effect_size": rng.normal(size=50),
                       "p_value": rng.integers(0, 9, 50) / 9})
    one = T.write_table(df, tmp_path / "a" / "pvalues")
    monkeypatch.setattr(T, "STREAM_ROWS", 10)
    monkeypatch.setattr(csvio, "CSV_BLOCK_ROWS", 7)
    two = T.write_table(df, tmp_path / "b" / "pvalues")
    assert [p.read_bytes() for p in one] == [p.read_bytes() for p in two]
