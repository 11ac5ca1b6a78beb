"""NTCIREVAL's ranked-retrieval measures (``ntcir_eval compute``) plus WRR/NWRR, nCG, R-prec (PDoc is an alias of Prec).

Every function computes one measure for all runs and topics at once from the arrays of an
:class:`~metaeval.metrics.context.EvalContext`: running sums over the relevant ranks of every list
(the context's entries) or over the ranks of the ideal list.  Definitions and conventions are in
``docs/metrics.md``; references are to Sakai (2011) (NTCIREVAL, Sec. 3), Sakai (2007a) (Sec. 3) and
Sakai (2007b) (Sec. 3).

Exactness notes (to reproduce NTCIREVAL to the 4 printed decimals, ties included):

* running sums are sequential, like the C loops (``EvalContext.rel_cumsum``), and a value "at
  rank r" is read from the running sum at the last relevant rank <= r; skipping the zero terms
  of nonrelevant ranks does not change a float sum (adding 0.0 is exact);
* every formula keeps the C program's operation order (e.g. ``(beta*cg + C) / (beta*cg* + r)``,
  ``(1-p) * sum / g_h``, ``(dsat / r) * (g / (g_h + 1))``);
* powers and logarithms of ranks come from small tables built with :mod:`math` (the C library's
  ``pow``/``log``), not from numpy's vectorised transcendental functions;
* a document is relevant iff its level is >= 1 (unjudged -1 and padding -2 are not); gains of
  unjudged/padding documents are 0;
* with R = 0 every measure is 0 (NTCIREVAL refuses such topics; we return finite values).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .. import detmath
from .context import EvalContext
from .registry import MeasureDef, Param, format_gains, parse_gains, register, rel_param

# ----------------------------------------------------------------------------- helpers


def _gains_param() -> Param:
    return Param(None, parse_gains, "gain values for L1..LH (overrides the collection default)",
                 format_gains)


def _levels_param(doc: str) -> Param:
    return Param(None, parse_gains, doc, format_gains)


def _prob(text: str) -> float:
    v = float(text)
    if not (0.0 < v <= 1.0):
        raise ValueError(f"{text!r}: expected a value in (0, 1]")
    return v


def _nonneg(text: str) -> float:
    v = float(text)
    if not (v >= 0.0 and math.isfinite(v)):
        raise ValueError(f"{text!r}: expected a non-negative number")
    return v


def _logbase(text: str) -> float:
    v = float(text)
    if not (v >= 0.0 and math.isfinite(v)):
        raise ValueError(f"{text!r}: expected a log base >= 0 (0 = natural log)")
    return v


def _idx(cutoff: int | None, n: int) -> int:
    """0-based index of rank min(cutoff, n) (rank n if no cutoff)."""
    return (n if cutoff is None else min(int(cutoff), n)) - 1


def _at(cum: np.ndarray, cutoff: int | None) -> np.ndarray:
    """Value of a cumulative array (..., n) at rank min(cutoff, n); 0 for an empty axis."""
    n = cum.shape[-1]
    if n == 0:
        return np.zeros(cum.shape[:-1])
    return cum[..., _idx(cutoff, n)]


def _div(num, den) -> np.ndarray:
    """num / den with 0 where den == 0 (never NaN)."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _csum(x: np.ndarray) -> np.ndarray:
    return detmath.running_sum(x)


def _n_rel(ctx: EvalContext) -> np.ndarray:
    return ctx.n_rel.astype(np.float64)


def _denom_cut(ctx: EvalContext, cutoff: int | None) -> np.ndarray:
    """(T,) R, or min(l, R) for a cutoff l (AP@l, Q@l)."""
    R = _n_rel(ctx)
    return R if cutoff is None else np.minimum(float(cutoff), R)


@lru_cache(maxsize=64)
def _pow_table(base: float, n: int) -> np.ndarray:
    """base**k for k = 0..n-1 with the C library's pow."""
    t = detmath.power(base, np.arange(n, dtype=np.float64))
    t.setflags(write=False)
    return t


