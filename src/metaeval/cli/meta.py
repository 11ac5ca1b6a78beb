"""``metaeval meta``: meta-evaluate metrics from per-topic score matrices (any tool's output)."""

from __future__ import annotations

import argparse

from ._meta_options import add_config_args, config_from_args


from ._figure_options import add_figure_args

def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "meta",
        help="Kendall's tau, bootstrap sensitivity, swap and stability methods, discriminative power "
             "from topic x run matrices",
        description="Read MATRICES/METRIC.csv (first column 'topic', one column per run; as written by "
                    "'metaeval matrices' or exported from any other tool) and write the meta-evaluation "
                    "tables (CSV, Markdown, LaTeX) into OUT/tables/, the figures into OUT/figures/ and the "
                    "Discpower text files (randomised Tukey HSD p-values) into OUT/pvalues/. "
                    "Methods and decisions: docs/meta.md.",
    )
    p.add_argument("--matrices", required=True, metavar="DIR", help="folder of METRIC.csv matrices")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (tables/, figures/)")
    add_config_args(p)
    p.add_argument("--collection", metavar="CACHE.npz",
                   help="collection cache (metaeval ingest) for collection.csv and preferred_rank.csv")
    p.add_argument("--no-figures", action="store_true", help="do not draw figures")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run, out_kind="folder")
    add_figure_args(p)
    return p


def run(args) -> int:
    from ..errors import InputError
    from ..meta.matrices import load_matrices
    from ..pipeline import collection_cache, run_meta_files, stderr_progress

    cfg = config_from_args(args)
    mats = load_matrices(args.matrices)
    collection = collection_cache(args.collection) if args.collection else None
    try:
        from ._meta_options import labels_from_args

        labels = labels_from_args(args, args.matrices, args.collection)
        run_meta_files(mats, cfg, args.out, metrics=args.metrics, collection=collection,
                       figures=not args.no_figures, progress=None if args.quiet else stderr_progress,
                       labels=labels)
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(str(e), args.matrices) from None
    return 0
