# The adapter between Snakemake and metaeval.dag: the config validated against the schema, the
# effective config recorded, then metaeval.dag.Plan (tested Python) gives the measure lists, the
# stages, each job's arguments and the target files; the names below are what the rules use.
# Nothing here runs a job; it only names files. Parsing the workflow (once per job on a cluster)
# imports no pandas, scipy or matplotlib.

import os as _os
import sys as _sys

from snakemake.exceptions import WorkflowError

# The schema's stage sections are derived from the stage declarations (metaeval.dag): the file's
# generated block holds the package's; a stage registered from outside (METAEVAL_STAGES) gets a
# regenerated copy under .snakemake/metaeval/.
from metaeval import dag as _dag

SCHEMA_PATH = _dag.schema_file(_os.path.join(workflow.basedir, "workflow", "schemas", "config.schema.yaml"),
                               _os.path.abspath(_os.path.join(".snakemake", "metaeval")))


with open(SCHEMA_PATH) as _fh:
    import yaml as _yaml

    # libyaml's loader when PyYAML has it: the workflow is parsed by Snakemake and again by every
    # job on a cluster, and the pure-Python loader takes a tenth of a second on this schema;
    # numbers, booleans and null given as text (nested --config values reach us as strings) are
    # typed as the schema says
    _SCHEMA = _yaml.load(_fh, Loader=getattr(_yaml, "CSafeLoader", _yaml.SafeLoader))
    _dag.coerce(config, _SCHEMA)

# Validate before any job starts: a misspelt key is rejected in one line naming the keys allowed
# there (metaeval.checks.schema_error, instead of Snakemake's schema dump), and the schema's
# defaults are filled in (config/README.md).
from metaeval import runconfig as _runconfig

for _cf in workflow.overwrite_configfiles or ["config.yaml"]:      # a key given twice: refused, not the last kept
    if _runconfig.duplicate_key(str(_cf)):
        raise WorkflowError(_runconfig.duplicate_key(str(_cf)))
_GIVEN = _runconfig.leaf_paths(config)      # what the config files (and --config) give
from metaeval.checks import validate_config as _validate_config

_bad = _validate_config(config, _SCHEMA)    # the schema read above, its defaults filled in
if _bad:
    raise WorkflowError(_bad)

# `metaeval` through the Python that runs Snakemake (no activated environment needed); under
# `--sdm conda` through the Python of the rules' environment, workflow/envs/metaeval.yaml
CONDA_ENV = "../envs/metaeval.yaml"
_CONDA = "conda" in {str(getattr(m, "value", m)).lower() for m in workflow.deployment_settings.deployment_method}
METAEVAL = "python -m metaeval" if _CONDA else f"{_dag.quote(_sys.executable)} -m metaeval"

RES = config["results"].rstrip("/")
if _runconfig.results_problem(RES):
    raise WorkflowError(_runconfig.results_problem(RES))

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


# (Snakemake keeps one onstart handler: this one.) On the SLURM executor, a cluster that keeps no
# accounting is asked for its job states with squeue, not sacct (which would never answer), said in
# one line (metaeval.dagrun; `python -m metaeval.dagrun --profile workflow/profiles/slurm` passes
# the option itself).
onstart:
    from metaeval.dagrun import use_squeue_without_accounting

    _record_effective_config()
    use_squeue_without_accounting(workflow)


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

# The jobs of this config (metaeval.dag.Plan): measure names canonicalised (a bad one is refused
# here; two spellings of one measure are computed once, with a warning), the stages and their
# conditions, each job's arguments, the targets.
try:
    PLAN = _dag.Plan(config)
except ValueError as _e:
    raise WorkflowError(str(_e)) from None
for _w in PLAN.warnings:
    from snakemake.logging import logger as _logger

    _logger.warning(_w)
for _n in PLAN.notes:
    print(f"metaeval: note: {_n}", file=_sys.stderr)

