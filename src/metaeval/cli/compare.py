"""``metaeval compare``: is my run better than the baseline, on these metrics, and by how much?

Per metric and compared pair (every run against ``--baseline``, or all pairs): means, confidence
interval, difference, effect sizes, p-value of the chosen test, adjusted p-value over the family,
significance and wins/ties/losses -> ``OUT/compare.csv``; and the table a paper prints (runs x
metrics, daggers or superscript letters, a legend) -> ``OUT/compare.md`` and ``OUT/compare.tex``.
The chosen ``--format`` is also printed on stdout.  Statistics: docs/meta.md
(:mod:`metaeval.meta.compare`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .evaluate import add_measure_args
from .ingest import add_order_args

DEFAULT_METRICS = ["AP", "nDCG@10"]
#: ``metaeval.meta.compare.COMPARE_TESTS`` (spelled out: building the parser must not import pandas)
TESTS = ("paired-t", "wilcoxon", "sign", "permutation", "bootstrap", "rthsd", "tukey-hsd")
#: the tests that draw samples (--B, --seed)
RESAMPLING = ("permutation", "bootstrap", "rthsd")


class _Given(argparse.Action):
    """Store the value and note that it was given (``_given_DEST``): a default cannot tell."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, f"_given_{self.dest}", True)


def add_parser(sub) -> argparse.ArgumentParser:
    from ..meta.stages.common import SEED
    from ._types import checked, declared

    p = sub.add_parser(
        "compare", help="significance tests, corrections and effect sizes for runs vs a baseline",
        description="Compare runs on one or more metrics: per metric and compared pair the means, "
                    "confidence interval, difference, effect sizes (diff / sqrt(V_E) and Cohen's d_z), "
                    "p-value, adjusted p-value and wins/ties/losses (OUT/compare.csv), and the "
                    "paper-style table (OUT/compare.md, OUT/compare.tex).")
    src = p.add_argument_group("input (either --qrels and --runs, or --matrices)")
    src.add_argument("--qrels", metavar="QRELS", help="qrels file (NTCIR or TREC form, plain or gzip)")
    src.add_argument("--runs", metavar="GLOB_OR_DIR", nargs="+", action="extend",
                     help="run files: a file, a glob (quote it) or a directory; several after one "
                          "--runs, or --runs repeated")
    src.add_argument("--matrices", metavar="DIR",
                     help="per-topic scores from any tool: DIR/METRIC.csv (first column 'topic', one "
                          "column per run), as 'metaeval matrices' writes them")
    add_measure_args(p)
    add_order_args(p)
    p.add_argument("--baseline", metavar="RUN", nargs="+",
                   help="compare every run with this one, named by its file stem, runid or label (default: "
                        "all pairs); several: every run against each, one correction over all those "
                        "comparisons, each baseline's significance marked by its letter")
    p.add_argument("--risk-alpha", type=checked(float, {"type": "number", "minimum": 0}), default=None, metavar="A",
                   help="with --baseline: also the risk-sensitive measures against it for risk sensitivity A "
                        ">= 0 (a loss weighs 1 + A): URisk, TRisk and its p-value, ZRisk, GeoRisk -- columns "
                        "appended to compare.csv, a second table in compare.md/.tex and on stdout")
    p.add_argument("--labels", metavar="FILE",
                   help="display labels: 'NAME LABEL' lines (NAME a run's file stem or runid, or a measure by "
                        "any alias) shown in compare.md/.tex; compare.csv keeps the names (default: each run's "
                        "file stem without a long prefix/suffix shared with other runs)")
    p.add_argument("--test", choices=TESTS, default="paired-t",
                   help="significance test (default paired-t); rthsd and tukey-hsd cover all runs given")
    p.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default=None,
                   help="multiple-comparison correction over the comparisons per metric (default: holm "
                        "when there is more than one comparison; none for rthsd and tukey-hsd)")
    p.add_argument("--alpha", type=declared("alpha"), default=0.05, help="significance level (default 0.05)")
    p.add_argument("--B", type=declared("B"), default=None,
                   help="replicates of the resampling tests (default: permutation 10000, bootstrap 1000, "
                        "rthsd 5000)")
    p.add_argument("--seed", type=declared("seed"), default=SEED, action=_Given,
                   help=f"seed of the resampling tests (default {SEED})")
    p.add_argument("--conventions", choices=("metaeval", "urbano2019"), default="metaeval",
                   help="the tests' conventions: metaeval's (default) or those of Urbano, Lima & Hanjalic "
                        "(2019): R's Wilcoxon and sign tests (ties within 0.01), the bootstrap's shift "
                        "method, random sign flips (docs/meta.md); not for rthsd and tukey-hsd")
    p.add_argument("--show", nargs="+", choices=("p", "es", "dz", "ci"), default=[], metavar="WHAT",
                   help="with --baseline: print beside each mean its p-value against the baseline (p, "
                        "adjusted), effect size diff/sqrt(V_E) (es), Cohen's d_z (dz) and/or the "
                        "confidence interval of the difference (ci)")
    p.add_argument("--sort-by", metavar="METRIC",
                   help="rows by descending mean of METRIC (the baseline stays first)")
    p.add_argument("--out", metavar="DIR", help="write DIR/compare.csv, compare.md and compare.tex")
    p.add_argument("--format", choices=("md", "csv", "tex"), default="md",
                   help="what to print on stdout (default md)")
    p.add_argument("--quiet", action="store_true", help="print nothing on stdout")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    return p


