"""The stage registry (standard library only, passive: it imports no stage).

A *stage* is one kind of job of the pipeline.  A meta-evaluation method is declared once, in its
own module ``metaeval/meta/stages/NAME.py``, as ``STAGE = StageInfo(...)``: its name, kind, tables,
cost, parameters (:class:`Param`: name, type, default, help, config key and schema constraints)
and one ``run(inputs, params) -> {table: DataFrame}`` (:class:`StageInputs`, the
:class:`~metaeval.meta.run.MetaConfig`) with the computation it stands for.  The catalogue
:mod:`metaeval.meta.stages` imports every stage module of the package and registers it here
(:func:`register`, in order); whoever reads the registry imports the catalogue, which also gives
the queries below.  Everything else is derived from the declarations:

* :data:`metaeval.meta.run.STAGES` (the methods, run by :mod:`metaeval.pipeline`) and
  :class:`metaeval.meta.run.MetaConfig` (one field per parameter);
* the options of ``metaeval meta`` / ``metaeval stage`` / ``metaeval incompleteness``
  (:mod:`metaeval.cli._meta_options`);
* the stage sections of the config schema, their defaults, and the arguments of every pipeline
  job (:mod:`metaeval.dag`, read by ``workflow/rules/common.smk``);
* :data:`metaeval.outputs.STAGES`, ``FILE_STAGES`` of ``metaeval stage`` -- :func:`file_stages`;
  the methods a collection's ``meta`` job combines -- :func:`method_stages`.

A stage module outside the package (a plug-in, a test) joins with :func:`register_stage_module`
(``register_stage_module("mypkg.mystage")``) or, for every process of a run, the environment
variable ``METAEVAL_STAGES`` (module names separated by commas); register it before
:mod:`metaeval.outputs` is imported.  It goes after the package's methods (:func:`plug_ins_here`).

Kinds:

``"matrices"``  a meta-evaluation method on the topic x run matrices (``metaeval stage NAME``
                writes ``C/parts/NAME/TABLE.csv``; the pipeline runs every one of a collection
                in its ``meta`` job, ``metaeval stage meta``, tables kept in memory);
``"labelled"``  a method that needs the labelled collection (the ``.npz`` cache with document
                identity) and the collection's gains besides the matrices (``metaeval stage NAME
                --collection CACHE --gains G``); it writes its parts like a ``"matrices"`` stage
                and may write a folder of its own (:attr:`StageInfo.folder`);
``"tables"``    a table computed with the tables themselves (Table 1, run means);
``"file"``      a job of ``metaeval stage`` that is not a method (select runs, tables, meta,
                figures, summary);
``"other"``     a job with its own command (the judgments as a dimension); one with a ``run``
                and no rule of its own is an *own job* the package runs generically
                (:attr:`StageInfo.own_job`: ``metaeval stage NAME``, :func:`metaeval.api.run_stage`,
                ``workflow/rules/own_job.smk``; one job per collection, or one for the whole run:
                :attr:`StageInfo.run_wide`, the Kishida (2005) reproduction) -- the one kind
                ``other`` a plug-in may have.

This module imports nothing but the standard library, so that :mod:`metaeval.outputs` and the
Snakefile (parsed once per job on a cluster) can read it without numpy or pandas; a stage module
imports numpy and pandas inside its ``run`` only.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import shlex
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from collections.abc import Callable, Mapping

# REGISTRY: the module's __getattr__, composed on first use
__all__ = ["REGISTRY", "Param", "StageInfo", "StageInputs", "TextFiles", "Output", "JobPlan", "CaptionParam",  # noqa: F822
           "PlanView", "KINDS", "Scope", "scope", "scopes", "TABLE_FORMATS", "FIGURE_FORMATS", "names", "get", "method_stages", "own_job_stages", "file_stages", "stage_names",
           "params", "param", "common_params", "common_sections", "selection_params", "register",
           "register_common", "plug_ins_here", "register_stage_module", "plug_in_stages", "parameter",
           "params_of", "check_params", "quote", "format_args", "CollectionData", "NamedFiles", "Shown"]

KINDS = ("matrices", "labelled", "tables", "file", "other")

#: ``Param.config_default`` when the config's default is ``Param.default``
SAME = object()


@dataclass(frozen=True)
class Param:
    """One parameter of a stage, declared once.

    ``name``: the :class:`~metaeval.meta.run.MetaConfig` field (and argparse ``dest``);
    ``type`` parses one command-line value (``int``, ``float``, ``str`` or a function);
    ``default``: the value without the option (a tuple for a list); ``help``: the option's help;
    ``flag``: the option (``""``: ``--name-with-dashes``; ``None``: no option); ``nargs``,
    ``choices``, ``metavar``, ``action`` (``store_true``/``store_false``) as argparse has them;
    ``config``: the key path in the pipeline config (``("swap", "threshold")``; through
    ``("collections", "*", ...)``: per collection, its schema entry then written by hand; ``None``:
    not configurable); ``schema``: its JSON-schema constraints (type, minimum, items, ...);
    ``doc``: the schema description (default ``help``); ``config_default``: the config's default
    when it is not ``default``; ``render``: the config value as the option's words on a job's
    command line (default: each value quoted); ``field``: False for a parameter that is no
    ``MetaConfig`` field (read by the stage's ``options`` builder, or by the command);
    ``check``: raises ``ValueError`` on a bad value (``MetaConfig`` construction); ``parse``: the
    option's own argparse type, used as it is instead of ``type`` checked against ``schema`` (it
    checks its word itself, a bad one a usage error worded its own way: ``int_at_least(1)``, or a
    list in one comma-separated word, ``ints_at_least(2)``, :mod:`metaeval.argtypes`; the range
    it accepts is the ``schema``'s); ``file``: a *file parameter*, whose values name files (a
    field typed ``Path``, ``Path | None``, ``tuple[Path, ...]`` or ``tuple[NamedFiles, ...]``:
    :func:`params_of` sets it) -- an own job's files are its rule's inputs (:meth:`paths`); a
    config mapping ``{NAME: file or [files]}`` of one typed ``tuple[NamedFiles, ...]`` is its named
    sets (:meth:`from_config`)."""

    name: str
    type: Callable = str
    default: Any = None
    help: str = ""
    flag: str | None = ""
    nargs: str | None = None
    choices: tuple | None = None
    metavar: str | None = None
    action: str | None = None
    config: tuple | None = None
    schema: dict | None = None
    doc: str | None = None
    config_default: Any = SAME
    render: Callable | None = None
    field: bool = True
    check: Callable | None = None
    parse: Callable[[str], Any] | None = None
    file: bool = False

    def from_config(self, value: Any) -> Any:
        """A config value as the parameter's field holds it: a file parameter's mapping ``{NAME:
        file or [files]}`` (a ``tuple[NamedFiles, ...]`` field's config block,
        ``reproductions: {NAME: [B, A]}``) as its named sets (:meth:`NamedFiles.of`, in order);
        any other value as it is (a path as its string: :meth:`paths` and a job's words read both)."""
        if self.file and isinstance(value, Mapping):
            return NamedFiles.of(value)
        return value

    def paths(self, value: Any) -> list[str]:
        """The files a value of this file parameter names, in order (none: ``[]``; a
        :class:`NamedFiles` its files; a list or tuple each item's)."""
        if not self.file or value is None:
            return []
        if isinstance(value, (list, tuple)):
            return [f for v in value for f in self.paths(v)]
        if isinstance(value, NamedFiles):
            return [str(f) for f in value.files]
        return [str(value)]

    @property
    def option(self) -> str | None:
        """The command-line option (``--swap-threshold``), or None."""
        if self.flag is None:
            return None
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def stage_option(self) -> str | None:
        """Its option on ``metaeval stage NAME`` for a stage with a job of its own (whose options
        share that command with every stage's): spelt after its name (``bayes_draws``:
        ``--bayes-draws``), its stage's own command keeping :attr:`option` (``metaeval bayes
        --draws``); None without an option."""
        if self.flag is None:
            return None
        return "--" + self.name.replace("_", "-")

    @property
    def schema_default(self):
        d = self.default if self.config_default is SAME else self.config_default
        return list(d) if isinstance(d, tuple) else d


def quote(s: Any) -> str:
    """A word of a job's command line, quoted for the shell."""
    return shlex.quote(str(s))


def format_args(**opts: Any) -> str:
    """``--name value...`` shell arguments (each value quoted; lists spread; None/empty left out)."""
    out = []
    for k, v in opts.items():
        if v is None or v == []:
            continue
        vals = v if isinstance(v, (list, tuple)) else [v]
        out.append(" ".join([f"--{k.replace('_', '-')}"] + [quote(x) for x in vals]))
    return " ".join(out)


def parameter(default: Any, help: str = "", **declared: Any) -> Any:
    """One typed parameter of a stage's parameter class, its declaration as field metadata::

        @dataclass(frozen=True)
        class SwapParams:
            swap_threshold: float = parameter(0.05, "largest swap rate (default 0.05)",
                                          config=("swap", "threshold"), schema={"type": "number"})

    ``declared``: the other fields of :class:`Param` (``flag``, ``nargs``, ``choices``,
    ``metavar``, ``action``, ``config``, ``schema``, ``doc``, ``config_default``, ``render``,
    ``check``, ``parse``; ``type`` when the annotation's is not the parser of one value).  The
    field's default is the declared one wherever the parameter appears: the class attribute
    (``SwapParams.swap_threshold``) is what an API function's keyword defaults to."""
    bad = set(declared) - {f.name for f in dataclasses.fields(Param)} - {"name", "default", "help"}
    if bad or {"name", "default", "help"} & set(declared):
        raise TypeError(f"parameter: unknown or repeated declaration(s) {sorted(bad or declared)}")
    return dataclasses.field(default=default, metadata={"param": dict(declared, help=help)})


def _value_type(annotation: Any) -> Callable:
    """The parser of one command-line value of a field typed ``annotation``: ``float`` for
    ``float``, ``tuple[float, ...]`` and ``float | None`` (likewise ``int``, ``str``, ``bool``)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return _value_type(args[0])
    if typing.get_origin(annotation) is tuple:
        return _value_type(args[0])
    if annotation in (int, float, str, bool, Path):
        return annotation
    if annotation is NamedFiles:
        return NamedFiles.parse
    raise TypeError(f"no command-line parser for a parameter typed {annotation!r}: declare type=")


def _names_files(annotation: Any) -> bool:
    """Whether a field typed ``annotation`` holds file names (``Path``, ``NamedFiles``, in a union or tuple)."""
    if annotation in (Path, NamedFiles):
        return True
    return any(_names_files(a) for a in typing.get_args(annotation) if a is not Ellipsis)


def params_of(cls: type) -> tuple[Param, ...]:
    """The :class:`Param` of every field of a stage's parameter class (declared with :func:`parameter`);
    a field typed with ``Path`` (or :class:`NamedFiles`) is a file parameter (:attr:`Param.file`:
    its option's words are ``FILE`` unless declared, its files its own job's inputs)."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        declared = dict(f.metadata.get("param", {}))
        if not declared:
            raise TypeError(f"{cls.__name__}.{f.name}: declare the parameter with metaeval.stages.parameter(...)")
        declared.setdefault("type", _value_type(hints[f.name]))
        if _names_files(hints[f.name]):
            declared["file"] = True
            declared.setdefault("metavar", "NAME=FILE[,FILE...]" if _value_type(hints[f.name]) is NamedFiles
                                else "FILE")
        out.append(Param(f.name, default=f.default, **declared))
    return tuple(out)


def check_params(values: Any) -> None:
    """Run every declared ``check`` on the fields of a parameter object (a ``ValueError`` names
    the bad value)."""
    for f in dataclasses.fields(values):
        check = f.metadata.get("param", {}).get("check")
        if check is not None:
            check(getattr(values, f.name))


#: the output contract's scopes, formats and folders (:mod:`metaeval.outputs`)
TABLE_FORMATS = ("csv", "md", "tex")
FIGURE_FORMATS = ("png", "pdf")


@dataclass(frozen=True)
class Scope:
    """Where a scope's outputs go, declared by whoever opens it (the catalogue: a collection's,
    ``collection``, and the cross-collection ``summary``; a stage with a folder of its own:
    :attr:`StageInfo.scopes`, ``Scope("ppi")``).  ``folders``: ``((output kind, folder under the
    scope's root), ...)`` (``results/C/tables``, ``results/C/figures``; '' the root itself);
    ``caption_key``: the key of an output's caption in the Snakemake report (``{scope}``,
    ``{kind}``, ``{name}``: a collection's ``KIND_NAME``, the Kishida reproduction's
    ``kishida_NAME``, as the report has always named them); ``reproduction``: its outputs always
    reproduce their paper (the Kishida (2005) tables, computed from that paper's own simulation): their
    captions say "Regenerates" whatever the collections are (:func:`metaeval.outputs.caption`);
    ``title``: its outputs' heading in the HTML report (``snakemake --report``; default its name)."""

    name: str
    folders: tuple[tuple[str, str], ...] = (("table", "tables"), ("figure", "figures"), ("text", ""))
    caption_key: str = "{scope}_{kind}_{name}"
    reproduction: bool = False
    title: str = ""

    def folder(self, kind: str) -> str:
        """The folder of the outputs of ``kind`` under the scope's root."""
        for k, d in self.folders:
            if k == kind:
                return d
        raise ValueError(f"scope {self.name}: no folder for outputs of kind {kind!r}")


@dataclass(frozen=True)
class CaptionParam:
    """A parameter that captions and figures state (:attr:`StageInfo.caption_params`): ``name``,
    the parameter (its value the configured one; the caption field ``{name}``); ``format``: its
    words in a caption (the swap threshold 0.05: ``5%``)."""

    name: str
    format: Callable[[Any], str] = str


#: a function named by where it is, ``"pkg.module:function"`` (imported on first use by
#: :func:`resolve`), or the function itself
Reference: typing.TypeAlias = str | Callable[..., Any]


def _is_reference(text: str) -> bool:
    module, sep, attr = text.partition(":")
    return bool(sep) and all(p.isidentifier() for p in module.split(".")) and attr.isidentifier()


def resolve(ref: Reference) -> Callable[..., Any]:
    """The function ``ref`` names: ``"pkg.module:function"`` imported (the module on first use),
    a callable itself."""
    if callable(ref):
        return ref
    module, _, attr = ref.partition(":")
    found = getattr(importlib.import_module(module), attr)
    if not callable(found):
        raise TypeError(f"{ref}: not a function")
    return found


@dataclass(frozen=True)
class Output:
    """One published table or figure, declared by the stage that computes it
    (:attr:`StageInfo.outputs`; the fields: :mod:`metaeval.outputs`).  ``stages``: the pipeline
    stages that write it, by default the declaring stage (a figure: ``figures``, drawn from its
    ``source`` table; a cross-collection output: ``summary``).  ``draw_seconds``: a figure's rough
    drawing time on DL19 (30 runs, 13 metrics) when it is more than a fraction of a second (the t*
    histograms, the p-value curves, the rank-correlation heat maps), to deal a collection's tables
    into balanced groups of figures drawn side by side.  ``paper_order``: a table's place among the
    papers' tables (Sakai 2007a, 2007b), which a collection's combined results list first, in this
    order (None: after them, in registry order); ``row_order``: the rows' order in the combined
    table, ``((column, ascending), ...)``, stable, missing values last (a bootstrap table: sensitivity
    descending, then metric).  ``plot_params``: a figure's plotter's keyword arguments from the
    configured values, ``((keyword, value), ...)``: a caption parameter (:class:`CaptionParam`:
    ``alpha``, ``swap_threshold``) or ``measure`` (the primary measure, which orders the runs); in
    an own job's scope, a caption field its :class:`Shown` gives or a frame of its run, by name
    (the judgments run-means figure's ``reference`` and ``taus``).

    How the report layer writes it, declared here too (:data:`Reference`: ``"pkg.module:function"``,
    imported by the report layer when it first draws -- a stage module of the package names the
    functions of :mod:`metaeval.report` so, the layer rule keeping the report out of
    :mod:`metaeval.meta` -- or the function itself, as a plug-in may pass it): ``draw``, a figure's
    plotter -- per collection (and in a stage's own scope) ``draw(table, path_stem, **kwargs) ->
    [paths]`` drawn from its ``source`` table (in a stage's own scope with display labels, the
    keyword ``labels`` too: :class:`Shown`), across collections ``draw(tables, read, path_stem,
    values) -> [paths]`` (``tables``: the summary tables just built; ``read(TABLE)``: ``{collection:
    DataFrame or None}`` of a per-collection table; ``values``: the caption parameters' values and
    ``metric``); ``draw_kwargs``: the plotter's fixed keyword arguments, ``((keyword, value), ...)``
    (the paired ASL curves: ``(("test", "paired"),)``); ``build``: a summary table's builder,
    ``build(read) -> DataFrame`` (``read.order``: the metric order of the run means)."""

    name: str
    kind: str
    scope: str
    caption: str
    regenerates: str
    stages: tuple = ()
    columns: tuple = ()
    formats: tuple = ()
    source: str | None = None
    condition: str | None = None
    draw_seconds: float = 0.0
    paper_order: int | None = None
    row_order: tuple[tuple[str, bool], ...] = ()
    plot_params: tuple[tuple[str, str], ...] = ()
    draw: Reference | None = None
    draw_kwargs: tuple[tuple[str, Any], ...] = ()
    build: Reference | None = None

    def __post_init__(self):
        if self.kind not in ("table", "figure", "text"):
            raise ValueError(f"{self.name}: kind must be 'table', 'figure' or 'text', got {self.kind!r}")
        if (self.draw is not None or self.draw_kwargs) and self.kind != "figure":
            raise ValueError(f"{self.name}: only a figure has a plotter (draw, draw_kwargs)")
        if self.build is not None and self.kind != "table":
            raise ValueError(f"{self.name}: only a table has a builder (build)")
        for ref in (self.draw, self.build):
            if isinstance(ref, str) and not _is_reference(ref):
                raise ValueError(f"{self.name}: {ref!r} is no reference 'pkg.module:function'")
        if self.kind == "text" and not self.formats:
            raise ValueError(f"{self.name}: a text output needs its file-name pattern in formats")
        if not self.formats:
            object.__setattr__(self, "formats",
                               TABLE_FORMATS if self.kind == "table" else FIGURE_FORMATS)

    @property
    def key(self) -> str:
        """``scope/kind/name``: unique across all outputs."""
        return f"{self.scope}/{self.kind}/{self.name}"

    @property
    def layout(self) -> str:
        """The table layout key in :data:`metaeval.report.layouts.KINDS` (``NAME`` for a
        per-collection table, ``summary_NAME`` for a summary table); figures: the key
        :func:`metaeval.report.figures.plotter` finds them by (``NAME`` / ``SCOPE_NAME``)."""
        return self.name if self.scope == "collection" else f"{self.scope}_{self.name}"

    @property
    def caption_key(self) -> str:
        """The key of its caption in the Snakemake report (``table_NAME``, ``summary_figure_NAME``,
        ...: the style its :class:`Scope` declares)."""
        return scope(self.scope).caption_key.format(scope=self.scope, kind=self.kind, name=self.name)

    @property
    def directory(self) -> str:
        """The folder under the scope's root, as its :class:`Scope` declares it (``tables``/``figures``
        per collection, '' the root)."""
        return scope(self.scope).folder(self.kind)

    def files(self) -> list[str]:
        """The file names relative to the scope's root, one per format (a text output: its
        folder, ``NAME``, whose files are named by the pattern in ``formats``)."""
        if self.kind == "text":
            return [self.name]
        d = self.directory + "/" if self.directory else ""
        return [f"{d}{self.name}.{x}" for x in self.formats]


@dataclass(frozen=True)
class NamedFiles:
    """The value of a file parameter that names a set of files (a qrels set: ``nist=a.txt,b.txt``):
    ``name`` and its ``files``; one word on a command line, ``NAME=FILE[,FILE...]`` (:meth:`parse`,
    ``str``).  A parameter typed ``tuple[NamedFiles, ...]`` is a file parameter (:attr:`Param.file`)."""

    name: str
    files: tuple[Path, ...]

    @classmethod
    def parse(cls, text: str) -> NamedFiles:
        """``NAME=FILE[,FILE...]`` (a ``ValueError`` without a name or a file)."""
        name, sep, files = str(text).partition("=")
        paths = tuple(Path(f) for f in files.split(",") if f)
        if not sep or not name or not paths:
            raise ValueError(f"{text!r}: expected NAME=FILE[,FILE...]")
        return cls(name, paths)

    @classmethod
    def of(cls, mapping: Mapping[str, Any]) -> tuple[NamedFiles, ...]:
        """``{NAME: file or [files]}`` (a config block's) as named sets, in order."""
        return tuple(cls(str(n), tuple(Path(f) for f in ([v] if isinstance(v, (str, os.PathLike)) else v)))
                     for n, v in mapping.items())

    def __str__(self) -> str:
        return f"{self.name}={','.join(str(f) for f in self.files)}"


@dataclass(frozen=True)
class CollectionData:
    """A collection's data as an own job on them reads them (:attr:`StageInfo.data`,
    :attr:`StageInputs.data`): its ``qrels`` files (several: their union), its ``runs`` (files,
    folders or globs) and how they are read -- the ``gains`` of its levels (``1:2:3``; None: the
    default), the ranked lists' ``order`` (None: from the input's conventions), their ``depth``
    (None: no truncation) and the ``trec_eval_version`` whose score ranking a run's order follows.
    ``metaeval stage NAME --qrels --runs --gains --order --depth --trec-eval-version``, the keywords
    of :func:`metaeval.api.run_stage`, the collection's config in the pipeline."""

    qrels: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    gains: str | None = None
    order: str | None = None
    depth: int | None = 1000
    trec_eval_version: int = 10


@dataclass(frozen=True)
class Shown:
    """How an own job's outputs show its run (:attr:`StageInfo.shown`): ``context``, the fields of
    its captions (:func:`metaeval.outputs.caption_context`: its runs and topics, ``B``, a test's
    name; a caption parameter, ``alpha``, by name), which its figures' ``plot_params`` read too;
    ``labels``: ``{name: label}`` of the runs, measures and other names its Markdown, LaTeX and
    figures show."""

    context: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    labels: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class StageInputs:
    """What a method's ``run(inputs, params)`` reads: the ``matrices`` (``{name: topic x run
    DataFrame}``, restricted to the runs in use), its metric list ``metrics`` and, for a
    per-metric stage, the ``metric`` of this call; the bootstrap ``samples`` of its ``streams``
    (in that order); the combined ``tables`` of the stages it ``needs``; for a ``labelled``
    stage, the labelled ``collection`` and its ``gains``; ``extra``: for a stage with a folder of
    its own (:attr:`StageInfo.folder`) that is being written, a dict its ``run`` may fill with what
    its :attr:`StageInfo.folder_files` read besides the tables (the incompleteness stage: the keep
    masks of the reduced qrels), else None; ``runs``: the runs in use when no matrices give them
    (a stage on the labelled collection run by its own command; None: the matrices' runs, or every
    run of the collection); ``data``: an own job's data (:class:`CollectionData`, a stage with
    :attr:`StageInfo.data`; else None).  An own job's ``extra`` is a dict its run may fill with
    what its ``folder_files`` and ``shown`` read besides its frames."""

    matrices: dict
    metrics: tuple = ()
    metric: str | None = None
    samples: tuple = ()
    tables: dict | None = None
    collection: Any = None
    gains: Any = None
    extra: dict | None = None
    runs: tuple | None = None
    data: CollectionData | None = None


@dataclass(frozen=True)
class TextFiles:
    """The files of a text output (:class:`Output` of kind ``"text"``, named ``output``: its
    folder) that a stage derives from the tables of a collection: ``files(tables, params)`` gives
    ``{file name: text}`` (or ``(file name, text)`` pairs) -- nothing when its tables are absent;
    ``tables``: every table of the collection, ``params``: the
    :class:`~metaeval.meta.run.MetaConfig`.  ``reads``: the parameters ``files`` reads, which the
    job writing them (the tables job, :meth:`metaeval.dag.Plan.stage_options`) passes.  The
    pipeline writes the files (a stage module writes none), each atomically."""

    output: str
    files: Callable
    reads: tuple = ()


@dataclass(frozen=True)
class JobPlan:
    """What a stage adds to the pipeline's plan of a config: its ``plan(view)`` hook returns one
    (frozen, typed; :meth:`metaeval.dag.Plan.job` gives it back, nothing is attached to the plan).

    ``on``: whether the stage is on for this config -- its output condition's value
    (``plan.conditions[stage.condition]``) for a stage with a condition, else whether its own job
    runs (None: its ``switch`` or ``applies`` decide); ``values``: the canonical values of the
    parameters its job arguments read (``{"sweep_metrics": (...)}``); ``matrices``: the matrices
    the metrics job computes for it; ``reads``: the matrices its job reads besides the config's
    (the inputs of its rule: ``standardisation``, ``test_errors``; those of a method the ``meta``
    job runs are that job's inputs); ``notes``: what the workflow prints about it (skipped for this
    config); ``threads``: the processes of its job; ``collections``: the collections with a job of
    its own (a ``judgments:`` block), ``inputs`` and ``args``: each one's input files and command
    options (``{collection: ...}``; the key ``""`` for a job not per collection); ``data``: its job
    reads the collection's data besides its matrices -- the qrels and run files are its rule's
    inputs and how they are read (the metrics job's options) its parameters, its matrices an
    ``ancient`` input (``bayes``, ``test_errors``); ``labels``: the display labels (``labels:``)
    are its rule's input, passed as ``--labels`` (its Markdown, LaTeX and figures name the runs
    and measures by them); ``params``: an own job's parameter values per collection (``{collection:
    {parameter: value}}``, from a config block no parameter's config key reads as it is: ``ppi:``)
    -- its job's options, spelt after the parameters (:meth:`metaeval.dag.Plan.job_args`), the
    files of its file parameters its rule's inputs (:meth:`metaeval.dag.Plan.job_inputs`)."""

    on: bool | None = None
    values: Mapping[str, tuple] = dataclasses.field(default_factory=dict)
    matrices: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    threads: int = 1
    collections: tuple[str, ...] = ()
    inputs: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    args: Mapping[str, str] = dataclasses.field(default_factory=dict)
    data: bool = False
    labels: bool = False
    params: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)


