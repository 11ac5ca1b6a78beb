# Shared configuration handling: schema validation, collection/metric lists, the input functions
# and shell arguments of the rules, target lists. Nothing here runs a job; it only names files.
# Parsing the workflow (once per job on a cluster) imports no pandas, scipy or matplotlib.

import glob as _glob
import json as _json
import os as _os
import re as _re
import shlex as _shlex
import sys as _sys

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

SCHEMA_PATH = _os.path.join(workflow.basedir, "workflow", "schemas", "config.schema.yaml")


def _coerce(value, schema):
    """Numbers/booleans/null given as text (nested --config values reach us as strings) turned into
    the type the schema asks for; anything else is left for the validator to judge."""
    if isinstance(value, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for k in list(value):
            sub = props.get(k, extra if isinstance(extra, dict) else None)
            if sub is not None:
                value[k] = _coerce(value[k], sub)
        return value
    if isinstance(value, list):
        items = schema.get("items")
        return [_coerce(v, items) for v in value] if isinstance(items, dict) else value
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


with open(SCHEMA_PATH) as _fh:
    import yaml as _yaml

    # libyaml's loader when PyYAML has it: the workflow is parsed by Snakemake and again by every
    # job on a cluster, and the pure-Python loader takes a tenth of a second on this schema
    _coerce(config, _yaml.load(_fh, Loader=getattr(_yaml, "CSafeLoader", _yaml.SafeLoader)))

# Validate before any job starts: a misspelt key is rejected in one line naming the keys allowed
# there (metaeval.checks.schema_error, instead of Snakemake's schema dump), and the schema's
# defaults are filled in (config/README.md).
from metaeval import runconfig as _runconfig

_GIVEN = _runconfig.leaf_paths(config)      # what the config files (and --config) give
try:
    validate(config, "../schemas/config.schema.yaml")
except WorkflowError:
    from metaeval.checks import schema_error as _schema_error

    with open(SCHEMA_PATH) as _fh:
        _bad = _schema_error(config, _yaml.safe_load(_fh))
    raise WorkflowError(_bad or "config: does not validate against workflow/schemas/config.schema.yaml") from None

# `metaeval` through the Python that runs Snakemake (no activated environment needed)
METAEVAL = f"{_shlex.quote(_sys.executable)} -m metaeval"

RES = config["results"].rstrip("/")

# One results folder, one configuration (metaeval.runconfig): RES/effective-config.yaml records the
# effective config of the last run; other collections into RES are refused, and so is a --report
# of a config that differs in anything (the report would describe another config's files). The
# record is (re)written, and its first lines printed, when a run starts (onstart below).
import copy as _copy

_EFFECTIVE = _copy.deepcopy(dict(config))
_SOURCES = [_os.path.relpath(str(f)) for f in (workflow.overwrite_configfiles or [])] or ["config.yaml"]
_RECORDED = _runconfig.read_record(RES) if workflow.is_main_process else None
if workflow.is_main_process:
    _conflict = _runconfig.collection_conflict(_RECORDED, _EFFECTIVE, RES, _SOURCES)
    if _conflict is None and any(a == "--report" or a.startswith("--report=") for a in _sys.argv):
        _conflict = _runconfig.report_conflict(_RECORDED, _EFFECTIVE, RES)
    if _conflict:
        raise WorkflowError(_conflict)


def _record_effective_config():
    """Write RES/effective-config.yaml and print its first lines (what came from the defaults)."""
    from snakemake.logging import logger

    text = _runconfig.effective_config_text(_EFFECTIVE, _GIVEN, _SOURCES)
    path = _runconfig.write_record(RES, text)
    changed = _runconfig.changed_keys(_RECORDED, _EFFECTIVE)
    head = [ln[2:] if ln.startswith("# ") else ln for ln in text.splitlines()
            if ln.startswith("#   ") or ln.startswith("# From") or ln.startswith("# (")]
    lines = [f"metaeval: effective config ({', '.join(_SOURCES)} + defaults) -> {path}"]
    if changed:
        lines.append(f"  changed since the last run: {', '.join(changed[:8])}"
                     f"{', ...' if len(changed) > 8 else ''} (Snakemake re-runs the jobs they affect)")
    lines += [f"  {ln}" for ln in head]
    logger.info("\n".join(lines))


onstart:
    _record_effective_config()


SIM_ROOT = config["simulated_root"].rstrip("/")
COLLECTIONS = list(config["collections"])
if not COLLECTIONS:
    raise WorkflowError("config: `collections` is empty - configure at least one collection")
# Input errors (empty run directory, gains that do not fit the qrels) are found here, before any job.
# Warnings (more gains than the qrels' levels) are printed as Snakemake warnings.
if workflow.is_main_process:
    import warnings as _warnings

    from metaeval.checks import check_collections
    from snakemake.logging import logger as _logger

    with _warnings.catch_warnings(record=True) as _caught:
        _warnings.simplefilter("always")
        check_collections(config, WorkflowError)
    for _w in _caught:
        _logger.warning(f"config: {_w.message}")

# Metric names contain @ , ( ) : = - so wildcards are constrained and shell arguments quoted.
COLLECTION_RE = "[A-Za-z0-9][A-Za-z0-9_.-]*"


wildcard_constraints:
    collection=COLLECTION_RE,
    metric="[^/]+",


def _vocabulary():
    """The config's `vocabulary` (null: ir_measures when every collection ranks by score)."""
    v = config.get("vocabulary")
    if v is None:
        orders = {c.get("order", "file") for c in config["collections"].values()}
        v = "ir_measures" if orders == {"score"} else "ntcireval"
    return v


VOCABULARY = _vocabulary()


def _canonical(name, where, vocabulary=None):
    """The registry's canonical spelling of a measure name read in the config's vocabulary (clear
    error before any job runs); canonical names are read back in vocabulary ntcireval."""
    from metaeval.metrics import parse_measure  # importing metaeval.metrics registers the measures

    try:
        return parse_measure(name, vocabulary or VOCABULARY).name
    except ValueError as e:
        raise WorkflowError(f"config: {where}: {e}") from None


def _quote(s):
    return _shlex.quote(str(s))


def _unique(seq):
    out = []
    for x in seq:
        if x not in out:
            out.append(x)
    return out


def _unique_config_measures(names, where):
    """Canonical names, each once; two spellings of one measure (Q, Q-measure) -> a warning."""
    from snakemake.logging import logger

    out, spelled = [], {}
    for name in names:
        c = _canonical(name, where)
        if c in spelled:
            logger.warning(f"config: {where}: {name!r} is the same measure as {spelled[c]!r} "
                           f"(canonical name {c}); computed once")
            continue
        spelled[c] = name
        out.append(c)
    return out


METRICS = _unique_config_measures(config["metrics"], "metrics")
SELECT_BY = _canonical(config["select_by"], "select_by")
GEOMETRIC = _unique_config_measures(config["geometric"], "geometric")

_gs = config["sweeps"]["gains"]
GAIN_SWEEP = bool(_gs["enabled"]) and bool(_gs["metrics"]) and bool(_gs["variants"])
SWEEP_METRICS = _unique(_canonical(m, "sweeps.gains.metrics") for m in _gs["metrics"]) if GAIN_SWEEP else []
SWEEP_VARIANTS = list(_gs["variants"]) if GAIN_SWEEP else []
SWEEP_NAMES = [_canonical(f"{m}(gains={g})", "sweeps.gains.variants", "ntcireval")
               for m in SWEEP_METRICS for g in SWEEP_VARIANTS]

# every matrix the metrics rule computes per collection
MATRIX_METRICS = _unique(METRICS + GEOMETRIC + [SELECT_BY] + SWEEP_METRICS + SWEEP_NAMES)
# the matrices the meta-evaluation stages read (AG_X and G_X, for X in `geometric`, read X.csv;
# every stage reads select_by to pick the top runs)
EVAL_MATRICES = _unique(METRICS + GEOMETRIC + [SELECT_BY])


B = config["bootstrap"]["B"]
ALPHA = config["bootstrap"]["alpha"]
SEED = config["bootstrap"]["seed"]
SWAP_THRESHOLD = config["swap"]["threshold"]
FUZZINESS = config["stability"]["fuzziness"]
RBO_P = config["rank_correlation"]["rbo_p"]
# discriminative power (stage discpower): randomised Tukey HSD permutations, topic set size design
RTHSD_B = config["discpower"]["B"]
TSS_BETA = config["discpower"]["tss_beta"]
TSS_MIN_DIFF = config["discpower"]["tss_min_diff"]
TSS_SYSTEMS = config["discpower"]["tss_systems"]
KISHIDA = bool(config["kishida"]["enabled"])
# robustness to incomplete judgments and pool reuse (stage incompleteness, one job per collection)
_inc = config["incompleteness"]
INCOMPLETENESS = bool(_inc["enabled"])
# the stage resamples a collection's judged documents: per-intent (diversity) and equivalence-class
# qrels have no such single list, so a config with such a collection runs without it (said once)
_forms = sorted({c.get("qrels_form") for c in config["collections"].values()} & {"intents", "ec"})
if INCOMPLETENESS and _forms:
    INCOMPLETENESS = False
    print(f"metaeval: note: the incompleteness stage is skipped: it needs plain graded qrels, and this "
          f"config has {'/'.join(_forms)} qrels (set incompleteness: {{enabled: false}} to silence this)",
          file=_sys.stderr)
INCOMPLETENESS_JOBS = int(_inc["jobs"])
SUMMARY = bool(config["summary"]["enabled"])

# --------------------------------------------------------------------------- stages (jobs)
# The meta-evaluation methods run per collection (`metaeval stage NAME...`), each over every
# metric: the stages on the matrices in the collection's meta job (workflow/rules/meta.smk), a stage
# on the labelled collection in its own job (incompleteness.smk); the meta job combines their parts
# in this order. The list is derived from the one stage registry (metaeval.stages): a new method is
# its registry entry and its function (and, on the labelled collection, its rule).
from metaeval import stages as _stages

#: the output conditions (metaeval.outputs.CONDITIONS) of this configuration
CONDITIONS = dict(gain_sweep=GAIN_SWEEP, incompleteness=INCOMPLETENESS)
METHOD_STAGES = _stages.method_stages(**CONDITIONS)
#: the stages run by their own job (their parts read by the meta job)
OWN_JOB_STAGES = [s for s in METHOD_STAGES if _stages.get(s).kind != "matrices"]


def _args(**opts):
    """`--name value...` shell arguments (each value quoted; lists spread; None/empty left out)."""
    out = []
    for k, v in opts.items():
        if v is None or v == []:
            continue
        vals = v if isinstance(v, (list, tuple)) else [v]
        out.append(" ".join([f"--{k.replace('_', '-')}"] + [_quote(x) for x in vals]))
    return " ".join(out)


# The options of each method's job: the parameters its stage module declares it reads
# (metaeval.stages, metaeval.dag.stage_arguments), valued from the config; the measure names in
# their canonical spelling. A collection's methods on the matrices run in one `meta` job, whose
# options are all of theirs: changing one method's parameter re-runs that job (every method on
# the matrices, the tables and figures of the collection; not the matrices), and a stage with
# its own job (incompleteness) only when one of its own parameters changes.
from metaeval import dag as _dag

_METRIC_ARGS = dict(metrics=METRICS, geometric=GEOMETRIC)
_VALUES = dict(_METRIC_ARGS, sweep_metrics=SWEEP_METRICS, sweep_gains=SWEEP_VARIANTS)
STAGE_ARGS = {s: _dag.stage_arguments(s, config, _VALUES) for s in _stages.stage_names("matrices", "labelled")}
STAGE_ARGS["tables"] = _args(**_METRIC_ARGS, stages=METHOD_STAGES, rthsd_B=RTHSD_B)


def stage_args(stage):
    """Params function: the `metaeval stage STAGE` options of a collection's job. Every stage picks
    the runs in use itself (the top `top_runs` by mean `select_by`, as `metaeval meta` does)."""
    def args(w):
        c = cfg(w.collection)
        extra = _args(top_runs=c["top_runs"], select_by=SELECT_BY,
                      default_gains=c["gains"] if stage == "gain_sweep" else None)
        return f"{STAGE_ARGS[stage]} {extra}"

    return args


def group_args(stages):
    """Params function: the options of one job running several method stages of a collection
    (`metaeval stage S1 S2 ...`): every option any of them reads, each once."""
    def args(w):
        seen, out = set(), []
        for s in stages:
            for chunk in _re.split(r" (?=--)", stage_args(s)(w)):
                if chunk.strip() and chunk not in seen:
                    seen.add(chunk)
                    out.append(chunk.strip())
        return " ".join(out)

    return args


def parts_dirs(stages):
    """Output of a job running several method stages: their part folders."""
    return [directory(f"{RES}/{{collection}}/parts/{s}") for s in stages]


# --------------------------------------------------------------------------- input functions
def matrices_dir(w):
    return f"{RES}/{w.collection}/matrices"


def matrix_files(names):
    """Input function: the matrices `names` of the wildcard collection."""
    def files(w):
        return [f"{RES}/{w.collection}/matrices/{m}.csv" for m in names]

    return files


def parts_dir(w):
    return f"{RES}/{w.collection}/parts"


def tables_dir(w):
    return f"{RES}/{w.collection}/tables"


def figures_dir(w):
    return f"{RES}/{w.collection}/figures"


def collection_qrels(w):
    return qrels_path(w.collection)


def collection_run_files(w):
    """Run files, plus the intent probability file of a diversity collection (so that a changed
    file re-triggers the metrics job)."""
    probs = cfg(w.collection).get("intent_probs")
    return run_files(w.collection) + ([probs] if probs else [])


def runs_args(w):
    return " ".join(f"--runs {_quote(s)}" for s in run_specs(w.collection))


def parse_args(w):
    """How a collection's files are read (order, depth, highest level; the qrels form and intent
    probabilities of a diversity or equivalence-class collection)."""
    c = cfg(w.collection)
    form = c.get("qrels_form")
    return _args(order=c["order"], depth=c["depth"], max_level=c["max_level"],
                 qrels_form=None if form in (None, "auto") else form, intent_probs=c.get("intent_probs"))


def gains_arg(w):
    return cfg(w.collection)["gains"]


def simulate_params(w):
    return sim_params_json(w.collection)


def simulate_dir(w):
    return f"{SIM_ROOT}/{w.collection}"


def all_tables(w=None):
    """Every table CSV of every collection (inputs of the summary rule)."""
    return [f"{RES}/{c}/tables/{t}.csv" for c in COLLECTIONS for t in TABLES]


def summary_args(w=None):
    return _args(collection_dirs=[f"{c}={RES}/{c}" for c in COLLECTIONS], alpha=ALPHA)


def log_path(name):
    """`log:` of a per-collection job."""
    return f"{RES}/logs/{{collection}}/{name}.log"


def benchmark_path(name):
    """`benchmark:` of a per-collection job (run time and memory; not an output)."""
    return f"{RES}/benchmarks/{{collection}}/{name}.tsv"

# --------------------------------------------------------------------------- outputs (contract)
# Every table and figure is declared once, in metaeval.outputs (standard library only, so parsing
# the workflow -- once per job on a cluster -- imports neither pandas nor matplotlib).
from metaeval import outputs as _outputs

TABLES = _outputs.names("collection", "table", **CONDITIONS)
TABLE_FORMATS = list(_outputs.TABLE_FORMATS)
FIGURES = _outputs.names("collection", "figure", **CONDITIONS)
FIGURE_FORMATS = list(_outputs.FIGURE_FORMATS)
SUMMARY_TABLES = _outputs.names("summary", "table")
SUMMARY_FIGURES = _outputs.names("summary", "figure")


def cfg(c):
    return config["collections"][c]


def is_simulated(c):
    return "simulate" in cfg(c)


def qrels_path(c):
    return f"{SIM_ROOT}/{c}/qrels.txt" if is_simulated(c) else cfg(c)["qrels"]


def run_specs(c):
    """The --runs arguments: directories or globs, as configured."""
    if is_simulated(c):
        return [f"{SIM_ROOT}/{c}/runs"]
    r = cfg(c)["runs"]
    return [r] if isinstance(r, str) else list(r)


def run_files(c):
    """Input files of the ingest rule (so that changed run files re-trigger it)."""
    if is_simulated(c):
        return [f"{SIM_ROOT}/{c}/runs"]
    files = []
    for spec in run_specs(c):
        if _os.path.isdir(spec):
            files += sorted(_os.path.join(spec, f) for f in _os.listdir(spec)
                            if not f.startswith(".") and _os.path.isfile(_os.path.join(spec, f)))
        else:
            found = sorted(_glob.glob(spec))
            if not found:
                raise WorkflowError(f"config: collections.{c}.runs: {spec!r} matches no file")
            files += found
    return files


def sim_params_json(c):
    return _json.dumps(cfg(c)["simulate"], sort_keys=True)


def top_runs(c):
    k = cfg(c).get("top_runs", 30)
    return "" if k is None else str(k)


def cdir(c):
    return f"{RES}/{c}"


def table_files(c):
    return [f"{RES}/{c}/{f}" for o in _outputs.tables("collection", **CONDITIONS)
            for f in o.files()]


def figure_files(c):
    return [f"{RES}/{c}/{f}" for o in _outputs.figures("collection", **CONDITIONS) for f in o.files()]


def text_files(c):
    """The folders of text outputs (pvalues/: the Discpower files METRIC.rthsd.B)."""
    return [f"{RES}/{c}/{f}" for o in _outputs.outputs("collection", "text", **CONDITIONS) for f in o.files()]


def summary_files():
    return [f"{RES}/summary/{f}" for f in _outputs.files("summary")]


KISHIDA_FILES = _outputs.files("kishida")


def kishida_files():
    return [f"{RES}/kishida/{f}" for f in KISHIDA_FILES]


def all_targets():
    out = []
    for c in COLLECTIONS:
        out += table_files(c) + figure_files(c) + text_files(c)
    if SUMMARY:
        out += summary_files()
    if KISHIDA:
        out += kishida_files()
    return out


# Report captions: generated from the declarations with the configured alpha and swap threshold
# (metaeval.outputs.report_captions), one RST file per output, written (only when changed) under
# .snakemake/ of the working directory; `snakemake --report` reads them.
_CAPTION_DIR = _os.path.abspath(_os.path.join(".snakemake", "metaeval", "report-captions"))
_CAPTIONS = _outputs.report_captions(alpha=ALPHA, swap_threshold=SWAP_THRESHOLD)


def caption(name):
    """The report caption file of an output (``table_NAME``, ``figure_NAME``,
    ``summary_table_NAME``, ``summary_figure_NAME``, ``kishida_NAME``)."""
    import tempfile as _tempfile

    try:
        text = _CAPTIONS[name]
    except KeyError:
        raise WorkflowError(f"no report caption {name!r}: declare the output in metaeval.outputs") from None
    path = _os.path.join(_CAPTION_DIR, f"{name}.rst")
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return path
    except OSError:
        pass
    _os.makedirs(_CAPTION_DIR, exist_ok=True)
    fd, tmp = _tempfile.mkstemp(dir=_CAPTION_DIR, suffix=".tmp")
    with _os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    _os.replace(tmp, path)
    return path


# --------------------------------------------------------------------------- report-flagged outputs
def _table_outputs():
    out = []
    for o in _outputs.tables("collection", **CONDITIONS):
        for x, f in zip(o.formats, o.files()):
            path = f"{RES}/{{collection}}/{f}"
            if x == "csv":
                path = report(path, caption=caption(_outputs.report_caption_name(o)),
                              category="{collection}", subcategory="Tables",
                              labels={"collection": "{collection}", "table": o.name})
            out.append(path)
    return out


def _figure_outputs():
    out = []
    for o in _outputs.figures("collection", **CONDITIONS):
        for x, f in zip(o.formats, o.files()):
            path = f"{RES}/{{collection}}/{f}"
            if x == "png":
                path = report(path, caption=caption(_outputs.report_caption_name(o)),
                              category="{collection}", subcategory="Figures",
                              labels={"collection": "{collection}", "figure": o.name})
            out.append(path)
    return out


def _summary_outputs():
    out = []
    for o in _outputs.outputs("summary"):
        for x, f in zip(o.formats, o.files()):
            path = f"{RES}/summary/{f}"
            if x == ("csv" if o.kind == "table" else "png"):
                path = report(path, caption=caption(_outputs.report_caption_name(o)),
                              category="Summary", subcategory="Tables" if o.kind == "table" else "Figures",
                              labels={"collection": "all", o.kind: o.name})
            out.append(path)
    return out
