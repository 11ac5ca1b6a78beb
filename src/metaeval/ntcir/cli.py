"""``metaeval ntcir label|compute``: a drop-in for NTCIREVAL's ``ntcir_eval label|compute`` on one topic.

Same inputs and outputs as Sakai (2011) Figs. 1-2 (and NTCIREVAL's README):

* ``metaeval ntcir label -r REL [-j] [-truncate N] [RES]``: reads a ranked list (one document id per
  line; stdin by default) and prints it with relevance labels (``DOCID Lk``; an unjudged document
  is printed without a label, or dropped with ``-j`` -- a condensed list).
* ``metaeval ntcir compute -r REL -g G1:...:GH [-cutoffs l1,l2,...] [-beta B] [-gamma G] [-logb A]
  [-rbp P] [-rbup P] [-s S1:...:SH] [-j] [-out PREFIX] [-v2011] [LABELLED]``: reads a labelled list
  and prints the ``#`` header lines and every measure, ``PREFIX NAME=<pad>VALUE`` (``%.4f``).

As in NTCIREVAL, ``-out PREFIX`` is the string printed at the start of every output line (the
``NTCIR-eval`` script passes the topic id); without it the lines start with a space.  ``-v2011``
prints the 2011 measure list of Sakai (2011) Fig. 1 (``P@l``, graded-uniform NCU) instead of the
current one (``Prec@l``, NCUrb,IE, EBR, iRBU, ...).  The computation is the library's array code on
a one-run, one-topic :class:`~metaeval.collection.Collection`.
"""

from __future__ import annotations

import argparse
import sys

from ._common import _LABEL, _parse_values, _read_lines


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "ntcir", help="ntcir_eval-compatible label/compute for one topic",
        description="Drop-in replacement for NTCIREVAL's `ntcir_eval label` and `ntcir_eval "
                    "compute` on one topic (Sakai 2011, Figs. 1-2). Options are single-dash like "
                    "NTCIREVAL's.")
    sub = p.add_subparsers(dest="ntcir_command", metavar="label|compute|glabel|gcompute|irec")
    sub.required = True

    lab = sub.add_parser("label", allow_abbrev=False,
                         help="add relevance labels to a ranked list",
                         description="Print the ranked list (one document id per line, stdin or RES) "
                                     "with the relevance label of each judged document.")
    lab.add_argument("-r", dest="rel", required=True, metavar="REL",
                     help="relevance file of the topic: DOCID Lk lines")
    lab.add_argument("-j", dest="judged", action="store_true",
                     help="drop unjudged documents (condensed list)")
    lab.add_argument("-truncate", dest="truncate", type=int, metavar="N",
                     help="label only the top N documents")
    lab.add_argument("-ec", dest="ec", action="store_true",
                     help="equivalence classes: REL is an erel file (ITEM Lk CLASS); a later item "
                          "of an already retrieved class is left unlabelled")
    lab.add_argument("-sep", dest="sep", default=None, metavar="S",
                     help="with -ec: field separator of the erel file (items may contain spaces)")
    lab.add_argument("res", nargs="?", metavar="RES", help="ranked list file (default: stdin)")
    lab.set_defaults(func=run_label)

    comp = sub.add_parser("compute", allow_abbrev=False,
                          help="compute the measures of a labelled ranked list",
                          description="Print NTCIREVAL's header lines and measures for a labelled "
                                      "ranked list (output of `label`).")
    comp.add_argument("-r", dest="rel", required=True, metavar="REL",
                      help="relevance file of the topic: DOCID Lk lines")
    comp.add_argument("-g", dest="gains", required=True, metavar="G1:...:GH",
                      help="gain values for L1..LH (declares H), non-decreasing")
    comp.add_argument("-s", dest="stops", metavar="S1:...:SH",
                      help="stop values of graded-uniform NCU (default: the gains; -v2011 output)")
    comp.add_argument("-cutoffs", dest="cutoffs", default="1000", metavar="l1,l2,...",
                      help="document cutoffs (default 1000)")
    comp.add_argument("-beta", dest="beta", type=float, default=1.0, help="blended-ratio beta (default 1)")
    comp.add_argument("-gamma", dest="gamma", type=float, default=0.95,
                      help="rank-biased NCU gamma (default 0.95)")
    comp.add_argument("-logb", dest="logb", type=float, default=2.0,
                      help="log base of the original nDCG (default 2; 0 = natural log)")
    comp.add_argument("-rbp", dest="rbp", type=float, default=0.95, help="RBP persistence (default 0.95)")
    comp.add_argument("-rbup", dest="rbup", type=float, default=0.99,
                      help="persistence of iRBU and NCUrb,IE (default 0.99)")
    comp.add_argument("-j", dest="judged", action="store_true",
                      help="the input is a condensed list: also print bpref and its variants")
    comp.add_argument("-out", dest="out", default="", metavar="PREFIX",
                      help="string printed at the start of every output line (e.g. the topic id)")
    comp.add_argument("-v2011", dest="v2011", action="store_true",
                      help="print the 2011 measure list of Sakai (2011) Fig. 1 (P@l, NCUgu)")
    comp.add_argument("-ec", dest="ec", action="store_true",
                      help="equivalence classes: REL is an erel file; R = the number of classes")
    comp.add_argument("-sep", dest="sep", default=None, metavar="S",
                      help="with -ec: field separator of the erel file and the labelled list")
    comp.add_argument("labelled", nargs="?", metavar="LABELLED",
                      help="labelled ranked list (default: stdin)")
    comp.set_defaults(func=run_compute)
    from .diversity import add_diversity_parsers
    add_diversity_parsers(sub)
    return p


