"""Labelling: qrels + runs -> :class:`~metaeval.collection.Collection` (NTCIREVAL ``label`` for all
runs and topics at once), and its npz cache.

Policies (each also in ``docs/io.md``):

* **Topic set** = the qrels topics with at least one relevant (level >= 1) document, sorted as
  strings (as NTCIREVAL and trec_eval do: ``"1037798" < "104861"``).  Qrels topics without any
  relevant document are excluded (one :class:`InputWarning`) and listed in
  ``Collection.excluded_topics``.
* **Ordering** ``order="file"`` (NTCIREVAL): each topic's list is the run file's own line
  order for that topic; ``order="score"`` (trec_eval): SCORE descending, ties broken by DOCID
  descending (byte-wise ``strcmp``, trec_eval's ``comp_sim_docno``).  Default: the input's
  conventions (:mod:`metaeval.io.conventions`: ``score`` for TREC input, ``file`` for NTCIR input).
  A run whose file order is not by decreasing score on some topic gets one warning (ties in
  another order than the DOCID rule are no disagreement; none under an explicit ``order="score"``).
  Scores are compared in double precision as trec_eval 10.0 does (``trec_eval_version=10``, the
  default) or in single precision as trec_eval 9.0.x, pytrec_eval and ir_measures do (``9``).
  The RANK column is never used.
* **Repeated document** within a topic's list: the first position (after ordering) is kept, later
  occurrences dropped; one warning per run naming the file and line of the first dropped line and
  the count.
* **Truncation** to ``depth`` documents (default 1000) after ordering and de-duplication;
  ``depth=None`` keeps everything.
* **Topics no run retrieved** (TREC input: TREC-form qrels, every run with scores): left out of
  the topic set, one warning with the count -- qrels of a larger set average over the runs' topics,
  as trec_eval 9, pytrec_eval and ir_measures do.  NTCIR input keeps every qrels topic.
* **Topic of the qrels missing from a run** (some other run retrieved it): an empty list (length
  0) -- it scores 0 on every metric (trec_eval's ``-c``); one warning per run with the count.
* **Run topics absent from the qrels**: ignored; one warning per run naming them.
* Documents absent from the qrels are ``UNJUDGED`` (-1); positions past the end are ``PAD`` (-2).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..collection import PAD, UNJUDGED, Collection
from ..errors import InputError, warn_input
from ._cext import c_first_index, c_order_ties
from ._text import as_fixed, hash_ids
from .conventions import is_conventional, qrels_form_of
from .qrels import Qrels, read_qrels
from .runs import (PARALLEL_BYTES, ParsedRun, RunSource, cores, expand_runs, file_sizes, halves, read_run,
                   unique_sources)

__all__ = ["load_collection", "label_run", "check_trec_eval_version", "TREC_EVAL_VERSIONS"]

_TOPIC_SHIFT = np.uint64(48)
_LOW48 = np.uint64((1 << 48) - 1)


TREC_EVAL_VERSIONS = (9, 10)


def check_trec_eval_version(v) -> int:
    """``trec_eval_version`` as an int, 9 or 10 (else ValueError)."""
    try:
        iv = int(v)
    except (TypeError, ValueError):
        iv = None
    if iv not in TREC_EVAL_VERSIONS or (isinstance(v, float) and v != iv):
        raise ValueError(f"trec_eval_version must be 9 or 10, got {v!r}")
    return iv


def _warn(msg: str) -> None:
    warn_input(msg)                    # attributed to the caller outside metaeval


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _preview(items, k: int = 5) -> str:
    items = list(items)
    s = ", ".join(items[:k])
    return s + (f", ... ({len(items)} in all)" if len(items) > k else "")


class _QrelsIndex:
    """Qrels prepared for vectorised lookup of (topic, document) -> level."""

    def __init__(self, q: Qrels, used_topics: list[str]):
        self.q = q
        self.qtopic = {t.encode("utf-8"): i for i, t in enumerate(q.topics)}
        pos = {t: i for i, t in enumerate(used_topics)}
        self.used_of_qtopic = np.array([pos.get(t, -1) for t in q.topics], np.int64)
        self.fast = len(q.topics) < (1 << 16)
        if self.fast:
            key = self.key = (q.topic_index.astype(np.uint64) << _TOPIC_SHIFT) | (q.doc_hash >> np.uint64(16))
            # plain numpy: sorted keys + searchsorted (the C path: a hash table, _cext.c_first_index)
            self.order = np.argsort(key, kind="stable")
            self.sorted = key[self.order]
            if len(key) > 1 and (self.sorted[1:] == self.sorted[:-1]).any():
                self.fast = False           # a 48-bit hash collision inside a topic: exact path

    def entries(self, qt: np.ndarray, dhash: np.ndarray, docs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Qrels row of each (qrels topic index ``qt[i]``, document ``docs[rows[i]]``) -- ``docs``
        the run's ``S<W>`` ids, ``dhash`` their hashes per i; -1 if not judged."""
        n = len(qt)
        out = np.full(n, -1, np.int64)
        if n == 0 or len(self.q) == 0:
            return out
        if not self.fast:
            pos = getattr(self, "_pos", None)
            if pos is None:
                pos = self._pos = {(int(t), d): k for k, (t, d) in
                                   enumerate(zip(self.q.topic_index.tolist(), self.q.docs.tolist()))}
            for i, (t, d) in enumerate(zip(qt.tolist(), docs[rows].tolist())):
                out[i] = pos.get((t, d), -1)
            return out
        key = (qt.astype(np.uint64) << _TOPIC_SHIFT) | (dhash >> np.uint64(16))
        fast = c_first_index(np.concatenate([self.key, key]))    # C: one hash table, no search
        if fast is not None:
            N = len(self.key)
            qi = fast[0][N:]
            qi[qi >= N] = -1
        else:
            p = np.minimum(np.searchsorted(self.sorted, key), len(self.sorted) - 1)
            qi = np.where(self.sorted[p] == key, self.order[p], -1)
        cand = np.flatnonzero(qi >= 0)
        qi = qi[cand]
        ok = self.q.docs[qi] == docs[rows[cand]]        # verify byte for byte (exact)
        out[cand[ok]] = qi[ok]
        return out

    def levels_of(self, entries: np.ndarray) -> np.ndarray:
        """The level of each qrels row of :meth:`entries` (UNJUDGED for -1)."""
        if len(self.q) == 0:
            return np.full(len(entries), UNJUDGED, np.int8)
        return np.where(entries >= 0, self.q.level[np.maximum(entries, 0)], UNJUDGED).astype(np.int8)


