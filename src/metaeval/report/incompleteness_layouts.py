"""The layout of the table of robustness to incomplete judgments (:mod:`metaeval.meta.incompleteness`),
registered in the layout registry as ``incompleteness`` (:func:`metaeval.report.layouts.register_layout`;
the pool-reuse table, laid out wide, is in :mod:`.wide_layouts`)."""

from __future__ import annotations

import pandas as pd

from .formatting import fmt4, is_missing, round_half_up
from .layouts import register_layout, require_columns
from .render import Layout

__all__ = ["layout_incompleteness"]


@register_layout("incompleteness")
def layout_incompleteness(df: pd.DataFrame) -> Layout:
    """One row per metric, method and level: tau and its s.d., tau_AP, RMSE (4 decimals), the
    mean number of significant pairs (1 decimal) of the pairs."""
    require_columns(df, "incompleteness", ["metric", "method", "level", "trials", "tau", "tau_sd", "tau_ap",
                                           "rmse", "significant_pairs", "pairs"])
    header = ["Metric", "Method", "Level", "Trials", "tau", "s.d.", "tau_AP", "RMSE", "Significant", "Pairs"]
    rows = [[str(r.metric), str(r.method), format(float(r.level), "g"), str(int(r.trials)), fmt4(r.tau),
             "" if is_missing(r.tau_sd) else fmt4(r.tau_sd), "" if is_missing(r.tau_ap) else fmt4(r.tau_ap),
             fmt4(r.rmse), round_half_up(float(r.significant_pairs), 1), str(int(r.pairs))]
            for r in df.itertuples(index=False)]
    return Layout(header, rows, "lllr" + "r" * 6)
