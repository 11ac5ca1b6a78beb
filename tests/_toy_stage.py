"""A toy stage declared in one module, outside the package (tests/unit/test_add_stage.py): one
parameter, one table.  Registered with ``METAEVAL_STAGES=_toy_stage`` (this folder on the path)
or ``metaeval.stages.register_stage_module("_toy_stage")``."""

from metaeval.stages import Param, StageInfo


def run(inputs, params):
    import pandas as pd

    df = inputs.matrices[inputs.metric]
    return {"toy": pd.DataFrame({"metric": inputs.metric, "run": [str(r) for r in df.columns],
                                 "scaled_mean": df.mean(axis=0).to_numpy() * params.toy_scale})}


STAGE = StageInfo(
    "toy", "matrices", run, tables=("toy",), metrics="plain", per_metric=True, cost=0.1,
    title="toy stage",
    params=(Param("toy_scale", float, 2.0, "toy: multiply each run's mean by S (default 2.0)", metavar="S",
                  config=("toy", "scale"), schema={"type": "number", "exclusiveMinimum": 0},
                  doc="The toy stage's factor."),),
    reads=("toy_scale", "metrics"),
    sections=((("toy",), "A toy stage (tests/_toy_stage.py)."),),
    outputs=(dict(name="toy", kind="table", scope="collection", caption="Each run's mean, scaled",
                  regenerates="nothing (a test)", columns=("metric", "run", "scaled_mean")),))
