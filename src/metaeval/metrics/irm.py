"""Measures that ir_measures 0.4.3 (MacAvaney et al. 2022) computes with providers other than
trec_eval, each exact to that provider (``docs/metrics.md``, "ir_measures' names"):

* ``Judged@k`` -- ir_measures' own ``judged`` provider: judged documents among the top k, divided
  by min(k, list length) (0 for an empty list);
* ``gdeval.nDCG@k`` -- gdeval.pl 1.2a's nDCG@k (``nDCG(dcg='exp-log2')@k`` in ir_measures): gain
  2^level - 1, discount ln(r + 1), the ideal list of every positively judged document;
* ``gdeval.ERR@k`` -- gdeval's ERR@k (Chapelle et al. 2009) with the stopping probability
  (2^level - 1) / 2^4 (gdeval's ``MAX_JUDGMENT = 4``);
* ``irm.RBP(p=..., rel=...)`` -- cwl_eval 1.0.12's RBP (Moffat and Zobel 2008) on binary relevance
  (level >= rel), over cwl_eval's fixed 1000 ranks: weights p^(r-1) / sum_{j<1000} p^j;
* ``Compat(p=..., normalize=...)`` -- ir_measures' ``compat`` provider: the compatibility of Clarke
  et al. (2021), rank-biased overlap with the ideal ranking (relevant documents by level, equal
  levels in the run's order, unretrieved ones after them), divided by the ideal's own.

Conventions shared with ir_measures, stated where they differ from NTCIREVAL's: gdeval prints 5
decimals, so ir_measures' gdeval values are these values rounded to 5 decimals; every measure here
reads the ranked list metaeval builds (``order="score"``: score descending, ties by DOCID
descending, trec_eval's rule), where ir_measures' providers rank each in their own way (Judged,
Compat and msmarco's RR@k break score ties by DOCID ascending, gdeval by DOCID descending,
cwl_eval by score with ties in input order) -- so the values agree on runs without score ties.  ``Compat`` places
unretrieved relevant documents after the retrieved ones of their level (ir_measures gives them
score 0.0, so they would precede retrieved documents of negative score).
"""

from __future__ import annotations

import math

import numpy as np

from .. import detmath
from .context import EvalContext
from .registry import MeasureDef, Param, parse_bool, register, rel_param
from .ranked import _div, _memo, _prob, _sum, _system, msndcg

CWL_MAX_N = 1000          # cwl_eval's RankingMaker(max_n=1000), as ir_measures builds it
GDEVAL_MAX_JUDGMENT = 4   # gdeval.pl's $MAX_JUDGMENT


# ------------------------------------------------------------------------------- Judged@k


def judged(ctx: EvalContext, cutoff=None) -> np.ndarray:
    lv = ctx.levels
    n = ctx.lengths.astype(np.int64)
    cnt = np.cumsum(lv >= 0, axis=2, dtype=np.int64)                 # judged documents in ranks 1..r
    k = n if cutoff is None else np.minimum(n, int(cutoff))          # min(k, list length)
    idx = np.clip(k - 1, 0, max(lv.shape[2] - 1, 0))
    got = np.take_along_axis(cnt, idx[..., None], axis=2)[..., 0] if lv.shape[2] else np.zeros(k.shape)
    return _div(np.where(k > 0, got, 0), k)


# ------------------------------------------------------------------------------- gdeval


def _exp_gains(ctx: EvalContext) -> EvalContext:
    """The context whose gain of level L is 2^L - 1 (gdeval reads the qrels judgment as the exponent)."""
    H = ctx.collection.max_level
    return ctx.with_gains(tuple(math.pow(2.0, j) - 1.0 for j in range(1, H + 1)))


def gdeval_ndcg(ctx: EvalContext, cutoff=None) -> np.ndarray:
    # gdeval: sum (2^g - 1) / log(i + 2) over ranks i = 0..k-1, divided by the same sum over the
    # judgments sorted in decreasing order: NTCIREVAL's MSnDCG with gains 2^L - 1, term for term
    return msndcg(_exp_gains(ctx), cutoff)


def gdeval_err(ctx: EvalContext, cutoff=None) -> np.ndarray:
    lists = _system(ctx)
    lvl = ctx.rel_level.astype(np.float64)

    def terms():
        r = (np.power(2.0, lvl) - 1.0) / float(2 ** GDEVAL_MAX_JUDGMENT)      # exact: small integers
        decay = lists.prev(lists.cumprod(1.0 - r), 1.0)                  # decay *= (1 - r), before r
        return (r * decay) / lists.rank                                  # $r*$decay/($i + 1)
    return _sum(ctx, lists, ("gdeval.ERR",), cutoff, terms)


# ------------------------------------------------------------------------------- cwl_eval RBP


def _cwl_weights(p: float) -> np.ndarray:
    """cwl_eval's W vector for RBP: [1, p, p^2, ...] (numpy cumprod) times 1 / their numpy sum."""
    cvec = np.full(CWL_MAX_N, p)
    prod = np.concatenate([[1.0], np.cumprod(cvec[:-1])])
    w1 = np.divide(1.0, np.add.reduce(prod))
    return np.concatenate([[w1], prod[1:] * w1])


