"""Figures a reader can read (and the size of the report that embeds those of an 80-run collection): rank_correlation.png's panel titles do not overlap at any metric
count and undefined cells say so (``n/a`` and a note); run_means.png plots every metric and names
every run.  (Drawn and looked at while writing: the checks here are on the figure objects.)"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval.report import figures as F


@pytest.fixture
def captured(monkeypatch, tmp_path):
    """The figures drawn, kept instead of saved; in a temporary working directory, so that a plotter
    saving past the capture writes its ``unused.*`` there, not into the project."""
    monkeypatch.chdir(tmp_path)
    figs = []

    def keep(fig, stem):
        from metaeval.report.figure_layout import fit_to_width

        fit_to_width(fig)                   # laid out as save_figure lays it out (a column wide)
        figs.append(fig)
        return []

    monkeypatch.setattr(F, "save_figure", keep)
    monkeypatch.setattr("metaeval.report.figure_layout.save_figure", keep)   # the plug-in modules' figures
    return figs


def _rank_table(metrics, undefined_ref=None, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for a, b in itertools.permutations(metrics, 2):
        row = {"metric_a": a, "metric_b": b}
        for c in F.RANKCORR_TITLES:
            row[c] = float(rng.uniform(-0.2, 1.0))
        if a == undefined_ref:                      # ties in the reference: tau_AP(-a) undefined
            row["tau_ap"] = row["tau_ap_a"] = np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def _overlaps(boxes):
    return [(i, j) for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2) if a.overlaps(b)]


@pytest.mark.parametrize("n", [2, 3, 5, 13])
def test_rank_correlation_titles_do_not_overlap(n, captured):
    metrics = [f"metric{i}" for i in range(n)]
    F.plot_rank_correlation(_rank_table(metrics), "unused")
    fig = captured[-1]
    r = fig.canvas.get_renderer()
    axes = [ax for ax in fig.axes if ax.get_title()]
    # every coefficient, or the first that fit MAX_HEIGHT with a foot saying so (a column: 3 rows of 2)
    assert len(axes) == 8 or (len(axes) % 2 == 0 and any(
        f"first {len(axes)} of 8 coefficients shown; all in rank_correlation.csv" in t.get_text().replace("\n", " ")
        for t in fig.texts)), [t.get_text() for t in fig.texts]
    titles = [ax.title.get_window_extent(r) for ax in axes]
    assert not _overlaps(titles), [axes[i].get_title() for pair in _overlaps(titles) for i in pair]
    # each title within its panel's width (it cannot reach the neighbour's)
    for ax, t in zip(axes, titles):
        box = ax.get_window_extent(r)
        assert t.x0 >= box.x0 - 0.15 * fig.dpi and t.x1 <= box.x1 + 0.15 * fig.dpi, ax.get_title()


def test_rank_correlation_marks_undefined_cells(captured):
    from metaeval.report.figure_layout import figure_settings

    metrics = ["AP", "RR", "nDCG@10"]
    with figure_settings("text"):                   # a text width: the values printed in their cells
        F.plot_rank_correlation(_rank_table(metrics, undefined_ref="RR"), "unused")
    fig = captured[-1]
    panels = {ax.get_title().split("\n")[0]: ax for ax in fig.axes if ax.get_title()}
    na = [(t.get_text(), t.get_position()) for t in panels["tau_AP"].texts if "n/a" in t.get_text()]
    # row RR (y = 1): the cells of AP (x = 0) and nDCG@10 (x = 2), the diagonal between them blank
    assert [(s, round(x, 6), y) for s, (x, y) in na] == [("n/a", 0.0, 1), ("n/a", 2.0, 1)]
    assert not [t for t in panels["RBO"].texts if "n/a" in t.get_text()]
    notes = [t.get_text() for t in fig.texts]
    assert any(s.startswith("n/a (grey): undefined") and "tau_AP: either ranking has ties" in s for s in notes)
    # nothing undefined: no note
    F.plot_rank_correlation(_rank_table(metrics), "unused")
    assert not [t for t in captured[-1].texts if "n/a" in t.get_text()]


def test_run_means_plots_every_metric_and_names_the_runs(captured):
    rng = np.random.default_rng(2)
    runs = [f"run-{k}" for k in range(12)]
    metrics = ["RR", "AP", "nDCG@10", "Q-measure"]
    df = pd.DataFrame([(m, r, float(rng.uniform())) for m in metrics for r in runs],
                      columns=["metric", "run", "mean"])
    F.plot_run_means(df, "unused")
    ax = captured[-1].axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["AP", "RR", "nDCG@10", "Q-measure"]
    by_ap = df[df.metric == "AP"].sort_values("mean", ascending=False)["run"].tolist()
    assert [t.get_text() for t in ax.get_yticklabels()] == by_ap       # top to bottom, best first
    assert ax.get_ylim() == (11.5, -0.5)
    for line in ax.get_lines():                     # each line the metric's means in that run order
        want = df[df.metric == line.get_label()].set_index("run").loc[by_ap, "mean"].to_numpy()
        np.testing.assert_array_equal(line.get_xdata(), want)
    F.plot_run_means(df, "unused", metrics=["AP", "RR"])
    assert [ln.get_label() for ln in captured[-1].axes[0].get_lines()] == ["AP", "RR"]


# --------------------------------------------------------------------------- 80 runs, 25 measures
# (issue 31: tstar.png's titles overlapped, pool_reuse.png's 83 run names and its legend over the
# data, incompleteness.png's legend clipped and 10 colours for 23 series.)  Every figure of an
# 80-run, 25-measure collection with TREC DL20-long run names, checked from matplotlib's own
# layout: the text artists the renderer draws, their window extents.
WIDE_METRICS = (["AP", "Q-measure", "nDCG@10", "P-plus(gains=1:2:3)"]
                + [f"nDCG(judged_only=True)@{k}" for k in range(5, 26)])
#: share of a text box's height, at top and at bottom, that is the font's line gap rather than ink:
#: a legend's rows (labelspacing 0.5 em) have boxes that overlap by about a quarter of their height
LINE_GAP = 0.15


def drawn_texts(fig) -> list:
    """The non-empty text artists that drawing ``fig`` draws (tick labels outside the view limits,
    which matplotlib keeps but does not draw, are left out).  Laid out by a draw that renders no
    pixel (``draw_without_rendering``): the same texts and extents as an Agg draw, in half the time."""
    import matplotlib.text

    seen = []
    real = matplotlib.text.Text.draw

    def draw(self, renderer):
        if self.get_visible() and self.get_text().strip():
            seen.append(self)
        return real(self, renderer)

    matplotlib.text.Text.draw = draw
    try:
        fig.draw_without_rendering()
    finally:
        matplotlib.text.Text.draw = real
    return seen


def layout_problems(fig, tol: float = 0.5) -> list:
    """Texts clipped by the figure's edge and pairs of texts that overlap (boxes less LINE_GAP)."""
    texts = drawn_texts(fig)
    r = fig.canvas.get_renderer()
    box = np.array([t.get_window_extent(r).extents for t in texts]).reshape(-1, 4)
    fb = fig.bbox
    out = [("clipped", texts[i].get_text()) for i in np.flatnonzero(
        (box[:, 0] < fb.x0 - tol) | (box[:, 1] < fb.y0 - tol) | (box[:, 2] > fb.x1 + tol) | (box[:, 3] > fb.y1 + tol))]
    h = box[:, 3] - box[:, 1]
    b = box + np.stack([0 * h, LINE_GAP * h, 0 * h, -LINE_GAP * h], axis=1)
    ov = ((b[:, None, 0] < b[None, :, 2] - tol) & (b[None, :, 0] < b[:, None, 2] - tol)
          & (b[:, None, 1] < b[None, :, 3] - tol) & (b[None, :, 1] < b[:, None, 3] - tol))
    return out + [("overlap", texts[i].get_text(), texts[j].get_text()) for i, j in zip(*np.nonzero(np.triu(ov, 1)))]