@lru_cache(maxsize=16)
def _log_table(n: int) -> np.ndarray:
    """log(i) for i = 0..n (index 0 unused)."""
    t = np.concatenate([[0.0], detmath.log(np.arange(1, n + 1, dtype=np.float64))])
    t.setflags(write=False)
    return t


@lru_cache(maxsize=16)
def _orig_dcg_discount(base: float, n: int) -> np.ndarray:
    """Jarvelin/Kekalainen discount for ranks 1..n: 1 if r == 1 or r <= b, else log_b(r)
    (natural log if b == 0) -- NTCIREVAL's ``orig_dcglog``."""
    lg = _log_table(n)
    out = np.empty(n)
    for i in range(1, n + 1):
        if i == 1 or i <= base:
            out[i - 1] = 1.0
        elif base == 0:
            out[i - 1] = lg[i]
        else:
            out[i - 1] = lg[i] / math.log(base)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=16)
def _rbp_power(p: float, n: int) -> np.ndarray:
    """p**(r-1) for ranks r = 1..n as NTCIREVAL's running product (not pow)."""
    t = np.cumprod(np.concatenate([[1.0], np.full(max(n - 1, 0), p)]))[:n]
    t.setflags(write=False)
    return t


def _memo(ctx: EvalContext, key: tuple, fn):
    """Cache a derived array on the context (cutoff variants of a measure share one cumsum)."""
    def make():
        v = fn()
        if isinstance(v, np.ndarray):
            v.setflags(write=False)
        return v
    return ctx.cached(key, make)


def _rel_sum(ctx: EvalContext, values: np.ndarray) -> np.ndarray:
    """Cumulative sum over relevant ranks of dense ``values`` (R, T, D) (bpref family)."""
    return _csum(np.where(ctx.rel, values, 0.0))


# ------------------------------------------------------------- the lists a sum runs over
# A measure's running sum runs over the system lists' relevant ranks (the context's entries, see
# EvalContext) or over the ideal list's ranks 1..W, (W, T).  _System and _Ideal give, per position, the gain,
# the rank (float) and rank - 1 (an index into per-rank tables), and the running sum / product, the
# value at the previous position, and reading a running sum at the last position of rank <= cutoff.


class _System:
    key = "sys"

    def __init__(self, ctx: EvalContext):
        self.ctx = ctx
        self.gain, self.rank, self.index = ctx.rel_gain, ctx.rel_rank, ctx.rel_index
        self.hgain = ctx.hgain(ctx.rel_topic)                    # g_h per entry (or a scalar)

    def cumsum(self, x):
        return self.ctx.rel_cumsum(x)

    def cumprod(self, x):
        return self.ctx.rel_cumprod(x)

    def prev(self, x, first):
        return self.ctx.rel_prev(x, first)

    def read(self, cum, cutoff):
        return self.ctx.rel_read(cum, self.ctx.rel_n_at(cutoff))


class _Ideal:
    key = "ideal"

    def __init__(self, ctx: EvalContext):
        W = ctx.width
        self.gain = np.ascontiguousarray(ctx.ideal_gain_full.T)          # (W, T)
        self.index = np.arange(W).reshape(W, 1)
        self.rank = (self.index + 1).astype(np.float64)
        self.hgain = ctx.hgain()                                 # g_h, scalar or (T,)

    def cumsum(self, x):
        return np.cumsum(x, axis=0)

    def cumprod(self, x):
        return np.cumprod(x, axis=0)

    def prev(self, x, first):
        return np.concatenate([np.full((1,) + x.shape[1:], first), x[:-1]], axis=0)

    def read(self, cum, cutoff):
        """(T,) cum at rank min(cutoff, W); 0 for an empty list."""
        W = cum.shape[0]
        return cum[_idx(cutoff, W)] if W else np.zeros(cum.shape[1:])


def _system(ctx: EvalContext) -> _System:
    return _memo(ctx, ("lists", "sys"), lambda: _System(ctx))


def _ideal(ctx: EvalContext) -> _Ideal:
    return _memo(ctx, ("lists", "ideal"), lambda: _Ideal(ctx))


def _table_len(ctx: EvalContext) -> int:
    """Length of per-rank tables: covers every system rank (<= D) and ideal rank (<= width)."""
    return max(ctx.width, 1)


