"""``metaeval matrices``: per-topic score matrices of many runs, one CSV per measure.

``OUT/METRIC.csv`` (METRIC = canonical measure name, e.g. ``nDCG@10``, ``P-plus(gains=10:20:30)``):
first column ``topic`` (topics in string order), then one column per run (run names sorted),
values unrounded (the text of Python's ``repr`` of the float64, exact round trip).  ``OUT/topics.csv``:
``topic,status,reason`` for every used topic and every excluded one (qrels topic without a
relevant document).  All files are computed in memory first, written into a fresh sibling folder
and then published in ``OUT`` (each file atomically; other files in ``OUT`` stay), so rejected
input writes nothing and a killed run leaves no half-written file.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from ._forms import add_form_args, check_form_args
from ._std_options import add_std_args, std_settings
from .evaluate import add_measure_args, check_gains, resolve_measures
from .ingest import add_order_args, progress_printer


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "matrices", help="topic x run score matrices, one CSV per measure",
        description="Compute per-topic scores of every run for every measure and write OUT/METRIC.csv "
                    "(first column 'topic', one column per run, unrounded values) and OUT/topics.csv "
                    "(used and excluded topics). Input formats and policies: docs/io.md.")
    src = p.add_argument_group("input (either --qrels and --runs, or --collection)")
    src.add_argument("--qrels", metavar="QRELS",
                     help="qrels file (NTCIR or TREC form, plain or gzip) or NTCIREVAL per-topic directory")
    src.add_argument("--runs", metavar="GLOB_OR_DIR", nargs="+", action="extend",
                     help="run files: a file, a glob (quote it) or a directory; several after one "
                          "--runs, or --runs repeated")
    src.add_argument("--collection", metavar="CACHE.npz",
                     help="a labelled collection written by 'metaeval ingest' (instead of --qrels/--runs)")
    src.add_argument("--cache", metavar="FILE.npz",
                     help="with --qrels/--runs: reuse this npz cache when it is up to date, else build "
                          "and save it")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    add_measure_args(p)
    add_order_args(p)
    add_form_args(p)
    p.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    add_std_args(p)                                  # standardised measures
    p.set_defaults(func=run, out_kind="folder", _parser=p, out_accumulates=True)
    return p


def _csv_writer(fh):
    return csv.writer(fh, lineterminator="\n")


def _field(s: str) -> str:
    """A CSV field, quoted as the csv module does (only when needed)."""
    if any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def _float_rows(mat) -> list[str]:
    """Rows of ``mat`` (2-D float64) as comma-joined ``repr`` texts (shortest exact round trip).
    The plain route: formatting costs about 5% of the end-to-end DL19 ``matrices`` time, below the
    15% that would justify a hand-written writer."""
    import numpy as np

    return [",".join(map(repr, r)) for r in np.asarray(mat, dtype=np.float64).tolist()]


def write_matrices(collection, values: dict, out_dir, std_factors: dict | None = None) -> list[Path]:
    """Write ``OUT/NAME.csv`` for every matrix in ``values`` and ``OUT/topics.csv``: written aside,
    then published in ``OUT`` file by file, each atomically (:func:`metaeval.util.replace_dir`); the
    other files of ``OUT`` (other measures' matrices) stay."""
    from ..util import file_name, replace_dir

    out_dir = Path(out_dir)
    for name in values:
        file_name(name, "measure name")
        if name.startswith("."):
            raise ValueError(f"measure name {name!r} cannot be a file name")
    topics = [_field(t) + "," for t in collection.topics]
    header = ",".join(["topic", *(_field(r) for r in collection.runs)]) + "\n"
    with replace_dir(out_dir) as tmp:
        for name, mat in values.items():
            rows = _float_rows(mat.T)                       # topics x runs
            text = header + "".join(t + r + "\n" for t, r in zip(topics, rows))
            with open(tmp / f"{name}.csv", "w", newline="", encoding="utf-8") as fh:
                fh.write(text)
        with open(tmp / "topics.csv", "w", newline="", encoding="utf-8") as fh:
            w = _csv_writer(fh)
            w.writerow(["topic", "status", "reason"])
            w.writerows([t, "used", ""] for t in collection.topics)
            w.writerows([t, "excluded", "no relevant document in the qrels"] for t in collection.excluded_topics)
        if std_factors:                              # the standardised measures' factors
            from ..metrics.standardise import write_factors

            write_factors(std_factors, tmp / "std_factors.csv")
        names = sorted(f.name for f in tmp.iterdir())
    return [out_dir / n for n in names]


def run(args) -> int:
    from ..collection import Collection
    from ..errors import InputError
    from ..io.forms import load_form, load_or_build

    parser = args._parser
    if args.collection:
        if args.qrels or args.runs or args.cache:
            parser.error("--collection replaces --qrels/--runs/--cache; give one or the other")
    elif not (args.qrels and args.runs):
        parser.error("give --qrels and --runs (or --collection CACHE.npz)")
    check_form_args(parser, args)
    if not args.collection:
        from .ingest import resolve_order

        resolve_order(args, args.runs)
    elif args.order is None:                 # names read as the cache's runs were ranked
        try:
            order = Collection.load(args.collection).info.get("order")
        except (OSError, ValueError, KeyError):
            order = None                     # reported below, when the cache is read
        args.order = order if order in ("file", "score") else None
    measures, gains = resolve_measures(parser, args)
    std = std_settings(parser, args)
    show_runs = progress_printer(args.quiet, "parsed")
    if args.collection:
        try:
            c = Collection.load(args.collection)
        except (OSError, ValueError, KeyError) as e:
            raise InputError(f"cannot read the collection cache: {e}", args.collection) from None
    elif args.cache:
        c = load_or_build(args.qrels, args.runs, args.cache, order=args.order, depth=args.depth,
                          max_level=args.max_level, progress=show_runs, qrels_form=args.qrels_form,
                          intent_probs=args.intent_probs, trec_eval_version=args.trec_eval_version)
    else:
        c = load_form(args.qrels, args.runs, args.qrels_form, args.intent_probs, order=args.order,
                      depth=args.depth, max_level=args.max_level, progress=show_runs,
                      trec_eval_version=args.trec_eval_version)
    check_gains(c, gains, args.max_level)
    if args.condensed:
        c = c.condensed()
    from ..metrics import compute_matrices

    try:
        values = compute_matrices(c, measures, gains, _measure_progress(args.quiet), std=std)
    except ValueError as e:                          # a standardising run or factor that is not there
        if isinstance(e, InputError):
            raise
        raise InputError(str(e), std.source) from None
    write_matrices(c, values, args.out, std.record)
    if not args.quiet:
        print(f"metaeval: {len(values)} matrices ({len(c.topics)} topics x {len(c.runs)} runs) -> "
              f"{args.out_shown}", file=sys.stderr)
    return 0


def _measure_progress(quiet: bool):
    if quiet:
        return None
    if sys.stderr.isatty():
        def show(i, n, name):
            print(f"\rmetaeval: computed {i}/{n} measures ({name})\x1b[K", end="\n" if i == n else "",
                  file=sys.stderr, flush=True)
        return show
    return None
