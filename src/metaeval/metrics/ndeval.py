"""TREC's intent-aware diversity measures exactly as the official ``ndeval`` 4.5 computes them.

Pure array code: no file reading, no registry.  A caller (the diversity collection layer) builds
per-intent binary relevance arrays and calls :func:`ndeval_measures`, which returns every measure of
ndeval's CSV for all runs and topics at once.  :func:`greedy_ideal` exposes ndeval's greedy ideal
ranking (used by property tests); :func:`ndeval_amean` its two ``amean`` rules.

The measures, intent-aware in the sense of Agrawal et al. (2009) (names as in ndeval's CSV
header; k a cutoff, A the number of intents of the topic that have at least one relevant document,
g(d, i) = (1 - alpha)^(number of documents above d that are relevant to intent i) if d is relevant
to i, else 0, and s(d) = sum_i g(d, i)):

* ``alpha-DCG@k`` = sum_{r<=k} s(r) / log2(r + 1), divided by the "ideal ideal"
  sum_{r<=k} A (1 - alpha)^(r-1) / log2(r + 1) (collection independent; Clarke et al. 2008);
* ``alpha-nDCG@k`` = alpha-DCG@k of the run / alpha-DCG@k of ndeval's greedy ideal list;
* ``ERR-IA@k`` = sum_{r<=k} s(r) / r over the ideal ideal sum_{r<=k} A (1 - alpha)^(r-1) / r
  (ndeval's ERR-IA is this alpha-discounted reciprocal-rank sum with binary relevance, not the
  graded cascade of Chapelle et al. 2009); ``nERR-IA@k`` = the same over the greedy ideal list;
* ``NRBP`` = (1 - (1 - alpha) beta) / A * sum_r s(r) beta^(r-1) over the whole list
  (Clarke et al. 2009); ``nNRBP`` = NRBP / NRBP of the greedy ideal list;
* ``MAP-IA`` = mean over the A intents of AP with respect to the intent, over the whole list;
* ``P-IA@k`` = (number of (document, intent) relevant pairs in the top k) / (k A);
* ``strec@k`` = (number of intents covered by the top k) / A (subtopic recall, Zhai et al. 2003).

ndeval's conventions, all reproduced: relevance is binary per intent (REL > 0); alpha = beta = 0.5
by default; measures at cutoffs stop at depth 20, but NRBP, nNRBP and MAP-IA use the whole list;
the greedy ideal ranking picks at each rank the document with the largest s(d) given the documents
already placed, ties going to the larger docno; alpha-nDCG@k and nERR-IA@k are 0 when the run's
alpha-DCG@k is 0; intents without a relevant document are ignored.

Exactness notes (to match ndeval's ``%.6f`` to the last digit):

* powers (1 - alpha)^n and beta^n come from sequential products (``np.cumprod``), like the C loops'
  repeated ``*=``; discounts log(2)/log(r + 1) from :mod:`math` (the C library's ``log``);
* every sum the C code accumulates in a loop is accumulated sequentially here (``np.cumsum`` along
  ranks, an explicit loop over the few intent columns), so sums agree to the bit;
* normalisations keep ndeval's order of operations: alpha-nDCG@k = (DCG/II)/(DCG*/II) with II the
  ideal-ideal sum, never DCG/DCG* directly.

Deliberate departures (both unobservable in ndeval's output):

* ndeval leaves its rank-1 entries of alpha-DCG and ERR-IA without the ideal-ideal division (its
  normalisation loop starts at the second rank) and never prints them; here @1 is normalised like
  every other cutoff, so ``alpha-DCG@1`` and ``ERR-IA@1`` lie in [0, 1];
* for a topic without any relevant document (A = 0) ndeval would print nNRBP = 0/0; every measure
  is 0 here.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import detmath

__all__ = ["NDEVAL_DEPTH", "NDEVAL_CUTOFFS", "ndeval_names", "ndeval_measures", "greedy_ideal",
           "IdealRanking", "ndeval_amean"]

NDEVAL_DEPTH = 20
NDEVAL_CUTOFFS = (5, 10, 20)

_CUTOFF_FAMILIES = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG")
_TAIL_FAMILIES = ("P-IA", "strec")


def ndeval_names(cutoffs=NDEVAL_CUTOFFS) -> list[str]:
    """Measure names in the column order of ndeval's CSV header (for the given cutoffs)."""
    names = [f"{fam}@{k}" for fam in _CUTOFF_FAMILIES for k in cutoffs]
    names += ["NRBP", "nNRBP", "MAP-IA"]
    names += [f"{fam}@{k}" for fam in _TAIL_FAMILIES for k in cutoffs]
    return names


