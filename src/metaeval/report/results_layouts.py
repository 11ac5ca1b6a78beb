"""The layout of the results table (stage ``results_table``, ``tables/results``): one row per run in
the table's order (best first by the primary measure), one column per measure, each cell the run's
mean at the precision its standard error supports (:func:`decimals_for`), the best mean of each
measure in bold, and the marks of the comparisons the CSV holds (as ``metaeval compare``'s table,
:mod:`metaeval.report.compare`): a dagger, or with several baselines the letters of the baselines
the mean differs from significantly; a ``Baseline`` column gives the baselines' letters."""

from __future__ import annotations

import math

import pandas as pd

from .compare import run_letter
from .layouts import register_layout, unique
from .render import Cell, Layout

__all__ = ["decimals_for"]


def decimals_for(se) -> int:
    """Decimals that show a mean to two significant figures of its standard error ``se`` (the
    smallest of a measure's runs), within 2..4: ``se`` 0.012 -> 3, 0.0012 -> 4, 0.12 -> 2."""
    se = [float(x) for x in se if not math.isnan(float(x)) and float(x) > 0]
    if not se:
        return 4
    return max(2, min(4, 1 - math.floor(math.log10(min(se)))))


@register_layout("results")
def layout_results(df: pd.DataFrame) -> Layout:
    metrics = unique(df["metric"].astype(str))
    runs = unique(df["run"].astype(str))
    against = df["against"].fillna("").astype(str)
    lone = df.loc[against == "", ["metric", "run"]].astype(str)
    compared = unique(against[against != ""])
    best_mode = all(set(g["against"].fillna("").astype(str)) - {""} <= set(g.loc[g["mean"] == g["mean"].max(), "run"])
                    for _, g in df.groupby("metric", sort=False))
    baselines = [] if best_mode else unique(list(lone["run"])[:1] + compared)
    letters = {b: run_letter(i) for i, b in enumerate(baselines)}
    mean = {(m, r): float(v) for m, r, v in zip(df["metric"].astype(str), df["run"].astype(str), df["mean"])}
    se = df.groupby("metric", sort=False)["se"].apply(list).to_dict() if "se" in df.columns else {}
    digits = {m: decimals_for(se.get(m, ())) for m in metrics}
    best = {m: max(v for (mm, _), v in mean.items() if mm == m) for m in metrics}
    marks: dict = {}
    sig = df[df["significant"].astype(bool)]
    for m, r, a in zip(sig["metric"].astype(str), sig["run"].astype(str), sig["against"].astype(str)):
        marks.setdefault((m, r), set()).add(letters.get(a, ""))
        if r in letters and a in letters:             # two baselines: each carries the other's letter
            marks.setdefault((m, a), set()).add(letters[r])

    def cell(m: str, r: str) -> Cell:
        v = mean.get((m, r))
        if v is None or math.isnan(v):
            return Cell("")
        text = f"{v:.{digits[m]}f}"
        mk = marks.get((m, r))
        bold = v == best[m]
        if not mk:
            return Cell(text, bold)
        if len(baselines) <= 1:
            return Cell(text + "†", bold, text + r"$^\dagger$")
        sup = "".join(sorted(mk, key=lambda s: (len(s), s)))
        return Cell(f"{text}<sup>{sup}</sup>", bold, rf"{text}$^{{\mathrm{{{sup}}}}}$")

    head = [Cell("Run")] + ([Cell("Baseline")] if baselines else []) + [Cell(m) for m in metrics]
    rows = [[Cell(r)] + ([Cell(letters.get(r, ""))] if baselines else []) + [cell(m, r) for m in metrics]
            for r in runs]
    return Layout(head, rows, "l" + ("c" if baselines else "") + "r" * len(metrics))
