"""The trec_eval family: every measure of trec_eval 10.0's ``all_trec`` set, exact to trec_eval.

Each measure follows its ``m_*.c`` file of trec_eval 10.0 operation for operation (the same double
divisions, sums in the same order: ``np.cumsum`` along the rank axis, never a pairwise sum), on
trec_eval's rankings as arrays (:class:`metaeval.io.treceval.TrecRanking`): ``rel`` (..., T, D) with
levels >= 0, -1 (not in the qrels), -2 (negative judgment), ``PAD_REL`` past ``num_ret``.  Logarithms
go through C's ``log2``/``log`` (Python's :mod:`math`), never numpy's vectorised ones.

The engine works on a compressed view (:meth:`_Ctx.buckets`): one row per run and topic holding
only its *entries*, the ranks below ``num_ret`` with a document other than a NONPOOL one (level
-1), in rank order, with their rank and level.  A NONPOOL rank contributes an exact 0.0 term to
every sequential sum (and nothing to any count but the unjudged ones, which are the ranks that are
not entries), so a running sum over the entries equals trec_eval's over all ranks at the entries'
ranks, bit for bit; a measure's value at a rank cutoff is the running value at the last entry
above it.  Rows are grouped in buckets of similar entry counts, padded to the widest row of each,
and every measure is computed bucket by bucket.  Two exceptions: ``rbp_resid``'s sum over the
unjudged ranks is one dense pass over the input (as deep as a term can still change the sum), and
when a NONPOOL rank can count (``-l`` <= -1, or a gain map that gives level -1 a gain, rbp's
normalised gains included) the view keeps every rank below ``num_ret`` -- the same code, as slow
as the dense computation.

:data:`MEASURES` lists trec_eval's measures in its printing order (``measures.c``); :func:`compute`
returns ``[(printed name, values (..., T))]`` for a list of :class:`Spec`; :func:`summary` gives the
"all" value (``meas_avg.c``: mean, sum, geometric mean with the ``MIN_GEO_MEAN`` floor).  The
measures are also in the registry under ``trec.NAME`` (:func:`_register`).
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np

from ..collection import PAD as _PAD

__all__ = ["MEASURES", "NICKNAMES", "Spec", "make_spec", "compute", "summary", "MIN_GEO_MEAN",
           "MeasureInfo", "TrecEvalError"]

MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001
MISSING_ZSCORE_VALUE = -1000000.0
#: trec_eval.c sets these to 0 on a topic evaluated as an empty ranking (-c: a topic missing from
#: the run), after computing them
EMPTY_ZEROED = ("num_ret", "utility", "rbp_resid", "unj")


class TrecEvalError(ValueError):
    """A measure request trec_eval refuses (message = trec_eval's reason)."""


@dataclass(frozen=True)
class MeasureInfo:
    name: str
    kind: str            # "s" plain, "cut_long", "cut_double", "p_double", "p_pair"
    printing: str        # "double", "long", "none" (summary only), "relstring", "runid"
    aggregate: str       # "mean", "sum", "gm", "num_q", "num_rel", "none", "runid"
    default: tuple = ()


_LONG9 = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_ELEVEN = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

MEASURES: dict[str, MeasureInfo] = {m.name: m for m in [
    MeasureInfo("runid", "s", "runid", "runid"),
    MeasureInfo("num_q", "s", "none", "num_q"),
    MeasureInfo("num_ret", "s", "long", "sum"),
    MeasureInfo("num_rel", "s", "long", "num_rel"),
    MeasureInfo("num_rel_ret", "s", "long", "sum"),
    MeasureInfo("map", "s", "double", "mean"),
    MeasureInfo("gm_map", "s", "none", "gm"),
    MeasureInfo("Rprec", "s", "double", "mean"),
    MeasureInfo("bpref", "s", "double", "mean"),
    MeasureInfo("recip_rank", "s", "double", "mean"),
    MeasureInfo("iprec_at_recall", "cut_double", "double", "mean", _ELEVEN),
    MeasureInfo("P", "cut_long", "double", "mean", _LONG9),
    MeasureInfo("relstring", "p_double", "relstring", "none", (10.0,)),
    MeasureInfo("recall", "cut_long", "double", "mean", _LONG9),
    MeasureInfo("infAP", "s", "double", "mean"),
    MeasureInfo("gm_bpref", "s", "none", "gm"),
    MeasureInfo("Rprec_mult", "cut_double", "double", "mean", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    MeasureInfo("utility", "p_double", "double", "mean", (1.0, -1.0, 0.0, 0.0)),
    MeasureInfo("11pt_avg", "p_double", "double", "mean", _ELEVEN),
    MeasureInfo("binG", "s", "double", "mean"),
    MeasureInfo("G", "p_pair", "double", "mean"),
    MeasureInfo("dcg", "p_pair", "double", "mean"),
    MeasureInfo("ideal_dcg", "p_pair", "double", "mean"),
    MeasureInfo("ndcg", "p_pair", "double", "mean"),
    MeasureInfo("ndcg_rel", "p_pair", "double", "mean"),
    MeasureInfo("Rndcg", "p_pair", "double", "mean"),
    MeasureInfo("ndcg_cut", "cut_long", "double", "mean", _LONG9),
    MeasureInfo("map_cut", "cut_long", "double", "mean", _LONG9),
    MeasureInfo("relative_P", "cut_long", "double", "mean", _LONG9),
    MeasureInfo("success", "cut_long", "double", "mean", (1, 5, 10)),
    MeasureInfo("set_P", "s", "double", "mean"),
    MeasureInfo("set_relative_P", "s", "double", "mean"),
    MeasureInfo("set_recall", "s", "double", "mean"),
    MeasureInfo("set_map", "s", "double", "mean"),
    MeasureInfo("set_F", "p_double", "double", "mean", (1.0,)),
    MeasureInfo("num_nonrel_judged_ret", "s", "long", "sum"),
    MeasureInfo("rbp", "p_pair", "double", "mean"),
    MeasureInfo("rbp_resid", "p_pair", "double", "mean"),
    MeasureInfo("unj", "cut_long", "double", "mean", (5, 10, 20)),
]}

NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
                 "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
                 "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
}
PREFERENCE_SETS = ("all_prefs", "prefs", "qrels_jg")


@dataclass(frozen=True)
class Spec:
    """One requested measure with its parameters: ``values`` (cutoffs or numbers), ``pairs``
    (``name=value`` gain/parameter pairs), ``printable`` (the parameter text, or None)."""
    name: str
    values: tuple = ()
    pairs: tuple = ()
    printable: str | None = None

    @property
    def info(self) -> MeasureInfo:
        return MEASURES[self.name]

    def names(self) -> list[str]:
        """The printed names of the values (``meas_init.c``: ``append_long`` / ``append_double`` /
        ``append_string``)."""
        k = self.info.kind
        if k == "cut_long":
            return [f"{self.name}_{int(c)}" for c in self.values]
        if k == "cut_double":
            return [f"{self.name}_{c:3.2f}" for c in self.values]
        if k in ("p_double", "p_pair") and self.printable is not None:
            return [f"{self.name}_{self.printable}"]
        return [self.name]


def _atol(s: str) -> int:
    from ..cnum import c_atol
    return c_atol(s.encode())


def _atof(s: str) -> float:
    from ..cnum import c_atof
    return c_atof(s.encode())


def make_spec(name: str, params: str | None = None) -> Spec:
    """A :class:`Spec` from trec_eval's ``-m name.params`` (``meas_init.c``'s parsers); refusals
    raise :class:`TrecEvalError` with trec_eval's reason."""
    info = MEASURES[name]
    if params is None:
        if info.kind == "p_pair":
            return Spec(name)
        return Spec(name, tuple(info.default))
    if params == "":
        raise TrecEvalError(f"improper measure in parameter '{name}'")
    k = info.kind
    if k == "cut_long":
        cuts = sorted(_atol(p) for p in params.split(","))
        if cuts[0] <= 0:
            raise TrecEvalError(f"Negative cutoff detected (measure '{name}')")
        if len(set(cuts)) != len(cuts):
            raise TrecEvalError(f"duplicate cutoffs detected (measure '{name}')")
        return Spec(name, tuple(cuts), (), params)
    if k == "cut_double":
        cuts = sorted(_atof(p) for p in params.split(","))
        if len(set(cuts)) != len(cuts):
            raise TrecEvalError(f"duplicate cutoffs detected (measure '{name}')")
        return Spec(name, tuple(cuts), (), params)
    if k == "p_double":
        vals = tuple(_atof(p) for p in params.split(","))
        if name == "utility" and len(vals) != 4:
            raise TrecEvalError("improper number of coefficients (measure 'utility' takes 4)")
        return Spec(name, vals, (), params)
    # p_pair: name=value,name=value (get_param_pairs)
    last, ok = ",", True
    for ch in params:
        if ch == ",":
            if last == ",":
                ok = False
                break
            last = ","
        elif ch == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if not ok or last != "=":
        raise TrecEvalError(f"malformed pair parameters in '{params}'")
    pairs = []
    for item in params.split(","):
        k2, _, v = item.partition("=")
        pairs.append((k2, _atof(v)))
    return Spec(name, (), tuple(pairs), params)


# ------------------------------------------------------------------------------------ helpers
_DISC: list[float] = []


def _disc(n: int) -> np.ndarray:
    """``log2(i + 2)`` for i < n, by C's log2."""
    while len(_DISC) < n:
        _DISC.append(math.log2(len(_DISC) + 2))
    return np.array(_DISC[:n], np.float64)


_LOG2_INT = [np.zeros(0)]         # math.log2(i) for the integers i below its length


def _clog2(x: np.ndarray) -> np.ndarray:
    """C's log2 of each value: integral values in [1, 2^16) from a table of math.log2, the others
    one by one (the same function: the same bits)."""
    x = np.asarray(x, np.float64)
    with np.errstate(invalid="ignore"):
        small = (x >= 1.0) & (x < 65536.0) & (x == np.floor(x))
    out = np.empty(x.shape)
    if small.any():
        xi = x[small].astype(np.int64)
        top = int(xi.max()) + 1
        if len(_LOG2_INT[0]) < top:
            n = max(top, 2 * len(_LOG2_INT[0]))
            _LOG2_INT[0] = np.array([0.0] + [math.log2(float(i)) for i in range(1, min(n, 65536))])
        out[small] = _LOG2_INT[0][xi]
    rest = ~small
    if rest.any():
        out[rest] = np.fromiter(map(math.log2, x[rest].tolist()), np.float64, int(rest.sum()))
    return out


def _clog(x: np.ndarray) -> np.ndarray:
    return np.fromiter(map(math.log, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)


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


def _take_last(a: np.ndarray, idx: np.ndarray, fill=0.0) -> np.ndarray:
    """``a[..., idx]`` per leading position; ``fill`` where idx < 0."""
    ii = np.maximum(idx, 0)
    if a.ndim == 2 and ii.ndim == 1:
        v = a[np.arange(a.shape[0]), ii]
    else:
        v = np.take_along_axis(a, np.broadcast_to(ii, a.shape[:-1])[..., None], axis=-1)[..., 0]
    return np.where(idx >= 0, v, fill)


# ------------------------------------------------------------------------------------ engine
PAD_REL = -(2 ** 30)
_GAINED = ("G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "rbp", "ndcg_cut")
#: the Python work of one bucket's pass over the measures, in entries of its (rows, width) arrays
#: (it decides how finely :meth:`_Ctx.buckets` splits the rows; any split gives the same values)
_BUCKET_COST = 20000
_CHUNK = 1 << 18           # rbp_resid's dense pass: blocks of about this many ranks


class _Cached:
    """Values computed once, on demand: ``cached(key, fn)`` is ``fn()`` the first time."""

    def cached(self, key, fn):
        if key not in self._c:
            self._c[key] = fn()
        return self._c[key]


class _Ctx(_Cached):
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
        self._c = {}

    # --- the compressed view
    def needs_all(self, specs) -> bool:
        """Whether a rank outside the qrels (level -1) can change a value: ``-l`` <= -1, or a gain
        map giving level -1 a gain (rbp's normalised gains included).  Then the view keeps every
        rank (the exotic case, exact but as slow as a dense pass)."""
        if self.rl <= -1:
            return True
        for sp in specs:
            if sp.name in _GAINED:
                pairs = () if sp.name == "ndcg_cut" else sp.pairs
                tab, lo = self.rbp_table(pairs) if sp.name == "rbp" else self.gains(pairs)[:2]
                if (tab[:, -1 - lo] != 0).any():
                    return True
        return False

    def buckets(self, every: bool) -> list["_Rows"]:
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

    # --- per topic: gains (gain_init.c), ideal lists
    def _gain_lists(self, pairs):
        """Per distinct ``num_rel_levels`` value: setup_gains' list ``[(level, gain, counted)]``
        sorted as glibc's qsort (a stable merge sort) sorts it with comp_rel_gain's
        ``(int)(gain1 - gain2)``."""
        key = ("lists", pairs)
        if key not in self._c:
            T, H1 = self.rel_levels.shape
            nrl = np.where(self.rel_levels > 0, np.arange(H1) + 1, 0).max(1) if H1 else np.zeros(T, int)
            plist = [(_atol(n), float(v)) for n, v in pairs if _valid_int(n)]
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
            self._c[key] = (nrl, lists)
        return self._c[key]

    def gains(self, pairs):
        """``(table (T, span), lo, gain_list_min, gain_list_max)``: get_gain of level ``lo + j``
        for each topic, and per topic the min / max over its gain list."""
        key = ("gains", pairs)
        if key in self._c:
            return self._c[key]
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
        out = (tab, lo, gmin, gmax, None)
        self._c[key] = out
        return out

    def ideal(self, pairs):
        """``(ig (T, L), L (T,))``: the ideal gains in order (ndcg's second loop), per topic."""
        key = ("ideal", pairs)
        if key in self._c:
            return self._c[key]
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
        out = (ig, Ls)
        self._c[key] = out
        return out


    def idcg(self, pairs):
        """The ideal dcg's running sum (T, Lm)."""
        def f():
            ig, L = self.ideal(pairs)
            disc = _disc(ig.shape[1])
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
            return np.cumsum(np.where(ig > 0, ig / _disc(Lm), 0.0), axis=-1), L
        return self.cached("ndcg_cut_ideal", f)

    def rbp_resid(self, p):
        """m_rbp_resid.c's sum of p^i over the unjudged ranks (levels < 0): the one dense pass,
        over the flattened rows in blocks, (M,)."""
        def f():
            D, M = self.D, self.M
            pw = _powers(p, D)
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
                s = _take_last(np.cumsum(np.where(un[:, :K], pw[:K], 0.0), axis=-1), np.minimum(nret, K) - 1, 0.0)
                cur = pw[np.minimum(nret, D)]
                out[a:a + step] = np.where(has, cur + (1 - p) * s, 0.0)
            return out
        return self.cached(("rbp_resid", p), f)


def _persistence(pairs) -> float:
    """rbp's and rbp_resid's ``p`` (the last ``p=`` given; 0.9 without one)."""
    p = 0.9
    for k, v in pairs:
        if k == "p":
            p = float(v)
    return p


def _powers(p: float, n: int) -> np.ndarray:
    """p^i for i <= n, as sequential products."""
    return np.multiply.accumulate(np.r_[1.0, np.full(n, p)])


def _partition(cnt: np.ndarray) -> list[np.ndarray]:
    """The rows (indices) of each bucket: rows of similar entry counts together, the split that
    minimises the padded size plus ``_BUCKET_COST`` per bucket (rows in index order in each)."""
    M = len(cnt)
    if M == 0:
        return [np.zeros(0, np.int64)]
    order = np.argsort(cnt, kind="stable")
    sc = cnt[order]
    top = max(1, int(sc[-1]))
    grid = sorted({1, top} | {int(math.ceil(1.25 ** i)) for i in range(1, 200) if 1.25 ** i < top})
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


class _Rows(_Cached):
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
        self._c = {}

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
            disc = _disc(self.D + 1)
            return g, np.cumsum(np.where(g != 0, g / disc[self.pos], 0.0), axis=-1)
        return self.cached(("dcg", pairs), f)


# ------------------------------------------------------------------------------------ measures
def _iprec_values(b: _Rows, cut_rel: list[np.ndarray]) -> list[np.ndarray]:
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
    out = [None] * n
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


def _rel_cutoffs(b: _Rows, percents, mode):
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
    return _clog(np.maximum(x, MIN_GEO_MEAN))


def _judged(b: _Rows):
    """The judged nonrelevant and the judged relevant entries (bpref, infAP)."""
    def f():
        judged = b.ent & (b.lev >= 0)
        return judged & (b.lev < b.rl), judged & (b.lev >= b.rl)
    return b.cached("judged", f)


def _bpref(b: _Rows):
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


def _infap(b: _Rows):
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


def _ndcg_cut(b: _Rows, cutoffs):
    # the gain of a document is its level (> 0): the default gains' running dcg (dcg_terms(()),
    # shared with G, ndcg, ndcg_rel, Rndcg: get_gain of level l is l, 0 for the negative levels)
    cs = b.dcg_terms(())[1]
    ics, L = b.top.default_ideal_cum()
    out = []
    for c in cutoffs:
        d = b.at(cs, int(c), 0.0)
        idc = _take_last(ics, np.minimum(c, L) - 1, 0.0)[b.t]
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where(idc > 0.0, d / np.where(idc > 0, idc, 1.0), d))
    return out


def _gain_measures(b: _Rows, name, pairs):
    top = b.top
    if name == "rbp":
        p = _persistence(pairs)
        tabn, lo = top.rbp_table(pairs)
        gg = b.result_gains(tabn, lo)
        pw = _powers(p, b.D)
        s = np.cumsum(np.where(gg != 0, gg * pw[b.pos], 0.0), axis=-1)[..., -1]
        return (1.0 - p) * s
    g, cdcg = b.dcg_terms(pairs)
    ig, L = top.ideal(pairs)
    icum = top.idcg(pairs)
    dcg = cdcg[:, -1]                                    # every entry is at a rank < num_ret
    idcg = _take_last(icum, L - 1, 0.0)[b.t]
    Lb = L[b.t]
    if name == "dcg":
        return dcg
    if name == "ideal_dcg":
        return idcg
    if name == "ndcg":
        return np.where(idcg > 0.0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
    if name == "ndcg_rel":
        # ideal dcg at rank i: its prefix through min(i, L-1)
        iat = icum[b.t[:, None], np.minimum(b.pos, np.maximum(Lb - 1, 0)[:, None])]
        iat = np.where((Lb > 0)[:, None], iat, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            terms = np.where(g > 0, cdcg / iat, 0.0)
            s = np.cumsum(terms, axis=-1)[..., -1]
            nrg = (g > 0).sum(-1)
            s = s + ((Lb - nrg).astype(np.float64) * dcg) / idcg
            return np.where(s > 0.0, s / Lb, 0.0)
    if name == "Rndcg":
        bq, ibq, mask = top.rndcg_bounds(pairs)
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
        return np.where(b.R == 0, 0.0, val)
    if name == "G":
        sum_cost = top.g_cost(pairs)
        sum_res = np.cumsum(g, axis=-1)
        nz = np.nonzero(g)                          # only the ranks with a gain contribute
        arg = (2 + sum_cost[b.t[nz[0]], b.pos[nz]]) - sum_res[nz]
        terms = np.zeros(g.shape)
        terms[nz] = g[nz] / _clog2(arg)
        rg = np.cumsum(terms, axis=-1)[..., -1]
        si = np.cumsum(np.where(ig > 0, ig, 0.0), axis=-1)[:, -1][b.t]
        return np.where(si > 0.0, rg / np.where(si > 0, si, 1.0), 0.0)
    raise KeyError(name)


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
                vals = _values(b, sp)
                assert len(vals) == len(nm)
                for o, v in zip(out, vals):
                    o[b.idx] = v
    return [(n, sp, o.reshape(ctx.shape)) for sp, nm, out in zip(specs, names, outs) for n, o in zip(nm, out)]


def _values(b: _Rows, sp: Spec) -> list:
    """The values of one measure on one bucket's rows, (m,) each."""
    n = sp.name
    nret, nrr, R = b.nret, b.nrr, b.R
    f = np.float64
    if n == "runid":
        return [np.zeros(nret.shape)]
    if n == "num_q":
        return [np.ones(nret.shape)]
    if n == "num_ret":
        return [nret.astype(f)]
    if n == "num_rel":
        return [R.astype(f)]
    if n == "num_rel_ret":
        return [nrr.astype(f)]
    if n in ("map", "gm_map"):
        s = b.ap_terms[:, -1]
        cnt = b.cum[:, -1]
        ap = np.where(cnt > 0, s / R, 0.0)
        return [ap if n == "map" else _m_gm(ap)]
    if n == "Rprec":
        m = np.minimum(nret, R)
        return [np.where(m > 0, b.at(b.cum, m, 0) / R, 0.0)]
    if n in ("bpref", "gm_bpref"):
        v = b.cached("bpref", lambda: _bpref(b))         # bpref and gm_bpref share it
        return [v if n == "bpref" else _m_gm(v)]
    if n == "recip_rank":
        first = np.argmax(b.isrel, axis=-1)
        return [np.where(b.isrel.any(-1), 1.0 / (b.pos[b.rows, first] + 1.0), 0.0)]
    if n in ("iprec_at_recall", "11pt_avg"):
        mode = "trunc" if b.top.v9 else "round"
        v = b.cached(("iprec", tuple(sp.values)),       # iprec_at_recall and 11pt_avg share it
                     lambda: _iprec_values(b, _rel_cutoffs(b, sp.values, mode)))
        if n == "iprec_at_recall":
            return v
        if not sp.values:
            raise TrecEvalError("11pt_avg: No cutoff values")
        s = np.zeros(nret.shape)
        for x in v[::-1]:
            s = s + x
        return [s / float(len(sp.values))]
    if n == "P":
        return [b.count_at(c) / float(c) for c in sp.values]
    if n == "relstring":
        return [np.zeros(nret.shape)]
    if n == "recall":
        return [np.where(R > 0, b.count_at(c) / R, 0.0) for c in sp.values]
    if n == "infAP":
        return [_infap(b)]
    if n == "Rprec_mult":
        vals = []
        for c in _rel_cutoffs(b, sp.values, "trunc"):
            cnt = b.at(b.cum, np.minimum(c, nret), 0)
            vals.append(np.where(c > nret, nrr / c.astype(f), np.where(c > 0, cnt / c.astype(f), 0.0)))
        return vals
    if n == "utility":
        a, bb, c, d = sp.values
        return [a * nrr + bb * (nret - nrr) + c * (R - nrr) + d * (b.top.N + nrr - nret - R)]
    if n == "binG":
        disc = _disc(b.D + 1)
        idx = b.pos - b.cum + 1
        t = np.where(b.isrel, 1.0 / disc[np.clip(idx, 0, b.D)], 0.0)
        s = np.cumsum(t, axis=-1)[..., -1]
        return [np.where(b.cum[:, -1] > 0, s / R, 0.0)]
    if n in ("G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "rbp"):
        return [_gain_measures(b, n, sp.pairs)]
    if n == "rbp_resid":
        p = _persistence(sp.pairs)
        return [b.top.rbp_resid(p)[b.idx]]
    if n == "ndcg_cut":
        return _ndcg_cut(b, sp.values)
    if n == "map_cut":
        return [np.where(R > 0, b.ap_sum_at(c) / R, 0.0) for c in sp.values]
    if n == "relative_P":
        return [np.where(R > 0, b.count_at(c) / np.minimum(c, R).astype(f), 0.0) for c in sp.values]
    if n == "success":
        return [(b.count_at(c) > 0).astype(f) for c in sp.values]
    if n == "set_P":
        return [np.where(nret > 0, nrr / nret.astype(f), 0.0)]
    if n == "set_relative_P":
        return [np.where((nret > 0) & (R > 0), nrr / np.minimum(nret, R).astype(f), 0.0)]
    if n == "set_recall":
        return [np.where(R > 0, nrr / R.astype(f), 0.0)]
    if n == "set_map":
        return [np.where((nret > 0) & (R > 0), (nrr.astype(f) * nrr.astype(f)) /
                         (nret.astype(f) * R.astype(f)), 0.0)]
    if n == "set_F":
        x = sp.values[0]
        P = nrr / nret.astype(f)
        Rc = nrr / R.astype(f)
        return [np.where(nrr > 0, (x + 1.0) * P * Rc / (x * P + Rc), 0.0)]
    if n == "num_nonrel_judged_ret":
        judged = (b.ent & (b.lev >= 0)).sum(-1)
        return [(judged - nrr).astype(f)]
    if n == "unj":
        # unjudged (-1, -2) in the first n ranks: n less the other entries there (a rank that is
        # not an entry is a NONPOOL one)
        other = b.cached("other", lambda: np.cumsum(b.ent & (b.lev != -1) & (b.lev != -2), axis=-1))
        out = []
        for c in sp.values:
            m = np.minimum(c, nret)
            u = np.where(m > 0, m - b.at(other, int(c), 0), 0)
            out.append(u / float(c))
        return out
    raise KeyError(n)


def summary(values: np.ndarray, aggregate: str, num_q: int, complete_extra: int = 0,
            total: float | None = None) -> float:
    """The "all" value of one measure from its per-topic values (1-D, trec_eval's topic order),
    as meas_avg.c computes it: sequential sum, then mean / geometric mean / sum.  ``total``: that
    sequential sum when the caller has it already (:func:`totals`)."""
    s = total if total is not None else float(np.cumsum(values)[-1]) if len(values) else 0.0
    if aggregate == "sum":
        return s
    if aggregate == "mean":
        return s / num_q if num_q else s
    if aggregate == "gm":
        if num_q <= 0:
            return s
        if complete_extra:
            s += complete_extra * math.log(MIN_GEO_MEAN)
        return math.exp(s / num_q)
    if aggregate == "num_q":
        return float(num_q)
    raise KeyError(aggregate)


def totals(values: np.ndarray) -> np.ndarray:
    """The sequential sums over the topics (last axis) of (..., T) values, as :func:`summary`
    adds one ranking's: the ``total`` of every run at once."""
    v = np.asarray(values, np.float64)
    return np.cumsum(v, axis=-1)[..., -1] if v.shape[-1] else np.zeros(v.shape[:-1])


# ------------------------------------------------------------------------------------ registry
def aggregate(base: str, values: np.ndarray) -> np.ndarray:
    """The summary ("all" line) of a ``trec.*`` measure from its (runs, topics) values, over the
    topics given: the mean; the sum for the counts; for ``trec.gm_map`` / ``trec.gm_bpref`` the
    geometric mean with trec_eval's floor ``MIN_GEO_MEAN`` (per-topic values are AP / bpref)."""
    name = base[len("trec."):] if base.startswith("trec.") else base
    agg = MEASURES[name].aggregate
    v = np.asarray(values, np.float64)
    T = v.shape[-1]
    s = np.cumsum(v, axis=-1)[..., -1] if T else np.zeros(v.shape[:-1])
    if agg in ("sum", "num_rel"):
        return s
    if agg == "gm":
        lg = _m_gm(v)
        return np.array([math.exp(x / T) for x in np.cumsum(lg, axis=-1)[..., -1].ravel()]).reshape(s.shape)
    if agg == "num_q":
        return np.full(s.shape, float(T))
    return s / T


def _trec_ctx(ectx, rel, judged_only):
    """The trec_eval arrays of an :class:`EvalContext`'s collection (cached on it)."""
    key = ("trec_eval", int(rel), bool(judged_only))
    d = ectx._derived
    if key not in d:
        c = ectx.collection
        if judged_only:
            c = c.condensed()
        lv = c.levels.astype(np.int32)
        lv = np.where(lv == _PAD, PAD_REL, lv)           # UNJUDGED (-1) is trec_eval's NONPOOL
        n = c.lengths.astype(np.int64)
        # an empty list is evaluated as trec_eval -c evaluates a topic missing from the run: one
        # document outside the pool (trec_eval.c's bogus ranking); counts are zeroed afterwards
        missing = ectx.collection.lengths == 0
        if missing.any():
            lv = lv.copy()
            lv[..., 0] = np.where(missing, -1, lv[..., 0])
            n = np.where(missing, 1, n)
        d[key] = (_Ctx(lv, n, c.level_counts.astype(np.int64), rel, 0, 10), missing)
    return d[key]


def _pairs(text) -> tuple:
    if not text:
        return ()
    out = []
    for item in str(text).split(":"):
        k, _, v = item.partition("=")
        out.append((k, float(v)))
    return tuple(out)


def _measure_func(name):
    def func(ctx, cutoff, rel=1, judged_only=False, **params):
        c, missing = _trec_ctx(ctx, rel, judged_only)
        info = MEASURES[name]
        if info.kind == "cut_long":
            spec = Spec(name, (int(cutoff),), (), str(cutoff))
        elif name == "iprec_at_recall":
            spec = Spec(name, (float(params["recall"]),), (), "x")
            c = c if params.get("version", 10) == 10 else _Ctx(c.rel, c.num_ret, c.rel_levels, c.rl, 0, 9)
        elif name == "11pt_avg":
            c = c if params.get("version", 10) == 10 else _Ctx(c.rel, c.num_ret, c.rel_levels, c.rl, 0, 9)
            spec = Spec(name, _ELEVEN)
        elif name == "Rprec_mult":
            spec = Spec(name, (float(params["mult"]),), (), "x")
        elif name == "utility":
            spec = Spec(name, (params["a"], params["b"], params["c"], params["d"]), (), "x")
        elif name == "set_F":
            spec = Spec(name, (params["beta"],), (), "x")
        elif info.kind == "p_pair":
            pairs = _pairs(params.get("gain_map"))
            if name in ("rbp", "rbp_resid"):
                pairs = pairs + (("p", params["p"]),)
            spec = Spec(name, (), pairs, "x" if pairs else None)
        else:
            spec = Spec(name)
        vals = compute_ctx(c, [spec])
        out = vals[0][2]
        if name in ("gm_map", "gm_bpref"):
            out = compute_ctx(c, [Spec("map" if name == "gm_map" else "bpref")])[0][2]
        if name in EMPTY_ZEROED:
            out = np.where(missing, 0.0, out)
        # trec_eval's 0/0 on an empty ranking (-J with no judged document) prints nan; 0 here
        return np.where(np.isnan(out), 0.0, out)
    return func


def compute_ctx(ctx: "_Ctx", specs):
    """:func:`compute` on an existing context (shared intermediates)."""
    return _compute(ctx, specs)


def _register():
    from .registry import MeasureDef, Param, register

    def _bool(s):
        t = str(s).strip().lower()
        if t in ("true", "1", "yes"):
            return True
        if t in ("false", "0", "no"):
            return False
        raise ValueError(f"expected true or false, got {s!r}")

    def _int(s):
        return int(s)

    def _ver(s):
        v = int(s)
        if v not in (9, 10):
            raise ValueError("trec_eval version 9 or 10")
        return v

    # rel= (trec_eval -l) is applied by func itself (the graded measures keep their gains); the
    # generic judged_only=True (-J) by metrics.evaluate (EvalContext.view: the condensed lists)
    common = {"rel": Param(1, _int, "relevance threshold: levels >= rel are relevant (trec_eval -l)")}
    extra = {
        "iprec_at_recall": {"recall": Param(0.0, float, "recall level (trec_eval iprec_at_recall.X)"),
                            "version": Param(10, _ver, "9: trec_eval 9.0.x's truncated recall cutoffs")},
        "11pt_avg": {"version": Param(10, _ver, "9: trec_eval 9.0.x's truncated recall cutoffs")},
        "Rprec_mult": {"mult": Param(1.0, float, "multiple of R (trec_eval Rprec_mult.X)")},
        "utility": {"a": Param(1.0, float, "gain per relevant retrieved"),
                    "b": Param(-1.0, float, "per nonrelevant retrieved"),
                    "c": Param(0.0, float, "per relevant missed"),
                    "d": Param(0.0, float, "per nonrelevant missed (needs -N)")},
        "set_F": {"beta": Param(1.0, float, "trec_eval set_F parameter")},
        "rbp": {"p": Param(0.9, float, "persistence"), "gain_map": Param(None, str, "LEVEL=GAIN:LEVEL=GAIN")},
        "rbp_resid": {"p": Param(0.9, float, "persistence")},
    }
    for g in ("G", "ndcg", "ndcg_rel", "Rndcg", "dcg", "ideal_dcg"):
        extra[g] = {"gain_map": Param(None, str, "gains of levels, LEVEL=GAIN:LEVEL=GAIN (trec_eval ndcg.L=G,...)")}
    for name, info in MEASURES.items():
        if name in ("runid", "relstring"):
            continue
        params = {**common, **extra.get(name, {})}
        unbounded = name in ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "utility",
                             "dcg", "ideal_dcg", "G")
        register(MeasureDef(f"trec.{name}", _measure_func(name),
                            cutoff="required" if info.kind == "cut_long" else "forbidden",
                            params=params, bounded=not unbounded,
                            doc=f"trec_eval 10.0's {name} (m_{name}.c); summary: {info.aggregate}"))


_register()
