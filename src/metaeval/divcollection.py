"""The labelled diversity collection: per-intent relevance for every run, topic and rank.

A :class:`DiversityCollection` is a :class:`~metaeval.collection.Collection` (so every plain
measure runs on it: its ``levels`` are the highest per-intent level of each document) that also
keeps, per topic, the list of its judged documents with their per-intent levels, and per rank the
index of the document in that list.  D-measures, I-rec and the intent-aware (ndeval) measures of
:mod:`metaeval.metrics.diversity` read only these arrays.

Array conventions (R runs, T topics, D depth, J judged documents per topic at most, I intents per
topic at most):

``doc_index[r, t, k]``     int32: index ``j`` of the document at rank ``k + 1`` in topic ``t``'s
                           judged list, ``UNJUDGED`` (-1) if not judged, ``PAD`` (-2) past the end.
``judged_levels[t, j, i]`` int8: level of judged document ``j`` for intent ``i`` (0 = judged
                           nonrelevant for that intent; ``PAD`` for padding rows/intents).
``judged_order[t, j]``     int32: rank of document ``j``'s id among the topic's judged ids in
                           *descending* byte order (ndeval's tie key); a large value for padding.
``n_judged[t]``            number of judged documents of topic ``t``.
``n_intents[t]``           intents of topic ``t`` with at least one relevant document; they are
                           intent slots ``0 .. n_intents[t]-1`` (intents without one come after).
``probs[t, i]``            P(i|q), 0 for padding slots.
``intent_ids[t]``          the intent ids of topic ``t``, slot order.
``intent_levels``          (property) int8 (R, T, D, I): per-intent level at every rank, -1/-2 as
                           in ``levels``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .collection import PAD, UNJUDGED, Collection

CACHE_KIND = "diversity"


@dataclass(frozen=True, eq=False)
class DiversityCollection(Collection):
    doc_index: np.ndarray = None
    judged_levels: np.ndarray = None
    judged_order: np.ndarray = None
    n_judged: np.ndarray = None
    n_intents: np.ndarray = None
    probs: np.ndarray = None
    intent_ids: tuple = ()
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        super().__post_init__()
        R, T = len(self.runs), len(self.topics)
        if self.doc_index is None or self.doc_index.shape != self.levels.shape:
            raise ValueError(f"doc_index must have the shape of levels {self.levels.shape}")
        if self.judged_levels.ndim != 3 or self.judged_levels.shape[0] != T:
            raise ValueError(f"judged_levels must be (topics={T}, J, I), got {self.judged_levels.shape}")
        J, I = self.judged_levels.shape[1:]
        if self.probs.shape != (T, I) or self.judged_order.shape != (T, J):
            raise ValueError("probs must be (T, I) and judged_order (T, J)")
        for a in (self.doc_index, self.judged_levels, self.judged_order, self.n_judged,
                  self.n_intents, self.probs):
            a.setflags(write=False)

    @property
    def max_intents(self) -> int:
        return self.judged_levels.shape[2]

    @property
    def intent_levels(self) -> np.ndarray:
        """(R, T, D, I) int8 per-intent levels at every rank (-1 unjudged, -2 padding)."""
        if "intent_levels" not in self._cache:
            di = self.doc_index
            T = di.shape[1]
            lv = self.judged_levels[np.arange(T)[None, :, None], np.maximum(di, 0)]   # (R,T,D,I)
            lv = np.where((di >= 0)[..., None], lv, di[..., None].astype(np.int8))
            lv.setflags(write=False)
            self._cache["intent_levels"] = lv
        return self._cache["intent_levels"]

    # ------------------------------------------------------------- Collection API
    def condensed(self) -> "DiversityCollection":
        keep = self.doc_index >= 0
        pos = np.cumsum(keep, axis=2) - 1
        r, t, k = np.nonzero(keep)
        lv = np.full_like(self.levels, PAD)
        di = np.full_like(self.doc_index, PAD)
        lv[r, t, pos[r, t, k]] = self.levels[r, t, k]
        di[r, t, pos[r, t, k]] = self.doc_index[r, t, k]
        lengths = keep.sum(axis=2).astype(self.lengths.dtype)
        return replace(self, levels=lv, doc_index=di, lengths=lengths, _cache={},
                       info={**self.info, "condensed": True})

    def select_runs(self, runs) -> "DiversityCollection":
        idx = [self.runs.index(r) for r in runs]
        return replace(self, runs=tuple(self.runs[i] for i in idx), levels=self.levels[idx],
                       lengths=self.lengths[idx], doc_index=self.doc_index[idx], _cache={})

    def save(self, path: str | Path) -> None:
        from .collection import CACHE_FORMAT
        from .util import atomic_write

        with atomic_write(path, "wb") as fh:
            np.savez_compressed(
                fh, format=np.array(CACHE_FORMAT), kind=np.array(CACHE_KIND),
                topics=np.array(self.topics, dtype=str), runs=np.array(self.runs, dtype=str),
                levels=self.levels, lengths=self.lengths, level_counts=self.level_counts,
                excluded_topics=np.array(self.excluded_topics, dtype=str),
                info=np.array(json.dumps(self.info, sort_keys=True)),
                doc_index=self.doc_index, judged_levels=self.judged_levels,
                judged_order=self.judged_order, n_judged=self.n_judged, n_intents=self.n_intents,
                probs=self.probs, intent_ids=np.array(json.dumps([list(x) for x in self.intent_ids])))

    @classmethod
    def from_npz(cls, z) -> "DiversityCollection":
        return cls(
            topics=tuple(str(t) for t in z["topics"]), runs=tuple(str(r) for r in z["runs"]),
            levels=z["levels"].copy(), lengths=z["lengths"].copy(),
            level_counts=z["level_counts"].copy(),
            excluded_topics=tuple(str(t) for t in z["excluded_topics"]),
            info=json.loads(str(z["info"])), doc_index=z["doc_index"].copy(),
            judged_levels=z["judged_levels"].copy(), judged_order=z["judged_order"].copy(),
            n_judged=z["n_judged"].copy(), n_intents=z["n_intents"].copy(), probs=z["probs"].copy(),
            intent_ids=tuple(tuple(x) for x in json.loads(str(z["intent_ids"]))))


__all__ = ["DiversityCollection", "UNJUDGED", "PAD"]