# ----------------------------------------------------------------------------- small tables


def _power_table(factor: float, n: int, start: float = 1.0) -> np.ndarray:
    """[start, start*f, start*f*f, ...] (n entries) by repeated products, like C's ``x *= f``."""
    seq = np.full(max(n, 1), float(factor))
    seq[0] = start
    return np.cumprod(seq)[:n]


def _discounts(depth: int) -> np.ndarray:
    """ndeval's ``discount(i)`` = log(2)/log(i + 2) for 0-based rank i (1 at the top)."""
    return math.log(2.0) / detmath.log(np.arange(depth, dtype=np.float64) + 2.0)


class _Entries(NamedTuple):
    r: np.ndarray          # run, topic, 0-based rank, intent of every relevant entry,
    t: np.ndarray          # in (r, t, d, i) order
    d: np.ndarray
    i: np.ndarray
    nrel: np.ndarray       # documents relevant to i at ranks <= d of (r, t) (this one included)
    by_intent: np.ndarray  # permutation into (r, t, i, d) order


def _run_entries(run_rel: np.ndarray) -> _Entries:
    """The True cells of run_rel (R, T, D, I) with each one's running count along the ranks."""
    _n_r, n_t, _n_d, n_i = run_rel.shape
    flat = np.flatnonzero(run_rel)                       # C order: (r, t, d, i) ascending
    r, t, d, i = np.unravel_index(flat, run_rel.shape)
    grp = (r * n_t + t) * n_i + i
    by_intent = np.argsort(grp, kind="stable")          # stable: ranks stay ascending per intent
    g = grp[by_intent]
    n = g.size
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if n else np.zeros(0, dtype=np.int64)
    within = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    count = np.empty(n, dtype=np.int64)
    count[by_intent] = within + 1
    return _Entries(r, t, d, i, count, by_intent)


def _nrbp_ranks(a_max: int, beta: float, n_ranks: int) -> int:
    """Ranks of an ideal list that can change its NRBP sum; the rest add exactly nothing.

    The sum is >= 1 after rank 1 (the top document gains >= 1) and the term at 0-based rank k is
    at most a_max * beta^k; once that is below 2^-54 (under half an ulp of any number >= 1),
    adding it (and every later, smaller term) leaves the double unchanged.
    """
    if beta >= 1.0 or a_max == 0:
        return n_ranks
    decay = _power_table(beta, n_ranks)
    small = np.flatnonzero(a_max * decay < 2.0 ** -54)
    return int(small[0]) if small.size else n_ranks


def _cutoff_curves(scores: np.ndarray, n_int: np.ndarray, alpha: float, depth: int):
    """ndeval's computeDCG/computeERR: (..., depth) normalised cumulative alpha-DCG and ERR.

    ``scores`` (..., D) with D >= depth (zero-padded past list ends); ``n_int`` broadcastable to
    scores.shape[:-1] + (1,).  Returns (dcg, err), both divided by the ideal-ideal curves; zero
    where A = 0.
    """
    s = scores[..., :depth]
    disc = _discounts(depth)
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    dcg = np.cumsum(s * disc, axis=-1)
    err = np.cumsum(s / ranks, axis=-1)
    a = np.asarray(n_int, dtype=np.float64)
    # ideal ideal: A*(1-alpha)^(r-1) by repeated multiplication starting from (double) A
    steps = np.full(a.shape[:-1] + (depth,), 1.0 - alpha)
    steps[..., 0] = a[..., 0]
    ii_gain = np.cumprod(steps, axis=-1)
    ii_dcg = np.cumsum(ii_gain * disc, axis=-1)
    ii_err = np.cumsum(ii_gain / ranks, axis=-1)
    pos = a > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        dcg = np.where(pos, dcg / np.where(pos, ii_dcg, 1.0), 0.0)
        err = np.where(pos, err / np.where(pos, ii_err, 1.0), 0.0)
    return dcg, err


