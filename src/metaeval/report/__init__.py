"""The presentation layer: every table and figure file metaeval writes.

========================= ==============================================================================
module                    owns
========================= ==============================================================================
:mod:`.formatting`        number formatting (the papers' rounding rules)
:mod:`.render`            the layout model and its Markdown / LaTeX renderers
:mod:`.layouts`           the layouts' registry, the generic layout and the dispatch
:mod:`.layout_catalogue`  every table's layout (lays out values computed in :mod:`metaeval.meta`), by the
                          modules it imports, one per stage or paper
:mod:`.csvio`             the table CSVs: write (shortest repr, ``\\n``) and read back
:mod:`.tables`            :func:`write_table`: CSV + Markdown + LaTeX of one table, declared caption
:mod:`.figures`           the per-collection figures (matplotlib, deterministic PNG/PDF)
:mod:`.summary`           the cross-collection tables and figures
:mod:`.kishida`           the Kishida (2005) reproduction's files
========================= ==============================================================================

What exists (names, columns, captions, the paper table each regenerates) is declared in
:mod:`metaeval.outputs`; this package writes it.  Submodules load on first use, so importing
``metaeval.report`` does not import matplotlib.
"""

import importlib

_LAZY = {"write_table": "tables", "table_texts": "tables", "table_caption": "tables",
         "read_table": "csvio", "csv_text": "csvio", "write_csv": "csvio",
         "make_all_figures": "figures", "write_summary": "summary",
         "layout_table": "layout_catalogue", "KINDS": "layout_catalogue"}

__all__ = sorted(_LAZY)  # noqa: PLE0605 - the names of the lazy table


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
