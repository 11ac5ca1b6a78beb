"""A toy stage with a job of its own (kind ``other``), declared in one module outside the package
(tests/unit/test_stage_types.py; docs/architecture.md, the recipe "own job"): each run's quantile
of its per-topic scores, per metric, from a collection's matrices, in its own folder
``results/C/toy_ownjob/`` (a table and a figure).  It runs through ``metaeval stage toy_ownjob``
(its option ``--toy-quantile``, generated from its parameter class), ``metaeval.run_stage``,
the generic rule of ``workflow/rules/own_job.smk`` and the report."""

from __future__ import annotations

from dataclasses import dataclass

from metaeval.stages import JobPlan, Output, PlanView, Scope, StageInfo, parameter


@dataclass(frozen=True)
class ToyOwnParams:
    toy_quantile: float = parameter(0.5, "toy own job: the quantile of each run's topic scores (default 0.5)",
                                    metavar="Q", config=("toy_ownjob", "quantile"),
                                    schema={"type": "number", "minimum": 0, "maximum": 1},
                                    doc="The toy own job's quantile.")


def run(inputs, params: ToyOwnParams):
    import numpy as np
    import pandas as pd

    rows = [pd.DataFrame({"metric": m, "run": [str(r) for r in df.columns],
                          "quantile": np.quantile(df.to_numpy(dtype=float), params.toy_quantile, axis=0)})
            for m, df in inputs.matrices.items()]
    return {"toy_quantiles": pd.concat(rows, ignore_index=True)}


def plot_quantiles(table, path_stem, **_):
    """Each run's quantile, one bar per run and metric (PNG and PDF)."""
    from pathlib import Path

    from metaeval.report.figure_layout import new_figure, save_figure

    fig = new_figure()
    ax = fig.add_subplot()
    ax.bar(range(len(table)), table["quantile"])
    return save_figure(fig, Path(path_stem))


def plan(view: PlanView) -> JobPlan:
    """Its job reads the config's metrics' matrices (the inputs of its rule)."""
    return JobPlan(reads=tuple(view.metrics))


STAGE = StageInfo(
    "toy_ownjob", "other", run, params=ToyOwnParams, reads=("toy_quantile",), plan=plan,
    title="toy own job", scopes=(Scope("toy_ownjob"),),
    sections=((("toy_ownjob",), "A toy own job (tests/_toy_ownjob.py)."),),
    outputs=(Output("toy_quantiles", "table", "toy_ownjob", "Each run's quantile of its topic scores",
                    "nothing (a test)", columns=("metric", "run", "quantile")),
             Output("toy_quantiles", "figure", "toy_ownjob", "Each run's quantile", "nothing (a test)",
                    source="toy_quantiles", draw=plot_quantiles)))
