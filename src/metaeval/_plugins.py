"""Where the top of the package puts the loaders of a registry's plug-ins (standard library only;
imports nothing).

A registry never imports its plug-ins: each plug-in imports the registry to register itself, so
the registry importing it back would close a circle.  The package root, :mod:`metaeval`, which
every import runs first, names the plug-in modules with plain imports in a loader function and
puts it here; the registry calls the loaders on its first use.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["MEASURE_FAMILIES"]

#: functions importing the modules that register measures (:mod:`metaeval.metrics.registry`)
MEASURE_FAMILIES: list[Callable[[], None]] = []
