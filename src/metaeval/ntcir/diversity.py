"""``metaeval ntcir glabel|gcompute|irec`` and the ``-ec`` forms of ``label``/``compute``:
NTCIREVAL's diversity and equivalence-class subcommands on one topic (Sakai (2011) Figs. 3-5).

* ``glabel -I GRELV [RES]``: prints the ranked list with the global gain (``%.4f``) of every
  document listed in the Grelv file (``DOCID GAIN``, the ideal list); others bare.
* ``gcompute -I GRELV [-cutoffs ...] [-out PREFIX] [LABELLED]``: the ``compute`` lines for a
  ``glabel`` output, the ideal list being the Grelv file in file order (gains > 0), g_h its highest
  gain.
* ``irec [-cutoffs ...] [-out PREFIX] RES IRELV...``: ``#intent_num=n`` and I-rec at rank n and at
  each cutoff, printed in NTCIREVAL's order (as the ranks are reached; values for ranks past the
  end of the list after it, the cutoffs first).  Every document listed in an Irelv file counts as
  relevant to that intent (NTCIREVAL reads only the document id).
* ``label -ec -r EREL [-sep S]``, ``compute -ec -r EREL [-sep S] -g ...``: equivalence classes
  (``DOCID Lk CLASS`` lines); a later item of an already retrieved class is left unlabelled; R is
  the number of classes.
"""

from __future__ import annotations

from typing import Any

import sys

from ._common import _LABEL, _parse_values, _read_lines


def add_diversity_parsers(sub) -> None:
    g = sub.add_parser("glabel", allow_abbrev=False, help="add global gains to a ranked list",
                       description="Print the ranked list (stdin or RES) with the global gain of "
                                   "every document of the Grelv file (Sakai (2011) Fig. 4).")
    g.add_argument("-I", dest="grelv", required=True, metavar="GRELV",
                   help="ideal list of the topic: DOCID GAIN lines, gain descending")
    g.add_argument("res", nargs="?", metavar="RES", help="ranked list file (default: stdin)")
    g.set_defaults(func=run_glabel)

    c = sub.add_parser("gcompute", allow_abbrev=False, help="D-measures of a glabel output",
                       description="Print NTCIREVAL's header lines and measures computed on global "
                                   "gains (D-measures; Sakai (2011) Fig. 4).")
    c.add_argument("-I", dest="grelv", required=True, metavar="GRELV",
                   help="ideal list of the topic: DOCID GAIN lines, gain descending")
    c.add_argument("-cutoffs", dest="cutoffs", default="1000", metavar="l1,l2,...",
                   help="document cutoffs (default 1000)")
    c.add_argument("-beta", dest="beta", type=float, default=1.0, help="blended-ratio beta (default 1)")
    c.add_argument("-gamma", dest="gamma", type=float, default=0.95, help="rank-biased NCU gamma")
    c.add_argument("-logb", dest="logb", type=float, default=2.0, help="log base of the original nDCG")
    c.add_argument("-rbp", dest="rbp", type=float, default=0.95, help="RBP persistence (default 0.95)")
    c.add_argument("-rbup", dest="rbup", type=float, default=0.99, help="iRBU persistence (default 0.99)")
    c.add_argument("-out", dest="out", default="", metavar="PREFIX",
                   help="string printed at the start of every output line")
    c.add_argument("-v2011", dest="v2011", action="store_true",
                   help="print the 2011 measure list of Sakai (2011) Fig. 4")
    c.add_argument("labelled", nargs="?", metavar="LABELLED", help="glabel output (default: stdin)")
    c.set_defaults(func=run_gcompute)

    i = sub.add_parser("irec", allow_abbrev=False, help="intent recall of a ranked list",
                       description="Print #intent_num and I-rec at rank n (the number of intents) "
                                   "and at each cutoff (Sakai (2011) Fig. 5). Options come before RES.")
    i.add_argument("-cutoffs", dest="cutoffs", default="1000", metavar="l1,l2,...",
                   help="document cutoffs (default 1000)")
    i.add_argument("-out", dest="out", default="", metavar="PREFIX",
                   help="string printed at the start of every output line")
    i.add_argument("res", metavar="RES", help="ranked list file (one document id a line)")
    i.add_argument("irelv", nargs="+", metavar="IRELV", help="one relevant-document list per intent")
    i.set_defaults(func=run_irec)


def _docs(lines):
    return [ln.strip() for ln in lines if ln.strip()]


def _grelv(path):
    from ..errors import InputError

    name, lines = _read_lines(path)
    docs, gains = [], []
    for k, ln in enumerate(lines, 1):
        f = ln.split()
        if not f:
            continue
        if len(f) != 2:
            raise InputError(f"expected 'DOCID GAIN', got {len(f)} fields", name, k)
        docs.append(f[0])
        gains.append(_gain(f[1], name, k, " (NTCIREVAL: a gain must be >= 0)"))
    return docs, gains


