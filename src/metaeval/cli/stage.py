"""``metaeval stage NAME...``: run one stage of the pipeline (or several method stages, one after the
other in this process) and write its files.

The Snakemake rules of ``workflow/rules/`` call this command (``shell:``), one job per collection
and stage or group of light stages; ``metaeval meta`` runs every stage of a collection in one process.  Both go through
:mod:`metaeval.pipeline`, so they write byte-identical tables.
"""

from __future__ import annotations

import argparse
import sys

from ._meta_options import (add_config_args, add_labelled_args, add_own_job_args, config_from_args,
                            stage_params_from_args)
from ._stage_jobs import need

from ..meta.stages import file_stages, get, method_stages, own_job_stages
from .ingest import add_order_args
from ..stages import resolve

#: stages that are not a meta-evaluation method (those are metaeval.meta.run.STAGES); both lists
#: derive from the one registry, metaeval.stages
FILE_STAGES = file_stages()
#: the stages of kind other the package runs itself (a plug-in's own job: StageInfo.own_job)
OWN_JOBS = own_job_stages()
#: those on the collection's data (qrels and runs: StageInfo.data) rather than its matrices
DATA_JOBS = tuple(s for s in OWN_JOBS if get(s).data)


from ._figure_options import add_figure_args

def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "stage", help="run one pipeline stage (what each Snakemake job does)",
        description="Run one stage of the pipeline on one collection and write its files. STAGE is "
                    "'select_runs' (MATRICES/SELECT_BY.csv -> OUT = runs_used.csv: the top --top-runs "
                    "runs by mean --select-by, which every stage meta-evaluates, as 'metaeval meta' "
                    "does), a meta-evaluation method (" + ", ".join(method_stages()) + ": MATRICES -> "
                    "OUT/TABLE.csv, the method's part of each table), 'tables' (the parts of --stages under PARTS "
                    "combined, plus run means and, with --collection, Table 1 and preferred ranks -> OUT/TABLE.{csv,md,tex}), "
                    "'meta' (the method stages on the matrices of --stages, in --jobs groups side by "
                    "side, then 'tables' from them and from the parts of the other --stages under "
                    "PARTS and, with --figures, the figures: a collection's meta-evaluation in one "
                    "process; --write-parts: also each stage's part folder PARTS/STAGE/), "
                    "'figures' (TABLES -> OUT/*.png,pdf) or 'summary' (--collection-dirs -> OUT, the "
                    "cross-collection tables and figures)" + (", or a stage with a job of its own (" + ", ".join(OWN_JOBS)
                    + ": MATRICES -> OUT/tables, OUT/figures, its scope's files"
                    + ("; on the collection's data, " + ", ".join(DATA_JOBS) + ": --qrels, --runs -> OUT"
                       if DATA_JOBS else "") + ")" if OWN_JOBS else "") + ". Options mean what they mean for "
                    "'metaeval meta'; docs/pipeline.md lists the files.")
    p.add_argument("names", nargs="+", metavar="STAGE",
                   help="stage to run (see above); several method stages run one after the other in "
                        "this one process, each writing OUT/STAGE/ (a pipeline job groups the light ones)")
    p.add_argument("--out", required=True, metavar="PATH",
                   help="output folder (runs_used.csv file for select_runs; with several method stages, "
                        "the folder of their part folders)")
    p.add_argument("--matrices", metavar="DIR", help="folder of METRIC.csv matrices")
    p.add_argument("--run-list", dest="run_list", metavar="CSV",
                   help="the runs to meta-evaluate (runs_used.csv: column 'run'), instead of the top "
                        "--top-runs by mean --select-by (not --runs: every other command's run files)")
    add_config_args(p)
    p.add_argument("--parts", metavar="DIR",
                   help="tables, meta: folder of the stage parts (PARTS/STAGE/TABLE.csv); a stage that reads "
                        "other stages' tables: where their parts are")
    p.add_argument("--texts", metavar="DIR",
                   help="tables, meta: also write the text files the stages derive from the tables here (the "
                        "Discpower files METRIC.rthsd.B of the pvalues table)")
    p.add_argument("--stages", nargs="+", metavar="S",
                   help="tables, meta: the stages whose parts to combine, in this order (default: every "
                        "registered stage with a folder under --parts)")
    p.add_argument("--collection", metavar="CACHE.npz",
                   help="tables: collection cache (metaeval ingest) for collection.csv and preferred_rank.csv; "
                        "a stage on the labelled collection: the collection it reads")
    p.add_argument("--gains", metavar="G1:...:GH",
                   help="a stage on the labelled collection, an own job on the data: the collection's gains "
                        "(default 1:2:...:H)")
    data = ", ".join(DATA_JOBS) or "none"
    p.add_argument("--qrels", metavar="FILE", nargs="+", action="extend",
                   help=f"an own job on the collection's data ({data}): its qrels (several files: their union)")
    p.add_argument("--runs", metavar="GLOB_OR_DIR", nargs="+", action="extend",
                   help=f"an own job on the collection's data ({data}): its run files, directories or globs")
    add_order_args(p)
    p.add_argument("--folder", metavar="DIR",
                   help="a stage on the labelled collection that writes a folder of its own: that folder")
    p.add_argument("--write-parts", action="store_true",
                   help="meta: also write the parts of the stages it runs under --parts")
    p.add_argument("--runs-used", metavar="CSV",
                   help="tables: also write the runs meta-evaluated (run, mean of --select-by) here")
    p.add_argument("--tables", metavar="DIR", help="figures: folder of the table CSVs")
    p.add_argument("--figures", metavar="DIR",
                   help="tables: also draw every figure from the tables just written, into DIR")
    p.add_argument("--no-figures", action="store_true",
                   help="a stage with a job of its own: its tables and files only, no figures (as its own "
                        "command's --no-figures)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="figures (and tables --figures): draw in N processes; meta: also run the "
                        "method stages in N groups side by side (default 1)")
    p.add_argument("--formats", nargs="+", choices=("csv", "md", "tex"), metavar="F",
                   help="tables, meta: the files of each table written (csv md tex, the default; the "
                        "pipeline's meta job writes csv, its writers job the rest: --views)")
    p.add_argument("--views", nargs="+", metavar="TABLE",
                   help="tables: lay out these tables from their CSVs in OUT (Markdown and LaTeX, with "
                        "--labels) and, with --figures, draw their figures -- no --parts; --runs: the "
                        "runs_used.csv of the job that computed them")
    p.add_argument("--collection-dirs", nargs="+", metavar="NAME=DIR",
                   help="summary: every collection's results folder (holding tables/), in column order")
    add_labelled_args(p)
    for own in OWN_JOBS:            # each own job's options, generated from its parameter class
        try:
            add_own_job_args(p, own)
        except argparse.ArgumentError as e:
            raise ValueError(f"stage {own}: {e} (an own job's options are options of 'metaeval stage', "
                             "spelt after its parameters' names: rename the parameter)") from None
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run, out_kind=_out_kind, out_owner=_out_owner, _parser=p)
    add_figure_args(p)
    return p


