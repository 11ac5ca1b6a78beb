"""Wide Markdown/LaTeX layouts of the tables whose long form repeats a key: the test-error rates
(tests as columns; one significance level for power and type III) and the risk-sensitive measures
(the risk weights alpha as columns), and the pool-reuse table (one column per metric).  The CSVs
keep the long form, every row; registered in the layout registry
(:func:`metaeval.report.layouts.register_layout`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .formatting import fmt4, is_missing
from .layouts import register_layout
from .render import Layout

__all__ = ["LAYOUTS", "shown_alpha"]

#: the significance level the power and type III tables show (the CSV has every level)
SHOWN_ALPHA = 0.05


def _unique(values) -> list:
    return list(dict.fromkeys(values))


def _num(v, digits: int = 4) -> str:
    return "" if is_missing(v) else (fmt4(v) if digits == 4 else f"{float(v):.{digits}f}")


def _g(v) -> str:
    return format(float(v), "g")


def shown_alpha(df: pd.DataFrame) -> float | None:
    """The level the power / type III tables show: 0.05 when computed, else the first level."""
    if not len(df):
        return None
    alphas = _unique(df["alpha"].astype(float))
    return next((a for a in alphas if np.isclose(a, SHOWN_ALPHA)), alphas[0])


def _by_test(df: pd.DataFrame, keys: list[str], labels: list[str]) -> Layout:
    tests = _unique(df["test"].astype(str))
    rate = {(*k, t): r for *k, t, r in zip(*(df[c] for c in keys), df["test"].astype(str), df["rate"])}
    rows = [[_g(v) if isinstance(v, float) else str(v) for v in k] + [_num(rate.get((*k, t))) for t in tests]
            for k in _unique(zip(*(df[c] for c in keys)))]
    return Layout(labels + tests, rows, "l" + "r" * (len(labels) - 1 + len(tests)))


def _layout_type1(df: pd.DataFrame) -> Layout:
    """Rows metric, topics, alpha; one column per test: the simulated type I error rate."""
    return _by_test(df, ["metric", "n_topics", "alpha"], ["Metric", "Topics", "alpha"])


def _layout_at_alpha(df: pd.DataFrame) -> Layout:
    """Rows metric, topics, delta at one alpha (:func:`shown_alpha`); one column per test."""
    a = shown_alpha(df)
    keep = df[np.isclose(df["alpha"].astype(float), a)] if a is not None else df
    lay = _by_test(keep.assign(alpha=keep["alpha"].astype(float)), ["metric", "n_topics", "delta", "alpha"],
                   ["Metric", "Topics", "delta", "alpha"])
    return lay


def _layout_risk(df: pd.DataFrame) -> Layout:
    """Rows metric, baseline, run; URisk and TRisk for every risk weight alpha (columns), then the
    topics won and lost against the baseline (p, ZRisk and GeoRisk: the CSV)."""
    alphas = _unique(df["alpha"].astype(float))
    keys = _unique(zip(df["metric"].astype(str), df["baseline"].astype(str), df["run"].astype(str)))
    val = {(m, b, r, float(a)): (u, t, w, lo) for m, b, r, a, u, t, w, lo in
           zip(df["metric"].astype(str), df["baseline"].astype(str), df["run"].astype(str), df["alpha"],
               df["urisk"], df["trisk"], df["wins"], df["losses"])}
    header = ["Metric", "Baseline", "Run"]
    for a in alphas:
        header += [f"URisk (alpha={_g(a)})", f"TRisk (alpha={_g(a)})"]
    header += ["Wins", "Losses"]
    rows = []
    for k in keys:
        row = list(k)
        first = None
        for a in alphas:
            u, t, w, lo = val.get((*k, a), (None, None, None, None))
            first = first or (w, lo)
            row += [_num(u), _num(t, 2)]
        w, lo = first or (None, None)
        row += ["" if w is None or is_missing(w) else str(int(w)), "" if lo is None or is_missing(lo) else str(int(lo))]
        rows.append(row)
    return Layout(header, rows, "lll" + "r" * (len(header) - 3))


def _layout_pool_reuse(df: pd.DataFrame) -> Layout:
    """Rows group and run (then the summary rows), one column per metric: the run's mean on the
    reduced pool minus its mean on the full pool (its ranks: the CSV)."""
    metrics = _unique(df["metric"].astype(str))
    keys = _unique(zip(df["group"].astype(str), df["run"].astype(str)))
    delta = {(m, g, r): d for m, g, r, d in zip(df["metric"].astype(str), df["group"].astype(str),
                                                df["run"].astype(str), df["delta"])}
    rows = [[g, r] + [_num(delta.get((m, g, r))) for m in metrics] for g, r in keys]
    return Layout(["Group", "Run"] + [f"{m} delta" for m in metrics], rows, "ll" + "r" * len(metrics))


#: layout key -> layout function (each registered with metaeval.report.layouts.register_layout)
LAYOUTS = {"test_errors_type1": _layout_type1, "test_errors_power": _layout_at_alpha,
           "test_errors_type3": _layout_at_alpha, "risk": _layout_risk,
           "pool_reuse": _layout_pool_reuse}
for _name, _layout in LAYOUTS.items():
    register_layout(_name, _layout)
