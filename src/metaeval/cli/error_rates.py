"""``metaeval test-errors``: which significance test to trust on this collection -- simulated type
I, II and III error rates of the paired tests (Urbano, Lima & Hanjalic 2019; docs/meta.md)."""

from __future__ import annotations

import argparse
import sys

from ._figure_options import add_figure_args

#: the stage's options the command words itself: its input selection
SKIP = ("--metrics",)


def add_parser(subparsers) -> argparse.ArgumentParser:
    # the options of the stage's parameters, standard library only: `metaeval --help` loads no numpy
    from ._meta_options import add_command_args

    p = subparsers.add_parser(
        "test-errors", help="simulated type I, II and III error rates of the significance tests",
        description="Fit every run's score distribution (margins by AIC: truncated normal, beta, kernel; "
                    "beta-binomial and discrete kernel for P@k and RR; Urbano & Nagler 2018) and the copula "
                    "of sampled run pairs, simulate topic sets where the truth is known and count how often "
                    "each paired test rejects a true null (type I), detects a true difference delta (power) "
                    "or is significant in the wrong direction (type III), as Urbano, Lima & Hanjalic (2019). "
                    "Reads MATRICES/METRIC.csv; writes OUT/tables/test_errors_{type1,power,type3}.{csv,md,tex}, "
                    "OUT/test_errors/{margins,copulas}.csv and OUT/figures/. See docs/meta.md.")
    p.add_argument("--matrices", required=True, metavar="DIR", help="folder of METRIC.csv topic x run matrices")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--metrics", nargs="+", action="extend", metavar="M", help="metrics (default: every matrix)")
    # --pairs ... --conventions: declared by the stage (metaeval/meta/stages/error_rates.py)
    add_command_args(p, "test_errors", skip=SKIP)
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    add_figure_args(p)
    return p


def run(args) -> int:
    from ..api import test_errors
    from ..errors import InputError
    from ._meta_options import command_values

    try:
        res = test_errors(args.matrices, metrics=args.metrics, out=args.out, figures=not args.no_figures,
                          **command_values(args, "test_errors", skip=SKIP))
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"test-errors: {e}", args.matrices) from None
    if not args.quiet:
        print(f"metaeval test-errors: {len(res.type1)} type I, {len(res.power)} power and {len(res.type3)} "
              f"type III rows -> {args.out_shown}", file=sys.stderr)
    return 0