def cwl_rbp(ctx: EvalContext, cutoff=None, p=0.8) -> np.ndarray:
    w = _memo(ctx, ("irm.RBP.w", float(p)), lambda: _cwl_weights(float(p)))
    lists = _system(ctx)
    # relevant documents (level >= rel: the context's levels >= 1) within cwl_eval's 1000 ranks
    return _sum(ctx, lists, ("irm.RBP", float(p)), CWL_MAX_N,
                lambda: np.where(lists.index < CWL_MAX_N, w[np.minimum(lists.index, CWL_MAX_N - 1)], 0.0))


# ------------------------------------------------------------------------------- Compat


def _running(values: np.ndarray) -> np.ndarray:
    """Sequential running sum along the last axis (Python's ``+=`` loop, term by term)."""
    return detmath.running_sum(values)


def compat(ctx: EvalContext, cutoff=None, p=0.95, normalize=True) -> np.ndarray:
    e = ctx._entries
    R_runs, T = ctx.rel_count.shape
    n_rel = ctx.n_rel.astype(np.int64)                                 # (T,)
    lengths = ctx.lengths.astype(np.int64)                             # (R, T)
    depth = np.maximum(lengths, n_rel[None, :])                        # max(len(ranking), len(ideal))
    W = int(max(depth.max(initial=0), 1))
    # ideal position b of each retrieved relevant document: documents of a higher level, then the
    # earlier retrieved documents of its level
    counts = ctx.collection.level_counts                               # (T, H+1)
    above = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]                # above[t, j] = docs of level >= j
    H = counts.shape[1] - 1
    higher = np.concatenate([above[:, 1:], np.zeros((T, 1), above.dtype)], axis=1)   # level > j
    lst, lvl, rank = e["list"], e["level"].astype(np.intp), e["rank"].astype(np.int64)
    order = np.lexsort((rank, lvl, lst))                               # by list, level, rank
    key = lst[order] * (H + 1) + lvl[order]
    start = np.r_[0, np.flatnonzero(np.diff(key)) + 1]
    grp = np.repeat(start, np.diff(np.r_[start, key.size]))
    same_before = np.empty(key.size, np.int64)
    same_before[order] = np.arange(key.size) - grp                     # earlier entries of its level
    b = higher[e["topic"], lvl] + same_before + 1
    m = np.maximum(rank, b)                                            # in both top-d sets from depth m
    hist = np.zeros(R_runs * T * W, np.int64)
    np.add.at(hist, lst * W + np.minimum(m, W) - 1, 1)
    overlap = np.cumsum(hist.reshape(R_runs, T, W), axis=2)           # |ranking_d & ideal_d|
    # weights p^i by the running product (weight *= p), terms weight * k / (i + 1)
    w = np.empty(W)
    wt = 1.0
    for i in range(W):
        w[i] = wt
        wt *= float(p)
    ranks = np.arange(1, W + 1, dtype=np.float64)
    score = _running((w * overlap) / ranks)                            # (R, T, W)
    norm = _running(w)                                                 # (W,)
    at = np.clip(depth - 1, 0, W - 1)
    s = np.take_along_axis(score, at[..., None], axis=2)[..., 0]
    rbo = s / norm[at]
    if not normalize:
        return rbo
    ideal_overlap = np.minimum(ranks[None, :], n_rel[:, None].astype(np.float64))   # (T, W)
    best_s = _running((w * ideal_overlap) / ranks)                     # (T, W)
    best = best_s[np.arange(T)[None, :], at] / norm[at]
    return np.where(best > 0.0, _div(rbo, best), rbo)


# ------------------------------------------------------------------------------- registration

_P_RBP = {"p": Param(0.8, _prob, "persistence (cwl_eval's theta)"), "rel": rel_param()}
_P_COMPAT = {"p": Param(0.95, _prob, "persistence of the rank-biased overlap"),
             "normalize": Param(True, parse_bool, "divide by the ideal ranking's own overlap",
                                lambda v: "True" if v else "False")}

register(MeasureDef("Judged", judged, "optional", {}, True, False,
                    "share of judged documents in the top k (ir_measures' judged provider)",
                    source="ir_measures 0.4.3 (judged provider)"))
register(MeasureDef("gdeval.nDCG", gdeval_ndcg, "required", {}, True, False,
                    "gdeval's nDCG@k: gains 2^L - 1, discount ln(r+1) (ir_measures nDCG(dcg='exp-log2')@k)",
                    source="gdeval.pl 1.2a (ir_measures' gdeval provider)"))
register(MeasureDef("gdeval.ERR", gdeval_err, "required", {}, True, False,
                    "gdeval's ERR@k: stopping probability (2^L - 1)/16 (ir_measures ERR@k)",
                    source="gdeval.pl 1.2a (ir_measures' gdeval provider)"))
register(MeasureDef("irm.RBP", cwl_rbp, "forbidden", _P_RBP, True, False,
                    "cwl_eval's RBP on binary relevance (level >= rel) over 1000 ranks (ir_measures RBP(p,rel))",
                    source="cwl_eval 1.0.12 (ir_measures' cwl_eval provider)"))
register(MeasureDef("Compat", compat, "forbidden", _P_COMPAT, True, False,
                    "compatibility with the ideal ranking (Clarke et al. 2021; ir_measures Compat)",
                    source="ir_measures 0.4.3 (compat provider)"))