@pytest.fixture(scope="module")
def wide_tables():
    """The tables of an 80-run, 25-measure collection (synthetic; run names ``run00``..)."""
    from _synth_tables import frames

    return frames(seed=3, runs=80, topics=12, B=50, metrics=WIDE_METRICS)


@pytest.fixture(scope="module")
def wide_frames(wide_tables):
    """:func:`wide_tables` with TREC DL20's long run names, as the figures are drawn from."""
    teams = ["pash", "bigIR-DTH", "d_d2q", "TUW-TKL", "nlm-bert", "fr_pass", "relemb_mlm", "p_d2q"]
    long = {f"run{i:02d}": f"dl-20-official-input.{teams[i % len(teams)]}_{i}_msmarco-passage-judged"
            for i in range(80)}
    fr = {name: df.copy() for name, df in wide_tables.items()}
    for df in fr.values():
        for col in ("run", "other", "system_x", "system_y"):
            if col in df.columns:
                df[col] = df[col].map(lambda v: long.get(v, v))
    return fr


def test_layout_check_finds_overlap_and_clipping():
    """The check can fail: two texts on top of each other, one past the figure's edge."""
    fig = F.new_figure(3.0, 2.0)
    fig.text(0.1, 0.5, "overlapping text")
    fig.text(0.12, 0.5, "overlapping text")
    fig.text(0.9, 0.9, "clipped at the right edge")
    kinds = sorted(p[0] for p in layout_problems(fig))
    assert kinds == ["clipped", "overlap"]


