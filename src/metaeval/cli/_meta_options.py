"""The meta-evaluation options shared by ``metaeval meta`` and ``metaeval stage``: one spelling of
every :class:`metaeval.meta.run.MetaConfig` parameter on the command line."""

from __future__ import annotations

import argparse


def add_config_args(p: argparse.ArgumentParser, *, selection: bool = True) -> None:
    """Options for every :class:`~metaeval.meta.run.MetaConfig` field (``selection``: also
    ``--top-runs``/``--select-by``, which the per-stage commands take from ``--runs`` instead)."""
    p.add_argument("--B", type=int, default=1000, help="bootstrap samples (default 1000)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed; every sample set derives from (seed, number of topics, B) (default 0)")
    if selection:
        p.add_argument("--top-runs", type=int, metavar="K",
                       help="keep the top K runs by the mean of --select-by (the papers: 30)")
        p.add_argument("--select-by", default="AP", metavar="METRIC",
                       help="matrix whose mean ranks the runs for --top-runs (default AP, relaxed AP)")
    p.add_argument("--metrics", nargs="+", metavar="M",
                   help="metrics to meta-evaluate (default: every matrix except gain-sweep variants); "
                        "AG_M = paired test on log(M + 0.00001), G_M = geometric mean")
    p.add_argument("--geometric", nargs="+", default=[], metavar="M",
                   help="also evaluate AG_M (paired) and G_M (unpaired, swap, stability) for these")
    p.add_argument("--swap-threshold", type=float, default=0.05, help="largest swap rate (default 0.05)")
    p.add_argument("--swap-max", choices=["performance", "difference"], default="performance",
                   help="column (iii) of the swap table: maximum performance (default) or maximum |D|")
    p.add_argument("--swap-rule", choices=["monotone", "first"], default="monotone",
                   help="read the required difference as the bin from which all swap rates are within "
                        "the threshold (monotone, default) or the first such bin")
    p.add_argument("--fuzziness", nargs="+", type=float, metavar="F",
                   help="fuzziness values of the stability method (default 0.01 ... 0.20)")
    p.add_argument("--kendall", choices=["a", "b"], default="a",
                   help="Kendall's tau-a (Sakai 2007a, Eq. 8, default) or tau-b")
    p.add_argument("--sweep-metrics", nargs="*", metavar="M",
                   help="gain-sweep metrics (default P-plus P-measure O-measure; run when every "
                        "variant matrix is present)")
    p.add_argument("--sweep-gains", nargs="+", metavar="G",
                   help="gain variants in measure syntax, L1 first (default: the paper's 30:20:10, "
                        "0.3:0.2:0.1, 1:1:1, 10:5:1 as 10:20:30 0.1:0.2:0.3 1:1:1 1:5:10)")
    p.add_argument("--default-gains", metavar="G", help="label of the default-gain row (e.g. 1:2:3)")
    p.add_argument("--batch", type=int, help="bootstrap samples per batch (memory bound)")
    p.add_argument("--rbo-p", type=float, default=0.9, metavar="P",
                   help="persistence p of rank-biased overlap in the rank_correlation table (RBO, "
                        "RBO^a, RBO^b; Webber et al. 2010, Corsi & Urbano 2024; default 0.9)")
    # discriminative power (stage discpower): Carterette (2012), Sakai (2014), Sakai (2016)
    p.add_argument("--rthsd-B", type=int, default=5000, metavar="N", dest="rthsd_B",
                   help="permutations of the randomised Tukey HSD test (default 5000, as Sakai's Discpower)")
    p.add_argument("--tss-beta", type=float, default=0.20, metavar="BETA",
                   help="topic set size design: type II error rate, power = 1 - BETA (default 0.20)")
    p.add_argument("--tss-min-diff", type=float, nargs="+", metavar="D",
                   help="topic set size design: minimum detectable differences (default 0.05 0.10)")
    p.add_argument("--tss-systems", type=_systems, nargs="+", metavar="M",
                   help="topic set size design: numbers of systems m of the one-way ANOVA, integers >= 2 "
                        "or 'runs' = the number of runs (default 2 10 runs)")
    # risk-sensitive measures (stage risk; Wang et al. 2012, Dinçer et al. 2014, 2016)
    p.add_argument("--risk-baseline", nargs="+", default=[], metavar="RUN",
                   help="baseline run(s) of the risk table (tables/risk.csv: URisk, TRisk, ZRisk, GeoRisk); "
                        "none: no risk table")
    p.add_argument("--risk-alpha", type=float, nargs="+", default=None, metavar="A",
                   help="risk sensitivities alpha >= 0 of the risk table (a loss weighs 1 + alpha; default 1 5)")


def _systems(text: str):
    """A ``--tss-systems`` value: an integer or ``runs``."""
    if text == "runs":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or 'runs', got {text!r}") from None


