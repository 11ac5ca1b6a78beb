"""Input validation for the meta-evaluation functions, kept apart from the algorithms.

Every public function accepts either a ``pandas.DataFrame`` (index = topic, columns = runs) or a
numpy array of shape ``(topics, runs)``; :func:`as_scores` turns both into a read-only float64
copy plus the topic and run labels, so no algorithm can mutate the caller's data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Scores", "as_scores", "check_alpha", "check_B", "MIN_TOPICS", "MIN_RUNS"]

MIN_TOPICS = 2
MIN_RUNS = 2


@dataclass(frozen=True, eq=False)
class Scores:
    """A validated topic x run score matrix (``values`` is a read-only float64 copy)."""

    values: np.ndarray
    topics: tuple[str, ...]
    runs: tuple[str, ...]
    name: str = ""

    @property
    def n_topics(self) -> int:
        return self.values.shape[0]

    @property
    def n_runs(self) -> int:
        return self.values.shape[1]


def as_scores(data, name: str = "", min_topics: int = MIN_TOPICS, min_runs: int = MIN_RUNS) -> Scores:
    """Validate a topic x run matrix: 2-D, numeric, finite, at least ``min_topics`` x ``min_runs``.

    Raises ``ValueError`` naming the metric (``name``), the problem and, for NaN/inf, the first
    offending topic and run.
    """
    if isinstance(data, Scores):
        return data
    label = f"{name}: " if name else ""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        topics = tuple(str(t) for t in data.index)
        runs = tuple(str(r) for r in data.columns)
        try:
            arr = data.to_numpy(dtype=np.float64, copy=True)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{label}scores must be numeric ({e})") from None
    else:
        try:
            arr = np.array(data, dtype=np.float64, copy=True)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{label}scores must be numeric ({e})") from None
        if arr.ndim != 2:
            raise ValueError(f"{label}scores must be a 2-D (topics, runs) matrix, got shape {arr.shape}")
        topics = tuple(str(i) for i in range(arr.shape[0]))
        runs = tuple(str(j) for j in range(arr.shape[1]))
    if arr.ndim != 2:
        raise ValueError(f"{label}scores must be a 2-D (topics, runs) matrix, got shape {arr.shape}")
    n, r = arr.shape
    if n < min_topics:
        raise ValueError(f"{label}need at least {min_topics} topics, got {n}")
    if r < min_runs:
        raise ValueError(f"{label}need at least {min_runs} runs, got {r}")
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{label}non-finite score {arr[i, j]} for topic {topics[i]}, run {runs[j]} "
                         f"({int(bad.sum())} non-finite values in all)")
    if len(set(runs)) != len(runs):
        raise ValueError(f"{label}duplicate run names")
    if len(set(topics)) != len(topics):
        raise ValueError(f"{label}duplicate topic ids")
    arr.setflags(write=False)
    return Scores(arr, topics, runs, name)


def check_alpha(alpha: float) -> float:
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    return alpha


def check_B(B: int) -> int:
    if isinstance(B, bool) or int(B) != B or int(B) < 1:
        raise ValueError(f"B (number of bootstrap samples) must be a positive integer, got {B!r}")
    return int(B)


def check_batch(batch: int | None, B: int) -> int:
    if batch is None:
        return B
    if isinstance(batch, bool) or int(batch) != batch or int(batch) < 1:
        raise ValueError(f"batch must be a positive integer, got {batch}")
    return min(int(batch), B)
