"""Kishida (2005): indicators, sensitivity analysis, judgment-variation simulation and
the numerical comparison of graded-relevance indicators (Tables 1-5).

See ``docs/kishida.md``.  Registering the indicators as measures happens in
:mod:`metaeval.kishida.measures`, which the metric registry imports on first use
(:func:`metaeval._measure_families`, on the registry's first use).
"""

import importlib
import pkgutil

_SUBMODULES = {m.name for m in pkgutil.iter_modules(__path__)}


def __getattr__(name: str):
    # The public functions load on first use (PEP 562): they need pandas and scipy (~0.3 s to
    # import), while the metric registry, which registers the kishida-* measures by importing
    # metaeval.kishida.measures on first use, must stay light for ``metaeval matrices``.  ``from . import
    # indicators`` asks for the attribute first: submodules are imported alone.
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    public = importlib.import_module(f"{__name__}._public")
    try:
        return getattr(public, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