def _load_scores(args, parser):
    from ..errors import InputError

    if args.matrices:
        if args.qrels or args.runs:
            parser.error("--matrices replaces --qrels/--runs; give one or the other")
        from ..meta.matrices import list_matrices, load_matrices, matrices_for

        if args.metrics:
            avail = set(list_matrices(args.matrices))
            args.metrics = matrices_for(args.metrics, avail)
            bad = [m for m in args.metrics if m not in avail]
            if bad:
                raise InputError(f"metric {bad[0]!r} not available (matrices: {', '.join(sorted(avail)) or 'none'})",
                                 args.matrices)
        return load_matrices(args.matrices, args.metrics)
    if not (args.qrels and args.runs):
        parser.error("give --qrels and --runs (or --matrices DIR)")
    import pandas as pd

    from ..io import load_collection
    from .evaluate import check_gains, resolve_measures
    from ..metrics import compute_matrices

    if not args.metrics:
        args.metrics = list(DEFAULT_METRICS)
    from .ingest import resolve_order

    resolve_order(args, args.runs)
    measures, gains = resolve_measures(parser, args)
    c = load_collection(args.qrels, args.runs, order=args.order, depth=args.depth, max_level=args.max_level,
                        trec_eval_version=args.trec_eval_version)
    check_gains(c, gains)
    if args.condensed:
        c = c.condensed()
    values = compute_matrices(c, measures, gains)
    args._run_files = dict(c.info.get("runs") or {})          # runids for --baseline and --labels
    return {name: pd.DataFrame(v.T, index=list(c.topics), columns=list(c.runs)) for name, v in values.items()}


