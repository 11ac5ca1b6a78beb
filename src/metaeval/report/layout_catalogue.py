"""The layout catalogue: every table layout of the package, registered by its module.

Each module below lays out the tables of one stage or paper and registers each layout with the
passive registry :mod:`.layouts` (:func:`~metaeval.report.layouts.register_layout`); this module
imports them all (plain imports: the graph of ``tests/unit/test_architecture.py`` sees every
edge), so that whoever lays out a table imports it (``from metaeval.report.layout_catalogue import
kind_for``) and finds every layout, by layout key, in :data:`KINDS`.  A table without a layout
gets the generic one; a stage from outside the package declares its layouts in
:attr:`metaeval.stages.StageInfo.layouts`.  docs/architecture.md, "Add a table", says where a new
table's layout goes."""

from __future__ import annotations

from . import (bayes_layouts, discpower_layouts, incompleteness_layouts, judgments_layouts,  # noqa: F401
               rankcorr_layouts, sakai_layouts, standardisation_layouts, summary_layouts, wide_layouts)
from .layouts import GENERIC, KINDS, TableKind, kind_for, layout_table, register_layout

__all__ = ["KINDS", "TableKind", "GENERIC", "kind_for", "layout_table", "register_layout"]
