"""EvalContext: the arrays every metric implementation reads, computed once and cached.

Built from a :class:`~metaeval.collection.Collection` and a gain vector.  Implementations must not
mutate any array they get from here (they are read-only).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..collection import Collection
from ..memo import Memo


class EvalContext(Memo):
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
        # the gains rule (docs/io.md): the number of gains given is H; labels above H are an error
        if len(gains) < H:
            raise ValueError(f"{len(gains)} gain values given but the qrels use level L{H}: give one "
                             f"gain for each of L1..L{H}")
        from .registry import check_gain_order

        check_gain_order(gains)
        if len(gains) > H:
            collection = collection.with_max_level(len(gains))
            self.collection = collection
        self.gains = gains
        Memo.__init__(self)                        # what measures derive: self.cached(key, fn)
        self._parent: EvalContext | None = None     # same collection, other gains: shares slots

    @property
    def _derived(self) -> dict:
        """The old private name of :attr:`memo`, for code written before :meth:`cached` (use that)."""
        return self.memo

    def with_gains(self, gains) -> EvalContext:
        """A context on the same collection with another gain vector (cached per vector)."""
        gains = tuple(float(g) for g in gains)
        if gains == self.gains:
            return self
        def child():
            c = EvalContext(self.collection, gains)
            c._parent = self
            return c
        return self.cached(("gains", gains), child)

    def view(self, rel: int = 1, judged_only: bool = False) -> EvalContext:
        """The context a measure with ``rel=`` / ``judged_only=True`` is computed on (cached): the
        collection with levels below ``rel`` made L0 (:meth:`Collection.with_rel`, trec_eval -l)
        and, with ``judged_only``, the condensed lists (unjudged documents removed:
        :meth:`Collection.condensed`, NTCIREVAL -j, trec_eval -J); same gains."""
        rel, judged_only = int(rel), bool(judged_only)
        if rel == 1 and not judged_only:
            return self
        def view():
            c = self.collection.with_rel(rel)
            return EvalContext(c.condensed() if judged_only else c, self.gains)
        return self.cached(("view", rel, judged_only), view)

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

    def hgain(self, topic=None):
        """g_h, the gain ERR/RBP/EBR/iRBU normalise by: the scalar :attr:`max_gain` here; per topic
        (indexed by ``topic``, or (T,) if None) in contexts whose gains differ by topic (D-measures)."""
        return self.max_gain

    # ------------------------------------------------- relevant ranks: the lists as "entries"
    # Only ~6% of DL19's 37 x 43 x 1000 ranks hold a relevant document, and every NTCIREVAL sum over
    # a system list runs over its relevant ranks only or adds terms that are 0 at the other ranks
    # (gain 0).  So the measures work on entries: one per relevant document of a list, the k-th
    # relevant document of a list being its slot k (k = 1..count), where C(r_k) = k.  A running sum
    # over a list's entries read at the last slot of rank <= l equals the running sum over all ranks
    # read at rank l bit for bit: the skipped terms are 0.0 and adding 0.0 leaves a float sum as it is.
    #
    # Entries are stored flat (N,) in slot-major order, with the lists ordered by decreasing count:
    # then the lists that have a slot k form a prefix of that order, slot k occupies
    # entries off[k] .. off[k] + m[k] - 1 (m[k] = lists with more than k relevant documents), and the
    # entry before entry e in its own list is e - m[k-1].  A running sum is then one vector add per
    # slot over a shrinking prefix (:meth:`rel_cumsum`): the additions of a per-list sequential loop,
    # in the same order, on arrays with no padding.

    @cached_property
    def _entries(self) -> dict:
        """Gain-independent entry arrays (shared with the :meth:`with_gains` contexts)."""
        if self._parent is not None:
            return self._parent._entries
        lv = self.levels
        R, T, D = lv.shape
        flat = np.flatnonzero(lv >= 1)                  # C order: by list (r, t), then by rank
        lst, pos = np.divmod(flat, max(D, 1))           # list id r*T+t, 0-based rank
        count = np.bincount(lst, minlength=R * T)
        slot = np.arange(flat.size) - (np.cumsum(count) - count)[lst]  # 0-based slot in its list
        order = np.argsort(-count, kind="stable")       # lists by decreasing count
        where = np.empty(R * T, dtype=np.intp)
        where[order] = np.arange(R * T)                 # position of each list in that order
        K = int(count.max(initial=0))
        m = (R * T) - np.cumsum(np.bincount(count, minlength=K + 1))[:K]   # m[k]: lists with count > k
        off = np.concatenate([[0], np.cumsum(m)])       # slot k: entries off[k] .. off[k+1]-1
        e = off[slot] + where[lst]                      # entry index of each relevant document
        out = {"count": count.reshape(R, T), "m": m, "off": off, "where": where.reshape(R, T)}
        for name, val in (("list", lst), ("slot", slot), ("rank", (pos + 1).astype(np.float64)),
                          ("index", pos), ("level", lv.reshape(-1)[flat])):
            arr = np.empty(flat.size, dtype=val.dtype)
            arr[e] = val
            out[name] = arr
        out["topic"] = out["list"] % max(T, 1)
        out = {k: _ro(v) for k, v in out.items()}
        # slot k >= 1 of the running sums: entries a..b-1 continue entries p..p+b-a-1 (Python ints:
        # numpy scalars would make each slice a few times slower)
        out["steps"] = [(int(off[k]), int(off[k + 1]), int(off[k] - m[k - 1])) for k in range(1, K)]
        return out

    @property
    def rel_count(self) -> np.ndarray:
        """(R, T) int: relevant documents in each list (its number of slots)."""
        return self._entries["count"]

    @property
    def rel_rank(self) -> np.ndarray:
        """(N,) float r: rank of each entry (relevant document) in its list."""
        return self._entries["rank"]

    @property
    def rel_index(self) -> np.ndarray:
        """(N,) int r - 1: an index into per-rank tables."""
        return self._entries["index"]

    @property
    def rel_level(self) -> np.ndarray:
        """(N,) int8: relevance level of each entry."""
        return self._entries["level"]

    @property
    def rel_topic(self) -> np.ndarray:
        """(N,) int: topic index of each entry."""
        return self._entries["topic"]

    @property
    def rel_slot(self) -> np.ndarray:
        """(N,) int k - 1: 0-based slot of each entry in its list."""
        return self._entries["slot"]

    @cached_property
    def rel_k(self) -> np.ndarray:
        """(N,) float k = C(r_k): relevant documents in ranks 1..r of the entry's list."""
        return _ro(self.rel_slot + 1.0)

    @cached_property
    def rel_gain(self) -> np.ndarray:
        """(N,) float: gain of each entry."""
        return _ro(self.gain_of_level[self.rel_level])

    def rel_n_at(self, cutoff) -> np.ndarray:
        """(R, T) int: relevant documents in ranks 1..min(cutoff, D) (all of them if no cutoff),
        i.e. the slot at which a running sum is read for that cutoff."""
        if cutoff is None or int(cutoff) >= self.depth:
            return self.rel_count
        def n_at():
            e = self._entries
            n = np.bincount(e["list"][e["rank"] <= int(cutoff)], minlength=e["count"].size)
            return _ro(n.reshape(e["count"].shape))
        return self.cached(("n_at", int(cutoff)), n_at)

    def rel_read(self, values: np.ndarray, n: np.ndarray) -> np.ndarray:
        """(R, T): ``values`` (N,) at slot n (1-based) of each list, 0 where n == 0."""
        e = self._entries
        if values.size == 0:
            return np.zeros(n.shape)
        idx = e["off"][np.maximum(n - 1, 0)] + e["where"]
        return np.where(n > 0, values[np.minimum(idx, values.size - 1)], 0.0)

    def rel_cumsum(self, x: np.ndarray) -> np.ndarray:
        """Running sum of ``x`` (N,) along each list's entries, slot by slot."""
        return self._running(x, np.add)

    def rel_cumprod(self, x: np.ndarray) -> np.ndarray:
        """Running product of ``x`` (N,) along each list's entries."""
        return self._running(x, np.multiply)

    def rel_prev(self, x: np.ndarray, first: float) -> np.ndarray:
        """(N,) ``x`` at the previous slot of the same list; ``first`` at slot 1."""
        e = self._entries
        m, off = e["m"], e["off"]
        out = np.full(x.shape, first, dtype=np.float64)
        if m.size > 1:
            # entry e at slot k >= 1 follows entry e - m[k-1] (see the layout above)
            later = np.arange(off[1], x.size)
            out[off[1]:] = x[later - m[e["slot"][off[1]:] - 1]]
        return out

    def _running(self, x: np.ndarray, op) -> np.ndarray:
        e = self._entries
        x = np.asarray(x, dtype=np.float64)
        out = np.empty_like(x)
        first = e["off"][1] if e["m"].size else 0
        out[:first] = x[:first]
        for a, b, p in e["steps"]:      # one vector op per slot; the loop is over slots, not documents
            op(out[p:p + b - a], x[a:b], out=out[a:b])
        return out

    @cached_property
    def rel_cg(self) -> np.ndarray:
        """(N,) cg(r): cumulative gain of the system list at each entry."""
        return _ro(self.rel_cumsum(self.rel_gain))

    @cached_property
    def rel_ideal_cg(self) -> np.ndarray:
        """(N,) cg*(r): the ideal cumulative gain at each entry's rank."""
        icg = self.ideal_cg                                             # (T, width), width >= D
        if icg.size == 0:
            return _ro(np.zeros(self.rel_rank.shape))
        return _ro(icg.reshape(-1)[self.rel_topic * icg.shape[1] + self.rel_index])

    def rel_br(self, beta: float) -> np.ndarray:
        """(N,) BR(r) = (beta*cg(r) + C(r)) / (beta*cg*(r) + r) at each entry, NTCIREVAL's
        operation order."""
        def br():
            num = beta * self.rel_cg + self.rel_k
            den = beta * self.rel_ideal_cg + self.rel_rank
            return _ro(num / den)
        return self.cached(("BR", float(beta)), br)

    @cached_property
    def first_rel_rank(self) -> np.ndarray:
        """(R, T) int r1: rank of the first relevant document, 0 if none is retrieved."""
        return _ro(self.rel_read(self.rel_rank, np.minimum(self.rel_count, 1)).astype(np.int64))

    @cached_property
    def preferred_slot(self) -> np.ndarray:
        """(R, T) int C(rp): the slot (1-based) of the preferred rank rp, 0 if the list holds no
        relevant document."""
        e = self._entries
        lst, lv = e["list"], e["level"]
        top = np.zeros(e["count"].size, dtype=lv.dtype)
        np.maximum.at(top, lst, lv)
        first = np.full(top.shape, lv.size)                            # > every slot
        at_top = lv == top[lst]
        np.minimum.at(first, lst[at_top], e["slot"][at_top])
        return _ro(np.where(top >= 1, first + 1, 0).reshape(e["count"].shape))

    @cached_property
    def preferred_rank(self) -> np.ndarray:
        """(R, T) int rp: rank of the first document of the highest level in the list, 0 if none."""
        return _ro(self.rel_read(self.rel_rank, self.preferred_slot).astype(np.int64))


def _ro(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a