def _sum(ctx: EvalContext, lists, name: tuple, cutoff, terms) -> np.ndarray:
    """Sum of ``terms()`` over the positions of rank <= cutoff; the running sum is memoised under
    ``name`` so that all cutoff variants of a measure share it."""
    return lists.read(_memo(ctx, ("cum", lists.key) + name, lambda: lists.cumsum(terms())), cutoff)


def _prec_terms(ctx: EvalContext) -> np.ndarray:
    """P(r) = C(r) / r at the relevant ranks."""
    return _memo(ctx, ("P(r)",), lambda: ctx.rel_k / ctx.rel_rank)


# ------------------------------------------------------------- RR, O, P, P+ (Sakai 2007a)


def rr(ctx: EvalContext, cutoff=None) -> np.ndarray:
    """1/r1; with a cutoff l, 0 when r1 > l (MS MARCO's MRR@l, ir_measures' RR@l)."""
    r1 = ctx.first_rel_rank
    if cutoff is not None:
        r1 = np.where(r1 <= int(cutoff), r1, 0)
    return _div(np.where(r1 > 0, 1.0, 0.0), r1)


def o_measure(ctx: EvalContext, cutoff=None, beta=1.0) -> np.ndarray:
    return ctx.rel_read(ctx.rel_br(beta), np.minimum(ctx.rel_count, 1))   # BR at slot 1 (rank r1)


def p_measure(ctx: EvalContext, cutoff=None, beta=1.0) -> np.ndarray:
    return ctx.rel_read(ctx.rel_br(beta), ctx.preferred_slot)


def p_plus(ctx: EvalContext, cutoff=None, beta=1.0) -> np.ndarray:
    n = ctx.preferred_slot                                             # C(rp)
    cum = _memo(ctx, ("cum", "sys", "Q", float(beta)), lambda: ctx.rel_cumsum(ctx.rel_br(beta)))
    return _div(ctx.rel_read(cum, n), n)


# ------------------------------------------------------------------- AP, Q (Eqs. 1, 3)


def ap(ctx: EvalContext, cutoff=None) -> np.ndarray:
    s = _sum(ctx, _system(ctx), ("AP",), cutoff, lambda: _prec_terms(ctx))
    return _div(s, _denom_cut(ctx, cutoff)[None, :])


def q_measure(ctx: EvalContext, cutoff=None, beta=1.0) -> np.ndarray:
    s = _sum(ctx, _system(ctx), ("Q", float(beta)), cutoff, lambda: ctx.rel_br(beta))
    return _div(s, _denom_cut(ctx, cutoff)[None, :])


# ---------------------------------------------------------------------- NCU (Eq. 6)


def _stop_values(ctx: EvalContext, stops) -> np.ndarray:
    H = ctx.collection.max_level
    if stops is None:
        return ctx.gain_of_level
    stops = tuple(float(s) for s in stops)
    if len(stops) < H:
        raise ValueError(f"{len(stops)} stop values given for {H} relevance levels (L1..L{H})")
    if any(s <= 0 for s in stops[:H]):
        raise ValueError("stop values must be positive")
    return np.concatenate([[0.0], np.asarray(stops[:H], float)])


def _ncu_gu(ctx: EvalContext, nu: np.ndarray, stops) -> np.ndarray:
    sv = _stop_values(ctx, stops)
    counts = ctx.collection.level_counts
    denom = np.zeros(counts.shape[0])
    for j in range(1, len(sv)):                 # sequential over levels, as NTCIREVAL
        denom = denom + counts[:, j] * sv[j]
    s = ctx.rel_read(ctx.rel_cumsum(nu * sv[ctx.rel_level]), ctx.rel_count)
    return _div(s, denom[None, :])


def ncu_gu_p(ctx: EvalContext, cutoff=None, stops=None) -> np.ndarray:
    return _ncu_gu(ctx, _prec_terms(ctx), stops)


def ncu_gu_br(ctx: EvalContext, cutoff=None, beta=1.0, stops=None) -> np.ndarray:
    return _ncu_gu(ctx, ctx.rel_br(beta), stops)