@pytest.fixture(scope="module")
def wide_drawn(wide_frames, tmp_path_factory):
    """Every per-collection figure of :func:`wide_frames` drawn once for the module: ``({name:
    what the checks below read of the figure as its plotter laid it out}, the figures folder)``,
    the PNGs written there by :func:`metaeval.report.figure_layout.save_figure` (the
    report's size is measured on them, :func:`test_report_of_an_80_run_collection_is_under_10_mb`)."""
    from metaeval import outputs as O
    from metaeval.report import figure_layout as FL

    folder = tmp_path_factory.mktemp("wide-figures")
    seen: dict = {}
    real = FL.save_figure

    fit = FL.fit_to_width

    def check_then_save(fig, stem):
        fit(fig)                                                # as save_figure lays it out (a column wide)
        seen[Path(stem).name] = _readability(fig)
        FL._within_aspect(fig)
        seen[Path(stem).name]["page"] = _page(fig)             # what the page check reads at a column
        FL.fit_to_width = lambda *a, **k: None                  # laid out already: saved as it is
        try:
            return real(fig, stem)
        finally:
            FL.fit_to_width = fit

    with pytest.MonkeyPatch.context() as m, FL.figure_settings(formats=("png",)):   # the PNGs the report embeds
        m.setattr(F, "save_figure", check_then_save)
        m.setattr(FL, "save_figure", check_then_save)           # the plug-in modules' figures
        for out in O.figures("collection"):
            draw, _ = F.plotter(out.layout)
            draw(wide_frames[out.source], folder / out.name, **F.figure_kwargs(out.layout))
    return seen, folder


def _page(fig) -> dict:
    """What the page check reads of ``fig`` as :func:`metaeval.report.figure_layout.save_figure`
    lays it out: its height, the foot saying which panels it shows ("first K of N metrics shown; all
    in TABLE.csv": ``(K, N, noun, TABLE, its font size)``) and its panels with a title."""
    import re

    feet = [(int(m.group(1)), int(m.group(2)), m.group(3), m.group(4), t.get_fontsize()) for t in fig.texts
            for m in [re.search(r"first (\d+) of (\d+) (\w+) shown; all in (\S+)\.csv", t.get_text().replace("\n", " "))]
            if m]
    return {"height": float(fig.get_size_inches()[1]), "feet": feet,
            "titled": sum(1 for ax in fig.axes if ax.get_title()),
            "texts": [t.get_text() for t in fig.texts]}


