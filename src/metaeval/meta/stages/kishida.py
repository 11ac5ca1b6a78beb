"""Stage ``kishida``: the Kishida (2005) reproduction (``metaeval reproduce kishida``, its own job):
Tables 1-5 and the output patterns behind them."""

from __future__ import annotations

from ...stages import JobPlan, Output, PlanView, Scope, StageInfo

_KISHIDA = "Kishida (2005)"

def plan(p: PlanView) -> JobPlan:
    """The reproduction in the plan of a config: on when ``kishida: {enabled: true}``."""
    return JobPlan(on=bool(p.config["kishida"]["enabled"]))


def targets(p: PlanView) -> list[str]:
    """Its files, ``results/kishida/...``, when it is on."""
    return [f"{p.results}/kishida/{f}" for f in p.output_files("kishida")] if p.is_on("kishida") else []


STAGE = StageInfo(
    "kishida", "other", plan=plan, targets=targets,
    scopes=(Scope("kishida", folders=(("table", ""),), caption_key="{scope}_{name}"),),
    outputs=(
        Output("table1", "table", "kishida",
               "Change of the average precision score after finding a new relevant document "
               "(unknown relevant documents)", f"Table 1 of {_KISHIDA}", columns=("R", "v", "delta"),
               formats=("csv", "md")),
        Output("table2", "table", "kishida",
               "Results of the simulation of judgment variation (variance of average precision)",
               f"Table 2 of {_KISHIDA}", columns=("theta", "statistic", "value"), formats=("csv", "md")),
        Output("table3", "table", "kishida",
               "Statistics of the graded-relevance indicators over the 136 output patterns",
               f"Table 3 of {_KISHIDA}", columns=("indicator", "mean", "std"), formats=("csv", "md")),
        Output("table4", "table", "kishida", "Correlation matrix of the indicators over the 136 output patterns",
               f"Table 4 of {_KISHIDA}", columns=("indicator", "vS'", "vD", "vQ", "vG", "AP"),
               formats=("csv", "md")),
        Output("table5", "table", "kishida", "Scores of the indicators for some characteristic output patterns",
               f"Table 5 of {_KISHIDA}", columns=("row", "pattern", "vS'", "vD", "vQ", "vG"),
               formats=("csv", "md")),
        Output("patterns", "table", "kishida",
               "The output patterns of Sec. 4.3 and every indicator's value on each",
               f"the data behind Tables 3-5 of {_KISHIDA}", columns=("pattern", "vS'", "vD", "vQ", "vG", "AP"),
               formats=("csv",)),
    ))
