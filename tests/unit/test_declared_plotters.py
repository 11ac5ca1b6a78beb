"""One contract for how an output is drawn or built (issue 46: "the central dicts ... are gone"):
every stage -- the package's and a plug-in -- names its figures' plotters and its summary tables'
builders on their declarations (``Output(..., draw=..., build=...)``); the report layer keeps no
table of them (``report.figures`` and ``report.summary`` hold no dict from output names to
functions) and finds them through the registry."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from metaeval import stages as registry
from metaeval.meta import stages
from metaeval.stages import Output, StageInfo

ROOT = Path(__file__).resolve().parents[2]


def _central_tables(module) -> list[str]:
    """The module-level dicts of ``module`` keyed by output names whose values are (or hold) functions."""
    names = {o.name for s in stages.REGISTRY for o in s.outputs} | {o.layout for s in stages.REGISTRY
                                                                     for o in s.outputs}
    found = []
    for attr, value in vars(module).items():
        if isinstance(value, dict) and value and set(value) <= names and any(
                callable(v) or (isinstance(v, tuple) and any(callable(x) for x in v)) for v in value.values()):
            found.append(attr)
    return found


def test_the_report_layer_keeps_no_table_of_plotters_or_builders():
    from metaeval.report import figures, summary

    for module in (figures, summary):
        for gone in ("PLOTTERS", "TABLE_BUILDERS", "FIGURE_PLOTTERS"):
            assert not hasattr(module, gone), (module.__name__, gone)
            assert gone not in getattr(module, "__all__", ()), (module.__name__, gone)
        assert _central_tables(module) == [], module.__name__
    fields = {f.name for f in dataclasses.fields(StageInfo)}
    assert not fields & {"plotters", "summary_builders", "summary_plotters"}   # one way: the Output


def test_every_figure_and_summary_table_declares_how_it_is_drawn_or_built():
    from metaeval.report.figures import plotter
    from metaeval.report.summary import summary_builder, summary_plotter
    from metaeval.stages import resolve

    figures = tables = 0
    for s in stages.REGISTRY:
        for o in s.outputs:
            if o.kind == "figure":
                assert o.draw is not None, o.key
                draw = resolve(o.draw)
                assert callable(draw), o.key
                if o.scope == "summary":
                    assert summary_plotter(o.name) is draw, o.key
                else:
                    assert plotter(o.layout) == (draw, dict(o.draw_kwargs)), o.key
                figures += 1
            elif o.kind == "table" and o.scope == "summary":
                assert o.build is not None, o.key
                assert summary_builder(o.name) is resolve(o.build) and callable(resolve(o.build)), o.key
                tables += 1
            if isinstance(o.draw or o.build, str):        # the package's: a function of the report layer
                assert str(o.draw or o.build).startswith("metaeval.report."), o.key
    assert figures >= 30 and tables >= 11
    from metaeval.report.figures import plot_asl_curves

    assert plotter("asl_paired") == (plot_asl_curves, {"test": "paired"})
    assert plotter("asl_unpaired") == (plot_asl_curves, {"test": "unpaired"})


def test_an_output_names_its_plotter_or_builder_well():
    from metaeval.stages import resolve

    with pytest.raises(ValueError, match="only a figure has a plotter"):
        Output("t", "table", "collection", "c", "r", draw="metaeval.report.figures:plot_tstar")
    with pytest.raises(ValueError, match="only a table has a builder"):
        Output("f", "figure", "collection", "c", "r", build="metaeval.report.summary:build_kendall")
    with pytest.raises(ValueError, match="no reference"):
        Output("f", "figure", "collection", "c", "r", draw="metaeval.report.figures.plot_tstar")
    assert resolve("metaeval.report.summary:build_kendall").__name__ == "build_kendall"
    assert resolve(len) is len
    assert registry.resolve is resolve


def test_a_plugin_figure_without_a_plotter_is_refused(tmp_path):
    (tmp_path / "_no_plotter.py").write_text(
        "from metaeval.stages import Output, StageInfo\n"
        "STAGE = StageInfo('no_plotter', 'matrices', lambda inputs, params: {}, tables=('np',),\n"
        "    outputs=(Output('np', 'table', 'collection', 'c', 'r', columns=('metric',)),\n"
        "             Output('np', 'figure', 'collection', 'c', 'r', stages=('figures',), source='np')))\n",
        encoding="utf-8")
    env = dict(os.environ, METAEVAL_STAGES="_no_plotter",
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(tmp_path)]))
    r = subprocess.run([sys.executable, "-c", "import metaeval.outputs"], capture_output=True, text=True,
                       env=env, timeout=120, check=False)
    assert r.returncode != 0
    assert "stage no_plotter: figure np: no plotter (Output(..., draw=...))" in r.stderr
