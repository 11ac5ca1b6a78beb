"""The standardising-run options shared by ``metaeval matrices`` and ``metaeval standardise``
(docs/metrics.md, "Score standardisation")."""

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


def std_methods(parser: argparse.ArgumentParser, args) -> tuple[str, ...]:
    """The methods of ``--std`` (each once, in the order given); a bad one is a usage error."""
    from ..meta.standardisation import check_methods

    try:
        return check_methods(args.std)
    except ValueError as e:
        parser.error(f"--std: {e}")


def raw_matrices(args) -> list[str]:
    """``--metrics``, or every matrix of ``--matrices`` without ``std=`` (InputError if none)."""
    from ..errors import InputError
    from ..meta.matrices import list_matrices
    from ..metrics.standardise import without_std

    names = args.metrics or [m for m in list_matrices(args.matrices) if without_std(m)[1] is None]
    if not names:
        raise InputError("no matrix without std= in the folder", args.matrices)
    return names
