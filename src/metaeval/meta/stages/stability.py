"""Stage ``stability``: the stability method, per metric (Buckley & Voorhees 2000; Sakai 2007b
Sec. 7.1)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import Output, StageInfo, parameter
from .cite import SAKAI_B, STABILITY_METHOD

#: Sakai (2007b)'s fuzziness values 0.01, 0.02, ..., 0.20 (metaeval.meta.stability.DEFAULT_FUZZINESS)
FUZZINESS = tuple(i / 100 for i in range(1, 21))


def stage_stability(matrices: dict, metric: str, cfg, samples=None) -> dict:
    """``stability``: one row per fuzziness value for one metric."""
    import pandas as pd

    from ..metric_forms import resolve_metric, samples_for
    from ..stability import stability_method

    df, _, stat = resolve_metric(matrices, metric, "stability")
    smp = samples if samples is not None else samples_for(df, cfg)
    r = stability_method(df, smp, fuzziness=cfg.fuzziness, statistic=stat, batch=cfg.batch, metric=metric)
    return {"stability": pd.DataFrame({"metric": metric, "f": r.fuzziness, "minority_rate": r.minority_rate,
                                       "proportion_ties": r.proportion_ties})}


def run(inputs, params):
    return stage_stability(inputs.matrices, inputs.metric, params, *inputs.samples)


@dataclass(frozen=True)
class StabilityParams:
    """The stage's parameters (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    fuzziness: tuple[float, ...] = parameter(FUZZINESS,
        "fuzziness values of the stability method (default 0.01 ... 0.20)", nargs="+", metavar="F",
        config=("stability", "fuzziness"),
        schema={"type": "array", "items": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                  "minItems": 1},
        doc="Fuzziness values f for the MR-PT curves (Sakai (2007b) - 0.01, 0.02, ..., 0.20).")


STAGE = StageInfo(
    "stability", "matrices", run, tables=("stability",), metrics="other", per_metric=True,
    streams=("paired",), cost=1.0, title="stability method",
    params=StabilityParams,
    reads=("B", "seed", "fuzziness", "metrics", "geometric"),
    sections=((("stability",), "Stability method (Sakai 2007b, Sec. 7.1)."),),
    outputs=(
        Output("stability", "table", "collection",
               f"Stability method ({STABILITY_METHOD}, {{bootstrap}}): minority rate (MR) and proportion of "
               "ties (PT) per fuzziness f",
               f"the data of {SAKAI_B} Figs 17-18", columns=("metric", "f", "minority_rate", "proportion_ties"), paper_order=7),
        Output("mr_pt", "figure", "collection",
               "MR-PT curves of the stability method, one curve per metric as the fuzziness f varies",
               f"{SAKAI_B} Figs 17-18", stages=("figures",), source="stability",
               draw="metaeval.report.figures:plot_mr_pt"),
    ))
