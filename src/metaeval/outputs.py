"""The output contract: every table and figure metaeval writes, declared once.

Each stage declares the files it writes (:attr:`metaeval.stages.StageInfo.outputs`, in its module
``metaeval/meta/stages/NAME.py``); this module gathers them, in registry order, and answers the
queries about them.  The Snakemake workflow's target lists (``workflow/rules/common.smk``), the
writers (:mod:`metaeval.report`), the report captions and ``docs/outputs.md`` all read it.  It
imports only the standard library, so parsing the workflow (once per job on a cluster) stays
cheap.

Each :class:`Output` gives:

* ``name`` -- the file stem (``tables/NAME.csv``, ``figures/NAME.png``, ``summary/NAME.csv``,
  ``kishida/NAME.csv``);
* ``kind`` -- ``"table"``, ``"figure"`` or ``"text"`` (a folder of plain-text files whose names
  depend on the configuration, e.g. ``pvalues/METRIC.rthsd.B``: declared as the folder, its
  file-name pattern in ``formats``); ``scope`` -- ``"collection"`` (one per collection),
  ``"summary"`` (across collections) or ``"kishida"`` (the Kishida (2005) reproduction);
* ``formats`` -- the file extensions written;
* ``columns`` -- the CSV columns of a table (``...`` marks a repeated group, e.g. one column per
  collection or relevance level); of a text output, the space-separated fields of a line;
* ``caption`` -- the caption text, a template with the fields of the caption parameters the
  stages declare (:attr:`metaeval.stages.StageInfo.caption_params`: ``{alpha}``, the bootstrap
  significance level; ``{swap_threshold}``, the swap method's threshold as a percentage) and of
  the computed context, filled from the configuration by :func:`caption`;
* ``regenerates`` -- the table or figure of the papers it regenerates, cited by author and year;
* ``stages`` -- the pipeline stage(s) that compute it; ``source`` -- for a figure, the table it
  is drawn from; ``condition`` -- ``None`` or the name of the option that switches it on
  (``"gain_sweep"``);
* ``draw`` -- a figure's plotter (and ``draw_kwargs`` its fixed keyword arguments), ``build`` -- a
  summary table's builder: ``"metaeval.report.MODULE:function"``, imported by the report layer
  when it first draws (:func:`metaeval.report.figures.plotter`,
  :func:`metaeval.report.summary.summary_builder`), or a plug-in's function itself.

Adding a table: one :class:`Output` entry in the declaring stage's ``outputs``, its layout in a
layout module of the report layer (registered with :func:`metaeval.report.layouts.register_layout`
under :attr:`Output.layout`) and the stage that computes it (see docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import replace

from .meta import stages as _stages
from .meta.stages import FIGURE_FORMATS, TABLE_FORMATS, Output, scopes

__all__ = ["Output", "OUTPUTS", "SCOPES", "STAGES", "TABLE_FORMATS", "FIGURE_FORMATS", "outputs",
           "tables", "figures", "get", "for_layout", "names", "files", "caption", "caption_context",
           "SUMMARY_SOURCES", "primary_measure", "CAPTION_PARAMS", "CAPTION_DEFAULTS", "CAPTION_FORMATS",
           "CAPTION_VALUES", "caption_values", "data_sentence", "format_alpha",
           "report_caption_name", "report_captions", "markdown_reference", "rst_text"]

#: the stage names an output may give: every stage of the registry (:mod:`metaeval.stages`)
STAGES = _stages.names()
#: every scope of the outputs (a collection's, the summary's, those the stages open: :class:`metaeval.stages.Scope`)
SCOPES = scopes()
#: the switches of conditional outputs: the conditions of the registry's stages
CONDITIONS = tuple(dict.fromkeys(s.condition for s in _stages.REGISTRY if s.condition))


def _declared(stage, o) -> Output:
    """Output ``o`` as stage ``stage`` declares it (``stages`` by default the stage), its stages
    and condition checked against the registry."""
    if not o.stages:
        o = replace(o, stages=(stage.name,))
    if not set(o.stages) <= set(STAGES):
        raise ValueError(f"{o.name}: unknown stage in {o.stages!r}")
    if o.condition is not None and o.condition not in CONDITIONS:
        raise ValueError(f"{o.name}: unknown condition {o.condition!r}")
    return o


#: every output, as the stages declare them, in registry order (within a scope: the order of the
#: workflow's target lists and of docs/outputs.md)
OUTPUTS: tuple[Output, ...] = tuple(_declared(s, o) for s in _stages.REGISTRY for o in s.outputs)

#: the per-collection tables the cross-collection summary reads (its job's inputs: a stage whose
#: tables it does not read -- standardisation, test errors -- does not re-run it): the sources of the
#: summary's declared outputs
SUMMARY_SOURCES = tuple(dict.fromkeys(
    o.source for o in OUTPUTS if o.scope == "summary"
    and any(t.scope == "collection" and t.kind == "table" and t.name == o.source for t in OUTPUTS)))


# ----------------------------------------------------------------------------- queries
def _enabled(o: Output, conditions: dict) -> bool:
    return o.condition is None or bool(conditions.get(o.condition, True))


def outputs(scope: str | None = None, kind: str | None = None, **conditions) -> list[Output]:
    """The declared outputs of ``scope`` and ``kind`` (None = any), in declaration order.

    ``conditions`` switch conditional outputs off: ``outputs("collection", gain_sweep=False)``
    leaves out the gain-sweep tables (every condition defaults to on)."""
    unknown = set(conditions) - set(CONDITIONS)
    if unknown:
        raise ValueError(f"unknown condition(s) {sorted(unknown)}; known: {list(CONDITIONS)}")
    if scope is not None and scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; known: {list(SCOPES)}")
    return [o for o in OUTPUTS if (scope is None or o.scope == scope)
            and (kind is None or o.kind == kind) and _enabled(o, conditions)]


def tables(scope: str = "collection", **conditions) -> list[Output]:
    """The tables of ``scope`` (e.g. ``tables("collection", gain_sweep=False)``)."""
    return outputs(scope, "table", **conditions)


def figures(scope: str = "collection", **conditions) -> list[Output]:
    """The figures of ``scope``."""
    return outputs(scope, "figure", **conditions)


def names(scope: str = "collection", kind: str = "table", **conditions) -> list[str]:
    """The file stems of :func:`outputs` (``names("summary", "figure")``)."""
    return [o.name for o in outputs(scope, kind, **conditions)]


def get(name: str, scope: str = "collection", kind: str = "table") -> Output:
    """The declaration of one output; ``KeyError`` naming the known ones otherwise."""
    for o in OUTPUTS:
        if o.name == name and o.scope == scope and o.kind == kind:
            return o
    known = ", ".join(names(scope, kind))
    raise KeyError(f"no {scope} {kind} named {name!r}; known: {known}")


def for_layout(layout: str, kind: str = "table") -> Output | None:
    """The output whose :attr:`Output.layout` is ``layout`` (``summary_kendall``), or None."""
    for o in OUTPUTS:
        if o.kind == kind and o.layout == layout:
            return o
    return None


def files(scope: str = "collection", **conditions) -> list[str]:
    """Every file of ``scope``, relative to its root (``tables/kendall.csv``, ...)."""
    return [f for o in outputs(scope, **conditions) for f in o.files()]


# ----------------------------------------------------------------------------- captions
#: the parameters captions and figures state, as the stages declare them
#: (:attr:`metaeval.stages.StageInfo.caption_params`): name -> its words in a caption
CAPTION_FORMATS = {c.name: c.format for s in _stages.REGISTRY for c in s.caption_params}
#: their names (the fields ``{alpha}``, ``{swap_threshold}`` of :func:`caption`), which the job laying
#: out the tables passes (:meth:`metaeval.dag.Plan.writers_args`)
CAPTION_PARAMS = tuple(CAPTION_FORMATS)
#: their defaults (their parameters' declarations)
CAPTION_VALUES = {name: _stages.param(name).default for name in CAPTION_PARAMS}


def format_alpha(alpha: float) -> str:
    """The significance level as captions print it: ``0.05``."""
    return CAPTION_FORMATS["alpha"](alpha)


def caption_values(cfg=None, **given) -> dict:
    """The value of every caption parameter: ``given``, else ``cfg``'s (a
    :class:`~metaeval.meta.run.MetaConfig`: its field, or a plug-in's parameter), else its default.
    An unknown name raises ``TypeError``."""
    bad = sorted(set(given) - set(CAPTION_PARAMS))
    if bad:
        raise TypeError(f"unknown caption parameter(s) {', '.join(bad)}; known: {', '.join(CAPTION_PARAMS)}")
    out = dict(CAPTION_VALUES)
    if cfg is not None:
        out.update({n: cfg.value(n) for n in CAPTION_PARAMS})
    out.update({k: v for k, v in given.items() if v is not None})
    return out


def primary_measure(metrics, select_by: str | None = None) -> str | None:
    """The measure a results table is ordered by: ``select_by`` when it is among ``metrics``,
    else the first of ``metrics`` (None: no metric)."""
    metrics = list(metrics)
    if select_by is not None and select_by in metrics:
        return select_by
    return metrics[0] if metrics else None


#: what a caption says for a field the computed context does not give (a report caption is one
#: text for every collection: no run count)
CAPTION_DEFAULTS = {"measure": "the primary measure", "runs": "every run", "topics": "the topics",
                    "bootstrap": "the configured number B of bootstrap samples",
                    "permutations": "the configured number B of permutations",
                    "test": "the configured test"}


class _Context(dict):
    def __missing__(self, key: str) -> str:
        if key in CAPTION_DEFAULTS:
            return CAPTION_DEFAULTS[key]
        raise KeyError(f"caption field {{{key}}}: not in the computed context "
                       f"(known: {', '.join(CAPTION_PARAMS + tuple(CAPTION_DEFAULTS))})")


def _plural(n: int, word: str) -> str:
    return f"{int(n)} {word}{'' if int(n) == 1 else 's'}"


def caption_context(*, measure: str | None = None, runs: int | None = None, topics: int | None = None,
                    collection: str | None = None, B: int | None = None, permutations: int | None = None,
                    reproduction: bool | None = None, **extra) -> dict:
    """The caption fields of what was computed: ``measure`` (the primary measure,
    :func:`primary_measure`, as labelled), the number of ``runs`` and ``topics``, as phrases (``the
    37 runs``), the ``collection``'s name, the bootstrap samples ``B`` and the randomised Tukey
    HSD test's ``permutations`` (``B = 1000 bootstrap samples``), and whether the collection is a
    ``reproduction`` of the papers (:func:`caption`); a field not given keeps its wording of
    :data:`CAPTION_DEFAULTS`."""
    ctx = {k: v for k, v in extra.items() if v is not None}
    if measure is not None:
        ctx["measure"] = str(measure)
    if runs is not None:
        ctx["runs"] = f"the {_plural(runs, 'run')}"
        ctx["n_runs"] = int(runs)
    if topics is not None:
        ctx["topics"] = f"the {_plural(topics, 'topic')}"
        ctx["n_topics"] = int(topics)
    if collection:
        ctx["collection"] = str(collection)
    if B is not None:
        ctx["bootstrap"] = f"B = {int(B)} bootstrap samples"
    if permutations is not None:
        ctx["permutations"] = f"B = {int(permutations)} permutations"
    if reproduction is not None:
        ctx["reproduction"] = bool(reproduction)
    return ctx


def data_sentence(context: dict | None) -> str:
    """The caption's sentence about the data (``Data: trec-dl20, 59 runs, 54 topics.``; '' when
    the context names none of them)."""
    ctx = context or {}
    parts = [str(ctx["collection"])] if ctx.get("collection") else []
    if ctx.get("n_runs") is not None:
        parts.append(_plural(ctx["n_runs"], "run"))
    if ctx.get("n_topics") is not None:
        parts.append(_plural(ctx["n_topics"], "topic"))
    return f"Data: {', '.join(parts)}." if parts else ""


def caption(output: Output, *, context: dict | None = None, **params: float) -> str:
    """The full caption of ``output``: its text (with the configured caption parameters,
    ``params`` by name -- ``alpha=0.01, swap_threshold=0.1``, a parameter not given its default --
    and the fields of the computed ``context``, :func:`caption_context`), the data it was computed
    on (:func:`data_sentence`) and the paper table or figure whose method and layout it follows:
    "Regenerates Table 4 of Sakai (2007a)" when the collection is that paper's reproduction (the
    context's ``reproduction``; a scope that is a reproduction, :attr:`metaeval.stages.Scope.reproduction`,
    always), else "After Table 4 of Sakai (2007a)" -- a user's collection does not regenerate the
    papers' tables."""
    ctx = context or {}
    values = caption_values(**params)
    fields = _Context(ctx, **{n: CAPTION_FORMATS[n](v) for n, v in values.items()})
    text = output.caption.format_map(fields) + "."
    data = data_sentence(ctx)
    if data:
        text += " " + data
    if not output.regenerates:
        return text
    reproduction = bool(ctx.get("reproduction", False)) or _stages.scope(output.scope).reproduction
    return f"{text} {'Regenerates' if reproduction else 'After'} {output.regenerates}."


