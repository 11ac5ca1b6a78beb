"""The pipeline's jobs from its config: what ``workflow/rules/common.smk`` (a thin adapter) asks.

Everything here is derived from the stage declarations (:mod:`metaeval.stages`, one module per
stage): the config schema's stage sections (:func:`schema_sections`, the generated block of
``workflow/schemas/config.schema.yaml``), the command-line arguments of every stage's job
(:func:`stage_arguments`, :func:`job_arguments`).  Standard library only (and PyYAML to write
the schema block), so that parsing the workflow loads no numpy or pandas.

One job per collection runs every method on the matrices (``metaeval stage meta``,
``workflow/rules/meta.smk``) and one per method on the labelled collection (``incompleteness``):
a job's arguments are those of every method it runs, so changing one method's parameter re-runs
the collection's ``meta`` job (all its methods, tables and figures; not the matrices), and only
the incompleteness job when one of its own parameters changes.
"""

from __future__ import annotations

from typing import Any

import re

from .meta import stages as _stages
from .meta.stages import format_args, quote
from .stages import JobPlan

__all__ = ["config_value", "figure_args", "figure_formats", "quote", "unique", "format_args", "stage_arguments", "parameter_arguments",
           "job_arguments", "coerce", "Plan",
           "write_caption",
           "schema_sections", "schema_block", "replace_schema_block", "schema_file", "SCHEMA_BEGIN",
           "SCHEMA_END"]

_MISSING = object()


def config_value(config: dict, path: tuple, default=_MISSING):
    """The value at key ``path`` of a (validated, defaults filled) config."""
    v = config
    for k in path:
        if not isinstance(v, dict) or k not in v:
            if default is _MISSING:
                raise KeyError(".".join(path))
            return default
        v = v[k]
    return v


def _param_words(prm, value, option: str | None = None) -> str:
    """One parameter's option (``option``: that spelling) with the config's value, as a job's
    command line has it: its ``render``'s words, else the value's (a file parameter's mapping as its
    named sets, ``NAME=FILE,...`` words: :meth:`metaeval.stages.Param.from_config`)."""
    option = option or prm.option
    if prm.render is None:
        value = prm.from_config(value)
    if prm.action == "store_true":
        return option if value else ""
    if prm.action == "store_false":
        return "" if value else option
    if value is None or value == [] or value == ():
        return ""
    if prm.render is not None:
        value = prm.render(value)
    vals = value if isinstance(value, (list, tuple)) else [value]
    return " ".join([option] + [quote(x) for x in vals])


def figure_args(figures: dict | None) -> str:
    """``--figure-width W --figure-formats F,..`` of the config's ``figures:`` section (None or a
    key left out: the default, column width, PNG and PDF), for every job that draws."""
    from .report.figure_size import current_settings, parse_width

    width = parse_width((figures or {}).get("width", current_settings().width))
    return f"--figure-width {width:g} --figure-formats {','.join(figure_formats(figures))}"


def figure_formats(figures: dict | None) -> tuple[str, ...]:
    """The figure formats of the config's ``figures:`` section (left out: the default, PNG and PDF)."""
    from .report.figure_size import current_settings, parse_formats

    return parse_formats((figures or {}).get("formats", current_settings().formats))


def stage_arguments(name: str, config: dict, values: dict | None = None, collection: str | None = None) -> str:
    """The options of stage ``name``'s job that come from the config: every parameter the stage
    ``reads``, in that order, valued from its config key, or from ``values`` (the workflow's
    canonical measure names: ``metrics``, ``geometric``, ``sweep_metrics``, ...).  A key path
    through ``("collections", "*", ...)`` is read from ``collection``'s entry (a per-collection
    parameter; missing: the parameter's default).  An own job's parameters (its job: ``metaeval
    stage NAME``) are spelt as that command spells them (:attr:`metaeval.stages.Param.stage_option`)."""
    st = _stages.get(name)
    return parameter_arguments(st.reads, config, values, collection, own=st.params, owner=f"stage {name}",
                               own_spelling=st.own_job)