def _ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for each (s, l), vectorised."""
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offs = np.cumsum(lens) - lens
    return np.repeat(starts - offs, lens) + np.arange(total)


def label_run(run: ParsedRun, index: _QrelsIndex, n_topics: int, width: int, order: str = "file",
              depth: int | None = 1000, entries: np.ndarray | None = None,
              trec_eval_version: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Label one parsed run: ``(levels (topics, width) int8, lengths (topics,))`` over the
    collection's used topics, applying the ordering, de-duplication and truncation policies and
    emitting their warnings (``trec_eval_version`` 10: scores compared in double precision, as
    trec_eval 10.0; 9: in single precision, as trec_eval 9.0.x, pytrec_eval and ir_measures).
    ``entries`` (optional, (topics, width) int64, filled with a pad
    value by the caller) receives the qrels row of the document at every rank (-1: unjudged).  Works on row indices; document bytes are touched only to hash them
    and to verify hash matches."""
    n = len(run.lines)
    levels = np.full((n_topics, width), PAD, np.int8)
    lengths = np.zeros(n_topics, np.int64)
    src = run.sources[0] if run.sources else run.name
    if n:
        # topics: blocks of equal consecutive topic ids, mapped through their distinct values
        tb = run.topics
        starts = np.flatnonzero(np.r_[True, tb[1:] != tb[:-1]])
        blen = np.diff(np.r_[starts, n])
        bvals, binv = np.unique(tb[starts], return_inverse=True)
        qt_of_val = np.array([index.qtopic.get(b, -1) for b in bvals.tolist()], np.int64)
        unknown = [b.decode("utf-8", "replace") for b, q in zip(bvals.tolist(), qt_of_val) if q < 0]
        if unknown:
            _warn(f"{src}: run {run.name}: {_plural(len(unknown), 'topic')} not in the qrels ignored: "
                  f"{_preview(unknown)}")
        bq = qt_of_val[binv]
        bc = np.where(bq >= 0, index.used_of_qtopic[np.maximum(bq, 0)], -1)
        # file order: the blocks of each topic in file order (stable), rows within blocks as is
        kb = np.flatnonzero(bc >= 0)
        kb = kb[np.argsort(bc[kb], kind="stable")]
        rows = _ranges(starts[kb], blen[kb])
        ct = np.repeat(bc[kb], blen[kb])
        qt = np.repeat(bq[kb], blen[kb])
        docs = run.docs
        h_all = run.doc_hash if run.doc_hash is not None else hash_ids(docs)
        dhash = h_all[rows]
        if order not in ("file", "score"):
            raise ValueError(f"order must be 'file' or 'score', got {order!r}")
        if order == "score" and (not run.has_scores or run.scores is None):
            raise InputError(f"run {run.name}: order='score' needs scores (TREC 6-column runs); "
                             f"NTCIREVAL .res lists have none", src)
        if run.scores is not None and len(rows):
            # trec_eval 10.0 keeps SCORE as a C double, 9.0.x (and pytrec_eval) as a float: scores
            # equal in that precision tie (and are then ordered by DOCID descending)
            sc = run.scores[rows]
            if trec_eval_version == 9:
                with np.errstate(over="ignore"):
                    sc = sc.astype(np.float32)
            key = _score_key(sc)
            same = ct[:-1] == ct[1:]                 # ct is sorted: pairs within one topic
            brk = _order_breaks(key, same, docs, rows)
            if brk is not None:
                # ties ordered otherwise than by DOCID are no disagreement: only a score that
                # rises down the list is (and not under an order='score' the caller chose)
                rise = same & (key[:-1] > key[1:])
                rises = bool(rise.any())
                # a DataFrame without a rank column ranked by score: its rows claim no ranking
                rows_only = getattr(run, "order_name", "") == "row order"
                if rises and (order != "score" or (is_conventional(order) and not rows_only)):
                    _warn_order_disagreement(run, src, ct, rise, order, index.q.topics, qt)
                if order == "score":
                    o = _score_order(ct, key, docs, rows, sort=rises)
                    rows, ct, qt, dhash = rows[o], ct[o], qt[o], dhash[o]
        # repeated documents within a topic: keep the first position
        dup = _duplicates(ct, dhash, docs, rows)
        if dup is not None:
            first_dup = int(np.flatnonzero(dup)[0])
            line = int(rows[first_dup])
            _warn(f"{run.where(line)}: run {run.name}: document {run.doc(line)} repeated in topic "
                  f"{index.q.topics[qt[first_dup]]}; later occurrences dropped, first position kept "
                  f"({_plural(int(dup.sum()), 'repeated line')} in this run)")
            nd = ~dup
            rows, ct, qt, dhash = rows[nd], ct[nd], qt[nd], dhash[nd]
        # rank within topic (ct is sorted), truncation
        counts = np.bincount(ct, minlength=n_topics)
        rank = np.arange(len(ct)) - (np.cumsum(counts) - counts)[ct]
        lim = width if depth is None else min(depth, width)
        if len(rank) and int(rank.max()) >= lim:
            t = rank < lim
            rows, ct, qt, dhash, rank = rows[t], ct[t], qt[t], dhash[t], rank[t]
        ent = index.entries(qt, dhash, docs, rows)
        levels[ct, rank] = index.levels_of(ent)
        if entries is not None:
            entries[ct, rank] = ent
        lengths = np.bincount(ct, minlength=n_topics).astype(np.int64)
    missing = int((lengths == 0).sum())
    if missing:
        _warn(f"{src}: run {run.name}: {_plural(missing, 'topic')} of the qrels missing from the run: "
              f"empty list, 0 on every metric")
    return levels, lengths


