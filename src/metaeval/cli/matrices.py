"""``metaeval matrices``: per-topic score matrices of many runs, one CSV per measure.

``OUT/METRIC.csv`` (METRIC = canonical measure name, e.g. ``nDCG@10``, ``P-plus(gains=10:20:30)``):
first column ``topic`` (topics in string order), then one column per run (run names sorted),
values unrounded (the text of Python's ``repr`` of the float64, exact round trip).  ``OUT/topics.csv``:
``topic,status,reason`` for every used topic and every excluded one (qrels topic without a
relevant document).  All files are computed in memory first and then written through a temporary
folder inside ``OUT`` and renamed into place, so rejected input writes nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ._forms import add_form_args, check_form_args
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
    src.add_argument("--runs", metavar="GLOB_OR_DIR", action="append",
                     help="run files: a file, a glob (quote it) or a directory; repeatable")
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
    p.set_defaults(func=run, _parser=p)
    return p


def _csv_writer(fh):
    return csv.writer(fh, lineterminator="\n")


def _field(s: str) -> str:
    """A CSV field, quoted as the csv module does (only when needed)."""
    if any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def compute_matrices(collection, measures, gains=None, progress=None) -> dict:
    """``{measure name: (runs, topics) float64}`` for every measure, in order."""
    from ..metrics import EvalContext, evaluate

    ctx = EvalContext(collection, gains)
    out = {}
    for i, m in enumerate(measures):
        out.update(evaluate(ctx, [m]))
        if progress is not None:
            progress(i + 1, len(measures), m.name)
    return out


# Exact float text.  A matrix cell is written as ``repr(float)``: the shortest text that reads back
# to the same float64.  Python's repr costs ~0.3-0.4 us a value, which made formatting the 129k
# values of the 81 default DL19 matrices cost more than computing them.  orjson (C/Rust) writes the
# same shortest round-trip digits about 4x faster; its text equals repr for finite values in
# [1e-4, 1e15) and for +-0.0 (checked below on probe values at import), while for other magnitudes
# it writes exponents differently (``1e-5`` vs ``1e-05``) and ``null`` for nan/inf.  Rows holding
# such values are formatted with repr, so the output is repr's text in every case.
_FAST_LO, _FAST_HI = 1e-4, 1e15
_PROBES = [0.0, -0.0, 1.0, 0.5, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 1e-4, 1.5e-4, 0.00012345678901234567, 0.001,
           0.999999999999, 0.1 + 0.2, 10.0, 123.456, 1e14, 1e15 - 1, 123456789012345.6, 99999.99999999999,
           -0.25, -1 / 7, 5e-1, 7.0 / 9.0, 0.9503, 2.0 ** -13, 1 - 2.0 ** -53, 1 + 2.0 ** -52]


def _orjson_dumps():
    """``orjson.dumps`` if installed and it writes repr's text on the probe values, else None."""
    try:
        import numpy as np
        import orjson
    except ImportError:
        return None
    probe = np.array(_PROBES, dtype=np.float64)
    got = orjson.dumps(probe, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    return orjson.dumps if got == "[" + ",".join(map(repr, _PROBES)) + "]" else None


_DUMPS = _orjson_dumps()


def _float_rows(mat) -> list[str]:
    """Rows of ``mat`` (2-D float64) as comma-joined ``repr`` texts."""
    import numpy as np

    mat = np.ascontiguousarray(mat, dtype=np.float64)
    if mat.shape[0] == 0:
        return []
    if _DUMPS is None:
        return [",".join(map(repr, r)) for r in mat.tolist()]
    import orjson

    # "[[a,b],[c,d]]" -> ["a,b", "c,d"]
    rows = _DUMPS(mat, option=orjson.OPT_SERIALIZE_NUMPY).decode()[2:-2].split("],[")
    a = np.abs(mat)
    slow = ~(((a >= _FAST_LO) & (a < _FAST_HI)) | (a == 0.0))
    for t in np.flatnonzero(slow.any(axis=1)):
        rows[t] = ",".join(map(repr, mat[t].tolist()))
    return rows


def write_matrices(collection, values: dict, out_dir) -> list[Path]:
    """Write ``OUT/NAME.csv`` for every matrix in ``values`` and ``OUT/topics.csv``, all or nothing."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".matrices-", dir=out_dir))
    written = []
    topics = [_field(t) + "," for t in collection.topics]
    header = ",".join(["topic", *(_field(r) for r in collection.runs)]) + "\n"
    try:
        for name, mat in values.items():
            if "/" in name or name.startswith("."):
                raise ValueError(f"measure name {name!r} cannot be a file name")
            rows = _float_rows(mat.T)                       # topics x runs
            text = header + "".join(t + r + "\n" for t, r in zip(topics, rows))
            with open(tmp / f"{name}.csv", "w", newline="", encoding="utf-8") as fh:
                fh.write(text)
        with open(tmp / "topics.csv", "w", newline="", encoding="utf-8") as fh:
            w = _csv_writer(fh)
            w.writerow(["topic", "status", "reason"])
            w.writerows([t, "used", ""] for t in collection.topics)
            w.writerows([t, "excluded", "no relevant document in the qrels"] for t in collection.excluded_topics)
        for f in sorted(tmp.iterdir()):
            os.replace(f, out_dir / f.name)
            written.append(out_dir / f.name)
    finally:
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(tmp)
    return written


def run(args) -> int:
    from ..collection import Collection
    from ..errors import InputError
    from ..io.intents import load_form, load_or_build_form

    parser = args._parser
    if args.collection:
        if args.qrels or args.runs or args.cache:
            parser.error("--collection replaces --qrels/--runs/--cache; give one or the other")
    elif not (args.qrels and args.runs):
        parser.error("give --qrels and --runs (or --collection CACHE.npz)")
    check_form_args(parser, args)
    measures, gains = resolve_measures(parser, args)
    show_runs = progress_printer(args.quiet, "parsed")
    if args.collection:
        try:
            c = Collection.load(args.collection)
        except (OSError, ValueError, KeyError) as e:
            raise InputError(f"cannot read the collection cache: {e}", args.collection) from None
    elif args.cache:
        c = load_or_build_form(args.qrels, args.runs, args.cache, args.qrels_form, args.intent_probs,
                               order=args.order, depth=args.depth, max_level=args.max_level,
                               progress=show_runs)
    else:
        c = load_form(args.qrels, args.runs, args.qrels_form, args.intent_probs, order=args.order,
                      depth=args.depth, max_level=args.max_level, progress=show_runs)
    check_gains(c, gains)
    if args.condensed:
        c = c.condensed()
    values = compute_matrices(c, measures, gains, _measure_progress(args.quiet))
    write_matrices(c, values, args.out)
    if not args.quiet:
        print(f"metaeval: {len(values)} matrices ({len(c.topics)} topics x {len(c.runs)} runs) -> "
              f"{args.out}", file=sys.stderr)
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
