"""Write the meta-evaluation tables as CSV (full precision), Markdown and LaTeX (booktabs).

The CSV is the data: never rounded, fixed row order, ``\\n`` line ends, floats written as their
shortest round-tripping ``repr`` -- byte-identical on a rerun.  The Markdown and LaTeX files are
the *presentation*, laid out like the tables of the papers (paper 000 = Sakai 2007, one highly
relevant document; paper 001 = Sakai 2007, bootstrap hypothesis tests):

==================== ============================================================================
kind                 layout
==================== ============================================================================
collection           paper 000/001 Table 1: |Q|, mean R and R(L) per topic, runs used
kendall              paper 000 Table 2 / 001 Table 5: triangular metric x metric matrix, > .8 bold
bootstrap_paired     paper 000 Table 4 / 001 Table 2: ``242/435 = 56%`` and a 2-significant-figure
                     estimated difference
bootstrap_unpaired   paper 001 Table 3 (same layout)
swap                 paper 000 Table 3 / 001 Table 4: columns (i)-(iv) and %pairs satisfying (ii)
swap_rates           swap rate per difference bin (rows) and metric (columns)
stability            MR / PT per fuzziness value f (rows) and metric (columns), 001 Figs 17-18
gain_kendall         paper 000 Table 5: tau of the default gains against each gain variant
gain_bootstrap       paper 000 Table 6: bootstrap sensitivity of every gain variant
preferred_rank       paper 000 Tables 7-9: topic, maxr_p, ``count(total)`` per relevance level
asl                  ASL of every pair, one column per metric and test (001 Figs 10-13 data)
run_means            mean of every run per metric (000 Fig. 8 / 001 Fig. 1 data)
tstar                summary of the bootstrap t* of the chosen pair (001 Figs 4-5 data)
summary_*            cross-collection tables of :mod:`metaeval.summary`
==================== ============================================================================

Layouts are looked up in :data:`KINDS` (one dispatch table); an unknown kind gets the generic
layout (every column, floats to 4 decimals).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from metaeval.util import atomic_dir_outputs, atomic_write

__all__ = [
    "Cell", "Layout", "TableKind", "KINDS", "CAPTIONS", "write_table", "read_table", "csv_text", "render_markdown",
    "render_latex", "layout_table", "escape_latex", "escape_markdown", "sig_figs", "format_tau",
    "format_percent", "split_measure",
]


# --------------------------------------------------------------------------------------------
# number formatting (presentation only; the CSV keeps the raw values)
# --------------------------------------------------------------------------------------------

def _is_missing(x) -> bool:
    if x is None:
        return True
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def sig_figs(x, n: int = 2) -> str:
    """Round to ``n`` significant figures, half up, keeping trailing zeros: 0.1 -> ``0.10``.

    This is the paper's rule for the estimated difference (paper 000 Fig. 7, 001 Fig. 8).
    """
    if _is_missing(x):
        return "-"
    x = float(x)
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    d = Decimal(repr(x))
    exp = d.adjusted() - (n - 1)
    q = d.quantize(Decimal(1).scaleb(exp), rounding=ROUND_HALF_UP)
    if q.adjusted() > d.adjusted():          # 0.0995 -> 0.100: one digit too many
        q = d.quantize(Decimal(1).scaleb(exp + 1), rounding=ROUND_HALF_UP)
    return format(q, "f")


def _round_half_up(x: float, decimals: int) -> str:
    if not math.isfinite(float(x)):              # t(z) = +-inf for a zero-variance pair (meta.bootstrap)
        return "inf" if float(x) > 0 else ("-inf" if float(x) < 0 else "nan")
    q = Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return format(q, "f")


def format_percent(pct, *, integer: bool = False) -> str:
    """A percentage (0-100) as the papers print it: ``56%``; below 10 one decimal (``5.6%``).

    ``integer=True`` always rounds to whole percent (paper 001 Tables 2-3: ``35/435 = 8%``).
    """
    if _is_missing(pct):
        return "-"
    pct = float(pct)
    if integer or abs(pct) >= 9.95 or pct == 0:
        return _round_half_up(pct, 0) + "%"
    return _round_half_up(pct, 1) + "%"


def format_tau(x) -> str:
    """Kendall's tau as in the papers: 4 decimals, no leading zero (``.8575``, ``-.1234``)."""
    if _is_missing(x):
        return "-"
    s = _round_half_up(float(x), 4)
    if s.startswith("0."):
        return s[1:]
    if s.startswith("-0."):
        return "-" + s[2:]
    return s


