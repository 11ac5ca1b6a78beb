"""The public names of :mod:`metaeval.kishida`, loaded on first use (see its ``__getattr__``)."""

from .indicators import *  # noqa: F401,F403
from .indicators import __all__ as _ind_all
from .sensitivity import *  # noqa: F401,F403
from .sensitivity import __all__ as _sens_all
from .simulation import exact_given_pi, exact_population, simulate, table2  # noqa: F401
from .patterns import comparison, enumerate_patterns, indicator_scores, table3, table4, table5  # noqa: F401

__all__ = [*_ind_all, *_sens_all, "simulate", "exact_given_pi", "exact_population", "table2",
           "comparison", "enumerate_patterns", "indicator_scores", "table3", "table4", "table5"]