def _readability(fig) -> dict:
    """What the readability checks read of ``fig``, before it is saved: its size, the layout
    problems, whether every panel with lines has its error bands, the colours of each panel's series."""
    w, h = fig.get_size_inches()
    return {"size": (w, h), "problems": layout_problems(fig),
            "bands": all(ax.collections for ax in fig.axes if ax.get_visible() and ax.lines),
            "series": [{ln.get_label(): (ln.get_color(), ln.get_linestyle(), ln.get_marker())
                        for ln in ax.get_lines() if not ln.get_label().startswith("_")} for ax in fig.axes]}


@pytest.mark.parametrize("name", [o.name for o in __import__("metaeval.outputs", fromlist=["x"]).figures("collection")])
def test_every_figure_is_readable_at_80_runs_and_25_measures(name, wide_drawn):
    got = wide_drawn[0][name]
    w, h = got["size"]
    assert w / h <= 4.5, (name, w, h)                         # panels wrap (25 metrics: not 25 in a row)
    if name in ("test_errors_power", "test_errors_type3"):     # the rates with their standard errors
        assert got["bands"], name
    assert got["problems"] == []
    assert w == pytest.approx(3.17)                            # a column of a two-column paper
    for series in got["series"]:               # a style each: Okabe-Ito colour, line style, marker
        if len(series) > 8:
            assert len(set(series.values())) == len(series), (name, series)


def test_bayes_figures_at_a_column_say_which_runs_they_name(wide_frames, captured):
    """bayes's figures of 80 runs at 3.17 in, at most a page tall (MAX_HEIGHT): the intervals of every
    run ticked, every k-th named from the best on (the foot says k); the matrix of the top runs of
    each metric, every one named on both axes, the foot saying how many of the 80 and where the rest
    are (issue 47 item 3)."""
    import re

    from metaeval.labels import default_run_labels
    from metaeval.report.bayes import MAX_HEIGHT, plot_bayes_intervals, plot_bayes_p_greater

    runs, pairs = wide_frames["bayes_runs"], wide_frames["bayes_pairs"]
    plot_bayes_intervals(runs, "unused")
    plot_bayes_p_greater(pairs, "unused")
    intervals, matrix = captured[-2:]
    short = default_run_labels(sorted(set(runs["run"])))
    for fig in (intervals, matrix):
        w, h = fig.get_size_inches()
        assert w == pytest.approx(3.17) and h <= MAX_HEIGHT and layout_problems(fig) == []
    [foot] = [t.get_text().replace("\n", " ") for t in intervals.texts]
    k = int(re.fullmatch(r"Every (\d+)\w\w of 80 runs named \(all in bayes_runs.csv\)", foot).group(1))
    assert 2 <= k <= 6          # two panels of 80 rows in a 5.3 in page: every 6th name (7 pt rows, no overlap)
    for ax in [ax for ax in intervals.axes if ax.get_title()]:
        g = runs[runs["metric"] == ax.get_title()].sort_values(["mean", "run"], ascending=[False, True])
        assert len(set(ax.get_yticks()) | set(ax.get_yticks(minor=True))) == 80        # every run ticked
        assert [t.get_text() for t in ax.get_yticklabels()] == [short[r] for r in g["run"]][::k]
    panels = [ax for ax in matrix.axes if ax.get_title()]
    assert len(panels) == 2
    [foot] = [t.get_text().replace("\n", " ") for t in matrix.texts]
    top = int(re.fullmatch(r"The top (\d+) of 80 runs by posterior mean, per metric \(every pair in bayes_pairs.csv\)",
                           foot).group(1))
    assert top >= 8             # two 80-run matrices in a 5.3 in page: 7 pt a cell
    for ax in panels:
        g = pairs[pairs["metric"] == ax.get_title()]
        best = g.groupby("run")["diff"].mean().sort_values(ascending=False).index[:top]
        names = [short[r] for r in best]
        assert [t.get_text() for t in ax.get_yticklabels()] == names == [t.get_text() for t in ax.get_xticklabels()]
        assert ax.get_images()[0].get_array().shape == (top, top)


