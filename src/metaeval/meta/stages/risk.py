"""Stage ``risk``: risk-sensitive measures against a baseline run of the collection
(:mod:`metaeval.meta.risk`, ``tables/risk.csv``): URisk (Wang, Bennett & Collins-Thompson 2012),
TRisk (Dinçer, Macdonald & Ounis 2014), ZRisk and GeoRisk (Dinçer, Macdonald & Ounis 2016) of every
run, for every sensitivity alpha, on the plain metrics.  No baseline, no table: ``metaeval meta``
skips the stage (``applies``); in the pipeline the table is written for every collection once any
collection names a baseline (header only for a collection without one)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import Output, StageInfo, parameter


def _check_alpha(v):
    if not v or any(not float(a) >= 0 for a in v):
        raise ValueError(f"risk_alpha: give sensitivities >= 0, got {', '.join(map(str, v))}")


def applies(matrices, params) -> bool:
    """True when a baseline run is configured (``params``: a MetaConfig, or the collection's
    configured values in the pipeline's plan)."""
    return bool(params.risk_baseline)


def run(inputs, params):
    import pandas as pd

    from ..risk import RISK_COLUMNS, risk_table

    if not params.risk_baseline:
        return {"risk": pd.DataFrame(columns=RISK_COLUMNS)}
    try:
        return {"risk": risk_table(inputs.matrices, list(params.risk_baseline), list(params.risk_alpha),
                                   list(inputs.metrics))}
    except ValueError as e:
        raise ValueError(f"risk: {e}") from None


_R = ("collections", "*", "risk")


@dataclass(frozen=True)
class RiskParams:
    """The stage's parameters (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    # per collection: the schema entry `collections.*.risk` is written by hand
    risk_baseline: tuple[str, ...] = parameter((),
        "baseline run(s) of the risk table (tables/risk.csv: URisk, TRisk, ZRisk, "
        "GeoRisk); none: no risk table", nargs="+", metavar="RUN", config=_R + ("baseline",))
    risk_alpha: tuple[float, ...] = parameter((1.0, 5.0),
        "risk sensitivities alpha >= 0 of the risk table (a loss weighs "
        "1 + alpha; default 1 5)", nargs="+", metavar="A", config=_R + ("alpha",), check=_check_alpha)


STAGE = StageInfo(
    "risk", "matrices", run, tables=("risk",), metrics="plain", condition="risk", cost=0.05,
    title="risk-sensitive measures", applies=applies,
    params=RiskParams,
    reads=("metrics", "risk_baseline", "risk_alpha"),
    outputs=(
        Output("risk", "table", "collection",
               "Risk-sensitive measures of every run against the configured baseline run(s), per metric "
               "and risk sensitivity alpha (a loss weighs 1 + alpha): URisk (Wang et al. 2012), TRisk and its "
               "two-sided p-value (Dinçer, Macdonald & Ounis 2014; TRisk < -2: significantly riskier than "
               "the baseline), ZRisk and GeoRisk against all runs in use (Dinçer, Macdonald & Ounis 2016), "
               "and the topics the run wins and loses against the baseline; the Markdown and LaTeX show URisk "
               "and TRisk per alpha (p, ZRisk and GeoRisk: the CSV)",
               "the risk-sensitive evaluation of Wang et al. (2012) and Dinçer, Macdonald & Ounis (2014, "
               "2016), as TREC's Web track 2013-2014 reported it",
               columns=("metric", "run", "baseline", "alpha", "urisk", "trisk", "p", "zrisk", "georisk", "wins",
                        "losses"), condition="risk"),
    ),
    when="a risk baseline configured")