class PlanView(Protocol):
    """What a stage's ``plan`` hook reads of the pipeline's plan of a config
    (:class:`metaeval.dag.Plan`): the validated config, its collections, canonical measures and
    results folder; it returns a :class:`JobPlan` and changes nothing."""

    config: dict
    collections: list[str]
    metrics: list[str]
    results: str

    def measures(self, names: Any, where: str) -> list[str]: ...

    def canonical(self, name: str, where: str, vocabulary: str | None = None) -> str: ...

    def collection(self, c: str) -> dict: ...

    def switched_on(self, st: StageInfo) -> bool: ...

    def trec_eval_version(self) -> int | None: ...

    def output_files(self, scope: str) -> list[str]: ...

    def job(self, stage: str) -> JobPlan: ...

    def is_on(self, stage: str) -> bool: ...


@dataclass(frozen=True)
class StageInfo:
    """One stage.  For a method (kinds ``matrices``/``labelled``): ``run(inputs, params)`` returns
    ``{table: DataFrame}``; ``tables`` the part files it writes; ``metrics`` the metric list of
    :func:`metaeval.meta.run.stage_metric_lists` it runs over (``None``: a list of its own, which
    ``metric_list(params)`` gives -- the gain sweep's ``sweep_metrics``); ``extra_matrices(params)``:
    the matrices it reads besides its metrics' (the gain sweep's variant matrices), which are no
    metric of the other stages;
    ``per_metric`` whether ``run`` is called once per metric; ``streams`` the bootstrap sample
    streams passed to it; ``needs`` the stages whose tables it reads; ``condition`` the output
    condition (:data:`metaeval.outputs.CONDITIONS`) that switches it on, ``switch`` its key in the
    config (``("incompleteness", "enabled")``), ``switch_doc`` its description and ``switch_default``
    its default (a stage of kind ``other`` with its own job: off unless configured); a conditional
    stage without a switch is on when its ``applies`` holds for the parameters some collection
    configures (``risk``: a baseline named); ``folder`` a
    folder of the collection the stage writes besides its parts (what goes in it: ``folder_files``); ``cost``: rough seconds on DL19,
    to deal the stages of a job into balanced groups; ``params``: its parameters, a frozen
    dataclass of typed fields declared with :func:`parameter` (a method's class is part of
    :class:`~metaeval.meta.run.MetaConfig`; kept as :attr:`params_class`, ``params`` then holds
    its :class:`Param` declarations) or a tuple of :class:`Param`; ``reads``:
    the parameters (its own and common ones) its pipeline job passes, in order; ``options``: a
    builder ``values -> object`` stored as the ``MetaConfig`` field ``NAME`` from the parameters
    declared with ``field=False``; ``title``: a line saying what it does (help, messages);
    ``sections``: ``((config key path, description), ...)`` of the config sections it opens;
    ``schema_rank``: sorts its sections among the stages' (registry order within a rank);
    ``applies(matrices, params)``: False when the stage has nothing to compute for these
    matrices and parameters (``metaeval meta`` then skips it; the gain sweep without its variant
    matrices); ``outputs``: its tables, figures and text folders (:class:`Output`, in every scope:
    per collection, across collections), in the order of the workflow's target lists and
    docs/outputs.md, each figure with its plotter and each summary table with its builder
    (:attr:`Output.draw`, :attr:`Output.build`); ``layouts``: for a stage outside the package,
    ``((table name, layout), ...)``, each ``layout(table) -> metaeval.report.render.Layout`` (a
    table without one gets the generic layout); ``when``: the
    docs' words for when its conditional outputs are written (``gain sweep on``); ``notes(collection, params)``: for a
    stage on the labelled collection, the lines ``metaeval stage NAME`` prints before running it
    (what it will do with this collection; a bad parameter raises here, before anything is
    written); ``plan(view)``: what the stage adds to the pipeline's plan of a config, a
    :class:`JobPlan` from a :class:`PlanView` (called in registry order; its condition, the
    canonical values its job arguments read, the matrices the metrics job computes for it, notes,
    what its workflow rule reads: :meth:`metaeval.dag.Plan.job`); ``targets(plan)``: the
    files of its own job beside the collections' tables and figures (``results/kishida/...``);
    ``caption_notes``: ``((table name, note), ...)``, each ``note(table, matrices, labels) -> str``
    (or a :data:`Reference` to it) a sentence the table's Markdown/LaTeX caption adds for these
    matrices ('' for none: the Kendall table's when two measures are one; an own job's tables:
    ``matrices`` None); ``texts``: the text outputs it derives from the
    tables (:class:`TextFiles`); ``folder_files(inputs, frames, params)``: for a stage with a
    ``folder``, what goes in it, one ``(path relative to the folder, DataFrame or text)`` at a time
    (an iterator: there may be hundreds of files) from the :class:`StageInputs` of its run (the
    ``extra`` its run filled) and the frames it returned; the pipeline writes them (a DataFrame as
    a CSV) and replaces the folder as a whole.  ``scopes``: the scopes of outputs it opens
    (:class:`Scope`: a folder of its own, ``ppi``); ``caption_params``: the parameters its
    captions and figures state (:class:`CaptionParam`: the swap threshold), which the jobs laying
    out tables and drawing figures pass; ``command``: for a job of ``metaeval stage`` that is not
    a method (kind ``file``), the function running it, ``"pkg.module:function"`` called with
    ``(args, parser, progress)`` (:mod:`metaeval.cli._stage_jobs`); ``measure_params``: its
    parameters whose values are measure names, spelt as the matrices they read when a run starts
    (:func:`metaeval.meta.run.with_matrix_names`: the gain sweep's ``sweep_metrics``);
    ``runtime``: the minutes its own job asks of a cluster (its rule's ``resources: runtime``);
    ``data``: an own job run on the collection's data (qrels and runs, :class:`CollectionData`:
    ``inputs.data``) rather than its matrices -- ``metaeval stage NAME --qrels ... --runs ...``,
    ``run_stage(NAME, qrels=..., runs=...)``, its rule passing the collection's (``ppi``,
    ``judgments``); ``shown``: for an own job whose run its matrices do not describe, a
    :data:`Reference` to ``shown(inputs, frames, params, labels) -> Shown``, its outputs' caption
    fields and display labels (:class:`Shown`) from the :class:`StageInputs` of its run (the
    ``extra`` it filled), its frames, parameters and the labels given (a labels file, a mapping
    or None).

    An own job without :attr:`scopes` writes outputs of the collection's scope, those it declares
    (``Output(..., "collection")``): its rule writes ``results/C/tables/``, ``results/C/figures/``,
    their report views and its :attr:`folder` (:func:`metaeval.pipeline.write_own_outputs`).  With
    a scope of its own (``Scope(NAME)``) its files go under ``results/C/NAME/``, its folder there
    too (``results/C/NAME/FOLDER/``, its text output).
    ``run_wide``: an own job whose job is one for the whole run, not one per collection (the
    Kishida (2005) reproduction): its ``run`` reads no matrices (``inputs.matrices`` empty) but
    its parameters -- files among them, file parameters (:attr:`Param.file`: the reproducibility
    stage's qrels, runs and reproductions, typed ``Path``, ``tuple[Path, ...]``,
    ``tuple[NamedFiles, ...]``), whose files are its rule's inputs
    (:meth:`metaeval.dag.Plan.job_inputs`) -- and it writes its scope's files under
    ``results/SCOPE/`` (a scope of its own).
    ``table_texts``: for an own job with a scope of its own, the texts of its tables it renders
    itself, ``table_texts(frames, params) -> {file name under the scope's root: text}``
    (:data:`Reference`; the Kishida tables' Markdown, in the paper's form): the generic writer
    writes those as they are and lays out the other files of its tables."""

    name: str
    kind: str
    run: Callable | None = None
    tables: tuple = ()
    metrics: str | None = "plain"
    per_metric: bool = False
    streams: tuple = ()
    needs: tuple = ()
    condition: str | None = None
    folder: str | None = None
    cost: float = 1.0
    params: Any = ()
    reads: tuple = ()
    options: Callable | None = None
    title: str = ""
    sections: tuple = ()
    switch: tuple | None = None
    switch_doc: str = ""
    switch_default: bool = True
    schema_rank: int = 0
    applies: Callable | None = None
    outputs: tuple = ()
    layouts: tuple = ()
    notes: Callable | None = None
    plan: Callable[[PlanView], JobPlan | None] | None = None
    targets: Callable[[PlanView], list[str]] | None = None
    when: str = ""
    caption_notes: tuple = ()
    texts: tuple = ()
    folder_files: Callable | None = None
    params_class: type | None = None
    scopes: tuple[Scope, ...] = ()
    caption_params: tuple[CaptionParam, ...] = ()
    command: str | None = None
    measure_params: tuple[str, ...] = ()
    metric_list: Callable[[Any], tuple[str, ...]] | None = None
    extra_matrices: Callable[[Any], tuple[str, ...]] | None = None
    runtime: int = 30
    run_wide: bool = False
    table_texts: Reference | None = None
    data: bool = False
    shown: Reference | None = None

    def __post_init__(self):
        if any(isinstance(o, dict) for o in self.outputs):      # keyword dicts of Output: declarations
            object.__setattr__(self, "outputs", tuple(Output(**o) if isinstance(o, dict) else o
                                                      for o in self.outputs))
        if isinstance(self.params, type):
            object.__setattr__(self, "params_class", self.params)
            declared = params_of(self.params)
            if self.options is not None:       # the values of an options builder: no MetaConfig field
                declared = tuple(dataclasses.replace(p, field=False) for p in declared)
            object.__setattr__(self, "params", declared)
        if self.kind not in KINDS:
            raise ValueError(f"stage {self.name}: unknown kind {self.kind!r}; known: {', '.join(KINDS)}")
        if self.kind in ("matrices", "labelled") and self.run is None:
            raise ValueError(f"stage {self.name}: a method has a run function")
        if self.run is not None and self.kind not in ("matrices", "labelled", "other"):
            raise ValueError(f"stage {self.name}: only a method or an own job (kind other) has a run function")
        if self.kind == "other" and self.run is not None and (self.params and self.params_class is None):
            raise ValueError(f"stage {self.name}: an own job declares its parameters as a frozen dataclass")
        if (self.data or self.shown is not None) and not self.own_job:
            raise ValueError(f"stage {self.name}: only an own job (kind other with a run) reads the data (data=) "
                             "or declares how its outputs show its run (shown=)")
        if isinstance(self.shown, str) and not _is_reference(self.shown):
            raise ValueError(f"stage {self.name}: shown={self.shown!r} is no reference 'pkg.module:function'")
        if self.run is not None and self.metrics is None and self.metric_list is None:
            raise ValueError(f"stage {self.name}: metrics=None declares a metric list of its own: give metric_list")
        if self.run_wide and not (self.own_job and self.scopes):
            raise ValueError(f"stage {self.name}: a job for the whole run (run_wide) is an own job with a scope "
                             "of its own (kind other, a run function, scopes=(Scope(NAME),))")
        if self.table_texts is not None and not self.scopes:
            raise ValueError(f"stage {self.name}: table_texts renders the tables of a scope of its own (scopes=)")

    @property
    def is_method(self) -> bool:
        return self.kind in ("matrices", "labelled")

    @property
    def own_job(self) -> bool:
        """True for a stage of kind ``other`` that the package runs itself: ``run(inputs, params)``
        on a collection's matrices (``inputs``: :class:`StageInputs`; ``params``: an instance of its
        parameter class), writing the outputs of its scope (``metaeval stage NAME``,
        ``workflow/rules/own_job.smk`` unless a rule of its own has its name)."""
        return self.kind == "other" and self.run is not None

    @property
    def labelled(self) -> bool:
        """True for a stage that needs the labelled collection and its gains."""
        return self.kind == "labelled"


