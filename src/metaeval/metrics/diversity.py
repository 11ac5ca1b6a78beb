"""Diversity measures on a :class:`~metaeval.collection.DiversityCollection`, all runs and
topics at once (Sakai (2011) Sec. 4; TREC's ndeval).

* ``D-X`` for every ranked measure X that NTCIREVAL's ``gcompute`` prints: X computed by the
  ranked-measure engine (:mod:`metaeval.metrics.ranked`) on global gains
  GG(d) = sum_i P(i|q) g_i(d), rounded to 4 decimals as ``glabel`` prints them, against the ideal
  list of the judged documents sorted by GG.  The engine is reused unchanged: the global gains
  become per-topic "levels" (the rank of the document's GG among the topic's distinct GG values)
  with a per-topic gain table (:class:`GainTableContext`); g_h of ERR/RBP/EBR/iRBU is the
  topic's highest GG (the first line of ``gcompute``'s ideal list).
* ``I-rec@l``: intents with a relevant document in the top l / intents of the topic (intents with
  at least one relevant document); ``I-rec`` without a cutoff is NTCIREVAL's ``I-rec@n``, the
  cutoff being the topic's number of intents n.
* ``D#-X@l`` = gamma I-rec@l + (1 - gamma) D-X@l (Sakai (2011) Eq. 9), gamma = 0.5 by default,
  for every cutoff measure X.
* ndeval's intent-aware family (``alpha-nDCG@k``, ``ERR-IA@k``, ``NRBP``, ``MAP-IA``, ...) through
  :func:`metaeval.metrics.ndeval.ndeval_measures`, whose inputs are built here.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..collection import PAD, Collection
from ..errors import InputError
from . import ranked
from ..memo import Memo
from .context import EvalContext, _ro
from .registry import MeasureDef, Param, register

GG_DECIMALS = 4


# ------------------------------------------------------------------------- global gains

def _divcoll(ctx: EvalContext):
    """The diversity collection of ``ctx``, or None for a plain collection (which is read as one
    intent of probability 1: every D-measure then equals the plain measure, I-rec@l = Hit@l)."""
    from ..collection import DiversityCollection

    c = ctx.collection
    return c if isinstance(c, DiversityCollection) else None


def round_gains(x: np.ndarray, decimals: int | None = GG_DECIMALS) -> np.ndarray:
    """``float('%.4f' % x)`` elementwise (through the distinct values; exact decimal rounding)."""
    if decimals is None:
        return x
    u, inv = np.unique(x, return_inverse=True)
    r = np.array([float("%.*f" % (decimals, v)) for v in u.tolist()], dtype=np.float64)   # noqa: UP031 - printf's rounding
    return r[inv].reshape(x.shape)


def judged_global_gains(c, gains, decimals: int | None = GG_DECIMALS) -> np.ndarray:
    """(T, J) GG of every judged document (0 for padding rows), per-intent gains ``gains`` for
    L1..LH: sum_i P(i|q) g_i(d) accumulated in intent order, then rounded."""
    H = c.max_level
    g = np.concatenate([[0.0], np.asarray(gains[:H], float), [0.0, 0.0]])   # -2, -1 -> 0
    jl = c.judged_levels
    acc = np.zeros(jl.shape[:2])
    for i in range(jl.shape[2]):
        acc = acc + c.probs[:, i, None] * g[jl[:, :, i]]
    return round_gains(acc, decimals)


class GainTableContext(EvalContext):
    """An :class:`EvalContext` whose gains are given per topic: ``levels`` of its collection index a
    per-topic table ``gain_table[t, level]`` (level 0 = gain 0), increasing in the level."""

    def __init__(self, collection: Collection, gain_table: np.ndarray, ideal: np.ndarray):
        self.collection = collection
        self.gain_table = _ro(np.asarray(gain_table, np.float64))
        self._ideal = _ro(ideal)
        self.gains = ()
        Memo.__init__(self)
        self._parent = None

    def with_gains(self, gains):
        raise ValueError("a global-gain context has its gains fixed")

    @cached_property
    def gain_of_level(self):
        raise ValueError("global gains differ by topic: no single gain per level")

    @cached_property
    def gain(self) -> np.ndarray:
        lv = self.levels
        T = lv.shape[1]
        g = self.gain_table[np.arange(T)[None, :, None], np.maximum(lv, 0)]
        return _ro(np.where(lv >= 1, g, 0.0))

    @cached_property
    def ideal_gain(self) -> np.ndarray:
        return self._ideal

    @cached_property
    def rel_gain(self) -> np.ndarray:
        return _ro(self.gain_table[self.rel_topic, self.rel_level])

    @cached_property
    def max_gain(self):
        raise ValueError("global gains: g_h differs by topic (use hgain)")

    @cached_property
    def _hgain(self) -> np.ndarray:
        ig = self._ideal
        return _ro(ig[:, 0].copy() if ig.shape[1] else np.zeros(ig.shape[0]))

    def hgain(self, topic=None):
        return self._hgain if topic is None else self._hgain[topic]


def global_gain_context(ctx: EvalContext, decimals: int | None = GG_DECIMALS) -> GainTableContext:
    """The D-measure context of a diversity collection with ``ctx``'s per-intent gains (cached)."""
    return ctx.cached(("D-context", decimals), lambda: _global_gain_context(ctx, decimals))


