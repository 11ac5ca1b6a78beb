"""Collection statistics (paper 000 / 001 Table 1): topics, runs used, R and R(L) per topic."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["collection_stats", "level_names"]


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