def _ncu_rb(ctx: EvalContext, nu, gamma: float, cutoff, key) -> np.ndarray:
    R = ctx.n_rel
    n = int(max(ctx.depth, R.max(initial=0), 1))
    pw = _pow_table(float(gamma), n)
    stop = pw[ctx.rel_slot]                     # gamma**(C(r)-1): C(r) = k at slot k
    s = _sum(ctx, _system(ctx), ("NCUrb", float(gamma)) + key, cutoff, lambda: nu() * stop)
    if cutoff is None:
        cden = np.cumsum(pw)
        denom = np.where(R > 0, cden[np.clip(R - 1, 0, n - 1)], 0.0)
    else:
        denom = np.minimum(R, int(cutoff)).astype(np.float64)
    return _div(s, denom[None, :])


def ncu_rb_p(ctx: EvalContext, cutoff=None, gamma=0.95) -> np.ndarray:
    return _ncu_rb(ctx, lambda: _prec_terms(ctx), gamma, cutoff, ("P",))


def ncu_rb_br(ctx: EvalContext, cutoff=None, beta=1.0, gamma=0.95) -> np.ndarray:
    return _ncu_rb(ctx, lambda: ctx.rel_br(beta), gamma, cutoff, ("BR", float(beta)))


def ncu_rb_ie(ctx: EvalContext, cutoff=None, gamma=0.95, persistence=0.99) -> np.ndarray:
    """Rank-biased NCU whose utility at rank r is p**r (NTCIREVAL's NCUrb,IE; not in the papers)."""
    pw = _pow_table(float(persistence), _table_len(ctx) + 1)[1:]      # p**r at index r-1
    return _ncu_rb(ctx, lambda: pw[ctx.rel_index], gamma, cutoff, ("IE", float(persistence)))


# ----------------------------------------------------------------------- RBP (Eq. 8)


def _rbp(ctx: EvalContext, lists, p: float, cutoff) -> np.ndarray:
    power = _rbp_power(p, _table_len(ctx))
    s = _sum(ctx, lists, ("RBP", p), cutoff, lambda: lists.gain * power[lists.index])
    return _div((1 - p) * s, np.broadcast_to(ctx.hgain(), s.shape))


def rbp(ctx: EvalContext, cutoff=None, persistence=0.95) -> np.ndarray:
    return _rbp(ctx, _system(ctx), float(persistence), cutoff)


def nrbp(ctx: EvalContext, cutoff=None, persistence=0.95) -> np.ndarray:
    p = float(persistence)
    return _div(_rbp(ctx, _system(ctx), p, cutoff), _rbp(ctx, _ideal(ctx), p, cutoff)[None, :])


# ------------------------------------------------------- ERR family (Eqs. 4, 5), EBR, iRBU


def _dsat_prev(ctx: EvalContext, lists) -> np.ndarray:
    """dsat(r-1) = prod over earlier ranks of (1 - g/(g_h+1)) (1 at the first rank)."""
    return _memo(ctx, ("dsat_prev", lists.key),
                 lambda: lists.prev(lists.cumprod(1 - lists.gain / (lists.hgain + 1)), 1.0))


def _err(ctx: EvalContext, lists, cutoff) -> np.ndarray:
    def terms():
        pr = lists.gain / (lists.hgain + 1)
        return (_dsat_prev(ctx, lists) / lists.rank) * pr
    return _sum(ctx, lists, ("ERR",), cutoff, terms)


def err(ctx: EvalContext, cutoff=None) -> np.ndarray:
    return _err(ctx, _system(ctx), cutoff)


def nerr(ctx: EvalContext, cutoff=None) -> np.ndarray:
    return _div(err(ctx, cutoff), _err(ctx, _ideal(ctx), cutoff)[None, :])


def ebr(ctx: EvalContext, cutoff=None, beta=1.0) -> np.ndarray:
    lists = _system(ctx)
    return _sum(ctx, lists, ("EBR", float(beta)), cutoff,
                lambda: ctx.rel_br(beta) * _dsat_prev(ctx, lists) * lists.gain / (lists.hgain + 1))


