"""``metaeval judgments``: judgments as a dimension -- assessors, LLM judges and hybrid qrels of one
collection meta-evaluated like metrics (docs/meta.md "Judgments").

Several qrels sets (``--qrels NAME=FILE[,FILE...]``; per-topic ``trec_eval -q`` results with
``--results NAME=DIR``) against a reference set: label agreement (Cohen's kappa, Krippendorff's
alpha), the runs' rankings per metric (tau, tau_b, tau_AP, RBO, top-k tau, rank changes, bootstrap
interval), the significance decisions and discriminative power under each set.  Writes
``OUT/tables/{label_agreement,ranking_agreement,run_ranks,decision_agreement,
qrels_discriminative_power}.{csv,md,tex}``, ``OUT/figures/`` and ``OUT/judgments/`` (confusion
matrices, per-topic agreement, coverage, filled qrels).  Nothing is written when an input is rejected.
"""

from __future__ import annotations

import argparse

# the tests, corrections and leaderboard layouts its stage declares (no pandas import to parse)
from ..meta.stages.judgments import CORRECTIONS, RESULTS_FORMATS, TESTS
from .ingest import add_order_args


from ._figure_options import add_figure_args

def add_parser(sub) -> argparse.ArgumentParser:
    from ..meta.stages.common import SEED
    from ._types import DeprecatedOption, declared, int_at_least

    p = sub.add_parser(
        "judgments", help="meta-evaluate the judgments: assessors, LLM judges and hybrid qrels",
        description="Compare qrels sets of one collection (other assessors, LLM judges, hybrid fills) with a "
                    "reference: label agreement (Cohen 1960; Krippendorff 2004), how the runs' ranking per metric "
                    "changes (Voorhees 2000; tau_AP, Yilmaz et al. 2008; RBO, Webber et al. 2010; top-k tau, "
                    "Clarke & Dietz 2024) and whether the significance decisions survive. Writes OUT/tables, "
                    "OUT/figures and OUT/judgments (docs/meta.md, docs/outputs.md).")
    p.add_argument("--qrels", metavar="NAME=FILE[,FILE...]", nargs="+", action="extend", default=[],
                   help="qrels sets: each its name and file(s) (several files: their union); several after one "
                        "flag; without --runs: label agreement only")
    p.add_argument("--reference", metavar="NAME", required=True,
                   help="the set the others are compared with (e.g. the official qrels)")
    p.add_argument("--runs", metavar="GLOB_OR_DIR", nargs="+", action="extend", default=[],
                   help="run files, directories or globs (read and ranked once for all sets); not needed for "
                        "label agreement or for leaderboards (--results) against a leaderboard")
    p.add_argument("--out", metavar="DIR", required=True, help="output folder")
    p.add_argument("--metrics", metavar="M", nargs="+", action="extend", default=None,
                   help="metrics (default AP nDCG@10); with --results, trec_eval's measures as trec.NAME")
    p.add_argument("--gains", metavar="G1:...:GH", default=None, help="gains of L1..LH (default 1:2:...:H)")
    p.add_argument("--threshold", type=int, default=None,
                   help="kappa_binary's relevance threshold (default 2 on a scale up to 3 or more, else 1)")
    p.add_argument("--top-k", type=int_at_least(2), default=10, dest="top_k",
                   help="tau among the reference's top K runs; coverage of each run's top K documents (default 10)")
    p.add_argument("--test", choices=TESTS, default="paired-t", help="paired test of the decisions (default paired-t)")
    p.add_argument("--correction", choices=CORRECTIONS, default=None,
                   help="multiple-comparison correction of the decisions (default: metaeval compare's, holm)")
    p.add_argument("--B", type=declared("B"), default=1000,
                   help="bootstrap samples of the tau intervals and replicates of a resampling test (default 1000)")
    p.add_argument("--alpha", type=declared("alpha"), default=0.05, help="significance level (default 0.05)")
    p.add_argument("--rbo-p", type=declared("rbo_p"), default=0.9, dest="rbo_p",
                   help="persistence p of rank-biased overlap (default 0.9, the rank_correlation stage's)")
    p.add_argument("--seed", type=declared("seed"), default=SEED, help=f"seed of the bootstrap samples (default {SEED})")
    p.add_argument("--fill", metavar="NAME=BASE+FROM", action="append", default=[],
                   help="a hybrid set: BASE's judgments, FROM's for the pairs BASE did not judge; repeatable")
    p.add_argument("--on-conflict", choices=("error", "max", "min", "first"), default="error", dest="on_conflict",
                   help="a pair judged twice with different labels within a set: an error (default), or keep the "
                        "highest, lowest or first file's label")
    p.add_argument("--topic-set", choices=("common", "own"), default="common", dest="topic_set",
                   help="the topics each set is ranked over: the topics both judged (common, default) or each "
                        "set's own (own)")
    # its name before --topics meant a topic-set size everywhere (standardise, test-errors)
    p.add_argument("--topics", choices=("common", "own"), dest="topic_set", action=DeprecatedOption,
                   new="--topic-set", old="--topics common|own", help=argparse.SUPPRESS)
    p.add_argument("--results", metavar="NAME=PATH", nargs="+", action="extend", default=[],
                   help="leaderboards in place of qrels sets (the reference may be one): a folder or file of "
                        "trec_eval -q or ir_measures -q output (one file per run), AutoJudge's leaderboard "
                        "layouts (ir_measures, tot, rag4reports, ranking, jsonl) or a CSV run,measure,value "
                        "(means only); several after one flag")
    p.add_argument("--results-format", default="auto", dest="results_format", choices=RESULTS_FORMATS,
                   help="the layout of the --results files (default auto: from the extension, header and columns)")
    p.add_argument("--skip-bad", action="store_true", dest="skip_bad",
                   help="a --results file that is no leaderboard (empty, malformed): named in one warning and "
                        "left out, with its run (default: an error naming it)")
    p.add_argument("--clip", action="store_true",
                   help="map labels above the reference's highest level to that level (default: a warning)")
    p.add_argument("--labels", metavar="FILE", default=None,
                   help="display labels of runs, measures and sets for Markdown, LaTeX and figures (as metaeval "
                        "compare's --labels; without it the runs' default labels, their shared prefix and "
                        "extension stripped; the CSV keep the names)")
    add_order_args(p)
    p.add_argument("--no-figures", action="store_true", help="tables and files only")
    p.add_argument("--quiet", action="store_true", help="print nothing on stdout")
    p.set_defaults(func=run, out_kind="folder", _parser=p)
    add_figure_args(p)
    return p


