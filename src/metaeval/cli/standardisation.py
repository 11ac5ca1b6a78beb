"""``metaeval standardise --experiment``: the experiments of Urbano, Lima & Hanjalic (2019) on any
tool's topic x run matrices (docs/meta.md, "Score standardisation") -- their options and their run;
``metaeval standardisation``, the command's name before, is a deprecated alias (hidden from the help,
removed in the next release)."""

from __future__ import annotations

import argparse
import sys


#: metaeval.meta.standardisation's defaults, repeated so that `metaeval --help` imports neither numpy
#: nor pandas (tests/conformance/test_standardisation.py checks that they agree)
DEFAULT_TOPICS, DEFAULT_TRIALS = 50, 1000


DESCRIPTION = ("Within a collection (random topic subsets: Kendall's tau_b, tau_AP-b, Pearson's r between "
               "raw and standardised run means, paired t test power) and between collections (two "
               "disjoint topic sets: Welch t test type I error and power, tau_b, tau_AP-b, r) for raw "
               "scores and each standardisation (z, N, U, E). Writes OUT/tables/standardisation_within."
               "{csv,md,tex}, OUT/tables/standardisation_between.{csv,md,tex}, OUT/standardisation/"
               "power.csv, OUT/standardisation/trials.csv and OUT/figures/. See docs/meta.md.")

#: the options only the experiment takes (``metaeval standardise`` refuses them without --experiment)
EXPERIMENT_OPTIONS = ("topics", "trials", "seed", "no_figures")


def add_experiment_args(p: argparse.ArgumentParser) -> None:
    """The experiment's own options (beside --matrices, --out, --metrics, --std, --quiet)."""
    from ..meta.stages.common import SEED
    from ._types import declared, int_at_least

    g = p.add_argument_group("the experiments of Urbano et al. (2019) (--experiment)")
    g.add_argument("--topics", type=int_at_least(2), default=None, metavar="N",
                   help=f"topics per random subset (default {DEFAULT_TOPICS}; at most half the topics)")
    g.add_argument("--trials", type=int_at_least(1), default=None, metavar="T",
                   help=f"random subsets per experiment (default {DEFAULT_TRIALS})")
    g.add_argument("--seed", type=declared("seed"), default=None, metavar="S", help=f"random seed (default {SEED})")
    g.add_argument("--no-figures", action="store_true", default=None, help="tables only")


from ._figure_options import add_figure_args

def add_parser(sub) -> argparse.ArgumentParser:
    """The deprecated name ``metaeval standardisation`` (no help line: hidden from ``metaeval --help``)."""
    p = sub.add_parser("standardisation", description="Deprecated: use 'metaeval standardise --experiment'. "
                                                      + DESCRIPTION)
    p.add_argument("--matrices", required=True, metavar="DIR", help="folder of METRIC.csv matrices (raw scores)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--metrics", nargs="+", metavar="M", default=None,
                   help="the matrices to use (default: every matrix without std= in DIR)")
    p.add_argument("--std", nargs="+", metavar="X", default=["z", "N", "U", "E"],
                   help="the standardisations besides raw: z N U E (default: all four)")
    add_experiment_args(p)
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(func=_deprecated_run, out_kind="folder", _parser=p)
    add_figure_args(p)
    return p


def _deprecated_run(args) -> int:
    print("metaeval: warning: 'metaeval standardisation' is deprecated and goes in the next release; "
          "use 'metaeval standardise --experiment'", file=sys.stderr)
    return run(args)


def run(args) -> int:
    from ..api import standardisation
    from ..errors import InputError
    from ..meta.stages.common import SEED
    from ._std_options import raw_matrices, std_methods

    parser = args._parser
    methods = std_methods(parser, args)
    metrics = raw_matrices(args)
    try:
        frames = standardisation(args.matrices, metrics=metrics, std=methods,
                                 topics=DEFAULT_TOPICS if args.topics is None else args.topics,
                                 trials=DEFAULT_TRIALS if args.trials is None else args.trials,
                                 seed=SEED if args.seed is None else args.seed, out=args.out,
                                 figures=not args.no_figures)
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"standardisation: {e}", args.matrices) from None
    if not args.quiet:
        n = len(frames["standardisation_within"])
        print(f"metaeval standardise --experiment: {n} metric x standardisation rows -> {args.out_shown}", file=sys.stderr)
    return 0