def nebr(ctx: EvalContext, cutoff=None, beta=1.0) -> np.ndarray:
    lists = _ideal(ctx)          # the ideal list's BR is 1 at every rank (NTCIREVAL uses 1.0)
    ideal = _sum(ctx, lists, ("EBR",), cutoff,
                 lambda: 1.0 * _dsat_prev(ctx, lists) * lists.gain / (lists.hgain + 1))
    return _div(ebr(ctx, cutoff, beta), ideal[None, :])


def _irbu(ctx: EvalContext, lists, p: float, cutoff) -> np.ndarray:
    pw = _pow_table(p, _table_len(ctx) + 1)[1:]                      # p**r at index r-1
    return _sum(ctx, lists, ("iRBU", p), cutoff,
                lambda: pw[lists.index] * _dsat_prev(ctx, lists) * lists.gain / (lists.hgain + 1))


def irbu(ctx: EvalContext, cutoff=None, persistence=0.99) -> np.ndarray:
    return _irbu(ctx, _system(ctx), float(persistence), cutoff)


def nirbu(ctx: EvalContext, cutoff=None, persistence=0.99) -> np.ndarray:
    p = float(persistence)
    return _div(_irbu(ctx, _system(ctx), p, cutoff), _irbu(ctx, _ideal(ctx), p, cutoff)[None, :])


# ------------------------------------------------------------------ nDCG (Eq. 7), nCG


def ndcg(ctx: EvalContext, cutoff=None, logb=2.0) -> np.ndarray:
    disc = _orig_dcg_discount(float(logb), _table_len(ctx))
    s, i = (_sum(ctx, L, ("DCG", float(logb)), cutoff, lambda L=L: L.gain / disc[L.index])
            for L in (_system(ctx), _ideal(ctx)))
    return _div(s, i[None, :])


def msndcg(ctx: EvalContext, cutoff=None) -> np.ndarray:
    lg = _log_table(_table_len(ctx) + 1)
    s, i = (_sum(ctx, L, ("msDCG",), cutoff, lambda L=L: L.gain / lg[L.index + 2])   # log(r + 1)
            for L in (_system(ctx), _ideal(ctx)))
    return _div(s, i[None, :])


def ncg(ctx: EvalContext, cutoff=None) -> np.ndarray:
    return _div(ctx.rel_read(ctx.rel_cg, ctx.rel_n_at(cutoff)), _at(ctx.ideal_cg, cutoff)[None, :])


# ------------------------------------------------------------- precision-like, Hit


def prec(ctx: EvalContext, cutoff=None) -> np.ndarray:
    return ctx.rel_n_at(cutoff).astype(np.float64) / float(cutoff)


def hit(ctx: EvalContext, cutoff=None) -> np.ndarray:
    return (ctx.rel_n_at(cutoff) > 0).astype(np.float64)


def r_prec(ctx: EvalContext, cutoff=None) -> np.ndarray:
    limit = np.minimum(ctx.n_rel, ctx.depth)[ctx.rel_topic]            # min(R, D) of the entry's topic
    c = np.bincount(ctx._entries["list"][ctx.rel_rank <= limit], minlength=ctx.rel_count.size)
    return _div(c.reshape(ctx.rel_count.shape), _n_rel(ctx)[None, :])


# ------------------------------------------------------------- WRR, NWRR (Sakai 2007a, Eqs. 4-5)


def default_penalties(H: int) -> tuple[float, ...]:
    """beta(L1..LH) = H+1, H, ..., 2 (Sakai (2007a)'s 4:3:2 for three levels)."""
    return tuple(float(H + 1 - j) for j in range(H))


def _penalty_table(ctx: EvalContext, penalties) -> np.ndarray:
    H = ctx.collection.max_level
    pen = default_penalties(H) if penalties is None else tuple(float(x) for x in penalties)
    if len(pen) < H:
        raise ValueError(f"{len(pen)} penalty values given for {H} relevance levels (L1..L{H})")
    if any(not (x > 1) for x in pen[:H]):
        raise ValueError("WRR penalties must be > 1 (Sakai 2007a, Sec. 3.2)")
    return np.concatenate([[np.inf], np.asarray(pen[:H], float)])


