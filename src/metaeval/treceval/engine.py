"""The trec_eval engine: trec_eval's rankings as arrays, every requested measure on them at once.

The input (:class:`metaeval.treceval.ranking.TrecRanking`): ``rel`` (..., T, D) with levels >= 0, -1
(not in the qrels), -2 (negative judgment), ``PAD_REL`` past ``num_ret``.  The engine works on a
compressed view (:meth:`_Ctx.buckets`): one row per run and topic holding only its *entries*, the
ranks below ``num_ret`` with a document other than a NONPOOL one (level -1), in rank order, with
their rank and level.  A NONPOOL rank contributes an exact 0.0 term to every sequential sum (and
nothing to any count but the unjudged ones, which are the ranks that are not entries), so a
running sum over the entries equals trec_eval's over all ranks at the entries' ranks, bit for bit;
a measure's value at a rank cutoff is the running value at the last entry above it.  Rows are
grouped in buckets of similar entry counts, padded to the widest row of each, and every measure
(its function in the table, :mod:`.measures`) is computed bucket by bucket.  Two exceptions:
``rbp_resid``'s sum over the unjudged ranks is one dense pass over the input (as deep as a term can
still change the sum), and when a NONPOOL rank can count (``-l`` <= -1, or a gain map that gives
level -1 a gain, rbp's normalised gains included: the table's ``gained`` measures) the view keeps
every rank below ``num_ret`` -- the same code, as slow as the dense computation.
"""

from __future__ import annotations

import math
import weakref

import numpy as np

from .. import detmath
from ..memo import Memo
from .gains import GainTables
from .table import Spec

__all__ = ["PAD_REL", "compute", "compute_ctx", "persistence", "take_last"]

PAD_REL = -(2 ** 30)
#: the Python work of one bucket's pass over the measures, in entries of its (rows, width) arrays
#: (it decides how finely :meth:`_Ctx.buckets` splits the rows; any split gives the same values)
_BUCKET_COST = 20000
_CHUNK = 1 << 18           # rbp_resid's dense pass: blocks of about this many ranks