def _warn_order_disagreement(run: ParsedRun, src, ct: np.ndarray, rise: np.ndarray, order: str,
                             qtopics, qt: np.ndarray) -> None:
    """One warning per run whose own order (file lines, DataFrame rows or ``rank``) is not by
    non-increasing score on some topic (``rise``: the adjacent pairs whose score rises; tied scores
    in another order than trec_eval's DOCID rule are no disagreement): how many topics, and which
    order is used (docs/io.md, "Conventions")."""
    at = np.flatnonzero(rise)
    bad = ct[at]                                   # ct is sorted: count its distinct values
    n_bad = 1 + int(np.count_nonzero(bad[1:] != bad[:-1]))
    n_topics = 1 + int(np.count_nonzero(ct[1:] != ct[:-1]))
    first = qtopics[int(qt[int(at[0])])]
    given = getattr(run, "order_name", "file order")
    used = ("score order (trec_eval's convention)" if order == "score"
            else f"{given} (NTCIREVAL's convention)")
    _warn(f"{src}: run {run.name}: its {given} is not by decreasing score on "
          f"{_plural(n_bad, 'topic')} of {n_topics} (first: topic {first}); ranked by {used}; "
          f"order 'file' or 'score' (--order, config order:) chooses")


def _score_key(sc: np.ndarray) -> np.ndarray:
    """uint64 keys ``~orderable(score)`` (``sc`` float32 or float64): ascending keys are by score
    descending; scores equal in C tie (-0.0 and +0.0), NaN below every number."""
    x = np.asarray(sc, np.float64) + 0.0                          # -0.0 -> +0.0 (they tie in C)
    u = x.view(np.uint64)
    # float64 bits -> uint64 with the same order (negative: flip all bits; positive: set sign bit)
    sign = np.uint64(1 << 63)
    u = np.where(u & sign, ~u, u | sign)
    u[np.isnan(x)] = 0                                            # NaN: below every number, -inf too
    return ~u


