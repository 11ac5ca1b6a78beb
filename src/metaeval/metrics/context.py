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

    def with_gains(self, gains) -> "EvalContext":
        """A context on the same collection with another gain vector (cached per vector)."""
        gains = tuple(float(g) for g in gains)
        if gains == self.gains:
            return self
        key = ("gains", gains)
        if key not in self._derived:
            self._derived[key] = EvalContext(self.collection, gains)
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
    def cg(self) -> np.ndarray:
        """(R, T, D) float cg(r): cumulative gain of the system list."""
        return _ro(np.cumsum(self.gain, axis=2))

    @cached_property
    def max_gain(self) -> float:
        """g_h: the gain of the highest level LH (NTCIREVAL ``gv[maxrl]``, the last ``-g`` value)."""
        return float(self.gain_of_level[-1])

    def blended_ratio(self, beta: float) -> np.ndarray:
        """(R, T, D) BR(r) = (beta*cg(r) + C(r)) / (beta*cg*(r) + r), NTCIREVAL's operation order."""
        key = ("BR", float(beta))
        if key not in self._derived:
            D = self.depth
            num = beta * self.cg + self.count
            den = beta * self.ideal_cg[None, :, :D] + self.ranks
            self._derived[key] = _ro(num / den)
        return self._derived[key]

    @cached_property
    def first_rel_rank(self) -> np.ndarray:
        """(R, T) int r1: rank of the first relevant document, 0 if none is retrieved."""
        rel = self.rel
        has = rel.any(axis=2)
        return _ro(np.where(has, rel.argmax(axis=2) + 1, 0))

    @cached_property
    def preferred_rank(self) -> np.ndarray:
        """(R, T) int rp: rank of the first document of the highest level in the list, 0 if none."""
        lv = self.levels
        top = lv.max(axis=2, keepdims=True)
        first = (lv == top).argmax(axis=2) + 1
        return _ro(np.where(top[..., 0] >= 1, first, 0))


def _ro(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a
