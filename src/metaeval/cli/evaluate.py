"""``metaeval evaluate``: every topic of one run in NTCIREVAL's per-topic form, then the means.

Output (stdout, or ``--out FILE`` written atomically), exactly as NTCIREVAL's ``NTCIR-eval`` script
concatenates ``ntcir_eval compute -out TID`` over the topics (the reference ``.nev`` files the
tests compare with)::

    0201 # syslen=1000 jrel=97 jnonrel=43
    0201 # r1=1 rp=1
    0201 RR=                  1.0000
    ...

topics in string order, then one mean line per measure over the evaluated topics,
``ALL NAME=<pad>VALUE`` with the same alignment (``--no-means`` omits them).  Means are arithmetic
over the used topics (qrels topics with at least one relevant document; a topic missing from the
run counts as 0).
"""

from __future__ import annotations

import argparse
import sys

from .ingest import add_order_args


def add_measure_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gains", metavar="G1:...:GH", default=None,
                   help="gain values for L1..LH, non-decreasing; their number declares H, as NTCIREVAL's "
                        "-g (default 1:2:...:H, H = highest level in the qrels)")
    p.add_argument("--cutoffs", metavar="l1,l2,...", default=None,
                   help="document cutoffs of the default measure list (NTCIREVAL -cutoffs; default 1000)")
    p.add_argument("--condensed", action="store_true",
                   help="condensed lists: unjudged documents removed (NTCIREVAL label -j / compute -j); "
                        "adds the bpref family to the default measure list")
    p.add_argument("--metrics", nargs="+", metavar="M", default=None,
                   help="canonical measure names (e.g. AP 'nDCG@10' 'Q-measure(beta=0.5)'); default: "
                        "what ntcir_eval compute prints, in its order")
    p.add_argument("--max-level", type=int, metavar="H", default=None,
                   help="highest relevance level H of the scale (default: highest level in the qrels)")
    p.add_argument("--vocabulary", choices=("ntcireval", "ir_measures"), default=None,
                   help="how ambiguous measure names are read (nDCG@10, AP@100, ERR@20, RBP): NTCIREVAL's "
                        "or ir_measures'/trec_eval's meaning (default: ir_measures when the runs are "
                        "ranked by score -- TREC input, or --order score -- else ntcireval; "
                        "docs/metrics.md has the table)")


def resolve_measures(parser: argparse.ArgumentParser, args):
    """(measures, gains) from the parsed options; bad values are usage errors (exit 2)."""
    from ..metrics import ntcir_measures, parse_gains
    from ..metrics.registry import check_gain_order, parse_cutoffs

    cutoffs = None
    if args.cutoffs is not None:
        try:
            cutoffs = list(parse_cutoffs(args.cutoffs))
        except ValueError as e:
            parser.error(f"--cutoffs: {e}")
    gains = None
    if args.gains is not None:
        try:
            gains = parse_gains(args.gains)
            check_gain_order(gains, args.gains)
        except ValueError as e:
            parser.error(f"--gains: {e}")
    if args.metrics:
        from ..metrics.registry import unique_measures

        names = [part for name in args.metrics for part in _split_names(name)]
        try:
            from ..metrics.registry import check_vocabulary

            vocabulary = check_vocabulary(getattr(args, "vocabulary", None), getattr(args, "order", None))
            ms = unique_measures(names, where="--metrics", vocabulary=vocabulary)   # two spellings: a warning
        except (ValueError, KeyError) as e:
            parser.error(f"--metrics: {e}")
        if cutoffs is not None:
            parser.error("--cutoffs applies to the default measure list; with --metrics give the "
                         "cutoffs in the names (e.g. nDCG@10)")
    else:
        ms = ntcir_measures(cutoffs if cutoffs is not None else (1000,), condensed=args.condensed)
    # de-duplicate, keeping order
    seen, out = set(), []
    for m in ms:
        if m.name not in seen:
            seen.add(m.name)
            out.append(m)
    return out, gains


def _split_names(text: str) -> list[str]:
    """``--metrics`` items may also be whitespace separated within one argument."""
    from ..metrics.registry import split_names

    return split_names(text)


