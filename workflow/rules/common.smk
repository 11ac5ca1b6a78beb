# Shared configuration handling: schema validation, collection/metric lists, the input functions
# and shell arguments of the rules, target lists. Nothing here runs a job; it only names files.
# Parsing the workflow (once per job on a cluster) imports no pandas, scipy or matplotlib.

import glob as _glob
import json as _json
import os as _os
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

    _coerce(config, _yaml.safe_load(_fh))

# Validate before any job starts: a misspelt key is rejected with the schema's message, and the
# schema's defaults are filled in (see config/README.md).
validate(config, "../schemas/config.schema.yaml")

# `metaeval` through the Python that runs Snakemake (no activated environment needed)
METAEVAL = f"{_shlex.quote(_sys.executable)} -m metaeval"

RES = config["results"].rstrip("/")
SIM_ROOT = config["simulated_root"].rstrip("/")
COLLECTIONS = list(config["collections"])
if not COLLECTIONS:
    raise WorkflowError("config: `collections` is empty - configure at least one collection")

# Metric names contain @ , ( ) : = - so wildcards are constrained and shell arguments quoted.
COLLECTION_RE = "[A-Za-z0-9][A-Za-z0-9_.-]*"


wildcard_constraints:
    collection=COLLECTION_RE,
    metric="[^/]+",


def _canonical(name, where):
    """The registry's canonical spelling of a measure name (clear error before any job runs)."""
    from metaeval.metrics import parse_measure  # importing metaeval.metrics registers the measures

    try:
        return parse_measure(name).name
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


METRICS = _unique(_canonical(m, "metrics") for m in config["metrics"])
SELECT_BY = _canonical(config["select_by"], "select_by")
GEOMETRIC = _unique(_canonical(m, "geometric") for m in config["geometric"])