SIM_ROOT = PLAN.sim_root
COLLECTIONS = PLAN.collections
METRICS, SELECT_BY, GEOMETRIC = PLAN.metrics, PLAN.select_by, PLAN.geometric
MATRIX_METRICS, EVAL_MATRICES = PLAN.matrix_metrics, PLAN.eval_matrices
#: the matrices the collection's meta job reads (EVAL_MATRICES and those its stages' plans add)
META_MATRICES = PLAN.meta_matrices
#: the output conditions (metaeval.outputs.CONDITIONS) of this configuration
CONDITIONS = PLAN.conditions
# The methods run per collection: those on the matrices in the collection's one `meta` job
# (workflow/rules/meta.smk), a stage on the labelled collection in its own job (incompleteness.smk).
# A job's arguments are those of every method it runs (each stage module declares the parameters
# it reads): changing one method's parameter re-runs the collection's meta job -- every method on
# the matrices, the tables and figures, not the matrices -- and a stage with its own job only
# when one of its own parameters changes.
METHOD_STAGES = PLAN.method_stages
OWN_JOB_STAGES = PLAN.own_job_stages
META_STAGES = PLAN.meta_stages
ALPHA = config["bootstrap"]["alpha"]
#: the configured values of the parameters captions and figures state (the stages declare them:
#: metaeval.stages.StageInfo.caption_params; alpha, swap_threshold)
CAPTION_VALUES = PLAN.caption_values()
# figures: {width, formats}: the options of every job that draws (docs/outputs.md, Figures for print);
# a job's params, so a changed width or format list re-runs exactly the jobs that draw
FIGURE_ARGS = _dag.figure_args(config.get("figures"))
FIGURE_FORMATS = FIGURE_ARGS.rsplit(" ", 1)[-1].split(",")


def _drawn(o, fmt):
    """Whether the file of format `fmt` of output `o` is written: a table's always, a figure's in
    the configured formats."""
    return o.kind != "figure" or fmt in FIGURE_FORMATS
_quote, _unique = _dag.quote, _dag.unique

# Metric names contain @ , ( ) : = - so wildcards are constrained and shell arguments quoted.
COLLECTION_RE = "[A-Za-z0-9][A-Za-z0-9_.-]*"


wildcard_constraints:
    collection=COLLECTION_RE,
    metric="[^/]+",


# --------------------------------------------------------------------------- params functions
def stage_args(stage):
    """Params function: the `metaeval stage STAGE` options of a collection's job."""
    return lambda w: PLAN.stage_args(stage, w.collection)


def group_args(stages):
    """Params function: the options of one job running several stages of a collection."""
    return lambda w: PLAN.group_args(stages, w.collection)


# What a stage's own job reads, as its plan hook gives it (metaeval.stages.JobPlan, through
# metaeval.dag.Plan: typed, nothing attached to the plan).
def job_args(stage):
    """Params function: the command options of stage `stage`'s own job for a collection."""
    return lambda w: PLAN.job_args(stage, w.collection)


def job_inputs(stage):
    """Input function: the files stage `stage`'s own job reads for a collection (its plan's inputs)."""
    return lambda w: PLAN.job_inputs(stage, w.collection)


def job_threads(stage):
    """The processes of stage `stage`'s job (its plan's threads)."""
    return PLAN.job(stage).threads


def job_matrices(stage):
    """The matrix names stage `stage`'s own job reads (its plan's reads)."""
    return PLAN.job_reads(stage)


# --------------------------------------------------------------------------- input functions
def matrices_dir(w):
    return f"{RES}/{w.collection}/matrices"


def matrix_files(names):
    """Input function: the matrices `names` of the wildcard collection."""
    return lambda w: [f"{RES}/{w.collection}/matrices/{m}.csv" for m in names]


def parts_dir(w):
    return f"{RES}/{w.collection}/parts"


def tables_dir(w):
    return f"{RES}/{w.collection}/tables"


def figures_dir(w):
    return f"{RES}/{w.collection}/figures"


def collection_qrels(w):
    return PLAN.qrels_path(w.collection)


def collection_run_files(w):
    """Run files, plus the intent probability file of a diversity collection (so that a changed
    file re-triggers the metrics job)."""
    try:
        files = PLAN.run_files(w.collection)
    except ValueError as e:
        raise WorkflowError(str(e)) from None
    probs = PLAN.collection(w.collection).get("intent_probs")
    return files + ([probs] if probs else [])


def runs_args(w):
    return " ".join(f"--runs {_quote(s)}" for s in PLAN.run_specs(w.collection))


def parse_args(w):
    return PLAN.parse_args(w.collection)


def gains_arg(w):
    return PLAN.collection(w.collection)["gains"]


def simulate_params(w):
    return PLAN.simulate_params(w.collection)


def simulate_dir(w):
    return f"{SIM_ROOT}/{w.collection}"


def all_tables(w=None):
    """The table CSVs of every collection that the summary reads (the inputs of the summary rule;
    metaeval.outputs.SUMMARY_SOURCES)."""
    return [f"{RES}/{c}/tables/{t}.csv" for c in COLLECTIONS for t in TABLES if t in _outputs.SUMMARY_SOURCES]


