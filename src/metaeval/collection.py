"""The labelled collection: every run's ranked lists as arrays of relevance levels.

This is the output of the *labelling* step (NTCIREVAL's ``label``; paper 002 Sec. 2.3) for all runs
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
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

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

    def __post_init__(self):
        R, T = len(self.runs), len(self.topics)
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
    def n_relevant(self) -> np.ndarray:
        """R per topic: judged documents at level >= 1."""
        return self.level_counts[:, 1:].sum(axis=1)

    def condensed(self) -> "Collection":
        """Condensed lists (NTCIREVAL ``label -j``): unjudged documents removed, order kept."""
        lv = self.levels
        keep = lv >= 0
        # stable compaction along the rank axis: position of each kept doc in the new list
        pos = np.cumsum(keep, axis=2) - 1
        out = np.full_like(lv, PAD)
        r, t, k = np.nonzero(keep)
        out[r, t, pos[r, t, k]] = lv[r, t, k]
        lengths = keep.sum(axis=2).astype(self.lengths.dtype)
        return replace(self, levels=out, lengths=lengths, info={**self.info, "condensed": True})

    def with_max_level(self, H: int) -> "Collection":
        """The same collection on the level scale L0..LH (H >= :attr:`max_level`): the top levels
        added have no judged document (a gain vector of H values declares H, as NTCIREVAL's -g)."""
        if H == self.max_level:
            return self
        if H < self.max_level:
            raise ValueError(f"level scale L0..L{H} below the highest level L{self.max_level} in use")
        pad = np.zeros((self.level_counts.shape[0], H - self.max_level), self.level_counts.dtype)
        return replace(self, level_counts=np.concatenate([self.level_counts, pad], axis=1),
                       info={**self.info, "max_level": H})

    def select_runs(self, runs) -> "Collection":
        idx = [self.runs.index(r) for r in runs]
        return replace(self, runs=tuple(self.runs[i] for i in idx), levels=self.levels[idx],
                       lengths=self.lengths[idx])

    # ------------------------------------------------------------------ cache
    def save(self, path: str | Path) -> None:
        """Binary cache (``.npz``), written atomically; :meth:`load` restores it exactly."""
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
            )

    @classmethod
    def load(cls, path: str | Path) -> "Collection":
        with np.load(path, allow_pickle=False) as z:
            if int(z["format"]) != CACHE_FORMAT:
                raise ValueError(f"{path}: cache format {int(z['format'])}, expected {CACHE_FORMAT}")
            if "kind" in z.files and str(z["kind"]) == "diversity":     # per-intent form
                from .divcollection import DiversityCollection
                return DiversityCollection.from_npz(z)
            return cls(
                topics=tuple(str(t) for t in z["topics"]),
                runs=tuple(str(r) for r in z["runs"]),
                levels=z["levels"].copy(),
                lengths=z["lengths"].copy(),
                level_counts=z["level_counts"].copy(),
                excluded_topics=tuple(str(t) for t in z["excluded_topics"]),
                info=json.loads(str(z["info"])),
            )
