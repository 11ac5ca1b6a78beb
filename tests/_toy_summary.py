"""A toy stage with a table across collections, declared in one module outside the package
(tests/unit/test_stage_types.py; docs/architecture.md, "Add a stage", across collections): its
per-collection table ``toy_best`` (each metric's best run mean) and the summary table
``toy_summary`` built from every collection's ``toy_best`` (one column per collection)."""

from __future__ import annotations

from metaeval.stages import Output, StageInfo


def run(inputs, params):
    import pandas as pd

    df = inputs.matrices[inputs.metric]
    return {"toy_best": pd.DataFrame({"metric": [inputs.metric], "best": [float(df.mean(axis=0).max())]})}


def build_summary(read):
    """``read("toy_best")``: {collection: DataFrame or None} -> one row per metric, one column per
    collection."""
    import pandas as pd

    frames = {c: d.set_index("metric")["best"] for c, d in read("toy_best").items() if d is not None}
    out = pd.DataFrame(frames)
    out.index.name = "metric"
    return out.reset_index()


STAGE = StageInfo(
    "toy_summary", "matrices", run, tables=("toy_best",), metrics="plain", per_metric=True, cost=0.1,
    title="toy stage across collections",
    outputs=(Output("toy_best", "table", "collection", "Each metric's best run mean", "nothing (a test)",
                    columns=("metric", "best")),
             Output("toy_summary", "table", "summary", "Each metric's best run mean per collection",
                    "nothing (a test)", columns=("metric", "..."), stages=("summary",), source="toy_best",
                    build=build_summary)))