#: bytes of a Snakemake 9 report.html beyond the files it embeds (measured, see below)
SNAKEMAKE_PAGE = 3.3e6


def test_report_of_an_80_run_collection_is_under_10_mb(wide_tables, wide_drawn, tmp_path):
    """Every table and figure of an 80-run, 25-measure collection (synthetic; the figures with the
    long run names of TREC DL20): what the report embeds -- the report views of the tables and the PNG figures,
    base64 -- plus Snakemake's own page (3.3 MB: the report.html of a 4-run, 5-topic collection
    whose files are 0.2 MB, measured with Snakemake 9.27) is under 10 MB; asl.tex shows the pairs
    of the top 20 runs.  The outputs of the opt-in stage test_errors are left out (off by default;
    its figures and small tables add some 0.12 MB on two metrics).  (Building the Snakemake report
    itself of 80 runs takes minutes: the size rule is tested on what it embeds.)"""
    from metaeval import outputs as O
    from metaeval.meta import stages
    from metaeval.pipeline import write_tables
    from metaeval.report import views as V
    from metaeval.report.tables import TABLE_MAX_ROWS

    opt_in = set(stages.get("test_errors").tables) | set(stages.get("bayes").tables)
    names = [o.name for o in O.tables("collection") if o.name in wide_tables and o.name not in opt_in]
    write_tables({n: wide_tables[n] for n in names}, tmp_path / "tables")
    full = sum((tmp_path / "tables" / f"{n}.csv").stat().st_size for n in names)
    assert full > 20e6                                     # the tables whole would not fit
    info = V.write_report_views(tmp_path / "tables", tmp_path / "report", names)
    # the views are the Markdown views (the paper's rows: the top 20 runs' pairs, at most TABLE_MAX_ROWS
    # rows), each within the size embedded whole; the whole tables are linked, not embedded
    assert all(i["whole"] for i in info.values())          # (an HTML view: its CSV view's rows, a third more bytes)
    assert info["asl"]["rows"] == 20 * 19 // 2 and info["pvalues"]["rows"] <= TABLE_MAX_ROWS
    figures = wide_drawn[1]
    pngs = [figures / f"{o.name}.png" for o in O.figures("collection") if o.source not in opt_in]
    assert all(p.is_file() for p in pngs)
    embedded = V.report_size(list((tmp_path / "report").glob("*.html")) + pngs)
    print(f"tables {full / 1e6:.1f} MB; report embeds {embedded / 1e6:.2f} MB")
    assert embedded + SNAKEMAKE_PAGE < 10e6
    tex = (tmp_path / "tables" / "asl.tex").read_text()
    assert "top 20 of 80 runs" in tex and len(tex) < 150_000
    parts = tex.split("\\end{tabular}")[:-1]                  # texfit's parts (columns split for the page)
    assert parts and all(p.count("\\\\") <= 20 * 19 // 2 + 5 for p in parts)    # each <= 190 pairs (+ header rows)


# --------------------------------------------------------------------------- 33 judges, 60 runs
def _judgment_tables(n_sets=33, n_runs=60, metrics=("nDCG@10", "AP(rel=2)"), seed=4):
    """run_ranks and ranking_agreement of LLMJudge-like submissions: long set names, tau_AP empty
    where a set's means tie."""
    rng = np.random.default_rng(seed)
    sets = ["nist"] + [f"{t}-{k}" for k, t in enumerate(itertools.islice(itertools.cycle(
        ["RMITIR-llama70B", "h2oloo-zeroshot2", "NISTRetrieval-instruct0", "willia-umbrela1", "prophet-setting4"]),
        n_sets - 1))]
    runs = [f"run{i:02d}" for i in range(n_runs)]
    rr, ra = [], []
    for m in metrics:
        base = rng.uniform(0.2, 0.8, n_runs)
        for j, s in enumerate(sets):
            mean = base if j == 0 else np.clip(base + rng.normal(0, 0.05, n_runs), 0, 1)
            rr += [(m, r, s, float(v), 1, 0) for r, v in zip(runs, mean)]
            if j:
                tau = float(rng.uniform(0.6, 0.95))
                ra.append({"metric": m, "qrels": s, "tau": tau, "tau_ap": np.nan if j % 7 == 0 else tau - 0.05,
                           "tau_ci_low": tau - 0.08, "tau_ci_high": tau + 0.03})
    return (pd.DataFrame(rr, columns=["metric", "run", "qrels", "mean", "rank", "rank_change"]),
            pd.DataFrame(ra))


def test_judgment_figures_are_readable_at_33_judges(captured, capsys):
    """run_means and ranking_agreement of `metaeval judgments`: no text overlapping or clipped, a
    colour per set, the legend beside the panels, the tau in the run-means panels, no Matplotlib
    warning."""
    import warnings

    from metaeval.report.judgment_figures import plot_judgment_run_means, plot_judgment_taus

    n_sets = 33
    rr, ra = _judgment_tables(n_sets)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_judgment_run_means(rr, "unused", reference="nist", taus=ra, labels={"AP(rel=2)": "AP (rel >= 2)"})
        plot_judgment_taus(ra, "unused")
    assert capsys.readouterr().err == ""
    means, taus = captured[-2:]
    for fig in (means, taus):
        assert layout_problems(fig) == []
    panels = [ax for ax in means.axes if ax.get_title()]
    assert [ax.get_title().split(":")[0] for ax in panels] == ["nDCG@10", "AP (rel >= 2)"]
    assert all("tau" in ax.get_title() for ax in panels)
    styles = {(tuple(c.get_facecolor()[0]), c.get_paths()[0].vertices.round(3).tobytes()) for c in panels[0].collections}
    assert len(styles) == n_sets - 1                 # a colour and marker each
    legend = (means.legends or [ax.get_legend() for ax in means.axes if ax.get_legend()])[0]
    assert len(legend.get_texts()) == n_sets - 1
    tl = (taus.legends or [ax.get_legend() for ax in taus.axes if ax.get_legend()])[0]
    assert [t.get_text() for t in tl.get_texts()][-2:] == ["tau (bar: 95% BCa interval)", "tau_AP"]
    assert means.legends and taus.legends            # many judges: the legends below the panels
    r = means.canvas.get_renderer()
    box = means.legends[0].get_window_extent(r)
    assert all(not box.overlaps(ax.get_window_extent(r)) for ax in means.axes)


def test_power_curves_alpha_axis_reads_the_levels_as_decimals(captured):
    """The power curves' log alpha axis: ticks at the levels a reader looks for, as decimals, no
    minor ticks."""
    from _synth_tables import frames

    from metaeval.report.standardisation import ALPHA_TICKS, plot_standardisation_power

    plot_standardisation_power(frames(seed=2)["standardisation_between"], "unused")
    ax = captured[-1].axes[0]
    captured[-1].canvas.draw()
    assert tuple(ax.get_xticks()) == ALPHA_TICKS
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.001", "0.005", "0.01", "0.05", "0.1"]
    assert len(ax.get_xticks(minor=True)) == 0


def test_ppi_width_figure_draws_the_human_topics_saved(captured):
    """ppi_width: the widths, and below them the human-only topics an equally narrow interval would
    need per estimator (human on the diagonal); nothing overlapping or clipped."""
    from metaeval.meta.ppi import budget_table
    from metaeval.report.ppi import plot_ppi_width

    rng = np.random.default_rng(4)
    Y = rng.beta(2, 3, (40, 5))
    Yh = np.clip(Y + rng.normal(0.05, 0.1, Y.shape), 0, 1)
    b = pd.concat([budget_table(m, Y, Yh, Yh, Y.mean(axis=0), [5, 10, 20], 50, 1, 0.05)
                   for m in ("nDCG@10", "AP(rel=2)")], ignore_index=True)
    plot_ppi_width(b, "unused")
    fig = captured[-1]
    assert layout_problems(fig) == []
    lower = [ax for ax in fig.axes if ax.get_ylabel().replace("\n", " ").startswith("human-only topics")]
    assert len(lower) == 2
    human = next(ln for ln in lower[0].get_lines() if ln.get_label() == "human")
    assert human.get_ydata().tolist() == [5.0, 10.0, 20.0]
    pp = next(ln for ln in lower[0].get_lines() if ln.get_label() == "ppi++")
    exp = b[(b.metric == "nDCG@10") & (b.estimator == "ppi++")]["human_only_topics"].tolist()
    assert pp.get_ydata().tolist() == exp


# --------------------------------------------------------------------------- at most a page tall
@pytest.mark.parametrize("width", ["column", "text"])
def test_every_figure_of_80_runs_and_25_measures_fits_a_page(width, wide_frames, wide_drawn, monkeypatch):
    """Issue 47, item 3: every per-collection figure of an 80-run, 25-measure collection with every
    test is at most MAX_HEIGHT tall, a column or a text width wide (with a 10-line caption it fits
    the page of a 10 pt two-column article); one showing its first panels only says so in a foot
    ("first K of N metrics shown; all in TABLE.csv") and shows K of them.  At a column, the figures
    :func:`wide_drawn` drew and saved; at the text width, drawn again."""
    from metaeval import outputs as O
    from metaeval.report import figure_layout as FL

    if width == "column":
        seen = {name: got["page"] for name, got in wide_drawn[0].items()}
    else:
        seen = {}

        def keep(fig, stem):                             # as save_figure lays it out, not saved
            FL.fit_to_width(fig)
            FL._within_aspect(fig)
            seen[Path(stem).name] = _page(fig)
            return []

        monkeypatch.setattr(F, "save_figure", keep)
        monkeypatch.setattr(FL, "save_figure", keep)
        with FL.figure_settings(width):
            for out in O.figures("collection"):
                draw, _ = F.plotter(out.layout)
                draw(wide_frames[out.source], Path("unused") / out.name, **F.figure_kwargs(out.layout))
    assert set(wide_frames["pvalues"]["test"]) == set(F.DISCPOWER_TESTS)             # every test
    assert set(seen) == {o.name for o in O.figures("collection")}
    tall = {n: round(p["height"], 2) for n, p in seen.items() if p["height"] > FL.MAX_HEIGHT + 1e-6}
    assert tall == {}, f"taller than {FL.MAX_HEIGHT} in at {width} width: {tall}"
    feet = {}
    for name, page in seen.items():
        for shown, of, what, table, size in page["feet"]:
            feet[name] = (shown, of, what, table)
            assert size >= FL.MIN_PT
    # the figures of a panel per metric or test show their first ones at a column's width, and say so
    for name, (noun, source, total) in {"tstar": ("metrics", "tstar", 25), "pvalues": ("tests", "pvalues", 9)}.items():
        if width == "column":
            assert name in feet, (name, seen[name]["texts"])
        if name in feet:
            shown, of, what, table = feet[name]
            assert (of, what, table) == (total, noun, source) and 0 < shown < of
            assert seen[name]["titled"] == shown