def _wrr_parts(ctx: EvalContext, penalties):
    pen = _penalty_table(ctx, penalties)
    r1 = ctx.first_rel_rank
    lv1 = ctx.rel_read(ctx.rel_level, np.minimum(ctx.rel_count, 1)).astype(np.intp)  # level at r1
    den = np.where(r1 > 0, r1 - 1.0 / pen[lv1], 0.0)
    return pen, r1, den


def wrr(ctx: EvalContext, cutoff=None, penalties=None) -> np.ndarray:
    _, r1, den = _wrr_parts(ctx, penalties)
    return _div(np.where(r1 > 0, 1.0, 0.0), den)


def nwrr(ctx: EvalContext, cutoff=None, penalties=None) -> np.ndarray:
    pen, r1, den = _wrr_parts(ctx, penalties)
    counts = ctx.collection.level_counts
    H = counts.shape[1] - 1
    has = counts[:, 1:] > 0
    M = np.where(has.any(axis=1), H - np.argmax(has[:, ::-1], axis=1), 0)   # topic's highest level
    num = np.where(M > 0, 1 - 1.0 / pen[M], 0.0)
    return _div(np.where(r1 > 0, num[None, :], 0.0), den)


# ------------------------------------------------------------------------ registration

_G = {"gains": _gains_param()}
_BETA = {"beta": Param(1.0, _nonneg, "blended-ratio beta (NTCIREVAL -beta)")}
_GAMMA = {"gamma": Param(0.95, _prob, "rank-biased NCU gamma (NTCIREVAL -gamma)")}
_RBP = {"persistence": Param(0.95, _prob, "RBP persistence p (NTCIREVAL -rbp)")}
_RBU = {"persistence": Param(0.99, _prob, "iRBU persistence p (NTCIREVAL -rbup)")}
_LOGB = {"logb": Param(2.0, _logbase, "log base a of the original nDCG (0 = natural log; NTCIREVAL -logb)")}
_STOPS = {"stops": _levels_param("graded-uniform stop values for L1..LH (default: the gains; NTCIREVAL -s)")}
_REL = {"rel": rel_param()}
_PEN = {"penalties": _levels_param("WRR penalties beta(L1..LH) > 1 (default H+1:...:2, i.e. 4:3:2 for H=3)")}


def _reg(base, func, cutoff="forbidden", params=None, bounded=True, ntcir=False, doc=""):
    register(MeasureDef(base, func, cutoff, dict(params or {}), bounded, ntcir, doc))


_reg("RR", rr, cutoff="optional", params=_REL, ntcir=True,
     doc="reciprocal rank 1/r1 (Sakai 2011, Sec. 3.1); RR@l is 0 when r1 > l")
_reg("O-measure", o_measure, params={**_G, **_BETA}, ntcir=True, doc="BR(r1) (Sakai 2007a, Eq. 3)")
_reg("P-measure", p_measure, params={**_G, **_BETA}, ntcir=True, doc="BR(rp) (Sakai 2007a, Eq. 6)")
_reg("P-plus", p_plus, params={**_G, **_BETA}, ntcir=True, doc="P+ (Sakai 2007a, Eq. 7)")
_reg("AP", ap, cutoff="optional", params=_REL, ntcir=True, doc="average precision; AP@l divides by min(l,R)")
_reg("Q-measure", q_measure, params={**_G, **_BETA}, ntcir=True, doc="Q-measure (Sakai 2011, Eq. 3)")
_reg("Q", q_measure, cutoff="required", params={**_G, **_BETA}, ntcir=True,
     doc="Q@l: Q-measure over the top l, divided by min(l,R)")
_reg("NCUgu,P", ncu_gu_p, params={**_G, **_STOPS}, doc="NCU, graded-uniform stop, NU=P (Sakai 2011, Eq. 6)")
_reg("NCUgu,BR", ncu_gu_br, params={**_G, **_BETA, **_STOPS}, doc="NCU, graded-uniform stop, NU=BR")
_reg("NCUrb,P", ncu_rb_p, cutoff="optional", params={**_G, **_GAMMA}, ntcir=True,
     doc="NCU, rank-biased stop, NU=P")
