"""The layouts of the cross-collection summary tables (``summary_NAME``: one value per collection,
:mod:`metaeval.report.summary` builds them), registered in the layout registry
(:func:`metaeval.report.layouts.register_layout`)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from .formatting import fmt4, format_percent, format_tau, is_missing, sig_figs
from .layouts import register_layout
from .render import Cell, Layout
from .sakai_layouts import layout_collection

__all__ = ["wide"]


def wide(fmt: Callable, *, bold_over: float | None = None, id_cols: int = 1):
    """Summary tables: first ``id_cols`` columns are labels, the rest one value per collection."""
    def layout(df: pd.DataFrame) -> Layout:
        header = [Cell(str(c)) for c in df.columns]
        rows = []
        for rec in df.itertuples(index=False, name=None):
            row = [Cell(str(v)) for v in rec[:id_cols]]
            for v in rec[id_cols:]:
                row.append(Cell(fmt(v), bold=bold_over is not None and not is_missing(v)
                                and float(v) > bold_over))
            rows.append(row)
        return Layout(header, rows, "l" * id_cols + "r" * (len(header) - id_cols))
    return layout


register_layout("summary_collection", layout_collection)
register_layout("summary_sensitivity_paired", wide(lambda v: format_percent(v, integer=False)))
register_layout("summary_sensitivity_unpaired", wide(lambda v: format_percent(v, integer=False)))
register_layout("summary_estimated_diff_paired", wide(sig_figs))
register_layout("summary_estimated_diff_unpaired", wide(sig_figs))
register_layout("summary_swap_diff_required", wide(fmt4))
register_layout("summary_swap_relative", wide(format_percent))
register_layout("summary_swap_pct_satisfying", wide(format_percent))
register_layout("summary_kendall", wide(format_tau, bold_over=0.8, id_cols=2))
register_layout("summary_rank_correlation", wide(format_tau, id_cols=3))
register_layout("summary_discriminative_power", wide(lambda v: format_percent(v, integer=False), id_cols=2))