def _pairs(parser, items, what: str, sep: str = "=") -> dict:
    from ..util import file_name

    out: dict = {}
    for item in items:
        name, s, value = str(item).partition(sep)
        if not s or not name or not value:
            parser.error(f"{what} {item!r}: expected NAME{sep}VALUE")
        try:
            file_name(name, f"{what}: the name")           # it names files under OUT/judgments
        except ValueError as e:
            parser.error(str(e))
        if name in out:
            parser.error(f"{what}: the name {name} is given twice")
        out[name] = value
    return out


def run(args) -> int:
    import sys

    from ..errors import ConfigError, InputError
    from ..meta.stages import CollectionData, NamedFiles
    from ..meta.stages.judgments import JudgmentsParams
    from ..pipeline import own_job_run, write_own_outputs

    parser = args._parser
    qrels = {k: [f for f in v.split(",") if f] for k, v in _pairs(parser, args.qrels, "--qrels").items()}
    if not args.qrels and not args.results:
        parser.error("give qrels sets (--qrels NAME=FILE) or leaderboards (--results NAME=PATH)")
    fill = _pairs(parser, args.fill, "--fill")
    for name, spec in fill.items():
        base, plus, frm = spec.partition("+")
        if not plus or not base or not frm:
            parser.error(f"--fill {name}={spec}: expected NAME=BASE+FROM")
    results = _pairs(parser, args.results, "--results")
    # its stage's run: every set named (no data of a collection), the runs and how they are read
    params = JudgmentsParams(
        judgments_reference=args.reference, judgments_qrels=NamedFiles.of(qrels),
        judgments_fill=tuple(f"{n}={v}" for n, v in fill.items()),
        judgments_results=NamedFiles.of(results), judgments_results_format=args.results_format,
        judgments_metrics=None if args.metrics is None else tuple(args.metrics), judgments_threshold=args.threshold,
        judgments_top_k=args.top_k, judgments_test=args.test, judgments_correction=args.correction,
        judgments_B=args.B, judgments_alpha=args.alpha, judgments_rbo_p=args.rbo_p, judgments_seed=args.seed,
        judgments_on_conflict=args.on_conflict, judgments_topic_set=args.topic_set, judgments_skip_bad=args.skip_bad,
        judgments_clip=args.clip)
    data = CollectionData(runs=tuple(args.runs), gains=args.gains, order=args.order, depth=args.depth,
                          trec_eval_version=args.trec_eval_version)
    try:
        inputs, params, frames = own_job_run("judgments", None, params, data=data)
    except (InputError, ConfigError, UnicodeDecodeError):
        raise                                    # rejected input: exit 1 (an InputError is a ValueError)
    except ValueError as e:
        parser.error(str(e))
    written = write_own_outputs("judgments", frames, args.out, figures=not args.no_figures, params=params,
                                inputs=inputs, labels_file=args.labels)
    if not args.quiet:
        sys.stdout.write(headline(inputs.extra["result"], len(written), args.out_shown))
    return 0


