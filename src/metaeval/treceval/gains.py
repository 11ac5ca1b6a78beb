"""Per-topic gain tables of the trec_eval engine (``gain_init.c``): each topic's gain list as
``setup_gains`` builds and glibc's ``qsort`` sorts it, the gain of every level, the ideal gain
lists (ndcg's second loop), their discounted running sums and the derived per-topic arrays of
``G``, ``Rndcg``, ``rbp`` and ``ndcg_cut`` -- computed once per call (:class:`GainTables`, mixed
into the engine's context), shared by every run."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from .. import detmath
from ..cnum import c_atol

__all__ = ["GainTables"]


def _msort(items: list, cmp) -> list:
    """glibc's qsort for arrays that fit its buffer: a top-down merge sort (msort.c), stable."""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    a, b = _msort(items[:n1], cmp), _msort(items[n1:], cmp)
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if cmp(a[i], b[j]) <= 0:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out + a[i:] + b[j:]


def _valid_int(s: str) -> bool:
    t = s[1:] if s[:1] in "+-" else s
    return bool(t) and all("0" <= c <= "9" for c in t)



class GainTables:
    """The per-topic gain tables of a context with ``rel_levels`` (T, H+1), ``D`` and ``cached``."""

    # provided by the context this is mixed into (the engine's ``_Ctx``, a ``Memo``)
    rel_levels: np.ndarray
    D: int

    def cached(self, key: Hashable, fn: Callable[[], Any]) -> Any:
        raise NotImplementedError  # Memo.cached, first in the context's bases

    def _gain_lists(self, pairs):
        """Per distinct ``num_rel_levels`` value: setup_gains' list ``[(level, gain, counted)]``
        sorted as glibc's qsort (a stable merge sort) sorts it with comp_rel_gain's
        ``(int)(gain1 - gain2)``."""
        return self.cached(("lists", pairs), lambda: self._lists(pairs))

    def _lists(self, pairs):
        T, H1 = self.rel_levels.shape
        nrl = np.where(self.rel_levels > 0, np.arange(H1) + 1, 0).max(1) if H1 else np.zeros(T, int)
        plist = [(c_atol(n.encode()), float(v)) for n, v in pairs if _valid_int(n)]
        lists = {}
        for n in sorted(set(nrl.tolist())):
            ent = [[lv, g, False] for lv, g in plist]
            for i in range(n):
                j = next((j for j, e in enumerate(ent) if e[0] == i), None)
                if j is None:
                    ent.append([i, float(i), True])
                else:
                    ent[j][2] = True
            lists[n] = _msort(ent, lambda a, b: int(a[1] - b[1]))
        return nrl, lists

    def gains(self, pairs):
        """``(table (T, span), lo, gain_list_min, gain_list_max)``: get_gain of level ``lo + j``
        for each topic, and per topic the min / max over its gain list."""
        return self.cached(("gains", pairs), lambda: self._gains(pairs))

    def _gains(self, pairs):
        nrl, lists = self._gain_lists(pairs)
        T, H1 = self.rel_levels.shape
        levels = [e[0] for L in lists.values() for e in L]
        lo = min([-2] + levels)
        hi = max([H1 - 1] + levels)
        span = hi - lo + 1
        tab = np.zeros((T, span))
        gmin = np.zeros(T)
        gmax = np.zeros(T)
        for n, L in lists.items():
            row = np.zeros(span)
            done = set()
            for lv, g, _ in L:                     # get_gain: first entry of the sorted list
                if lv not in done:
                    done.add(lv)
                    row[lv - lo] = g
            m = nrl == n
            tab[m] = row
            gs = [e[1] for e in L]
            gmin[m] = min(gs) if gs else np.inf
            gmax[m] = max(gs) if gs else -np.inf
        return tab, lo, gmin, gmax, None

    def ideal(self, pairs):
        """``(ig (T, L), L (T,))``: the ideal gains in order (ndcg's second loop), per topic."""
        return self.cached(("ideal", pairs), lambda: self._ideal(pairs))

    def _ideal(self, pairs):
        nrl, lists = self._gain_lists(pairs)
        T, H1 = self.rel_levels.shape
        rows = {}
        for n, L in lists.items():
            m = np.flatnonzero(nrl == n)
            desc = L[::-1]
            cnt = np.zeros((len(m), len(desc)), np.int64)
            for j, (lv, g, counted) in enumerate(desc):
                if counted and 0 <= lv < H1:
                    cnt[:, j] = self.rel_levels[m, lv]
            gs = np.array([e[1] for e in desc], np.float64)
            if not len(desc) or gs[0] <= 0:
                cnt[:] = 0
            else:
                stop = (cnt > 0) & (gs[None, :] <= 0)
                after = np.cumsum(stop, axis=1) > 0
                cnt = np.where(after, 0, cnt)
            rows[n] = (m, gs, cnt)
        Ls = np.zeros(T, np.int64)
        for m, gs, cnt in rows.values():
            Ls[m] = cnt.sum(1)
        Lm = max(1, int(Ls.max(initial=0)))
        ig = np.zeros((T, Lm))
        pos = np.arange(Lm)
        for m, gs, cnt in rows.values():
            if not len(gs):
                continue
            ends = np.cumsum(cnt, 1)
            which = np.minimum((pos[None, :, None] >= ends[:, None, :]).sum(-1), len(gs) - 1)
            ig[m] = np.where(pos[None, :] < Ls[m][:, None], gs[which], 0.0)
        return ig, Ls

    def idcg(self, pairs):
        """The ideal dcg's running sum (T, Lm)."""
        def f():
            ig, _L = self.ideal(pairs)
            disc = detmath.log2_offsets(ig.shape[1])
            return np.cumsum(np.where(ig > 0, ig / disc, 0.0), axis=-1)
        return self.cached(("idcg", pairs), f)

    def rbp_table(self, pairs):
        """m_rbp.c's gains: normalised to [0, 1] when a gain lies outside."""
        def f():
            tab, lo, gmin, gmax, _ = self.gains(pairs)
            # m_rbp.c: min/max start uninitialised; trec_eval 10.0 as built behaves as if both are 0
            mn = np.minimum(gmin, 0.0)
            mx = np.maximum(gmax, 0.0)
            # (trec_eval's values agree on its test suite and the DL19 runs)
            norm = (mn < 0) | (mx > 1)
            with np.errstate(invalid="ignore", divide="ignore"):
                tabn = np.where(norm[:, None], (tab - mn[:, None]) / (mx - mn)[:, None], tab)
            return tabn, lo
        return self.cached(("rbp_tab", pairs), f)

    def g_cost(self, pairs):
        """m_G.c's running cost (T, D): the ideal gain at each rank (0 past the ideal list), 1
        where it is below 1; per topic, shared by every run."""
        def f():
            ig, L = self.ideal(pairs)
            w = min(ig.shape[1], self.D)
            cost = np.ones((len(L), self.D))
            head = ig[:, :w]
            cost[:, :w] = np.where((np.arange(w)[None, :] < L[:, None]) & (head >= 1.0), head, 1.0)
            return np.cumsum(cost, axis=-1)
        return self.cached(("G_cost", pairs), f)

    def rndcg_bounds(self, pairs):
        """m_Rndcg.c's terms per topic: the ranks ``b`` where the ideal gain changes (within the
        ideal list, b <= L) with ideal dcg ``ib`` > 0 before b, in order, padded: (b, ib, mask)."""
        def f():
            ig, L = self.ideal(pairs)
            icum = self.idcg(pairs)
            T, Lm = ig.shape
            b = np.arange(Lm + 1)
            ige = np.concatenate([ig, np.zeros((T, 1))], 1)
            ige = np.where(b[None, :] < L[:, None], ige, -1.0)      # the gain after the list: <= 0
            bnd = np.zeros(ige.shape, bool)
            bnd[:, 1:] = (ige[:, 1:] != ige[:, :-1]) & (b[None, 1:] <= L[:, None])
            ib = np.concatenate([np.zeros((T, 1)), icum], 1)[:, :Lm + 1]   # idcg before b
            sel = bnd & (ib > 0)
            nb = sel.sum(1)
            W = max(1, int(nb.max(initial=0)))
            tt, bb = np.nonzero(sel)
            slot = np.arange(len(tt)) - (np.cumsum(nb) - nb)[tt]
            bq = np.zeros((T, W), np.int64)
            ibq = np.ones((T, W))
            mask = np.zeros((T, W), bool)
            bq[tt, slot] = bb
            ibq[tt, slot] = ib[tt, bb]
            mask[tt, slot] = True
            return bq, ibq, mask
        return self.cached(("Rndcg", pairs), f)

    def default_ideal_cum(self):
        """m_ndcg_cut.c's ideal dcg (levels as gains, highest first), running sum (T, Lm), L (T,)."""
        def f():
            H1 = self.rel_levels.shape[1]
            cnt = self.rel_levels[:, 1:][:, ::-1]                 # levels H..1
            lv = np.arange(H1 - 1, 0, -1).astype(np.float64)
            L = cnt.sum(1)
            Lm = max(1, int(L.max(initial=0)))
            ends = np.cumsum(cnt, 1)
            pos = np.arange(Lm)
            which = np.minimum((pos[None, :, None] >= ends[:, None, :]).sum(-1), max(H1 - 2, 0))
            ig = np.where(pos[None, :] < L[:, None], lv[which] if H1 > 1 else 0.0, 0.0)
            return np.cumsum(np.where(ig > 0, ig / detmath.log2_offsets(Lm), 0.0), axis=-1), L
        return self.cached("ndcg_cut_ideal", f)