#: the stages, in order, as the catalogue (:mod:`metaeval.meta.stages`) registers them; the
#: parameters every method shares and their config sections (:func:`register_common`)
_STAGES: list[StageInfo] = []
_COMMON: dict = {"params": (), "sections": (), "selection": (), "scopes": ()}
#: where a stage registered from outside the package goes: after the package's methods
_PLUG_INS_AT: list[int] = []
#: stage modules registered from outside the package (:func:`register_stage_module`, METAEVAL_STAGES)
_EXTRA: list[str] = [m.strip() for m in os.environ.get("METAEVAL_STAGES", "").split(",") if m.strip()]
_CACHE: dict = {}


def register(*infos: StageInfo) -> None:
    """Add stages to the registry, in order (the catalogue :mod:`metaeval.meta.stages` registers
    the package's; a stage from outside the package: :func:`register_stage_module`)."""
    for info in infos:
        if not isinstance(info, StageInfo):
            raise TypeError(f"register: expected a StageInfo, got {info!r}")
        _STAGES.append(info)
    _CACHE.clear()


def register_common(params: tuple, sections: tuple, selection: tuple = (), scopes: tuple = ()) -> None:
    """The parameters every method shares, the config sections they open, those of them the
    runs of ``metaeval stage --runs`` replace, and the scopes of every run (:class:`Scope`:
    a collection's, the summary's)."""
    _COMMON.update(params=tuple(params), sections=tuple(sections), selection=tuple(selection),
                   scopes=tuple(scopes))
    _CACHE.clear()


