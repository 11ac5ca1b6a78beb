"""Per-topic metric matrices.  See :mod:`metaeval.metrics.registry` for the naming scheme.

Each family of measures registers itself when its module is imported; the package root names those
modules (:func:`metaeval._measure_families`), which the registry imports on its first use."""

from .registry import REGISTRY, Measure, MeasureDef, Param, parse_gains, parse_measure, register
from .context import EvalContext

__all__ = ["REGISTRY", "Measure", "MeasureDef", "Param", "parse_gains", "parse_measure",
           "register", "EvalContext"]

from .evaluate import compute_matrices, evaluate
from .ntcir import (format_ntcir_header, format_ntcir_line, ntcir_header,
                    ntcir_measures, ntcir_measures_2011, ntcir_report)

__all__ += ["ntcir_measures", "ntcir_measures_2011", "ntcir_header", "format_ntcir_line",
            "format_ntcir_header", "ntcir_report"]

__all__ += ["evaluate", "compute_matrices"]
