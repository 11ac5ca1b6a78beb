"""The public names of :mod:`metaeval.kishida`, loaded on first use (see its ``__getattr__``)."""

from .indicators import *
from .indicators import __all__ as _ind_all
from .sensitivity import *
from .sensitivity import __all__ as _sens_all
from .simulation import exact_given_pi, exact_population, simulate, table2
from .patterns import comparison, enumerate_patterns, indicator_scores, table3, table4, table5

# the submodules' own __all__ and the names imported above
__all__ = [*_ind_all, *_sens_all, "simulate", "exact_given_pi", "exact_population", "table2",  # noqa: PLE0604
           "comparison", "enumerate_patterns", "indicator_scores", "table3", "table4", "table5"]