def _num(x) -> str:
    import math

    return "undefined" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):.4f}"


def headline(res, n_files: int, out) -> str:
    """What ``metaeval judgments`` found, on stdout: per set against the reference, Kendall's tau of
    the run ranking under the first metric (its interval, runs and topics; the range over the other
    metrics), the mean per-topic tau and Cohen's kappa of the labels both judged; then the files
    written."""
    ra = res.tables["ranking_agreement"]
    la = res.tables["label_agreement"]
    lines = [f"metaeval judgments: against the reference {res.reference}"]
    sets = [s for s in dict.fromkeys(list(res.scores) + [str(x) for x in la["qrels_b"].tolist()]
                                     + [str(x) for x in la["qrels_a"].tolist()])
            if s not in (res.reference, "all")]
    for s in sets:
        parts = []
        rows = ra[ra["qrels"] == s]
        if len(rows):
            r = rows.iloc[0]
            ci = (f" [{_num(r['tau_ci_low'])}, {_num(r['tau_ci_high'])}]"
                  if str(r["tau_ci_low"]) not in ("nan", "<NA>") else "")
            topics = "" if str(r["topics"]) in ("nan", "<NA>") else f", {int(r['topics'])} topics"
            rng = ""
            if len(rows) > 1:
                t = rows["tau"].astype(float)
                rng = f"; {len(rows)} metrics: tau {_num(t.min())} to {_num(t.max())}"
            parts.append(f"Kendall's tau {_num(r['tau'])}{ci} on {r['metric']} ({int(r['runs'])} runs{topics}{rng})")
        tr = res.tables.get("topic_ranking_agreement")
        if tr is not None and len(tr):
            t = tr[tr["qrels"] == s]["tau"].astype(float)
            if t.notna().any():
                parts.append(f"mean per-topic tau {_num(t.mean())} over {int(t.notna().sum())} (metric, topic)")
        pair = la[((la["qrels_a"] == res.reference) & (la["qrels_b"] == s))
                  | ((la["qrels_b"] == res.reference) & (la["qrels_a"] == s))]
        if len(pair):
            p = pair.iloc[0]
            parts.append(f"Cohen's kappa {_num(p['kappa'])} on {int(p['pairs'])} (topic, document) pairs")
        if parts:
            lines.append(f"  {s}: " + "; ".join(parts))
    lines.append(f"  {n_files} files under {out}")
    return "\n".join(lines) + "\n"
