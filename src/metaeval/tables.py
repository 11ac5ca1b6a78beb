"""Compatibility shim: the table writer moved to :mod:`metaeval.report` (issue 8).

Only ``metaeval.meta.run``, ``metaeval.pipeline`` and ``metaeval.cli.meta`` still import this
name; they are being merged into one orchestration module that imports :mod:`metaeval.report`
directly, after which this file is deleted.  New code: ``metaeval.report.tables.write_table``,
``metaeval.report.csvio.read_table`` / ``csv_text``, ``metaeval.meta.order`` for row orders.
"""

from .report.csvio import csv_text, read_table  # noqa: F401
from .report.layouts import KINDS  # noqa: F401
from .report.tables import write_table  # noqa: F401

__all__ = ["csv_text", "read_table", "write_table", "KINDS"]
