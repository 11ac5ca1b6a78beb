"""``metaeval bayes``: Bayesian inference on every metric of a collection -- the crossed topic x run
model of Sakai (2017) and Benham, Carterette, Culpepper & Moffat (2020): the probability that a run
is better than another, by how much, which run is best (docs/meta.md, "Bayesian inference")."""

from __future__ import annotations

import argparse
import sys

from ._figure_options import add_figure_args

#: the stage's options the command words itself: --metrics, its measures (add_measure_args)
SKIP = ("--metrics",)


def add_parser(subparsers) -> argparse.ArgumentParser:
    # the options of the stage's parameters, standard library only: `metaeval --help` loads no numpy
    from ._meta_options import add_command_args
    from .evaluate import add_measure_args
    from .ingest import add_order_args

    p = subparsers.add_parser(
        "bayes", help="Bayesian inference: P(run A better than run B), credible intervals, effect sizes",
        description="Fit the crossed model y[s,t] = mu + a[s] + b[t] + e[s,t] (a ~ N(0, sa^2), b ~ N(0, sb^2), "
                    "e ~ N(0, se^2), mu ~ N(0, 10^2), sa, sb, se ~ half-Cauchy(0, 1)) of Sakai (2017) and "
                    "Benham, Carterette, Culpepper & Moffat (2020) to every metric's topic x run matrix (every "
                    "run on every topic) with an exact Gibbs sampler: every run's posterior mean, 95%% credible "
                    "interval and probability of being the best, every ordered pair's difference, P(a[s] > "
                    "a[r]) and effect size (a[s] - a[r]) / se, split R-hat and bulk ESS (Vehtari et al. 2021). "
                    "Writes OUT/tables/bayes_{runs,pairs,fit}.{csv,md,tex} and OUT/figures/"
                    "bayes_{intervals,p_greater}.{png,pdf}. See docs/meta.md.")
    src = p.add_argument_group("input (either --matrices, or --qrels and --runs)")
    src.add_argument("--matrices", metavar="DIR", help="folder of METRIC.csv topic x run matrices")
    src.add_argument("--qrels", metavar="QRELS", help="qrels file (NTCIR or TREC form, plain or gzip)")
    src.add_argument("--runs", metavar="GLOB_OR_DIR", nargs="+", action="extend",
                     help="run files: a file, a glob (quote it) or a directory")
    add_measure_args(p)
    add_order_args(p)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    # --draws, --chains, --seed: declared by the stage (metaeval/meta/stages/bayes.py); --metrics: the measures'
    add_command_args(p, "bayes", skip=SKIP)
    p.add_argument("--labels", metavar="FILE", default=None,
                   help="display labels of runs and measures for Markdown, LaTeX and figures (as metaeval compare's "
                        "--labels; without it the runs' default labels, their shared prefix and extension "
                        "stripped); the CSVs keep the names")
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    add_figure_args(p)
    return p


def run(args) -> int:
    from pathlib import Path

    from ..api import bayes
    from ..errors import InputError
    from ..labels import labels_for
    from ..meta.bayes import check_matrix
    from ..pipeline import collection_scope
    from ._meta_options import command_values
    from .compare import _load_scores

    scores = _load_scores(args, args._parser)
    for m, df in scores.items():           # a missing cell, one run, one topic: named with the matrix file
        try:
            check_matrix(df, m)
        except InputError as e:
            raise InputError(e.message, Path(args.matrices) / f"{m}.csv" if args.matrices else None,
                             topic=e.topic) from None
    first = next(iter(scores.values()), None)   # the runs' labels: given (by name or runid) or their defaults
    labels = labels_for([] if first is None else [str(r) for r in first.columns], [str(m) for m in scores],
                        args.labels, getattr(args, "_run_files", None))
    try:
        res = bayes(scores, out=args.out, figures=not args.no_figures, labels=labels,
                    **command_values(args, "bayes", skip=SKIP),
                    collection=collection_scope(Path(args.out) / "tables", args.matrices) if args.matrices else None)
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"bayes: {e}", args.matrices) from None
    if not args.quiet:
        for _, row in res.fit.iterrows():
            pr = res.pairs[res.pairs["metric"] == row["metric"]]
            sure = int((pr["p_greater"] > 0.95).sum())
            print(f"metaeval bayes: {row['metric']}: {len(pr) // 2} run pairs, {sure} with P > 0.95 either way; "
                  f"R-hat {row['rhat_max']:.4f}, bulk ESS {row['ess_min']:.0f} -> {args.out_shown}", file=sys.stderr)
    return 0