def _numbers(kind):
    def parse(text: str):
        try:
            return tuple(kind(x) for x in text.split(",") if x.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    return parse


#: metaeval.meta.incompleteness's methods and defaults, repeated so that building the parser imports
#: no pandas (tests/test_incompleteness.py checks they agree)
METHODS = ("judged", "stratified", "depth", "leave-one-group-out")
DEFAULT_GROUPS, DEFAULT_POOL_DEPTH, DEFAULT_TRIALS = r"^([A-Za-z]+)", 100, 20


def add_incompleteness_args(p: argparse.ArgumentParser) -> None:
    """The options of the incompleteness stage (``metaeval incompleteness``, ``metaeval stage``)."""

    g = p.add_argument_group("incompleteness (robustness to incomplete judgments and pool reuse)")
    g.add_argument("--method", nargs="+", choices=METHODS, default=None, metavar="M", dest="inc_methods",
                   help="how the qrels are reduced: " + ", ".join(METHODS) + " (default judged)")
    g.add_argument("--fractions", type=_numbers(float), default=None, metavar="F,F,...",
                   help="judged/stratified: fractions of the judgments kept (default 0.1,0.2,...,0.9)")
    g.add_argument("--depths", type=_numbers(int), default=None, metavar="D,D,...",
                   help="depth: pool depths (default 10,20,50,100)")
    g.add_argument("--trials", type=int, default=DEFAULT_TRIALS, metavar="N",
                   help=f"judged/stratified: random trials per fraction (default {DEFAULT_TRIALS})")
    g.add_argument("--groups", default=DEFAULT_GROUPS, metavar="REGEX|FILE",
                   help="leave-one-group-out: a regular expression on run names whose first group is "
                        f"the group, or a two-column file RUN GROUP (default {DEFAULT_GROUPS!r})")
    g.add_argument("--pool-depth", type=int, default=DEFAULT_POOL_DEPTH, metavar="D",
                   help=f"leave-one-group-out: the pool depth (default {DEFAULT_POOL_DEPTH})")
    g.add_argument("--no-condensed", action="store_true",
                   help="leave out the condensed-list variants M(judged_only=True)")
    g.add_argument("--write-qrels", action="store_true",
                   help="also write every reduced qrels as incompleteness/qrels/METHOD-LEVEL-TRIAL.txt")
    g.add_argument("--inc-jobs", type=int, default=1, metavar="N",
                   help="compute the levels in N processes (the results do not change)")


def incompleteness_from_args(args):
    """The :class:`~metaeval.meta.incompleteness.IncompletenessConfig` of the parsed options."""
    from ..meta.incompleteness import DEFAULT_DEPTHS, DEFAULT_FRACTIONS, IncompletenessConfig

    if not hasattr(args, "inc_methods"):
        return None
    return IncompletenessConfig(methods=tuple(args.inc_methods or ("judged",)),
                                fractions=args.fractions or DEFAULT_FRACTIONS,
                                depths=args.depths or DEFAULT_DEPTHS, trials=args.trials,
                                groups=args.groups, pool_depth=args.pool_depth,
                                condensed=not args.no_condensed, jobs=args.inc_jobs)


def config_from_args(args):
    """The :class:`~metaeval.meta.run.MetaConfig` of the parsed options (a bad value is an
    :class:`~metaeval.errors.InputError`: one line, exit status 1)."""
    from ..errors import InputError
    from ..meta.run import MetaConfig
    from ..meta.stability import DEFAULT_FUZZINESS
    from ..meta.sweep import DEFAULT_SWEEP_METRICS

    try:
        return MetaConfig(
            B=args.B, alpha=args.alpha, seed=args.seed, top_runs=getattr(args, "top_runs", None),
            select_by=getattr(args, "select_by", "AP"),
            swap_threshold=args.swap_threshold, swap_max_rule=args.swap_max, swap_required_rule=args.swap_rule,
            fuzziness=tuple(args.fuzziness) if args.fuzziness else DEFAULT_FUZZINESS,
            kendall_variant=args.kendall, geometric=tuple(args.geometric), batch=args.batch,
            sweep_metrics=tuple(args.sweep_metrics) if args.sweep_metrics is not None else DEFAULT_SWEEP_METRICS,
            sweep_gains=tuple(args.sweep_gains) if args.sweep_gains else None,
            default_gains=args.default_gains, rbo_p=getattr(args, "rbo_p", 0.9), rthsd_B=args.rthsd_B,
            tss_beta=args.tss_beta, tss_min_diff=tuple(args.tss_min_diff) if args.tss_min_diff else (0.05, 0.10),
            tss_systems=tuple(args.tss_systems) if args.tss_systems else (2, 10, "runs"),
            incompleteness=incompleteness_from_args(args),
            risk_baseline=tuple(getattr(args, "risk_baseline", None) or ()),
            risk_alpha=tuple(getattr(args, "risk_alpha", None) or (1.0, 5.0)))
    except ValueError as e:
        raise InputError(str(e)) from None
