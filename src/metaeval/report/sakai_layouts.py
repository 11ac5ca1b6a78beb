"""The layouts of the tables of Sakai (2007a) and Sakai (2007b) and of the collection's own
tables (run means, t*), registered in the layout registry (:func:`metaeval.report.layouts.register_layout`)
under their layout keys: Table 1 (``collection``), Kendall's tau (``kendall``), the bootstrap
sensitivity (``bootstrap_paired``/``bootstrap_unpaired``) and its per-pair ASLs and t*, the swap
method, the stability method, the gain-value sweep and the preferred ranks.  Lay out only: the
values and row orders come from :mod:`metaeval.meta`."""

from __future__ import annotations

import itertools
import re

import pandas as pd

from ..meta.bootstrap import tstar_summary
from ..meta.collection_stats import collection_means
from ..meta.order import by_pct_satisfying, by_sensitivity, gain_bootstrap_order
from ..meta.swap import relative_difference
from ..metrics.registry import split_param
from .formatting import fmt4, fmt_short, format_percent, format_tau, is_missing, round_half_up, sig_figs
from .layouts import letter, register_layout, require_columns, unique
from .render import Cell, Layout, escape_latex

__all__ = ["layout_collection", "layout_kendall", "layout_bootstrap", "layout_swap", "layout_swap_rates",
           "layout_stability", "layout_gain_kendall", "layout_gain_bootstrap", "layout_preferred_rank", "layout_asl",
           "layout_run_means", "layout_tstar", "sensitivity_cell", "ALPHA_TEX"]

ALPHA_TEX = r"$\alpha$"
_LEVEL_COL = re.compile(r"^R\((?P<level>[^()]+)\)$")


def _level_key(level: str):
    m = re.search(r"\d+", level)
    return (0, int(m.group())) if m else (1, level)


@register_layout("collection")
def layout_collection(df: pd.DataFrame) -> Layout:
    """Table 1 of Sakai (2007a) (= Table 1 of Sakai (2007b)): |Q|, R/topic, R(L)/topic per
    level, runs used.

    Input either one row per topic (columns ``topic, R, R(L1)..R(LH), runs``; the means come from
    :func:`metaeval.meta.collection_stats.collection_means`) or already one row per collection
    (``topics`` instead of ``topic``).
    """
    require_columns(df, "collection", ["R"])
    level_of = {str(c): m.group("level") for c in df.columns if (m := _LEVEL_COL.match(str(c)))}
    levels = sorted(level_of, key=lambda c: _level_key(level_of[c]), reverse=True)   # highest level first (S, A, B)
    recs = collection_means(df)
    has_name = any(r.get("collection") is not None for r in recs)
    header = ([Cell("collection")] if has_name else []) + \
        [Cell("|Q|", tex=r"$|Q|$"), Cell("R/topic", tex=r"$R$/topic")] + \
        [Cell(f"{c}/topic", tex="$R(" + escape_latex(level_of[c]) + ")$/topic")
         for c in levels] + [Cell("runs used")]

    def num(v, d=1):
        return "-" if is_missing(v) else round_half_up(float(v), d)

    rows = []
    for r in recs:
        row = ([str(r.get("collection", ""))] if has_name else [])
        row += [fmt4(r.get("topics")), num(r.get("R"))] + [num(r.get(c)) for c in levels]
        row.append(fmt4(r.get("runs")))
        rows.append(row)
    return Layout(header, rows, ("l" if has_name else "") + "r" * (len(header) - has_name))


def _kendall_matrix(df: pd.DataFrame, a: str = "metric_a", b: str = "metric_b"):
    metrics = unique(m for pair in zip(df[a], df[b]) for m in pair)   # row order, a before b
    # both orientations, later rows win; diagonal never shown
    tau = {}
    for x, y, t in zip(df[a], df[b], df["tau"]):
        tau[(x, y)] = t
        tau.setdefault((y, x), t)
    return metrics, tau


