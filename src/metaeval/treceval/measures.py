"""trec_eval's measures, one function each (its ``m_*.c`` file), registered with its table row
(:func:`metaeval.treceval.table.measure`), in trec_eval's printing order (``measures.c``).

Each function takes one bucket of rows of the engine's compressed view (:class:`.engine._Rows`:
``nret``, ``nrr`` (relevant retrieved), ``R`` (relevant), the entries' ranks ``pos`` and levels
``lev``, running counts and the per-topic gain tables of ``b.top``) and a :class:`Spec`, and
returns one (m,) array per printed value, following its ``m_*.c`` operation for operation (the
same double divisions, sums in the same order: ``np.cumsum`` along the rank axis, never a pairwise
sum).  Logarithms go through C's ``log2`` / ``log`` (:mod:`metaeval.detmath`), never numpy's
vectorised ones.  Adding a measure: one function here, with its row in the decorator.
"""

from __future__ import annotations

import numpy as np

from .. import detmath
from .engine import persistence, take_last
from .table import ELEVEN, INFAP_EPSILON, LONG9, MIN_GEO_MEAN, TrecEvalError, measure

_f = np.float64
#: registry parameters shared by the gained measures (the adapter adds ``rel`` to every measure)
_GAIN_MAP = (("gain_map", None, "str", "gains of levels, LEVEL=GAIN:LEVEL=GAIN (trec_eval ndcg.L=G,...)"),)
_VERSION = ("version", 10, "version", "9: trec_eval 9.0.x's truncated recall cutoffs")


# ------------------------------------------------------------------------------------ shared parts
def _iprec_values(b, cut_rel: list[np.ndarray]) -> list[np.ndarray]:
    """Interpolated precision at the given cutoffs (numbers of relevant documents), processed as
    m_iprec_at_recall.c / m_11pt_avg.c do, highest index first (cutoffs need not be sorted).  The
    interpolated precision at a relevant rank is the highest precision at a relevant rank at or
    below it (a rank between two relevant ones has a lower one: the same count, a larger
    divisor), so the maximum runs over the relevant entries only."""
    nret, nrr = b.nret, b.nrr
    with np.errstate(invalid="ignore", divide="ignore"):
        init = nrr / nret.astype(np.float64)
    p = np.where(b.isrel, b.prec, -np.inf)
    intp = np.maximum.accumulate(p[..., ::-1], axis=-1)[..., ::-1]
    pos1 = np.argmax(b.cum >= 1, axis=-1)
    final = np.where(nrr >= 1, intp[b.rows, pos1], init)
    n = len(cut_rel)
    out: list[np.ndarray] = [final] * n              # every entry set below
    skipping = np.ones(nret.shape, bool)
    stuck = np.zeros(nret.shape, bool)
    prev = nrr.copy()
    for k in range(n - 1, -1, -1):
        c = cut_rel[k]
        skip = skipping & (c > nrr)
        skipping &= skip
        match = ~skip & ~stuck & (c >= 1) & (c <= prev)
        stuck |= ~skip & ~match
        pos = np.argmax(b.cum >= np.maximum(c, 1)[..., None], axis=-1)
        v = intp[b.rows, pos]
        out[k] = np.where(skip, 0.0, np.where(match, v, final))
        prev = np.where(match, c, prev)
    return out


def _rel_cutoffs(b, percents, mode):
    nrel = b.top.num_rel.astype(np.float64)
    res = []
    for x in percents:
        if mode == "round":
            v = np.floor(np.abs(x * nrel) + 0.5) * np.sign(x * nrel)    # lround: half away from zero
        else:
            v = np.trunc(x * nrel + 0.9)
        res.append(v.astype(np.int64)[b.t])
    return res



def _m_gm(x):
    return detmath.log(np.maximum(x, MIN_GEO_MEAN))


def _judged(b):
    """The judged nonrelevant and the judged relevant entries (bpref, infAP)."""
    def f():
        judged = b.ent & (b.lev >= 0)
        return judged & (b.lev < b.rl), judged & (b.lev >= b.rl)
    return b.cached("judged", f)