def plug_ins_here() -> None:
    """Mark the place of the stages registered from outside the package (after the package's
    methods: the order rows appear in a table written by more than one stage)."""
    _PLUG_INS_AT[:] = [len(_STAGES)]
    _CACHE.clear()


def _load(entry: str) -> StageInfo:
    module, _, attr = entry.partition(":")
    try:
        info = getattr(importlib.import_module(module), attr or "STAGE")
    except (ImportError, AttributeError) as e:
        raise ValueError(f"stage module {entry!r} (METAEVAL_STAGES, register_stage_module): {e}") from None
    if not isinstance(info, StageInfo) or not (info.is_method or info.own_job):
        raise ValueError(f"stage module {entry}: STAGE must be a StageInfo of kind matrices or labelled, "
                         "or of kind other with a run function (an own job)")
    if info.params_class is None and any(p.field for p in info.params):
        raise ValueError(f"stage module {entry}: declare the parameters as a frozen dataclass of "
                         "metaeval.stages.parameter(...) fields (StageInfo(params=TheClass))")
    return info


def register_stage_module(entry: str) -> StageInfo:
    """Add the method declared in module ``entry`` of a plug-in (``"pkg.mod"`` or
    ``"pkg.mod:ATTR"``, default attribute ``STAGE``) after the package's methods; returns its
    declaration.  Lists derived at import time (:data:`metaeval.outputs.STAGES`) see it only if
    registered first."""
    info = _load(entry)
    if entry not in _EXTRA:
        _EXTRA.append(entry)
    _CACHE.clear()
    return info