def report_caption_name(output: Output) -> str:
    """The caption key of the Snakemake report: ``table_NAME``, ``figure_NAME``,
    ``SCOPE_KIND_NAME`` (``summary_table_NAME``, ``judgments_figure_NAME``, ...) or
    ``kishida_NAME``: the style its scope declares (:attr:`Output.caption_key`)."""
    return output.caption_key


_RST_ESCAPES = {ord(c): "\\" + c for c in "\\`*_|@<>[]:"}


def rst_text(name: object) -> str:
    """``name`` (a measure's or collection's) as reStructuredText prints it literally: its markup
    characters escaped, so that ``nDCG@100`` is not taken for an e-mail address (a mailto: link)
    nor ``x_`` for a reference."""
    return str(name).translate(_RST_ESCAPES)


def report_captions(*, context: dict | None = None, **params: float) -> dict[str, str]:
    """Caption key (:func:`report_caption_name`) -> RST text for every table and figure (text
    outputs are not in the report); ``context``: what the configuration computes
    (:func:`caption_context`: the primary measure, escaped here for reStructuredText; B; whether
    every collection is a ``reproduction``)."""
    if context and "measure" in context:
        context = {**context, "measure": rst_text(context["measure"])}
    return {report_caption_name(o): caption(o, context=context, **params)
            + _whole_table_link(o) + "\n" for o in OUTPUTS if o.kind != "text"}