_reg("NCUrb,BR", ncu_rb_br, cutoff="optional", params={**_G, **_BETA, **_GAMMA}, ntcir=True,
     doc="NCU, rank-biased stop, NU=BR")
_reg("NCUrb,IE", ncu_rb_ie, cutoff="optional", params={**_GAMMA, **_RBU}, ntcir=True,
     doc="NCU, rank-biased stop, utility p**r (NTCIREVAL >= 2019 output; not in the papers)")
_reg("RBP", rbp, cutoff="optional", params={**_G, **_RBP}, ntcir=True, doc="rank-biased precision (Eq. 8)")
_reg("nRBP", nrbp, cutoff="required", params={**_G, **_RBP}, ntcir=True, doc="RBP@l / ideal RBP@l")
_reg("ERR", err, cutoff="optional", params=_G, ntcir=True, doc="expected reciprocal rank (Eq. 4)")
_reg("nERR", nerr, cutoff="required", params=_G, ntcir=True, doc="normalised ERR@l (Eq. 5)")
_reg("EBR", ebr, cutoff="optional", params={**_G, **_BETA}, ntcir=True, doc="expected blended ratio")
_reg("nEBR", nebr, cutoff="required", params={**_G, **_BETA}, ntcir=True, doc="EBR@l / ideal EBR@l")
_reg("iRBU", irbu, cutoff="optional", params={**_G, **_RBU}, ntcir=True, doc="intentwise rank-biased utility")
_reg("niRBU", nirbu, cutoff="required", params={**_G, **_RBU}, ntcir=True, doc="iRBU@l / ideal iRBU@l")
_reg("nDCG", ndcg, cutoff="required", params={**_G, **_LOGB}, ntcir=True,
     doc="original nDCG@l (Jarvelin/Kekalainen; Sakai 2007b, Eq. 4)")
_reg("MSnDCG", msndcg, cutoff="required", params=_G, ntcir=True, doc="Microsoft nDCG@l (Sakai 2011, Eq. 7)")
_reg("Prec", prec, cutoff="required", params=_REL, ntcir=True, doc="precision at l (NTCIREVAL 2011: P@l)")
_reg("Hit", hit, cutoff="required", params=_REL, ntcir=True, doc="1 if a relevant document is in the top l")
_reg("nCG", ncg, cutoff="required", params=_G, doc="cg(l)/cg*(l) (Sakai 2007b, Eq. 3)")
_reg("R-prec", r_prec, params=_REL, doc="precision at rank R")
_reg("WRR", wrr, params=_PEN, bounded=False, doc="weighted reciprocal rank (Sakai 2007a, Eq. 4)")
_reg("NWRR", nwrr, params=_PEN, doc="normalised WRR (Sakai 2007a, Eq. 5)")


# ------------------------------------------------- bpref family (condensed lists; Sakai 2011, Sec. 3.2)
# NTCIREVAL prints these with ``compute -j`` on a condensed list (unjudged documents removed); the
# functions compute them on whatever list they are given.  N = number of judged nonrelevant (L0)
# documents; terms dividing by N = 0 are 0 (NTCIREVAL refuses such topics).


def _bpref_parts(ctx: EvalContext):
    R = _n_rel(ctx)[None, :, None]
    N = ctx.collection.level_counts[:, 0].astype(np.float64)[None, :, None]
    nonrel_above = ctx.ranks - ctx.count               # r - C(r)
    return R, N, nonrel_above


def bpref(ctx: EvalContext, cutoff=None) -> np.ndarray:
    """Over the relevant documents only (the context's entries, in rank order): the same additions
    as a running sum over every rank with zeros at the others, without the (runs, topics, depth)
    arrays."""
    R = _n_rel(ctx)
    N = ctx.collection.level_counts[:, 0].astype(np.float64)
    t = ctx.rel_topic
    Rt, Nt = R[t], N[t]
    mini = np.minimum(Rt, ctx.rel_rank - ctx.rel_k)            # nonrelevant above: r - C(r)
    ratio = np.where(Rt > Nt, 1 - _div(mini, Nt), 1 - _div(mini, Rt))
    return _div(ctx.rel_read(ctx.rel_cumsum(ratio), ctx.rel_count), R[None, :])


