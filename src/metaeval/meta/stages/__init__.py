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

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, TypeVar, overload

from ...stages import (FIGURE_FORMATS, KINDS, TABLE_FORMATS, Output, Param, Scope, StageInfo, scope, scopes,  # noqa: F401
                       CollectionData, NamedFiles, Shown, StageInputs, TextFiles, check_params, common_params, common_sections, file_stages, format_args,
                       get, method_stages, names, own_job_stages, param, parameter, params, plug_in_stages, plug_ins_here, quote,
                       register, register_common, register_stage_module, resolve, selection_params, stage_names)
from ... import stages as _registry
from . import (bayes, collection, common, discpower, error_rates, gain_sweep, incompleteness, judgments, kendall,
               kishida, paired, ppi, rank_correlation, reproducibility, results_table, risk, run_means, stability,
               standardisation, swap, unpaired)

if TYPE_CHECKING:
    from ..incompleteness import IncompletenessConfig

P = TypeVar("P")

#: a collection's outputs (results/C/tables, figures; its caption keys KIND_NAME) and the
#: cross-collection summary's (results/summary/)
register_common(common.PARAMS, common.SECTIONS, common.SELECTION,
                scopes=(Scope("collection", caption_key="{kind}_{name}"),
                        Scope("summary", folders=(("table", ""), ("figure", "")))))
#: the jobs of `metaeval stage` that are not a method: the function each runs (metaeval.cli._stage_jobs)
_JOBS = "metaeval.cli._stage_jobs:"
register(StageInfo("select_runs", "file", command=_JOBS + "select_runs"), collection.STAGE, run_means.STAGE)
register(kendall.STAGE, paired.STAGE, unpaired.STAGE, swap.STAGE, stability.STAGE, gain_sweep.STAGE,
         rank_correlation.STAGE, discpower.STAGE, results_table.STAGE, incompleteness.STAGE, risk.STAGE)
plug_ins_here()
register(StageInfo("tables", "file", reads=("labels", "pair_top_runs", "reproduction"), command=_JOBS + "tables"),
         StageInfo("meta", "file", command=_JOBS + "meta"), StageInfo("figures", "file", command=_JOBS + "figures"),
         StageInfo("summary", "file", command=_JOBS + "summary"), kishida.STAGE,
         judgments.STAGE, standardisation.STAGE, error_rates.STAGE, ppi.STAGE,
         reproducibility.STAGE, bayes.STAGE)


@dataclass(frozen=True)
class MetaConfig(results_table.ResultsTableParams, risk.RiskParams, discpower.DiscpowerParams,
                 rank_correlation.RankCorrelationParams,
                 gain_sweep.GainSweepParams, stability.StabilityParams, swap.SwapParams, paired.PairedParams,
                 kendall.KendallParams, common.CommonParams):
    """The parameters of every meta-evaluation method (defaults = the papers): the fields of the
    stages' parameter classes (the common ones first, then each method's in registry order), the
    ``incompleteness`` stage's options (None = its defaults) and ``plugins``, the parameter objects
    of the stages registered from outside the package, read typed through :meth:`plugin`
    (``cfg.plugin(ToyParams).toy_scale``).  Every attribute is a declared field, so mypy refuses a
    misspelt one (``cfg.swap_treshold``).  Constructing it runs every parameter's ``check``; build
    one from values of any stage with :meth:`of`."""

    incompleteness: IncompletenessConfig | None = None
    plugins: tuple = ()

    def __post_init__(self) -> None:
        check_params(self)
        given = {type(p): p for p in self.plugins}
        filled = tuple(given.get(c) or c() for c in _plugin_classes())
        for p in filled:
            check_params(p)
        object.__setattr__(self, "plugins", filled)

    @overload
    def plugin(self, key: type[P]) -> P: ...

    @overload
    def plugin(self, key: str) -> Any: ...

    def plugin(self, key: Any) -> Any:
        """The parameter object of a stage registered from outside the package: by its parameter
        class (``cfg.plugin(ToyParams)``, typed as that class) or by its stage name
        (``cfg.plugin("toy")``); ``KeyError`` names an unknown one."""
        if isinstance(key, str):
            cls = _registry.get(key).params_class if key in _registry.names() else None
        else:
            cls = key
        for p in self.plugins:
            if type(p) is cls:
                return p
        known = ", ".join(s.name for s in _registry.REGISTRY if s.params_class in {type(p) for p in self.plugins})
        raise KeyError(f"no plug-in stage's parameters {getattr(key, '__name__', key)!r}; known: {known or 'none'}")

    def value(self, name: str) -> Any:
        """The value of parameter ``name`` by name, for code that reads declared parameters
        generically (the caption parameters): a field's, or a plug-in's (:meth:`plugin`);
        ``KeyError`` names an unknown one."""
        if name in {f.name for f in fields(self)} - {"plugins"}:
            return getattr(self, name)
        for p in self.plugins:
            if name in {f.name for f in fields(p)}:
                return getattr(p, name)
        raise KeyError(f"no parameter {name!r}; known: {', '.join(sorted(known_fields()))}")

    def replaced(self, **values: Any) -> MetaConfig:
        """A copy with parameters replaced by name: fields, or a plug-in's (:meth:`value`)."""
        own = {f.name for f in fields(self)} - {"plugins"}
        plugins = tuple(replace(p, **{k: v for k, v in values.items() if k in {f.name for f in fields(p)}})
                        for p in self.plugins)
        known = own | {f.name for p in self.plugins for f in fields(p)}
        bad = sorted(set(values) - known)
        if bad:
            raise TypeError(f"unknown parameter(s) {', '.join(bad)}")
        return replace(self, plugins=plugins, **{k: v for k, v in values.items() if k in own})

    @classmethod
    def of(cls, **values: Any) -> MetaConfig:
        """The MetaConfig of parameter values of any stage (a plug-in's too); ``TypeError`` names an
        unknown one."""
        own = {f.name for f in fields(cls)} - {"plugins"}
        plugins = []
        for c in _plugin_classes():
            mine = {f.name for f in fields(c)}
            plugins.append(c(**{k: values.pop(k) for k in list(values) if k in mine}))
        bad = sorted(set(values) - own)
        if bad:
            raise TypeError(f"unknown parameter(s) {', '.join(bad)}; known: {', '.join(sorted(known_fields()))}")
        return cls(**values, plugins=tuple(plugins))


def _plugin_classes() -> tuple:
    """The parameter classes of the methods MetaConfig is not composed of (stages from outside the
    package)."""
    return tuple(s.params_class for s in _registry.REGISTRY if s.is_method and s.params_class is not None
                 and s.options is None and not issubclass(MetaConfig, s.params_class))


def known_fields() -> set:
    """The names :meth:`MetaConfig.of` accepts."""
    return ({f.name for f in fields(MetaConfig)} - {"plugins"}) | {f.name for c in _plugin_classes() for f in fields(c)}


def __getattr__(name: str):
    if name == "REGISTRY":             # every stage, in order (plug-ins loaded on first use)
        return _registry.REGISTRY
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
