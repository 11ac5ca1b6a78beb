"""The standardising-run options shared by ``metaeval matrices`` and ``metaeval standardise``
(issue 30; docs/metrics.md, "Score standardisation")."""

from __future__ import annotations

import argparse


def add_std_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("score standardisation (measures with std=z|N|U|E; docs/metrics.md)")
    g.add_argument("--std-runs", nargs="+", metavar="RUN", default=None,
                   help="the standardising runs (names): each topic's factors come from these runs' "
                        "scores (default: every run)")
    g.add_argument("--std-factors", metavar="FILE", default=None,
                   help="fixed factors: a std_factors.csv written before, or trec_eval's -Z file "
                        "(qid measure mean stddev)")
    g.add_argument("--leave-one-out", action="store_true",
                   help="standardise each standardising run by the factors of the others")


def std_settings(parser: argparse.ArgumentParser, args):
    """:class:`~metaeval.metrics.standardise.StdSettings` from the options (a conflict is a usage
    error; an unreadable factors file an InputError)."""
    from ..metrics.standardise import StdSettings, read_factors

    if args.std_factors and (args.std_runs or args.leave_one_out):
        parser.error("--std-factors replaces --std-runs / --leave-one-out: give one or the other")
    if args.std_factors:
        return StdSettings(factors=read_factors(args.std_factors), source=args.std_factors)
    return StdSettings(runs=tuple(args.std_runs) if args.std_runs else None, leave_one_out=args.leave_one_out)


def matrix_text(topics, runs, mat) -> str:
    """A topic x run matrix (``mat``: ``(topics, runs)``) as ``metaeval matrices`` writes it: header
    ``topic,RUN,...``, values as Python's ``repr`` (exact round trip)."""
    from ..metrics.standardise import _field

    rows = [",".join(map(repr, r)) for r in mat.tolist()]
    header = ",".join(["topic", *(_field(r) for r in runs)]) + "\n"
    return header + "".join(f"{_field(t)},{r}\n" for t, r in zip(topics, rows))