def own_matrix_inputs(names):
    """Input function of a job with a measure list of its own (test_errors): its matrices, as
    `ancient` -- the metrics job rewrites every matrix when a metric is added to `metrics:`, and a
    matrix changes only with the data and how they are read, which are this job's inputs
    (collection_data) and parameters (data_params) too."""
    return lambda w: [ancient(f) for f in matrix_files(names)(w)]


def collection_data(w):
    """The qrels and run files of a collection (a changed file re-runs the job)."""
    return [collection_qrels(w)] + collection_run_files(w)


def data_params(w):
    """How a collection's matrices are computed (the metrics job's reading options and gains)."""
    return f"{parse_args(w)} --gains {gains_arg(w)} {runs_args(w)}"


def data_args(w):
    """The options of an own job on a collection's data (StageInfo.data): its qrels and runs and how
    they are read (metaeval.dag.Plan.data_args)."""
    return PLAN.data_args(w.collection)


def summary_args(w=None):
    return _dag.format_args(collection_dirs=[f"{c}={RES}/{c}" for c in COLLECTIONS], alpha=ALPHA,
                            select_by=PLAN.primary_measure) + (" --reproduction" if PLAN.reproduction else "")


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


def all_targets():
    return PLAN.targets()


# Report captions: generated from the declarations with the configured alpha and swap threshold
# (metaeval.outputs.report_captions), one RST file per output, written (only when changed) under
# .snakemake/ of the working directory; `snakemake --report` reads them.
_CAPTION_DIR = _os.path.abspath(_os.path.join(".snakemake", "metaeval", "report-captions"))
_CAPTIONS = _outputs.report_captions(context=_outputs.caption_context(
    measure=PLAN.primary_measure, B=config["bootstrap"]["B"], permutations=config["discpower"]["B"],
    reproduction=PLAN.reproduction), **CAPTION_VALUES)


# The report's front page: what this configuration computed (metaeval.frontpage) and the
# effective config, written under .snakemake/ as the captions are (workflow/rules/report.smk).
def front_page_file():
    from metaeval.frontpage import front_page

    text = front_page(_EFFECTIVE, PLAN, _runconfig.effective_config_text(_EFFECTIVE, _GIVEN, _SOURCES))
    return _dag.write_caption(_CAPTION_DIR, "front-page", text)


def caption(name):
    """The report caption file of an output (``table_NAME``, ``figure_NAME``,
    ``summary_table_NAME``, ``summary_figure_NAME``, ``kishida_NAME``)."""
    if name not in _CAPTIONS:
        raise WorkflowError(f"no report caption {name!r}: declare the output in metaeval.outputs")
    return _dag.write_caption(_CAPTION_DIR, name, _CAPTIONS[name])


# --------------------------------------------------------------------------- report-flagged outputs
# A stage with a job of its own (PLAN.other_jobs: standardisation, test_errors) writes its declared
# tables and figures; the meta job all the others.
def _own(o, stages):
    """Whether output o is written by the job of `stages` (None: the meta job)."""
    return bool(set(stages) & set(o.stages)) if stages else not set(PLAN.other_jobs) & set(o.stages)


def _table_outputs(stages=None, formats=None):
    """The table files of the job of `stages` (None: the meta job), those of `formats` only if given."""
    return [f"{RES}/{{collection}}/{f}" for o in _outputs.tables("collection", **CONDITIONS) if _own(o, stages)
            for x, f in zip(o.formats, o.files()) if formats is None or x in formats]


# The report embeds each table's report view, C/report/NAME.html (metaeval.report.views), shown inline: the table
# when at most report_max_table_mb, else its first rows; the whole table stays C/tables/NAME.csv.
def _report_view_outputs(stage=None):
    return [report(f"{RES}/{{collection}}/report/{o.name}.html", caption=caption(_outputs.report_caption_name(o)),
                   category="{collection}", subcategory="Tables",
                   labels={"collection": "{collection}", "table": o.name})
            for o in _outputs.tables("collection", **CONDITIONS) if o.name in PLAN.report_view_names(stage)]


def report_views_command(stage=None):
    """Params function: the command writing the report views of a job's tables (appended to its shell)."""
    return lambda w: f"{METAEVAL}.report.views {PLAN.report_views_args(w.collection, stage)}"


def meta_text_folder():
    """The folder of the text output the meta job writes (`--texts`): the one the output contract
    declares (kind text, per collection: the Discpower files METRIC.rthsd.B)."""
    folders = PLAN.text_folders()
    if len(folders) != 1:
        raise WorkflowError(f"the meta job writes one text folder (--texts); the stages declare {len(folders)}: "
                            f"{', '.join(folders)}")
    return directory(f"{RES}/{{collection}}/{folders[0]}")