def _order_breaks(key: np.ndarray, same: np.ndarray, docs: np.ndarray, rows: np.ndarray) -> np.ndarray | None:
    """Where the given order (rows grouped by topic, ``key`` :func:`_score_key`, ``same`` the
    adjacent pairs within one topic) is not trec_eval's: a mask of the adjacent pairs (i, i + 1)
    out of that order -- a higher key, or an equal key and a lower DOCID (byte order) -- or None
    when there is none.  Without a sort: a topic's list is in score order iff each of its pairs
    is, and :func:`_score_order` leaves exactly those in place."""
    brk = same & (key[:-1] > key[1:])
    tie = np.flatnonzero(same & (key[:-1] == key[1:]))
    if len(tie):
        brk[tie] = docs[rows[tie]] < docs[rows[tie + 1]]
    return brk if brk.any() else None


def _score_order(ct: np.ndarray, key: np.ndarray, docs: np.ndarray, rows: np.ndarray,
                 sort: bool = True) -> np.ndarray:
    """Permutation sorting by topic (``ct``, sorted), then ``key`` (:func:`_score_key`: score
    descending), then DOCID descending (byte order, trec_eval's ``comp_sim_docno``), then position.

    One stable sort (none when ``sort`` is false: the scores never rise down a topic's list, as
    in most run files, and only ties may be out of order); the rows of equal (topic, key) (only
    those) are then reordered within their group by DOCID descending, a stable sort keeping equal
    DOCIDs in place."""
    if sort:
        o = np.argsort(key, kind="stable")                        # by key, then topic (radix)
        o = o[np.argsort(ct[o].astype(np.uint16 if len(ct) and ct.max() < 65536 else np.int64), kind="stable")]
    else:
        o = np.arange(len(key))
    ks, cs = key[o], ct[o]
    eq = (ks[1:] == ks[:-1]) & (cs[1:] == cs[:-1])
    if not eq.any():
        return o
    group = np.cumsum(np.r_[True, ~eq]).astype(np.uint64)         # group of equal keys, ascending
    gkey = np.empty(len(o), np.uint64)
    gkey[o] = group
    if c_order_ties(o, gkey, rows, docs):          # C: each group of ties sorted in place
        return o
    pos = np.flatnonzero(np.r_[eq, False] | np.r_[False, eq])     # positions in a group of >= 2
    code = np.unique(docs[rows[o[pos]]], return_inverse=True)[1]  # rank of the DOCID in byte order
    o[pos] = o[pos][np.lexsort((-code.ravel(), group[pos]))]
    return o