def _global_gain_context(ctx: EvalContext, decimals) -> GainTableContext:
    c = _divcoll(ctx)
    if c is None:
        return _plain_gain_context(ctx, decimals)
    gg = judged_global_gains(c, ctx.gains, decimals)                  # (T, J)
    T, J = gg.shape
    valid = np.arange(J)[None, :] < c.n_judged[:, None]
    # per topic: distinct positive GG ascending -> codes 1..K_t
    t, j = np.nonzero(valid & (gg > 0))
    v = gg[t, j]
    o = np.lexsort((v, t))
    t, j, v = t[o], j[o], v[o]
    new = np.r_[True, (t[1:] != t[:-1]) | (v[1:] != v[:-1])] if len(v) else np.zeros(0, bool)
    gid = np.cumsum(new) - 1
    first_gid = np.zeros(T, np.int64)
    tf = np.r_[True, t[1:] != t[:-1]] if len(t) else np.zeros(0, bool)
    first_gid[t[tf]] = gid[tf]
    code = gid - first_gid[t] + 1
    K = int(code.max(initial=0))
    if K > np.iinfo(np.int16).max:
        raise InputError("too many distinct global gain values in one topic (more than 32767)")
    codes = np.where(valid, 0, PAD).astype(np.int16)
    codes[t, j] = code
    table = np.zeros((T, K + 1))
    table[t, code] = v
    counts = np.zeros((T, K + 1), np.int64)
    np.add.at(counts, (t, code), 1)
    counts[:, 0] = (valid & (gg == 0)).sum(axis=1)
    # ideal list: judged GG > 0, descending
    R = counts[:, 1:].sum(axis=1)
    W = int(max(R.max(initial=0), 1))
    ideal = np.zeros((T, W))
    oi = np.lexsort((-v, t))
    ti, vi = t[oi], v[oi]
    start = np.cumsum(R) - R
    ideal[ti, np.arange(len(ti)) - start[ti]] = vi
    di = c.doc_index
    lv = np.where(di >= 0, codes[np.arange(T)[None, :, None], np.maximum(di, 0)], di).astype(np.int16)
    gc = Collection(topics=c.topics, runs=c.runs, levels=lv, lengths=c.lengths, level_counts=counts,
                    excluded_topics=c.excluded_topics, info={**c.info, "global_gains": True})
    return GainTableContext(gc, table, ideal)