def plug_in_stages() -> tuple:
    """The stages registered from outside the package (:func:`register_stage_module`, METAEVAL_STAGES)."""
    return tuple(_load(e) for e in _EXTRA)


def _registry() -> tuple:
    if "registry" not in _CACHE:
        if not _STAGES:
            raise RuntimeError("no stage registered: the stages are read through their catalogue, "
                               "metaeval.meta.stages")
        at = _PLUG_INS_AT[0] if _PLUG_INS_AT else len(_STAGES)
        out = _STAGES[:at] + [_load(e) for e in _EXTRA] + _STAGES[at:]
        seen = set()
        for s in out:
            if s.name in seen:
                raise ValueError(f"stage {s.name!r} is registered twice")
            seen.add(s.name)
        scopes = {sc.name: sc for sc in _COMMON["scopes"]}
        for s in out:
            for sc in s.scopes:
                if sc.name in scopes:
                    raise ValueError(f"stage {s.name}: scope {sc.name!r} is declared twice")
                scopes[sc.name] = sc
        for s in out:
            for o in s.outputs:
                if o.scope not in scopes:
                    raise ValueError(f"stage {s.name}: output {o.name}: unknown scope {o.scope!r}; "
                                     f"known: {', '.join(scopes)} (a stage opens one with StageInfo.scopes)")
                if o.kind == "figure" and o.draw is None:
                    raise ValueError(f"stage {s.name}: figure {o.name}: no plotter (Output(..., draw=...))")
                if o.kind == "table" and o.scope == "summary" and o.build is None:     # the summary job builds it
                    raise ValueError(f"stage {s.name}: summary table {o.name}: no builder (Output(..., build=...))")
        _CACHE["registry"] = tuple(out)
        _CACHE["by_name"] = {s.name: s for s in out}
        _CACHE["scopes"] = scopes
    return _CACHE["registry"]