def _duplicates(ct: np.ndarray, dhash: np.ndarray, docs: np.ndarray, rows: np.ndarray) -> np.ndarray | None:
    """Mask of later occurrences of a (topic, doc) already seen earlier in the list, or None."""
    m = len(ct)
    if m < 2:
        return None
    key = (ct.astype(np.uint64) << _TOPIC_SHIFT) | (dhash >> np.uint64(16))
    fast = c_first_index(key)                     # C: one hash table, no sort
    if fast is not None:
        first, repeats = fast
        if not repeats:
            return None
        b = np.flatnonzero(first != np.arange(m))
        a = first[b]                               # each repeat and the first of its key
    else:
        # quick test on 32 bits (a cheaper sort): distinct 32-bit keys prove there are no repeats
        k32 = ((dhash >> np.uint64(32)).astype(np.uint32) ^ (ct.astype(np.uint32) * np.uint32(0x9E3779B1)))
        k32.sort()
        if not (k32[1:] == k32[:-1]).any():
            return None
        o = np.argsort(key, kind="stable")
        ks = key[o]
        eq = np.flatnonzero(ks[1:] == ks[:-1])
        a, b = o[eq], o[eq + 1]                    # each repeat and the one before it
    same = docs[rows[a]] == docs[rows[b]]
    dup = np.zeros(m, bool)
    if not same.all():
        # a hash collision among candidates: decide exactly (rare)
        seen = set()
        for i, (c, d) in enumerate(zip(ct.tolist(), docs[rows].tolist())):
            if (c, d) in seen:
                dup[i] = True
            seen.add((c, d))
        return dup if dup.any() else None
    dup[b] = True
    return dup if dup.any() else None


def _runs_arg(runs) -> list[RunSource]:
    if isinstance(runs, (str, os.PathLike, RunSource)):
        runs = [runs]
    given = [r for r in runs if isinstance(r, RunSource)]
    specs = [r for r in runs if not isinstance(r, RunSource)]
    return unique_sources(given + (expand_runs(specs) if specs else []))


def _runs_info(sources: list[RunSource]) -> dict:
    """``Collection.info["runs"]``: run name -> its file (or per-topic files); the cache key."""
    return {s.name: list(s.files) if s.path is None else s.path for s in sources}


def _run_topic_ids(pr) -> list:
    """The distinct topic ids (bytes) of a parsed run, from the starts of its blocks of equal ids."""
    tb = pr.topics
    if not len(tb):
        return []
    starts = np.flatnonzero(np.r_[True, tb[1:] != tb[:-1]])
    ids = np.sort(tb[starts])                # the distinct ids (np.unique would import numpy.ma)
    return ids[np.r_[True, ids[1:] != ids[:-1]]].tolist()


def _check_common_topics(q: Qrels, qsrc: str, used: list, parsed: list) -> None:
    """Qrels and runs without one topic in common (the qrels of another collection): an error naming
    both, before any per-run warning -- not a table of zeros.  Runs without any line keep their
    documented warning."""
    if not parsed:
        return
    used_ids = {t.encode("utf-8") for t in used}
    run_ids: set = set()
    for pr, _ in parsed:
        ids = _run_topic_ids(pr)
        if used_ids.intersection(ids):
            return
        run_ids.update(ids)
    if not run_ids:
        return                               # empty runs: the documented warning, zeros
    srcs = [pr.sources[0] if pr.sources else pr.name for pr, _ in parsed]
    runs = srcs[0] + (f" (and {_plural(len(srcs) - 1, 'other run')})" if len(srcs) > 1 else "")
    shown = sorted(b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b) for b in run_ids)
    raise InputError(f"no topic in common with the runs {runs}: the qrels' topics are {_preview(used)}, "
                     f"the runs' {_preview(shown) or 'none'}; are these the qrels of these runs?", qsrc)


