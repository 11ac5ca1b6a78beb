"""``metaeval standardisation``: the experiments of Urbano, Lima & Hanjalic (2019) on any tool's
topic x run matrices (issue 30; docs/meta.md, "Score standardisation")."""

from __future__ import annotations

import argparse
import sys


#: metaeval.meta.standardisation's defaults, repeated so that `metaeval --help` imports neither numpy
#: nor pandas (tests/conformance/test_standardisation.py checks that they agree)
DEFAULT_TOPICS, DEFAULT_TRIALS = 50, 1000


def add_parser(sub) -> argparse.ArgumentParser:
    from ._types import int_at_least

    p = sub.add_parser(
        "standardisation", help="how score standardisation changes rankings and significance (Urbano et al. 2019)",
        description="Within a collection (random topic subsets: Kendall's tau_b, tau_AP-b, Pearson's r between "
                    "raw and standardised run means, paired t test power) and between collections (two "
                    "disjoint topic sets: Welch t test type I error and power, tau_b, tau_AP-b, r) for raw "
                    "scores and each standardisation (z, N, U, E). Writes OUT/tables/standardisation_within."
                    "{csv,md,tex}, OUT/tables/standardisation_between.{csv,md,tex}, OUT/standardisation/"
                    "power.csv, OUT/standardisation/trials.csv and OUT/figures/. See docs/meta.md.")
    p.add_argument("--matrices", required=True, metavar="DIR", help="folder of METRIC.csv matrices (raw scores)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--metrics", nargs="+", metavar="M", default=None,
                   help="the matrices to use (default: every matrix without std= in DIR)")
    p.add_argument("--std", nargs="+", metavar="X", default=["z", "N", "U", "E"],
                   help="the standardisations besides raw: z N U E (default: all four)")
    p.add_argument("--topics", type=int_at_least(2), default=DEFAULT_TOPICS, metavar="N",
                   help=f"topics per random subset (default {DEFAULT_TOPICS}; at most half the topics)")
    p.add_argument("--trials", type=int_at_least(1), default=DEFAULT_TRIALS, metavar="T",
                   help=f"random subsets per experiment (default {DEFAULT_TRIALS})")
    p.add_argument("--seed", type=int_at_least(0), default=1, metavar="S", help="random seed (default 1)")
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    return p


def run(args) -> int:
    from ..api import standardisation
    from ..errors import InputError
    from ._std_options import raw_matrices, std_methods

    parser = args._parser
    methods = std_methods(parser, args)
    metrics = raw_matrices(args)
    try:
        frames = standardisation(args.matrices, metrics=metrics, std=methods, topics=args.topics,
                                 trials=args.trials, seed=args.seed, out=args.out, figures=not args.no_figures)
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"standardisation: {e}", args.matrices) from None
    if not args.quiet:
        n = len(frames["standardisation_within"])
        print(f"metaeval standardisation: {n} metric x standardisation rows -> {args.out_shown}", file=sys.stderr)
    return 0
