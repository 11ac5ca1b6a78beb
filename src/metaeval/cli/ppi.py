"""``metaeval ppi``: how much human judging an LLM judge saves -- every run's mean score under the
human qrels with prediction-powered intervals (Angelopoulos et al. 2023; PPI++, Angelopoulos, Duchi &
Zrnic 2023) on per-topic scores (Oosterhuis et al. 2024), the same for every pair of runs, and the
judging budget (docs/meta.md "Prediction-powered intervals").  Writes ``OUT/tables/ppi_{means,pairs,
budget}.{csv,md,tex}`` and ``OUT/figures/``, as its stage's job (``metaeval stage ppi``,
:mod:`metaeval.meta.stages.ppi`) does; nothing when an input is rejected."""

from __future__ import annotations

import argparse


from ._figure_options import add_figure_args

def add_parser(sub) -> argparse.ArgumentParser:
    from ..meta.stages.common import SEED
    from ._types import declared, int_at_least, ints_at_least
    from .ingest import add_order_args

    p = sub.add_parser(
        "ppi", help="prediction-powered intervals of run scores from an LLM judge and a few human labels",
        description="Estimate every run's mean score under the human qrels from the human labels of a few topics "
                    "and the judge's labels of many, with intervals valid however wrong the judge is: "
                    "prediction-powered inference (Angelopoulos et al. 2023) and its power-tuned PPI++ "
                    "(Angelopoulos, Duchi & Zrnic 2023) on per-topic scores (Oosterhuis et al. 2024), against "
                    "the human labels alone and the judge alone; the same for every pair of runs; and the judging "
                    "budget - interval width and coverage against the number of labelled topics. Writes "
                    "OUT/tables/ppi_{means,pairs,budget}.{csv,md,tex} and OUT/figures/ (docs/meta.md).")
    p.add_argument("--qrels", metavar="FILE", nargs="+", action="extend", required=True,
                   help="the human qrels (several files: their union)")
    p.add_argument("--judge", metavar="FILE", nargs="+", action="extend", required=True,
                   help="the judge's qrels, any qrels form (several files: their union)")
    p.add_argument("--runs", metavar="GLOB_OR_DIR", nargs="+", action="extend", required=True,
                   help="run files, directories or globs")
    p.add_argument("--metrics", metavar="M", nargs="+", action="extend", default=None,
                   help="metrics (default AP nDCG@10)")
    p.add_argument("--out", metavar="DIR", required=True, help="output folder")
    lab = p.add_mutually_exclusive_group()
    lab.add_argument("--labelled-topics", metavar="FILE", dest="labelled_topics", default=None,
                     help="the human-labelled topics: a topic id per line (default: every topic of the human qrels)")
    lab.add_argument("--labelled", metavar="N", type=int_at_least(2), default=None,
                     help="N labelled topics drawn with --seed from the human topics the judge also judged")
    p.add_argument("--alpha", type=declared("alpha"), default=0.05, help="1 - the intervals' level (default 0.05)")
    p.add_argument("--seed", type=declared("seed"), default=SEED, help=f"seed of --labelled and the budget (default {SEED})")
    p.add_argument("--sizes", type=ints_at_least(2), default=None,
                   help="labelled-set sizes of the budget table (default 5,10,20,30,40: those that fit)")
    p.add_argument("--trials", type=int_at_least(1), default=1000,
                   help="random labelled sets per size (default 1000)")
    p.add_argument("--gains", metavar="G1:...:GH", default=None, help="gains of L1..LH (default 1:2:...:H)")
    p.add_argument("--on-conflict", choices=("error", "max", "min", "first"), default="error", dest="on_conflict",
                   help="a pair judged twice with different labels within the human or the judge's files: an error "
                        "(default), or keep the highest, lowest or first file's label")
    add_order_args(p)
    p.add_argument("--labels", metavar="FILE", default=None,
                   help="display labels of runs and measures for Markdown, LaTeX and figures (as metaeval compare's "
                        "--labels; without it the runs' default labels, their shared prefix and extension "
                        "stripped; the CSV keep the names)")
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument("--quiet", action="store_true", help="print nothing on stdout")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    add_figure_args(p)
    return p


def run(args) -> int:
    import sys

    from ..errors import ConfigError, InputError
    from ..meta.ppi import run_ppi
    from ..meta.stages import StageInputs
    from ..pipeline import write_own_outputs

    parser = args._parser
    if not 0.0 < args.alpha < 1.0:
        parser.error(f"--alpha must lie in (0, 1), got {args.alpha}")
    try:
        res = run_ppi(args.qrels, args.judge, args.runs, metrics=args.metrics or ["AP", "nDCG@10"],
                      labelled_topics=args.labelled_topics, labelled=args.labelled, alpha=args.alpha, seed=args.seed,
                      sizes=args.sizes, trials=args.trials, gains=args.gains, order=args.order, depth=args.depth,
                      on_conflict=args.on_conflict, trec_eval_version=args.trec_eval_version)
    except (InputError, ConfigError):
        raise                                    # rejected input: exit 1
    except ValueError as e:
        parser.error(str(e))
    written = write_own_outputs("ppi", res.tables, args.out, figures=not args.no_figures,   # as its stage's job
                                inputs=StageInputs({}, extra={"result": res}), labels_file=args.labels)
    if not args.quiet:
        sys.stdout.write(f"metaeval ppi: {len(res.runs)} runs x {len(res.metrics)} metrics, {len(res.labelled)} "
                         f"labelled and {len(res.unlabelled)} unlabelled topics; {len(written)} files under "
                         f"{args.out_shown}\n")
        sys.stdout.write(budget_line(res.budget))
    return 0


def budget_line(budget) -> str:
    """The budget's answer, one line per metric: per labelled-set size, the human-only topics an
    interval as narrow as ppi++'s would need ('' without a budget)."""
    if budget is None or not len(budget):
        return ""
    import math

    out = []
    for m in dict.fromkeys(budget["metric"].tolist()):
        g = budget[(budget["metric"] == m) & (budget["estimator"] == "ppi++")].sort_values("labelled", kind="mergesort")
        parts = [f"{int(r.labelled)} labelled ~ {r.human_only_topics:.1f} human-only"
                 for r in g.itertuples() if math.isfinite(r.human_only_topics)]
        if parts:
            out.append(f"  budget {m}: ppi++ on {'; '.join(parts)} topics (as narrow an interval: the judge saves "
                       f"the difference; ppi_budget.csv)\n")
    return "".join(out)
