"""``metaeval test-errors``: which significance test to trust on this collection -- simulated type
I, II and III error rates of the paired tests (Urbano, Lima & Hanjalic 2019; docs/meta.md)."""

from __future__ import annotations

import argparse
import sys


from ._figure_options import add_figure_args

def add_parser(subparsers) -> argparse.ArgumentParser:
    # the defaults, standard library only: `metaeval --help` loads no numpy
    from ..meta import stages
    from ..meta.stages.error_rates import (
        DEFAULT_ALPHAS,
        DEFAULT_DELTAS,
        DEFAULT_TOPICS,
        TESTS,
    )
    from ..meta.stages.common import SEED
    from ._types import comma_list, declared, int_at_least, ints_at_least, names_in, probabilities

    def schema(name: str):
        return next(prm for prm in stages.get("test_errors").params if prm.name == name).schema

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
    p.add_argument("--pairs", type=int_at_least(1), default=20, help="run pairs per metric and delta (default 20)")
    p.add_argument("--topics", type=ints_at_least(2), default=list(DEFAULT_TOPICS),
                   help="topic set sizes (default 25,50,100)")
    p.add_argument("--trials", type=int_at_least(1), default=1000, help="simulated topic sets per pair and size (default 1000)")
    p.add_argument("--deltas", type=comma_list(float, schema("te_deltas")), default=list(DEFAULT_DELTAS),
                   help="true differences for power and type III (default 0.01,...,0.10)")
    p.add_argument("--alphas", type=probabilities, default=list(DEFAULT_ALPHAS),
                   help="significance levels (default 0.001,...,0.009,0.01,...,0.1)")
    p.add_argument("--tests", type=names_in(TESTS), default=list(TESTS),
                   help=f"tests (default {','.join(TESTS)})")
    p.add_argument("--B", type=declared("B"), default=1000, help="bootstrap / permutation resamples (default 1000)")
    p.add_argument("--seed", type=declared("seed"), default=SEED, help=f"random seed (default {SEED})")
    p.add_argument("--conventions", choices=("urbano2019",), default="urbano2019",
                   help="the tests' conventions (urbano2019: the paper's ir_tests.R; docs/meta.md)")
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    add_figure_args(p)
    return p


def run(args) -> int:
    from ..api import test_errors
    from ..errors import InputError

    try:
        res = test_errors(args.matrices, metrics=args.metrics, pairs=args.pairs, topics=args.topics,
                          trials=args.trials, deltas=args.deltas, alphas=args.alphas, tests=args.tests,
                          B=args.B, seed=args.seed, out=args.out, figures=not args.no_figures)
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"test-errors: {e}", args.matrices) from None
    if not args.quiet:
        print(f"metaeval test-errors: {len(res.type1)} type I, {len(res.power)} power and {len(res.type3)} "
              f"type III rows -> {args.out_shown}", file=sys.stderr)
    return 0
