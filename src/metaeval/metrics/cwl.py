"""Deprecated path of :mod:`metaeval.cwl.measures` (moved with its drop-in; kept for one release)."""

from .._lazy import moved_module

moved_module(__name__, "metaeval.cwl.measures")