def _fmt4(x) -> str:
    if _is_missing(x):
        return "-"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return _round_half_up(float(x), 4) if math.isfinite(float(x)) else str(float(x))
    return str(x)


def _fmt_short(x) -> str:
    """A bin edge / fuzziness value: plain shortest form (0.01, 0.2)."""
    if _is_missing(x):
        return "-"
    x = float(x)
    return _round_half_up(x, 2) if x == round(x, 2) else repr(x)


# --------------------------------------------------------------------------------------------
# layout model and renderers
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cell:
    """One table cell: plain text (escaped per format), optionally bold; ``tex`` overrides LaTeX."""
    text: str
    bold: bool = False
    tex: str | None = None


@dataclass
class Layout:
    header: list
    rows: list
    align: str = ""                           # one of l/r/c per column; default l then r...

    def alignment(self) -> str:
        n = len(self.header)
        return self.align if len(self.align) == n else "l" + "r" * (n - 1)


def _cell(x) -> Cell:
    return x if isinstance(x, Cell) else Cell(str(x))


_TEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}
_TEX_RE = re.compile("|".join(re.escape(k) for k in _TEX_ESCAPES))


def escape_latex(text: str) -> str:
    """Escape LaTeX's special characters (metric names carry ``_ % @ , (``; ``@ , (`` are safe)."""
    return _TEX_RE.sub(lambda m: _TEX_ESCAPES[m.group(0)], str(text))


_MD_RE = re.compile(r"([\\|*`])")


def escape_markdown(text: str) -> str:
    """Escape the characters that break a pipe-table cell or start emphasis/code."""
    return _MD_RE.sub(r"\\\1", str(text))


