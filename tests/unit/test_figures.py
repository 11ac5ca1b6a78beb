"""metaeval.report.figures: every declared figure writes non-empty PNG and PDF, deterministically, from CSVs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from _synth_tables import frames, write_csvs
from metaeval import outputs as O
from metaeval.report import figures as F

FIGURES = O.figures("collection")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def synth():
    return frames(seed=1)


def _check(paths, stem):
    assert [p.name for p in paths] == [f"{stem.name}.png", f"{stem.name}.pdf"]
    png, pdf = (p.read_bytes() for p in paths)
    assert png.startswith(PNG_MAGIC) and len(png) > 1000
    assert pdf.startswith(b"%PDF") and len(pdf) > 1000
    return png, pdf


def _draw(out, df, stem):
    draw, _ = F.plotter(out.layout)
    return draw(df, stem, **F.figure_kwargs(out.layout))


@pytest.fixture(scope="module")
def from_csvs(synth, tmp_path_factory):
    """``make_all_figures`` of the synthetic tables written as CSVs, drawn once for the module:
    (its paths, the figures folder)."""
    d = tmp_path_factory.mktemp("from-csvs")
    write_csvs(synth, d / "tables")
    return F.make_all_figures(d / "tables", d / "figures"), d / "figures"


@pytest.mark.parametrize("out", FIGURES, ids=lambda o: o.name)
def test_each_figure_writes_png_and_pdf_identically_on_rerun(out, synth, from_csvs, tmp_path):
    """The figure drawn again (its plotter on the frame) has the bytes of the one ``make_all_figures``
    drew from the CSVs (the rerun compared with the first drawing, which is here the drawing of the
    module's ``make_all_figures``: one drawing fewer of every figure than drawing it twice here)."""
    stem = tmp_path / out.name
    first = _check(_draw(out, synth[out.source], stem), stem)
    second = _check([from_csvs[1] / f"{out.name}.png", from_csvs[1] / f"{out.name}.pdf"], from_csvs[1] / out.name)
    assert first == second                                      # byte-identical rerun


@pytest.mark.parametrize("out", FIGURES, ids=lambda o: o.name)
def test_empty_table_still_draws_a_no_data_figure(out, synth, tmp_path):
    empty = synth[out.source].iloc[:0]
    _check(_draw(out, empty, tmp_path / out.name), tmp_path / out.name)


def test_make_all_figures_from_csvs(from_csvs):
    paths, folder = from_csvs
    want = {f"{o.name}.{e}" for o in FIGURES for e in o.formats}
    assert {p.name for p in paths} == want
    assert {p.name for p in folder.iterdir()} == want


def test_make_all_figures_skips_missing_tables(synth, tmp_path):
    write_csvs({"stability": synth["stability"]}, tmp_path / "tables")
    paths = F.make_all_figures(tmp_path / "tables", tmp_path / "figures")
    assert [p.name for p in paths] == ["mr_pt.png", "mr_pt.pdf"]


def test_run_names_that_look_numeric_stay_text(tmp_path):
    df = pd.DataFrame({"metric": "AP", "test": "paired", "system_x": ["001", "001"],
                       "system_y": ["002", "003"], "asl": [0.01, 0.5]})
    write_csvs({"asl": df}, tmp_path / "tables")
    assert len(F.make_all_figures(tmp_path / "tables", tmp_path / "figures")) == 4


def test_failed_save_leaves_no_file(synth, tmp_path, monkeypatch):
    import metaeval.report.figure_layout as FL

    real = FL.atomic_write

    def flaky(path, *a, **k):
        if str(path).endswith(".pdf"):
            raise OSError("disk full")
        return real(path, *a, **k)
    monkeypatch.setattr(FL, "atomic_write", flaky)                # save_figure lives in figure_layout
    with pytest.raises(OSError):
        F.plot_mr_pt(synth["stability"], tmp_path / "mr_pt")
    assert list(tmp_path.iterdir()) == []


def test_figures_do_not_use_pyplot_state(synth, tmp_path):
    import matplotlib
    before = dict(matplotlib.rcParams)
    F.plot_run_means(synth["run_means"], tmp_path / "run_means")
    assert dict(matplotlib.rcParams) == before


def test_tstar_without_a_finite_value_still_draws(synth, tmp_path):
    """A pair whose t is undefined and whose t* are all infinite (a DAG's tiny collection with
    zero-variance differences): the panel is drawn without a bar, as matplotlib's hist drew it."""
    df = synth["tstar"].copy()
    df = df[df["metric"] == df["metric"].iloc[0]].assign(t_star=np.inf, t_observed=np.nan)
    _check(F.plot_tstar(df, tmp_path / "tstar"), tmp_path / "tstar")


def test_palette_png_keeps_few_colours_exactly_and_reduces_many_closely():
    """The PNG palette: a drawing of 256 colours or fewer keeps every pixel; one of more (a
    gradient of 4096 colours) gets at most 256, each pixel within 48 of 255 per channel."""
    import io

    from PIL import Image

    from metaeval.report.figure_layout import palette_png

    def png(a):
        out = io.BytesIO()
        Image.fromarray(a.astype(np.uint8), "RGB").save(out, format="PNG")
        return out.getvalue()

    def back(data):
        with Image.open(io.BytesIO(data)) as im:
            assert im.mode == "P"
            return np.asarray(im.convert("RGB")).astype(int)

    rng = np.random.default_rng(0)
    few = rng.integers(0, 256, (200, 3))[rng.integers(0, 200, (64, 64))]
    assert (back(palette_png(png(few))) == few).all()
    y, x = np.mgrid[0:64, 0:64]
    many = np.stack([x * 4, y * 4, (x + y) * 2], axis=2)
    got = back(palette_png(png(many)))
    assert len(np.unique(got.reshape(-1, 3), axis=0)) <= 256
    assert np.abs(got - many).max() <= 48
    assert palette_png(png(many)) == palette_png(png(many))          # deterministic


def test_save_figure_draws_each_format_once_with_the_same_bytes(tmp_path, monkeypatch):
    """A figure laid out by tight_layout is saved with one drawing per format (matplotlib would draw
    it once more before each print for the placeholder layout engine tight_layout leaves); the
    files are those that saving it with that engine gives."""
    import io

    from matplotlib.figure import Figure

    from metaeval.report.figure_layout import (_PDF_META, _PNG_META, DPI, fit_to_width, new_figure, palette_png,
                                               save_figure)

    def figure():
        fig = new_figure(4, 3)
        ax = fig.add_subplot()
        ax.plot([0, 1, 2], [1, 0, 2], label="a line")
        ax.set_title("a title")
        ax.legend()
        fig.tight_layout()
        return fig

    ref = figure()
    fit_to_width(ref)                                          # what save_figure lays out first: a column wide
    assert ref.get_layout_engine() is not None                 # what tight_layout leaves
    want = []
    for fmt, meta in (("png", _PNG_META), ("pdf", _PDF_META)):
        buf = io.BytesIO()
        ref.savefig(buf, format=fmt, dpi=DPI, metadata=meta)
        want.append(palette_png(buf.getvalue()) if fmt == "png" else buf.getvalue())
    draws = []
    real = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda self, renderer: (draws.append(1), real(self, renderer))[1])
    paths = save_figure(figure(), tmp_path / "f")
    assert len(draws) == 2
    assert [p.read_bytes() for p in paths] == want