def _retrieved_topics(q: Qrels, qsrc: str, used: list, parsed: list) -> list:
    """TREC input (TREC-form qrels, every run with scores): the topics of ``used`` that some run
    retrieved -- the qrels of a larger set (several years, a whole ir_datasets collection) average
    over the runs' topics, as trec_eval 9, pytrec_eval and ir_measures do; one warning says how
    many were left out.  A topic some run did not retrieve stays (0 for that run, trec_eval's
    ``-c``).  NTCIR input keeps every qrels topic (NTCIREVAL's topic set)."""
    if not parsed or qrels_form_of(q) != "trec" or not all(pr.has_scores for pr, _ in parsed):
        return used
    seen: set = set()
    for pr, _ in parsed:
        seen.update(_run_topic_ids(pr))
    if not seen:
        return used                          # empty runs: the documented warning, zeros
    kept = [t for t in used if t.encode("utf-8") in seen]
    gone = [t for t in used if t.encode("utf-8") not in seen]
    if gone and kept:
        _warn(f"{qsrc}: {_plural(len(gone), 'topic')} of the qrels that no run retrieved left out of "
              f"the topic set (TREC input; {len(kept)} kept): {_preview(gone)}")
        return kept
    return used


def label_runs(q: Qrels, parsed: list, depth: int | None, progress=None, entries: bool = False,
               trec_eval_version: int = 10):
    """Label parsed runs ``[(ParsedRun, order), ...]`` against ``q`` (the second half of
    :func:`load_collection`, shared with :mod:`metaeval.io.frames`): ``(used topics, excluded
    topics, levels (runs, topics, width), lengths (runs, topics), entry or None)``.  Topics without
    a relevant document are excluded with a warning."""
    nrel = q.n_relevant
    used = [t for t, r in zip(q.topics, nrel) if r > 0]
    excluded = [t for t, r in zip(q.topics, nrel) if r == 0]
    qsrc = q.sources[0] if q.sources else "qrels"
    if excluded:
        _warn(f"{qsrc}: {_plural(len(excluded), 'topic')} without any relevant document excluded from "
              f"the topic set: {_preview(excluded)}")
    if not used:
        raise InputError("no topic of the qrels has a relevant document", qsrc)
    _check_common_topics(q, qsrc, used, parsed)
    used = _retrieved_topics(q, qsrc, used, parsed)
    index = _QrelsIndex(q, used)
    width = depth
    if width is None:
        width = 1
        for pr, _ in parsed:
            if len(pr.lines):
                _, c = np.unique(pr.topics, return_counts=True)
                width = max(width, int(c.max()))
    T = len(used)
    levels = np.empty((len(parsed), T, width), np.int8)
    lengths = np.empty((len(parsed), T), np.int64)
    entry = np.full((len(parsed), T, width), PAD, np.int64) if entries else None
    for i, (pr, order) in enumerate(parsed):
        if isinstance(pr, _Labelled):
            if pr.used == tuple(used) and pr.levels.shape[1] == width:      # labelled ahead, as here
                levels[i], lengths[i] = pr.levels, pr.lengths
                if entry is not None:
                    entry[i] = pr.entry
                if progress is not None:
                    progress(i + 1, len(parsed), pr.name)
                continue
            pr = read_run(pr.source, scores=True)        # over other topics: labelled here
        levels[i], lengths[i] = label_run(pr, index, T, width, order, depth,
                                          None if entry is None else entry[i], trec_eval_version)
        if progress is not None:
            progress(i + 1, len(parsed), pr.name)
    return used, excluded, levels, lengths, entry


