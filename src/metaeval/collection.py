"""The labelled collection: (run x topic x rank) arrays of relevance levels, and its per-intent
(diversity) form.

This is the output of the *labelling* step (NTCIREVAL's ``label``; Sakai 2011, Sec. 2.3) for all runs
and topics at once.  Computation (:mod:`metaeval.metrics`) never sees document ids, only these
arrays, so other labelling strategies (condensed lists, equivalence classes, real-valued global
gains for diversity) produce a Collection or a gain array of the same shape without touching the
metric code.

Array conventions (R runs, T topics, D = list depth):

``levels[r, t, k]``  int8, the relevance level of the document at rank ``k + 1`` of run ``r`` on
                     topic ``t``: ``0..H`` a judged level (0 = judged nonrelevant, L0),
                     ``UNJUDGED`` (-1) for a document absent from the qrels, ``PAD`` (-2) past the
                     end of the list.
``lengths[r, t]``    the number of documents in the list (NTCIREVAL's ``syslen``), after truncation.
``level_counts[t, j]`` the number of documents of topic ``t`` judged at level ``j`` (j = 0..H).

Document identity (optional; built by :func:`metaeval.io.ingest.load_collection` and kept in the
cache) -- what a method that changes the judgments needs (reduced qrels, pool depth, pool reuse):

``judged_topic[i]``, ``judged_docs[i]``, ``judged_level[i]``  the judgments of the topics of the
                     collection, one entry ``i`` per (topic, document), sorted by topic (bytes ids);
``qrels_row[r, t, k]`` int32, the entry of the document at rank ``k + 1``: -1 unjudged, ``PAD``
                     past the end of the list.
"""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

# json is imported where used, pathlib for the annotations only: the trec_eval drop-in imports
# this module and needs neither
if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path

UNJUDGED = -1
PAD = -2

CACHE_FORMAT = 1


