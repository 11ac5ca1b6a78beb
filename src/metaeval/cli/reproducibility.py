"""``metaeval reproducibility``: was it reproduced?  The reproducibility and replicability measures of
Breuer et al. (2020), exact to repro_eval 0.5.0, for every reproduction of an original pair of runs
at once (docs/meta.md, "Reproducibility"); a reproduction ``--rep NAME=B,A`` parsed as the stage's
option is (:func:`metaeval.meta.stages.reproducibility.reproduction`: its name and two run files)."""

from __future__ import annotations

import argparse


def _unit_open(text: str) -> float:
    """RBO's persistence: a number in (0, 1) (checked as every declared option is)."""
    from ._types import checked

    return checked(float, _UNIT_OPEN)(text)


_UNIT_OPEN = {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}
setattr(_unit_open, "schema", _UNIT_OPEN)  # noqa: B010 - what the option's help describes


from ._figure_options import add_figure_args

def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from ..meta.stages.reproducibility import DEFAULT_METRICS, reproduction
    from ._types import int_at_least

    p = subparsers.add_parser(
        "reproducibility", help="was it reproduced? reproducibility and replicability measures (Breuer et al. 2020)",
        description="Compare every reproduction (a baseline and an advanced run) with the original pair, as "
                    "Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff (2020) define the measures and "
                    "repro_eval 0.5.0 computes them: Kendall's tau Union and RBO of the document orderings, RMSE "
                    "and nRMSE of the per-topic scores, the paired t test's p-value, Effect Ratio and Delta RI; "
                    "with --rep-qrels (replicability on another collection) the unpaired t test, ER and Delta RI "
                    "only. Writes OUT/tables/{reproducibility,effects,reproducibility_topics}.{csv,md,tex} and "
                    "OUT/figures/reproducibility_{effects,rmse}.{png,pdf}. See docs/meta.md.")
    p.add_argument("--qrels", required=True, metavar="Q", help="qrels of the original collection")
    p.add_argument("--orig", required=True, nargs=2, metavar=("BASELINE", "ADVANCED"),
                   help="the original baseline and advanced run files")
    p.add_argument("--rep", required=True, action="extend", nargs="+", type=reproduction, metavar="NAME=B,A",
                   help="a reproduction: its name, baseline and advanced run files (repeat for a campaign)")
    p.add_argument("--rep-qrels", metavar="Q2", help="qrels of the reproductions' collection (replicability)")
    p.add_argument("--metrics", nargs="+", action="extend", metavar="M",
                   help=f"measures, ir_measures' names (default {' '.join(DEFAULT_METRICS)})")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--depth", type=int_at_least(1), default=1000,
                   help="documents kept per topic in repro_eval's order, and RBO's depth (default 1000)")
    p.add_argument("--rbo-p", type=_unit_open, default=0.95, help="RBO's persistence p (default 0.95)")
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument("--quiet", action="store_true", help="no summary on stdout")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    add_figure_args(p)
    return p


def run(args: argparse.Namespace) -> int:
    from ..api import reproducibility
    from ..errors import InputError
    from ..meta.stages.reproducibility import DEFAULT_METRICS

    names = [r.name for r in args.rep]           # NamedFiles: a name and its two run files
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        args._parser.error(f"--rep: two reproductions named {dup[0]!r}")
    reps = {r.name: r.files for r in args.rep}
    try:
        res = reproducibility(args.qrels, args.orig, reps, metrics=args.metrics or list(DEFAULT_METRICS),
                              rep_qrels=args.rep_qrels, depth=args.depth, rbo_p=args.rbo_p, out=args.out,
                              figures=not args.no_figures)
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"reproducibility: {e}") from None
    if not args.quiet:
        print(f"metaeval reproducibility: {len(reps)} reproduction(s) x {len(res.metrics)} measure(s), "
              f"{res.mode} -> {args.out_shown}")
        eff = res.effects
        for rep in dict.fromkeys(eff["reproduction"].tolist()) if len(eff) else ():
            row = eff[eff["reproduction"] == rep].iloc[0]           # the first measure: the headline
            print(f"  {rep}: Effect Ratio {float(row['er']):.4f}, Delta RI {float(row['dri']):.4f} on {row['metric']} "
                  f"(ER 1 and Delta RI 0: the original's effect reproduced)")
    return 0
