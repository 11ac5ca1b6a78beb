"""The jobs of ``metaeval stage NAME`` that are not a method (stages of kind ``file``): one function
per job, ``job(args, parser, progress)``, named by its stage's declaration
(:attr:`metaeval.stages.StageInfo.command`: ``"metaeval.cli._stage_jobs:figures"``), so that
``metaeval stage`` (:mod:`metaeval.cli.stage`) dispatches on no stage name.  Each checks the
options it needs (``need``) and calls :mod:`metaeval.pipeline`."""

from __future__ import annotations

from pathlib import Path

from ._meta_options import config_from_args, labels_from_args

__all__ = ["select_runs", "figures", "summary", "meta", "tables", "need", "caption_args"]


def need(parser, args, *names: str) -> None:
    """A usage error (exit 2) naming the options of ``names`` the job needs and was not given."""
    missing = [n for n in names if getattr(args, n) is None]
    if missing:
        parser.error(f"stage {args.name}: give " + ", ".join("--" + n.replace("_", "-") for n in missing))


def caption_args(args) -> dict:
    """The caption parameters' values given (:data:`metaeval.outputs.CAPTION_PARAMS`: the options
    of the parameters the stages' captions and figures state)."""
    from ..outputs import CAPTION_PARAMS

    return {p: getattr(args, p) for p in CAPTION_PARAMS}


def _formats(args) -> tuple[str, ...] | None:
    return None if args.formats is None else tuple(args.formats)


def _pairs(parser, items) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            parser.error(f"--collection-dirs: expected NAME=DIR, got {item!r}")
        out[name] = path
    return out


def _metrics_and_config(parser, args):
    """The metrics (default: every matrix but those a stage reads besides its metrics) and the
    MetaConfig of a job on the matrices."""
    from ..meta.matrices import list_matrices
    from ..meta.run import default_metrics, with_matrix_names

    need(parser, args, "matrices")
    metrics, cfg = with_matrix_names(list_matrices(args.matrices), args.metrics, config_from_args(args))
    if metrics is None:      # as metaeval meta: every matrix but the gain-sweep variants
        metrics = default_metrics(dict.fromkeys(list_matrices(args.matrices)), cfg)
    return metrics, cfg


def select_runs(args, parser, progress) -> None:
    """MATRICES/SELECT_BY.csv -> OUT = runs_used.csv: the runs every stage meta-evaluates."""
    from .. import pipeline
    from ..meta.matrices import list_matrices
    from ..meta.run import with_matrix_names

    need(parser, args, "matrices")
    _, cfg = with_matrix_names(list_matrices(args.matrices), None, config_from_args(args))
    pipeline.write_runs_used(args.matrices, args.out, cfg)


def figures(args, parser, progress) -> None:
    """TABLES -> OUT/*.png,pdf."""
    from .. import pipeline

    need(parser, args, "tables")
    pipeline.write_figures(args.tables, args.out, jobs=args.jobs, **caption_args(args))


def summary(args, parser, progress) -> None:
    """--collection-dirs -> OUT: the cross-collection tables and figures."""
    from .. import pipeline

    need(parser, args, "collection_dirs")
    pipeline.write_summary(_pairs(parser, args.collection_dirs), args.out, metric=args.select_by,
                           reproduction=bool(getattr(args, "reproduction", False)),
                           labels_file=getattr(args, "labels", None), **caption_args(args))


def meta(args, parser, progress) -> None:
    """The method stages of --stages on the matrices, then the tables (and figures): a
    collection's meta-evaluation in one process."""
    from .. import pipeline
    from ..meta.run import STAGES

    metrics, cfg = _metrics_and_config(parser, args)
    need(parser, args, "stages")
    bad = [s for s in args.stages if s not in STAGES]
    if bad:
        parser.error(f"--stages: unknown stage {bad[0]!r}; known: {', '.join(STAGES)}")
    pipeline.write_collection(
        matrices_dir=args.matrices, runs_path=args.run_list, parts_dir=args.parts,
        write_parts_dir=args.parts if args.write_parts else None, stages=args.stages,
        out_dir=args.out, cfg=cfg, metrics=metrics, collection=args.collection,
        runs_used=args.runs_used, texts_dir=args.texts, figures_dir=args.figures,
        jobs=args.jobs, progress=progress, formats=_formats(args),
        labels=labels_from_args(args, args.matrices, args.collection))


def tables(args, parser, progress) -> None:
    """The parts of --stages combined into every table (--views: laid out from their CSVs)."""
    from .. import pipeline
    from ..meta.run import STAGES
    from ..outputs import caption_values

    metrics, cfg = _metrics_and_config(parser, args)
    if args.views is not None:
        need(parser, args, "run_list")
        pipeline.write_table_views(args.out, args.views, matrices_dir=args.matrices, runs_path=args.run_list,
                                   cfg=cfg, labels=labels_from_args(args, args.matrices, args.collection),
                                   figures_dir=args.figures, jobs=args.jobs)
        return
    need(parser, args, "parts")
    stages = args.stages
    if stages is None:
        stages = [s for s in STAGES if (Path(args.parts) / s).is_dir()]
    labels = labels_from_args(args, args.matrices, args.collection)
    pipeline.write_collection_tables(
        matrices_dir=args.matrices, runs_path=args.run_list, parts_dir=args.parts, stages=stages,
        out_dir=args.out, cfg=cfg, metrics=metrics, collection=args.collection,
        runs_used=args.runs_used, texts_dir=args.texts, labels=labels, formats=_formats(args))
    if args.figures is not None:         # drawn in this process: no second start-up
        pipeline.write_figures(args.out, args.figures, jobs=args.jobs, labels=labels,
                               select_by=cfg.select_by, **caption_values(cfg))