def parameter_arguments(names, config: dict, values: dict | None = None, collection: str | None = None, *,
                        own: tuple = (), owner: str = "a job", own_spelling: bool = False) -> str:
    """The options of the parameters ``names`` (those ``own`` declares, else the stages' and the
    common ones: :func:`metaeval.stages.param`), in that order, valued as :func:`stage_arguments`
    values them; switches (``store_true``/``store_false``) last.  ``own_spelling``: those of
    ``own`` spelt as ``metaeval stage`` spells an own job's (:attr:`metaeval.stages.Param.stage_option`)."""
    values = values or {}
    words: list[Any] = []
    switches: list[Any] = []
    mine = {p.name: p for p in own}
    for pname in names:
        prm = mine[pname] if pname in mine else _stages.param(pname)
        if pname in values:
            v = values[pname]
        elif prm.config is not None and "*" in prm.config:
            if collection is None:
                raise ValueError(f"{owner} reads {pname!r} per collection: give the collection")
            v = config_value(config, tuple(collection if k == "*" else k for k in prm.config), prm.default)
        elif prm.config is not None:
            v = config_value(config, prm.config)
        else:
            raise ValueError(f"{owner} reads {pname!r}, which has no config key: give its value")
        w = _param_words(prm, v, prm.stage_option if own_spelling and pname in mine else None)
        if w:
            (switches if prm.action in ("store_true", "store_false") else words).append(w)
    return " ".join(words) + "".join(" " + w for w in switches)


def _config_key(name: str) -> tuple:
    """The config key path of parameter ``name``, as its declaration gives it."""
    path = _stages.param(name).config
    if path is None:
        raise ValueError(f"parameter {name!r} has no config key")
    return path


def job_arguments(chunks: list[str]) -> str:
    """The options of one job running several stages: every option any of them reads, each once."""
    seen, out = set(), []
    for text in chunks:
        for chunk in re.split(r" (?=--)", text):
            if chunk.strip() and chunk not in seen:
                seen.add(chunk)
                out.append(chunk.strip())
    return " ".join(out)


