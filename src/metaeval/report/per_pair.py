"""Per-pair tables at 80+ runs: the Markdown and LaTeX of a table with one row per run
pair (``asl``: 3,403 rows at 83 runs, a 956 KB ``asl.tex``) show the pairs of the top-k runs only,
the CSV beside them keeps every pair.

The top runs are those with the highest mean of the ordering metric of ``run_means`` (``AP`` when
there is one, else its first metric: the metric the run-means figure sorts by), ties by name.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

__all__ = ["PAIR_TOP_RUNS", "PAIR_RUNS_LIMIT", "PER_PAIR_TABLES", "top_runs", "pair_runs_for", "restrict_pairs", "pair_note"]

#: runs whose pairs the Markdown/LaTeX of a per-pair table show (0: every pair) ...
PAIR_TOP_RUNS = 20
#: ... when there are more runs than this: 22 runs have 231 pairs, a table of some 250 lines (as
#: every Markdown/LaTeX table, :data:`metaeval.report.tables.TABLE_MAX_ROWS`)
PAIR_RUNS_LIMIT = 22
#: the tables with one row per run pair (columns ``system_x``, ``system_y``)
PER_PAIR_TABLES = ("asl",)


def _order_metric(run_means: pd.DataFrame) -> str | None:
    metrics = list(dict.fromkeys(run_means["metric"])) if len(run_means) else []
    for m in ("AP", "AveP"):
        if m in metrics:
            return m
    return metrics[0] if metrics else None


def top_runs(run_means: pd.DataFrame, k: int, metric: str | None = None) -> tuple[list[str], str | None]:
    """The ``k`` runs of highest mean ordering metric (``metric`` when the run means hold it;
    ties by name) and that metric."""
    if metric is None or not (run_means["metric"] == metric).any():
        metric = _order_metric(run_means)
    if metric is None:
        return [], None
    d = run_means[run_means["metric"] == metric]
    d = d.assign(run=d["run"].astype(str)).sort_values(["mean", "run"], ascending=[False, True], kind="mergesort")
    return d["run"].tolist()[:k], metric


def pair_runs_for(tables: Mapping[str, pd.DataFrame], k: int = PAIR_TOP_RUNS,
                  limit: int = PAIR_RUNS_LIMIT, metric: str | None = None) -> dict | None:
    """``{"runs": top k runs, "of": number of runs, "metric": ordering metric}`` when the run means
    of ``tables`` name more than ``max(k, limit)`` runs (``k`` 0: never), else None."""
    rm = tables.get("run_means")
    if not k or rm is None or not len(rm):
        return None
    n = rm["run"].astype(str).nunique()
    if n <= max(k, limit):
        return None
    runs, metric = top_runs(rm, k, metric)
    return {"runs": runs, "of": n, "metric": metric}


def restrict_pairs(df: pd.DataFrame, runs) -> pd.DataFrame:
    """The rows of ``df`` whose two systems are both in ``runs``."""
    keep = set(map(str, runs))
    return df[df["system_x"].astype(str).isin(keep) & df["system_y"].astype(str).isin(keep)]


def pair_note(name: str, pair_runs: dict) -> str:
    """The caption's sentence saying what the Markdown/LaTeX show."""
    k = len(pair_runs["runs"])
    return (f" Shown: the pairs of the top {k} of {pair_runs['of']} runs by mean {pair_runs['metric']}; "
            f"every pair is in {name}.csv.")