def _own_scope(args) -> str | None:
    """The own job with a scope of its own ``metaeval stage`` runs (None: another stage)."""
    name = args.names[0] if len(args.names) == 1 else None
    return name if name in OWN_JOBS and get(name).scopes else None


def _out_kind(args) -> str:
    """An own job with a scope of its own publishes its folder (its files listed in the folder's
    manifest, all or nothing: as its own command does); any other stage writes into ``--out``."""
    return "folder" if _own_scope(args) else "any"


def _out_owner(args) -> str:
    """Whose files an own job's folder lists: the stage's (its own command's, ``metaeval ppi``: the
    same files), else this command's."""
    return _own_scope(args) or "stage"


def run(args) -> int:
    from .. import pipeline
    from ..errors import InputError
    from ..meta import stages

    parser = args._parser
    if len(args.names) > 1:
        return _run_several(args, parser)
    name = args.name = args.names[0]
    progress = None if args.quiet else (
        lambda stage, metric: print(f"metaeval stage: {stage}" + (f" {metric}" if metric else ""),
                                    file=sys.stderr, flush=True))
    try:
        from ..meta.run import STAGES

        if name not in FILE_STAGES and name not in STAGES and name not in OWN_JOBS:
            parser.error(f"unknown stage {name!r}; known: {', '.join(FILE_STAGES + tuple(STAGES) + OWN_JOBS)}")
        st = stages.get(name)
        if args.no_figures and not st.own_job:
            parser.error(f"--no-figures: stage {name} draws no figures (only a stage with a job of its own takes it)")
        if st.command is not None:           # a job that is not a method: the function it names
            resolve(st.command)(args, parser, progress)
        elif st.own_job:                     # a job of its own the package runs: its scope's files under OUT
            data = None
            if st.data:                      # on the collection's data
                data = stages.CollectionData(tuple(args.qrels or ()), tuple(args.runs or ()), gains=args.gains,
                                             order=args.order, depth=args.depth,
                                             trec_eval_version=args.trec_eval_version)
            elif not st.run_wide:            # (one for the whole run: no matrices, its options only)
                need(parser, args, "matrices")
            pipeline.write_own_job(name, args.matrices, args.out, stage_params_from_args(args, name),
                                   metrics=getattr(args, "metrics", None), labels_file=args.labels, data=data,
                                   figures=not args.no_figures)
        else:
            from ..metrics.registry import parse_gains
            from ._stage_jobs import _metrics_and_config

            metrics, cfg = _metrics_and_config(parser, args)
            collection = args.collection
            if st.labelled and collection is not None:
                collection = pipeline.collection_cache(collection)
                for line in [] if args.quiet or st.notes is None else st.notes(collection, cfg):
                    print(f"metaeval stage: {name}: {line}", file=sys.stderr, flush=True)
            pipeline.write_stage_parts(name, args.matrices, args.out, cfg, metrics, runs_path=args.run_list,
                                       progress=progress, parts_dir=args.parts, collection=collection,
                                       gains=parse_gains(args.gains) if args.gains else None,
                                       folder=args.folder)
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"stage {name}: {e}") from None
    return 0