@dataclass(frozen=True, eq=False)
class Collection:
    topics: tuple[str, ...]
    runs: tuple[str, ...]
    levels: np.ndarray
    lengths: np.ndarray
    level_counts: np.ndarray
    excluded_topics: tuple[str, ...] = ()
    info: dict = field(default_factory=dict)
    qrels_row: np.ndarray | None = None
    judged_topic: np.ndarray | None = None
    judged_docs: np.ndarray | None = None
    judged_level: np.ndarray | None = None

    def __post_init__(self):
        R, T = len(self.runs), len(self.topics)
        if self.qrels_row is not None:
            assert self.judged_topic is not None and self.judged_docs is not None and self.judged_level is not None
            if self.qrels_row.shape != self.levels.shape:
                raise ValueError(f"qrels_row must have the shape of levels {self.levels.shape}")
            n = len(self.judged_level)
            if len(self.judged_topic) != n or len(self.judged_docs) != n:
                raise ValueError("judged_topic, judged_docs and judged_level must have one entry per judgment")
            for a in (self.qrels_row, self.judged_topic, self.judged_docs, self.judged_level):
                a.setflags(write=False)
        if self.levels.ndim != 3 or self.levels.shape[:2] != (R, T):
            raise ValueError(f"levels must be (runs={R}, topics={T}, depth), got {self.levels.shape}")
        if self.lengths.shape != (R, T):
            raise ValueError(f"lengths must be ({R}, {T}), got {self.lengths.shape}")
        if self.level_counts.ndim != 2 or self.level_counts.shape[0] != T:
            raise ValueError(f"level_counts must be ({T}, H+1), got {self.level_counts.shape}")
        for a in (self.levels, self.lengths, self.level_counts):
            a.setflags(write=False)

    # ----------------------------------------------------------------- derived
    @property
    def max_level(self) -> int:
        """H, the highest relevance level of the scale (levels are L0..LH)."""
        return self.level_counts.shape[1] - 1

    @property
    def depth(self) -> int:
        return self.levels.shape[2]

    @property
    def has_documents(self) -> bool:
        """True when the collection keeps document identity (:attr:`qrels_row` and the judgments)."""
        return self.qrels_row is not None

    @property
    def n_relevant(self) -> np.ndarray:
        """R per topic: judged documents at level >= 1."""
        return self.level_counts[:, 1:].sum(axis=1)

    def condensed(self) -> Collection:
        """Condensed lists (NTCIREVAL ``label -j``): unjudged documents removed, order kept."""
        lv = self.levels
        keep = lv >= 0
        # stable compaction along the rank axis: position of each kept doc in the new list
        pos = np.cumsum(keep, axis=2) - 1
        out = np.full_like(lv, PAD)
        r, t, k = np.nonzero(keep)
        out[r, t, pos[r, t, k]] = lv[r, t, k]
        lengths = keep.sum(axis=2).astype(self.lengths.dtype)
        extra: dict[str, Any] = {}
        if self.qrels_row is not None and type(self) is Collection:
            row = np.full_like(self.qrels_row, PAD)
            row[r, t, pos[r, t, k]] = self.qrels_row[r, t, k]
            extra["qrels_row"] = row
        return replace(self, levels=out, lengths=lengths, info={**self.info, "condensed": True}, **extra)

    def with_rel(self, rel: int) -> Collection:
        """Binary relevance at threshold ``rel`` (trec_eval ``-l``): documents judged below level
        ``rel`` become judged nonrelevant (L0), in the lists and in ``level_counts``; levels >= rel
        are kept.  A plain :class:`Collection` (the per-intent arrays of a diversity collection are
        not carried over)."""
        rel = int(rel)
        if rel < 1:
            raise ValueError(f"rel must be >= 1, got {rel}")
        if rel == 1:
            return self
        lv = self.levels
        out = np.where((lv >= 0) & (lv < rel), 0, lv).astype(lv.dtype)
        counts = self.level_counts.copy()
        top = min(rel, counts.shape[1])
        counts[:, 0] = counts[:, :top].sum(axis=1)
        counts[:, 1:top] = 0
        return Collection(topics=self.topics, runs=self.runs, levels=out, lengths=self.lengths.copy(),
                          level_counts=counts, excluded_topics=self.excluded_topics,
                          info={**self.info, "rel": rel})

    def with_max_level(self, H: int) -> Collection:
        """The same collection on the level scale L0..LH (H >= :attr:`max_level`): the top levels
        added have no judged document (a gain vector of H values declares H, as NTCIREVAL's -g)."""
        if H == self.max_level:
            return self
        if H < self.max_level:
            raise ValueError(f"level scale L0..L{H} below the highest level L{self.max_level} in use")
        pad = np.zeros((self.level_counts.shape[0], H - self.max_level), self.level_counts.dtype)
        return replace(self, level_counts=np.concatenate([self.level_counts, pad], axis=1),
                       info={**self.info, "max_level": H})

    def select_runs(self, runs) -> Collection:
        idx = [self.runs.index(r) for r in runs]
        extra: dict[str, Any] = {} if self.qrels_row is None else {"qrels_row": self.qrels_row[idx]}
        return replace(self, runs=tuple(self.runs[i] for i in idx), levels=self.levels[idx],
                       lengths=self.lengths[idx], **extra)

    # ------------------------------------------------------------------ cache
    def save(self, path: str | Path) -> None:
        """Binary cache (``.npz``), written atomically; :meth:`load` restores it exactly."""
        import json

        from .util import atomic_write

        with atomic_write(path, "wb") as fh:
            np.savez_compressed(
                fh,
                format=np.array(CACHE_FORMAT),
                topics=np.array(self.topics, dtype=str),
                runs=np.array(self.runs, dtype=str),
                levels=self.levels,
                lengths=self.lengths,
                level_counts=self.level_counts,
                excluded_topics=np.array(self.excluded_topics, dtype=str),
                info=np.array(json.dumps(self.info, sort_keys=True)),
                **({} if self.qrels_row is None or self.judged_docs is None else {
                    "qrels_row": self.qrels_row, "judged_topic": self.judged_topic,
                    **_ids_to_npz(self.judged_docs), "judged_level": self.judged_level}),
            )

    @classmethod
    def load(cls, path: str | PathLike) -> Collection:
        import json

        with np.load(path, allow_pickle=False) as z:
            if int(z["format"]) != CACHE_FORMAT:
                raise ValueError(f"{path}: cache format {int(z['format'])}, expected {CACHE_FORMAT}")
            if "kind" in z.files and str(z["kind"]) == "diversity":     # per-intent form
                return DiversityCollection.from_npz(z)
            return cls(
                topics=tuple(str(t) for t in z["topics"]),
                runs=tuple(str(r) for r in z["runs"]),
                levels=z["levels"].copy(),
                lengths=z["lengths"].copy(),
                level_counts=z["level_counts"].copy(),
                excluded_topics=tuple(str(t) for t in z["excluded_topics"]),
                info=json.loads(str(z["info"])),
                **({k: z[k].copy() for k in ("qrels_row", "judged_topic", "judged_level")}
                   | {"judged_docs": _ids_from_npz(z)} if "qrels_row" in z.files else {}),
            )