def _gain(text: str, name, k: int, why: str = "") -> float:
    """The gain field ``text`` of line ``k`` of file ``name``: a number >= 0, else one line naming both."""
    from ..errors import InputError

    try:
        g = float(text)
    except ValueError:
        raise InputError(f"gain {text!r} is not a number", name, k) from None
    if not g >= 0:
        raise InputError(f"negative gain {text}{why}", name, k)
    return g


def run_glabel(args) -> int:
    docs, gains = _grelv(args.grelv)
    gain = dict(zip(docs, gains))
    _, lines = _read_lines(args.res)
    out = []
    for d in _docs(lines):
        g = gain.get(d)
        out.append(d if g is None else f"{d} {g:.4f}")
    sys.stdout.write("".join(s + "\n" for s in out))
    return 0


def _cutoffs(text):
    from ..errors import InputError
    from ..metrics.registry import parse_cutoffs

    try:
        return list(parse_cutoffs(text))
    except ValueError as e:
        raise InputError(f"-cutoffs: {e}") from None


def run_gcompute(args) -> int:
    import math

    from ..errors import InputError
    from ..metrics import evaluate, ntcir_measures, ntcir_report
    from ..metrics.diversity import gain_list_context
    from ..metrics.ntcir import _TOP_2011, _CUT_2011, _with

    cutoffs = _cutoffs(args.cutoffs)
    for opt, v in (("-gamma", args.gamma), ("-rbp", args.rbp), ("-rbup", args.rbup)):
        if not 0 < v <= 1:
            raise InputError(f"{opt} {v}: expected a value in (0, 1]")
    _, ideal = _grelv(args.grelv)
    if not any(g > 0 for g in ideal):
        raise InputError("no document with a positive gain in the ideal list (NTCIREVAL prints "
                         "nothing for such a topic)", args.grelv)
    name, lines = _read_lines(args.labelled)
    sg = []
    for k, ln in enumerate(lines, 1):
        f = ln.split()
        if not f:
            continue
        if len(f) == 1:
            sg.append(math.nan)
            continue
        if len(f) != 2:
            raise InputError(f"expected 'DOCID' or 'DOCID GAIN', got {len(f)} fields", name, k)
        sg.append(_gain(f[1], name, k))
    ctx = gain_list_context(sg, ideal, args.out)
    params = {"beta": args.beta, "gamma": args.gamma, "logb": args.logb, "persistence": args.rbp}
    if args.v2011:
        top = [b for b in _TOP_2011 if not b.startswith("NCUgu")]
        ms = [_with(b, None, params) for b in top]
        for l in cutoffs:
            ms += [_with(b, l, params) for b in _CUT_2011]
        names = lambda m: m.ntcir_name.replace("Prec@", "P@")
    else:
        ms = ntcir_measures(cutoffs, rbu=args.rbup, **params)
        names = None
    vals = evaluate(ctx, ms)
    sys.stdout.write("".join(s + "\n" for s in ntcir_report(ctx, ms, values=vals,
                                                             prefix=lambda t: args.out, names=names)))
    return 0


def run_irec(args) -> int:
    from ..errors import InputError
    from ..metrics.ntcir import format_ntcir_line

    cutoffs = _cutoffs(args.cutoffs)
    if len(args.irelv) > 64:
        raise InputError(f"{len(args.irelv)} Irelv files: NTCIREVAL takes at most 64 intents")
    _, lines = _read_lines(args.res)
    docs = _docs(lines)
    rel = []
    for path in args.irelv:
        _name, ls = _read_lines(path)
        rel.append({ln.split()[0] for ln in ls if ln.split()})
    n = len(rel)
    covered = [False] * n
    first = {}
    for r, d in enumerate(docs, 1):                       # one topic's list: a plain loop is fine
        for i in range(n):
            if not covered[i] and d in rel[i]:
                covered[i] = True
        first[r] = sum(covered)
    L = len(docs)

    def at(rank):
        return (first[min(rank, L)] if L else 0) / n if n else 0.0

    out = [f"{args.out} #intent_num={n}"]
    for r in range(1, L + 1):
        if r == n:
            out.append(format_ntcir_line(args.out, "I-rec@n", at(n)))
        out += [format_ntcir_line(args.out, f"I-rec@{l:04d}", at(l)) for l in cutoffs if l == r]
    out += [format_ntcir_line(args.out, f"I-rec@{l:04d}", at(l)) for l in cutoffs if l > L]
    if n > L:
        out.append(format_ntcir_line(args.out, "I-rec@n", at(n)))
    sys.stdout.write("".join(s + "\n" for s in out))
    return 0


# ----------------------------------------------------------------- equivalence classes (-ec)

def _split(line: str, sep):
    return [f.strip() for f in line.split(sep)] if sep else line.split()


def _ec_number(text: str) -> int:
    """The class number of an erel line as NTCIREVAL reads it (C ``atol``: the leading integer,
    0 when there is none)."""
    import re

    m = re.match(r"\s*([+-]?[0-9]+)", text)
    return int(m.group(1)) if m else 0


