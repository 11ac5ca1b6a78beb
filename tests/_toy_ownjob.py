"""A toy stage with a job of its own (kind ``other``), declared in one module outside the package
(tests/unit/test_stage_types.py; docs/architecture.md, the recipe "own job"): each run's quantile
of its per-topic scores, per metric, from a collection's matrices, in its own folder
``results/C/toy_ownjob/`` (a table and a figure), over the topics a file of its config block
names (a file parameter: ``Path``).  It runs through ``metaeval stage toy_ownjob`` (its options
``--toy-quantile``, ``--toy-topics``, generated from its parameter class), ``metaeval.run_stage``,
the generic rule of ``workflow/rules/own_job.smk`` (the topics file one of its inputs) and the
report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from metaeval.stages import JobPlan, Output, PlanView, Scope, StageInfo, parameter


@dataclass(frozen=True)
class ToyOwnParams:
    toy_quantile: float = parameter(0.5, "toy own job: the quantile of each run's topic scores (default 0.5)",
                                    metavar="Q", config=("toy_ownjob", "quantile"),
                                    schema={"type": "number", "minimum": 0, "maximum": 1},
                                    doc="The toy own job's quantile.")
    toy_topics: Path | None = parameter(None, "toy own job: the topics kept, a file of one topic id per line "
                                        "(default every topic)", config=("toy_ownjob", "topics"),
                                        schema={"type": ["string", "null"]}, doc="The toy own job's topics file.")


def run(inputs, params: ToyOwnParams):
    import numpy as np
    import pandas as pd

    keep = None if params.toy_topics is None else Path(params.toy_topics).read_text().split()
    rows = [pd.DataFrame({"metric": m, "run": [str(r) for r in df.columns],
                          "quantile": np.quantile(df.to_numpy(dtype=float), params.toy_quantile, axis=0)})
            for m, df in ((m, df if keep is None else df.loc[[str(t) in keep for t in df.index]])
                          for m, df in inputs.matrices.items())]
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
    "toy_ownjob", "other", run, params=ToyOwnParams, reads=("toy_quantile", "toy_topics"), plan=plan,
    title="toy own job", scopes=(Scope("toy_ownjob"),),
    sections=((("toy_ownjob",), "A toy own job (tests/_toy_ownjob.py)."),),
    outputs=(Output("toy_quantiles", "table", "toy_ownjob", "Each run's quantile of its topic scores",
                    "nothing (a test)", columns=("metric", "run", "quantile")),
             Output("toy_quantiles", "figure", "toy_ownjob", "Each run's quantile", "nothing (a test)",
                    source="toy_quantiles", draw=plot_quantiles)))
