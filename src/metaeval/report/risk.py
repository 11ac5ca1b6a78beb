"""The risk table ``metaeval compare --risk-alpha`` prints after the comparison (Markdown or LaTeX):
one row per run and metric, URisk, TRisk and its p-value, ZRisk, GeoRisk, wins and losses against
the baseline (the columns of :data:`metaeval.meta.compare.RISK_COMPARE_COLUMNS`)."""

from __future__ import annotations

import pandas as pd

from .compare import _tex_escape

__all__ = ["render_risk"]

HEADS = ["metric", "run", "URisk", "TRisk", "p", "ZRisk", "GeoRisk", "wins", "losses"]


def _legend(baseline: str, alpha: float) -> str:
    return (f"Risk against the baseline {baseline}, alpha = {alpha:g} (a loss weighs 1 + alpha): URisk "
            "(Wang et al. 2012), TRisk with its two-sided p-value (Dinçer, Macdonald & Ounis 2014; "
            "TRisk < -2: significantly riskier than the baseline), ZRisk and GeoRisk against all runs "
            "(Dinçer, Macdonald & Ounis 2016); wins/losses: topics above/below the baseline.")


def render_risk(df: pd.DataFrame, baseline: str, *, fmt: str = "md", digits: int = 4) -> str:
    """The risk rows of the compare table ``df`` (with ``risk_alpha``) as Markdown or LaTeX."""
    if fmt not in ("md", "tex"):
        raise ValueError(f"unknown table format {fmt!r}; expected 'md' or 'tex'")
    tex = fmt == "tex"
    rows = []
    for r in df.itertuples(index=False):        # the compare table's order: by metric, runs in order
        name, metric = (_tex_escape(r.run), _tex_escape(r.metric)) if tex else (r.run, r.metric)
        rows.append([metric, name, f"{r.urisk:.{digits}f}", f"{r.trisk:.2f}", f"{r.trisk_p:.4f}",
                     f"{r.zrisk:.2f}", f"{r.georisk:.{digits}f}", str(int(r.wins)), str(int(r.losses))])
    alpha = float(df["risk_alpha"].iloc[0]) if len(df) else 0.0
    legend = _legend(baseline, alpha)
    if not tex:
        lines = ["| " + " | ".join(HEADS) + " |", "|---|---|" + "---:|" * (len(HEADS) - 2)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + "\n\n" + legend + "\n"
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{_tex_escape(legend)}}}",
             r"\begin{tabular}{ll" + "r" * (len(HEADS) - 2) + "}", r"\toprule",
             " & ".join(HEADS) + r" \\", r"\midrule"]
    lines += [" & ".join(r) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