def _ids_to_npz(ids: np.ndarray) -> dict:
    """Document ids for the npz cache: ``judged_docs`` (``S<W>``) when they are held fixed-width,
    else (long ids, held as ``bytes`` objects: :func:`metaeval.io._text.as_fixed`) their bytes
    concatenated (``judged_docs_bytes``) and lengths (``judged_docs_len``), in memory proportional
    to the ids (npz holds no object array without pickling)."""
    if ids.dtype.kind == "S":
        return {"judged_docs": ids}
    items = ids.tolist()
    return {"judged_docs_bytes": np.frombuffer(b"".join(items), np.uint8),
            "judged_docs_len": np.fromiter(map(len, items), np.int64, len(items))}


def _ids_from_npz(z) -> np.ndarray:
    if "judged_docs" in z.files:
        return z["judged_docs"].copy()
    buf, lens = z["judged_docs_bytes"].tobytes(), z["judged_docs_len"]
    ends = np.cumsum(lens).tolist()
    out = np.empty(len(ends), object)
    out[:] = [buf[e - n:e] for e, n in zip(ends, lens.tolist())]
    return out


CACHE_KIND = "diversity"



# The labelled diversity collection: per-intent relevance for every run, topic and rank.
#
# A :class:`DiversityCollection` is a :class:`~metaeval.collection.Collection` (so every plain
# measure runs on it: its ``levels`` are the highest per-intent level of each document) that also
# keeps, per topic, the list of its judged documents with their per-intent levels, and per rank the
# index of the document in that list.  D-measures, I-rec and the intent-aware (ndeval) measures of
# :mod:`metaeval.metrics.diversity` read only these arrays.
#
# Array conventions (R runs, T topics, D depth, J judged documents per topic at most, I intents per
# topic at most):
#
# ``doc_index[r, t, k]``     int32: index ``j`` of the document at rank ``k + 1`` in topic ``t``'s
#                            judged list, ``UNJUDGED`` (-1) if not judged, ``PAD`` (-2) past the end.
# ``judged_levels[t, j, i]`` int8: level of judged document ``j`` for intent ``i`` (0 = judged
#                            nonrelevant for that intent; ``PAD`` for padding rows/intents).
# ``judged_order[t, j]``     int32: rank of document ``j``'s id among the topic's judged ids in
#                            *descending* byte order (ndeval's tie key); a large value for padding.
# ``n_judged[t]``            number of judged documents of topic ``t``.
# ``n_intents[t]``           intents of topic ``t`` with at least one relevant document; they are
#                            intent slots ``0 .. n_intents[t]-1`` (intents without one come after).
# ``probs[t, i]``            P(i|q), 0 for padding slots.
# ``intent_ids[t]``          the intent ids of topic ``t``, slot order.
# ``intent_levels``          (property) int8 (R, T, D, I): per-intent level at every rank, -1/-2 as
#                            in ``levels``.
@dataclass(frozen=True, eq=False, kw_only=True)
class DiversityCollection(Collection):
    doc_index: np.ndarray
    judged_levels: np.ndarray
    judged_order: np.ndarray
    n_judged: np.ndarray
    n_intents: np.ndarray
    probs: np.ndarray
    intent_ids: tuple = ()
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        super().__post_init__()
        T = len(self.topics)
        if self.doc_index.shape != self.levels.shape:
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
    def condensed(self) -> DiversityCollection:
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

    def select_runs(self, runs) -> DiversityCollection:
        idx = [self.runs.index(r) for r in runs]
        return replace(self, runs=tuple(self.runs[i] for i in idx), levels=self.levels[idx],
                       lengths=self.lengths[idx], doc_index=self.doc_index[idx], _cache={})

    def save(self, path: str | Path) -> None:
        import json

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
    def from_npz(cls, z) -> DiversityCollection:
        import json

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