def test_figure_width_and_formats_configured(tmp_path):
    """figures: {width, formats}: column (3.17 in) by default, text (6.48 in) or inches; the PDF's
    page that wide, every text at least 7 pt (a 5 pt text raised); formats without pdf write the
    PNG alone; bad values refused naming what is accepted."""
    from metaeval.dag import figure_args
    from metaeval.report.figure_layout import figure_settings, new_figure, save_figure
    from metaeval.report.figure_size import parse_formats, parse_width

    def draw(stem):
        fig = new_figure(9.0, 4.0)
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1])
        ax.set_title("tiny", fontsize=5)
        return fig, save_figure(fig, tmp_path / stem)

    fig, paths = draw("col")
    assert [p.suffix for p in paths] == [".png", ".pdf"]
    assert fig.get_size_inches()[0] == pytest.approx(3.17) and fig.axes[0].title.get_fontsize() == 7.0
    assert b"/MediaBox [ 0 0 228.24 " in (tmp_path / "col.pdf").read_bytes()      # 3.17 in, in points
    with figure_settings("text", ["png"]):
        fig, paths = draw("text")
    assert [p.name for p in paths] == ["text.png"] and fig.get_size_inches()[0] == pytest.approx(6.48)
    with figure_settings(5):
        assert draw("five")[0].get_size_inches()[0] == 5.0
    assert parse_width("column") == 3.17 and parse_formats("pdf,png") == ("png", "pdf")
    for bad in ("wide", "1", "nan"):
        with pytest.raises(ValueError, match="expected column, text or inches"):
            parse_width(bad)
    with pytest.raises(ValueError, match="png is required"):
        parse_formats(["pdf"])
    assert figure_args(None) == "--figure-width 3.17 --figure-formats png,pdf"
    assert figure_args({"width": "text", "formats": ["pdf", "png"]}) == "--figure-width 6.48 --figure-formats png,pdf"


@pytest.mark.parametrize("argv, code, message", [
    (["--figure-width", "text"], 0, ""),
    (["--figure-width", "1.5"], 2, "figure width '1.5': expected column, text or inches between 2 and 20"),
    (["--figure-formats", "pdf"], 2, "png is required"),
])
def test_figure_options_of_a_drawing_command(argv, code, message, capsys):
    from metaeval.cli import build_parser

    parser = build_parser("meta")
    if code:
        with pytest.raises(SystemExit) as e:
            parser.parse_args(["meta", "--matrices", "m", "--out", "o", *argv])
        assert e.value.code == code and message in capsys.readouterr().err
    else:
        args = parser.parse_args(["meta", "--matrices", "m", "--out", "o", *argv])
        assert args.figure_width == 6.48


def test_api_write_takes_the_figure_width(tmp_path):
    """A result of the API written with figure_width= / figure_formats= (Result.write, through the
    writer every metaeval.* function attaches): its figures a text width wide, PNG alone; without
    them a column wide with the PDF beside."""
    import re

    from metaeval.api import _sized
    from metaeval.meta.display import NamedTables
    from metaeval.report.figure_layout import new_figure, save_figure

    def writer(res, folder, figures):
        fig = new_figure(8.0, 3.0)
        fig.add_subplot().plot([0, 1], [1, 0])
        return save_figure(fig, folder / "f")

    res = NamedTables({}, "t")
    res._writer = _sized(writer)
    (tmp_path / "text").mkdir()
    assert [p.name for p in res.write(tmp_path / "text", figure_width="text", figure_formats=["png"])] == ["f.png"]
    from PIL import Image

    with Image.open(tmp_path / "text" / "f.png") as im:
        assert im.size[0] == round(6.48 * 150)
    (tmp_path / "col").mkdir()
    assert [p.name for p in res.write(tmp_path / "col")] == ["f.png", "f.pdf"]
    assert re.search(rb"/MediaBox \[ 0 0 228\.24 ", (tmp_path / "col" / "f.pdf").read_bytes())