def check_gains(collection, gains, max_level=None) -> None:
    """The gains rule (docs/io.md): the number of gains given is H, so the qrels may not use a
    level above it, and ``--max-level`` (if given) must equal it; more gains than the qrels' levels
    (without ``--max-level``) are a one-line warning."""
    from ..errors import InputError

    if gains is None:
        return
    if max_level is not None and max_level != len(gains):
        raise InputError(f"--gains gives {len(gains)} values (H = {len(gains)}) but --max-level is {max_level}")
    if len(gains) < collection.max_level:
        src = (collection.info.get("qrels") or [None])[0]
        raise InputError(f"--gains gives {len(gains)} values (H = {len(gains)}) but the qrels use level "
                         f"L{collection.max_level}: give one gain for each of L1..L{collection.max_level} (labels above "
                         f"H are an error)", src)
    if max_level is None:
        from ..metrics.registry import warn_extra_gains

        warn_extra_gains(gains, collection.max_level, stacklevel=3)


#: the modules of the measures NTCIREVAL itself prints (``ntcir_eval compute``)
_NTCIREVAL_MODULES = ("metaeval.metrics.ranked", "metaeval.metrics.diversity")


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "evaluate", help="per-topic NTCIREVAL output for one run",
        description="Evaluate one run: every topic in NTCIREVAL's per-topic form (TOPIC # syslen=.. "
                    "jrel=.. jnonrel=.., TOPIC # r1=.. rp=.., TOPIC METRIC=<pad>VALUE), topics in "
                    "string order, then 'ALL METRIC=<pad>MEAN' lines. Input formats and policies: "
                    "docs/io.md.")
    p.add_argument("--qrels", required=True, metavar="QRELS",
                   help="qrels file (NTCIR or TREC form, plain or gzip) or NTCIREVAL per-topic directory")
    from ._types import DeprecatedOption

    p.add_argument("--runs", metavar="RUN", dest="run",
                   help="one run (the option every command names its runs with): a TREC 6-column file "
                        "(plain or gzip) or an NTCIREVAL per-topic directory ROOT/TID/RUN.res holding a "
                        "single run")
    p.add_argument("--run", dest="run", action=DeprecatedOption, new="--runs", help=argparse.SUPPRESS)
    add_measure_args(p)
    add_order_args(p)
    from ._forms import add_form_args
    add_form_args(p)
    p.add_argument("--no-means", action="store_true", help="omit the ALL mean lines")
    p.add_argument("--out", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    p.set_defaults(func=run, out_kind="file", _parser=p)
    return p


def run(args) -> int:
    import numpy as np

    from ..errors import InputError
    from ..io import expand_runs
    from ..metrics import EvalContext, evaluate, ntcir_report
    from ..metrics.ntcir import format_ntcir_line
    from ..util import atomic_write

    from .ingest import resolve_order

    if args.run is None:
        args._parser.error("the following arguments are required: --runs")
    resolve_order(args, [args.run])
    measures, gains = resolve_measures(args._parser, args)
    sources = expand_runs([args.run])
    if len(sources) != 1:
        raise InputError(f"--runs must name one run; found {len(sources)}: "
                         f"{', '.join(s.name for s in sources[:5])}", args.run)
    from ..io.forms import load_form
    from ._forms import check_form_args
    check_form_args(args._parser, args)
    c = load_form(args.qrels, sources, args.qrels_form, args.intent_probs, order=args.order,
                  depth=args.depth, max_level=args.max_level, trec_eval_version=args.trec_eval_version)
    check_gains(c, gains, args.max_level)
    if args.condensed:
        c = c.condensed()
    ctx = EvalContext(c, gains)
    values = evaluate(ctx, measures)

    def name(m):
        # NTCIREVAL's print form (cutoff zero-padded: nDCG@0010) for NTCIREVAL's own measures only;
        # every other measure by its canonical name (trec.ndcg_cut@10)
        own = getattr(m.definition.func, "__module__", "") in _NTCIREVAL_MODULES
        return m.ntcir_name if own and not m.params else m.name

    lines = list(ntcir_report(ctx, measures, run=0, values=values, names=name))
    if not args.no_means:
        lines += [format_ntcir_line("ALL", name(m), float(np.mean(values[m.name][0]))) for m in measures]
    text = "\n".join(lines) + "\n"
    if args.out:
        with atomic_write(args.out, "w", newline="\n") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0