def _whole_table_link(o: Output) -> str:
    """A per-collection table's report caption: the report shows its Markdown view; a link to the
    whole table beside the report (the collection filled in by Snakemake's Jinja2 rendering)."""
    if o.scope != "collection" or o.kind != "table":
        return ""
    path = "{{ snakemake.wildcards.collection }}/" + f"tables/{o.name}.csv"
    return (f" Shown as printed (tables/{o.name}.md: the paper's rounding, the labels); every digit: "
            f"`{o.name}.csv <{path}>`_.")


# ----------------------------------------------------------------------------- docs
def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|")


#: the docs' words for when a condition's outputs are written, as the stages say (StageInfo.when)
_WHEN = {s.condition: s.when for s in _stages.REGISTRY if s.condition and s.when}


def markdown_reference(scope: str) -> str:
    """The generated reference table of ``scope`` that docs/outputs.md embeds (tested in sync)."""
    lines = ["| file | kind | formats | CSV columns | stage | when | regenerates |",
             "|---|---|---|---|---|---|---|"]
    for o in outputs(scope):
        cols = ", ".join(f"`{c}`" for c in o.columns) if o.columns else (
            f"drawn from `{o.source}`" if o.source else "")
        when = _WHEN.get(o.condition, "always")
        lines.append("| " + " | ".join(_md_cell(x) for x in (
            f"`{o.name}`", o.kind, ", ".join(o.formats), cols, ", ".join(o.stages), when,
            o.regenerates)) + " |")
    return "\n".join(lines) + "\n"
