"""A toy stage declared in one module, outside the package (tests/unit/test_add_stage.py): one
typed parameter, one table with its layout and one figure drawn from it.  Registered with
``METAEVAL_STAGES=_toy_stage`` (this folder on the path) or
``metaeval.stages.register_stage_module("_toy_stage")``."""

from __future__ import annotations

from dataclasses import dataclass

from metaeval.stages import Output, StageInfo, parameter


def run(inputs, params):
    import pandas as pd

    df = inputs.matrices[inputs.metric]
    return {"toy": pd.DataFrame({"metric": inputs.metric, "run": [str(r) for r in df.columns],
                                 "scaled_mean": df.mean(axis=0).to_numpy() * params.plugin(ToyParams).toy_scale})}


def plot_toy(table, path_stem, **_):
    """Each run's scaled mean, one bar per run and metric (PNG and PDF)."""
    from pathlib import Path

    from metaeval.report.figure_layout import new_figure, save_figure

    fig = new_figure()
    ax = fig.add_subplot()
    ax.bar(range(len(table)), table["scaled_mean"])
    return save_figure(fig, Path(path_stem))


def layout_toy(table):
    """The Markdown/LaTeX of the toy table: run and scaled mean, 3 decimals."""
    from metaeval.report.render import Layout

    return Layout(["run", "scaled mean"], [[r, f"{v:.3f}"] for r, v in zip(table["run"], table["scaled_mean"])],
                  "lr")


@dataclass(frozen=True)
class ToyParams:
    toy_scale: float = parameter(2.0, "toy: multiply each run's mean by S (default 2.0)", metavar="S",
                                 config=("toy", "scale"), schema={"type": "number", "exclusiveMinimum": 0},
                                 doc="The toy stage's factor.")


STAGE = StageInfo(
    "toy", "matrices", run, tables=("toy",), metrics="plain", per_metric=True, cost=0.1,
    title="toy stage", params=ToyParams,
    reads=("toy_scale", "metrics"),
    sections=((("toy",), "A toy stage (tests/_toy_stage.py)."),),
    outputs=(Output("toy", "table", "collection", "Each run's mean, scaled", "nothing (a test)",
                    columns=("metric", "run", "scaled_mean")),
             Output("toy", "figure", "collection", "Each run's scaled mean", "nothing (a test)",
                    stages=("figures",), source="toy", draw=plot_toy)),
    layouts=(("toy", layout_toy),))
