"""A toy stage on the labelled collection, declared in one module outside the package
(tests/unit/test_stage_types.py; docs/architecture.md, "Add a stage", on the labelled collection):
each run's number of relevant documents retrieved, from the labelled collection (kind
``labelled``: its own job per collection, its part read by the meta job)."""

from __future__ import annotations

from metaeval.stages import Output, StageInfo


def run(inputs, params):
    import numpy as np
    import pandas as pd

    c = inputs.collection
    runs = list(inputs.matrices[next(iter(inputs.matrices))].columns)
    found = (np.asarray(c.levels) > 0).sum(axis=(1, 2))
    by_run = dict(zip([str(r) for r in c.runs], found.tolist()))
    return {"toy_relevant": pd.DataFrame({"run": [str(r) for r in runs],
                                          "relevant": [int(by_run[str(r)]) for r in runs]})}


STAGE = StageInfo(
    "toy_labelled", "labelled", run, tables=("toy_relevant",), metrics="plain", cost=0.1,
    title="toy stage on the labelled collection",
    outputs=(Output("toy_relevant", "table", "collection", "Each run's relevant documents retrieved",
                    "nothing (a test)", columns=("run", "relevant")),))