def scopes() -> tuple[str, ...]:
    """Every scope's name: a collection's, the summary's, then those the stages open, in registry order."""
    _registry()
    return tuple(_CACHE["scopes"])


def scope(name: str) -> Scope:
    """The declaration of scope ``name`` (:class:`Scope`)."""
    _registry()
    try:
        return _CACHE["scopes"][name]
    except KeyError:
        raise ValueError(f"unknown scope {name!r}; known: {', '.join(_CACHE['scopes'])}") from None


def __getattr__(name):
    if name == "REGISTRY":             # every stage, in order (plug-ins loaded on first use)
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def names() -> tuple[str, ...]:
    """Every stage name, in registry order."""
    return tuple(s.name for s in _registry())


def get(name: str) -> StageInfo:
    _registry()
    try:
        return _CACHE["by_name"][name]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}; known: {', '.join(_CACHE['by_name'])}") from None


def stage_names(*kinds: str) -> tuple[str, ...]:
    """The names of the stages of ``kinds``, in registry order."""
    return tuple(s.name for s in _registry() if s.kind in kinds)


def method_stages(**conditions) -> list[str]:
    """The methods whose tables the ``meta`` job combines, in order; a conditional one only when
    its condition is on (``method_stages(gain_sweep=False, incompleteness=True)``; default on)."""
    return [s.name for s in _registry() if s.is_method
            and (s.condition is None or bool(conditions.get(s.condition, True)))]