def render_markdown(layout: Layout, caption: str | None = None) -> str:
    def md(c) -> str:
        c = _cell(c)
        t = escape_markdown(c.text)
        return f"**{t}**" if c.bold and t else t

    marks = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = []
    if caption:
        lines += [f"**{escape_markdown(caption)}**", ""]
    lines.append("| " + " | ".join(md(h) for h in layout.header) + " |")
    lines.append("|" + "|".join(marks.get(a, "---") for a in layout.alignment()) + "|")
    for row in layout.rows:
        lines.append("| " + " | ".join(md(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def render_latex(layout: Layout, caption: str | None = None, label: str | None = None) -> str:
    def tex(c) -> str:
        c = _cell(c)
        t = c.tex if c.tex is not None else escape_latex(c.text)
        return rf"\textbf{{{t}}}" if c.bold and t else t

    lines = [r"\begin{table}[htbp]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{escape_latex(caption)}}}")
    if label:
        lines.append(rf"\label{{tab:{re.sub(r'[^A-Za-z0-9:_-]', '-', label)}}}")
    lines += [rf"\begin{{tabular}}{{{layout.alignment()}}}", r"\toprule",
              " & ".join(tex(h) for h in layout.header) + r" \\", r"\midrule"]
    for row in layout.rows:
        lines.append(" & ".join(tex(c) for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# helpers shared by the layouts
# --------------------------------------------------------------------------------------------

_MEASURE_RE = re.compile(r"^(?P<base>[^()@\s]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>\d+))?$")


def split_measure(name: str) -> tuple[str, str | None]:
    """``P-plus(gains=10:20:30)@1000`` -> (``P-plus@1000``, ``10:20:30``); no gains -> (name, None)."""
    m = _MEASURE_RE.match(str(name))
    if not m:
        return str(name), None
    gains = None
    rest = []
    for part in (m.group("params") or "").split(","):
        part = part.strip()
        if not part:
            continue
        key, _, val = part.partition("=")
        if key.strip() == "gains":
            gains = val.strip()
        else:
            rest.append(part)
    base = m.group("base") + (f"({','.join(rest)})" if rest else "")
    if m.group("cutoff"):
        base += "@" + m.group("cutoff")
    return base, gains


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


# --------------------------------------------------------------------------------------------
# row orders (applied to the CSV as well, so all three files list the rows alike)
# --------------------------------------------------------------------------------------------

def _sort_desc(col: str) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def sort(df: pd.DataFrame) -> pd.DataFrame:
        if col not in df.columns or "metric" not in df.columns:
            return df
        return df.sort_values([col, "metric"], ascending=[False, True], kind="mergesort",
                              na_position="last").reset_index(drop=True)
    return sort


def _sort_gain_bootstrap(df: pd.DataFrame) -> pd.DataFrame:
    """Paper 000 Table 6: grouped by metric family (first appearance), by sensitivity within."""
    if "metric" not in df.columns or "sensitivity" not in df.columns:
        return df
    fam = [split_measure(m)[0] for m in df["metric"]]
    order = {f: i for i, f in enumerate(_unique(fam))}
    key = pd.DataFrame({"fam": [order[f] for f in fam], "sens": -df["sensitivity"].astype(float),
                        "metric": df["metric"].astype(str)})
    idx = key.sort_values(["fam", "sens", "metric"], kind="mergesort").index
    return df.loc[idx].reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# the layouts, one per kind
# --------------------------------------------------------------------------------------------

def _layout_generic(df: pd.DataFrame) -> Layout:
    header = [str(c) for c in df.columns]
    rows = [[_fmt4(v) for v in rec] for rec in df.itertuples(index=False, name=None)]
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) and not
                    pd.api.types.is_bool_dtype(df[c]) else "l" for c in df.columns)
    return Layout(header, rows, align)


_LEVEL_COL = re.compile(r"^R\((?P<level>[^()]+)\)$")


def _layout_collection(df: pd.DataFrame) -> Layout:
    """Paper 000 Table 1 (= 001 Table 1): |Q|, R/topic, R(L)/topic per level, runs used.

    Input either one row per topic (columns ``topic, R, R(L1)..R(LH), runs``; the layout takes
    the means) or already one row per collection (``topics`` instead of ``topic``).
    """
    _require(df, "collection", ["R"])
    levels = [c for c in df.columns if _LEVEL_COL.match(str(c))]
    levels = sorted(levels, key=lambda c: _level_key(_LEVEL_COL.match(c).group("level")),
                    reverse=True)                                  # highest level first (S, A, B)
    if "topic" in df.columns:
        groups = (list(df.groupby("collection", sort=False)) if "collection" in df.columns
                  else [(None, df)])
        recs = []
        for name, g in groups:
            runs = _unique(g["runs"].dropna()) if "runs" in g.columns else []
            recs.append({"collection": name, "topics": int(g["topic"].nunique()),
                         "R": g["R"].astype(float).mean(),
                         **{c: g[c].astype(float).mean() for c in levels},
                         "runs": runs[0] if len(runs) == 1 else (", ".join(map(str, runs)) or None)})
    else:
        recs = df.to_dict("records")
    has_name = any(r.get("collection") is not None for r in recs)
    header = ([Cell("collection")] if has_name else []) + \
        [Cell("|Q|", tex=r"$|Q|$"), Cell("R/topic", tex=r"$R$/topic")] + \
        [Cell(f"{c}/topic", tex="$R(" + escape_latex(_LEVEL_COL.match(c).group("level")) + ")$/topic")
         for c in levels] + [Cell("runs used")]

    def num(v, d=1):
        return "-" if _is_missing(v) else _round_half_up(float(v), d)

    rows = []
    for r in recs:
        row = ([str(r.get("collection", ""))] if has_name else [])
        row += [_fmt4(r.get("topics")), num(r.get("R"))] + [num(r.get(c)) for c in levels]
        row.append(_fmt4(r.get("runs")))
        rows.append(row)
    return Layout(header, rows, ("l" if has_name else "") + "r" * (len(header) - has_name))


def _level_key(level: str):
    m = re.search(r"\d+", level)
    return (0, int(m.group())) if m else (1, level)


def _kendall_matrix(df: pd.DataFrame, a: str = "metric_a", b: str = "metric_b"):
    metrics = _unique(m for pair in zip(df[a], df[b]) for m in pair)   # row order, a before b
    # both orientations, later rows win; diagonal never shown
    tau = {}
    for x, y, t in zip(df[a], df[b], df["tau"]):
        tau[(x, y)] = t
        tau.setdefault((y, x), t)
    return metrics, tau


def _layout_kendall(df: pd.DataFrame) -> Layout:
    """Paper 000 Table 2 / 001 Table 5: rows (a).., columns (b).., upper triangle, > 0.8 bold."""
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
            row.append(Cell(format_tau(t), bold=not _is_missing(t) and float(t) > 0.8))
        rows.append(row)
    return Layout(header, rows, "l" + "r" * (len(header) - 1))


def _sensitivity_cell(significant, pairs) -> str:
    if _is_missing(significant) or _is_missing(pairs):
        return "-"
    s, p = int(significant), int(pairs)
    pct = 100.0 * s / p if p else float("nan")
    return f"{s}/{p} = {format_percent(pct, integer=True)}"


def _layout_bootstrap(df: pd.DataFrame, label=None) -> Layout:
    """Paper 000 Table 4 / 001 Tables 2-3: ``242/435 = 56%``, estimated diff. to 2 sig. figures."""
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
    return format_percent(None if _is_missing(share) else 100.0 * float(share))


def _layout_swap(df: pd.DataFrame) -> Layout:
    """Paper 000 Table 3 / 001 Table 4: (i) metric, (ii) diff., (iii) max., (ii)/(iii), %pairs."""
    _require(df, "swap", ["metric", "diff_required", "max_diff", "pct_satisfying"])
    header = [Cell("(i) metric"), Cell("(ii) abs. diff."), Cell("(iii) max."), Cell("(ii)/(iii)"),
              Cell("%pairs satisfying (ii)", tex=r"\%pairs satisfying (ii)")]
    rows = []
    for rec in df.to_dict("records"):
        d, mx = rec["diff_required"], rec["max_diff"]
        rel = rec.get("relative")
        if _is_missing(rel) and not _is_missing(d) and not _is_missing(mx) and float(mx) > 0:
            rel = float(d) / float(mx)
        rows.append([Cell(str(rec["metric"])), Cell(_fmt4(d)), Cell(_fmt4(mx)),
                     Cell(_pct_of(rel)),
                     Cell(format_percent(rec["pct_satisfying"]), bold=True)])
    return Layout(header, rows, "lrrrr")


def _layout_swap_rates(df: pd.DataFrame) -> Layout:
    """Swap rate per difference bin (rows, ``0.00-0.01`` ... ``>= 0.20``) and metric (columns)."""
    _require(df, "swap_rates", ["metric", "bin", "swap_rate"])
    metrics = _unique(df["metric"])
    bins = sorted(_unique(df["bin"].astype(float)))
    rate = {(m, float(b)): r for m, b, r in zip(df["metric"], df["bin"], df["swap_rate"])}
    width = min((b2 - b1 for b1, b2 in zip(bins, bins[1:])), default=None)
    header = [Cell("difference bin")] + [Cell(str(m)) for m in metrics]
    rows = []
    for i, b in enumerate(bins):
        if i + 1 < len(bins):
            lab = f"{_fmt_short(b)}-{_fmt_short(bins[i + 1])}"
            tex = f"{_fmt_short(b)}--{_fmt_short(bins[i + 1])}"
        else:
            lab, tex = f">= {_fmt_short(b)}", rf"$\geq$ {_fmt_short(b)}"
        if width is None:
            lab, tex = _fmt_short(b), _fmt_short(b)
        rows.append([Cell(lab, tex=tex)] + [Cell(_fmt4(rate.get((m, b)))) for m in metrics])
    return Layout(header, rows)


def _layout_stability(df: pd.DataFrame) -> Layout:
    """MR / PT for each fuzziness value f (rows) and metric (columns), paper 001 Sec. 7.1."""
    _require(df, "stability", ["metric", "f", "minority_rate", "proportion_ties"])
    metrics = _unique(df["metric"])
    fs = sorted(_unique(df["f"].astype(float)))
    val = {(m, float(f)): (mr, pt) for m, f, mr, pt in
           zip(df["metric"], df["f"], df["minority_rate"], df["proportion_ties"])}
    header = [Cell("f")] + [Cell(f"{m} MR / PT") for m in metrics]
    rows = []
    for f in fs:
        row = [Cell(_fmt_short(f))]
        for m in metrics:
            mr, pt = val.get((m, f), (None, None))
            row.append(Cell(f"{_fmt4(mr)} / {_fmt4(pt)}"))
        rows.append(row)
    return Layout(header, rows)


def _gain_kendall_long(df: pd.DataFrame) -> pd.DataFrame:
    """Accept ``metric, gains, tau`` or ``metric_a, metric_b, tau`` (b = the gain variant)."""
    if {"metric", "gains", "tau"} <= set(df.columns):
        return df[["metric", "gains", "tau"]]
    _require(df, "gain_kendall", ["metric_a", "metric_b", "tau"])
    gains = [split_measure(b)[1] or str(b) for b in df["metric_b"]]
    return pd.DataFrame({"metric": df["metric_a"].to_numpy(), "gains": gains,
                         "tau": df["tau"].to_numpy()})


def _layout_gain_kendall(df: pd.DataFrame) -> Layout:
    """Paper 000 Table 5: rows = metric with the default gains, columns = gain variants."""
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
            row.append(Cell(format_tau(t), bold=not _is_missing(t) and float(t) > 0.8))
        rows.append(row)
    return Layout(header, rows)


def _gain_label(rec) -> str:
    fam, gains = split_measure(rec["metric"])
    if "gains" in rec and not _is_missing(rec["gains"]):
        gains = str(rec["gains"])
    is_default = "default" in rec and not _is_missing(rec["default"]) and bool(rec["default"])
    if gains == "default":                  # metaeval.meta.sweep without explicit default gains
        gains, is_default = None, True
    label = f"{fam} {gains}" if gains else fam
    return label + " (default)" if is_default else label


def _layout_gain_bootstrap(df: pd.DataFrame) -> Layout:
    """Paper 000 Table 6: ``P-plus 1:2:3 (default)  134/435 = 31%  0.15`` grouped by family."""
    return _layout_bootstrap(df, label=_gain_label)


def _layout_preferred_rank(df: pd.DataFrame) -> Layout:
    """Paper 000 Tables 7-9: topic, maxr_p, then ``count(total)`` per level, highest level first.

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
        row = [Cell(str(t)), Cell(_fmt4(rp))]
        if has_run:
            row.append(Cell(_fmt4(first.loc[t, "run"])))
        for lv in levels:
            c, n = cells.get((t, lv), (None, None))
            row.append(Cell("-" if _is_missing(c) else f"{int(c)}({int(n)})"))
        rows.append(row)
    return Layout(header, rows, "lr" + ("l" if has_run else "") + "r" * len(levels))


def _layout_asl(df: pd.DataFrame) -> Layout:
    """One row per system pair, one column per metric and test (4 decimals)."""
    _require(df, "asl", ["metric", "test", "system_x", "system_y", "asl"])
    cols = _unique(zip(df["metric"], df["test"]))
    pairs = _unique(zip(df["system_x"], df["system_y"]))
    val = {(m, t, x, y): a for m, t, x, y, a in
           zip(df["metric"], df["test"], df["system_x"], df["system_y"], df["asl"])}
    header = [Cell("system X"), Cell("system Y")] + [Cell(f"{m} ({t})") for m, t in cols]
    rows = [[Cell(str(x)), Cell(str(y))] + [Cell(_fmt4(val.get((m, t, x, y)))) for m, t in cols]
            for x, y in pairs]
    return Layout(header, rows, "ll" + "r" * len(cols))


def _layout_run_means(df: pd.DataFrame) -> Layout:
    """One row per run, one column per metric: the arithmetic mean over topics (4 decimals)."""
    _require(df, "run_means", ["metric", "run", "mean"])
    metrics = _unique(df["metric"])
    runs = _unique(df["run"])
    val = {(m, r): v for m, r, v in zip(df["metric"], df["run"], df["mean"])}
    header = [Cell("run")] + [Cell(str(m)) for m in metrics]
    rows = [[Cell(str(r))] + [Cell(_fmt4(val.get((m, r)))) for m in metrics] for r in runs]
    return Layout(header, rows)


def _layout_tstar(df: pd.DataFrame) -> Layout:
    """Per metric: the chosen pair, observed t, B, mean and s.d. of t*, and the implied ASL."""
    _require(df, "tstar", ["metric", "system_x", "system_y", "t_observed", "t_star"])
    header = [Cell("metric"), Cell("system X"), Cell("system Y"),
              Cell("t observed", tex=r"$t(\mathbf{z})$"), Cell("B"),
              Cell("mean t*", tex=r"mean $t^*$"), Cell("s.d. t*", tex=r"s.d. $t^*$"),
              Cell("ASL", tex=r"ASL")]
    from .meta.bootstrap import tstar_summary

    rows = []
    for m, g in df.groupby("metric", sort=False):
        ts = g["t_star"].to_numpy(dtype=float)
        t0 = float(g["t_observed"].iloc[0])
        mean, sd, asl = tstar_summary(ts, t0)           # finite t* only for mean and s.d.
        rows.append([Cell(str(m)), Cell(str(g["system_x"].iloc[0])), Cell(str(g["system_y"].iloc[0])),
                     Cell(_round_half_up(t0, 3)), Cell(str(len(ts))),
                     Cell(_fmt4(mean)), Cell(_fmt4(sd)),
                     Cell(_round_half_up(asl, 3) if asl is not None else "-")])
    return Layout(header, rows, "lllrrrrr")


def _wide(fmt: Callable, *, bold_over: float | None = None, id_cols: int = 1):
    """Summary tables: first ``id_cols`` columns are labels, the rest one value per collection."""
    def layout(df: pd.DataFrame) -> Layout:
        header = [Cell(str(c)) for c in df.columns]
        rows = []
        for rec in df.itertuples(index=False, name=None):
            row = [Cell(str(v)) for v in rec[:id_cols]]
            for v in rec[id_cols:]:
                row.append(Cell(fmt(v), bold=bold_over is not None and not _is_missing(v)
                                and float(v) > bold_over))
            rows.append(row)
        return Layout(header, rows, "l" * id_cols + "r" * (len(header) - id_cols))
    return layout


# --------------------------------------------------------------------------------------------
# the dispatch table
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TableKind:
    name: str
    layout: Callable[[pd.DataFrame], Layout]
    caption: str
    columns: tuple = ()                                  # documented CSV columns (docs/outputs.md)
    sort: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    regenerates: str = ""


KINDS: dict[str, TableKind] = {k.name: k for k in [
    TableKind("collection", _layout_collection,
              "Statistics of the collection: topics, mean number of relevant documents per topic "
              "(in total and per relevance level) and runs used",
              ("topic", "R", "R(Lk)...", "runs"), regenerates="paper 000 Table 1 / paper 001 Table 1"),
    TableKind("kendall", _layout_kendall,
              "Kendall's rank correlations between the system rankings of every two metrics "
              "(values above 0.8 in bold)",
              ("metric_a", "metric_b", "tau", "z0", "p_value"),
              regenerates="paper 000 Table 2 / paper 001 Table 5"),
    TableKind("bootstrap_paired", _layout_bootstrap,
              "Paired bootstrap sensitivity: system pairs with ASL < alpha, and the estimated "
              "overall difference required (two significant figures)",
              ("metric", "pairs", "significant", "sensitivity", "estimated_diff"),
              sort=_sort_desc("sensitivity"), regenerates="paper 000 Table 4 / paper 001 Table 2"),
    TableKind("bootstrap_unpaired", _layout_bootstrap,
              "Unpaired bootstrap sensitivity: system pairs with ASL < alpha, and the estimated "
              "overall difference required (two significant figures)",
              ("metric", "pairs", "significant", "sensitivity", "estimated_diff"),
              sort=_sort_desc("sensitivity"), regenerates="paper 001 Table 3"),
    TableKind("swap", _layout_swap,
              "Swap method (swap rate <= 5%): (ii) absolute difference required, (iii) maximum "
              "observed, their ratio, and the percentage of comparisons satisfying (ii)",
              ("metric", "diff_required", "max_diff", "relative", "pct_satisfying"),
              sort=_sort_desc("pct_satisfying"), regenerates="paper 000 Table 3 / paper 001 Table 4"),
    TableKind("swap_rates", _layout_swap_rates,
              "Swap rate per performance-difference bin (bin = lower edge)",
              ("metric", "bin", "comparisons", "swaps", "swap_rate"),
              regenerates="the curves behind paper 000 Table 3 / paper 001 Table 4"),
    TableKind("stability", _layout_stability,
              "Stability method: minority rate (MR) and proportion of ties (PT) per fuzziness f",
              ("metric", "f", "minority_rate", "proportion_ties"),
              regenerates="the data of paper 001 Figs 17-18"),
    TableKind("gain_kendall", _layout_gain_kendall,
              "Kendall's rank correlations: default gain values versus others (above 0.8 in bold)",
              ("metric", "gains", "tau", "z0", "p_value"), regenerates="paper 000 Table 5"),
    TableKind("gain_bootstrap", _layout_gain_bootstrap,
              "The effect of changing gain values on the paired bootstrap sensitivity",
              ("metric", "pairs", "significant", "sensitivity", "estimated_diff", "gains", "default"),
              sort=_sort_gain_bootstrap, regenerates="paper 000 Table 6"),
    TableKind("preferred_rank", _layout_preferred_rank,
              "The maximum preferred rank among the runs and the number of relevant documents at "
              "or above it per relevance level (total in parentheses)",
              ("topic", "run", "max_rp", "level", "count", "total"),
              regenerates="paper 000 Tables 7-9"),
    TableKind("asl", _layout_asl, "Achieved significance level of every system pair",
              ("metric", "test", "system_x", "system_y", "asl"),
              regenerates="the data of paper 001 Figs 10-13"),
    TableKind("run_means", _layout_run_means, "Mean performance of every run over the topics",
              ("metric", "run", "mean"), regenerates="the data of paper 000 Fig. 8 / paper 001 Fig. 1"),
    TableKind("tstar", _layout_tstar,
              "Bootstrap replicates t* of the paired test for the chosen system pair of each metric",
              ("metric", "system_x", "system_y", "t_observed", "t_star"),
              regenerates="the data of paper 001 Figs 4-5"),
    TableKind("summary_sensitivity_paired", _wide(lambda v: format_percent(v, integer=False)),
              "Paired bootstrap sensitivity (% of system pairs with ASL < alpha) per collection",
              ("metric", "COLLECTION..."), regenerates="paper 000 Fig. 10 / paper 001 Fig. 14"),
    TableKind("summary_sensitivity_unpaired", _wide(lambda v: format_percent(v, integer=False)),
              "Unpaired bootstrap sensitivity (% of system pairs with ASL < alpha) per collection",
              ("metric", "COLLECTION..."), regenerates="paper 001 Fig. 15"),
    TableKind("summary_estimated_diff_paired", _wide(sig_figs),
              "Paired bootstrap: estimated difference required per collection",
              ("metric", "COLLECTION..."), regenerates="column (iii) of paper 000 Table 4 / 001 Table 2"),
    TableKind("summary_estimated_diff_unpaired", _wide(sig_figs),
              "Unpaired bootstrap: estimated difference required per collection",
              ("metric", "COLLECTION..."), regenerates="column (iii) of paper 001 Table 3"),
    TableKind("summary_swap_diff_required", _wide(_fmt4),
              "Swap method: absolute difference required for a swap rate <= 5% per collection",
              ("metric", "COLLECTION..."), regenerates="column (ii) of paper 000 Table 3 / 001 Table 4"),
    TableKind("summary_swap_relative", _wide(format_percent),
              "Swap method: relative difference required ((ii)/(iii), %) per collection",
              ("metric", "COLLECTION..."), regenerates="column (ii)/(iii) of paper 000 Table 3 / 001 Table 4"),
    TableKind("summary_swap_pct_satisfying", _wide(format_percent),
              "Swap method: % of comparisons satisfying the required difference per collection",
              ("metric", "COLLECTION..."), regenerates="paper 000 Fig. 9 / paper 001 Fig. 20"),
    TableKind("summary_kendall", _wide(format_tau, bold_over=0.8, id_cols=2),
              "Kendall's tau of every metric pair per collection (above 0.8 in bold)",
              ("metric_a", "metric_b", "COLLECTION..."),
              regenerates="paper 000 Table 2 / paper 001 Table 5 across collections"),
    TableKind("summary_collection", _layout_collection,
              "Statistics of the collections", ("collection", "topics", "R", "R(Lk)...", "runs"),
              regenerates="paper 000 Table 1 / paper 001 Table 1"),
]}

GENERIC = TableKind("generic", _layout_generic, "")

#: caption per table kind, naming the paper table it regenerates
CAPTIONS: dict[str, str] = {k: f"{v.caption}. Regenerates {v.regenerates}." if v.regenerates
                            else v.caption + "." for k, v in KINDS.items()}


# --------------------------------------------------------------------------------------------
# CSV and the writer
# --------------------------------------------------------------------------------------------

def _float_text(x) -> str:
    return "" if x is None or x != x else repr(float(x))


def csv_text(df: pd.DataFrame) -> str:
    """The CSV text: floats as shortest round-tripping repr (never rounded), ``\\n`` line ends."""
    out = df.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_float_dtype(col.dtype):
            out[c] = [_float_text(v) for v in col.to_numpy(dtype=float)]
        elif col.dtype == object:
            out[c] = [_float_text(v) if isinstance(v, (float, np.floating)) else v for v in col]
    return out.to_csv(index=False, lineterminator="\n")


#: the text columns of the tables (and of the pipeline's part CSVs); every other column is read
#: as numbers or booleans
TEXT_COLUMNS = ("metric", "metric_a", "metric_b", "run", "system_x", "system_y", "test", "topic",
                "gains", "paper_gains", "variant", "level")


def read_table(path) -> pd.DataFrame:
    """Read a table CSV back (as :func:`csv_text` wrote it): empty cells are missing values, the
    :data:`TEXT_COLUMNS` stay strings (a run named ``001`` or a metric named ``NA`` survives)."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""],
                       dtype={c: str for c in TEXT_COLUMNS})


def _resolve_kind(kind: str | None, stem: Path) -> TableKind:
    if kind is None:
        return KINDS.get(stem.name, GENERIC)
    if kind == "generic":
        return GENERIC
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown table kind {kind!r}; known: {sorted(KINDS)}") from None


def layout_table(df: pd.DataFrame, kind: str = "generic") -> Layout:
    spec = GENERIC if kind == "generic" else KINDS[kind]
    if spec.sort is not None:
        df = spec.sort(df)
    return spec.layout(df)


def write_table(df: pd.DataFrame, path_stem, *, kind: str | None = None,
                caption: str | None = None) -> list[Path]:
    """Write ``STEM.csv``, ``STEM.md`` and ``STEM.tex``; return their paths.

    ``kind`` selects the paper layout (see :data:`KINDS`); by default the stem's file name
    (``.../tables/kendall`` -> ``kendall``), else the generic layout.  ``caption`` defaults to the
    kind's caption.  All three texts are rendered before any file is touched, and each file is
    written atomically, so a failure leaves no partial output.  ``df`` is not modified.
    """
    stem = Path(path_stem)
    spec = _resolve_kind(kind, stem)
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"write_table: expected a pandas DataFrame, got {type(df).__name__}")
    data = spec.sort(df) if spec.sort is not None else df
    if caption is None:
        caption = CAPTIONS.get(spec.name, "")
    layout = spec.layout(data)
    texts = {".csv": csv_text(data), ".md": render_markdown(layout, caption),
             ".tex": render_latex(layout, caption, label=stem.name)}
    paths: list[Path] = []
    with atomic_dir_outputs(paths):              # a failure on file 2 or 3 removes file 1 too
        for suffix, text in texts.items():
            path = Path(str(stem) + suffix)      # not with_suffix: names may contain dots
            with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            paths.append(path)
    return paths