def _erel(path, sep, max_level=None):
    """``{item: (label, class number)}`` of an erel file (``ITEM Lk CLASS``, every line with its
    class, L0 lines too, as NTCIREVAL's ``-ec`` reads them).  A class number below 1 is refused
    as NTCIREVAL refuses it (``bad ec number: 0``), naming the file and line."""
    from ..errors import InputError

    name, lines = _read_lines(path)
    out: dict = {}
    for k, ln in enumerate(lines, 1):
        if not ln.strip():
            continue
        f = _split(ln, sep)
        if len(f) != 3:
            raise InputError(f"expected 'ITEM Lk CLASS', got {len(f)} field{'s' * (len(f) != 1)}", name, k)
        m = _LABEL.match(f[1])
        if not m:
            raise InputError(f"unknown relevance label {f[1]!r}: expected L0, L1, ...", name, k)
        lv = int(m.group(1))
        if max_level is not None and lv > max_level:
            raise InputError(f"label {f[1]} exceeds the highest level L{max_level} declared by -g", name, k)
        num = _ec_number(f[2])
        if num < 1:
            raise InputError(f"bad ec number: {num}", name, k)
        out.setdefault(f[0], (lv, num))
    return out


def run_label_ec(args) -> int:
    """NTCIREVAL's ``label -ec``: the first retrieved item of a class is printed with its label
    and class number; a later item of a class already seen (whatever the level of the first,
    L0 included) is printed bare."""
    judged = _erel(args.rel, args.sep)
    _, lines = _read_lines(args.res)
    sep = args.sep or " "
    seen, out, n = set(), [], 0
    for ln in lines:
        d = ln.strip()
        if not d:
            continue
        n += 1
        j = judged.get(d)
        if j is not None and j[1] not in seen:
            seen.add(j[1])
            out.append(sep.join([d, f"L{j[0]}", str(j[1])]))
        elif j is not None or not args.judged:
            out.append(d)
        if args.truncate is not None and n >= args.truncate:
            break
    sys.stdout.write("".join(s + "\n" for s in out))
    return 0


def run_compute_ec(args) -> int:
    import numpy as np

    from ..collection import PAD, Collection
    from ..errors import InputError
    from ..metrics import EvalContext, evaluate, ntcir_measures, ntcir_measures_2011, ntcir_report

    gains = _parse_values(args.gains, "gains")
    H = len(gains)
    cutoffs = _cutoffs(args.cutoffs)
    judged = _erel(args.rel, args.sep, max_level=H)
    # R = the classes by their best level; NTCIREVAL counts no judged nonrelevant item in EC
    # mode (its header prints jnonrel=0, and -j finds no L0 item for bpref)
    counts = np.zeros(H + 1, np.int64)
    best: dict[Any, Any] = {}
    for lv, cl in judged.values():
        best[cl] = max(best.get(cl, 0), lv)
    for lv in best.values():
        if lv >= 1:
            counts[lv] += 1
    if counts[1:].sum() == 0:
        raise InputError("no relevant item in the relevance file (NTCIREVAL: no rel doc)", args.rel)
    if args.judged:
        raise InputError("no judged nonrelevant (L0) item: bpref etc. are not computable (in EC mode "
                         "NTCIREVAL counts none)", args.rel)
    name, lines = _read_lines(args.labelled)
    levels = []
    for k, ln in enumerate(lines, 1):
        if not ln.strip():
            continue
        f = _split(ln, args.sep)
        if len(f) == 1:
            levels.append(-1)
            continue
        m = _LABEL.match(f[1]) if len(f) in (2, 3) else None
        if not m:
            raise InputError("expected 'ITEM' or 'ITEM Lk CLASS'", name, k)
        if int(m.group(1)) > H:
            raise InputError(f"label {f[1]} exceeds the highest level L{H} declared by -g", name, k)
        levels.append(int(m.group(1)))
    n = len(levels)
    lv = np.full((1, 1, max(n, 1)), PAD, np.int8)
    lv[0, 0, :n] = levels
    coll = Collection(topics=(args.out,), runs=("run",), levels=lv, lengths=np.array([[n]], np.int64),
                      level_counts=counts[None, :])
    params = {"beta": args.beta, "gamma": args.gamma, "logb": args.logb, "persistence": args.rbp}
    if args.v2011:
        ms = ntcir_measures_2011(cutoffs, **params)
        names = lambda m: m.ntcir_name.replace("Prec@", "P@")
    else:
        ms = ntcir_measures(cutoffs, rbu=args.rbup, **params)
        names = None
    ctx = EvalContext(coll, gains)
    vals = evaluate(ctx, ms)
    sys.stdout.write("".join(s + "\n" for s in ntcir_report(ctx, ms, values=vals,
                                                             prefix=lambda t: args.out, names=names)))
    return 0