_gs = config["sweeps"]["gains"]
GAIN_SWEEP = bool(_gs["enabled"]) and bool(_gs["metrics"]) and bool(_gs["variants"])
SWEEP_METRICS = _unique(_canonical(m, "sweeps.gains.metrics") for m in _gs["metrics"]) if GAIN_SWEEP else []
SWEEP_VARIANTS = list(_gs["variants"]) if GAIN_SWEEP else []
SWEEP_NAMES = [_canonical(f"{m}(gains={g})", "sweeps.gains.variants")
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
KISHIDA = bool(config["kishida"]["enabled"])
SUMMARY = bool(config["summary"]["enabled"])

# --------------------------------------------------------------------------- stages (jobs)
# The meta-evaluation methods run per collection, one job each (`metaeval stage NAME`, names of
# metaeval.meta.run.STAGES), each over every metric; the tables rule combines their parts in this
# order. A new method: its stage function in metaeval/meta/run.py, its rule, its name here.
METHOD_STAGES = ["kendall", "paired", "unpaired", "swap", "stability"]
if GAIN_SWEEP:
    METHOD_STAGES += ["gain_sweep"]


def _args(**opts):
    """`--name value...` shell arguments (each value quoted; lists spread; None/empty left out)."""
    out = []
    for k, v in opts.items():
        if v is None or v == []:
            continue
        vals = v if isinstance(v, (list, tuple)) else [v]
        out.append(" ".join([f"--{k.replace('_', '-')}"] + [_quote(x) for x in vals]))
    return " ".join(out)


# the options of each stage: only those it reads, so that changing one method's parameter re-runs
# that method's jobs alone (rerun-triggers: params)
_METRIC_ARGS = dict(metrics=METRICS, geometric=GEOMETRIC)
STAGE_ARGS = {
    "kendall": _args(metrics=METRICS),
    "paired": _args(B=B, alpha=ALPHA, seed=SEED, **_METRIC_ARGS),
    "unpaired": _args(B=B, alpha=ALPHA, seed=SEED, **_METRIC_ARGS),
    "swap": _args(B=B, seed=SEED, swap_threshold=SWAP_THRESHOLD, **_METRIC_ARGS),
    "stability": _args(B=B, seed=SEED, fuzziness=FUZZINESS, **_METRIC_ARGS),
    "gain_sweep": _args(B=B, alpha=ALPHA, seed=SEED, sweep_metrics=SWEEP_METRICS, sweep_gains=SWEEP_VARIANTS),
    "tables": _args(**_METRIC_ARGS, stages=METHOD_STAGES),
}


def stage_args(stage):
    """Params function: the `metaeval stage STAGE` options of a collection's job. Every stage picks
    the runs in use itself (the top `top_runs` by mean `select_by`, as `metaeval meta` does)."""
    def args(w):
        c = cfg(w.collection)
        extra = _args(top_runs=c["top_runs"], select_by=SELECT_BY,
                      default_gains=c["gains"] if stage == "gain_sweep" else None)
        return f"{STAGE_ARGS[stage]} {extra}"

    return args


# --------------------------------------------------------------------------- input functions
def matrices_dir(w):
    return f"{RES}/{w.collection}/matrices"


def matrix_files(names):
    """Input function: the matrices `names` of the wildcard collection."""
    def files(w):
        return [f"{RES}/{w.collection}/matrices/{m}.csv" for m in names]

    return files


def stage_parts(w):
    """The part folders of every method stage of the collection (inputs of the tables rule)."""
    return [f"{RES}/{w.collection}/parts/{s}" for s in METHOD_STAGES]


def parts_dir(w):
    return f"{RES}/{w.collection}/parts"


def tables_dir(w):
    return f"{RES}/{w.collection}/tables"


def figures_dir(w):
    return f"{RES}/{w.collection}/figures"


def collection_qrels(w):
    return qrels_path(w.collection)


def collection_run_files(w):
    return run_files(w.collection)


def runs_args(w):
    return " ".join(f"--runs {_quote(s)}" for s in run_specs(w.collection))


def parse_args(w):
    """How a collection's run files are read (order, depth, highest level)."""
    c = cfg(w.collection)
    return _args(order=c["order"], depth=c["depth"], max_level=c["max_level"])


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
TABLES = ["collection", "kendall", "bootstrap_paired", "bootstrap_unpaired", "swap", "swap_rates",
          "stability", "preferred_rank", "asl", "run_means", "tstar"]
if GAIN_SWEEP:
    TABLES += ["gain_kendall", "gain_bootstrap"]
TABLE_FORMATS = ["csv", "md", "tex"]

# figure stems of metaeval.figures.FIGURES (PNG + PDF each) and the files of metaeval.summary
# (SUMMARY_TABLES, SUMMARY_FIGURES), spelt out so that parsing the workflow (once per job on a
# cluster) does not import matplotlib; tests/test_pipeline_lists.py checks they agree.
FIGURES = ["run_means", "asl_paired", "asl_unpaired", "swap_rates", "mr_pt", "tstar"]
FIGURE_FORMATS = ["png", "pdf"]
SUMMARY_TABLES = ["collection", "sensitivity_paired", "sensitivity_unpaired", "estimated_diff_paired",
                  "estimated_diff_unpaired", "swap_diff_required", "swap_relative",
                  "swap_pct_satisfying", "kendall"]
SUMMARY_FIGURES = ["sensitivity_paired", "sensitivity_unpaired", "swap_pct_satisfying",
                   "asl_paired", "asl_unpaired", "run_means"]


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
    return [f"{RES}/{c}/tables/{t}.{x}" for t in TABLES for x in TABLE_FORMATS]


def figure_files(c):
    return [f"{RES}/{c}/figures/{f}.{x}" for f in FIGURES for x in FIGURE_FORMATS]


def summary_files():
    return ([f"{RES}/summary/{t}.{x}" for t in SUMMARY_TABLES for x in TABLE_FORMATS]
            + [f"{RES}/summary/{f}.{x}" for f in SUMMARY_FIGURES for x in FIGURE_FORMATS])


KISHIDA_FILES = [f"table{i}.{x}" for i in range(1, 6) for x in ("csv", "md")] + ["patterns.csv"]


def kishida_files():
    return [f"{RES}/kishida/{f}" for f in KISHIDA_FILES]


def all_targets():
    out = []
    for c in COLLECTIONS:
        out += table_files(c) + figure_files(c)
    if SUMMARY:
        out += summary_files()
    if KISHIDA:
        out += kishida_files()
    return out


def caption(name):
    """The report caption of a table/figure kind (workflow/report/NAME.rst)."""
    return f"../report/{name}.rst"


# --------------------------------------------------------------------------- report-flagged outputs
def _table_outputs():
    out = []
    for t in TABLES:
        for x in TABLE_FORMATS:
            path = f"{RES}/{{collection}}/tables/{t}.{x}"
            if x == "csv":
                path = report(path, caption=caption(f"table_{t}"), category="{collection}",
                              subcategory="Tables", labels={"collection": "{collection}", "table": t})
            out.append(path)
    return out


def _figure_outputs():
    out = []
    for f in FIGURES:
        for x in FIGURE_FORMATS:
            path = f"{RES}/{{collection}}/figures/{f}.{x}"
            if x == "png":
                path = report(path, caption=caption(f"figure_{f}"), category="{collection}",
                              subcategory="Figures", labels={"collection": "{collection}", "figure": f})
            out.append(path)
    return out


def _summary_outputs():
    out = []
    for t in SUMMARY_TABLES:
        for x in TABLE_FORMATS:
            path = f"{RES}/summary/{t}.{x}"
            if x == "csv":
                path = report(path, caption=caption(f"summary_table_{t}"), category="Summary", subcategory="Tables",
                              labels={"collection": "all", "table": t})
            out.append(path)
    for f in SUMMARY_FIGURES:
        for x in FIGURE_FORMATS:
            path = f"{RES}/summary/{f}.{x}"
            if x == "png":
                path = report(path, caption=caption(f"summary_figure_{f}"), category="Summary",
                              subcategory="Figures", labels={"collection": "all", "figure": f})
            out.append(path)
    return out