@dataclass(frozen=True, eq=False)
class _Labelled:
    """A run read and labelled ahead by :func:`_read_ahead` over the topics ``used``: what
    :func:`label_runs` takes for it when the collection's topics are those (else it reads the run
    again and labels it).  ``topics``: the run's distinct topic ids (what the topic checks read)."""
    name: str
    source: RunSource
    topics: np.ndarray
    used: tuple[str, ...]
    levels: np.ndarray
    lengths: np.ndarray
    entry: np.ndarray
    has_scores: bool = True

    @property
    def sources(self) -> tuple[str, ...]:
        return self.source.files


def _silently(func, *args):
    """``func(*args)``, or None when it warns or raises an ``Exception``."""
    import warnings

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = func(*args)
    except Exception:                                # noqa: BLE001 - reported when done again
        return None
    return None if caught else out


def _read_ahead(source: RunSource, index: _QrelsIndex, used: tuple[str, ...], order: str, depth: int,
                trec_eval_version: int) -> ParsedRun | _Labelled | None:
    """One run read and labelled over ``used`` (the qrels' topics with a relevant document) without a
    word: the labelled run; the parsed run when labelling warns or fails; None when reading does
    (:func:`load_collection` reads it again, in order, and says what one process says)."""
    run = _silently(read_run, source, True)
    if run is None:
        return None
    ids = _run_topic_ids(run)
    entry = np.full((len(used), depth), PAD, np.int64)
    got = _silently(label_run, run, index, len(used), depth, order, depth, entry, trec_eval_version)
    if got is None or not ids:
        return run
    return _Labelled(run.name, source, np.array(ids), used, got[0], got[1], entry)


def _read_runs(q: Qrels, sources: list[RunSource], order: str, depth: int | None,
               trec_eval_version: int) -> list:
    """The runs of :func:`load_collection`, parsed.  On two cores, when they are TREC run files of
    at least :data:`~metaeval.io.runs.PARALLEL_BYTES` in all and ``depth`` is set, they are read
    and labelled ahead (:func:`_read_ahead`, over the qrels' topics with a relevant document) in
    two halves of about equal bytes, the second by a forked process
    (:func:`metaeval.workers.split_map`; ``METAEVAL_SERIAL=1``: this process only).  What warns or
    fails ahead is read here, in order (and labelled by :func:`label_runs`): the warnings and
    errors are those of one process, the arrays the same bit for bit."""
    sizes = file_sizes(sources)
    if sizes is None or depth is None or len(sources) < 2 or sum(sizes) < PARALLEL_BYTES or cores() < 2 \
            or os.environ.get("METAEVAL_SERIAL"):
        return [read_run(s, scores=True) for s in sources]
    import functools

    from ..util import release_sources
    from ..workers import split_map

    used = tuple(t for t, r in zip(q.topics, q.n_relevant) if r > 0)
    ahead = functools.partial(_read_ahead, index=_QrelsIndex(q, list(used)), used=used, order=order,
                              depth=depth, trec_eval_version=trec_eval_version)
    got = split_map(ahead, sources, halves(sizes))
    parsed = [r if isinstance(r, (ParsedRun, _Labelled)) else read_run(s, scores=True)
              for s, r in zip(sources, got)]
    release_sources()                  # the bytes sniffing kept of files the forked process read
    return parsed


