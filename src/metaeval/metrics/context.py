"""EvalContext: the arrays every metric implementation reads, computed once and cached.

Built from a :class:`~metaeval.collection.Collection` and a gain vector.  Implementations must not
mutate any array they get from here (they are read-only).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..collection import Collection


class EvalContext:
    """Per-(collection, gains) cache of derived arrays.

    ``gains`` are listed for L1..LH (NTCIREVAL ``-g``); ``gain_of_level[j]`` is the gain of level j
    with ``gain_of_level[0] = 0`` (judged nonrelevant), and unjudged/padding get gain 0.
    """

    def __init__(self, collection: Collection, gains=None):
        self.collection = collection
        H = collection.max_level
        if gains is None:
            gains = tuple(float(j) for j in range(1, H + 1))   # default 1:2:...:H
        gains = tuple(float(g) for g in gains)
        if len(gains) < H:
            raise ValueError(f"{len(gains)} gain values given for {H} relevance levels (L1..L{H})")
        self.gains = gains
        self._derived: dict = {}
        self._parent: EvalContext | None = None     # same collection, other gains: shares slots

    def with_gains(self, gains) -> "EvalContext":
        """A context on the same collection with another gain vector (cached per vector)."""
        gains = tuple(float(g) for g in gains)
        if gains == self.gains:
            return self
        key = ("gains", gains)
        if key not in self._derived:
            child = EvalContext(self.collection, gains)
            child._parent = self
            self._derived[key] = child
        return self._derived[key]

    # ------------------------------------------------------------ basic arrays
    @property
    def levels(self) -> np.ndarray:
        return self.collection.levels

    @property
    def lengths(self) -> np.ndarray:
        return self.collection.lengths

    @property
    def depth(self) -> int:
        return self.collection.depth

    @cached_property
    def gain_of_level(self) -> np.ndarray:
        """(H+1,) gain per level, index 0 = L0 -> 0."""
        H = self.collection.max_level
        return np.concatenate([[0.0], np.asarray(self.gains[:H], dtype=float)])

    @cached_property
    def n_rel(self) -> np.ndarray:
        """(T,) R: number of judged relevant documents (level >= 1)."""
        return self.collection.n_relevant

    @cached_property
    def rel(self) -> np.ndarray:
        """(R, T, D) bool: the document at this rank is relevant (level >= 1)."""
        return self.levels >= 1

    @cached_property
    def gain(self) -> np.ndarray:
        """(R, T, D) float: gain of the document at each rank (0 if nonrelevant/unjudged/padding)."""
        table = np.concatenate([self.gain_of_level, [0.0, 0.0]])  # index -1, -2 -> 0
        return table[self.levels.astype(np.intp)]

    @cached_property
    def ideal_gain(self) -> np.ndarray:
        """(T, max R) float: gains of the ideal ranked list (all relevant docs, highest level first),
        zero-padded past R."""
        counts = self.collection.level_counts[:, 1:]                  # (T, H)
        R = counts.sum(axis=1)
        width = int(max(R.max(initial=0), 1))
        # levels H..1 repeated by their counts, per topic, vectorised via cumulative boundaries
        rev = counts[:, ::-1]                                           # level H first
        bounds = np.cumsum(rev, axis=1)                                 # (T, H)
        k = np.arange(width)
        which = (k[None, :, None] >= bounds[:, None, :]).sum(axis=2)    # (T, width) index into rev levels
        H = counts.shape[1]
        lvl = H - which                                                 # level value, 0 when k >= R
        return self.gain_of_level[np.clip(lvl, 0, H)] * (k[None, :] < R[:, None])

    # ------------------------------------------------- NTCIREVAL building blocks
    # (added for the metric implementations; all read-only, float64, cached)

    @cached_property
    def ranks(self) -> np.ndarray:
        """(D,) float ranks 1..D."""
        return np.arange(1, self.depth + 1, dtype=np.float64)

    @cached_property
    def width(self) -> int:
        """Length of the ideal-list arrays: max(depth, max R) so that any rank of the system list and
        the whole ideal list fit (NTCIREVAL's ``maxlen = max(syslen, jrelnum)``)."""
        return int(max(self.depth, int(self.n_rel.max(initial=0))))

    @cached_property
    def ideal_gain_full(self) -> np.ndarray:
        """(T, width) ideal gains zero-padded to :attr:`width`."""
        ig = self.ideal_gain
        out = np.zeros((ig.shape[0], self.width))
        w = min(ig.shape[1], self.width)
        out[:, :w] = ig[:, :w]
        out.setflags(write=False)
        return out

    @cached_property
    def ideal_cg(self) -> np.ndarray:
        """(T, width) ideal cumulative gain cg*(r) (constant past R)."""
        return _ro(np.cumsum(self.ideal_gain_full, axis=1))

    @cached_property
    def count(self) -> np.ndarray:
        """(R, T, D) float C(r): relevant documents in ranks 1..r."""
        return _ro(np.cumsum(self.rel, axis=2, dtype=np.float64))

    @cached_property
    def max_gain(self) -> float:
        """g_h: the gain of the highest level LH (NTCIREVAL ``gv[maxrl]``, the last ``-g`` value)."""
        return float(self.gain_of_level[-1])

    # ------------------------------------------------- relevant ranks: the lists as "slots"
    # Only ~6% of DL19's 37 x 43 x 1000 ranks hold a relevant document, and every NTCIREVAL sum over
    # a system list runs over relevant ranks only or adds terms that are 0 at the other ranks (gain
    # 0).  So the measures work on slots: slot k (k = 1..K) of list (run, topic) is its k-th relevant
    # document, K the most relevant documents in one list.  At slot k, C(r_k) = k; a running sum over
    # slots read at the last slot of rank <= l equals the running sum over all ranks read at rank l
    # bit for bit, since the skipped terms are 0.0 and adding 0.0 leaves a float sum unchanged.
    # Arrays are slot-major, (K, R, T), so that a running sum is one vector operation per slot across
    # all lists (:func:`slot_cumsum`).  Slots past a list's last relevant document are padding (rank
    # D+1, level 0, gain 0): sums are read at slot n <= rel_count, so padding is never read; it only
    # has to stay finite.

    @cached_property
    def _slots(self) -> dict:
        """Gain-independent slot arrays (shared with the :meth:`with_gains` contexts)."""
        if self._parent is not None:
            return self._parent._slots
        lv = self.levels
        R, T, D = lv.shape
        flat = np.flatnonzero(lv >= 1)                  # C order: by list (r, t), then by rank
        lst, pos = np.divmod(flat, max(D, 1))           # list r*T+t, 0-based rank
        count = np.bincount(lst, minlength=R * T)
        K = max(int(count.max(initial=0)), 1)
        slot = np.arange(flat.size) - (np.cumsum(count) - count)[lst]
        rank = np.full((K, R * T), D + 1, dtype=np.intp)
        rank[slot, lst] = pos + 1
        level = np.zeros((K, R * T), dtype=np.int8)
        level[slot, lst] = lv.reshape(-1)[flat]
        shape = (K, R, T)
        return {"count": _ro(count.reshape(R, T)),
                "rank": _ro(rank.reshape(shape).astype(np.float64)),
                "index": _ro(np.minimum(rank - 1, max(D - 1, 0)).reshape(shape)),
                "level": _ro(level.reshape(shape))}

    @property
    def rel_count(self) -> np.ndarray:
        """(R, T) int: relevant documents in each list (its number of used slots)."""
        return self._slots["count"]

    @property
    def rel_rank(self) -> np.ndarray:
        """(K, R, T) float r_k: rank of the k-th relevant document; D+1 on padding slots."""
        return self._slots["rank"]

    @property
    def rel_index(self) -> np.ndarray:
        """(K, R, T) int r_k - 1, clipped to D-1 on padding: an index into per-rank tables."""
        return self._slots["index"]

    @property
    def rel_level(self) -> np.ndarray:
        """(K, R, T) int8: level of the k-th relevant document; 0 on padding slots."""
        return self._slots["level"]

    @cached_property
    def rel_gain(self) -> np.ndarray:
        """(K, R, T) float: gain of the k-th relevant document; 0 on padding slots."""
        return _ro(self.gain_of_level[self.rel_level])

    @cached_property
    def rel_k(self) -> np.ndarray:
        """(K, 1, 1) float k = C(r_k): relevant documents in ranks 1..r_k."""
        K = self.rel_rank.shape[0]
        return _ro(np.arange(1, K + 1, dtype=np.float64).reshape(K, 1, 1))

    def rel_n_at(self, cutoff) -> np.ndarray:
        """(R, T) int: relevant documents in ranks 1..min(cutoff, D) (all of them if no cutoff),
        i.e. the slot at which a running sum is read for that cutoff."""
        if cutoff is None or int(cutoff) >= self.depth:
            return self.rel_count
        key = ("n_at", int(cutoff))
        if key not in self._derived:
            self._derived[key] = _ro(np.count_nonzero(self.rel_rank <= int(cutoff), axis=0))
        return self._derived[key]

    @cached_property
    def rel_cg(self) -> np.ndarray:
        """(K, R, T) cg(r_k): cumulative gain of the system list at its relevant ranks."""
        return _ro(slot_cumsum(self.rel_gain))

    @cached_property
    def rel_ideal_cg(self) -> np.ndarray:
        """(K, R, T) cg*(r_k): the ideal cumulative gain at the ranks of the relevant documents."""
        icg = self.ideal_cg                                             # (T, width), width >= D
        if icg.size == 0:
            return _ro(np.zeros(self.rel_rank.shape))
        T, W = icg.shape
        return _ro(icg.reshape(-1)[np.arange(T) * W + self.rel_index])

    def rel_br(self, beta: float) -> np.ndarray:
        """(K, R, T) BR(r_k) = (beta*cg(r) + C(r)) / (beta*cg*(r) + r) at the relevant ranks,
        NTCIREVAL's operation order."""
        key = ("BR", float(beta))
        if key not in self._derived:
            num = beta * self.rel_cg + self.rel_k
            den = beta * self.rel_ideal_cg + self.rel_rank
            self._derived[key] = _ro(num / den)
        return self._derived[key]

    @cached_property
    def first_rel_rank(self) -> np.ndarray:
        """(R, T) int r1: rank of the first relevant document, 0 if none is retrieved."""
        return _ro(np.where(self.rel_count > 0, self.rel_rank[0], 0).astype(np.int64))

    @cached_property
    def preferred_slot(self) -> np.ndarray:
        """(R, T) int C(rp): the slot (1-based) of the preferred rank rp, 0 if the list holds no
        relevant document."""
        lv = self.rel_level
        top = lv.max(axis=0)
        first = (lv == top).argmax(axis=0) + 1
        return _ro(np.where(top >= 1, first, 0))

    @cached_property
    def preferred_rank(self) -> np.ndarray:
        """(R, T) int rp: rank of the first document of the highest level in the list, 0 if none."""
        n = self.preferred_slot
        r = np.take_along_axis(self.rel_rank, np.maximum(n - 1, 0)[None], axis=0)[0]
        return _ro(np.where(n > 0, r, 0).astype(np.int64))


def slot_cumsum(x: np.ndarray) -> np.ndarray:
    """Running sum along axis 0: ``np.cumsum(x, axis=0)`` with the same additions in the same order.

    With many lists (columns) and up to ~1000 slots, one vectorised add per slot across all lists
    is ~4x faster than ``np.cumsum``, which accumulates one element at a time; with few lists the
    per-slot Python overhead would dominate, so ``np.cumsum`` is used.  Both give identical floats.
    """
    return _running(x, np.add)


def slot_cumprod(x: np.ndarray) -> np.ndarray:
    """Running product along axis 0 (see :func:`slot_cumsum`)."""
    return _running(x, np.multiply)


def _running(x: np.ndarray, op) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] == 0 or x[0].size < 256:
        return op.accumulate(x, axis=0)
    out = np.empty_like(x)
    out[0] = x[0]
    for k in range(1, x.shape[0]):
        op(out[k - 1], x[k], out=out[k])
    return out


def _ro(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a
