"""Preferred-rank statistics (Sakai (2007a) Appendix, Tables 7-9).

For each topic: among the runs whose list contains a relevant document, the run with the largest
preferred rank ``r_p`` (the rank of the first document of the highest level present in the list,
NTCIREVAL's ``rp``, via :func:`metaeval.metrics.ntcir.ntcir_header`); its ``maxr_p``; and for that
run the number of documents of each relevant level at or above rank ``maxr_p``, beside the total
number of judged documents of that level for the topic (the paper prints them as ``1(14)``).
Ties in ``r_p`` go to the first run in run order (the order of ``runs``).  A topic where no run
retrieves a relevant document gets ``run = ""`` and ``max_rp = 0``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


__all__ = ["preferred_rank_stats", "preferred_ranks"]


def preferred_ranks(collection) -> np.ndarray:
    """(runs, topics) ``r_p``, 0 where a list holds no relevant document."""
    try:
        from metaeval.metrics.ntcir import ntcir_header

        return np.asarray(ntcir_header(collection)["rp"], dtype=np.int64)
    except ImportError:  # pragma: no cover - the metrics module predates this one
        lv = collection.levels
        top = lv.max(axis=2, keepdims=True)
        first = (lv == top).argmax(axis=2) + 1
        return np.where(top[..., 0] >= 1, first, 0).astype(np.int64)


def preferred_rank_stats(collection, runs: list[str] | None = None) -> pd.DataFrame:
    """One row per topic and relevant level, highest level first (S, A, B in the paper):
    ``topic, run, max_rp, level, count, total``."""
    c = collection if runs is None else collection.select_runs(runs)
    rp = preferred_ranks(c)                                  # (R, T)
    T = rp.shape[1]
    H = c.level_counts.shape[1] - 1
    best = np.argmax(rp, axis=0)                             # first run with the largest rp
    maxrp = rp[best, np.arange(T)]
    lv = c.levels[best, np.arange(T)]                        # (T, depth)
    within = np.arange(lv.shape[1])[None, :] < maxrp[:, None]
    levels = list(range(H, 0, -1))
    counts = np.stack([((lv == j) & within).sum(axis=1) for j in levels], axis=1)     # (T, H)
    totals = np.asarray(c.level_counts, dtype=np.int64)[:, levels]                    # (T, H)
    run_names = np.array([c.runs[b] if m > 0 else "" for b, m in zip(best, maxrp)], dtype=object)
    return pd.DataFrame({
        "topic": np.repeat(np.array(c.topics, dtype=object), H),
        "run": np.repeat(run_names, H),
        "max_rp": np.repeat(maxrp.astype(np.int64), H),
        "level": np.tile(np.array([f"L{j}" for j in levels], dtype=object), T),
        "count": counts.ravel().astype(np.int64),
        "total": totals.ravel(),
    })