def _nrbp(scores: np.ndarray, n_int: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """ndeval's computeNRBP over the whole list: scores (..., D), n_int (...) -> (...)."""
    d = scores.shape[-1]
    if d == 0:
        return np.zeros(scores.shape[:-1])
    decay = _power_table(beta, d)
    total = np.cumsum(scores * decay, axis=-1)[..., -1]
    a = np.asarray(n_int, dtype=np.float64)
    factor = (1.0 - (1.0 - alpha) * beta) / np.where(a > 0, a, 1.0)
    return np.where(a > 0, total * factor, 0.0)


# ----------------------------------------------------------------------------- greedy ideal


class IdealRanking(NamedTuple):
    """ndeval's greedy ideal ranking of the judged documents of every topic.

    order: int (T, K) index into the J axis of ``ideal_rel`` of the document at 0-based rank r;
           -1 past the topic's relevant documents (ndeval's ideal list continues with the
           nonrelevant judged documents by descending docno, which contribute nothing).
    score: float64 (T, K) s(d) of that document given those above it (0 past the relevant ones).
    """

    order: np.ndarray
    score: np.ndarray


def _check_ideal(ideal_rel, ideal_order, n_intents):
    ideal_rel = np.asarray(ideal_rel, dtype=bool)
    ideal_order = np.asarray(ideal_order)
    n_intents = np.asarray(n_intents)
    if ideal_rel.ndim != 3:
        raise ValueError(f"ideal_rel must be (T, J, I), got shape {ideal_rel.shape}")
    t, j, _ = ideal_rel.shape
    if ideal_order.shape != (t, j):
        raise ValueError(f"ideal_order must be {(t, j)}, got {ideal_order.shape}")
    if n_intents.shape != (t,):
        raise ValueError(f"n_intents must be ({t},), got {n_intents.shape}")
    covered = ideal_rel.any(axis=1).sum(axis=-1)
    bad = np.flatnonzero(covered != n_intents)
    if bad.size:
        k = bad[0]
        raise ValueError(f"topic index {k}: n_intents={int(n_intents[k])} but {int(covered[k])} "
                         "intent columns have a relevant document")
    return ideal_rel, ideal_order, n_intents.astype(np.int64)


def greedy_ideal(ideal_rel, ideal_order, n_intents, depth=NDEVAL_DEPTH, alpha=0.5) -> IdealRanking:
    """ndeval's ``idealResult``: the greedy alpha-nDCG ideal ranking, all topics at once.

    At each rank, among the judged documents not yet placed, take the one with the largest
    s(d) = sum_i (1-alpha)^(#placed documents relevant to i) over the intents i it is relevant to;
    ties go to the larger docno (the smaller ``ideal_order``).  Relevant documents therefore come
    first, in greedy order; only they are returned.

    ``depth``: number of ranks to return (None: every judged document).  The loop runs over ranks
    (at most ``min(depth, most relevant documents of a topic)`` steps), vectorised over topics.
    """
    ideal_rel, ideal_order, n_intents = _check_ideal(ideal_rel, ideal_order, n_intents)
    n_t, n_j, n_i = ideal_rel.shape
    n_ranks = n_j if depth is None else int(depth)
    # columns in tie order: largest docno first, padding last (so argmax's first hit wins ties)
    by_tie = np.argsort(ideal_order, axis=1, kind="stable")
    rel_sorted = np.take_along_axis(ideal_rel, by_tie[:, :, None], axis=1)
    is_rel = rel_sorted.any(axis=-1)
    n_rel = is_rel.sum(axis=1)
    # relevant documents only (in tie order) for the greedy part
    rel_first = np.argsort(~is_rel, axis=1, kind="stable")  # relevant (tie order) then the rest
    cand = np.take_along_axis(by_tie, rel_first, axis=1)     # J indices: relevant..., nonrel...
    m = int(n_rel.max()) if n_t else 0
    cand_rel = np.take_along_axis(ideal_rel, cand[:, :m, None], axis=1)        # (T, M, I)
    cand_cols = np.ascontiguousarray(np.moveaxis(cand_rel, 2, 0), dtype=np.float64)  # (I, T, M)
    valid = np.arange(m)[None, :] < n_rel[:, None]

    steps = min(m, n_ranks)
    gain_table = _power_table(1.0 - alpha, steps + 1)
    covered = np.zeros((n_t, n_i), dtype=np.int64)
    placed = ~valid
    picks = np.zeros((n_t, steps), dtype=np.int64)
    scores = np.zeros((n_t, steps))
    rows = np.arange(n_t)
    for r in range(steps):
        g = gain_table[covered]                                  # (T, I)
        s = np.zeros((n_t, m))
        for j in range(n_i):  # intents in column order, as ndeval's sum
            s += cand_cols[j] * g[:, j, None]
        s_masked = np.where(placed, -1.0, s)
        w = np.argmax(s_masked, axis=1)
        active = r < n_rel
        picks[:, r] = w
        scores[:, r] = np.where(active, s[rows, w], 0.0)
        placed[rows[active], w[active]] = True
        covered += cand_rel[rows, w] & active[:, None]

    order = np.full((n_t, n_ranks), -1, dtype=np.int64)
    score = np.zeros((n_t, n_ranks))
    if steps:
        greedy_idx = np.take_along_axis(cand[:, :m], picks, axis=1)
        live = np.arange(steps)[None, :] < n_rel[:, None]
        order[:, :steps] = np.where(live, greedy_idx, -1)
        score[:, :steps] = scores
    return IdealRanking(order, score)


# ----------------------------------------------------------------------------- measures


def ndeval_measures(run_rel, lengths, ideal_rel, ideal_order, n_intents, depth=NDEVAL_DEPTH,
                    alpha=0.5, *, beta=0.5, cutoffs=NDEVAL_CUTOFFS) -> dict[str, np.ndarray]:
    """Every ndeval measure for R runs x T topics.

    run_rel:     bool (R, T, D, I): the document at 0-based rank d of run r for topic t is relevant
                 (REL > 0) to intent i; ranks in ndeval's order (the RANK column); False past the
                 end of the list and for unjudged documents.
    lengths:     int (R, T) list lengths (0 for a topic missing from the run).  Only used to trim D.
    ideal_rel:   bool (T, J, I): per-intent relevance of every judged document (padding rows False).
    ideal_order: int (T, J): tie key, the rank of the document's docno in descending docno order
                 (0 = largest docno); padding rows a large value.
    n_intents:   int (T,): intents of the topic with at least one relevant document.  Intent columns
                 are shared by run_rel and ideal_rel; columns without a relevant document (padding,
                 or intents judged nonrelevant throughout) are ignored automatically, since no
                 document can be relevant to them.  n_intents must equal the number of columns with
                 a relevant document (checked: ValueError otherwise).
    depth:       ndeval's DEPTH; every cutoff must be in 1..depth.
    alpha, beta: redundancy intolerance and patience (ndeval's -alpha and -beta; 0.5 both).
    cutoffs:     the k of the @k measures.

    Returns {name: float64 (R, T)} with the names of :func:`ndeval_names` (cutoffs).  A topic a
    run does not retrieve gets 0 everywhere (ndeval prints no row for it; see :func:`ndeval_amean`).
    """
    cutoffs = tuple(int(k) for k in cutoffs)
    depth = int(depth)
    if any(k < 1 or k > depth for k in cutoffs):
        raise ValueError(f"cutoffs {cutoffs} must lie in 1..depth={depth}")
    if not (0.0 <= alpha <= 1.0) or not (0.0 <= beta <= 1.0):
        raise ValueError(f"alpha={alpha} and beta={beta} must lie in [0, 1]")
    ideal_rel, ideal_order, n_intents = _check_ideal(ideal_rel, ideal_order, n_intents)
    run_rel = np.asarray(run_rel, dtype=bool)
    lengths = np.asarray(lengths)
    if run_rel.ndim != 4 or run_rel.shape[1] != ideal_rel.shape[0] \
            or run_rel.shape[3] != ideal_rel.shape[2]:
        raise ValueError(f"run_rel must be (R, T={ideal_rel.shape[0]}, D, I={ideal_rel.shape[2]}), "
                         f"got {run_rel.shape}")
    if lengths.shape != run_rel.shape[:2]:
        raise ValueError(f"lengths must be {run_rel.shape[:2]}, got {lengths.shape}")
    n_r, n_t, n_d, n_i = run_rel.shape
    d_used = min(n_d, int(lengths.max()) if lengths.size else 0)
    run_rel = run_rel[:, :, :d_used]

    a_t = n_intents                     # (T,)
    a_run = a_t[None, :, None]          # broadcast against (R, T, depth)
    n_d = max(d_used, depth)            # rank axis of the score arrays (zeros past list ends)

    # ---- the run side, from the relevant (run, topic, rank, intent) entries only
    e = _run_entries(run_rel)
    gain_table = _power_table(1.0 - alpha, n_d + 1)
    flat = (e.r * n_t + e.t) * n_d + e.d
    # s(d): the entries are in (r, t, d, i) order, so each bin adds its intents in column order
    scores = np.bincount(flat, weights=gain_table[e.nrel - 1], minlength=n_r * n_t * n_d)
    scores = scores.reshape(n_r, n_t, n_d)
    dcg, err = _cutoff_curves(scores, a_run, alpha, depth)
    nrbp = _nrbp(scores, a_t[None, :], alpha, beta)

    # ---- the ideal side (T, ...), computed once from the qrels; the greedy runs as deep as
    # NRBP of the ideal list can still change (see _nrbp_ranks), and at least to depth
    ideal = greedy_ideal(ideal_rel, ideal_order, n_intents,
                         max(depth, _nrbp_ranks(int(a_t.max(initial=0)), beta, ideal_rel.shape[1])),
                         alpha)
    iscore = ideal.score
    idcg, ierr = _cutoff_curves(iscore, a_t[:, None], alpha, depth)
    inrbp = _nrbp(iscore, a_t, alpha, beta)

    # ndeval's renormalize: only where the run's (normalised) DCG is nonzero
    nz = dcg != 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ndcg = np.where(nz, dcg / np.where(nz, idcg[None], 1.0), 0.0)
        nerr = np.where(nz, err / np.where(nz, ierr[None], 1.0), 0.0)
        nnrbp = np.where(inrbp[None] > 0, nrbp / np.where(inrbp > 0, inrbp, 1.0)[None], 0.0)

    # ---- MAP-IA over the whole list: per intent, sum over its relevant ranks of count/rank
    grp = (e.r * n_t + e.t) * n_i + e.i
    terms = e.nrel / (e.d + 1.0)
    # bins fill in (r, t, i, d) order: rank order within an intent, as ndeval's loop
    totals = np.bincount(grp[e.by_intent], weights=terms[e.by_intent],
                         minlength=n_r * n_t * n_i).reshape(n_r, n_t, n_i)
    nrel_sub = ideal_rel.sum(axis=1)                                  # (T, I)
    per_intent = np.where(nrel_sub > 0, totals / np.where(nrel_sub > 0, nrel_sub, 1), 0.0)
    mapia = detmath.loop_total(per_intent)              # the C loop's order
    with np.errstate(divide="ignore", invalid="ignore"):
        mapia = np.where(a_t > 0, mapia / np.where(a_t > 0, a_t, 1), 0.0)

    # ---- P-IA and strec on the first depth ranks
    top = e.d < depth
    ftop = (e.r * n_t + e.t) * depth + e.d
    pairs = np.bincount(ftop[top], minlength=n_r * n_t * depth).reshape(n_r, n_t, depth)
    first = top & (e.nrel == 1)
    new = np.bincount(ftop[first], minlength=n_r * n_t * depth).reshape(n_r, n_t, depth)
    pairs = np.cumsum(pairs, axis=-1)
    seen = np.cumsum(new, axis=-1)
    ranks = np.arange(1, depth + 1)
    denom_p = (ranks[None, None, :] * a_run).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(a_run > 0, pairs / np.where(a_run > 0, denom_p, 1.0), 0.0)
        strec = np.where(a_run > 0, seen / np.where(a_run > 0, a_run, 1).astype(np.float64), 0.0)

    out: dict[str, np.ndarray] = {}
    curves = {"ERR-IA": err, "nERR-IA": nerr, "alpha-DCG": dcg, "alpha-nDCG": ndcg,
              "P-IA": prec, "strec": strec}
    for fam in _CUTOFF_FAMILIES:
        for k in cutoffs:
            out[f"{fam}@{k}"] = np.ascontiguousarray(curves[fam][:, :, k - 1])
    out["NRBP"] = nrbp
    out["nNRBP"] = nnrbp
    out["MAP-IA"] = mapia
    for fam in _TAIL_FAMILIES:
        for k in cutoffs:
            out[f"{fam}@{k}"] = np.ascontiguousarray(curves[fam][:, :, k - 1])
    return out


def ndeval_amean(values: np.ndarray, retrieved: np.ndarray, complete: bool = False) -> np.ndarray:
    """ndeval's ``amean`` row: values (R, T), retrieved bool (R, T) (the run has the topic).

    Default: mean over the topics the run retrieves (that are in the qrels); ``complete=True``
    (ndeval ``-c``): sum over the run's topics divided by the number of qrels topics T.  The sum
    runs over topics in the given (numeric) order, as ndeval's does.
    """
    values = np.asarray(values, dtype=np.float64)
    retrieved = np.asarray(retrieved, dtype=bool)
    masked = np.where(retrieved, values, 0.0)
    total = np.cumsum(masked, axis=-1)[..., -1] if values.shape[-1] else np.zeros(values.shape[:-1])
    n = np.full(values.shape[:-1], values.shape[-1]) if complete else retrieved.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, total / np.where(n > 0, n, 1), 0.0)
