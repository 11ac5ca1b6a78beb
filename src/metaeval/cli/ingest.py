"""``metaeval ingest``: parse and label qrels + runs once, write the npz Collection cache."""

from __future__ import annotations

import argparse
import sys


def add_common_input_args(p: argparse.ArgumentParser, runs_required: bool = True) -> None:
    """Options shared by ``ingest``, ``matrices`` (and the order/depth ones by ``evaluate``)."""
    p.add_argument("--qrels", metavar="QRELS", required=runs_required,
                   help="qrels file (NTCIR 'TOPIC DOCID Lk' or TREC 'TOPIC ITER DOCID REL', plain or "
                        "gzip) or an NTCIREVAL per-topic directory DIR/TID/TID.rel")
    p.add_argument("--runs", metavar="GLOB_OR_DIR", nargs="+", action="extend", required=runs_required,
                   help="run files: a file, a glob (quote it) or a directory; several after one "
                          "--runs, or --runs repeated")
    add_order_args(p)
    p.add_argument("--max-level", type=int, metavar="H", default=None,
                   help="highest relevance level H of the scale (default: highest level in the qrels)")


def add_order_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--order", choices=("file", "score"), default=None,
                   help="ranked list order: 'file' = the run file's line order per topic (NTCIREVAL); "
                        "'score' = score descending, ties by DOCID descending (trec_eval). Default: "
                        "'score' for TREC input (TREC-form qrels and six-column runs), 'file' for NTCIR "
                        "input (docs/io.md, Conventions); a run whose file order is not by decreasing "
                        "score is named in a warning (not under an explicit --order score)")
    p.add_argument("--trec-eval-version", type=int, choices=(9, 10), default=10, metavar="9|10",
                   help="which trec_eval ranks runs by score: 10 (default) compares scores in double "
                        "precision as trec_eval 10.0 and 'metaeval trec_eval'; 9 in single precision as "
                        "trec_eval 9.0.x, pytrec_eval and ir_measures")
    p.add_argument("--depth", type=_depth, default=1000, metavar="N",
                   help="truncate each ranked list to its first N documents after ordering "
                        "(default 1000; 0 = no truncation)")


def resolve_order(args, runs) -> None:
    """``args.order`` from the input's conventions when ``--order`` is not given (docs/io.md,
    "Conventions"): ``score`` for TREC input, ``file`` for NTCIR input."""
    if getattr(args, "order", None) is None and getattr(args, "qrels", None) and runs:
        from ..io.conventions import default_order

        args.order = default_order(None, args.qrels, runs, getattr(args, "qrels_form", None))


def _depth(text: str) -> int | None:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid depth {text!r}: expected an integer") from None
    if v < 0:
        raise argparse.ArgumentTypeError("depth must be >= 0 (0 = no truncation)")
    return v or None


def progress_printer(quiet: bool, what: str = "parsed"):
    """A ``progress(i, n, name)`` callback for :func:`metaeval.io.load_collection`: a live counter
    on a terminal, a single summary line otherwise; ``None`` when quiet."""
    if quiet:
        return None
    tty = sys.stderr.isatty()

    def show(i: int, n: int, name: str) -> None:
        if tty:
            print(f"\rmetaeval: {what} {i}/{n} runs ({name})\x1b[K", end="\n" if i == n else "",
                  file=sys.stderr, flush=True)
        elif i == n:
            print(f"metaeval: {what} {n} runs", file=sys.stderr)
    return show


def write_topics_csv(collection, path) -> None:
    """``topic,status,reason``: every used topic (status ``used``), then the excluded ones."""
    from ..util import atomic_write

    with atomic_write(path, "w", newline="") as fh:
        fh.write("topic,status,reason\n")
        for t in collection.topics:
            fh.write(f"{_csv(t)},used,\n")
        for t in collection.excluded_topics:
            fh.write(f"{_csv(t)},excluded,no relevant document in the qrels\n")


def _csv(s: str) -> str:
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "ingest", help="parse and label qrels + runs once into an npz cache",
        description="Parse and label qrels and runs (NTCIREVAL 'label' for every run and topic) and "
                    "write the labelled collection as an npz cache, read by 'metaeval matrices "
                    "--collection'.  Input formats and policies: docs/io.md.")
    add_common_input_args(p)
    from ._forms import add_form_args
    add_form_args(p)
    p.add_argument("--out", required=True, metavar="CACHE.npz", help="output cache (written atomically)")
    p.add_argument("--topics-out", metavar="CSV", help="also write the used/excluded topic list")
    p.add_argument("--quiet", action="store_true", help="no progress messages")
    p.set_defaults(func=run, out_kind="file")
    return p


def run(args) -> int:
    from ..io.forms import load_form

    if args.intent_probs and args.qrels_form != "intents":
        raise SystemExit("metaeval ingest: error: --intent-probs needs --qrels-form intents")
    resolve_order(args, args.runs)
    c = load_form(args.qrels, args.runs, args.qrels_form, args.intent_probs, order=args.order,
                  depth=args.depth, max_level=args.max_level, progress=progress_printer(args.quiet),
                  trec_eval_version=args.trec_eval_version)
    c.save(args.out)
    if args.topics_out:
        write_topics_csv(c, args.topics_out)
    if not args.quiet:
        print(f"metaeval: {len(c.runs)} runs x {len(c.topics)} topics (H={c.max_level}, depth "
              f"{c.depth}, order {args.order}) -> {args.out}", file=sys.stderr)
    return 0