def _bpref(b):
    rl, R = b.rl, b.R
    nonrel, relj = _judged(b)
    nsf = np.cumsum(nonrel, axis=-1)
    H1 = b.top.rel_levels.shape[1]
    nn = b.top.rel_levels[:, :max(0, min(rl, H1))].sum(1)[b.t]
    Rb = R[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(nsf > 0, 1.0 - (np.minimum(nsf, Rb) / np.minimum(nn, R)[..., None].astype(np.float64)), 1.0)
    s = np.cumsum(np.where(relj, term, 0.0), axis=-1)[..., -1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(R > 0, s / np.where(R > 0, R, 1), s)


def _infap(b):
    rel, R = b.lev, b.R
    nonrel, relj = _judged(b)
    unj = b.ent & (rel == -2)
    rsf = np.cumsum(relj, axis=-1)
    nsf = np.cumsum(nonrel, axis=-1)
    usf = np.cumsum(unj, axis=-1)
    fj = b.pos.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = 1.0 / (fj + 1.0)
        bb = fj / (fj + 1.0)
        c = (rsf - 1 + nsf + usf) / fj
        d = (rsf - 1 + INFAP_EPSILON) / (rsf - 1 + nsf + 2 * INFAP_EPSILON)
        term = np.where(b.pos == 0, 1.0, a + (bb * c) * d)
    s = np.cumsum(np.where(relj, term, 0.0), axis=-1)[..., -1]
    return np.where(R > 0, s / np.where(R > 0, R, 1), s)


def _ndcg_cut(b, cutoffs):
    # the gain of a document is its level (> 0): the default gains' running dcg (dcg_terms(()),
    # shared with G, ndcg, ndcg_rel, Rndcg: get_gain of level l is l, 0 for the negative levels)
    cs = b.dcg_terms(())[1]
    ics, L = b.top.default_ideal_cum()
    out = []
    for c in cutoffs:
        d = b.at(cs, int(c), 0.0)
        idc = take_last(ics, np.minimum(c, L) - 1, 0.0)[b.t]
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where(idc > 0.0, d / np.where(idc > 0, idc, 1.0), d))
    return out




def _ap(b):
    return b.cached("ap_value", lambda: np.where(b.cum[:, -1] > 0, b.ap_terms[:, -1] / b.R, 0.0))


def _iprec(b, sp):
    """Interpolated precision at sp's recall levels (iprec_at_recall and 11pt_avg share it)."""
    mode = "trunc" if b.top.v9 else "round"
    return b.cached(("iprec", tuple(sp.values)), lambda: _iprec_values(b, _rel_cutoffs(b, sp.values, mode)))


def _dcg_parts(b, pairs):
    """``(g, cdcg, ig, L, icum, dcg, idcg, Lb)``: the results' gains and running dcg (m, W), the
    ideal gains and lengths per topic, the ideal running dcg, and per row dcg, ideal dcg, L."""
    top = b.top
    g, cdcg = b.dcg_terms(pairs)
    ig, L = top.ideal(pairs)
    icum = top.idcg(pairs)
    dcg = cdcg[:, -1]                                    # every entry is at a rank < num_ret
    idcg = take_last(icum, L - 1, 0.0)[b.t]
    return g, cdcg, ig, L, icum, dcg, idcg, L[b.t]


# ------------------------------------------------------------------------------------ the measures
@measure("runid", printing="runid", aggregate="runid")
def runid(b, sp):
    return [np.zeros(b.nret.shape)]


@measure("num_q", printing="none", aggregate="num_q", bounded=False)
def num_q(b, sp):
    return [np.ones(b.nret.shape)]


@measure("num_ret", printing="long", aggregate="sum", empty_zeroed="name", bounded=False)
def num_ret(b, sp):
    return [b.nret.astype(_f)]


@measure("num_rel", printing="long", aggregate="num_rel", bounded=False)
def num_rel(b, sp):
    return [b.R.astype(_f)]


@measure("num_rel_ret", printing="long", aggregate="sum", bounded=False)
def num_rel_ret(b, sp):
    return [b.nrr.astype(_f)]


@measure("map")
def map_(b, sp):
    return [_ap(b)]


@measure("gm_map", printing="none", aggregate="gm")
def gm_map(b, sp):
    return [_m_gm(_ap(b))]


@measure("Rprec")
def rprec(b, sp):
    m = np.minimum(b.nret, b.R)
    return [np.where(m > 0, b.at(b.cum, m, 0) / b.R, 0.0)]


@measure("bpref")
def bpref(b, sp):
    return [b.cached("bpref", lambda: _bpref(b))]


@measure("recip_rank")
def recip_rank(b, sp):
    first = np.argmax(b.isrel, axis=-1)
    return [np.where(b.isrel.any(-1), 1.0 / (b.pos[b.rows, first] + 1.0), 0.0)]


@measure("iprec_at_recall", kind="cut_double", default=ELEVEN, params=(
    ("recall", 0.0, "float", "recall level (trec_eval iprec_at_recall.X)"), _VERSION))
def iprec_at_recall(b, sp):
    return _iprec(b, sp)


@measure("P", kind="cut_long", default=LONG9)
def precision(b, sp):
    return [b.count_at(c) / float(c) for c in sp.values]


@measure("relstring", kind="p_double", printing="relstring", aggregate="none", default=(10.0,))
def relstring(b, sp):
    return [np.zeros(b.nret.shape)]                 # printed from the rankings (render.py)


@measure("recall", kind="cut_long", default=LONG9)
def recall(b, sp):
    return [np.where(b.R > 0, b.count_at(c) / b.R, 0.0) for c in sp.values]


@measure("infAP")
def infap(b, sp):
    return [_infap(b)]


@measure("gm_bpref", printing="none", aggregate="gm")
def gm_bpref(b, sp):
    return [_m_gm(b.cached("bpref", lambda: _bpref(b)))]


@measure("Rprec_mult", kind="cut_double", default=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
         params=(("mult", 1.0, "float", "multiple of R (trec_eval Rprec_mult.X)"),))
def rprec_mult(b, sp):
    vals = []
    for c in _rel_cutoffs(b, sp.values, "trunc"):
        cnt = b.at(b.cum, np.minimum(c, b.nret), 0)
        vals.append(np.where(c > b.nret, b.nrr / c.astype(_f), np.where(c > 0, cnt / c.astype(_f), 0.0)))
    return vals


@measure("utility", kind="p_double", default=(1.0, -1.0, 0.0, 0.0), empty_zeroed="name", bounded=False,
         params=(("a", 1.0, "float", "gain per relevant retrieved"), ("b", -1.0, "float", "per nonrelevant retrieved"),
                 ("c", 0.0, "float", "per relevant missed"), ("d", 0.0, "float", "per nonrelevant missed (needs -N)")))
def utility(b, sp):
    a, bb, c, d = sp.values
    nret, nrr, R = b.nret, b.nrr, b.R
    return [a * nrr + bb * (nret - nrr) + c * (R - nrr) + d * (b.top.N + nrr - nret - R)]


@measure("11pt_avg", kind="p_double", default=ELEVEN, params=(_VERSION,))
def eleven_pt_avg(b, sp):
    v = _iprec(b, sp)
    if not sp.values:
        raise TrecEvalError("11pt_avg: No cutoff values")
    s = np.zeros(b.nret.shape)
    for x in v[::-1]:
        s = s + x
    return [s / float(len(sp.values))]


@measure("binG")
def bin_g(b, sp):
    disc = detmath.log2_offsets(b.D + 1)
    idx = b.pos - b.cum + 1
    t = np.where(b.isrel, 1.0 / disc[np.clip(idx, 0, b.D)], 0.0)
    s = np.cumsum(t, axis=-1)[..., -1]
    return [np.where(b.cum[:, -1] > 0, s / b.R, 0.0)]


@measure("G", kind="p_pair", gained=True, bounded=False, params=_GAIN_MAP)
def g_measure(b, sp):
    g, _, ig, *_ = _dcg_parts(b, sp.pairs)
    sum_cost = b.top.g_cost(sp.pairs)
    sum_res = np.cumsum(g, axis=-1)
    nz = np.nonzero(g)                          # only the ranks with a gain contribute
    arg = (2 + sum_cost[b.t[nz[0]], b.pos[nz]]) - sum_res[nz]
    terms = np.zeros(g.shape)
    terms[nz] = g[nz] / detmath.log2(arg)
    rg = np.cumsum(terms, axis=-1)[..., -1]
    si = np.cumsum(np.where(ig > 0, ig, 0.0), axis=-1)[:, -1][b.t]
    return [np.where(si > 0.0, rg / np.where(si > 0, si, 1.0), 0.0)]


@measure("dcg", kind="p_pair", gained=True, bounded=False, params=_GAIN_MAP)
def dcg(b, sp):
    return [_dcg_parts(b, sp.pairs)[5]]


@measure("ideal_dcg", kind="p_pair", gained=True, bounded=False, params=_GAIN_MAP)
def ideal_dcg(b, sp):
    return [_dcg_parts(b, sp.pairs)[6]]


@measure("ndcg", kind="p_pair", gained=True, params=_GAIN_MAP)
def ndcg(b, sp):
    *_, dcg, idcg, _ = _dcg_parts(b, sp.pairs)
    return [np.where(idcg > 0.0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)]


@measure("ndcg_rel", kind="p_pair", gained=True, params=_GAIN_MAP)
def ndcg_rel(b, sp):
    g, cdcg, _, _, icum, dcg, idcg, Lb = _dcg_parts(b, sp.pairs)
    # ideal dcg at rank i: its prefix through min(i, L-1)
    iat = icum[b.t[:, None], np.minimum(b.pos, np.maximum(Lb - 1, 0)[:, None])]
    iat = np.where((Lb > 0)[:, None], iat, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(g > 0, cdcg / iat, 0.0)
        s = np.cumsum(terms, axis=-1)[..., -1]
        nrg = (g > 0).sum(-1)
        s = s + ((Lb - nrg).astype(np.float64) * dcg) / idcg
        return [np.where(s > 0.0, s / Lb, 0.0)]


@measure("Rndcg", kind="p_pair", gained=True, params=_GAIN_MAP)
def rndcg(b, sp):
    _, cdcg, _, _, _, dcg, idcg, Lb = _dcg_parts(b, sp.pairs)
    bq, ibq, mask = b.top.rndcg_bounds(sp.pairs)
    bq, ibq, mask = bq[b.t], ibq[b.t], mask[b.t]
    db = b.at(cdcg, np.minimum(bq, b.nret[:, None]), 0.0)      # dcg through rank b - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(mask, db / ibq, 0.0)
        s = np.cumsum(terms, axis=-1)[..., -1]
        cnt = mask.sum(-1)
        extra = (Lb >= 1) & (Lb + 1 < b.nret) & (idcg > 0)
        s = np.where(extra, s + dcg / np.where(idcg > 0, idcg, 1.0), s)
        cnt = cnt + extra
        val = s / cnt
    return [np.where(b.R == 0, 0.0, val)]


@measure("ndcg_cut", kind="cut_long", default=LONG9, gained=True)
def ndcg_cut(b, sp):
    return _ndcg_cut(b, sp.values)


@measure("map_cut", kind="cut_long", default=LONG9)
def map_cut(b, sp):
    return [np.where(b.R > 0, b.ap_sum_at(c) / b.R, 0.0) for c in sp.values]


@measure("relative_P", kind="cut_long", default=LONG9)
def relative_p(b, sp):
    R = b.R
    return [np.where(R > 0, b.count_at(c) / np.minimum(c, R).astype(_f), 0.0) for c in sp.values]


@measure("success", kind="cut_long", default=(1, 5, 10))
def success(b, sp):
    return [(b.count_at(c) > 0).astype(_f) for c in sp.values]


@measure("set_P")
def set_p(b, sp):
    return [np.where(b.nret > 0, b.nrr / b.nret.astype(_f), 0.0)]


@measure("set_relative_P")
def set_relative_p(b, sp):
    nret, nrr, R = b.nret, b.nrr, b.R
    return [np.where((nret > 0) & (R > 0), nrr / np.minimum(nret, R).astype(_f), 0.0)]


@measure("set_recall")
def set_recall(b, sp):
    return [np.where(b.R > 0, b.nrr / b.R.astype(_f), 0.0)]


@measure("set_map")
def set_map(b, sp):
    nret, nrr, R = b.nret, b.nrr, b.R
    return [np.where((nret > 0) & (R > 0), (nrr.astype(_f) * nrr.astype(_f)) /
                     (nret.astype(_f) * R.astype(_f)), 0.0)]


@measure("set_F", kind="p_double", default=(1.0,), params=(("beta", 1.0, "float", "trec_eval set_F parameter"),))
def set_f(b, sp):
    x = sp.values[0]
    P = b.nrr / b.nret.astype(_f)
    Rc = b.nrr / b.R.astype(_f)
    return [np.where(b.nrr > 0, (x + 1.0) * P * Rc / (x * P + Rc), 0.0)]


@measure("num_nonrel_judged_ret", printing="long", aggregate="sum", bounded=False)
def num_nonrel_judged_ret(b, sp):
    judged = (b.ent & (b.lev >= 0)).sum(-1)
    return [(judged - b.nrr).astype(_f)]


@measure("rbp", kind="p_pair", gained=True, params=(
    ("p", 0.9, "float", "persistence"), ("gain_map", None, "str", "LEVEL=GAIN:LEVEL=GAIN")))
def rbp(b, sp):
    p = persistence(sp.pairs)
    tabn, lo = b.top.rbp_table(sp.pairs)
    gg = b.result_gains(tabn, lo)
    pw = detmath.powers(p, b.D)
    s = np.cumsum(np.where(gg != 0, gg * pw[b.pos], 0.0), axis=-1)[..., -1]
    return [(1.0 - p) * s]


@measure("rbp_resid", kind="p_pair", empty_zeroed="name", params=(("p", 0.9, "float", "persistence"),))
def rbp_resid(b, sp):
    return [b.top.rbp_resid(persistence(sp.pairs))[b.idx]]


@measure("unj", kind="cut_long", default=(5, 10, 20), empty_zeroed="prefix")
def unj(b, sp):
    # unjudged (-1, -2) in the first n ranks: n less the other entries there (a rank that is
    # not an entry is a NONPOOL one)
    other = b.cached("other", lambda: np.cumsum(b.ent & (b.lev != -1) & (b.lev != -2), axis=-1))
    out = []
    for c in sp.values:
        m = np.minimum(c, b.nret)
        u = np.where(m > 0, m - b.at(other, int(c), 0), 0)
        out.append(u / float(c))
    return out
