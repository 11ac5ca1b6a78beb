"""The layouts of the discriminative-power tables (Carterette 2012; Sakai 2014; Sakai 2016):
``anova``, ``pvalues``, ``discriminative_power`` and ``topic_set_size``, registered in the layout
registry (:func:`metaeval.report.layouts.register_layout`).  Lay out only: the summaries come from
:mod:`metaeval.meta.discpower`."""

from __future__ import annotations

import pandas as pd

from .formatting import fmt4, fmt_short, is_missing, round_half_up, sig_figs
from .layouts import register_layout, require_columns, unique
from .render import Cell, Layout
from .sakai_layouts import sensitivity_cell

__all__ = ["layout_anova", "layout_pvalues", "layout_discriminative_power", "layout_topic_set_size"]


def _fmt_p(p) -> str:
    """A p-value: 4 decimals, ``< 0.0001`` below that."""
    if is_missing(p):
        return "-"
    p = float(p)
    return "< 0.0001" if 0 <= p < 0.00005 else fmt4(p)


@register_layout("anova")
def layout_anova(df: pd.DataFrame) -> Layout:
    """Two-way ANOVA without replication per metric: sums of squares and mean squares to 4
    significant figures, F to 2 decimals, p to 4 decimals (``< 0.0001`` below)."""
    require_columns(df, "anova", ["metric", "topics", "systems", "S_A", "S_B", "S_E", "V_A", "V_B", "V_E",
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


@register_layout("pvalues")
def layout_pvalues(df: pd.DataFrame) -> Layout:
    """The long ``pvalues`` table summarised (the CSV holds every pair; thousands of rows are no
    table to read): one row per metric and test with the number of pairs, how many have
    p < 0.01 / 0.05 / 0.10, and the median p (:func:`metaeval.meta.discpower.pvalue_summary`)."""
    from ..meta.discpower import pvalue_summary            # scipy: imported when needed

    require_columns(df, "pvalues", ["metric", "test", "system_x", "system_y", "p_value"])
    summ = pvalue_summary(df)
    levels = [c for c in summ.columns if c.startswith("p<")]
    header = [Cell("metric"), Cell("test"), Cell("pairs")] + \
        [Cell(f"p < {c[2:]}", tex=f"$p < {c[2:]}$") for c in levels] + [Cell("median p", tex="median $p$")]
    rows = [[Cell(str(r["metric"])), Cell(str(r["test"])), Cell(fmt4(r["pairs"]))]
            + [Cell(fmt4(r[c])) for c in levels] + [Cell(_fmt_p(r["median_p"]))]
            for r in summ.to_dict("records")]
    return Layout(header, rows, "ll" + "r" * (len(header) - 2))


@register_layout("discriminative_power")
def layout_discriminative_power(df: pd.DataFrame) -> Layout:
    """Metrics (rows) x tests (columns, :data:`metaeval.meta.discpower.TESTS` order), each cell
    ``significant/pairs = N%`` (:func:`metaeval.meta.discpower.discriminative_power_wide`; the
    percentage rounded half up, as in the bootstrap tables)."""
    from ..meta.discpower import discriminative_power_wide

    require_columns(df, "discriminative_power", ["metric", "test", "pairs", "significant"])
    wide = discriminative_power_wide(df.assign(share=df["significant"] / df["pairs"].where(df["pairs"] > 0))
                                     if "share" not in df.columns else df)
    cell = {(m, t): sensitivity_cell(k, n) for m, t, k, n in
            zip(df["metric"], df["test"], df["significant"], df["pairs"])}
    header = [Cell("metric")] + [Cell(str(t)) for t in wide.columns]
    rows = [[Cell(str(m))] + [Cell(cell.get((m, t), "-")) for t in wide.columns] for m in wide.index]
    return Layout(header, rows, "l" + "r" * len(wide.columns))


def _tss_label(method, systems, min_diff) -> tuple[str, str]:
    d = fmt_short(min_diff)
    if str(method) == "paired-t":
        return f"paired t, minD = {d}", f"paired $t$, min$D$ = {d}"
    return f"ANOVA m = {int(systems)}, minD = {d}", f"ANOVA $m$ = {int(systems)}, min$D$ = {d}"


@register_layout("topic_set_size")
def layout_topic_set_size(df: pd.DataFrame) -> Layout:
    """Sakai (2016): one row per metric, its V_E (4 significant figures), then the number of
    topics for every method, number of systems m and minimum detectable difference minD."""
    require_columns(df, "topic_set_size", ["metric", "method", "min_diff", "systems", "variance", "n"])
    metrics = unique(df["metric"])
    cols = unique(zip(df["method"].astype(str), df["systems"].astype(int), df["min_diff"].astype(float)))
    n = {(m, k, s, d): v for m, k, s, d, v in zip(df["metric"], df["method"].astype(str),
                                                  df["systems"].astype(int), df["min_diff"].astype(float), df["n"])}
    var = dict(zip(df["metric"], df["variance"]))
    header = [Cell("metric"), Cell("V_E", tex="$V_E$")] + \
        [Cell(a, tex=b) for a, b in (_tss_label(*c) for c in cols)]
    rows = [[Cell(str(m)), Cell(sig_figs(var[m], 4))] + [Cell(fmt4(n.get((m, *c)))) for c in cols]
            for m in metrics]
    return Layout(header, rows, "l" + "r" * (len(header) - 1))
