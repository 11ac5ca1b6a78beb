"""Stage ``run_means``: the mean performance of every run (the data of Sakai 2007a Fig. 8 / Sakai
2007b Fig. 1), computed by the tables job from the matrices."""

from __future__ import annotations

from ...stages import Output, StageInfo
from .cite import SAKAI_A, SAKAI_B

STAGE = StageInfo(
    "run_means", "tables",
    outputs=(
        Output("run_means", "table", "collection",
               "Mean performance of {runs} over {topics}, best first by mean {measure}",
               f"the data of {SAKAI_A} Fig. 8 / {SAKAI_B} Fig. 1", columns=("metric", "run", "mean"), paper_order=12),
        Output("run_means", "figure", "collection",
               "Mean score of {runs} under every metric, runs named and sorted by mean {measure}",
               f"{SAKAI_A} Fig. 8 / {SAKAI_B} Fig. 1", stages=("figures",), source="run_means",
               plot_params=(("metric", "measure"),), draw="metaeval.report.figures:plot_run_means"),
        Output("run_means", "figure", "summary",
               "Distribution of the mean {measure} over the runs of every collection",
               f"{SAKAI_A} Fig. 8 / {SAKAI_B} Fig. 1", stages=("summary",), source="run_means",
               draw="metaeval.report.summary:draw_run_means"),
    ))
