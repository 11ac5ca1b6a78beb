"""The stage catalogue: every stage of the package, registered here in order.

Each meta-evaluation method is one module (``NAME.py``: ``STAGE``, a
:class:`metaeval.stages.StageInfo` with its parameters, tables, cost and ``run``); :mod:`.common`
declares the parameters they share.  This package imports them (plain imports: the graph of
``tests/unit/test_architecture.py`` sees every edge) and registers them with the passive registry
:mod:`metaeval.stages`, in the order rows appear in a table written by more than one of them
(``asl``: paired, then unpaired); a stage from outside the package goes after the methods
(:func:`metaeval.stages.register_stage_module`).  Whoever reads the registry imports this
catalogue (``from metaeval.meta import stages``), which also gives the registry's queries.

Importing a stage module loads the standard library only (numpy and pandas inside ``run``), so
that the Snakefile and the option parsers read the declarations cheaply.  docs/architecture.md,
"Add a stage", lists the files a new one touches."""

from __future__ import annotations

from ...stages import (KINDS, Param, StageInfo, StageInputs, common_params, common_sections, file_stages,  # noqa: F401
                       get, method_stages, names, param, params, plug_ins_here, register, register_common,
                       register_stage_module, selection_params, stage_names)
from ... import stages as _registry
from . import (common, discpower, gain_sweep, incompleteness, kendall, paired, rank_correlation, risk,
               stability, standardisation, swap, test_errors, unpaired)

register_common(common.PARAMS, common.SECTIONS, common.SELECTION)
register(StageInfo("select_runs", "file"), StageInfo("collection", "tables"), StageInfo("run_means", "tables"))
register(kendall.STAGE, paired.STAGE, unpaired.STAGE, swap.STAGE, stability.STAGE, gain_sweep.STAGE,
         rank_correlation.STAGE, discpower.STAGE, incompleteness.STAGE, risk.STAGE)
plug_ins_here()
register(StageInfo("tables", "file", reads=("labels", "pair_top_runs")), StageInfo("meta", "file"),
         StageInfo("figures", "file"), StageInfo("summary", "file"), StageInfo("kishida", "other"),
         StageInfo("judgments", "other"), standardisation.STAGE, test_errors.STAGE)


def __getattr__(name: str):
    if name == "REGISTRY":             # every stage, in order (plug-ins loaded on first use)
        return _registry.REGISTRY
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