@register_layout("kendall")
def layout_kendall(df: pd.DataFrame) -> Layout:
    """Table 2 of Sakai (2007a) / Table 5 of Sakai (2007b): rows (a).., columns (b).., upper
    triangle, > 0.8 bold."""
    require_columns(df, "kendall", ["metric_a", "metric_b", "tau"])
    metrics, tau = _kendall_matrix(df)
    labels = [f"({letter(i)})" for i in range(len(metrics))]
    header = [Cell("metric")] + [Cell(lab) for lab in labels[1:]]
    rows = []
    for i, m in enumerate(metrics):
        row = [Cell(f"{labels[i]} {m}")]
        for j in range(1, len(metrics)):
            if j <= i:
                row.append(Cell("-"))
                continue
            t = tau.get((m, metrics[j]))
            row.append(Cell(format_tau(t), bold=t is not None and not is_missing(t) and float(t) > 0.8))
        rows.append(row)
    return Layout(header, rows, "l" + "r" * (len(header) - 1))


def sensitivity_cell(significant, pairs) -> str:
    if is_missing(significant) or is_missing(pairs):
        return "-"
    s, p = int(significant), int(pairs)
    pct = 100.0 * s / p if p else float("nan")
    return f"{s}/{p} = {format_percent(pct, integer=True)}"


def layout_bootstrap(df: pd.DataFrame, label=None) -> Layout:
    """Table 4 of Sakai (2007a) / Tables 2-3 of Sakai (2007b): ``242/435 = 56%``, estimated
    difference to 2 significant figures."""
    require_columns(df, "bootstrap", ["metric", "pairs", "significant", "estimated_diff"])
    header = [Cell("(i) metric"),
              Cell("(ii) sensitivity (ASL < α)", tex=rf"(ii) sensitivity (ASL $<$ {ALPHA_TEX})"),
              Cell("(iii) estimated difference")]
    rows = [[Cell(label(rec) if label else str(rec["metric"])),
             Cell(sensitivity_cell(rec["significant"], rec["pairs"])),
             Cell(sig_figs(rec["estimated_diff"]))] for rec in df.to_dict("records")]
    return Layout(header, rows, "lrr")


def _pct_of(share) -> str:
    """A share in [0, 1] printed as a percentage (paper style)."""
    return format_percent(None if is_missing(share) else 100.0 * float(share))


@register_layout("swap", sort=by_pct_satisfying)
def layout_swap(df: pd.DataFrame) -> Layout:
    """Table 3 of Sakai (2007a) / Table 4 of Sakai (2007b): (i) metric, (ii) diff., (iii) max.,
    (ii)/(iii), %pairs."""
    require_columns(df, "swap", ["metric", "diff_required", "max_diff", "pct_satisfying"])
    header = [Cell("(i) metric"), Cell("(ii) abs. diff."), Cell("(iii) max."), Cell("(ii)/(iii)"),
              Cell("%pairs satisfying (ii)", tex=r"\%pairs satisfying (ii)")]
    rows = []
    for rec in df.to_dict("records"):
        d, mx = rec["diff_required"], rec["max_diff"]
        rel = rec.get("relative")
        if is_missing(rel):
            rel = relative_difference(None if is_missing(d) else d, None if is_missing(mx) else mx)
        rows.append([Cell(str(rec["metric"])), Cell(fmt4(d)), Cell(fmt4(mx)),
                     Cell(_pct_of(rel)),
                     Cell(format_percent(rec["pct_satisfying"]), bold=True)])
    return Layout(header, rows, "lrrrr")


@register_layout("swap_rates")
def layout_swap_rates(df: pd.DataFrame) -> Layout:
    """Swap rate per difference bin (rows, ``0.00-0.01`` ... ``>= 0.20``) and metric (columns)."""
    require_columns(df, "swap_rates", ["metric", "bin", "swap_rate"])
    metrics = unique(df["metric"])
    bins = sorted(unique(df["bin"].astype(float)))
    rate = {(m, float(b)): r for m, b, r in zip(df["metric"], df["bin"], df["swap_rate"])}
    width = min((b2 - b1 for b1, b2 in itertools.pairwise(bins)), default=None)
    header = [Cell("difference bin")] + [Cell(str(m)) for m in metrics]
    rows = []
    for i, b in enumerate(bins):
        if i + 1 < len(bins):
            lab = f"{fmt_short(b)}-{fmt_short(bins[i + 1])}"
            tex = f"{fmt_short(b)}--{fmt_short(bins[i + 1])}"
        else:
            lab, tex = f">= {fmt_short(b)}", rf"$\geq$ {fmt_short(b)}"
        if width is None:
            lab, tex = fmt_short(b), fmt_short(b)
        rows.append([Cell(lab, tex=tex)] + [Cell(fmt4(rate.get((m, b)))) for m in metrics])
    return Layout(header, rows)