class _Ctx(Memo, GainTables):
    """One call's rankings: the dense input, the per-topic intermediates (gains, ideal lists) and
    the compressed views (:meth:`buckets`), all computed once, on demand."""

    def __init__(self, rel, num_ret, rel_levels, rl, N, version):
        self.rel = rel                                   # (..., T, D) int32
        self.num_ret = num_ret                           # (..., T)
        self.rel_levels = rel_levels                     # (T, H+1)
        self.rl = int(rl)
        self.N = int(N)
        self.v9 = version == 9
        self.D = rel.shape[-1]
        self.T = rel_levels.shape[0]
        self.shape = rel.shape[:-1]
        self.M = int(np.prod(self.shape))
        self.nret = np.broadcast_to(num_ret, self.shape).reshape(self.M)
        lo = max(self.rl, 0)
        self.num_rel = rel_levels[:, lo:].sum(1) if lo < rel_levels.shape[1] else np.zeros(rel_levels.shape[0], np.int64)
        Memo.__init__(self)

    # --- the compressed view
    def needs_all(self, specs) -> bool:
        """Whether a rank outside the qrels (level -1) can change a value: ``-l`` <= -1, or a gain
        map giving level -1 a gain (rbp's normalised gains included).  Then the view keeps every
        rank (the exotic case, exact but as slow as a dense pass)."""
        if self.rl <= -1:
            return True
        for sp in specs:
            if sp.info.gained:
                pairs = () if sp.name == "ndcg_cut" else sp.pairs
                tab, lo = self.rbp_table(pairs) if sp.name == "rbp" else self.gains(pairs)[:2]
                if (tab[:, -1 - lo] != 0).any():
                    return True
        return False

    def buckets(self, every: bool) -> list[_Rows]:
        """The rankings as rows (one per run and topic) of their *entries*: the ranks below
        ``num_ret`` that hold a document other than a NONPOOL one (level -1), or every rank below
        ``num_ret`` when ``every``, in rank order with their rank ``pos`` and level ``lev``.  A
        NONPOOL rank adds exact 0.0 terms to every sequential sum (and 0 to every count but the
        unjudged ones, counted as the ranks that are not entries), so each measure's running sums
        over the entries equal trec_eval's over all ranks at those ranks.  The rows are grouped
        in buckets of similar entry counts, each padded to its widest row (pads: ``pos`` = D,
        ``ent`` False)."""
        return self.cached(("buckets", every), lambda: self._buckets(every))

    def _buckets(self, every):
        D, M = self.D, self.M
        rel2 = self.rel.reshape(M, D)
        if every:
            flat = np.flatnonzero(np.arange(D) < self.nret[:, None])
        else:
            flat = np.flatnonzero(rel2 != -1)
        rows, pos = np.divmod(flat, D) if D else (flat, flat)
        keep = pos < self.nret[rows]
        if not keep.all():
            rows, pos = rows[keep], pos[keep]
        cnt = np.bincount(rows, minlength=M)
        start = np.cumsum(cnt) - cnt
        E = len(pos)
        pos = np.append(pos, D)                          # [E]: the pad entry
        lev = np.append(rel2.reshape(-1)[flat if len(flat) == E else rows * D + pos[:E]], np.int32(PAD_REL)).astype(rel2.dtype)
        out = []
        for idx in _partition(cnt):
            c = cnt[idx]
            W = max(1, int(c.max(initial=0)))
            j = np.arange(W)
            ent = j < c[:, None]
            src = np.where(ent, start[idx][:, None] + j, E)
            out.append(_Rows(self, idx, pos[src], lev[src], ent))
        return out

    def rbp_resid(self, p):
        """m_rbp_resid.c's sum of p^i over the unjudged ranks (levels < 0): the one dense pass,
        over the flattened rows in blocks, (M,)."""
        def f():
            D, M = self.D, self.M
            pw = detmath.powers(p, D)
            rel2 = self.rel.reshape(M, D)
            out = np.zeros(M)
            step = max(1, _CHUNK // max(D, 1))
            for a in range(0, M, step):
                nret = self.nret[a:a + step]
                un = rel2[a:a + step] < 0
                first = np.argmax(un, axis=-1)
                has = un.any(-1) & (first < nret)
                if not has.any():
                    continue
                K = D
                if 0.0 < p < 1.0:
                    # the sum is at least p^first from its first term on, and a term below half an
                    # ulp of the sum leaves it unchanged (round to nearest): past the rank where
                    # p^i (decreasing) drops below half an ulp of the least p^first, nothing counts
                    thr = float((np.spacing(pw[first[has]]) / 2).min())
                    K = max(1, min(D, int(np.searchsorted(-pw, -thr, side="right"))))
                # the running sum through rank num_ret - 1 (the ranks after it do not count)
                s = take_last(np.cumsum(np.where(un[:, :K], pw[:K], 0.0), axis=-1), np.minimum(nret, K) - 1, 0.0)
                cur = pw[np.minimum(nret, D)]
                out[a:a + step] = np.where(has, cur + (1 - p) * s, 0.0)
            return out
        return self.cached(("rbp_resid", p), f)



def persistence(pairs) -> float:
    """rbp's and rbp_resid's ``p`` (the last ``p=`` given; 0.9 without one)."""
    p = 0.9
    for k, v in pairs:
        if k == "p":
            p = float(v)
    return p



def _partition(cnt: np.ndarray) -> list[np.ndarray]:
    """The rows (indices) of each bucket: rows of similar entry counts together, the split that
    minimises the padded size plus ``_BUCKET_COST`` per bucket (rows in index order in each)."""
    M = len(cnt)
    if M == 0:
        return [np.zeros(0, np.int64)]
    order = np.argsort(cnt, kind="stable")
    sc = cnt[order]
    top = max(1, int(sc[-1]))
    grid = sorted({1, top} | {math.ceil(1.25 ** i) for i in range(1, 200) if 1.25 ** i < top})
    g = np.searchsorted(grid, np.maximum(sc, 1))          # smallest grid width >= count
    n = np.bincount(g, minlength=len(grid))
    groups = np.flatnonzero(n)
    w = np.array(grid)[groups]
    cn = np.concatenate([[0], np.cumsum(n[groups])])
    G = len(groups)
    best = [0.0] + [math.inf] * G
    back = [0] * (G + 1)
    for j in range(1, G + 1):                             # groups i..j-1 in one bucket of width w[j-1]
        for i in range(j):
            c = best[i] + float(w[j - 1]) * float(cn[j] - cn[i]) + _BUCKET_COST
            if c < best[j]:
                best[j], back[j] = c, i
    cuts, j = [], G
    while j > 0:
        cuts.append((back[j], j))
        j = back[j]
    return [np.sort(order[cn[i]:cn[j]]) for i, j in reversed(cuts)]

class _Rows(Memo):
    """One bucket of the compressed view: ``m`` rows of ``W`` entries (see :meth:`_Ctx.buckets`),
    with the per-row intermediates the measures share (computed once, on demand)."""

    def __init__(self, top: _Ctx, idx, pos, lev, ent):
        self.top = weakref.proxy(top)                   # no cycle: freed with the context
        self.idx = idx                                   # (m,) rows of the flattened (..., T)
        self.t = idx % top.T if top.T else idx           # topic of each row
        self.pos = pos                                   # (m, W) rank (pads: D)
        self.lev = lev                                   # (m, W) level (pads: PAD_REL)
        self.ent = ent                                   # (m, W) a real entry
        self.nret = top.nret[idx]
        self.R = top.num_rel[self.t]
        self.rl = top.rl
        self.D = top.D
        self.isrel = ent & (lev >= self.rl)
        self.cum = np.cumsum(self.isrel, axis=-1, dtype=np.int64)
        self.nrr = (self.isrel & (lev >= 0)).sum(-1)
        m, W = pos.shape
        self.W = W
        self.rows = np.arange(m)
        self.key = (self.rows[:, None] * (self.D + 1) + pos).ravel()   # ascending: row, then rank
        Memo.__init__(self)

    def before(self, n: np.ndarray) -> np.ndarray:
        """The number of entries at ranks < n (n: (m,) or (m, q))."""
        n = np.clip(n, 0, self.D)
        r = self.rows.reshape((-1,) + (1,) * (n.ndim - 1))
        return np.searchsorted(self.key, r * (self.D + 1) + n) - r * self.W

    def last(self, n) -> np.ndarray:
        """The index of the last entry at a rank < n (-1: none); an int ``n`` is a cutoff k, meaning
        min(k, num_ret) (cached: the measures at cutoff k share it)."""
        if np.ndim(n) == 0:
            k = int(n)
            return self.cached(("last", k), lambda: self.before(np.minimum(k, self.nret)) - 1)
        return self.before(n) - 1

    def at(self, a: np.ndarray, n, fill=0.0) -> np.ndarray:
        """The running value ``a`` (m, W) through rank n - 1 (its value at the last entry at a rank
        < n; ``fill`` when there is none): trec_eval's running sum over the first n ranks (an int
        n: the first min(n, num_ret) ranks)."""
        i = self.last(n)
        ii = np.maximum(i, 0)
        v = a[self.rows, ii] if ii.ndim == 1 else np.take_along_axis(a, ii, axis=-1)
        return np.where(i >= 0, v, fill)

    def count_at(self, k: int) -> np.ndarray:
        """Relevant (>= rl) documents in the first min(k, num_ret) ranks."""
        return self.cached(("count", k), lambda: self.at(self.cum, k, 0).astype(np.int64))

    @property
    def prec(self):
        return self.cached("prec", lambda: self.cum / (self.pos + 1.0))

    @property
    def ap_terms(self):
        return self.cached("ap", lambda: np.cumsum(np.where(self.isrel, self.prec, 0.0), axis=-1))

    def ap_sum_at(self, k):
        return self.at(self.ap_terms, k, 0.0)

    def result_gains(self, tab, lo):
        idx = np.clip(self.lev - lo, 0, tab.shape[1] - 1)
        g = tab[self.t[:, None], idx]
        return np.where(self.ent & (self.lev >= lo), g, 0.0)

    def dcg_terms(self, pairs):
        def f():
            tab, lo, *_ = self.top.gains(pairs)
            g = self.result_gains(tab, lo)
            disc = detmath.log2_offsets(self.D + 1)
            return g, np.cumsum(np.where(g != 0, g / disc[self.pos], 0.0), axis=-1)
        return self.cached(("dcg", pairs), f)



def take_last(a: np.ndarray, idx: np.ndarray, fill=0.0) -> np.ndarray:
    """``a[..., idx]`` per leading position; ``fill`` where idx < 0."""
    ii = np.maximum(idx, 0)
    if a.ndim == 2 and ii.ndim == 1:
        v = a[np.arange(a.shape[0]), ii]
    else:
        v = np.take_along_axis(a, np.broadcast_to(ii, a.shape[:-1])[..., None], axis=-1)[..., 0]
    return np.where(idx >= 0, v, fill)



def compute(rel: np.ndarray, num_ret: np.ndarray, rel_levels: np.ndarray, specs: list[Spec],
            rl: int = 1, N: int = 0, version: int = 10) -> list[tuple[str, Spec, np.ndarray]]:
    """Every value of ``specs`` for every ranking: ``[(printed name, spec, values (..., T))]`` in
    the order given.  ``rl`` is trec_eval's ``-l``, ``N`` its ``-N``; ``version=9`` switches to
    trec_eval 9.0.x's truncating recall cutoffs for iprec_at_recall and 11pt_avg."""
    return _compute(_Ctx(rel, num_ret, rel_levels, rl, N, version), specs)


def _compute(ctx: _Ctx, specs):
    names = [sp.names() for sp in specs]
    outs = [[np.zeros(ctx.M) for _ in nm] for nm in names]
    with np.errstate(invalid="ignore", divide="ignore"):
        for b in ctx.buckets(ctx.needs_all(specs)):
            for sp, nm, out in zip(specs, names, outs):
                vals = sp.info.func(b, sp)
                assert len(vals) == len(nm)
                for o, v in zip(out, vals):
                    o[b.idx] = v
    return [(n, sp, o.reshape(ctx.shape)) for sp, nm, out in zip(specs, names, outs) for n, o in zip(nm, out)]



def compute_ctx(ctx: _Ctx, specs):
    """:func:`compute` on an existing context (shared intermediates)."""
    return _compute(ctx, specs)

