"""``metaeval cwl_eval``: drop-in for ``cwl-eval`` 1.0.12 (Azzopardi, Thomas & Moffat 2019).

    metaeval cwl_eval GAIN_FILE RESULT_FILE [-m METRICS_FILE] [-c COST_FILE] [-n] [-r]
                      [--max_n N] [--max_gain G] [--min_gain G]

prints what cwl-eval prints: per ranking (block of consecutive result lines of one topic, in file
order) and per metric (the metrics file's order, or cwl-eval's 16 default metrics), the line
``TOPIC<TAB>NAME<TAB>EU<TAB>ETU<TAB>EC<TAB>ETC<TAB>ED`` (4 decimals), with ``-r`` the five residuals
after them, with ``-n`` a header line first.  cwl-eval's other options ``--max_depth`` (the same as
``--max_n``), ``--max_cost`` and ``--min_cost`` are accepted too.  Unlike cwl-eval, bad input is
refused before anything is printed, with one line naming the file and line (exit 1).
"""

from __future__ import annotations

import argparse
import sys


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("cwl_eval", help="drop-in for cwl-eval 1.0.12: the C/W/L measures (EU, ETU, EC, "
                                        "ETC, ED and residuals) of one result file",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("gain_file", help="TREC-style qrels whose 4th column is a gain in [min_gain, max_gain]")
    p.add_argument("result_file", help="TREC result file; the 2nd column is the element type (for -c)")
    p.add_argument("-c", "--cost_file", default=None, help="element type -> cost lines (default cost 1)")
    p.add_argument("-m", "--metrics_file", default=None,
                   help="one cwl_eval metric a line, e.g. INSTCWLMetric(3) (default: cwl-eval's 16)")
    p.add_argument("-n", "--colnames", action="store_true", help="print a header line")
    p.add_argument("-r", "--residuals", action="store_true", help="add the residual columns")
    p.add_argument("--max_gain", type=float, default=1.0, help="maximum gain (default 1.0)")
    p.add_argument("--min_gain", type=float, default=0.0, help="minimum gain (default 0.0)")
    p.add_argument("--max_cost", type=float, default=1.0, help="cost of an item of unknown cost, worst case")
    p.add_argument("--min_cost", type=float, default=1.0, help="cost of an item of unknown cost, best case")
    p.add_argument("--max_n", "--max_depth", dest="max_n", type=int, default=1000, metavar="N",
                   help="depth of the rankings (default 1000; cwl-eval's --max_depth)")
    p.set_defaults(func=run, _parser=p)
    return p


HEADER = "Topic\tMetric\tEU\tETU\tEC\tETC\tED"
HEADER_RES = HEADER + "\tResEU\tResETU\tResEC\tResETC\tResED"


def _metrics(path):
    from ..errors import InputError
    from .measures import BY_CLASS, CwlMetric
    from .reader import read_metrics_file

    out = []
    for line, cls, args in read_metrics_file(path):
        if cls not in BY_CLASS:
            raise InputError(f"unknown metric {cls!r}; known: {', '.join(sorted(BY_CLASS))}", path, line)
        try:
            out.append(CwlMetric.make(cls, *args))
        except TypeError as e:
            raise InputError(str(e), path, line) from None
    return out


def render(topics, metrics, scores, residuals: bool, colnames: bool) -> str:
    """cwl-eval's output for the given rankings: ``scores[j]`` is the quantity dict of metric j."""
    from .measures import QUANTITIES

    qs = QUANTITIES if residuals else QUANTITIES[:5]
    cols = [[s[q].tolist() for q in qs] for s in scores]
    names = [m.name for m in metrics]
    fmt = "\t".join(["{}", "{}"] + ["{:.4f}"] * len(qs))
    lines = [HEADER_RES if residuals else HEADER] if colnames else []
    for b, topic in enumerate(topics):
        for j, name in enumerate(names):
            lines.append(fmt.format(topic, name, *(c[b] for c in cols[j])))
    return "".join(line + "\n" for line in lines)


def compute(gain_file, result_file, metrics_file=None, cost_file=None, *, residuals=False,
            colnames=False, max_n=1000, max_gain=1.0, min_gain=0.0, max_cost=1.0, min_cost=1.0) -> str:
    """The text cwl-eval prints for these files (raises InputError on bad input)."""
    from ..errors import InputError
    from .dot import ddot_kernel
    from .measures import DEFAULT_METRICS, CwlRankings, CwlValueError, cwl_scores_many
    from .reader import cwl_arrays, read_cost_file, read_cwl_results, read_gain_file

    if max_n < 1:
        raise InputError(f"--max_n {max_n}: the depth must be at least 1")
    ddot_kernel()                   # a bad METAEVAL_CWL_DDOT is refused before any file is read
    gains = read_gain_file(gain_file, min_gain, max_gain)
    costs = read_cost_file(cost_file) if cost_file else None
    metrics = _metrics(metrics_file) if metrics_file else list(DEFAULT_METRICS)
    results = read_cwl_results(result_file)
    topics, g, k, rels = cwl_arrays(gains, results, costs, max_n)
    # cwl-eval 1.0.12 checks the gain file against --min_gain but does not pass it on to its
    # rankings: unjudged documents and the positions past the end count as gain 0.0 in the worst case
    rk = CwlRankings(g, k, rels, max_gain=max_gain, min_gain=0.0, max_cost=max_cost, min_cost=min_cost)
    try:
        scores = cwl_scores_many(rk, metrics, residuals, printed=True)
    except CwlValueError as e:
        raise InputError(f"{e}", metrics_file) from None
    return render(topics, metrics, scores, residuals, colnames)


def run(args) -> int:
    text = compute(args.gain_file, args.result_file, args.metrics_file, args.cost_file,
                   residuals=args.residuals, colnames=args.colnames, max_n=args.max_n,
                   max_gain=args.max_gain, min_gain=args.min_gain, max_cost=args.max_cost,
                   min_cost=args.min_cost)
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0