@register_layout("stability")
def layout_stability(df: pd.DataFrame) -> Layout:
    """MR / PT for each fuzziness value f (rows) and metric (columns), Sakai (2007b) Sec. 7.1."""
    require_columns(df, "stability", ["metric", "f", "minority_rate", "proportion_ties"])
    metrics = unique(df["metric"])
    fs = sorted(unique(df["f"].astype(float)))
    val = {(m, float(f)): (mr, pt) for m, f, mr, pt in
           zip(df["metric"], df["f"], df["minority_rate"], df["proportion_ties"])}
    header = [Cell("f")] + [Cell(f"{m} MR / PT") for m in metrics]
    rows = []
    for f in fs:
        row = [Cell(fmt_short(f))]
        for m in metrics:
            mr, pt = val.get((m, f), (None, None))
            row.append(Cell(f"{fmt4(mr)} / {fmt4(pt)}"))
        rows.append(row)
    return Layout(header, rows)


def _gain_kendall_long(df: pd.DataFrame) -> pd.DataFrame:
    """Accept ``metric, gains, tau`` or ``metric_a, metric_b, tau`` (b = the gain variant)."""
    if {"metric", "gains", "tau"} <= set(df.columns):
        return df[["metric", "gains", "tau"]]
    require_columns(df, "gain_kendall", ["metric_a", "metric_b", "tau"])
    gains = [split_param(b, "gains")[1] or str(b) for b in df["metric_b"]]
    return pd.DataFrame({"metric": df["metric_a"].to_numpy(), "gains": gains,
                         "tau": df["tau"].to_numpy()})


@register_layout("gain_kendall")
def layout_gain_kendall(df: pd.DataFrame) -> Layout:
    """Table 5 of Sakai (2007a): rows = metric with the default gains, columns = gain variants."""
    long = _gain_kendall_long(df)
    metrics = unique(long["metric"])
    variants = unique(long["gains"])
    tau = {(m, g): t for m, g, t in zip(long["metric"], long["gains"], long["tau"])}
    header = [Cell("metric (default gains)")] + [Cell(str(g)) for g in variants]
    rows = []
    for m in metrics:
        row = [Cell(str(m))]
        for g in variants:
            t = tau.get((m, g))
            row.append(Cell(format_tau(t), bold=t is not None and not is_missing(t) and float(t) > 0.8))
        rows.append(row)
    return Layout(header, rows)


def _gain_label(rec) -> str:
    fam, gains = split_param(rec["metric"], "gains")
    if "gains" in rec and not is_missing(rec["gains"]):
        gains = str(rec["gains"])
    is_default = "default" in rec and not is_missing(rec["default"]) and bool(rec["default"])
    if gains == "default":                  # metaeval.meta.sweep without explicit default gains
        gains, is_default = None, True
    label = f"{fam} {gains}" if gains else fam
    return label + " (default)" if is_default else label


@register_layout("gain_bootstrap", sort=gain_bootstrap_order)
def layout_gain_bootstrap(df: pd.DataFrame) -> Layout:
    """Table 6 of Sakai (2007a): ``P-plus 1:2:3 (default)  134/435 = 31%  0.15`` by family."""
    return layout_bootstrap(df, label=_gain_label)


@register_layout("preferred_rank")
def layout_preferred_rank(df: pd.DataFrame) -> Layout:
    """Tables 7-9 of Sakai (2007a): topic, maxr_p, then ``count(total)`` per level, highest
    level first.

    Input: one row per topic and level, columns ``topic, run, max_rp, level, count, total``.
    """
    require_columns(df, "preferred_rank", ["topic", "max_rp", "level", "count", "total"])
    levels = sorted(unique(df["level"].astype(str)), key=_level_key, reverse=True)
    topics = unique(df["topic"])
    cells = {(t, str(lv)): (c, n) for t, lv, c, n in
             zip(df["topic"], df["level"], df["count"], df["total"])}
    first = df.drop_duplicates("topic").set_index("topic")
    has_run = "run" in df.columns
    header = [Cell("Topic ID"), Cell("maxr_p", tex=r"$\mathit{maxr}_p$")] + \
        ([Cell("run")] if has_run else []) + [Cell(lv) for lv in levels]
    rows = []
    for t in topics:
        rp = first.loc[t, "max_rp"]
        row = [Cell(str(t)), Cell(fmt4(rp))]
        if has_run:
            row.append(Cell(fmt4(first.loc[t, "run"])))
        for lv in levels:
            c, n = cells.get((t, lv), (None, None))
            row.append(Cell("-" if is_missing(c) else f"{int(c)}({int(n)})"))
        rows.append(row)
    return Layout(header, rows, "lr" + ("l" if has_run else "") + "r" * len(levels))