def _plain_gain_context(ctx: EvalContext, decimals) -> GainTableContext:
    """One intent of probability 1: GG(d) = g(level of d), rounded; codes rank the distinct
    positive gains (the same for every topic)."""
    c = ctx.collection
    g = round_gains(ctx.gain_of_level.copy(), decimals)              # (H+1,), g[0] = 0
    vals = np.unique(g[g > 0])
    code_of_level = np.where(g > 0, np.searchsorted(vals, g) + 1, 0)
    T = len(c.topics)
    counts = np.zeros((T, len(vals) + 1), np.int64)
    for lvl in range(len(g)):                                       # a few levels
        counts[:, code_of_level[lvl]] += c.level_counts[:, lvl]
    table = np.broadcast_to(np.concatenate([[0.0], vals]), (T, len(vals) + 1))
    lv = c.levels.astype(np.int16)
    lv = np.where(lv >= 0, code_of_level[np.maximum(lv, 0)], lv).astype(np.int16)
    R = counts[:, 1:].sum(axis=1)
    W = int(max(R.max(initial=0), 1))
    rev = counts[:, :0:-1]                                          # highest code first
    bounds = np.cumsum(rev, axis=1)
    k = np.arange(W)
    which = (k[None, :, None] >= bounds[:, None, :]).sum(axis=2)
    K = len(vals)
    ideal = np.where(k[None, :] < R[:, None], table[0][np.clip(K - which, 0, K)], 0.0)
    gc = Collection(topics=c.topics, runs=c.runs, levels=lv, lengths=c.lengths, level_counts=counts,
                    excluded_topics=c.excluded_topics, info={**c.info, "global_gains": True})
    return GainTableContext(gc, table, ideal)


# ------------------------------------------------------------------------------ D-measures

# every ranked measure gcompute prints (top-level and cutoff lines)
D_BASES = ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "Q", "NCUrb,P", "NCUrb,BR",
           "NCUrb,IE", "RBP", "nRBP", "ERR", "nERR", "EBR", "nEBR", "iRBU", "niRBU", "nDCG", "MSnDCG",
           "Prec", "Hit"]
# cutoff measures: the D# family
DSHARP_BASES = ["AP", "Q", "NCUrb,P", "NCUrb,BR", "NCUrb,IE", "nDCG", "MSnDCG", "Prec", "RBP", "nRBP",
                "ERR", "nERR", "EBR", "nEBR", "iRBU", "niRBU", "Hit"]


def _d_measure(func):
    def d_func(ctx, cutoff=None, **params):
        return func(global_gain_context(ctx), cutoff, **params)
    return d_func


# --------------------------------------------------------------------------------- I-rec

def _first_cover(ctx: EvalContext) -> np.ndarray:
    """(R, T, I) 1-based rank at which each intent is first covered (REL > 0), a huge value if
    never."""
    return ctx.cached(("I-rec first",), lambda: _first_cover_of(ctx))


def _first_cover_of(ctx: EvalContext) -> np.ndarray:
    c = _divcoll(ctx)
    if c is None:                                   # one intent: the first relevant rank
        rel = ctx.collection.levels >= 1
        first = np.where(rel.any(axis=2), rel.argmax(axis=2) + 1, np.iinfo(np.int64).max)
        first = first[..., None].astype(np.int64)
        first.setflags(write=False)
        return first
    _T, _J, I = c.judged_levels.shape
    # per judged doc, which intents it covers; first rank per (r, t, intent)
    cover = c.judged_levels > 0                                   # (T, J, I)
    di = c.doc_index
    first = np.full(c.lengths.shape + (I,), np.iinfo(np.int64).max, np.int64)
    r, t, k = np.nonzero(di >= 0)
    cov = cover[t, di[r, t, k]]                                   # (N, I)
    for i in range(I):
        m = cov[:, i]
        np.minimum.at(first[:, :, i], (r[m], t[m]), k[m] + 1)
    first.setflags(write=False)
    return first


def irec(ctx: EvalContext, cutoff=None) -> np.ndarray:
    c = _divcoll(ctx)
    first = _first_cover(ctx)
    n = (c.n_intents if c is not None else (ctx.n_rel > 0)).astype(np.int64)
    lim = n[None, :, None] if cutoff is None else int(cutoff)
    covered = (first <= lim).sum(axis=2)
    return np.where(n[None, :] > 0, covered / np.maximum(n, 1)[None, :], 0.0)


def _dsharp(func):
    def f(ctx, cutoff=None, gamma=0.5, **params):
        i = irec(ctx, cutoff)
        d = func(global_gain_context(ctx), cutoff, **params)
        return gamma * i + (1 - gamma) * d
    return f