def _figure_outputs(stages=None):
    out = []
    for o in _outputs.figures("collection", **CONDITIONS):
        if not _own(o, stages):
            continue
        for x, f in zip(o.formats, o.files()):
            if not _drawn(o, x):
                continue
            path = f"{RES}/{{collection}}/{f}"
            if x == "png":
                path = report(path, caption=caption(_outputs.report_caption_name(o)),
                              category="{collection}", subcategory="Figures",
                              labels={"collection": "{collection}", "figure": o.name})
            out.append(path)
    return out


def folder_outputs(scope, subcategory):
    """The files of a stage whose job writes its own folder results/C/SCOPE/ (judgments, ppi): its
    declared outputs of that scope, a text output as a folder, the CSVs and PNGs in the report."""
    out = []
    for o in _outputs.outputs(scope):
        for x, f in zip(o.formats, o.files()):
            if not _drawn(o, x):
                continue
            path = f"{RES}/{{collection}}/{scope}/{f}"
            if o.kind == "text":
                path = directory(path)
            elif f.endswith(".csv") or f.endswith(".png"):
                path = report(path, caption=caption(_outputs.report_caption_name(o)),
                              category="{collection}", subcategory=subcategory,
                              labels={"collection": "{collection}", o.kind: o.name})
            out.append(path)
    return out


# --------------------------------------------------------------------------- own jobs (own_job.smk)
from metaeval import stages as _stage_registry


def own_job_outputs(stage):
    """The files of own job `stage` (metaeval.pipeline.own_outputs): those of its scopes, results/C/SCOPE/
    (folder_outputs), else its outputs of the collection's scope -- its tables, figures and their
    report views -- and its folder (StageInfo.folder)."""
    st = _stage_registry.get(stage)
    if st.scopes:
        return [f for sc in st.scopes for f in folder_outputs(sc.name, sc.title or sc.name)]
    folder = [directory(f"{RES}/{{collection}}/{st.folder}")] if st.folder else []
    return _table_outputs([stage]) + _figure_outputs([stage]) + _report_view_outputs(stage) + folder


def own_run_outputs(stage):
    """The files of own job `stage` whose job is one for the run (StageInfo.run_wide): those of its
    scopes, results/SCOPE/ (metaeval.dag.Plan.run_wide_files), the CSVs and PNGs in the report (under
    its scope's title, Scope.title)."""
    st = _stage_registry.get(stage)
    out = []
    for sc in st.scopes:
        category = sc.title or sc.name
        for o in _outputs.outputs(sc.name):
            for x, f in zip(o.formats, o.files()):
                if not _drawn(o, x):
                    continue
                path = f"{RES}/{sc.name}/{f}"
                if o.kind == "text":
                    path = directory(path)
                elif x in ("csv", "png"):
                    path = report(path, caption=caption(_outputs.report_caption_name(o)), category=category,
                                  labels={"collection": category, o.kind: o.name})
                out.append(path)
    return out


def own_run_out(stage):
    """Params function: the --out of own job `stage` for the whole run: its scope's root, results/SCOPE."""
    out = f"{RES}/{_stage_registry.get(stage).scopes[0].name}"
    return lambda w: out


def own_job_out(stage):
    """Params function: the --out of own job `stage`: its scope's root (results/C/SCOPE), else the
    collection's folder."""
    st = _stage_registry.get(stage)
    sub = [st.scopes[0].name] if st.scopes else []
    return lambda w: "/".join([RES, w.collection] + sub)


def own_job_views(stage):
    """Whether own job `stage` writes report views: tables of the collection's scope."""
    return not _stage_registry.get(stage).scopes and bool(PLAN.report_view_names(stage))


def own_job_on_data(stage):
    """Whether own job `stage` runs on the collection's qrels and runs (StageInfo.data), not its matrices."""
    return _stage_registry.get(stage).data


def own_job_title(stage):
    """The message of own job `stage`'s rule: its title (else its name)."""
    st = _stage_registry.get(stage)
    return st.title or f"stage {stage} (a job of its own)"


def own_job_runtime(stage):
    """The minutes own job `stage` asks of a cluster (StageInfo.runtime)."""
    return _stage_registry.get(stage).runtime


def _summary_outputs():
    out = []
    for o in _outputs.outputs("summary"):
        for x, f in zip(o.formats, o.files()):
            if not _drawn(o, x):
                continue
            path = f"{RES}/summary/{f}"
            if x == ("csv" if o.kind == "table" else "png"):
                path = report(path, caption=caption(_outputs.report_caption_name(o)),
                              category="Summary", subcategory="Tables" if o.kind == "table" else "Figures",
                              labels={"collection": "all", o.kind: o.name})
            out.append(path)
    return out