def _run_several(args, parser) -> int:
    """Several method stages in one process (``OUT/STAGE/`` each), in the order given: what one
    pipeline job does for the light stages of a collection.  A stage that reads other stages'
    parts finds them under ``--parts``, by default ``OUT``."""
    from .. import pipeline
    from ..errors import InputError
    from ..meta.matrices import list_matrices
    from ..meta.run import STAGES, default_metrics, with_matrix_names

    bad = [n for n in args.names if n not in STAGES]
    if bad:
        parser.error(f"several stages run together must be method stages ({', '.join(STAGES)}); got {bad[0]!r}")
    if len(set(args.names)) != len(args.names):
        parser.error("a stage is named twice")
    args.name = "+".join(args.names)
    need(parser, args, "matrices")
    progress = None if args.quiet else (
        lambda stage, metric: print(f"metaeval stage: {stage}" + (f" {metric}" if metric else ""),
                                    file=sys.stderr, flush=True))
    out = args.out
    parts = args.parts if args.parts is not None else out
    available = list_matrices(args.matrices)
    metrics, cfg = with_matrix_names(available, args.metrics, config_from_args(args))
    if metrics is None:
        metrics = default_metrics(dict.fromkeys(available), cfg)
    for name in args.names:
        try:
            pipeline.write_stage_parts(name, args.matrices, f"{out}/{name}", cfg, metrics, runs_path=args.run_list,
                                       progress=progress, parts_dir=parts)
        except ValueError as e:
            if isinstance(e, InputError):
                raise
            raise InputError(f"stage {name}: {e}") from None
    return 0
