"""The Markdown/LaTeX layouts of the judgments tables (registered in the layout registry,
:func:`metaeval.report.layouts.register_layout`, under ``judgments_NAME``).  Lay out only."""

from __future__ import annotations

import pandas as pd

from .formatting import fmt4, format_percent, format_tau, is_missing
from .layouts import layout_generic, register_layout
from .render import Layout

__all__ = ["layout_label_agreement", "layout_ranking_agreement", "layout_run_ranks",
           "layout_decision_agreement"]


def _f3(x) -> str:
    return "-" if is_missing(x) else f"{float(x):.3f}"


def _int(x) -> str:
    return "-" if is_missing(x) else str(int(x))


def layout_label_agreement(df: pd.DataFrame) -> Layout:
    """One row per pair of sets: pairs, topics, agreement, the four kappas, the three alphas (3 decimals)."""
    thr = int(df["threshold"].iloc[0]) if len(df) else 2
    header = ["A", "B", "topics", "pairs", "agree", "kappa", "kappa lin.", "kappa quad.",
              f"kappa bin. (>= {thr})", "alpha nom.", "alpha ord.", "alpha int."]
    rows = [[str(r.qrels_a), str(r.qrels_b), _int(r.topics), _int(r.pairs), _f3(r.agreement), _f3(r.kappa),
             _f3(r.kappa_linear), _f3(r.kappa_quadratic), _f3(r.kappa_binary), _f3(r.alpha_nominal),
             _f3(r.alpha_ordinal), _f3(r.alpha_interval)] for r in df.itertuples(index=False)]
    return Layout(header, rows, "ll" + "r" * 10)


def layout_ranking_agreement(df: pd.DataFrame) -> Layout:
    """Per metric and set: tau [interval], tau_b, tau_AP, RBO, tau among the top k, largest rank change."""
    k = int(df["top_k"].iloc[0]) if len(df) else 10
    header = ["metric", "qrels", "topics", "tau", "95% interval", "tau-b", "tau_AP", "RBO", f"tau top {k}",
              "max rank change"]
    rows = [[str(r.metric), str(r.qrels), _int(r.topics), format_tau(r.tau),
             f"[{format_tau(r.tau_ci_low)}, {format_tau(r.tau_ci_high)}]", format_tau(r.tau_b),
             format_tau(r.tau_ap), format_tau(r.rbo), format_tau(r.tau_top), _int(r.max_rank_change)]
            for r in df.itertuples(index=False)]
    return Layout(header, rows, "ll" + "r" * 8)


def layout_run_ranks(df: pd.DataFrame) -> Layout:
    """Rows (metric, run) in the reference's rank order; per set its rank and the change (+ = up)."""
    sets = list(dict.fromkeys(df["qrels"]))
    header = ["metric", "run", *sets]
    rows = []
    for metric, g in df.groupby("metric", sort=False):
        ref = g[g["qrels"] == sets[0]].sort_values(["rank", "run"], kind="stable")
        cell = {(r.run, r.qrels): r for r in g.itertuples(index=False)}
        for run in ref["run"]:
            row = [str(metric), str(run)]
            for s in sets:
                r = cell.get((run, s))
                if r is None:
                    row.append("-")
                elif s == sets[0]:
                    row.append(f"{int(r.rank)} ({fmt4(r.mean)})")
                else:
                    row.append(f"{int(r.rank)} ({int(r.rank_change):+d})")
            rows.append(row)
    return Layout(header, rows, "ll" + "r" * len(sets))


def layout_decision_agreement(df: pd.DataFrame) -> Layout:
    header = ["metric", "qrels", "pairs", "significant (ref.)", "significant (qrels)", "same decision",
              "reversed", "agreement"]
    rows = [[str(r.metric), str(r.qrels), _int(r.pairs), _int(r.significant_reference), _int(r.significant_qrels),
             _int(r.same_decision), _int(r.reversed),
             format_percent(None if is_missing(r.agreement) else 100.0 * float(r.agreement))]
            for r in df.itertuples(index=False)]
    return Layout(header, rows, "ll" + "r" * 6)


register_layout("judgments_label_agreement", layout_label_agreement)
register_layout("judgments_ranking_agreement", layout_ranking_agreement)
register_layout("judgments_run_ranks", layout_run_ranks)
register_layout("judgments_decision_agreement", layout_decision_agreement)
register_layout("judgments_qrels_discriminative_power", layout_generic)
register_layout("judgments_topic_ranking_agreement", layout_generic)
