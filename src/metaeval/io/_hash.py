"""Vectorised open-addressing hash tables on uint64 keys (linear probing, processed in rounds).

Used by the labelling step instead of sorting: ``searchsorted``/``argsort`` cost O(n log n) per
run, these O(n) numpy passes (a handful of rounds, each a gather and a compare).  Keys are already
well-mixed hashes (see :func:`metaeval.io._text.hash_rows`), so their low bits pick the slot.
"""

from __future__ import annotations

import numpy as np

_EMPTY = np.iinfo(np.int32).max


def _size(n: int, load: int = 4) -> int:
    return 1 << max(6, int(n * load - 1).bit_length())       # load factor <= 1/load


def first_occurrence(keys: np.ndarray) -> np.ndarray:
    """``first[i]`` = the smallest index ``j`` with ``keys[j] == keys[i]`` (so ``first[i] < i``
    marks a repetition).  Equal keys travel the same probe sequence together, so in each round the
    lowest index among the keys contending for a free slot claims it (``np.minimum.at``)."""
    n = len(keys)
    first = np.arange(n)
    if n < 2:
        return first
    size = _size(n, 2)
    mask = np.uint64(size - 1)
    owner = np.full(size, _EMPTY, np.int32)                   # index of the key stored in a slot
    slot = (keys & mask).view(np.int64)
    pending = np.arange(n, dtype=np.int32)
    while len(pending):
        s = slot[pending]
        free = owner[s] == _EMPTY
        if free.any():
            np.minimum.at(owner, s[free], pending[free])
        occ = owner[s]
        same = keys[occ] == keys[pending]
        first[pending[same]] = occ[same]
        pending = pending[~same]
        slot[pending] = (slot[pending] + 1) & (size - 1)
    return first


class HashIndex:
    """Map unique uint64 keys to their positions: ``get(needles) -> positions (-1 if absent)``."""

    def __init__(self, keys: np.ndarray):
        keys = np.asarray(keys, np.uint64)
        first = first_occurrence(keys)
        if (first != np.arange(len(keys))).any():
            raise ValueError("HashIndex keys must be unique")
        self.size = _size(len(keys))
        self.mask = np.uint64(self.size - 1)
        self.keys = np.zeros(self.size, np.uint64)
        self.pos = np.full(self.size, -1, np.int64)
        slot = (keys & self.mask).view(np.int64)
        pending = np.arange(len(keys), dtype=np.int32)
        claim = np.full(self.size, _EMPTY, np.int32)
        while len(pending):
            s = slot[pending]
            free = self.pos[s] == -1
            if free.any():
                np.minimum.at(claim, s[free], pending[free])
            won = claim[s] == pending
            self.pos[s[won]] = pending[won]
            self.keys[s[won]] = keys[pending[won]]
            pending = pending[~won]
            slot[pending] = (slot[pending] + 1) & (self.size - 1)

    def get(self, needles: np.ndarray) -> np.ndarray:
        needles = np.asarray(needles, np.uint64)
        out = np.full(len(needles), -1, np.int64)
        active = np.arange(len(needles))
        slot = (needles & self.mask).view(np.int64)
        while len(active):
            p = self.pos[slot]
            hit = (p >= 0) & (self.keys[slot] == needles[active])
            out[active[hit]] = p[hit]
            cont = (p >= 0) & ~hit                               # occupied by another key: probe on
            active = active[cont]
            slot = (slot[cont] + 1) & (self.size - 1)
        return out