def load_collection(qrels, runs, order: str | None = None, depth: int | None = 1000,
                    max_level: int | None = None,
                    progress: Callable[[int, int, str], None] | None = None,
                    entries: bool = False, trec_eval_version: int = 10):
    """Parse and label qrels and runs into a :class:`Collection`.

    ``qrels``: a path (NTCIR/TREC form, or an NTCIREVAL per-topic directory), a list of paths, or a
    :class:`~metaeval.io.qrels.Qrels`.  ``runs``: paths, globs or directories (see
    :func:`metaeval.io.runs.expand_runs`); runs are sorted by name.  ``order`` ``"file"`` or
    ``"score"``, default (None) by the input's form: ``"score"`` for TREC-form qrels and TREC runs,
    else ``"file"`` (:mod:`metaeval.io.conventions`); ``depth`` truncation depth (``None``: no truncation); ``max_level`` H of the level
    scale (default: the highest level in the qrels).  ``progress(i, n, run_name)`` is called after
    each run.  Raises :class:`InputError` naming file and line on rejected input; policies with a
    fallback emit :class:`InputWarning` (see the module docstring).  ``entries=True`` returns
    ``(collection, entry)`` with ``entry`` (runs, topics, width) int64 the qrels row of the document
    at every rank (-1 unjudged, ``PAD`` past the end of a list), for forms that carry more per
    judgment than its level (diversity intents, equivalence classes).  ``trec_eval_version``: 10
    (default) ranks by score in double precision, as trec_eval 10.0 (``metaeval trec_eval``); 9 in
    single precision, as trec_eval 9.0.x, pytrec_eval and ir_measures.
    """
    if order not in (None, "file", "score"):
        raise ValueError(f"order must be 'file' or 'score', got {order!r}")
    trec_eval_version = check_trec_eval_version(trec_eval_version)
    if depth is not None:
        depth = int(depth)
        if depth < 1:
            raise ValueError(f"depth must be >= 1 (or None), got {depth}")
    q = qrels if isinstance(qrels, Qrels) else read_qrels(qrels, max_level=max_level)
    q = q.with_max_level(max_level)
    sources = _runs_arg(runs)
    if order is None:
        from .conventions import default_order

        order = default_order(None, q, sources)
    if not sources:
        raise InputError("no runs given")
    parsed = _read_runs(q, sources, order, depth, trec_eval_version)
    used, excluded, levels, lengths, entry = label_runs(q, [(pr, order) for pr in parsed], depth,
                                                        progress, True, trec_eval_version)
    qi = np.array([q.topics.index(t) for t in used], np.int64) if used else np.zeros(0, np.int64)
    identity = document_identity(q, qi, entry)
    level_counts = q.level_counts[qi]
    info = {
        "qrels": list(q.sources),
        "qrels_form": q.form,
        "runs": _runs_info(sources),
        "order": order,
        "depth": depth,
        "max_level": q.max_level,
        "trec_eval_version": trec_eval_version,
    }
    c = Collection(topics=tuple(used), runs=tuple(s.name for s in sources), levels=levels,
                   lengths=lengths, level_counts=level_counts, excluded_topics=tuple(excluded), info=info,
                   **identity)
    return (c, entry) if entries else c


def document_identity(q: Qrels, qi: np.ndarray, entry: np.ndarray) -> dict:
    """The document identity of a collection (:class:`~metaeval.collection.Collection`'s
    ``qrels_row``, ``judged_topic``, ``judged_docs``, ``judged_level``): the judgments of the used
    topics (qrels topic indices ``qi``, in collection order) and, from ``entry`` (the qrels row at
    every rank, :func:`label_runs`), the entry of each ranked document among them."""
    pos = np.full(len(q.topics), -1, np.int64)
    pos[qi] = np.arange(len(qi))
    tpos = pos[q.topic_index] if len(q) else np.zeros(0, np.int64)
    sel = np.flatnonzero(tpos >= 0)
    sel = sel[np.argsort(tpos[sel], kind="stable")]          # by collection topic, then file order
    # qrels row -> entry (-1: topic not used); the last two places map PAD (-2) and -1 to themselves
    new = np.full(len(q) + 2, -1, np.int32)
    new[sel] = np.arange(len(sel))
    new[PAD] = PAD
    row = new[entry]                                         # one gather (entry: PAD, -1 or a qrels row)
    docs = q.docs[sel]
    if docs.dtype == object:
        fixed = as_fixed(docs)                              # None: long ids stay bytes objects
        docs = docs if fixed is None else fixed
    return {"qrels_row": row, "judged_topic": tpos[sel].astype(np.int32), "judged_docs": docs,
            "judged_level": np.asarray(q.level[sel], np.int8)}