def _write_atomic(path: Path, text: str) -> None:
    from ..util import atomic_write

    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def run(args) -> int:
    from ..report.compare import render_compare
    from ..errors import InputError
    from ..meta.compare import compare

    parser = args._parser
    if args.baseline is not None:            # one baseline: a name, as always; several: a list
        if len(set(args.baseline)) < len(args.baseline):
            parser.error("--baseline: a run named twice")
        args.baseline = args.baseline[0] if len(args.baseline) == 1 else list(args.baseline)
    several = isinstance(args.baseline, list)
    if several and args.show:
        parser.error("--show needs one baseline (with several, the p-values are in compare.csv)")
    if several and args.risk_alpha is not None:
        parser.error("--risk-alpha needs one baseline")
    if args.test not in RESAMPLING:           # an option no computation of the test reads: refused, not ignored
        given = [o for o, v in (("--B", args.B), ("--seed", getattr(args, "_given_seed", None))) if v is not None]
        if given:
            parser.error(f"{given[0]} sets the resampling of --test {'/'.join(RESAMPLING)}; --test {args.test} "
                         f"draws no sample")
    if args.show and not args.baseline:
        parser.error("--show needs --baseline (the p-values of all pairs are in compare.csv)")
    if args.conventions == "urbano2019" and args.test in ("rthsd", "tukey-hsd"):
        parser.error(f"--conventions urbano2019 covers paired-t, wilcoxon, sign, bootstrap and permutation; "
                     f"--test {args.test} has no counterpart in Urbano, Lima & Hanjalic (2019)")
    if args.risk_alpha is not None and (not args.baseline or not args.risk_alpha >= 0):
        parser.error("--risk-alpha needs --baseline and a value >= 0")
    scores = _load_scores(args, parser)
    from ..labels import labels_for, resolve_run, runid_of
    from ..meta.matrices import matrix_for

    runs = [str(r) for r in next(iter(scores.values())).columns]
    run_files = getattr(args, "_run_files", {})
    labels = labels_for(runs, list(scores), args.labels, run_files)
    named: dict[str, str] = {**{r: r for r in runs}, **{k: v for k, v in labels.items() if v is not None}}
    if args.baseline is not None:        # a file stem, a runid or a label (docs/outputs.md, Labels)
        runids = {r: rid for r, p in run_files.items() if isinstance(p, str) and (rid := runid_of(p)) is not None}
        try:
            if several:
                args.baseline = [resolve_run(b, runs, named, runids)
                                 for b in args.baseline]
            else:
                args.baseline = resolve_run(args.baseline, runs, named, runids)
        except ValueError as e:
            raise InputError(f"--baseline: {e}") from None
        if several and len(set(args.baseline)) < len(args.baseline):
            parser.error("--baseline: two names of one run")
    if args.sort_by is not None:
        sort_by = matrix_for(args.sort_by, list(scores))        # a measure by any alias
        if sort_by not in scores:
            parser.error(f"--sort-by {args.sort_by}: not one of the metrics compared ({', '.join(scores)})")
        args.sort_by = sort_by
    n_runs = min(df.shape[1] for df in scores.values())
    if args.test == "rthsd" and n_runs < 3:
        parser.error(f"--test rthsd compares all runs given and needs at least 3 (got {n_runs}); with two "
                     "runs use --test permutation (the same randomisation test for one pair)")
    # a refused comparison (unknown baseline, ...) concerns the runs as a whole, not one run file
    where = args.matrices
    try:
        df = compare(scores, baseline=args.baseline, metrics=args.metrics if args.matrices else None,
                     test=args.test, correction=args.correction, alpha=args.alpha, B=args.B, seed=args.seed,
                     conventions=args.conventions, risk_alpha=args.risk_alpha)
    except ValueError as e:
        raise InputError(str(e), where) from None
    n_topics = next(iter(scores.values())).shape[0]
    csv_text = df.to_csv(index=False, lineterminator="\n")
    opts = {"alpha": args.alpha, "baseline": args.baseline, "n_topics": n_topics, "show": args.show, "sort_by": args.sort_by,
                "labels": labels, "conventions": args.conventions}
    md = render_compare(df, fmt="md", **opts)
    tex = render_compare(df, fmt="tex", **opts)
    if args.risk_alpha is not None:             # the risk table after the comparison
        from ..report.risk import render_risk

        assert isinstance(args.baseline, str)      # the risk measures take one baseline (checked by compare)
        md += "\n" + render_risk(df, args.baseline, fmt="md")
        tex += "\n" + render_risk(df, args.baseline, fmt="tex")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for name, text in (("compare.csv", csv_text), ("compare.md", md), ("compare.tex", tex)):
            _write_atomic(out / name, text)
    if not args.quiet:
        sys.stdout.write({"md": md, "csv": csv_text, "tex": tex}[args.format])
    return 0
