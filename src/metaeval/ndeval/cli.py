"""``metaeval ndeval [options] QRELS RUN``: a drop-in for TREC's ndeval 4.5 (Web track diversity).

Prints what ``ndeval OPTIONS QRELS RUN`` prints, line for line: the CSV of ERR-IA, nERR-IA,
alpha-DCG, alpha-nDCG @5/@10/@20, NRBP, nNRBP, MAP-IA, P-IA and strec @5/@10/@20 per topic and
their ``amean``.  Options as ndeval reads them, before QRELS and RUN:

  -c                     amean over every qrels topic (a missing topic counts 0)
  -traditional           order a run by score, then docno descending (default: by the RANK column)
  -M D                   keep the first D documents of each topic
  -alpha A, -beta B      redundancy intolerance and patience (0.5 and 0.5)
  -baseline RUN          risk-sensitive mode: every value is RiskBased(run, baseline, riskAlpha)
  -riskAlpha A           the risk sensitivity (default 0): a loss weighs 1 + A

Exit status 0; 1 when an input is rejected (one line naming file and line, nothing printed), as
ndeval; 2 for bad usage.  Measures and conventions: docs/diversity.md.
"""

from __future__ import annotations

import math

import sys
from typing import Any

USAGE = ("Usage: metaeval ndeval [-c] [-traditional] [-M depth] [-alpha A] [-beta B] "
         "[-baseline RUN] [-riskAlpha A] qrels run")
VERSION = "ndeval version 4.5 (Mon 29 Apr 2013 20:51:02 EDT) (metaeval drop-in)"


class _Usage(Exception):
    pass


def add_parser(sub):
    import argparse

    p = sub.add_parser("ndeval", help="drop-in for TREC's ndeval 4.5 (same options, same CSV, risk mode)",
                       description=__doc__, add_help=False)
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda a: main(a.args))
    return p


def _number(text: str, what: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise _Usage(f"{what} {text!r} is not a number") from None
    if math.isnan(v):
        raise _Usage(f"{what} {text!r} is not a number")
    return v


def parse(argv: list[str]) -> dict:
    """ndeval's option loop: options come first, each as ndeval tests it, until two arguments are
    left (a value option needs its value and both files after it)."""
    o: dict[str, Any] = {"c": False, "traditional": False, "M": 0, "alpha": 0.5, "beta": 0.5, "baseline": None, "risk": 0.0, "risk_text": "0"}
    args = list(argv)
    while len(args) != 2:
        head = args[0] if args else ""
        if head == "-version":
            raise _Usage("version")
        if head in ("-help", "--help", "-h"):
            raise _Usage("help")
        if len(args) >= 4 and head in ("-alpha", "-beta", "-M", "-baseline", "-riskAlpha"):
            value = args[1]
            if head in ("-alpha", "-beta"):
                v = _number(value, head)
                if not 0.0 <= v <= 1.0:
                    raise _Usage(f"{head} must lie in [0, 1], got {value}")
                o[head[1:]] = v
            elif head == "-M":
                try:
                    o["M"] = int(value)
                except ValueError:
                    raise _Usage(f"-M {value!r} is not an integer") from None
                if o["M"] <= 0:
                    raise _Usage(f"-M must be positive, got {value}")
            elif head == "-baseline":
                o["baseline"] = value
            else:
                v = _number(value, head)
                if v < 0:
                    raise _Usage(f"-riskAlpha must be >= 0, got {value}")
                o["risk"], o["risk_text"] = v, value
            args = args[2:]
        elif len(args) >= 3 and head == "-traditional":
            o["traditional"] = True
            args = args[1:]
        elif len(args) >= 3 and head.startswith("-"):      # flag letters, as ndeval ("-" alone: none)
            for ch in head[1:]:
                if ch == "c":
                    o["c"] = True
                elif ch != "a":          # ndeval's -a ("all measures") is accepted and changes nothing
                    raise _Usage(f"unknown option {head}")
            args = args[1:]
        else:
            raise _Usage("expected options, then QRELS and RUN" if args else "no QRELS and RUN given")
    o["qrels"], o["run"] = args
    return o


def main(argv=None) -> int:
    from ..errors import InputError

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        o = parse(argv)
    except _Usage as e:
        if str(e) in ("version", "help"):
            return _write(VERSION + "\n" if str(e) == "version" else __doc__)
        print(f"metaeval ndeval: {e}", file=sys.stderr)
        print(USAGE, file=sys.stderr)
        return 2
    from .reader import read_ndeval_qrels, read_ndeval_run
    from .dropin import ndeval_text

    try:
        q = read_ndeval_qrels(o["qrels"])
        run = read_ndeval_run(o["run"], o["traditional"], o["M"])
        base = None if o["baseline"] is None else read_ndeval_run(o["baseline"], o["traditional"], o["M"])
        text = ndeval_text(q, run, base, alpha=o["alpha"], beta=o["beta"], complete=o["c"],
                           risk_alpha=o["risk"], risk_alpha_text=o["risk_text"])
    except (InputError, OSError) as e:
        msg = f"{e.filename}: {e.strerror}" if isinstance(e, OSError) and e.filename else str(e)
        print(f"metaeval ndeval: error: {msg}", file=sys.stderr)
        return 1
    return _write(text)


def _write(text: str) -> int:
    """``text`` on stdout; a reader that stops early (``| head``) ends the command quietly."""
    import os

    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # nothing more can be written: point stdout at /dev/null so that exit's flush stays quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
