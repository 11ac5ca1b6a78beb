"""The table layouts' registry: every table's Markdown/LaTeX layout, looked up in :data:`KINDS` by
the table's layout key (:attr:`metaeval.outputs.Output.layout`), the generic layout and the dispatch.

A layout lays out only: it picks columns, orders them like the paper's table and formats the
numbers (:mod:`.formatting`).  Every value it shows that is not a column of the CSV -- the
collection means, the t* summary, the (ii)/(iii) ratio -- and every row order comes from
:mod:`metaeval.meta` (``collection_means``, ``tstar_summary``, ``relative_difference``,
:mod:`metaeval.meta.order`).  An unknown kind gets the generic layout (every column, floats to
4 decimals).

This module is passive: it imports no layout.  Each table's layout is in a module of the report
layer grouped by the stage or paper it belongs to (:mod:`.sakai_layouts`, :mod:`.discpower_layouts`,
:mod:`.rankcorr_layouts`, :mod:`.incompleteness_layouts`, :mod:`.summary_layouts`,
:mod:`.judgments_layouts`, :mod:`.standardisation_layouts`, :mod:`.wide_layouts`), which registers
it here (:func:`register_layout`, a decorator); the catalogue :mod:`.layout_catalogue` imports
every one of them, and whoever lays out a table imports the catalogue (which also gives
:data:`KINDS`, :func:`kind_for`, :func:`layout_table`).  A stage from outside the package declares
its layouts in :attr:`metaeval.stages.StageInfo.layouts` (:func:`kind_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Sequence

import pandas as pd

from .formatting import fmt4
from .render import Layout

__all__ = ["TableKind", "KINDS", "GENERIC", "register_layout", "layout_table", "kind_for", "layout_generic",
           "require_columns", "unique", "letter"]


# --------------------------------------------------------------------------------------------
# what the layouts share
# --------------------------------------------------------------------------------------------

def require_columns(df: pd.DataFrame, kind: str, columns: Sequence[str]) -> None:
    """Raise ``ValueError`` naming the columns of ``columns`` that table ``kind`` lacks."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"table {kind!r}: missing column(s) {missing}; got {list(df.columns)}")


def unique(values) -> list:
    """Distinct values in order of first appearance."""
    return list(dict.fromkeys(values))


def letter(i: int) -> str:
    """The ``i``-th label letter (a..z, then aa, ab, ...)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26]


def layout_generic(df: pd.DataFrame) -> Layout:
    """Every column as it is, floats to 4 decimals; numbers right-aligned."""
    header = [str(c) for c in df.columns]
    rows = [[fmt4(v) for v in rec] for rec in df.itertuples(index=False, name=None)]
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) and not
                    pd.api.types.is_bool_dtype(df[c]) else "l" for c in df.columns)
    return Layout(header, rows, align)


# --------------------------------------------------------------------------------------------
# the registry: layout key (metaeval.outputs.Output.layout) -> layout and row order
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TableKind:
    name: str
    layout: Callable[..., Layout]
    sort: Callable[[pd.DataFrame], pd.DataFrame] | None = None   # from metaeval.meta.order
    #: the layout takes the computed context too (``layout(df, context)``: the primary measure, ...)
    context: bool = False

    def lay_out(self, df: pd.DataFrame, context: dict | None = None) -> Layout:
        return self.layout(df, context) if self.context else self.layout(df)


#: every registered layout, by layout key (complete once :mod:`.layout_catalogue` is imported)
KINDS: dict[str, TableKind] = {}

GENERIC = TableKind("generic", layout_generic)


def register_layout(name: str, layout: Callable[..., Layout] | None = None, *,
                    sort: Callable[[pd.DataFrame], pd.DataFrame] | None = None, context: bool = False):
    """Register ``layout`` as the layout of table key ``name`` (:attr:`metaeval.outputs.Output.layout`),
    its rows first ordered by ``sort`` (a function of :mod:`metaeval.meta.order`); ``context``: the
    layout takes the computed context too (``layout(df, context)``).  Without ``layout``, a
    decorator (``@register_layout("kendall")``) that registers the function and returns it.  A key
    registered to another function raises ``ValueError``."""
    if layout is None:
        def decorate(fn: Callable[..., Layout]) -> Callable[..., Layout]:
            register_layout(name, fn, sort=sort, context=context)
            return fn
        return decorate
    kind = TableKind(name, layout, sort, context)
    if name in KINDS and KINDS[name] != kind:
        raise ValueError(f"table layout {name!r} is registered twice")
    KINDS[name] = kind
    return layout


def kind_for(kind: str | None, default_name: str | None = None) -> TableKind:
    """The :class:`TableKind` of a layout key; None looks up ``default_name`` (a file stem) and
    falls back to the generic layout; ``"generic"`` is the generic layout."""
    if kind is None:
        return KINDS.get(default_name, GENERIC) if default_name is not None else GENERIC
    if kind == "generic":
        return GENERIC
    try:
        return KINDS[kind]
    except KeyError:
        from ..meta import stages

        for s in stages.REGISTRY:                # a table whose stage declares its layout (a plug-in, an own job):
            if kind in dict(s.layouts):          # the layout it declares, else the generic one
                return TableKind(kind, dict(s.layouts)[kind])
            if any(kind == o.layout for o in s.outputs if o.kind == "table"):
                return GENERIC
        raise ValueError(f"unknown table kind {kind!r}; known: {sorted(KINDS)} (the layouts are registered "
                         "by the modules metaeval.report.layout_catalogue imports)") from None


def layout_table(df: pd.DataFrame, kind: str = "generic", context: dict | None = None) -> Layout:
    """The layout of ``df`` as table ``kind`` (its row order applied first); ``context``: what
    was computed (:func:`metaeval.outputs.caption_context`), for the layouts that read it."""
    spec = GENERIC if kind == "generic" else KINDS[kind]
    if spec.sort is not None:
        df = spec.sort(df)
    return spec.lay_out(df, context)
