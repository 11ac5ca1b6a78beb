"""Was it reproduced?  The reproducibility and replicability measures of Breuer, Ferro, Fuhr,
Maistro, Sakai, Schaer & Soboroff (2020), exact to their reference implementation repro_eval 0.5.0,
for many reproductions at once (a CENTRE-style campaign: every participant's pair of runs).

An original pair of runs (baseline, advanced) and R reproductions of it, each a pair too:

* document orderings (reproducibility only): Kendall's tau Union (:func:`ktu`) and rank-biased
  overlap (:func:`rbo`) of each reproduced run's ranked list against the original's, per topic,
  then their mean over the topics;
* per-topic scores: RMSE and normalised RMSE (:func:`rmse`) of each reproduced run's scores against
  the original's (reproducibility only), the two-sided t test's p-value (:func:`p_values`; paired
  when reproduced on the original's topics, unpaired when replicated on another collection);
* effects: the Effect Ratio (ER) and Delta Relative Improvement (Delta RI) of each reproduction
  (:func:`effects`).

Every function takes the reproductions as a leading axis and computes them in one pass; the
conventions of repro_eval (docs/meta.md, "Reproducibility") are kept, its departures noted where
they are made.  :func:`reproducibility` reads the files, evaluates every run once with metaeval's
trec_eval-exact measures and returns the three tables.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..detmath import loop_total
from .display import Result

__all__ = ["ktu", "rbo", "rmse", "nrmse", "effects", "p_values", "inversions", "Reproduction", "ReproResult",
           "reproducibility", "REPRO_COLUMNS", "EFFECT_COLUMNS", "TOPIC_COLUMNS", "RUNS"]

#: the two runs of a pair, as the tables name them
RUNS = ("baseline", "advanced")
REPRO_COLUMNS = ("reproduction", "run", "metric", "ktu", "rbo", "rmse", "nrmse", "p_value")
EFFECT_COLUMNS = ("reproduction", "metric", "er", "dri")
TOPIC_COLUMNS = ("reproduction", "run", "topic", "ktu", "rbo")


# ------------------------------------------------------------------------------ document orderings
def inversions(Y: np.ndarray) -> np.ndarray:
    """The number of pairs ``i < j`` with ``Y[..., i] > Y[..., j]`` of every row of ``Y`` (distinct
    integers within a row), by a bottom-up merge sort over all rows at once: O(n log n) per row."""
    Y = np.asarray(Y, dtype=np.int64)
    lead, n = Y.shape[:-1], Y.shape[-1]
    B = int(np.prod(lead)) if lead else 1
    P = 1
    while P < n:
        P *= 2
    big = (int(Y.max(initial=0)) + 1) if Y.size else 1
    Z = np.empty((B, P), np.int64)
    Z[:, :n] = Y.reshape(B, n)
    Z[:, n:] = big + np.arange(P - n)             # larger than every value, increasing: no inversion
    total = np.zeros(B, np.int64)
    s = 1
    while s < P:
        G = Z.reshape(B, P // (2 * s), 2 * s)      # two sorted halves per group
        o = np.argsort(G, axis=-1, kind="stable")
        left = o < s
        seen = np.cumsum(left, axis=-1)            # left elements at or before each sorted position
        total += np.where(left, 0, s - seen).sum(axis=(1, 2))
        Z = np.take_along_axis(G, o, axis=-1).reshape(B, P)
        s *= 2
    return total.reshape(lead)


def _tau_union_sorted(x: np.ndarray, y: np.ndarray, n: np.ndarray) -> np.ndarray:
    """repro_eval's KTU of rows of equal length ``n``: Kendall's tau_b (``scipy.stats.kendalltau``,
    no ties) between ``x[i]`` and ``y[i]``, the positions in the sorted union of the two lists'
    i-th documents; padding beyond ``n`` ignored.  Rounded to 14 decimals as repro_eval does."""
    K = x.shape[-1]
    pos = np.arange(K)
    pad = pos >= n[..., None]
    big = np.maximum(x.max(axis=-1, initial=0), y.max(axis=-1, initial=0))[..., None] + 1
    x = np.where(pad, big + pos, x)
    y = np.where(pad, big + pos, y)
    o = np.argsort(x, axis=-1, kind="stable")
    dis = inversions(np.take_along_axis(y, o, axis=-1))
    tot = (n * (n - 1)) // 2
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (tot - 2 * dis) / np.sqrt(tot.astype(np.float64)) / np.sqrt(tot.astype(np.float64))
    tau = np.minimum(1.0, np.maximum(-1.0, tau))
    tau = np.where(n < 2, np.nan, tau)
    return np.round(tau, 14)


def _tau_union_unequal(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall's tau_b between two ranked lists of unequal length over their union: each list ranks
    its own documents by position and ties the union's documents it lacks below its last one
    (the natural definition; repro_eval's KTU is undefined here)."""
    from scipy.stats import kendalltau

    union = np.union1d(a, b)
    ra = np.full(len(union), len(a), np.int64)
    rb = np.full(len(union), len(b), np.int64)
    ra[np.searchsorted(union, a)] = np.arange(len(a))
    rb[np.searchsorted(union, b)] = np.arange(len(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(round(kendalltau(ra, rb).correlation, 14))


def ktu(orig: np.ndarray, orig_len: np.ndarray, rep: np.ndarray, rep_len: np.ndarray) -> np.ndarray:
    """Kendall's tau Union per reproduction and topic, as repro_eval 0.5.0 computes it
    (``measure.document_order._KTU``): the union of the two lists sorted by document id, each
    list's documents replaced by their positions in that sorted union, and Kendall's tau_b between
    the two sequences of positions paired at equal ranks.  ``orig``: (T, K) document codes (their
    positions in string order over all runs; -1 pads), ``orig_len``: (T,); ``rep``: (R, T, K),
    ``rep_len``: (R, T).  Codes replace the union's positions without changing tau (an order-
    preserving map).  Lists of unequal length, where repro_eval raises, get
    :func:`_tau_union_unequal`'s definition.  Returns (R, T)."""
    R, T, K = rep.shape
    x = np.broadcast_to(orig, (R, T, K))
    n = np.broadcast_to(orig_len, (R, T))
    out = _tau_union_sorted(x, rep, np.minimum(n, rep_len))
    for r, t in zip(*np.nonzero(n != rep_len)):           # only where repro_eval fails
        out[r, t] = _tau_union_unequal(orig[t, :orig_len[t]], rep[r, t, :rep_len[r, t]])
    return out


def rbo(orig: np.ndarray, orig_len: np.ndarray, rep: np.ndarray, rep_len: np.ndarray, *, p: float = 0.95,
        depth: int = 1000) -> np.ndarray:
    """Rank-biased overlap per reproduction and topic as repro_eval 0.5.0 computes it (its ``_rbo``,
    after Clarke et al.'s compatibility code): ``sum_{i<depth} p^i |A_{i+1} & B_{i+1}| / (i+1)``
    divided by ``sum_{i<depth} p^i``, the overlap of the two lists' first i+1 documents, a list
    shorter than ``depth`` contributing all its documents beyond its end -- the truncated sum,
    normalised to 1 for identical lists of length >= depth, no extrapolation.  The sums run in the
    loop's order.  Shapes as :func:`ktu`; returns (R, T)."""
    R, T, K = rep.shape
    depth = int(depth)
    pos_orig = _positions(orig, orig_len)                 # per topic: sorted codes and their ranks
    codes, ranks, starts = pos_orig
    # where each reproduced document stands in the original list of its topic (K + depth: absent)
    flat = rep.reshape(R, T * K)
    tix = np.broadcast_to(np.repeat(np.arange(T), K), (R, T * K))
    valid = (np.arange(K)[None, None, :] < rep_len[..., None]).reshape(R, T * K)
    key = tix.astype(np.int64) * (int(codes.max(initial=0)) + 2) + np.where(valid, flat, -1) + 1
    okey = np.repeat(np.arange(T), np.diff(np.append(starts, len(codes)))).astype(np.int64) \
        * (int(codes.max(initial=0)) + 2) + codes + 1
    j = np.searchsorted(okey, key)
    j = np.minimum(j, max(len(okey) - 1, 0))
    found = valid & (okey[j] == key) if len(okey) else np.zeros_like(valid)
    r_orig = np.where(found, ranks[j] if len(okey) else 0, depth + K)
    r_rep = np.broadcast_to(np.tile(np.arange(K), T), (R, T * K))
    enter = np.maximum(r_orig, r_rep)                     # the depth (0-based) it joins the overlap
    enter = np.where(found & (enter < depth), enter, depth)
    rows = (np.arange(R)[:, None] * T + tix).ravel()
    counts = np.bincount((rows * (depth + 1) + enter.ravel()), minlength=R * T * (depth + 1))
    overlap = np.cumsum(counts.reshape(R, T, depth + 1)[..., :depth], axis=-1)
    w = np.cumprod(np.concatenate([[1.0], np.full(depth - 1, float(p))])) if depth > 0 else np.zeros(0)
    score = loop_total((w * overlap) / np.arange(1, depth + 1))
    return score / loop_total(w)


def _positions(orig: np.ndarray, orig_len: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The original lists' documents sorted by (topic, code): ``(codes, ranks, starts)``."""
    T, K = orig.shape
    valid = np.arange(K)[None, :] < orig_len[:, None]
    tix = np.repeat(np.arange(T), K).reshape(T, K)
    c, r, t = orig[valid], np.broadcast_to(np.arange(K), (T, K))[valid], tix[valid]
    o = np.lexsort((c, t))
    counts = np.bincount(t, minlength=T)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return c[o].astype(np.int64), r[o].astype(np.int64), starts


# ------------------------------------------------------------------------------ per-topic scores
def rmse(orig: np.ndarray, rep: np.ndarray) -> np.ndarray:
    """Root mean square error of the per-topic scores, ``sqrt(sum_t (orig_t - rep_t)^2 / T)`` with
    the sum in topic order as repro_eval's ``sqrt(sum(np.square(diff))/len(diff))``.  ``orig``:
    (T, M), ``rep``: (R, T, M); returns (R, M)."""
    d = np.asarray(orig)[None] - np.asarray(rep)
    return np.sqrt(loop_total(np.moveaxis(np.square(d), 1, -1)) / d.shape[1])


def nrmse(orig: np.ndarray, rep: np.ndarray) -> np.ndarray:
    """RMSE divided by the largest RMSE a reproduction could have, ``sqrt(sum_t max(o_t, 1 -
    o_t)^2 / T)`` (repro_eval's ``nRMSE``, for measures in [0, 1])."""
    o = np.asarray(orig)
    worst = np.sqrt(loop_total(np.square(np.maximum(o, 1 - o)).T) / o.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        return rmse(orig, rep) / worst[None]


def p_values(orig: np.ndarray, rep: np.ndarray, *, paired: bool,
             same_topics: bool | Sequence[bool] | None = None) -> np.ndarray:
    """Two-sided t test of the original's per-topic scores against each reproduction's:
    ``scipy.stats.ttest_rel`` (paired; ``orig`` (T, M), ``rep`` (R, T, M)) or ``ttest_ind``
    (unpaired, equal variances; ``rep`` (R, T', M)), as repro_eval.  Where every measure's p-value
    is undefined and the two score sets are equal -- on the same topics: paired, or
    ``same_topics`` (per reproduction) -- 1.0 (repro_eval's rule, applied over the measures
    asked).  Returns (R, M)."""
    from scipy import stats

    o = np.asarray(orig, dtype=np.float64)
    r = np.asarray(rep, dtype=np.float64)
    ob = np.broadcast_to(o[None], (r.shape[0],) + o.shape)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if paired:
            p = stats.ttest_rel(ob, r, axis=1).pvalue
        else:
            p = stats.ttest_ind(ob, r, axis=1).pvalue
    p = np.array(p, dtype=np.float64, ndmin=2)
    if ob.shape == r.shape:
        if paired:
            on_same = np.ones(r.shape[0], bool)
        else:
            on_same = np.broadcast_to(np.asarray(False if same_topics is None else same_topics, bool), r.shape[:1])
        same = on_same & np.all(ob == r, axis=(1, 2)) & np.all(np.isnan(p), axis=1)
        p[same] = 1.0
    return p


def effects(orig_b: np.ndarray, orig_a: np.ndarray, rep_b: np.ndarray, rep_a: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """``(ER, Delta RI)`` per reproduction and measure (repro_eval's ``ER`` and ``DRI``):
    ER = mean_t(rep_a - rep_b) / mean_t(orig_a - orig_b), the ratio of the mean per-topic
    improvements; Delta RI = RI_orig - RI_rep with RI = (mean a - mean b) / mean b.  Means are
    numpy's (pairwise sums) over each pair's own topics.  ``orig_*``: (T, M), ``rep_*``: (R, T', M)."""
    mi_o = np.mean(np.asarray(orig_a) - np.asarray(orig_b), axis=0)
    mi_r = np.mean(np.moveaxis(np.asarray(rep_a) - np.asarray(rep_b), 1, -1), axis=-1)
    ma_o, mb_o = np.mean(np.asarray(orig_a).T, axis=-1), np.mean(np.asarray(orig_b).T, axis=-1)
    ma_r = np.mean(np.moveaxis(np.asarray(rep_a), 1, -1), axis=-1)
    mb_r = np.mean(np.moveaxis(np.asarray(rep_b), 1, -1), axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        er = mi_r / mi_o[None]
        dri = ((ma_o - mb_o) / mb_o)[None] - (ma_r - mb_r) / mb_r
    er[:, mi_o == 0] = np.nan              # no original effect: a ratio to it is undefined, not +-inf
    dri[~np.isfinite(dri)] = np.nan         # a baseline mean of 0: RI undefined
    return er, dri


# ------------------------------------------------------------------------------ files -> tables
@dataclass(frozen=True)
class Reproduction:
    """One reproduction: its name and its two run files."""
    name: str
    baseline: str
    advanced: str


@dataclass
class ReproResult(Result):
    """The three tables of ``metaeval reproducibility`` (docs/outputs.md)."""
    reproducibility: pd.DataFrame
    effects: pd.DataFrame
    topics: pd.DataFrame
    mode: str = "reproducibility"
    metrics: list = field(default_factory=list)

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        return {"reproducibility": self.reproducibility, "effects": self.effects,
                "reproducibility_topics": self.topics}


def _topic_str(b: object) -> str:
    return b.decode("utf-8", "replace") if isinstance(b, (bytes, np.bytes_)) else str(b)


def reproducibility(qrels: object, orig: Sequence[str], reps: Sequence[Reproduction],
                    metrics: Sequence[str], *, rep_qrels: object = None, depth: int = 1000,
                    rbo_p: float = 0.95) -> ReproResult:
    """The measures of Breuer et al. (2020) for every reproduction of the pair ``orig`` =
    (baseline, advanced) run files: reproducibility on ``qrels`` (the original's collection), or,
    with ``rep_qrels``, replicability (the reproductions evaluated on ``rep_qrels``).  Every run is
    cut to ``depth`` documents in repro_eval's order (:mod:`metaeval.io.ranked_lists`) and evaluated
    once with metaeval's measures (``metrics``, ir_measures' vocabulary: trec_eval's values).  A
    reproduced run that lacks a topic of the original (or has one it lacks), an advanced run whose
    topics differ from its baseline's: an :class:`~metaeval.errors.InputError` naming both."""
    from ..errors import InputError, InputWarning
    from ..io.frames import collection_from_parsed, read_qrels_any
    from ..io.ranked_lists import document_codes, parsed_run, ranked_order, read_run_lines
    from ..metrics import compute_matrices
    from ..metrics.registry import unique_measures

    if depth is None or int(depth) < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    if not 0 < float(rbo_p) < 1:
        raise ValueError(f"rbo_p must be in (0, 1), got {rbo_p}")
    depth = int(depth)
    if len(orig) != 2:
        raise ValueError("orig: the original baseline and advanced runs, two files")
    reps = [r if isinstance(r, Reproduction) else Reproduction(*r) for r in reps]
    if not reps:
        raise ValueError("no reproduction given")
    names = [r.name for r in reps]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"two reproductions named {dup[0]!r}")
    ms = unique_measures([str(m) for m in metrics], where="metrics", stacklevel=3, vocabulary="ir_measures")
    if not ms:
        raise ValueError("no metric given")
    replicate = rep_qrels is not None

    # every distinct file read once
    from ..util import file_args

    paths = (file_args(list(orig), "orig")
             + [p for r in reps for p in file_args([r.baseline, r.advanced], f"reproduction {r.name}")])
    files = {p: read_run_lines(p) for p in dict.fromkeys(paths)}
    fl = list(files.values())
    allt: np.ndarray = (np.unique(np.concatenate([f.topic_list.astype(object) for f in fl]).astype(bytes)) if fl
                        else np.zeros(0, "S1"))
    topic_of = {p: np.searchsorted(allt, f.topic_list.astype(object).astype(bytes))[f.topic_index]
                for p, f in files.items()}
    code_of = dict(zip(files, document_codes(fl)))
    T_all, topics_all = len(allt), [_topic_str(t) for t in allt]

    ordered = {p: ranked_order(f, topic_of[p], code_of[p], depth) for p, f in files.items()}

    def topic_set(p: str) -> set[int]:
        return set(np.unique(topic_of[p]).tolist())

    def check(have: set[int], want: set[int], who: str, ref: str) -> None:
        missing = sorted(want - have, key=lambda i: topics_all[i])
        if missing:
            raise InputError(f"{who} lacks topic {topics_all[missing[0]]} of {ref}")
        extra = sorted(have - want, key=lambda i: topics_all[i])
        if extra:
            raise InputError(f"{who} has topic {topics_all[extra[0]]}, which {ref} lacks")

    t_ob, t_oa = topic_set(paths[0]), topic_set(paths[1])
    check(t_oa, t_ob, f"the original advanced run {paths[1]}", f"the original baseline run {paths[0]}")
    for r in reps:
        tb, ta = topic_set(r.baseline), topic_set(r.advanced)
        if not replicate:
            check(tb, t_ob, f"reproduction {r.name}: the baseline run {r.baseline}",
                  f"the original baseline run {paths[0]}")
        check(ta, tb, f"reproduction {r.name}: the advanced run {r.advanced}", f"its baseline run {r.baseline}")

    # ranked lists as (runs, topics, depth) codes
    K = max([int(o[1].max(initial=-1)) + 1 for o in ordered.values()] + [1])
    run_topics = sorted(t_ob, key=lambda i: topics_all[i])

    def lists(p: str) -> tuple[np.ndarray, np.ndarray]:
        rows, rank = ordered[p]
        L = np.full((T_all, K), -1, np.int64)
        L[topic_of[p][rows], rank] = code_of[p][rows]
        n = np.bincount(topic_of[p][rows], minlength=T_all)
        return L, n

    # scores: one collection per qrels, every run once
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=InputWarning, message=".*file order and its score order.*")
        q1 = read_qrels_any(qrels)
        uniq = list(dict.fromkeys(paths))
        # each run under the name its user knows it by (its file's stem; the path when two files
        # share a stem): it is what the collection's warnings say
        from ..io.runs import run_name

        stems = [run_name(p) for p in uniq]
        shown = {p: (st if stems.count(st) == 1 else str(p)) for p, st in zip(uniq, stems)}
        first = uniq if not replicate else list(dict.fromkeys(paths[:2]))
        second = [] if not replicate else list(dict.fromkeys(paths[2:]))

        def scores(q: Any, ps: list[str]) -> tuple[dict[str, np.ndarray], list[str], list[str]]:
            parsed = [(parsed_run(files[p], shown[p], ordered[p][0]), "score") for p in ps]
            c = collection_from_parsed(q, parsed, depth=None)
            vals = compute_matrices(c, ms)
            names_ = list(vals)
            cube = np.stack([vals[n] for n in names_], axis=-1)        # (runs, topics, M)
            pos = {name: i for i, name in enumerate(c.runs)}
            return {p: cube[pos[shown[p]]] for p in ps}, list(c.topics), names_

        s1, topics1, mnames = scores(q1, first)
        if replicate:
            s2, topics2, _ = scores(read_qrels_any(rep_qrels), second)
        else:
            s2, topics2 = s1, topics1

    def keep(tlist: list[str], runtopics: set[int]) -> np.ndarray:
        have = {topics_all[i] for i in runtopics}
        return np.array([i for i, t in enumerate(tlist) if t in have], np.int64)

    k1 = keep(topics1, t_ob)
    ob, oa = s1[paths[0]][k1], s1[paths[1]][k1]
    if replicate:
        rep_b = []
        rep_a = []
        o_topics = [topics1[i] for i in k1]
        same_topics = []
        for r in reps:
            k2 = keep(topics2, topic_set(r.baseline))
            rep_b.append(s2[r.baseline][k2])
            rep_a.append(s2[r.advanced][k2])
            same_topics.append([topics2[i] for i in k2] == o_topics)
    else:
        rep_b = [s2[r.baseline][k1] for r in reps]
        rep_a = [s2[r.advanced][k1] for r in reps]
    R, M = len(reps), len(mnames)

    if not replicate:
        RB, RA = np.stack(rep_b), np.stack(rep_a)
        er, dri = effects(ob, oa, RB, RA)
        tsel = np.array(run_topics, np.int64)
        ktus, rbos, cols = [], [], []
        for o_path, rep_paths, OS, RS in ((paths[0], [r.baseline for r in reps], ob, RB),
                                         (paths[1], [r.advanced for r in reps], oa, RA)):
            Lo, no = lists(o_path)
            got = [lists(p) for p in rep_paths]
            Lr = np.stack([g[0][tsel] for g in got])
            nr = np.stack([g[1][tsel] for g in got])
            ktus.append(ktu(Lo[tsel], no[tsel], Lr, nr))
            rbos.append(rbo(Lo[tsel], no[tsel], Lr, nr, p=rbo_p, depth=depth))
            k_mean = np.mean(ktus[-1], axis=-1)                  # over the run's topics, numpy's mean
            b_mean = np.mean(rbos[-1], axis=-1)
            cols.append((np.repeat(k_mean[:, None], M, 1), np.repeat(b_mean[:, None], M, 1), rmse(OS, RS),
                         nrmse(OS, RS), p_values(OS, RS, paired=True)))
    else:
        same = all(len(b) == len(rep_b[0]) for b in rep_b)
        if same:                                  # one collection: every reproduction at once
            RB, RA = np.stack(rep_b), np.stack(rep_a)
            er, dri = effects(ob, oa, RB, RA)
            pb = p_values(ob, RB, paired=False, same_topics=same_topics)
            pa = p_values(oa, RA, paired=False, same_topics=same_topics)
        else:                                     # topic sets of different sizes: one small step each
            ed = [effects(ob, oa, b[None], a[None]) for b, a in zip(rep_b, rep_a)]
            er, dri = np.concatenate([e for e, _ in ed]), np.concatenate([d for _, d in ed])
            pb = np.concatenate([p_values(ob, b[None], paired=False, same_topics=st) for b, st in
                                 zip(rep_b, same_topics)])
            pa = np.concatenate([p_values(oa, a[None], paired=False, same_topics=st) for a, st in
                                 zip(rep_a, same_topics)])
        nan = np.full((R, M), np.nan)
        cols = [(nan, nan, nan, nan, pb), (nan, nan, nan, nan, pa)]

    # (reproduction, run, metric) rows: reproduction-major, then baseline/advanced, then metrics
    rep_names = np.array(names, dtype=object)
    stacked = [np.stack([c[k] for c in cols], axis=1).reshape(-1) for k in range(5)]     # (R, 2, M)
    repro = pd.DataFrame({"reproduction": np.repeat(rep_names, 2 * M),
                          "run": np.tile(np.repeat(np.array(RUNS, dtype=object), M), R),
                          "metric": np.tile(np.array(mnames, dtype=object), 2 * R),
                          **{c: v.astype(np.float64) for c, v in zip(REPRO_COLUMNS[3:], stacked)}})
    flat = np.mean(oa - ob, axis=0) == 0                      # (M,): the original effect per metric
    if flat.any():
        from ..errors import warn_input

        warn_input(f"the original runs' effect ({paths[1]} over {paths[0]}) is 0 on "
                   f"{', '.join(m for m, f in zip(mnames, flat) if f)}: the Effect Ratio (Breuer et al. 2020) is "
                   f"undefined there and written NaN")
    eff = pd.DataFrame({"reproduction": np.repeat(rep_names, M), "metric": np.tile(np.array(mnames, dtype=object), R),
                        "er": er.reshape(-1).astype(np.float64), "dri": dri.reshape(-1).astype(np.float64)})
    if not replicate:
        Tn = len(run_topics)
        tnames = np.array([topics_all[t] for t in run_topics], dtype=object)
        topics = pd.DataFrame({"reproduction": np.repeat(rep_names, 2 * Tn),
                               "run": np.tile(np.repeat(np.array(RUNS, dtype=object), Tn), R),
                               "topic": np.tile(tnames, 2 * R),
                               "ktu": np.stack(ktus, axis=1).reshape(-1), "rbo": np.stack(rbos, axis=1).reshape(-1)})
    else:
        topics = pd.DataFrame({c: pd.Series(dtype=object if c in ("reproduction", "run", "topic") else np.float64)
                               for c in TOPIC_COLUMNS})
    return ReproResult(repro, eff, topics, "replicability" if replicate else "reproducibility", mnames)