def own_job_stages() -> tuple[str, ...]:
    """The stages of kind ``other`` the package runs itself (:attr:`StageInfo.own_job`), in order."""
    return tuple(s.name for s in _registry() if s.own_job)


def file_stages() -> tuple[str, ...]:
    """The ``metaeval stage`` commands that are not a method."""
    return stage_names("file")


def common_params() -> tuple:
    """The parameters every method shares (:func:`register_common`)."""
    return _COMMON["params"]


def common_sections() -> tuple:
    """The config sections of the parameters every method shares."""
    return _COMMON["sections"]


def selection_params() -> tuple:
    """The names of the common parameters that ``metaeval stage --runs`` replaces."""
    return _COMMON["selection"]


def params() -> tuple:
    """Every parameter: the common ones, then each method's in registry order (names unique)."""
    out: list[Any] = []
    seen: dict[Any, Any] = {}
    for owner, ps in [("common", common_params())] + [(s.name, s.params) for s in _registry() if s.is_method]:
        for p in ps:
            if p.name in seen:
                raise ValueError(f"parameter {p.name!r} of stage {owner} is declared by {seen[p.name]} too")
            seen[p.name] = owner
            out.append(p)
    return tuple(out)


def param(name: str) -> Param:
    for p in params():
        if p.name == name:
            return p
    raise ValueError(f"unknown parameter {name!r}")
