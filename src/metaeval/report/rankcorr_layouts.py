"""The layout of the rank-correlation table beyond Kendall's tau (:mod:`metaeval.meta.rankcorr`:
tau-a/b, tau_AP, RBO), registered in the layout registry as ``rank_correlation``
(:func:`metaeval.report.layouts.register_layout`)."""

from __future__ import annotations

import pandas as pd

from .formatting import format_tau, is_missing
from .layouts import letter, register_layout, require_columns, unique
from .render import Cell, Layout

__all__ = ["RANKCORR_LABELS", "layout_rank_correlation"]

#: coefficient column -> (Markdown label, LaTeX label), in the CSV's column order
RANKCORR_LABELS = {
    "tau_a": ("tau-a", r"$\tau_a$"), "tau_b": ("tau-b", r"$\tau_b$"),
    "tau_ap": ("tau_AP", r"$\tau_{AP}$"), "tau_ap_a": ("tau_AP-a", r"$\tau_{AP,a}$"),
    "tau_ap_b": ("tau_AP-b", r"$\tau_{AP,b}$"), "rbo": ("RBO", "RBO"),
    "rbo_a": ("RBO^a", r"RBO$^a$"), "rbo_b": ("RBO^b", r"RBO$^b$"),
}


@register_layout("rank_correlation")
def layout_rank_correlation(df: pd.DataFrame) -> Layout:
    """One full (non-triangular) metric x metric matrix per coefficient, stacked: row = the
    reference ranking a ``(a) AP``, column = the estimate b ``(b)``..; values as Kendall's tau
    (4 decimals, no leading zero), tau coefficients above 0.8 in bold, ``-`` for an undefined
    value (an empty CSV cell) and on the diagonal."""
    coefs = [c for c in RANKCORR_LABELS if c in df.columns]
    require_columns(df, "rank_correlation", ["metric_a", "metric_b"])
    if not coefs:
        raise ValueError("table 'rank_correlation': no coefficient column; got "
                         f"{list(df.columns)}")
    metrics = unique(m for pair in zip(df["metric_a"], df["metric_b"]) for m in pair)
    labels = [f"({letter(i)})" for i in range(len(metrics))]
    header = [Cell("coefficient"), Cell("metric (reference a)")] + [Cell(lab) for lab in labels]
    pairs = list(zip(df["metric_a"], df["metric_b"]))
    rows = []
    for c in coefs:
        val = dict(zip(pairs, df[c]))
        md, tex = RANKCORR_LABELS[c]
        bold = c.startswith("tau")
        for i, a in enumerate(metrics):
            row = [Cell(md, tex=tex) if i == 0 else Cell(""), Cell(f"{labels[i]} {a}")]
            for j, b in enumerate(metrics):
                v = None if i == j else val.get((a, b))
                row.append(Cell(format_tau(v), bold=bold and v is not None and not is_missing(v) and float(v) > 0.8))
            rows.append(row)
    return Layout(header, rows, "ll" + "r" * len(metrics))
