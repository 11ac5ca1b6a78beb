"""``metaeval incompleteness``: robustness of every metric to incomplete judgments and pool reuse.

The measures recomputed on reduced qrels (a random fraction of each topic's judged documents, of
its relevant and nonrelevant ones separately, the pool of the runs' top d, or the pool without one
group of runs), as given and on condensed lists; Kendall's tau-a, tau_AP, RMSE and the paired
bootstrap's significant pairs against the full qrels (docs/meta.md).
"""

from __future__ import annotations


import argparse
import sys

from .. import stages as _stages
from ._meta_options import add_config_args, add_incompleteness_args, config_from_args

DEFAULT_METRICS = ("AP", "Q-measure", "nDCG@1000", "RR")


from ._figure_options import add_figure_args

def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "incompleteness", help="robustness of the metrics to incomplete judgments and pool reuse",
        description="Recompute every metric on reduced qrels (methods judged, stratified, depth, "
                    "leave-one-group-out; Buckley & Voorhees 2004, Sakai SIGIR 2007, Zobel 1998, Sakai & Kando "
                    "2008, Büttcher et al. 2007) as given and on condensed lists, and compare the run "
                    "rankings with those on the full qrels. Writes OUT/tables/incompleteness.{csv,md,tex}, "
                    "OUT/tables/pool_reuse.{csv,md,tex}, OUT/incompleteness/trials.csv (and with "
                    "--write-qrels OUT/incompleteness/qrels/), OUT/figures/. See docs/meta.md.")
    src = p.add_argument_group("input (either --qrels and --runs, or --collection)")
    src.add_argument("--qrels", metavar="QRELS", help="qrels file (NTCIR or TREC form)")
    src.add_argument("--runs", metavar="GLOB_OR_DIR", nargs="+", action="extend",
                     help="run files, directories or globs")
    src.add_argument("--collection", metavar="CACHE.npz", help="a collection cache (metaeval matrices --cache)")
    p.add_argument("--order", choices=("file", "score"), default=None,
                   help="rank documents in file order (NTCIREVAL) or by score (trec_eval); default: score "
                        "for TREC input, file for NTCIR input (docs/io.md, Conventions)")
    p.add_argument("--depth", type=int, default=1000, help="truncate each list at this depth (default 1000)")
    p.add_argument("--trec-eval-version", type=int, choices=(9, 10), default=10, metavar="9|10",
                   help="which trec_eval ranks runs by score: 10 (default) compares scores in double "
                        "precision as trec_eval 10.0 and 'metaeval trec_eval'; 9 in single precision as "
                        "trec_eval 9.0.x, pytrec_eval and ir_measures")
    p.add_argument("--gains", metavar="G1:...:GH", default=None,
                   help="gain values of L1..LH (default 1:2:...:H)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--no-figures", action="store_true", help="tables and trials only")
    add_config_args(p, reads="incompleteness")        # the options its computation reads, no other
    add_incompleteness_args(p)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    add_figure_args(p)
    return p


def run(args) -> int:
    from ..errors import InputError
    from ..metrics import parse_measure
    from ..metrics.registry import parse_gains

    parser = args._parser
    if args.collection:
        if args.qrels or args.runs:
            parser.error("--collection replaces --qrels/--runs; give one or the other")
    elif not (args.qrels and args.runs):
        parser.error("give --qrels and --runs (or --collection CACHE.npz)")
    from ..metrics.registry import default_vocabulary
    from .ingest import resolve_order

    methods = set(args.inc_methods or _stages.get("incompleteness").params[0].default)
    if args.pool_runs and not {"depth", "leave-one-group-out"} & methods:
        parser.error("--pool-runs names the runs that formed the pool of --method depth or leave-one-group-out; "
                     f"--method {' '.join(sorted(methods))} does not pool")
    if args.depths is not None and "depth" not in methods:
        parser.error(f"--depths gives the pool depths of --method depth; --method {' '.join(sorted(methods))} "
                     f"does not pool by depth")
    if args.fractions is not None and not {"judged", "stratified"} & methods:
        parser.error(f"--fractions gives the judgments kept by --method judged or stratified; --method "
                     f"{' '.join(sorted(methods))} keeps no fraction")
    resolve_order(args, args.runs)
    try:
        gains = parse_gains(args.gains) if args.gains else None
        vocabulary = default_vocabulary(args.order)
        metrics = [parse_measure(m, vocabulary).name for m in (args.metrics or DEFAULT_METRICS)]
        cfg = config_from_args(args)
    except ValueError as e:
        raise InputError(str(e)) from None
    from .. import pipeline

    if args.collection:
        c = pipeline.collection_cache(args.collection)
    else:
        from ..io.ingest import load_collection

        c = load_collection(args.qrels, args.runs, order=args.order, depth=args.depth,
                            trec_eval_version=args.trec_eval_version)
    try:
        notes = pool_notes(c, cfg.incompleteness)
        runs = pipeline.collection_runs(c, cfg, gains)
        written = pipeline.write_labelled_stage("incompleteness", c, args.out, cfg, metrics, gains=gains, runs=runs,
                                                figures=not args.no_figures)
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"incompleteness: {e}") from None
    if not args.quiet:
        for line in notes:
            print(f"metaeval incompleteness: {line}", file=sys.stderr)
        print(f"metaeval incompleteness: {len(written)} files -> {args.out_shown}", file=sys.stderr)
    return 0


def pool_notes(c, icfg) -> list[str]:
    """The lines saying which runs formed the pool and the groups of ``leave-one-group-out``
    (the stage's ``notes``, :func:`metaeval.meta.stages.incompleteness.notes`)."""
    from types import SimpleNamespace

    from ..meta.stages.incompleteness import notes

    return notes(c, SimpleNamespace(incompleteness=icfg))