# ------------------------------------------------------------------- ndeval (TREC) family

NDEVAL_CUT = ["alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "P-IA", "strec"]
NDEVAL_TOP = ["NRBP", "nNRBP", "MAP-IA"]


def ndeval_inputs(c) -> dict:
    """The arrays :func:`metaeval.metrics.ndeval.ndeval_measures` reads, from a diversity
    collection: binary per-intent relevance of every run's ranks and of every judged document.
    A plain collection is one intent: its judged documents are the level counts."""
    from ..collection import DiversityCollection

    if not isinstance(c, DiversityCollection):
        counts = c.level_counts
        rel_n, all_n = counts[:, 1:].sum(axis=1), counts.sum(axis=1)
        J = int(max(all_n.max(initial=0), 1))
        j = np.arange(J)[None, :]
        return {"run_rel": (c.levels >= 1)[..., None], "lengths": c.lengths,
                    "ideal_rel": (j < rel_n[:, None])[..., None],
                    "ideal_order": np.where(j < all_n[:, None], j, np.iinfo(np.int32).max),
                    "n_intents": (rel_n > 0).astype(np.int64)}
    return {"run_rel": c.intent_levels > 0, "lengths": c.lengths,
                "ideal_rel": c.judged_levels > 0, "ideal_order": c.judged_order,
                "n_intents": c.n_intents}


def _ndeval_values(ctx: EvalContext, depth: int, cutoffs: tuple, alpha: float) -> dict:
    """ndeval's measures for all runs and topics.  Topics are grouped by their number of intents
    (a handful of groups, not a loop over topics) so that the (R, T, D, I) arrays are only as wide
    as each group's intents: intent slots with a relevant document come first."""
    return ctx.cached(("ndeval", depth, cutoffs, alpha), lambda: _ndeval_values_of(ctx, depth, cutoffs, alpha))


def _ndeval_values_of(ctx: EvalContext, depth: int, cutoffs: tuple, alpha: float) -> dict:
    from .ndeval import ndeval_measures

    c = _divcoll(ctx)
    if c is None:
        return ndeval_measures(**ndeval_inputs(ctx.collection), depth=depth, alpha=alpha, cutoffs=cutoffs)
    R, T = c.lengths.shape
    out: dict[str, np.ndarray] = {}
    rel_j = c.judged_levels > 0                                     # (T, J, I)
    # intent columns with a relevant document first (the reader stores them so already)
    perm = np.argsort(~rel_j.any(axis=1), axis=1, kind="stable")   # (T, I)
    di = c.doc_index
    for n in np.unique(c.n_intents).tolist():
        ts = np.flatnonzero(c.n_intents == n)
        w = max(int(n), 1)
        d = di[:, ts]                                               # (R, t, D)
        L = int(c.lengths[:, ts].max(initial=0))
        d = d[:, :, :max(L, 1)]
        ideal = np.take_along_axis(rel_j[ts], perm[ts][:, None, :w], axis=2)
        run_rel = ideal[np.arange(len(ts))[None, :, None], np.maximum(d, 0)] & (d >= 0)[..., None]
        vals = ndeval_measures(run_rel, c.lengths[:, ts], ideal, c.judged_order[ts],
                               c.n_intents[ts], depth=depth, alpha=alpha, cutoffs=cutoffs)
        for name, v in vals.items():
            if name not in out:
                out[name] = np.zeros((R, T))
            out[name][:, ts] = v
    return out


def _ndeval(base):
    """ndeval's depth is 20 (its @5/@10/@20 columns and its ideal list); a cutoff k > 20 computes
    that measure with depth k."""
    def f(ctx, cutoff=None, alpha=0.5):
        if cutoff is None or cutoff <= 20:
            vals = _ndeval_values(ctx, 20, (5, 10, 20), float(alpha))
            if cutoff is not None and f"{base}@{cutoff}" not in vals:
                vals = _ndeval_values(ctx, 20, (int(cutoff),), float(alpha))
        else:
            vals = _ndeval_values(ctx, int(cutoff), (int(cutoff),), float(alpha))
        return vals[base if cutoff is None else f"{base}@{cutoff}"]
    return f


# ------------------------------------------------------------------------------ registration

def _unit(text: str) -> float:
    v = float(text)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{text!r}: expected a value in [0, 1]")
    return v


# normalised by ndeval's greedy (not optimal) ideal list: a run can score above 1
_NDEVAL_UNBOUNDED = ("alpha-nDCG", "nERR-IA", "nNRBP")
_GAMMA = {"gamma": Param(0.5, _unit, "weight of I-rec in D# = gamma I-rec + (1-gamma) D (Sakai (2011) Eq. 9)")}
_ALPHA = {"alpha": Param(0.5, _unit, "ndeval's alpha (redundancy penalty)")}


def _register_all() -> None:
    from .registry import REGISTRY

    for base in D_BASES:
        d = REGISTRY[base]
        own = {k: p for k, p in d.params.items() if k != "rel"}        # global gains: no threshold
        register(MeasureDef("D-" + base, _d_measure(d.func), d.cutoff, own, d.bounded,
                            False, f"D-{base}: {base} on global gains (Sakai (2011) Sec. 4)"))
    for base in DSHARP_BASES:
        d = REGISTRY[base]
        params = {k: p for k, p in d.params.items() if k not in ("gamma", "rel")}   # NCU's gamma: default
        register(MeasureDef("D#-" + base, _dsharp(d.func), "required", {**params, **_GAMMA},
                            d.bounded, False, f"gamma I-rec@l + (1-gamma) D-{base}@l (Sakai (2011) Eq. 9)"))
    register(MeasureDef("I-rec", irec, "optional", {}, True, False,
                        "intent recall; no cutoff = I-rec@n (n = the topic's number of intents)"))
    for base in NDEVAL_CUT:
        register(MeasureDef(base, _ndeval(base), "required", dict(_ALPHA),
                            base not in _NDEVAL_UNBOUNDED, False, f"ndeval's {base}@k"))
    for base in NDEVAL_TOP:
        register(MeasureDef(base, _ndeval(base), "forbidden", dict(_ALPHA),
                            base not in _NDEVAL_UNBOUNDED, False, f"ndeval's {base} (whole list)"))


_register_all()

__all__ = ["GainTableContext", "global_gain_context", "judged_global_gains", "round_gains", "irec",
           "ndeval_inputs", "D_BASES", "DSHARP_BASES"]
_ = ranked  # the plain measures must be registered before their D-versions


def gain_list_context(sys_gains, ideal_gains, topic: str = "", run: str = "run") -> GainTableContext:
    """A one-run, one-topic global-gain context from NTCIREVAL's files: ``sys_gains`` the gains of
    the ranked list (``glabel`` output; NaN = unlabelled, i.e. unjudged) and ``ideal_gains`` the
    Grelv gains in file order (``gcompute`` takes the ideal list as given: gains > 0, in order;
    the gain-0 lines count as judged nonrelevant)."""
    sg = np.asarray(sys_gains, np.float64)
    ig = np.asarray(ideal_gains, np.float64)
    vals = np.unique(np.concatenate([sg[sg > 0], ig[ig > 0]]))
    code = lambda x: np.searchsorted(vals, x) + 1
    n = len(sg)
    lv = np.full((1, 1, max(n, 1)), PAD, np.int16)
    lv[0, 0, :n] = np.where(np.isnan(sg), -1, np.where(sg > 0, code(np.where(sg > 0, sg, 1.0)), 0))
    counts = np.zeros((1, len(vals) + 1), np.int64)
    np.add.at(counts[0], code(ig[ig > 0]), 1)
    counts[0, 0] = int((ig == 0).sum())
    table = np.concatenate([[0.0], vals])[None, :]
    ideal = ig[ig > 0][None, :] if (ig > 0).any() else np.zeros((1, 1))
    coll = Collection(topics=(topic,), runs=(run,), levels=lv, lengths=np.array([[n]], np.int64),
                      level_counts=counts)
    return GainTableContext(coll, table, ideal)
