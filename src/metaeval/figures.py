"""Compatibility shim: the figures moved to :mod:`metaeval.report.figures` (issue 8).

Only ``metaeval.cli.meta`` still imports this name (it is being rewritten with the orchestration
module); delete this file once it imports ``metaeval.report.figures``.
"""

from .report.figures import make_all_figures  # noqa: F401

__all__ = ["make_all_figures"]