@register_layout("asl")
def layout_asl(df: pd.DataFrame) -> Layout:
    """One row per system pair, one column per metric and test (4 decimals)."""
    require_columns(df, "asl", ["metric", "test", "system_x", "system_y", "asl"])
    metric, test, sx, sy, asl = (df[c].tolist() for c in ("metric", "test", "system_x", "system_y", "asl"))
    cols = unique(zip(metric, test))               # lists: millions of cells at campaign scale
    pairs = unique(zip(sx, sy))
    val = {(m, t, x, y): a for m, t, x, y, a in zip(metric, test, sx, sy, asl)}
    header = [Cell("system X"), Cell("system Y")] + [Cell(f"{m} ({t})") for m, t in cols]
    memo: dict = {}                                 # ASLs are counts / B: few distinct cells

    def cell(a):
        key = (type(a), a, str(a))                  # 1 and 1.0, 0.0 and -0.0 print differently
        c = memo.get(key)
        if c is None:
            c = memo[key] = Cell(fmt4(a))
        return c

    rows = [[Cell(str(x)), Cell(str(y))] + [cell(val.get((m, t, x, y))) for m, t in cols]
            for x, y in pairs]
    return Layout(header, rows, "ll" + "r" * len(cols))


@register_layout("run_means", context=True)
def layout_run_means(df: pd.DataFrame, context: dict | None = None) -> Layout:
    """One row per run, one column per metric: the arithmetic mean over topics (4 decimals); the
    runs as a results table prints them: by mean of the primary measure (``context["measure_name"]``
    when it is a column, else the first metric), best first, ties by name."""
    require_columns(df, "run_means", ["metric", "run", "mean"])
    metrics = unique(df["metric"])
    key = (context or {}).get("measure_name", (context or {}).get("measure"))
    key = key if key in metrics else (metrics[0] if metrics else None)
    d = df[df["metric"] == key]
    best = d.assign(run=d["run"].astype(str)).sort_values(["mean", "run"], ascending=[False, True],
                                                          kind="mergesort", na_position="last")
    runs = unique(list(best["run"]) + [str(r) for r in df["run"]])
    df = df.assign(run=df["run"].astype(str))
    val = {(m, r): v for m, r, v in zip(df["metric"], df["run"], df["mean"])}
    header = [Cell("run")] + [Cell(str(m)) for m in metrics]
    rows = [[Cell(str(r))] + [Cell(fmt4(val.get((m, r)))) for m in metrics] for r in runs]
    return Layout(header, rows)


@register_layout("tstar")
def layout_tstar(df: pd.DataFrame) -> Layout:
    """Per metric: the chosen pair, observed t, B, mean and s.d. of t*, and the implied ASL
    (:func:`metaeval.meta.bootstrap.tstar_summary`)."""
    require_columns(df, "tstar", ["metric", "system_x", "system_y", "t_observed", "t_star"])
    header = [Cell("metric"), Cell("system X"), Cell("system Y"),
              Cell("t observed", tex=r"$t(\mathbf{z})$"), Cell("B"),
              Cell("mean t*", tex=r"mean $t^*$"), Cell("s.d. t*", tex=r"s.d. $t^*$"),
              Cell("ASL", tex=r"ASL")]
    rows = []
    for r in tstar_summary(df).to_dict("records"):
        asl = r["asl"]
        rows.append([Cell(str(r["metric"])), Cell(str(r["system_x"])), Cell(str(r["system_y"])),
                     Cell(round_half_up(r["t_observed"], 3)), Cell(str(r["B"])),
                     Cell(fmt4(r["mean"])), Cell(fmt4(r["sd"])),
                     Cell("-" if is_missing(asl) else round_half_up(asl, 3))])
    return Layout(header, rows, "lllrrrrr")


register_layout("bootstrap_paired", layout_bootstrap, sort=by_sensitivity)
register_layout("bootstrap_unpaired", layout_bootstrap, sort=by_sensitivity)
