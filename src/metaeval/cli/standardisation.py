"""``metaeval standardise --experiment``: the experiments of Urbano, Lima & Hanjalic (2019) on any
tool's topic x run matrices (docs/meta.md, "Score standardisation") -- their options and their run;
``metaeval standardisation``, the command's name before, is a deprecated alias (hidden from the help,
removed in the next release)."""

from __future__ import annotations

import argparse
import sys

from ._figure_options import add_figure_args

DESCRIPTION = ("Within a collection (random topic subsets: Kendall's tau_b, tau_AP-b, Pearson's r between "
               "raw and standardised run means, paired t test power) and between collections (two "
               "disjoint topic sets: Welch t test type I error and power, tau_b, tau_AP-b, r) for raw "
               "scores and each standardisation (z, N, U, E). Writes OUT/tables/standardisation_within."
               "{csv,md,tex}, OUT/tables/standardisation_between.{csv,md,tex}, OUT/standardisation/"
               "power.csv, OUT/standardisation/trials.csv and OUT/figures/. See docs/meta.md.")

#: the stage's options the commands word themselves: their input selection
SKIP = ("--metrics",)
#: the stage's options only the experiment takes (``metaeval standardise`` refuses them without
#: --experiment; --std also names the methods of its standardised copies)
EXPERIMENT_SKIP = SKIP + ("--std",)


def experiment_options() -> tuple[str, ...]:
    """The dests of the options only the experiment takes, in order (``--no-figures``: its figures)."""
    from ._meta_options import command_dests

    return command_dests("standardisation", skip=EXPERIMENT_SKIP) + ("no_figures",)


def add_std_arg(p: argparse.ArgumentParser) -> None:
    """``--std``, the standardisations: the stage's parameter ``std`` (its default, help and metavar)."""
    from ._meta_options import add_command_args

    add_command_args(p, "standardisation", only=("--std",))


def add_experiment_args(p: argparse.ArgumentParser) -> None:
    """The experiment's own options (beside --matrices, --out, --metrics, --std, --quiet): the stage's
    parameters but its input selection, None unless given."""
    from ._meta_options import add_command_args

    g = p.add_argument_group("the experiments of Urbano et al. (2019) (--experiment)")
    add_command_args(g, "standardisation", skip=EXPERIMENT_SKIP, unset=True)
    g.add_argument("--no-figures", action="store_true", default=None, help="tables only")


def add_parser(sub) -> argparse.ArgumentParser:
    """The deprecated name ``metaeval standardisation`` (no help line: hidden from ``metaeval --help``)."""
    p = sub.add_parser("standardisation", description="Deprecated: use 'metaeval standardise --experiment'. "
                                                      + DESCRIPTION)
    p.add_argument("--matrices", required=True, metavar="DIR", help="folder of METRIC.csv matrices (raw scores)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--metrics", nargs="+", metavar="M", default=None,
                   help="the matrices to use (default: every matrix without std= in DIR)")
    add_std_arg(p)
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
    from ._meta_options import command_values
    from ._std_options import raw_matrices, std_methods

    parser = args._parser
    methods = std_methods(parser, args)
    metrics = raw_matrices(args)
    try:
        frames = standardisation(args.matrices, metrics=metrics, std=methods, out=args.out,
                                 figures=not args.no_figures,
                                 **command_values(args, "standardisation", skip=EXPERIMENT_SKIP))
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"standardisation: {e}", args.matrices) from None
    if not args.quiet:
        n = len(frames["standardisation_within"])
        print(f"metaeval standardise --experiment: {n} metric x standardisation rows -> {args.out_shown}", file=sys.stderr)
    return 0
