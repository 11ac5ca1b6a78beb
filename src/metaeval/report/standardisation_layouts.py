"""The table layouts of the standardisation stage (Urbano, Lima & Hanjalic 2019):
``standardisation_within`` / ``standardisation_between``, registered in the layout registry
(:func:`metaeval.report.layouts.register_layout`; a module of their own, so that the layouts import
no writer: report.layout_catalogue -> here, report.standardisation -> report.tables ->
report.layout_catalogue)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .formatting import fmt4, is_missing
from .layouts import register_layout
from .render import Layout

__all__ = ["LAYOUTS"]


def _num(v) -> str:
    return "" if is_missing(v) else fmt4(v)


def _layout_within(df: pd.DataFrame) -> Layout:
    """One row per metric and standardisation: n, trials, tau (s.d.), tau_AP-b, r, power."""
    header = ["Metric", "Std", "Topics", "Trials", "tau_b", "s.d.", "tau_AP-b", "r", "Power (0.05)", "Power (0.01)"]
    rows = [[str(r[0]), str(r[1]), str(int(r[2])), str(int(r[3])), *(_num(v) for v in r[4:10])]
            for r in df.itertuples(index=False)]
    return Layout(header, rows, "ll" + "r" * 8)


def _layout_between(df: pd.DataFrame) -> Layout:
    """One row per metric and standardisation at alpha = 0.05 and 0.01 (the CSV has every alpha of
    the grid): type I error, power, tau_b, tau_AP-b, r."""
    header = ["Metric", "Std", "alpha", "Type I", "Power", "tau_b", "tau_AP-b", "r"]
    keep = df[np.isclose(df["alpha"].astype(float), 0.05) | np.isclose(df["alpha"].astype(float), 0.01)] \
        if len(df) else df
    rows = [[str(r.metric), str(r.std), format(float(r.alpha), "g"), _num(r.type1), _num(r.power), _num(r.tau),
             _num(r.tau_ap), _num(r.r)] for r in keep.itertuples(index=False)]
    return Layout(header, rows, "llr" + "r" * 5)


#: layout key -> layout function (each registered with metaeval.report.layouts.register_layout)
LAYOUTS = {"standardisation_within": _layout_within, "standardisation_between": _layout_between}
for _name, _layout in LAYOUTS.items():
    register_layout(_name, _layout)