# ------------------------------------------------------------------------------ helpers


def _judged(rel_path, max_level=None) -> tuple[dict[str, int], object]:
    from ..io.qrels import read_rel
    q = read_rel(rel_path, topic="topic", max_level=max_level)
    judged = q["topic"] if "topic" in q else {}  # noqa: SIM401 - a Qrels is no dict (no .get)
    return judged, q


# -------------------------------------------------------------------------------- label


def run_label(args) -> int:
    from ..errors import InputError

    if args.truncate is not None and args.truncate < 1:
        raise InputError(f"-truncate {args.truncate}: expected a positive rank")
    if getattr(args, "ec", False):
        from .diversity import run_label_ec
        return run_label_ec(args)
    judged, _ = _judged(args.rel)
    _name, lines = _read_lines(args.res)
    out = []
    n = 0
    for line in lines:
        doc = line.strip()
        if not doc:
            continue                      # blank lines are not documents
        n += 1
        lv = judged.get(doc)
        if lv is not None:
            out.append(f"{doc} L{lv}")
        elif not args.judged:
            out.append(doc)
        if args.truncate is not None and n >= args.truncate:
            break
    sys.stdout.write("".join(s + "\n" for s in out))
    return 0


# ------------------------------------------------------------------------------ compute


def _parse_labelled(name: str, lines: list[str], H: int):
    """Levels of a labelled list: -1 for an unlabelled (unjudged) line."""
    import numpy as np

    from ..errors import InputError
    levels = []
    for i, line in enumerate(lines, 1):
        f = line.split()
        if not f:
            continue
        if len(f) == 1:
            levels.append(-1)
            continue
        if len(f) != 2:
            raise InputError(f"expected 'DOCID' or 'DOCID Lk', got {len(f)} fields", name, i)
        m = _LABEL.match(f[1])
        if not m:
            raise InputError(f"unknown relevance label {f[1]!r}: expected L0, L1, ...", name, i)
        lv = int(m.group(1))
        if lv > H:
            raise InputError(f"label {f[1]} exceeds the highest level L{H} declared by -g", name, i)
        levels.append(lv)
    return np.asarray(levels, dtype=np.int8)


def run_compute(args) -> int:
    import numpy as np

    from ..collection import PAD, Collection
    from ..errors import InputError
    from ..metrics import EvalContext, evaluate, ntcir_measures, ntcir_measures_2011, ntcir_report
    from ..metrics.registry import parse_cutoffs

    if getattr(args, "ec", False):
        from .diversity import run_compute_ec
        return run_compute_ec(args)
    gains = _parse_values(args.gains, "gains")
    H = len(gains)
    stops = _parse_values(args.stops, "stops", positive=True) if args.stops else None
    if stops is not None and len(stops) != H:
        raise InputError(f"-s gives {len(stops)} stop values but -g declares {H} levels")
    try:
        cutoffs = list(parse_cutoffs(args.cutoffs))
    except ValueError as e:
        raise InputError(f"-cutoffs: {e}") from None
    for opt, v in (("-gamma", args.gamma), ("-rbp", args.rbp), ("-rbup", args.rbup)):
        if not 0 < v <= 1:
            raise InputError(f"{opt} {v}: expected a value in (0, 1]")
    if args.beta < 0 or args.logb < 0:
        raise InputError("-beta and -logb must be non-negative")

    judged, _q = _judged(args.rel, max_level=H)
    counts = np.zeros(H + 1, dtype=np.int64)
    for lv in judged.values():
        counts[lv] += 1
    if counts[1:].sum() == 0:
        raise InputError("no relevant document in the relevance file (NTCIREVAL: no rel doc)", args.rel)
    if args.judged and counts[0] == 0:
        raise InputError("no judged nonrelevant (L0) document: bpref etc. are not computable",
                         args.rel)
    name, lines = _read_lines(args.labelled)
    lv = _parse_labelled(name, lines, H)
    n = len(lv)
    levels = np.full((1, 1, max(n, 1)), PAD, dtype=np.int8)
    levels[0, 0, :n] = lv
    coll = Collection(topics=(args.out,), runs=("run",), levels=levels,
                      lengths=np.array([[n]], dtype=np.int64), level_counts=counts[None, :])
    params = {"beta": args.beta, "gamma": args.gamma, "logb": args.logb, "persistence": args.rbp}
    if args.v2011:
        ms = ntcir_measures_2011(cutoffs, condensed=args.judged, stops=stops, **params)
        names = lambda m: m.ntcir_name.replace("Prec@", "P@")
    else:
        ms = ntcir_measures(cutoffs, condensed=args.judged, rbu=args.rbup, **params)
        names = None
    ctx = EvalContext(coll, gains)
    vals = evaluate(ctx, ms)
    out = "".join(s + "\n" for s in ntcir_report(ctx, ms, values=vals, prefix=lambda t: args.out,
                                                 names=names))
    sys.stdout.write(out)
    return 0
