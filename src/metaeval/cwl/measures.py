"""The C/W/L family: user-model measures exactly as ``cwl_eval`` 1.0.12 computes them.

In the C/W/L framework (Moffat, Thomas & Scholer 2013; Moffat, Bailey, Scholer & Thomas 2017;
Azzopardi, Thomas & Moffat 2019) a measure is a user model given by its *continuation*
probabilities ``C(i)`` (the user who has seen the item at rank i goes on to rank i+1). From them
follow the *weights* ``W(i)`` (the share of attention the item at rank i receives, summing to
1) and the *last-item* probabilities ``L(i)``, and five quantities per ranking:

* EU  = sum_i W(i) g(i)            expected utility per item (the value usually called "the metric")
* ETU = sum_i L(i) sum_{j<=i} g(j) expected total utility
* EC  = sum_i W(i) k(i)            expected cost per item
* ETC = sum_i L(i) sum_{j<=i} k(j) expected total cost
* ED  = 1 / W(1)                   expected depth

computed on the *worst case* (unjudged documents and the positions past the end of the list up to
depth ``n`` get ``min_gain`` and ``max_cost``) and, for the residuals, on the *best case*
(``max_gain`` and ``min_cost``); a residual is best minus worst.

Everything is computed for every ranking at once: ``(B, n)`` arrays (B rankings -- run x topic
pairs -- by n ranks), running products (``np.cumprod``) for the continuation probabilities and
fixed-order sums along the rank axis.  Exactness notes (to reproduce cwl_eval's printed digits):

* every per-item formula keeps cwl_eval's operation order;
* the transcendental functions cwl_eval calls through the C library (``math.pow``, ``**``,
  ``math.log``) are called here through :mod:`math` too, on Python floats
  (:func:`_pow`) or on per-rank tables -- never numpy's vectorised ``exp``/``log``/``power``,
  whose results vary between CPU builds;
* the weights ``W = P / sum(P)`` use ``np.add.reduce`` along the rank axis, the same pairwise sum
  as cwl_eval's ``np.sum`` of one ranking; cwl_eval's dot products (BLAS ``ddot``, whose summation
  order depends on the machine) are fixed-order ``np.add.reduce`` sums here: the two agree to the
  last bit or two, far below the four printed decimals.

The registry names (``cwl.INST(T=3)``, ``cwl.RBP(p=0.8)``, ``cwl.NDCG@10``, ...) make each measure
a matrix like any other; the value is EU and ``quantity=ETU`` (EC, ETC, ED, ResEU, ...) selects
another quantity.  Gains of a graded collection are the configured gain of the level divided by
the gain of the highest level (so in [0, 1]); unjudged documents are "unjudged" as in cwl_eval.
``docs/metrics.md`` (C/W/L section) has every definition and its paper.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from collections.abc import Callable

import numpy as np

from .. import detmath
from ..memo import Memo
from . import dot as cwl_dot

__all__ = ["QUANTITIES", "CwlSpec", "SPECS", "BY_CLASS", "CwlMetric", "CwlRankings", "cwl_scores",
           "cwl_scores_many", "DEFAULT_METRICS", "CwlValueError"]

#: the quantities of a C/W/L measure, in cwl_eval's column order (residuals last)
QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")


class CwlValueError(ValueError):
    """A metric refused its input (e.g. INST on gains outside [0, 1]), as cwl_eval refuses it."""


# --------------------------------------------------------------------------- the rankings


class CwlRankings(Memo):
    """B rankings to depth n: gains and costs as cwl_eval resolves them (its two cases and the
    metrics' scores kept with :meth:`Memo.cached`).

    ``gains`` (B, n) float with NaN for an unjudged document *and* for the positions past the end
    of a list; ``costs`` (B, n) float with NaN where no cost is known (no cost file, an element
    type not in it, past the end).  ``total_rels`` (B,) the number of documents with a positive
    gain in the qrels of the ranking's topic (cwl_eval's ``total_qrel_rels``; TrAP only)."""

    def __init__(self, gains: np.ndarray, costs: np.ndarray | None = None, total_rels=None, *,
                 max_gain: float = 1.0, min_gain: float = 0.0, max_cost: float = 1.0,
                 min_cost: float = 1.0):
        self.raw_gains = np.asarray(gains, dtype=np.float64)
        B, n = self.raw_gains.shape
        self.raw_costs = (np.full((B, n), np.nan) if costs is None
                          else np.asarray(costs, dtype=np.float64))
        self.total_rels = (np.zeros(B) if total_rels is None
                           else np.asarray(total_rels, dtype=np.float64))
        self.max_gain, self.min_gain = float(max_gain), float(min_gain)
        self.max_cost, self.min_cost = float(max_cost), float(min_cost)
        self.shape = (B, n)
        Memo.__init__(self)

    def case(self, worst: bool) -> _Case:
        return self.cached(("case", worst), lambda: self._case(worst))

    def _case(self, worst: bool) -> _Case:
        unknown_g = np.isnan(self.raw_gains)
        unknown_k = np.isnan(self.raw_costs)
        g = np.where(unknown_g, self.min_gain if worst else self.max_gain, self.raw_gains)
        k = np.where(unknown_k, self.max_cost if worst else self.min_cost, self.raw_costs)
        if worst:
            rels = self.total_rels
        else:   # cwl_eval: max(positive gains in the best-case vector, total_qrel_rels)
            rels = np.maximum(np.count_nonzero(g > 0.0, axis=1).astype(np.float64), self.total_rels)
        return _Case(g, k, rels)


class _Case(Memo):
    """One resolved case: gains g, costs k (B, n) and their running sums (its values shared by
    the metrics are kept with :meth:`Memo.cached`)."""

    def __init__(self, g: np.ndarray, k: np.ndarray, total_rels: np.ndarray):
        Memo.__init__(self)
        self.g, self.k, self.total_rels = g, k, total_rels
        self.B, self.n = g.shape

    @property
    def cg(self) -> np.ndarray:
        return self.cached("cg", lambda: detmath.running_sum(self.g, axis=1))

    @property
    def cc(self) -> np.ndarray:
        return self.cached("cc", lambda: detmath.running_sum(self.k, axis=1))

    def full(self, row: np.ndarray) -> np.ndarray:
        return np.broadcast_to(np.asarray(row, dtype=np.float64), (self.B, self.n))


# --------------------------------------------------------------------------- helpers


def _pow(base, x) -> np.ndarray:
    """``math.pow(base, x)`` elementwise (one of the two an array), through Python floats: the C
    library's ``pow`` as cwl_eval calls it (``math.pow``, ``**``), bit for bit whatever CPU numpy
    was built for -- numpy's own vectorised power is not used (its result varies between SIMD
    builds).  Called on distinct values only (:func:`_on_unique`)."""
    out = np.asarray(detmath.power(base, x), dtype=np.float64)
    # math.pow raises on finite arguments with no finite result (overflow, 0 ** -1, (-2) ** 0.5)
    if not np.isfinite(out).all() and (~np.isfinite(out) & np.isfinite(base) & np.isfinite(x)).any():
        raise CwlValueError("a continuation probability is out of the floating-point range (math "
                            "range error): the metric's parameters are extreme for these gains")
    return out


def _on_unique(x: np.ndarray, f) -> np.ndarray:
    """``f`` (elementwise) on the distinct values of ``x`` only, spread back."""
    if x.size == 0:
        return np.zeros(x.shape)
    if x.ndim == 2 and (x == x[:1]).all():           # e.g. running costs with unit costs
        return np.broadcast_to(_on_unique(x[0], f), x.shape).copy()
    u, inv = np.unique(x, return_inverse=True)
    return np.asarray(f(u), dtype=np.float64)[inv.reshape(-1)].reshape(x.shape)


def _ratio_c(w: np.ndarray) -> np.ndarray:
    """C(i) = W(i+1) / W(i) where W(i) > 0, else 0; C(n) = 0 (cwl_eval's c from a w vector)."""
    c = np.zeros(w.shape)
    head, nxt = w[:, :-1], w[:, 1:]
    np.divide(nxt, head, out=c[:, :-1], where=head > 0.0)
    return c


def _prefix_ones(cond: np.ndarray) -> np.ndarray:
    """1.0 at the ranks before the first rank where ``cond`` fails, else 0.0."""
    return np.logical_and.accumulate(cond, axis=1).astype(np.float64)


def _check_unit(case: _Case, label: str) -> None:
    g = case.g
    if g.size and (g.min() < 0.0 or g.max() > 1.0):
        bad = g.min() if g.min() < 0.0 else g.max()
        side = "minimum" if g.min() < 0.0 else "maximum"
        raise CwlValueError(f"metric {label}: gain {float(bad)} outside [0, 1] (the {side} allowable gain "
                            f"for this metric is {0.0 if side == 'minimum' else 1.0}); with residuals "
                            f"unjudged documents get --max_gain, without them --min_gain")


# --------------------------------------------------------------------------- continuations
# Each returns ("c", C) or ("w", W, C): most measures define C; TBG, U-measure and TrAP define W
# directly (cwl_eval then derives C from W's ratios).


def _c_precision(case, n, k):
    if k < 1 or k - 1 > n:
        raise CwlValueError(f"P@{k}: k must be between 1 and the depth + 1 ({n + 1})")
    row = np.zeros(n)
    row[:k - 1] = 1.0
    return "c", case.full(row)


def _c_rbp(case, n, theta):
    return "c", case.full(np.full(n, 1.0 * theta))


def _c_npv(case, n, rate):
    return "c", case.full(np.full(n, 1.0 / (1.0 + rate)))


def _c_rr(case, n):
    return "c", _prefix_ones(~(case.g > 0))


def _split(starts: np.ndarray, lengths: np.ndarray):
    """numpy's pairwise split of segments longer than 128: halves at a multiple of 8."""
    n2 = lengths // 2
    n2 -= n2 % 8
    return (starts, n2), (starts + n2, lengths - n2)


def _leaves(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Keys ``start * 256 + length`` of the distinct segments of at most 128 elements the pairwise
    sums of the given segments are made of."""
    big = lengths > 128
    keys = [starts[~big] * 256 + lengths[~big]]
    if big.any():
        for s, L in _split(starts[big], lengths[big]):
            keys.append(_leaves(s, L))
    k = np.sort(np.concatenate(keys))
    # the distinct keys (np.unique would import numpy.ma, a tenth of the drop-in's start)
    return k[np.concatenate(([True], k[1:] != k[:-1]))] if len(k) else k


def _pairwise(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(B, S): numpy's pairwise sum (``np.sum`` of one 1-D array) of the segments
    ``a[:, starts[s] : starts[s] + lengths[s]]`` of every row, bit for bit: below 8 elements a
    sequential sum from 0.0; up to 128, eight lanes running over blocks of 8, a fixed tree, the
    remaining elements in sequence; above 128, the two halves (split at a multiple of 8)
    recursively.  The distinct leaves (segments of at most 128) are evaluated together: one pass
    over the (at most 16) blocks keeps the eight lanes' running sums for every start."""
    B, n = a.shape
    keys = _leaves(starts, lengths)
    ls, lL = keys // 256, keys % 256
    K = np.where(lL >= 8, lL // 8, 0)
    pad = np.concatenate([a, np.zeros((B, 137))], axis=1)        # reads past the end give +0.0
    win = np.lib.stride_tricks.sliding_window_view(pad, 8, axis=1)                 # (B, n+130, 8)
    lanes = np.zeros((B, len(keys), 8))
    run = np.array(win[:, :n])                # run[:, s, j] = a[s+j] + a[s+j+8] + ... (in order)
    for k in range(int(K.max(initial=0))):
        if k:
            run += win[:, 8 * k:8 * k + n]
        sel = np.flatnonzero(K == k + 1)
        if len(sel):
            lanes[:, sel] = run[:, ls[sel]]
    r = lanes
    tree = ((r[..., 0] + r[..., 1]) + (r[..., 2] + r[..., 3])) + ((r[..., 4] + r[..., 5]) + (r[..., 6] + r[..., 7]))
    leafval = np.where(K > 0, tree, 0.0)
    rest = lL - 8 * K
    t = np.arange(7)
    idx = np.where(t[None, :] < rest[:, None], ls[:, None] + 8 * K[:, None] + t[None, :], n)
    tail = pad[:, idx]                                            # (B, leaves, 7)
    for j in range(int(rest.max(initial=0))):
        leafval = leafval + tail[:, :, j]

    def combine(st, ln):
        out = np.empty((B, len(st)))
        big = ln > 128
        if big.any():
            (s1, l1), (s2, l2) = _split(st[big], ln[big])
            out[:, big] = combine(s1, l1) + combine(s2, l2)
        small = ~big
        if small.any():
            out[:, small] = leafval[:, np.searchsorted(keys, st[small] * 256 + ln[small])]
        return out

    return combine(starts, lengths)


def _c_ap(case, n):
    rii = case.g / np.arange(1, n + 1, dtype=np.float64)
    starts = np.arange(n)
    suffix = np.empty(case.g.shape)                               # np.sum(rii[i:n]), as cwl_eval
    step = max(1, 100_000 // max(n, 1))
    for b in range(0, case.B, step):                              # blocks of rows bound the memory
        suffix[b:b + step] = _pairwise(rii[b:b + step], starts, n - starts)
    c = np.zeros(case.g.shape)
    top, bot = suffix[:, 1:], suffix[:, :-1]
    np.divide(top, bot, out=c[:, :-1], where=top > 0.0)
    return "c", c


def _c_trap(case, n):
    cg = case.cg.copy()
    lead = np.logical_and.accumulate(cg == 0, axis=1)
    lead[:, -1] = False                                     # cwl_eval stops at the last rank
    cg[lead] = 1.0
    w = cg / case.cc
    rels = case.total_rels[:, None]
    w = np.where(rels > 0, w / np.where(rels > 0, rels, 1.0), w)
    return "w", w, _ratio_c(w)


def _ndcg_table(n, k):
    # math.log(x, 2.0) is log(x) / log(2.0) (CPython's loghelper), as cwl_eval calls it
    i = np.arange(1, n + 1, dtype=np.float64)
    ln2 = math.log(2.0)
    return np.where(i < k, (detmath.log(i + 1) / ln2) / (detmath.log(i + 2) / ln2), 0.0)


def _c_ndcg(case, n, k):
    return "c", case.full(_ndcg_table(n, k))


def _c_inst(case, n, T):
    Ti = T - case.cg
    i1 = np.arange(1, n + 1, dtype=np.float64)                # i + 1.0
    x = (i1 + T + Ti - 1.0) / (i1 + T + Ti)
    return "c", _on_unique(x, lambda u: _pow(u, 2.0))


def _c_insq(case, n, T):
    return "c", case.full([(((i + 1.0) + (2.0 * T) - 1.0) / ((i + 1.0) + (2.0 * T))) ** 2.0
                           for i in range(n)])


def _c_bpm(case, n, T, K):
    return "c", _prefix_ones(case.cg < T) * _prefix_ones(case.cc < K)


def _c_bpmd(case, n, T, K, hb, hc, gain_med):
    steps = np.empty(case.g.shape)
    steps[:, 0] = T
    steps[:, 1:] = hb * (case.g[:, :-1] - gain_med)
    bound = np.cumsum(steps, axis=1)         # T after i updates: T + hb (g_0 - med) + ...
    # cwl_eval 1.0.12 updates T, not K, in its cost loop: the cost bound stays K (and hc unused)
    return "c", _prefix_ones(case.cg < bound) * _prefix_ones(case.cc < K)


def _c_umeasure(case, n, L):
    start = np.zeros(case.g.shape)
    start[:, 1:] = case.cc[:, :-1]
    w = np.maximum(0.0, 1.0 - start / L)
    w[:, -1] = 0.0
    norm = np.cumsum(w[:, :-1], axis=1)[:, -1:] if n > 1 else np.zeros((case.B, 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        w = w / norm
    return "w", w, _ratio_c(w)


def _c_tbg(case, n, halflife):
    x = np.zeros(case.g.shape)
    x[:, 1:] = case.cc[:, :-1]
    h = halflife
    ln2 = math.log(2.0, math.e)                          # noqa: FURB163 - cwl_eval's expression, for its digits
    w = (h * _on_unique(-x / h, lambda u: _pow(2.0, u))) / ln2
    norm = np.cumsum(w, axis=1)[:, -1:]
    w = w / norm
    return "w", w, _ratio_c(w)


def _ift_c1(case, T, b1, R1):
    key = ("ift-c1", T, b1, R1)          # shared with IFT-C1-C2 of the same parameters
    return case.cached(key, lambda: _on_unique((T - case.cg) * R1,
                                               lambda a: 1.0 - _pow(1.0 + b1 * _pow(math.e, a), -1.0)))


def _ift_c2(case, A, b2, R2):
    key = ("ift-c2", A, b2, R2)
    return case.cached(key, lambda: _on_unique((A - (case.cg / case.cc)) * R2,
                                               lambda a: _pow(1.0 + b2 * _pow(math.e, a), -1.0)))


def _c_ift1(case, n, T, b1, R1):
    return "c", _ift_c1(case, T, b1, R1)


def _c_ift2(case, n, A, b2, R2):
    return "c", _ift_c2(case, A, b2, R2)


def _c_ift12(case, n, T, b1, R1, A, b2, R2):
    return "c", _ift_c1(case, T, b1, R1) * _ift_c2(case, A, b2, R2)


def _c_nerr8(case, n, k):
    c = np.zeros(case.g.shape)
    m = max(0, min(n, k - 1))
    c[:, :m] = 1 - case.g[:, :m]
    return "c", c


def _c_nerr9(case, n, k):
    c = np.zeros(case.g.shape)
    m = max(0, min(n, k - 1))
    f = np.array([1.0 * r / (r + 1.0) for r in range(1, m + 1)])
    c[:, :m] = f * (1.0 - case.g[:, :m])
    return "c", c


def _c_nerr10(case, n, phi):
    return "c", phi * (1 - case.g)


def _c_nerr11(case, n, T):
    f = np.array([((r + (2.0 * T) - 1.0) / (r + (2.0 * T))) ** 2.0 for r in range(1, n + 1)])
    return "c", f * (1.0 - case.g)


def _c_set(case, n, beta, k):
    def weight(i):
        return math.pow(i + 1, beta) - math.pow(i, beta)
    return "c", case.full([weight(i + 1) / weight(i) if i < k else 0.0 for i in range(1, n + 1)])


# --------------------------------------------------------------------------- the table of measures


@dataclass(frozen=True)
class CwlSpec:
    """One cwl_eval metric class: its class name (metrics-file syntax), the registry base name,
    its positional parameters with cwl_eval's defaults (``None``: required), the name cwl_eval
    prints, the continuation function, and whether it requires gains in [0, 1]."""
    cls: str
    base: str
    params: tuple[str, ...]
    defaults: tuple
    label: str                      # str.format template over the parameters by name
    func: Callable
    unit_gains: bool = False
    cutoff: str | None = None       # the parameter written as the registry's @cutoff
    paper: str = ""

    def name(self, values: dict) -> str:
        return self.label.format(**values)


_P = "Moffat, Bailey, Scholer & Thomas (2017)"
SPECS: tuple[CwlSpec, ...] = (
    CwlSpec("PrecisionCWLMetric", "P", ("k",), (10,), "P@{k}", _c_precision, cutoff="k",
            paper="van Rijsbergen (1979)"),
    CwlSpec("RBPCWLMetric", "RBP", ("theta",), (0.9,), "RBP@{theta}", _c_rbp, paper="Moffat & Zobel (2008)"),
    CwlSpec("NDCGCWLMetric", "NDCG", ("k",), (None,), "NDCG-k@{k}", _c_ndcg, cutoff="k",
            paper="Jarvelin & Kekalainen (2002)"),
    CwlSpec("RRCWLMetric", "RR", (), (), "RR", _c_rr, paper="Kantor & Voorhees (2000)"),
    CwlSpec("APCWLMetric", "AP", (), (), "AP", _c_ap, paper="Harman (1992)"),
    CwlSpec("TrAPCWLMetric", "TrAP", (), (), "TrAP", _c_trap, paper="Harman (1992)"),
    CwlSpec("INSTCWLMetric", "INST", ("T",), (1.0,), "INST-T={T}", _c_inst, unit_gains=True,
            paper="Moffat, Bailey, Scholer & Thomas (2015)"),
    CwlSpec("INSQCWLMetric", "INSQ", ("T",), (1.0,), "INSQ-T={T}", _c_insq,
            paper="Moffat, Scholer & Thomas (2012)"),
    CwlSpec("BPMCWLMetric", "BPM-Static", ("T", "K"), (1.0, 10), "BPM-Static-T={T}-K={K}", _c_bpm,
            paper="Zhang et al. (2017)"),
    CwlSpec("BPMDCWLMetric", "BPM-Dynamic", ("T", "K", "hb", "hc", "gain_med"), (1, 10, 1.0, 1.0, 0.5),
            "BPM-Dynamic-T={T}-K={K}-hb={hb}-hc={hc}", _c_bpmd, paper="Zhang et al. (2017)"),
    CwlSpec("UMeasureCWLMetric", "U-measure", ("L",), (1000,), "U-L@{L} ", _c_umeasure,
            paper="Sakai & Dou (2013)"),
    CwlSpec("TBGCWLMetric", "TBG", ("halflife",), (224,), "TBG-H@{halflife} ", _c_tbg,
            paper="Smucker & Clarke (2012)"),
    CwlSpec("IFTGoalCWLMetric", "IFT-C1", ("T", "b1", "R1"), (None, None, None),
            "IFT-C1-T={T}-b1={b1}-R1={R1}", _c_ift1, paper="Azzopardi, Thomas & Craswell (2018)"),
    CwlSpec("IFTRateCWLMetric", "IFT-C2", ("A", "b2", "R2"), (None, None, None),
            "IFT-C2-A={A}-b2={b2}-R2={R2}", _c_ift2, paper="Azzopardi, Thomas & Craswell (2018)"),
    CwlSpec("IFTGoalRateCWLMetric", "IFT-C1-C2", ("T", "b1", "R1", "A", "b2", "R2"), (None,) * 6,
            "IFT-C1-C2-T={T}-b1={b1}-R1={R1}-A={A}-b2={b2}-R2={R2}", _c_ift12,
            paper="Azzopardi, Thomas & Craswell (2018)"),
    CwlSpec("NERReq8CWLMetric", "NERR8", ("k",), (None,), "NERR-EQ8@k={k}", _c_nerr8, unit_gains=True,
            cutoff="k", paper="Azzopardi, Mackenzie & Moffat (2021)"),
    CwlSpec("NERReq9CWLMetric", "NERR9", ("k",), (None,), "NERR-EQ9@k={k}", _c_nerr9, unit_gains=True,
            cutoff="k", paper="Azzopardi, Mackenzie & Moffat (2021)"),
    CwlSpec("NERReq10CWLMetric", "NERR10", ("phi",), (0.9,), "NERR-EQ10@phi={phi}", _c_nerr10,
            unit_gains=True, paper="Azzopardi, Mackenzie & Moffat (2021)"),
    CwlSpec("NERReq11CWLMetric", "NERR11", ("T",), (1.0,), "NERR-EQ11@T={T}", _c_nerr11, unit_gains=True,
            paper="Azzopardi, Mackenzie & Moffat (2021)"),
    CwlSpec("NPVCWLMetric", "NPV", ("rate",), (0.1,), "NPV-r@{rate}", _c_npv,
            paper="Azzopardi, Thomas & Moffat (2019)"),
    CwlSpec("SETCWLMetric", "SET", ("beta", "k"), (0.5, 10), "SET-k@{k}-b@{beta}", _c_set,
            paper="Azzopardi (2014)"),
)
BY_CLASS = {s.cls: s for s in SPECS}
BY_BASE = {s.base: s for s in SPECS}


@dataclass(frozen=True)
class CwlMetric:
    """A cwl_eval metric instance: its spec and parameter values (as cwl_eval holds them: ints
    stay ints, which shows in the printed name)."""
    spec: CwlSpec
    values: tuple

    @property
    def kw(self) -> dict:
        return dict(zip(self.spec.params, self.values))

    @property
    def name(self) -> str:
        return self.spec.name(self.kw)

    @classmethod
    def make(cls, class_name: str, *args) -> CwlMetric:
        spec = BY_CLASS[class_name]
        if len(args) > len(spec.params):
            raise TypeError(f"{class_name} takes at most {len(spec.params)} parameters "
                            f"({', '.join(spec.params) or 'none'}), {len(args)} given")
        values = list(args) + list(spec.defaults[len(args):])
        missing = [p for p, v in zip(spec.params, values) if v is None]
        if missing:
            raise TypeError(f"{class_name} needs the parameter(s) {', '.join(missing)}")
        return cls(spec, tuple(values))


#: cwl_eval's metric set when no metrics file is given (CWLRuler's defaults), in its order
DEFAULT_METRICS: tuple[CwlMetric, ...] = tuple(
    CwlMetric.make(c, *a) for c, a in (
        ("PrecisionCWLMetric", (1,)), ("PrecisionCWLMetric", (2,)), ("PrecisionCWLMetric", (3,)),
        ("PrecisionCWLMetric", (4,)), ("PrecisionCWLMetric", (5,)), ("PrecisionCWLMetric", (10,)),
        ("RBPCWLMetric", (0.2,)), ("RBPCWLMetric", (0.4,)), ("RBPCWLMetric", (0.8,)),
        ("NDCGCWLMetric", (5,)), ("NDCGCWLMetric", (10,)), ("RRCWLMetric", ()), ("APCWLMetric", ()),
        ("INSTCWLMetric", (1.0,)), ("INSTCWLMetric", (2.0,)), ("INSTCWLMetric", (3.0,))))


# --------------------------------------------------------------------------- scoring


def _weights(case: _Case, metric: CwlMetric) -> tuple[np.ndarray, np.ndarray]:
    """(W, L), each (B, n), for one case: the weights and the last-item probabilities (cwl_eval's
    ``w_vector`` and ``l_vector``)."""
    if metric.spec.unit_gains:
        _check_unit(case, metric.name)
    out = metric.spec.func(case, case.n, *metric.values)
    c = np.ascontiguousarray(out[-1], dtype=np.float64)
    B, n = case.B, case.n
    P = np.empty((B, n))
    P[:, 0] = 1.0
    np.cumprod(c[:, :-1], axis=1, out=P[:, 1:])               # P(i) = C(1) ... C(i-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if out[0] == "w":
            w = np.asarray(out[1], dtype=np.float64)
        else:
            w1 = 1.0 / np.add.reduce(P, axis=1)              # np.sum's pairwise order
            w = P * w1[:, None]
            w[:, 0] = w1
        L = P * (1.0 - c)
    return w, L


def cwl_scores_many(rankings: CwlRankings, metrics, residuals: bool = False,
                    printed: bool = False) -> list[dict[str, np.ndarray]]:
    """:func:`cwl_scores` for several metrics.  ``printed``: only the digits cwl_eval prints
    (``{:.4f}``) are guaranteed to be those of the exact computation (fast path for the drop-in:
    see :func:`metaeval.cwl.dot.dots_printed`); otherwise every value is computed in
    cwl_eval's exact order."""
    return [rankings.cached(("scores", m, residuals, printed),
                            functools.partial(_scores, rankings, m, residuals, printed)) for m in metrics]


def _scores(rankings: CwlRankings, m: CwlMetric, residuals: bool, printed: bool) -> dict[str, np.ndarray]:
    cases = [rankings.case(True)] + ([rankings.case(False)] if residuals else [])
    pairs_by_case, eds, wls = [], [], []
    for case in cases:
        w, L = _weights(case, m)
        wls.append((w, L))
        pairs_by_case.append([(w, case.g), (L, case.cg), (w, case.k), (L, case.cc)])
        with np.errstate(divide="ignore"):
            eds.append(1.0 / w[:, 0])
    if printed:
        per_case = cwl_dot.dots_printed(cases, wls)
    else:
        flat = cwl_dot.dots([pr for prs in pairs_by_case for pr in prs])
        per_case = [flat[4 * j:4 * j + 4] for j in range(len(cases))]
    per_case = [v + [ed] for v, ed in zip(per_case, eds)]
    out = dict(zip(QUANTITIES[:5], per_case[0]))
    if residuals:
        with np.errstate(invalid="ignore"):
            out.update({q: b - a for q, a, b in zip(QUANTITIES[5:], per_case[0], per_case[1])})
    return out


def cwl_scores(rankings: CwlRankings, metric: CwlMetric, residuals: bool = False) -> dict[str, np.ndarray]:
    """``{quantity: (B,) array}`` for one metric on every ranking: EU..ED, and with ``residuals``
    ResEU..ResED (best case minus worst case).  Raises :class:`CwlValueError` when the metric
    refuses the gains (as cwl_eval does)."""
    return cwl_scores_many(rankings, [metric], residuals)[0]