# --------------------------------------------------------------------------- the plan of a config
def coerce(value, schema):
    """Numbers/booleans/null given as text (nested ``--config`` values reach Snakemake as strings)
    turned into the type the schema asks for; anything else is left for the validator to judge."""
    if isinstance(value, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for k in list(value):
            sub = props.get(k, extra if isinstance(extra, dict) else None)
            if sub is not None:
                value[k] = coerce(value[k], sub)
        return value
    if isinstance(value, list):
        items = schema.get("items")
        return [coerce(v, items) for v in value] if isinstance(items, dict) else value
    if isinstance(value, str):
        types = schema.get("type", [])
        types = [types] if isinstance(types, str) else types
        text = value.strip()
        if "null" in types and text.lower() in ("null", "none", "~", ""):
            return None
        if "boolean" in types and text.lower() in ("true", "false"):
            return text.lower() == "true"
        if "integer" in types:
            try:
                return int(text)
            except ValueError:
                pass
        if "number" in types:
            try:
                return float(text)
            except ValueError:
                pass
    return value


def unique(seq) -> list:
    """``seq`` without repeats, in order."""
    return list(dict.fromkeys(seq))


class Plan:
    """The jobs of a validated config (defaults filled in): the canonical measure lists, the
    stages and their conditions, each job's arguments and every target file.  A bad measure name
    raises ``ValueError`` (``config: WHERE: ...``); ``warnings`` and ``notes`` collect what the
    workflow prints (two spellings of one measure; a stage skipped for this config)."""

    def __init__(self, config: dict):
        from .metrics import parse_measure        # importing metaeval.metrics registers the measures

        self._parse = parse_measure
        self.config = config
        # `order: null` -> the input's conventions (metaeval.io.conventions, docs/io.md): `score` for
        # TREC input (TREC-form qrels and six-column runs), `file` for NTCIR input and simulated
        # collections; the effective-config record keeps what the config said
        from .io.conventions import config_order

        for cc in config["collections"].values():
            cc["order"] = config_order(cc)
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.results = config["results"].rstrip("/")
        self.sim_root = config["simulated_root"].rstrip("/")
        self.collections = list(config["collections"])
        if not self.collections:
            raise ValueError("config: `collections` is empty - configure at least one collection")
        v = config.get("vocabulary")
        if v is None:
            orders = {c.get("order", "file") for c in config["collections"].values()}
            v = "ir_measures" if orders == {"score"} else "ntcireval"
        self.vocabulary = v
        self.metrics = self.measures(config["metrics"], "metrics")
        self.select_by = self.canonical(config["select_by"], "select_by")
        #: the measure the results tables and figures order the runs by (captions name it):
        #: select_by when it is meta-evaluated, else the first metric
        from .outputs import primary_measure

        self.primary_measure = primary_measure(self.metrics, self.select_by)
        self.geometric = self.measures(config["geometric"], "geometric")
        #: every matrix the metrics job computes per collection (the stages add theirs)
        self.matrix_metrics = unique(self.metrics + self.geometric + [self.select_by])
        #: the matrices the stages read (AG_X and G_X, for X in `geometric`, read X.csv; every stage
        #: reads select_by to pick the top runs)
        self.eval_matrices = unique(self.metrics + self.geometric + [self.select_by])
        #: the parameters' values the config gives as measure names, canonical (the stages add theirs)
        self.values = {"metrics": self.metrics, "geometric": self.geometric}
        #: the output conditions (metaeval.outputs.CONDITIONS) of this configuration
        self.conditions: dict = {}
        #: what each stage's plan hook gives for this config (StageInfo.plan: a JobPlan), by stage
        self.jobs: dict[str, JobPlan] = {}
        for st in _stages.REGISTRY:         # what each stage adds to the plan, in registry order
            if st.plan is None:
                continue
            job = st.plan(self)
            if job is None:     # a hook of the old contract, which set what it adds on the plan itself
                job = JobPlan(on=self.conditions.get(st.condition) if st.condition else None)
            self.jobs[st.name] = job
            self.matrix_metrics = unique(self.matrix_metrics + list(job.matrices))
            self.values.update({k: list(v) for k, v in job.values.items()})
            self.notes += job.notes
            if st.condition and job.on is not None:
                self.conditions[st.condition] = job.on
        for st in _stages.REGISTRY:         # the condition of every other stage, by its config key
            if st.condition and st.condition not in self.conditions:
                if st.switch:
                    on = self.switched_on(st)
                elif st.applies is not None:     # on once some collection's parameters make it apply
                    on = any(st.applies(None, self.configured(st.name, c)) for c in self.collections)
                else:
                    on = True
                self.conditions[st.condition] = on
        self.summary = bool(config["summary"]["enabled"])
        #: the stages of kind "other" switched on that have a job per collection (their outputs are
        #: not the meta job's): standardisation, test_errors
        self.other_jobs = [s.name for s in _stages.REGISTRY if s.kind == "other" and s.condition
                           and self.conditions[s.condition]]
        #: the stages with a job of their own that the package runs (StageInfo.own_job) switched on:
        #: one job per collection of their own (workflow/rules/own_job.smk)
        self.own_jobs = [s for s in _stages.own_job_stages() if self.is_on(s)]
        #: the methods whose tables a collection's meta job combines, in order
        self.method_stages = _stages.method_stages(**self.conditions)
        #: those with a job of their own (on the labelled collection; their parts read by the meta job)
        self.own_job_stages = [s for s in self.method_stages if _stages.get(s).kind != "matrices"]
        #: those the meta job runs
        self.meta_stages = [s for s in self.method_stages if s not in self.own_job_stages]
        #: the matrices the meta job reads: the stages' and those its methods' plans add (the gain
        #: sweep's variants)
        self.meta_matrices = unique(self.eval_matrices + [m for s in _stages.stage_names("matrices")
                                                          for m in self.job(s).reads])
        for c in self.collections:                # every value is checked before any job runs
            for s in _stages.stage_names("matrices", "labelled"):
                self.stage_options(s, c)

    # ---- what the stages' plan hooks gave (StageInfo.plan)
    def job(self, stage: str) -> JobPlan:
        """What stage ``stage`` adds to this plan (its plan hook's :class:`metaeval.stages.JobPlan`;
        an empty one for a stage without a hook)."""
        _stages.get(stage)                    # an unknown name is refused, with the known ones
        return self.jobs.get(stage) or JobPlan()

    def is_on(self, stage: str) -> bool:
        """Whether stage ``stage`` is on for this config: its output condition's value, else what its
        plan says (on without either)."""
        st = _stages.get(stage)
        if st.condition:
            return bool(self.conditions.get(st.condition))
        on = self.job(stage).on
        return True if on is None else bool(on)

    def job_collections(self, stage: str) -> list[str]:
        """The collections with a job of stage ``stage``'s own (``judgments``, ``ppi``)."""
        return list(self.job(stage).collections)

    def job_inputs(self, stage: str, c: str | None = None) -> list[str]:
        """The input files of stage ``stage``'s own job for collection ``c`` (None: its one job):
        those its plan gives (``JobPlan.inputs``), else the files its file parameters name
        (:attr:`metaeval.stages.Param.file`) -- valued by its plan (``JobPlan.params``) or by the
        config (:meth:`own_job_values`: ``reproducibility: {reproductions: {NAME: [B, A]}}``, each
        reproduction's two runs)."""
        job = self.job(stage)
        if (c or "") in job.inputs:
            return list(job.inputs[c or ""])
        st = _stages.get(stage)
        files = [p for p in st.params if p.file]
        if not files:
            return []
        values = self.own_job_values(stage, c)
        return unique([f for p in files for f in p.paths(values.get(p.name))])

    def job_args(self, stage: str, c: str | None = None) -> str:
        """The command options of stage ``stage``'s own job for collection ``c``: those its plan
        gives (``JobPlan.args``), else those of its parameters (spelt as ``metaeval stage`` spells
        an own job's), valued by its plan (``JobPlan.params``) or by the config (:meth:`own_job_args`)."""
        job = self.job(stage)
        args = job.args
        if (c or "") in args:
            return args[c or ""]
        if (c or "") in job.params:
            st = _stages.get(stage)
            values = job.params[c or ""]
            bad = sorted(set(values) - {p.name for p in st.params})
            if bad:
                raise ValueError(f"stage {stage}: its plan values {bad[0]!r}, no parameter of its")
            words = [_param_words(p, values[p.name], p.stage_option if st.own_job else None)
                     for p in st.params if p.name in values]
            return " ".join(w for w in words if w)
        return self.own_job_args(stage, c)

    def own_job_values(self, stage: str, c: str | None = None) -> dict:
        """The values of stage ``stage``'s parameters in its own job for collection ``c``: its plan's
        (``JobPlan.params``), else the config's as its fields hold them (a parameter without a config
        key: its default; a ``tuple[NamedFiles, ...]`` one's mapping ``{NAME: [files]}`` its named
        sets: :meth:`metaeval.stages.Param.from_config`)."""
        job = self.job(stage)
        if (c or "") in job.params:
            return dict(job.params[c or ""])
        out = {}
        for prm in _stages.get(stage).params:
            if prm.config is None or ("*" in prm.config and c is None):
                out[prm.name] = prm.default
            else:
                out[prm.name] = prm.from_config(config_value(
                    self.config, tuple(c if k == "*" else k for k in prm.config), prm.default))
        return out

    def data_args(self, c: str) -> str:
        """The options of an own job on collection ``c``'s data (:attr:`metaeval.stages.StageInfo.data`):
        its qrels and runs and how they are read (``metaeval stage NAME --qrels ... --runs ...``)."""
        cc = self.collection(c)
        return format_args(qrels=self.qrels_path(c), gains=cc.get("gains"), order=cc.get("order"),
                           depth=cc.get("depth"), trec_eval_version=self.trec_eval_version(),
                           runs=self.run_specs(c))

    def job_reads(self, stage: str) -> list[str]:
        """The matrices stage ``stage``'s own job reads (its rule's inputs: ``JobPlan.reads``)."""
        return list(self.job(stage).reads)

    def stage_targets(self, stage: str) -> list[str]:
        """The files of stage ``stage``'s own job beside the collections' tables and figures."""
        st = _stages.get(stage)
        return list(st.targets(self)) if st.targets is not None else []

    def configured(self, stage: str, c: str):
        """Stage ``stage``'s parameters as collection ``c``'s config gives them (a parameter
        without a config key: its default), attributes of a namespace: what its ``applies`` reads."""
        from types import SimpleNamespace

        out = {}
        for prm in _stages.get(stage).params:
            path = tuple(c if k == "*" else k for k in prm.config) if prm.config else None
            out[prm.name] = config_value(self.config, path, prm.default) if path else prm.default
        return SimpleNamespace(**out)

    def switched_on(self, st) -> bool:
        """Whether stage ``st``'s switch (:attr:`metaeval.stages.StageInfo.switch`) is on in the config."""
        return bool(config_value(self.config, st.switch, st.switch_default))

    def config_value(self, path: tuple, default=_MISSING):
        """The config's value at key ``path`` (:func:`config_value`)."""
        return config_value(self.config, path, default)

    def output_files(self, scope: str) -> list[str]:
        """Every declared file of ``scope`` the run writes, relative to its root: a table's, a
        figure's in the configured formats (:meth:`drawn`)."""
        from . import outputs

        return self.drawn(outputs.outputs(scope))

    def drawn(self, outs) -> list[str]:
        """The files of the outputs ``outs`` (:class:`metaeval.outputs.Output`) the run writes,
        relative to their scope's root: every format of a table, a figure's in the configured
        formats (``figures: {formats: [png]}``: its PNG only)."""
        formats = figure_formats(self.config.get("figures"))
        return [f for o in outs for x, f in zip(o.formats, o.files()) if o.kind != "figure" or x in formats]

    def titles(self, stages) -> list[str]:
        """What the stages do, as their modules say (job messages)."""
        return [_stages.get(s).title or s for s in stages]

    # ---- measure names
    def canonical(self, name: str, where: str, vocabulary: str | None = None) -> str:
        """The registry's canonical spelling of a measure name read in the config's vocabulary;
        canonical names are read back in vocabulary ntcireval."""
        try:
            return self._parse(name, vocabulary or self.vocabulary).name
        except ValueError as e:
            raise ValueError(f"config: {where}: {e}") from None

    def measures(self, names, where: str) -> list[str]:
        """Canonical names, each once; two spellings of one measure (Q, Q-measure) -> a warning."""
        out: list[Any] = []
        spelled: dict[Any, Any] = {}
        for name in names:
            c = self.canonical(name, where)
            if c in spelled:
                self.warnings.append(f"config: {where}: {name!r} is the same measure as {spelled[c]!r} "
                                     f"(canonical name {c}); computed once")
                continue
            spelled[c] = name
            out.append(c)
        return out

    # ---- per-collection values
    def collection(self, c: str) -> dict:
        return self.config["collections"][c]

    def is_simulated(self, c: str) -> bool:
        return "simulate" in self.collection(c)

    def qrels_path(self, c: str) -> str:
        return f"{self.sim_root}/{c}/qrels.txt" if self.is_simulated(c) else self.collection(c)["qrels"]

    def run_specs(self, c: str) -> list[str]:
        """The --runs arguments: directories or globs, as configured."""
        if self.is_simulated(c):
            return [f"{self.sim_root}/{c}/runs"]
        r = self.collection(c)["runs"]
        return [r] if isinstance(r, str) else list(r)

    def run_files(self, c: str) -> list[str]:
        """Input files of the metrics job (so that changed run files re-trigger it)."""
        import glob
        import os

        if self.is_simulated(c):
            return [f"{self.sim_root}/{c}/runs"]
        files = []
        for spec in self.run_specs(c):
            if os.path.isdir(spec):
                files += sorted(os.path.join(spec, f) for f in os.listdir(spec)
                                if not f.startswith(".") and os.path.isfile(os.path.join(spec, f)))
            else:
                found = sorted(glob.glob(spec))
                if not found:
                    raise ValueError(f"config: collections.{c}.runs: {spec!r} matches no file")
                files += found
        return files

    def simulate_params(self, c: str) -> str:
        import json

        return json.dumps(self.collection(c)["simulate"], sort_keys=True)

    def trec_eval_version(self) -> int | None:
        """``trec_eval_version`` of the config when it is not the commands' default (10): the runs
        ranked by score as trec_eval 9.0.x ranks them (single precision)."""
        v = self.config.get("trec_eval_version", 10)
        return None if v in (None, 10) else int(v)

    def parse_args(self, c: str) -> str:
        """How a collection's files are read (order, depth, highest level; the qrels form and
        intent probabilities of a diversity or equivalence-class collection)."""
        cc = self.collection(c)
        form = cc.get("qrels_form")
        return format_args(order=cc["order"], depth=cc["depth"], max_level=cc["max_level"],
                           qrels_form=None if form in (None, "auto") else form,
                           intent_probs=cc.get("intent_probs"),
                           std_runs=cc.get("std_runs"), std_factors=cc.get("std_factors"),
                           trec_eval_version=self.trec_eval_version()) + (
            " --leave-one-out" if cc.get("std_leave_one_out") else "")     # std= measures

    def stage_args(self, stage: str, c: str) -> str:
        """The ``metaeval stage STAGE`` options of collection ``c``'s job. Every stage picks the
        runs in use itself (the top ``top_runs`` by mean ``select_by``, as ``metaeval meta`` does)."""
        cc = self.collection(c)
        extra = format_args(top_runs=cc["top_runs"], select_by=self.select_by)
        return f"{self.stage_options(stage, c)} {extra}"

    def stage_options(self, stage: str, c: str) -> str:
        """Stage ``stage``'s options from the config (those of the parameters it reads) for
        collection ``c``; ``tables`` (computed by the meta job): the metrics, the stages combined and
        the parameters of the text files the stages derive from the tables
        (:attr:`metaeval.stages.TextFiles.reads`) -- the parameters of their layout are the writers
        job's (:meth:`writers_args`)."""
        if stage == "tables":
            texts = unique(p for s in self.method_stages for t in _stages.get(s).texts for p in t.reads)
            return " ".join(x for x in (
                format_args(metrics=self.metrics, geometric=self.geometric, stages=self.method_stages),
                parameter_arguments(texts, self.config, self.values, c, owner="the tables job")) if x)
        return stage_arguments(stage, self.config, self.values, collection=c)

    def writers_args(self, c: str) -> str:
        """The options of collection ``c``'s writers job (``metaeval stage tables --views``), which lays
        out the meta job's tables and draws their figures: the parameters the ``tables`` stage reads
        (but the labels file: the job's input, see :meth:`labels_inputs`), the primary measure, alpha
        and the swap threshold of the captions (with the collection's name, B and the randomised
        Tukey HSD permutations they state), and the tables (:meth:`report_view_names`)."""
        own = stage_arguments("tables", self.config, dict(self.values, labels=None), collection=c)
        return " ".join(x for x in (format_args(select_by=self.select_by, collection_name=c,
                                                B=self.config_value(_config_key("B")),
                                                rthsd_B=self.config_value(_config_key("rthsd_B")),
                                                **self.caption_values()), own,
                                    format_args(views=self.report_view_names())) if x)

    @property
    def reproduction(self) -> bool:
        """Every collection reproduces the papers whose tables the outputs lay out (`reproduction:`):
        the cross-collection captions and the report's say "Regenerates", else "After"."""
        return all(bool(cc.get("reproduction", False)) for cc in self.config["collections"].values())

    def caption_values(self) -> dict:
        """The configured values of the parameters captions and figures state
        (:data:`metaeval.outputs.CAPTION_PARAMS`, declared by the stages: alpha, the swap threshold)."""
        from .outputs import CAPTION_PARAMS

        return {p: self.config_value(_config_key(p)) for p in CAPTION_PARAMS}

    def labels_inputs(self) -> list[str]:
        """``labels:`` as the writers job's input (a changed mapping or file re-runs that job alone)."""
        f = self.labels_file()
        return [] if f is None else [f]

    def labels_file(self) -> str | None:
        """``labels:`` as a file for ``metaeval stage --labels``: the file given, or a mapping
        written as ``NAME LABEL`` lines under ``.snakemake/metaeval/labels/`` of the working
        directory (its content in the path: a changed mapping is a changed parameter); None: the
        default labels."""
        import hashlib
        import os

        lab = self.config.get("labels")
        if lab is None or isinstance(lab, str):
            return lab
        text = "".join(f"{k} {v}\n" for k, v in lab.items())
        d = os.path.abspath(os.path.join(".snakemake", "metaeval", "labels"))
        return _write_if_changed(os.path.join(d, hashlib.blake2b(text.encode(), digest_size=8).hexdigest() + ".txt"),
                                 text)

    # ---- the jobs of stages with their own command (kind "other")
    def own_job_args(self, stage: str, c: str | None) -> str:
        """The options of stage ``stage``'s own job for collection ``c`` (standardisation,
        test_errors), from its declared parameters."""
        return stage_arguments(stage, self.config, self.values, collection=c)

    # ---- report views (metaeval.report.views): what the HTML report embeds of each table
    def report_view_names(self, stage: str | None = None) -> list[str]:
        """The tables whose report views a job writes: the meta job's (``stage`` None: every table
        but those of the stages with their own job), or those of stage ``stage``'s own job."""
        from . import outputs

        own = set(self.other_jobs)
        return [o.name for o in outputs.tables("collection", **self.conditions)
                if (stage in o.stages if stage else not own & set(o.stages))]

    def report_views_args(self, c: str, stage: str | None = None) -> str:
        """The arguments of ``python -m metaeval.report.views`` for collection ``c``'s tables."""
        mb = float(self.config.get("report_max_table_mb", 0.25))
        names = " ".join(quote(n) for n in self.report_view_names(stage))
        return (f"{quote(f'{self.results}/{c}/tables')} {quote(f'{self.results}/{c}/report')} "
                f"--max-mb {mb:g} {names}")

    def group_args(self, stages, c: str) -> str:
        """The options of one job running several stages of collection ``c``: every option any of
        them reads, each once."""
        return job_arguments([self.stage_args(s, c) for s in stages])

    # ---- targets (metaeval.outputs)
    def table_files(self, c: str) -> list[str]:
        from . import outputs

        return [f"{self.results}/{c}/{f}" for o in outputs.tables("collection", **self.conditions) for f in o.files()]

    def figure_files(self, c: str) -> list[str]:
        from . import outputs

        return [f"{self.results}/{c}/{f}" for f in self.drawn(outputs.figures("collection", **self.conditions))]

    def text_files(self, c: str) -> list[str]:
        """The folders of text outputs (pvalues/: the Discpower files METRIC.rthsd.B)."""
        from . import outputs

        return [f"{self.results}/{c}/{f}" for o in outputs.outputs("collection", "text", **self.conditions)
                for f in o.files()]

    def text_folders(self) -> list[str]:
        """The folders of the text outputs the stages derive from a collection's tables
        (:attr:`metaeval.stages.StageInfo.texts`, written by the meta job: ``pvalues``)."""
        from . import outputs

        mine = {t.output for s in self.method_stages for t in _stages.get(s).texts}
        return [f for o in outputs.outputs("collection", "text", **self.conditions) if o.name in mine
                for f in o.files()]

    def run_wide_files(self, stage: str) -> list[str]:
        """The files of own job ``stage`` when its job is one for the run (:attr:`metaeval.stages.StageInfo.run_wide`):
        its scopes' declared files under ``results/SCOPE/``, its figures in the configured formats."""
        return [f"{self.results}/{sc.name}/{f}" for sc in _stages.get(stage).scopes for f in self.output_files(sc.name)]

    def summary_files(self) -> list[str]:
        from . import outputs

        return [f"{self.results}/summary/{f}" for f in self.drawn(outputs.outputs("summary"))]

    def targets(self) -> list[str]:
        """Every file of the default target."""
        out = []
        for c in self.collections:
            out += self.table_files(c) + self.figure_files(c) + self.text_files(c)
        if self.summary:
            out += self.summary_files()
        for st in _stages.REGISTRY:         # the files of the stages with a job of their own
            if st.targets is not None:
                out += st.targets(self)
            elif st.name in self.own_jobs and st.run_wide:     # its scope's files, the run's: results/SCOPE/
                out += self.run_wide_files(st.name)
            elif st.name in self.own_jobs:  # its scope's files, per collection (its plan's, else every one)
                out += [f"{self.results}/{c}/{sc.name}/{f}" for c in (self.job_collections(st.name) or self.collections)
                        for sc in st.scopes for f in self.output_files(sc.name)]
        return out


def _write_if_changed(path: str, text: str) -> str:
    """Write ``text`` to ``path`` atomically unless it holds it already; returns ``path``."""
    import os
    import tempfile

    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return path
    except OSError:
        pass
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path


def write_caption(directory, name: str, text: str) -> str:
    """The report caption file ``DIR/NAME.rst`` holding ``text`` (written only when it changed)."""
    import os

    return _write_if_changed(os.path.join(directory, f"{name}.rst"), text)


# --------------------------------------------------------------------------- the config schema
SCHEMA_BEGIN = "  # BEGIN stage parameters: generated from metaeval.stages by `python -m metaeval.dag schema`"
SCHEMA_END = "  # END stage parameters"


def _prop(prm) -> dict:
    out = {"description": prm.doc or prm.help}
    out.update(prm.schema or {})
    out["default"] = prm.schema_default
    return out


def _section(root: dict, path: tuple, docs: dict) -> dict:
    node = root
    for i, k in enumerate(path):
        props = node.setdefault("properties", {})
        if k not in props:
            doc = docs.get(path[:i + 1])
            props[k] = {"description": doc, "type": "object", "additionalProperties": False,
                        "default": {}, "properties": {}}
        node = props[k]
    return node


def schema_sections() -> dict:
    """The config sections of the stages' parameters (``{key: JSON schema}``, in the order of the
    stages' ``schema_rank``, then the registry): each parameter with a ``config`` key and a
    ``schema``, each stage's ``switch`` first in its section."""
    owners = [(0, -1, _stages.common_sections(), None, _stages.common_params())]
    methods = [s for s in _stages.REGISTRY if s.is_method or (s.kind == "other" and s.sections)]
    owners += [(s.schema_rank, i, s.sections, s, s.params) for i, s in enumerate(methods)]
    docs = {path: doc for _, _, secs, _, _ in owners for path, doc in secs}
    root: dict = {}
    for _, _, _, s, ps in sorted(owners, key=lambda o: (o[0], o[1])):
        if s is not None and s.switch is not None:
            node = _section(root, s.switch[:-1], docs)
            node["properties"][s.switch[-1]] = {"description": s.switch_doc, "type": "boolean",
                                                "default": s.switch_default}
        for prm in ps:
            if prm.config is not None and prm.schema is not None and "*" not in prm.config:
                node = _section(root, prm.config[:-1], docs)
                node["properties"][prm.config[-1]] = _prop(prm)
    return root.get("properties", {})


def schema_block() -> str:
    """The generated block of ``workflow/schemas/config.schema.yaml``: :func:`schema_sections` as
    YAML under ``properties:``, between :data:`SCHEMA_BEGIN` and :data:`SCHEMA_END`."""
    import yaml

    body = yaml.safe_dump(schema_sections(), default_flow_style=False, sort_keys=False, width=100,
                          allow_unicode=True)
    lines = [SCHEMA_BEGIN] + ["  " + ln if ln else ln for ln in body.splitlines()] + [SCHEMA_END]
    return "\n".join(lines) + "\n"


def replace_schema_block(text: str) -> str:
    """``text`` (the schema file) with its generated block replaced by :func:`schema_block`."""
    head, sep, rest = text.partition(SCHEMA_BEGIN + "\n")
    if not sep or SCHEMA_END not in rest:
        raise ValueError("the schema has no generated block (lines SCHEMA_BEGIN ... SCHEMA_END)")
    tail = rest[rest.index(SCHEMA_END + "\n") + len(SCHEMA_END) + 1:]
    return head + schema_block() + tail


def schema_file(path, cache_dir) -> str:
    """The schema file to validate a config with: ``path`` when its generated block is that of
    the registered stages, else a copy with the block regenerated (a stage registered from outside
    the package, :func:`metaeval.stages.register_stage_module`), written under ``cache_dir``."""
    import os

    import yaml

    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    props = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)).get("properties", {})
    if all(props.get(k) == v for k, v in schema_sections().items()):     # no YAML written: fast
        return str(path)
    return _write_if_changed(os.path.join(cache_dir, "config.schema.yaml"), replace_schema_block(text))


def main(argv=None) -> int:
    """``python -m metaeval.dag schema [FILE]``: rewrite the generated block of the schema file."""
    import sys
    from pathlib import Path

    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] != "schema":
        print("usage: python -m metaeval.dag schema [workflow/schemas/config.schema.yaml]", file=sys.stderr)
        return 2
    path = Path(argv[1] if len(argv) > 1 else "workflow/schemas/config.schema.yaml")
    path.write_text(replace_schema_block(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
