"""Collection statistics (Table 1 of Sakai (2007a, 2007b)): topics, runs used, R and R(L) per topic."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["collection_stats", "collection_means", "level_names"]


def level_names(H: int) -> list[str]:
    """``["L1", ..., "LH"]`` (NTCIREVAL level names; the papers' B, A, S for H = 3)."""
    return [f"L{j}" for j in range(1, H + 1)]


def collection_stats(collection, runs_used: int | list | None = None) -> pd.DataFrame:
    """One row per topic: ``topic, R, R(L1) ... R(LH), runs`` (the table layout averages them
    into Table 1's "/topic" columns and counts the topics).

    ``runs`` is the number of runs meta-evaluated, repeated on every row (``runs_used`` may be a
    count or the list of runs; default: all runs of the collection).
    """
    lc = np.asarray(collection.level_counts, dtype=np.int64)
    H = lc.shape[1] - 1
    if runs_used is None:
        nruns = len(collection.runs)
    elif isinstance(runs_used, (int, np.integer)):
        nruns = int(runs_used)
    else:
        nruns = len(list(runs_used))
    per = lc[:, 1:]
    cols = {"topic": list(collection.topics), "R": per.sum(axis=1)}
    for j, name in enumerate(level_names(H)):
        cols[f"R({name})"] = per[:, j]
    cols["runs"] = [nruns] * len(collection.topics)
    return pd.DataFrame(cols)


def collection_means(df: pd.DataFrame) -> list[dict]:
    """Table 1's row(s) from :func:`collection_stats` rows: per collection (a ``collection``
    column, if any, groups the topics), ``topics`` (distinct topics), the means of ``R`` and of
    every ``R(L)`` column, and ``runs`` (the single value, or the distinct values joined by
    ``", "`` when they differ).  A frame without ``topic`` is already one row per collection and
    is returned as records."""
    if "topic" not in df.columns:
        return df.to_dict("records")
    levels = [c for c in df.columns if str(c).startswith("R(") and str(c).endswith(")")]
    groups = (list(df.groupby("collection", sort=False)) if "collection" in df.columns
              else [(None, df)])
    recs = []
    for name, g in groups:
        runs = list(dict.fromkeys(g["runs"].dropna())) if "runs" in g.columns else []
        recs.append({"collection": name, "topics": int(g["topic"].nunique()),
                     "R": g["R"].astype(float).mean(),
                     **{c: g[c].astype(float).mean() for c in levels},
                     "runs": runs[0] if len(runs) == 1 else (", ".join(map(str, runs)) or None)})
    return recs
