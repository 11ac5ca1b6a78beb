"""Per-topic metric matrices.  See :mod:`metaeval.metrics.registry` for the naming scheme."""

from .registry import REGISTRY, Measure, MeasureDef, Param, parse_gains, parse_measure, register
from .context import EvalContext

__all__ = ["REGISTRY", "Measure", "MeasureDef", "Param", "parse_gains", "parse_measure",
           "register", "EvalContext"]

from .evaluate import evaluate  # noqa: E402
from . import ranked  # noqa: E402,F401  (registers the measures)
from . import diversity  # noqa: E402,F401  (registers D-, D#-, I-rec and the ndeval names)
from .ntcir import (format_ntcir_header, format_ntcir_line, ntcir_header,  # noqa: E402
                    ntcir_measures, ntcir_measures_2011, ntcir_report)

__all__ += ["ntcir_measures", "ntcir_measures_2011", "ntcir_header", "format_ntcir_line",
            "format_ntcir_header", "ntcir_report"]

__all__.append("evaluate")
from ..kishida import measures as _kishida_measures  # noqa: E402,F401  (registers kishida-* measures)
