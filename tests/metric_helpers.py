"""Small builders for hand-made collections used by the metric tests."""

from __future__ import annotations

import numpy as np

from metaeval.collection import PAD, Collection


def make_collection(lists, level_counts, depth=None) -> Collection:
    """``lists[r][t]`` a sequence of levels (-1 unjudged); ``level_counts[t]`` the qrels' counts
    per level L0..LH.  Lists are padded with PAD to ``depth`` (default: the longest list)."""
    R = len(lists)
    T = len(level_counts)
    n = max([len(l) for run in lists for l in run] + [1])
    depth = depth or n
    levels = np.full((R, T, depth), PAD, np.int8)
    lengths = np.zeros((R, T), np.int64)
    for r, run in enumerate(lists):
        for t, l in enumerate(run):
            l = list(l)[:depth]
            levels[r, t, :len(l)] = l
            lengths[r, t] = len(l)
    return Collection(topics=tuple(f"t{t}" for t in range(T)), runs=tuple(f"r{r}" for r in range(R)),
                      levels=levels, lengths=lengths,
                      level_counts=np.asarray(level_counts, np.int64).reshape(T, -1))


def one(levels, counts, measures, gains=None):
    """Evaluate measures on one ranked list of one topic -> {name: float}."""
    from metaeval.metrics import evaluate
    c = make_collection([[levels]], [counts])
    return {k: float(v[0, 0]) for k, v in evaluate(c, measures, gains).items()}
