"""The table layouts of the bayes stage (Sakai 2017; Benham et al. 2020): ``bayes_pairs`` with the
paired t test's p-value of every pair beside the posterior probability (the comparison Sakai 2017
makes; the p-values come in the context: the frame ``bayes_t_pvalues`` of the stage's run,
:func:`metaeval.meta.stages.bayes.frames`; the CSV keeps its declared columns), registered in the layout registry
(:func:`metaeval.report.layouts.register_layout`)."""

from __future__ import annotations

import pandas as pd

from ..meta.stages.bayes import T_PVALUES
from .formatting import fmt4, is_missing
from .layouts import register_layout
from .render import Layout

__all__ = ["LAYOUTS", "T_PVALUES"]

#: T_PVALUES: the context key of the paired t test's p-values, a frame ``metric, run, other, p`` (the
#: stage's, :func:`metaeval.meta.stages.bayes.frames`; or a mapping ``{(metric, run, other): p}``)


def _num(v) -> str:
    return "" if v is None or is_missing(v) else fmt4(v)


def _layout_pairs(df: pd.DataFrame, context: dict | None = None) -> Layout:
    """One row per metric and ordered pair: diff, its 95% credible interval, P(run > other), the
    effect size and the paired t test's two-sided p-value (empty without the context)."""
    tp = (context or {}).get(T_PVALUES)
    if isinstance(tp, pd.DataFrame):
        tp = {(str(m), str(r), str(o)): float(p) for m, r, o, p in zip(tp["metric"], tp["run"], tp["other"], tp["p"])}
    tp = tp or {}
    header = ["Metric", "Run", "Other", "Diff", "CI low", "CI high", "P(run > other)", "Effect", "t-test p"]
    rows = [[str(r.metric), str(r.run), str(r.other), _num(r.diff), _num(r.ci_low), _num(r.ci_high),
             _num(r.p_greater), _num(r.effect), _num(tp.get((str(r.metric), str(r.run), str(r.other))))]
            for r in df.itertuples(index=False)]
    return Layout(header, rows, "lll" + "r" * 6)


def _layout_runs(df: pd.DataFrame) -> Layout:
    """One row per metric and run: the posterior mean of the run's mean, its 95% credible interval
    and P(best)."""
    header = ["Metric", "Run", "Mean", "CI low", "CI high", "P(best)"]
    rows = [[str(r.metric), str(r.run), _num(r.mean), _num(r.ci_low), _num(r.ci_high), _num(r.p_best)]
            for r in df.itertuples(index=False)]
    return Layout(header, rows, "ll" + "r" * 4)


def _layout_fit(df: pd.DataFrame) -> Layout:
    """One row per metric: the scales, R-hat, the bulk ESS (whole), divergences, chains, draws."""
    header = ["Metric", "sigma_system", "sigma_topic", "sigma_residual", "R-hat", "ESS", "Divergences", "Chains",
              "Draws"]
    rows = [[str(r.metric), _num(r.sigma_system), _num(r.sigma_topic), _num(r.sigma_residual), _num(r.rhat_max),
             "" if is_missing(r.ess_min) else f"{float(r.ess_min):.0f}", str(int(r.divergences)), str(int(r.chains)),
             str(int(r.draws))] for r in df.itertuples(index=False)]
    return Layout(header, rows, "l" + "r" * 8)


#: layout key -> layout function (each registered with metaeval.report.layouts.register_layout)
LAYOUTS = {"bayes_runs": _layout_runs, "bayes_pairs": _layout_pairs, "bayes_fit": _layout_fit}
register_layout("bayes_runs", _layout_runs)
register_layout("bayes_pairs", _layout_pairs, context=True)
register_layout("bayes_fit", _layout_fit)
