"""Per-topic metric matrices.  See :mod:`metaeval.metrics.registry` for the naming scheme.

The measures register from one place, :data:`metaeval.metrics.registry.MEASURE_MODULES`,
imported on the registry's first use."""

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