def bpref_r(ctx: EvalContext, cutoff=None) -> np.ndarray:
    R, _N, nr = _bpref_parts(ctx)
    ratio = 1 - _div(np.minimum(R, nr), np.broadcast_to(R, nr.shape))
    return _div(_at(_rel_sum(ctx, ratio), None), R[..., 0])


def bpref_n(ctx: EvalContext, cutoff=None) -> np.ndarray:
    R, N, nr = _bpref_parts(ctx)
    ratio = 1 - _div(nr, np.broadcast_to(N, nr.shape))
    return _div(_at(_rel_sum(ctx, ratio), None), R[..., 0])


def bpref_relative(ctx: EvalContext, cutoff=None) -> np.ndarray:
    R, _N, nr = _bpref_parts(ctx)
    ratio = np.where(ctx.ranks > 1, 1 - _div(nr, np.broadcast_to(ctx.ranks - 1, nr.shape)), 0.0)
    return _div(_at(_rel_sum(ctx, ratio), None), R[..., 0])


def _rpref_penalty(ctx: EvalContext) -> np.ndarray:
    """penalty(r) = sum_{j<r} max(g(r) - g(j), 0) / g(r), grouped by the gain of the document at j."""
    g = ctx.gain
    vals = np.unique(np.concatenate([[0.0], ctx.gain_of_level]))
    pen = np.zeros(g.shape)
    for v in vals:                                          # a few distinct gain values
        before = np.cumsum(g == v, axis=2) - (g == v)       # documents of gain v above rank r
        pen += before * np.maximum(g - v, 0.0)
    return _div(pen, g)


def _rpref(ctx: EvalContext, kind: str) -> np.ndarray:
    pen = _rpref_penalty(ctx)
    R = ctx.n_rel
    N = ctx.collection.level_counts[:, 0].astype(np.float64)
    cgR = np.where(R > 0, ctx.ideal_cg[np.arange(len(R)), np.clip(R - 1, 0, None)], 0.0)
    if kind == "N":
        den = (R + N - cgR / ctx.max_gain)[None, :, None] if ctx.max_gain else np.zeros((1, len(R), 1))
        ratio = 1 - _div(pen, np.broadcast_to(den, pen.shape))
    elif kind == "relative":
        ratio = np.where(ctx.ranks > 1, 1 - _div(pen, np.broadcast_to(ctx.ranks - 1, pen.shape)), 0.0)
    else:
        ratio = 1 - pen / ctx.ranks
    return _div(_at(_rel_sum(ctx, ctx.gain * ratio), None), cgR[None, :])


def rpref_n(ctx: EvalContext, cutoff=None) -> np.ndarray:
    return _rpref(ctx, "N")


def rpref_relative(ctx: EvalContext, cutoff=None) -> np.ndarray:
    return _rpref(ctx, "relative")


def rpref_relative2(ctx: EvalContext, cutoff=None) -> np.ndarray:
    return _rpref(ctx, "relative2")


_reg("bpref", bpref, params=_REL, ntcir=True, doc="bpref (Buckley/Voorhees; Sakai SIGIR 2007 form), condensed lists")
_reg("bpref_R", bpref_r, params=_REL, ntcir=True, doc="bpref with min(R,N) replaced by R")
_reg("bpref_N", bpref_n, params=_REL, bounded=False, ntcir=True, doc="bpref with denominator N")
_reg("bpref_relative", bpref_relative, params=_REL, ntcir=True, doc="bpref relative to the rank")
_reg("rpref_N", rpref_n, params=_G, bounded=False, ntcir=True, doc="graded bpref_N (Sakai SIGIR 2007)")
_reg("rpref_relative", rpref_relative, params=_G, ntcir=True, doc="graded bpref_relative")
_reg("rpref_relative2", rpref_relative2, params=_G, ntcir=True, doc="graded bpref_relative, divided by r")
