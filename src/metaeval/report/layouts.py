"""The Markdown/LaTeX layout of every table, one function per table, looked up in :data:`KINDS`
by the table's layout key (:attr:`metaeval.outputs.Output.layout`).

A layout lays out only: it picks columns, orders them like the paper's table and formats the
numbers (:mod:`.formatting`).  Every value it shows that is not a column of the CSV -- the
collection means, the t* summary, the (ii)/(iii) ratio -- and every row order comes from
:mod:`metaeval.meta` (``collection_means``, ``tstar_summary``, ``relative_difference``,
:mod:`metaeval.meta.order`).  An unknown kind gets the generic layout (every column, floats to
4 decimals).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Callable, Sequence

import pandas as pd

from ..meta.bootstrap import tstar_summary
from ..meta.collection_stats import collection_means
from ..meta.order import by_pct_satisfying, by_sensitivity, gain_bootstrap_order
from ..meta.swap import relative_difference
from ..metrics.registry import split_param
from .formatting import fmt4, fmt_short, format_percent, format_tau, is_missing, round_half_up, sig_figs
from .render import Cell, Layout, escape_latex
from . import judgments_layouts as _jl
import itertools

__all__ = ["TableKind", "KINDS", "GENERIC", "layout_table", "kind_for"]


def _require(df: pd.DataFrame, kind: str, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"table {kind!r}: missing column(s) {missing}; got {list(df.columns)}")


def _unique(values) -> list:
    """Distinct values in order of first appearance."""
    return list(dict.fromkeys(values))


def _letter(i: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26]


ALPHA_TEX = r"$\alpha$"
_LEVEL_COL = re.compile(r"^R\((?P<level>[^()]+)\)$")


def _level_key(level: str):
    m = re.search(r"\d+", level)
    return (0, int(m.group())) if m else (1, level)


# --------------------------------------------------------------------------------------------
# the layouts, one per kind
# --------------------------------------------------------------------------------------------

def _layout_generic(df: pd.DataFrame) -> Layout:
    header = [str(c) for c in df.columns]
    rows = [[fmt4(v) for v in rec] for rec in df.itertuples(index=False, name=None)]
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) and not
                    pd.api.types.is_bool_dtype(df[c]) else "l" for c in df.columns)
    return Layout(header, rows, align)


def _layout_collection(df: pd.DataFrame) -> Layout:
    """Table 1 of Sakai (2007a) (= Table 1 of Sakai (2007b)): |Q|, R/topic, R(L)/topic per
    level, runs used.

    Input either one row per topic (columns ``topic, R, R(L1)..R(LH), runs``; the means come from
    :func:`metaeval.meta.collection_stats.collection_means`) or already one row per collection
    (``topics`` instead of ``topic``).
    """
    _require(df, "collection", ["R"])
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
    metrics = _unique(m for pair in zip(df[a], df[b]) for m in pair)   # row order, a before b
    # both orientations, later rows win; diagonal never shown
    tau = {}
    for x, y, t in zip(df[a], df[b], df["tau"]):
        tau[(x, y)] = t
        tau.setdefault((y, x), t)
    return metrics, tau


def _layout_kendall(df: pd.DataFrame) -> Layout:
    """Table 2 of Sakai (2007a) / Table 5 of Sakai (2007b): rows (a).., columns (b).., upper
    triangle, > 0.8 bold."""
    _require(df, "kendall", ["metric_a", "metric_b", "tau"])
    metrics, tau = _kendall_matrix(df)
    labels = [f"({_letter(i)})" for i in range(len(metrics))]
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


def _sensitivity_cell(significant, pairs) -> str:
    if is_missing(significant) or is_missing(pairs):
        return "-"
    s, p = int(significant), int(pairs)
    pct = 100.0 * s / p if p else float("nan")
    return f"{s}/{p} = {format_percent(pct, integer=True)}"


def _layout_bootstrap(df: pd.DataFrame, label=None) -> Layout:
    """Table 4 of Sakai (2007a) / Tables 2-3 of Sakai (2007b): ``242/435 = 56%``, estimated
    difference to 2 significant figures."""
    _require(df, "bootstrap", ["metric", "pairs", "significant", "estimated_diff"])
    header = [Cell("(i) metric"),
              Cell("(ii) sensitivity (ASL < α)", tex=rf"(ii) sensitivity (ASL $<$ {ALPHA_TEX})"),
              Cell("(iii) estimated difference")]
    rows = [[Cell(label(rec) if label else str(rec["metric"])),
             Cell(_sensitivity_cell(rec["significant"], rec["pairs"])),
             Cell(sig_figs(rec["estimated_diff"]))] for rec in df.to_dict("records")]
    return Layout(header, rows, "lrr")


def _pct_of(share) -> str:
    """A share in [0, 1] printed as a percentage (paper style)."""
    return format_percent(None if is_missing(share) else 100.0 * float(share))


def _layout_swap(df: pd.DataFrame) -> Layout:
    """Table 3 of Sakai (2007a) / Table 4 of Sakai (2007b): (i) metric, (ii) diff., (iii) max.,
    (ii)/(iii), %pairs."""
    _require(df, "swap", ["metric", "diff_required", "max_diff", "pct_satisfying"])
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


def _layout_swap_rates(df: pd.DataFrame) -> Layout:
    """Swap rate per difference bin (rows, ``0.00-0.01`` ... ``>= 0.20``) and metric (columns)."""
    _require(df, "swap_rates", ["metric", "bin", "swap_rate"])
    metrics = _unique(df["metric"])
    bins = sorted(_unique(df["bin"].astype(float)))
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


def _layout_stability(df: pd.DataFrame) -> Layout:
    """MR / PT for each fuzziness value f (rows) and metric (columns), Sakai (2007b) Sec. 7.1."""
    _require(df, "stability", ["metric", "f", "minority_rate", "proportion_ties"])
    metrics = _unique(df["metric"])
    fs = sorted(_unique(df["f"].astype(float)))
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
    _require(df, "gain_kendall", ["metric_a", "metric_b", "tau"])
    gains = [split_param(b, "gains")[1] or str(b) for b in df["metric_b"]]
    return pd.DataFrame({"metric": df["metric_a"].to_numpy(), "gains": gains,
                         "tau": df["tau"].to_numpy()})


def _layout_gain_kendall(df: pd.DataFrame) -> Layout:
    """Table 5 of Sakai (2007a): rows = metric with the default gains, columns = gain variants."""
    long = _gain_kendall_long(df)
    metrics = _unique(long["metric"])
    variants = _unique(long["gains"])
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


def _layout_gain_bootstrap(df: pd.DataFrame) -> Layout:
    """Table 6 of Sakai (2007a): ``P-plus 1:2:3 (default)  134/435 = 31%  0.15`` by family."""
    return _layout_bootstrap(df, label=_gain_label)


def _layout_preferred_rank(df: pd.DataFrame) -> Layout:
    """Tables 7-9 of Sakai (2007a): topic, maxr_p, then ``count(total)`` per level, highest
    level first.

    Input: one row per topic and level, columns ``topic, run, max_rp, level, count, total``.
    """
    _require(df, "preferred_rank", ["topic", "max_rp", "level", "count", "total"])
    levels = sorted(_unique(df["level"].astype(str)), key=_level_key, reverse=True)
    topics = _unique(df["topic"])
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


def _layout_asl(df: pd.DataFrame) -> Layout:
    """One row per system pair, one column per metric and test (4 decimals)."""
    _require(df, "asl", ["metric", "test", "system_x", "system_y", "asl"])
    metric, test, sx, sy, asl = (df[c].tolist() for c in ("metric", "test", "system_x", "system_y", "asl"))
    cols = _unique(zip(metric, test))               # lists: millions of cells at campaign scale
    pairs = _unique(zip(sx, sy))
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


def _layout_run_means(df: pd.DataFrame, context: dict | None = None) -> Layout:
    """One row per run, one column per metric: the arithmetic mean over topics (4 decimals); the
    runs as a results table prints them: by mean of the primary measure (``context["measure_name"]``
    when it is a column, else the first metric), best first, ties by name."""
    _require(df, "run_means", ["metric", "run", "mean"])
    metrics = _unique(df["metric"])
    key = (context or {}).get("measure_name", (context or {}).get("measure"))
    key = key if key in metrics else (metrics[0] if metrics else None)
    d = df[df["metric"] == key]
    best = d.assign(run=d["run"].astype(str)).sort_values(["mean", "run"], ascending=[False, True],
                                                          kind="mergesort", na_position="last")
    runs = _unique(list(best["run"]) + [str(r) for r in df["run"]])
    df = df.assign(run=df["run"].astype(str))
    val = {(m, r): v for m, r, v in zip(df["metric"], df["run"], df["mean"])}
    header = [Cell("run")] + [Cell(str(m)) for m in metrics]
    rows = [[Cell(str(r))] + [Cell(fmt4(val.get((m, r)))) for m in metrics] for r in runs]
    return Layout(header, rows)


def _layout_tstar(df: pd.DataFrame) -> Layout:
    """Per metric: the chosen pair, observed t, B, mean and s.d. of t*, and the implied ASL
    (:func:`metaeval.meta.bootstrap.tstar_summary`)."""
    _require(df, "tstar", ["metric", "system_x", "system_y", "t_observed", "t_star"])
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


# ---- discriminative power (stage discpower: Carterette (2012), Sakai (2014), Sakai (2016))

def _fmt_p(p) -> str:
    """A p-value: 4 decimals, ``< 0.0001`` below that."""
    if is_missing(p):
        return "-"
    p = float(p)
    return "< 0.0001" if 0 <= p < 0.00005 else fmt4(p)


def _layout_anova(df: pd.DataFrame) -> Layout:
    """Two-way ANOVA without replication per metric: sums of squares and mean squares to 4
    significant figures, F to 2 decimals, p to 4 decimals (``< 0.0001`` below)."""
    _require(df, "anova", ["metric", "topics", "systems", "S_A", "S_B", "S_E", "V_A", "V_B", "V_E",
                           "F_A", "F_B", "p_A", "p_B"])
    header = [Cell("metric"), Cell("topics"), Cell("systems")] + \
        [Cell(c, tex=f"${c}$") for c in ("S_A", "S_B", "S_E", "V_A", "V_B", "V_E", "F_A", "F_B", "p_A", "p_B")]
    rows = []
    for r in df.to_dict("records"):
        rows.append([Cell(str(r["metric"])), Cell(fmt4(r["topics"])), Cell(fmt4(r["systems"]))]
                    + [Cell(sig_figs(r[c], 4)) for c in ("S_A", "S_B", "S_E", "V_A", "V_B", "V_E")]
                    + [Cell("-" if is_missing(r[c]) else round_half_up(r[c], 2)) for c in ("F_A", "F_B")]
                    + [Cell(_fmt_p(r[c])) for c in ("p_A", "p_B")])
    return Layout(header, rows, "l" + "r" * (len(header) - 1))


def _layout_pvalues(df: pd.DataFrame) -> Layout:
    """The long ``pvalues`` table summarised (the CSV holds every pair; thousands of rows are no
    table to read): one row per metric and test with the number of pairs, how many have
    p < 0.01 / 0.05 / 0.10, and the median p (:func:`metaeval.meta.discpower.pvalue_summary`)."""
    from ..meta.discpower import pvalue_summary            # scipy: imported when needed

    _require(df, "pvalues", ["metric", "test", "system_x", "system_y", "p_value"])
    summ = pvalue_summary(df)
    levels = [c for c in summ.columns if c.startswith("p<")]
    header = [Cell("metric"), Cell("test"), Cell("pairs")] + \
        [Cell(f"p < {c[2:]}", tex=f"$p < {c[2:]}$") for c in levels] + [Cell("median p", tex="median $p$")]
    rows = [[Cell(str(r["metric"])), Cell(str(r["test"])), Cell(fmt4(r["pairs"]))]
            + [Cell(fmt4(r[c])) for c in levels] + [Cell(_fmt_p(r["median_p"]))]
            for r in summ.to_dict("records")]
    return Layout(header, rows, "ll" + "r" * (len(header) - 2))


def _layout_discriminative_power(df: pd.DataFrame) -> Layout:
    """Metrics (rows) x tests (columns, :data:`metaeval.meta.discpower.TESTS` order), each cell
    ``significant/pairs = N%`` (:func:`metaeval.meta.discpower.discriminative_power_wide`; the
    percentage rounded half up, as in the bootstrap tables)."""
    from ..meta.discpower import discriminative_power_wide

    _require(df, "discriminative_power", ["metric", "test", "pairs", "significant"])
    wide = discriminative_power_wide(df.assign(share=df["significant"] / df["pairs"].where(df["pairs"] > 0))
                                     if "share" not in df.columns else df)
    cell = {(m, t): _sensitivity_cell(k, n) for m, t, k, n in
            zip(df["metric"], df["test"], df["significant"], df["pairs"])}
    header = [Cell("metric")] + [Cell(str(t)) for t in wide.columns]
    rows = [[Cell(str(m))] + [Cell(cell.get((m, t), "-")) for t in wide.columns] for m in wide.index]
    return Layout(header, rows, "l" + "r" * len(wide.columns))


def _tss_label(method, systems, min_diff) -> tuple[str, str]:
    d = fmt_short(min_diff)
    if str(method) == "paired-t":
        return f"paired t, minD = {d}", f"paired $t$, min$D$ = {d}"
    return f"ANOVA m = {int(systems)}, minD = {d}", f"ANOVA $m$ = {int(systems)}, min$D$ = {d}"


def _layout_topic_set_size(df: pd.DataFrame) -> Layout:
    """Sakai (2016): one row per metric, its V_E (4 significant figures), then the number of
    topics for every method, number of systems m and minimum detectable difference minD."""
    _require(df, "topic_set_size", ["metric", "method", "min_diff", "systems", "variance", "n"])
    metrics = _unique(df["metric"])
    cols = _unique(zip(df["method"].astype(str), df["systems"].astype(int), df["min_diff"].astype(float)))
    n = {(m, k, s, d): v for m, k, s, d, v in zip(df["metric"], df["method"].astype(str),
                                                  df["systems"].astype(int), df["min_diff"].astype(float), df["n"])}
    var = dict(zip(df["metric"], df["variance"]))
    header = [Cell("metric"), Cell("V_E", tex="$V_E$")] + \
        [Cell(a, tex=b) for a, b in (_tss_label(*c) for c in cols)]
    rows = [[Cell(str(m)), Cell(sig_figs(var[m], 4))] + [Cell(fmt4(n.get((m, *c)))) for c in cols]
            for m in metrics]
    return Layout(header, rows, "l" + "r" * (len(header) - 1))


def _wide(fmt: Callable, *, bold_over: float | None = None, id_cols: int = 1):
    """Summary tables: first ``id_cols`` columns are labels, the rest one value per collection."""
    def layout(df: pd.DataFrame) -> Layout:
        header = [Cell(str(c)) for c in df.columns]
        rows = []
        for rec in df.itertuples(index=False, name=None):
            row = [Cell(str(v)) for v in rec[:id_cols]]
            for v in rec[id_cols:]:
                row.append(Cell(fmt(v), bold=bold_over is not None and not is_missing(v)
                                and float(v) > bold_over))
            rows.append(row)
        return Layout(header, rows, "l" * id_cols + "r" * (len(header) - id_cols))
    return layout


# ---- rank correlation beyond Kendall's tau (metaeval.meta.rankcorr)
#: coefficient column -> (Markdown label, LaTeX label), in the CSV's column order
RANKCORR_LABELS = {
    "tau_a": ("tau-a", r"$\tau_a$"), "tau_b": ("tau-b", r"$\tau_b$"),
    "tau_ap": ("tau_AP", r"$\tau_{AP}$"), "tau_ap_a": ("tau_AP-a", r"$\tau_{AP,a}$"),
    "tau_ap_b": ("tau_AP-b", r"$\tau_{AP,b}$"), "rbo": ("RBO", "RBO"),
    "rbo_a": ("RBO^a", r"RBO$^a$"), "rbo_b": ("RBO^b", r"RBO$^b$"),
}


def _layout_rank_correlation(df: pd.DataFrame) -> Layout:
    """One full (non-triangular) metric x metric matrix per coefficient, stacked: row = the
    reference ranking a ``(a) AP``, column = the estimate b ``(b)``..; values as Kendall's tau
    (4 decimals, no leading zero), tau coefficients above 0.8 in bold, ``-`` for an undefined
    value (an empty CSV cell) and on the diagonal."""
    coefs = [c for c in RANKCORR_LABELS if c in df.columns]
    _require(df, "rank_correlation", ["metric_a", "metric_b"])
    if not coefs:
        raise ValueError("table 'rank_correlation': no coefficient column; got "
                         f"{list(df.columns)}")
    metrics = _unique(m for pair in zip(df["metric_a"], df["metric_b"]) for m in pair)
    labels = [f"({_letter(i)})" for i in range(len(metrics))]
    header = [Cell("coefficient"), Cell("metric (reference a)")] + [Cell(lab) for lab in labels]
    pairs = list(zip(df["metric_a"], df["metric_b"]))
    rows = []
    for c in coefs:
        val = dict(zip(pairs, df[c]))
        md, tex = RANKCORR_LABELS[c]
        bold = c.startswith("tau")
        for i, a in enumerate(metrics):
            row = [Cell(md, tex=tex) if i == 0 else Cell(""), Cell(f"{labels[i]} {a}")]
            for j, b in enumerate(metrics):
                v = None if i == j else val.get((a, b))
                row.append(Cell(format_tau(v), bold=bold and v is not None and not is_missing(v) and float(v) > 0.8))
            rows.append(row)
    return Layout(header, rows, "ll" + "r" * len(metrics))


def _layout_incompleteness(df: pd.DataFrame) -> Layout:
    """One row per metric, method and level: tau and its s.d., tau_AP, RMSE (4 decimals), the
    mean number of significant pairs (1 decimal) of the pairs."""
    _require(df, "incompleteness", ["metric", "method", "level", "trials", "tau", "tau_sd", "tau_ap",
                                    "rmse", "significant_pairs", "pairs"])
    header = ["Metric", "Method", "Level", "Trials", "tau", "s.d.", "tau_AP", "RMSE", "Significant", "Pairs"]
    rows = [[str(r.metric), str(r.method), format(float(r.level), "g"), str(int(r.trials)), fmt4(r.tau),
             "" if is_missing(r.tau_sd) else fmt4(r.tau_sd), "" if is_missing(r.tau_ap) else fmt4(r.tau_ap),
             fmt4(r.rmse), round_half_up(float(r.significant_pairs), 1), str(int(r.pairs))]
            for r in df.itertuples(index=False)]
    return Layout(header, rows, "lllr" + "r" * 6)


# --------------------------------------------------------------------------------------------
# the dispatch table: layout key (metaeval.outputs.Output.layout) -> layout and row order
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TableKind:
    name: str
    layout: Callable[..., Layout]
    sort: Callable[[pd.DataFrame], pd.DataFrame] | None = None   # from metaeval.meta.order
    #: the layout takes the computed context too (``layout(df, context)``: the primary measure, ...)
    context: bool = False

    def lay_out(self, df: pd.DataFrame, context: dict | None = None) -> Layout:
        return self.layout(df, context) if self.context else self.layout(df)


KINDS: dict[str, TableKind] = {k.name: k for k in [
    TableKind("collection", _layout_collection),
    TableKind("kendall", _layout_kendall),
    TableKind("bootstrap_paired", _layout_bootstrap, by_sensitivity),
    TableKind("bootstrap_unpaired", _layout_bootstrap, by_sensitivity),
    TableKind("swap", _layout_swap, by_pct_satisfying),
    TableKind("swap_rates", _layout_swap_rates),
    TableKind("stability", _layout_stability),
    TableKind("gain_kendall", _layout_gain_kendall),
    TableKind("gain_bootstrap", _layout_gain_bootstrap, gain_bootstrap_order),
    TableKind("preferred_rank", _layout_preferred_rank),
    TableKind("asl", _layout_asl),
    TableKind("run_means", _layout_run_means, context=True),
    TableKind("tstar", _layout_tstar),
    TableKind("anova", _layout_anova),
    TableKind("pvalues", _layout_pvalues),
    TableKind("discriminative_power", _layout_discriminative_power),
    TableKind("topic_set_size", _layout_topic_set_size),
    TableKind("incompleteness", _layout_incompleteness),
    TableKind("summary_collection", _layout_collection),
    TableKind("summary_sensitivity_paired", _wide(lambda v: format_percent(v, integer=False))),
    TableKind("summary_sensitivity_unpaired", _wide(lambda v: format_percent(v, integer=False))),
    TableKind("summary_estimated_diff_paired", _wide(sig_figs)),
    TableKind("summary_estimated_diff_unpaired", _wide(sig_figs)),
    TableKind("summary_swap_diff_required", _wide(fmt4)),
    TableKind("summary_swap_relative", _wide(format_percent)),
    TableKind("summary_swap_pct_satisfying", _wide(format_percent)),
    TableKind("summary_kendall", _wide(format_tau, bold_over=0.8, id_cols=2)),
    TableKind("rank_correlation", _layout_rank_correlation),
    TableKind("summary_rank_correlation", _wide(format_tau, id_cols=3)),
    TableKind("summary_discriminative_power", _wide(lambda v: format_percent(v, integer=False), id_cols=2)),
    # judgments: the tables of `metaeval judgments`
    TableKind("judgments_label_agreement", _jl.layout_label_agreement),
    TableKind("judgments_ranking_agreement", _jl.layout_ranking_agreement),
    TableKind("judgments_run_ranks", _jl.layout_run_ranks),
    TableKind("judgments_decision_agreement", _jl.layout_decision_agreement),
    TableKind("judgments_qrels_discriminative_power", _layout_generic),
    TableKind("judgments_topic_ranking_agreement", _layout_generic),
]}

# score standardisation: the layouts live in report/standardisation_layouts.py
from .standardisation_layouts import LAYOUTS as _STD_LAYOUTS

KINDS.update({name: TableKind(name, f) for name, f in _STD_LAYOUTS.items()})

# the tables whose long form repeats a key, laid out wide (the test-error rates: tests as columns;
# the risk-sensitive measures: risk weights as columns); the CSVs keep the long form
from .wide_layouts import LAYOUTS as _WIDE_LAYOUTS

KINDS.update({name: TableKind(name, f) for name, f in _WIDE_LAYOUTS.items()})

GENERIC = TableKind("generic", _layout_generic)


def kind_for(kind: str | None, default_name: str | None = None) -> TableKind:
    """The :class:`TableKind` of a layout key; None looks up ``default_name`` (a file stem) and
    falls back to the generic layout; ``"generic"`` is the generic layout."""
    if kind is None:
        return KINDS.get(default_name, GENERIC) if default_name is not None else GENERIC
    if kind == "generic":
        return GENERIC
    try:
        return KINDS[kind]
    except KeyError:
        from ..meta import stages

        for s in stages.plug_in_stages():        # a table of a stage registered from outside the package:
            if kind in dict(s.layouts):          # the layout it declares, else the generic one
                return TableKind(kind, dict(s.layouts)[kind])
            if any(kind == o.layout for o in s.outputs if o.kind == "table"):
                return GENERIC
        raise ValueError(f"unknown table kind {kind!r}; known: {sorted(KINDS)}") from None


def layout_table(df: pd.DataFrame, kind: str = "generic", context: dict | None = None) -> Layout:
    """The layout of ``df`` as table ``kind`` (its row order applied first); ``context``: what
    was computed (:func:`metaeval.outputs.caption_context`), for the layouts that read it."""
    spec = GENERIC if kind == "generic" else KINDS[kind]
    if spec.sort is not None:
        df = spec.sort(df)
    return spec.lay_out(df, context)
