"""trec_eval's ranking of a run against its qrels (``form_res_rels.c``), as arrays: what
:mod:`metaeval.treceval` evaluates and the drop-in ``metaeval trec_eval`` prints.

Per topic: score descending, ties by DOCID descending in byte order (``strcmp``, trec_eval's
``comp_sim_docno``); then ``-M`` keeps the first M; then ``-J`` drops every document that is not
judged (levels -1 and -2); ``-c`` gives a topic of the qrels the run misses one non-pooled document.
A document retrieved twice for one topic is an error, as in trec_eval (``duplicate docs``).  Runs
are read by :mod:`metaeval.treceval.reader`'s numpy reader (the specification) or, for the usual input,
scanned and ranked in one pass by the optional C scanner ``metaeval.treceval._trecscan`` (:func:`rank_run_file`).

Relevance values along a ranking: the judged level (>= 0), ``NONPOOL`` (-1) for a document absent from
the qrels, ``UNJUDGED`` (-2) for a negative judgment, ``PAD_REL`` past the end of the list.
"""

from __future__ import annotations

from types import ModuleType

import os
from dataclasses import dataclass

import numpy as np

from ..io._cext import c_extensions_enabled
from ..io._text import as_fixed, hash_ids
from .reader import NONPOOL, PAD_REL, UNJUDGED, TrecQrels, TrecRun, _calc_error, read_trec_run

def _load_cscan() -> ModuleType | None:
    """The optional C scanner (docs/io.md, "trec_eval run scanner"), or None."""
    try:
        from . import _trecscan
    except ImportError:  # pragma: no cover - depends on the build
        return None
    return _trecscan


_cscan = _load_cscan()


def c_scanner():
    """The C run scanner (module ``metaeval.treceval._trecscan``), or None: not built, or
    ``METAEVAL_NO_CEXT`` set (:func:`metaeval.io._cext.c_extensions_enabled`)."""
    if _cscan is None or not c_extensions_enabled():
        return None
    return _cscan

__all__ = ["TrecRanking", "rank_runs", "rank_run_file", "rank_run_files", "stack_rankings"]


@dataclass(frozen=True, eq=False)
class TrecRanking:
    """Rankings of several runs on the qrels topics, as trec_eval forms them.

    ``rel[r, t, k]``  int32: relevance value at rank ``k + 1`` of run ``r`` on topic ``t`` (module
                      docstring; ``PAD_REL`` past ``num_ret``).
    ``num_ret[r, t]`` documents in the ranking (after ``-M`` and ``-J``).
    ``present[r, t]`` the run retrieved something for the topic (else: ``-c``'s empty ranking).
    ``rel_levels[t, j]`` judged documents of level ``j`` (>= 0).
    """
    topics: tuple[str, ...]
    runs: tuple[str, ...]
    run_ids: tuple[str, ...]
    rel: np.ndarray
    num_ret: np.ndarray
    present: np.ndarray
    rel_levels: np.ndarray
    num_rel_positive: int


def _rank_one(q: TrecQrels, run: TrecRun, max_docs: int | None, judged_only: bool,
              complete: bool, float32: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One run: ``(rel (T, D) int32, num_ret (T,), present (T,))``."""
    T = len(q.topics)
    # run topics -> qrels topic index (-1: not in the qrels, ignored as trec_eval does)
    tb = run.topics
    starts = np.flatnonzero(np.r_[True, tb[1:] != tb[:-1]]) if len(tb) else np.zeros(0, np.int64)
    blen = np.diff(np.r_[starts, len(tb)])
    tu, binv = np.unique(tb[starts], return_inverse=True)      # distinct values of the topic blocks
    pos = np.searchsorted(q.topic_bytes, tu) if q.topic_bytes.dtype.kind == "S" and tu.dtype.kind == "S" \
        else np.array([_find(q.topic_bytes, x) for x in tu.tolist()], np.int64)
    pos = np.asarray(pos, np.int64)
    ok = pos < T
    ok[ok] = q.topic_bytes[pos[ok]] == tu[ok]
    tmap = np.where(ok, pos, -1).astype(np.int32)
    ti = np.repeat(tmap[binv], blen)
    keep = ti >= 0
    if keep.all():
        docs, sc, lines = run.docs, run.scores, run.lines
    else:
        ti = ti[keep]
        docs = run.docs[keep]
        sc = run.scores[keep]
        lines = run.lines[keep]
    if float32:                 # trec_eval 9.0.x keeps SCORE as a C float (beyond its range: +-inf)
        with np.errstate(over="ignore"):
            sc = sc.astype(np.float32).astype(np.float64)
    fast = _fast_rel(q, run, keep, ti, docs, lines)
    if fast is not None:
        rel, o = fast
        return _finish(T, ti, rel, o, max_docs, complete, judged_only, sc, docs)
    # one code space for the run's and the qrels' DOCIDs (byte order)
    allq = q.docs
    du, dinv = np.unique(np.concatenate([docs.astype(object) if docs.dtype != allq.dtype and
                                         (docs.dtype.kind == "O" or allq.dtype.kind == "O") else docs,
                                         allq.astype(object) if docs.dtype != allq.dtype and
                                         (docs.dtype.kind == "O" or allq.dtype.kind == "O") else allq]),
                         return_inverse=True)
    dcode = dinv[:len(docs)].astype(np.int64)
    qcode = dinv[len(docs):].astype(np.int64)
    ND = max(1, len(du))
    # duplicates within a topic
    key = ti * ND + dcode
    ko = np.argsort(key, kind="stable")
    ks = key[ko]
    d = np.flatnonzero(ks[1:] == ks[:-1])
    if len(d):
        a, b = ko[d[0]], ko[d[0] + 1]
        raise _calc_error(f"document {bytes(docs[b]).decode('utf-8', 'replace')} retrieved twice for topic "
                          f"{q.topics[ti[b]]} (lines {int(lines[a])} and {int(lines[b])}); trec_eval "
                          f"refuses duplicate docs", run.path, int(lines[b]))
    # judgments: qrels key sorted (q sorted by topic then DOCID bytes = code order)
    qkey = q.topic_index * ND + qcode
    j = np.searchsorted(qkey, key)
    jj = np.minimum(j, len(qkey) - 1)
    hit = (j < len(qkey)) & (qkey[jj] == key) if len(qkey) else np.zeros(len(key), bool)
    rel = np.where(hit, q.rel[jj] if len(qkey) else 0, NONPOOL)
    rel = np.where(hit & (rel < 0), UNJUDGED, rel)
    # ranking: topic, score descending, DOCID descending (comp_sim_docno)
    o = np.lexsort((-dcode, -sc, ti))
    return _finish(T, ti, rel, o, max_docs, complete, judged_only)


_MIX = np.uint64(0x9E3779B97F4A7C15)


def _qkeys(q: TrecQrels):
    k = q.__dict__.get("_qkeys")
    if k is None:
        with np.errstate(over="ignore"):
            key = hash_ids(q.docs) ^ (q.topic_index.astype(np.uint64) * _MIX)
        o = np.argsort(key, kind="stable")
        k = (key[o], o)
        object.__setattr__(q, "_qkeys", k)
    return k


def _fast_rel(q, run, keep, ti, docs, lines):
    """Relevance values by 64-bit hash of (topic, DOCID), verified byte for byte, and the ranking
    order (topic, score descending, DOCID descending); None on a hash collision (exact path)."""
    if run.doc_hash is None:
        return None
    h = run.doc_hash if keep.all() else run.doc_hash[keep]
    with np.errstate(over="ignore"):
        key = h ^ (ti.astype(np.uint64) * _MIX)
    ko = np.argsort(key)
    ks = key[ko]
    if (ks[1:] == ks[:-1]).any():
        return None                     # a repeated document (or a collision): the exact path
    qk, qo = _qkeys(q)
    if len(qk):
        j = np.empty(len(key), np.int64)
        j[ko] = np.searchsorted(qk, ks)          # sorted needles: a merge-like, cache-friendly search
        np.minimum(j, len(qk) - 1, out=j)
        hit = qk[j] == key
        jj = qo[j[hit]]
        if not ((q.docs[jj] == docs[hit]).all() and (q.topic_index[jj] == ti[hit]).all()):
            return None
        rel = np.full(len(ti), NONPOOL, np.int32)
        r = q.rel[jj]
        rel[hit] = np.where(r < 0, UNJUDGED, r)
    else:
        rel = np.full(len(ti), NONPOOL, np.int32)
    return rel, None


def _finish(T, ti, rel, o, max_docs, complete, judged_only, sc=None, docs=None):
    if o is None:
        small = ti.astype(np.int16) if T < 32000 else ti
        o = np.argsort(small, kind="stable")                 # radix sort: topics, file order kept
        ts, ss = ti[o], sc[o]
        if not ((ts[1:] != ts[:-1]) | (ss[1:] <= ss[:-1])).all():     # not score-descending already
            o1 = np.argsort(-sc, kind="stable")
            o = o1[np.argsort(small[o1], kind="stable")]
        ts, ss = ti[o], sc[o]
        tie = (ts[1:] == ts[:-1]) & (ss[1:] == ss[:-1])
        if tie.any():
            # DOCID descending within (topic, score) ties: byte-order codes of the tied rows only
            mem = np.zeros(len(o), bool)
            mem[1:] |= tie
            mem[:-1] |= tie
            pos = np.flatnonzero(mem)                 # tie groups are contiguous in o
            rows = o[pos]
            group = np.cumsum(np.r_[True, ~tie[pos[:-1]]])
            code = np.unique(docs[rows], return_inverse=True)[1]
            o = o.copy()
            o[pos] = rows[np.lexsort((-code, group))]
    ti, rel = ti[o], rel[o]
    counts = np.bincount(ti, minlength=T)
    present = counts > 0
    rank = np.arange(len(ti)) - (np.cumsum(counts) - counts)[ti]
    if max_docs is not None:
        m = rank < max(0, max_docs)
        ti, rel, rank = ti[m], rel[m], rank[m]
    if complete:
        # form_res_rels on trec_eval.c's bogus ranking: one document absent from the qrels
        miss = np.flatnonzero(~present)
        if len(miss) and (max_docs is None or max_docs > 0):
            ti = np.concatenate([ti, miss])
            rel = np.concatenate([rel, np.full(len(miss), NONPOOL, rel.dtype)])
            rank = np.concatenate([rank, np.zeros(len(miss), rank.dtype)])
            o = np.argsort(ti * (2 ** 32) + rank, kind="stable")
            ti, rel, rank = ti[o], rel[o], rank[o]
    if judged_only:
        m = rel >= 0
        ti, rel = ti[m], rel[m]
        counts = np.bincount(ti, minlength=T)
        rank = np.arange(len(ti)) - (np.cumsum(counts) - counts)[ti]
    num_ret = np.bincount(ti, minlength=T).astype(np.int64)
    D = max(1, int(num_ret.max(initial=0)))
    out = np.full((T, D), PAD_REL, np.int32)
    out[ti, rank] = rel
    return out, num_ret, present


def _find(arr, x) -> int:
    for i, v in enumerate(arr.tolist()):
        if v == x:
            return i
    return len(arr)


def rank_runs(q: TrecQrels, runs: list[TrecRun], names: list[str] | None = None,
              max_docs: int | None = None, judged_only: bool = False,
              complete: bool = False, version: int = 10) -> TrecRanking:
    """trec_eval's rankings of ``runs`` on the topics of ``q`` (``-M max_docs``, ``-J``, ``-c``);
    ``version=9``: scores rounded to single precision first, as trec_eval 9.0.x keeps them."""
    parts = [_rank_one(q, r, max_docs, judged_only, complete, version == 9) for r in runs]
    names = names or [os.path.basename(r.path) for r in runs]
    return stack_rankings(q, parts, names, [r.run_id for r in runs])


def _scan_index(q: TrecQrels, ext):
    """The C scanner's hash tables of ``q`` (built once per qrels), or None when it cannot hold
    them (a REL outside int32, or ids too long for fixed-width arrays: the numpy path)."""
    d = q.__dict__
    if "_scan_index" not in d:
        idx = tb = db = None
        if len(q.rel) == 0 or (int(q.rel.min()) >= -2 ** 31 and int(q.rel.max()) < 2 ** 31):
            tb, db = as_fixed(q.topic_bytes), as_fixed(q.docs)
        if tb is not None and db is not None:        # else ids too long for fixed width: numpy path
            tb, db = np.ascontiguousarray(tb), np.ascontiguousarray(db)
            idx = ext.build_index(tb.tobytes(), len(tb), max(1, tb.itemsize),
                                  db.tobytes() if len(db) else b"\0", len(db), max(1, db.itemsize),
                                  np.ascontiguousarray(q.topic_index, np.int64).tobytes(),
                                  np.ascontiguousarray(q.rel, np.int64).tobytes())
        object.__setattr__(q, "_scan_index", idx)
    return d["_scan_index"]


def _scan_file(q: TrecQrels, path: str, max_docs, judged_only, complete, float32):
    """:func:`rank_run_file` by the C scanner: ``(rel, num_ret, present, run_id)``, or None when it
    is unavailable or declines the input (anything unusual: the numpy path reads it, and words any
    error)."""
    ext = c_scanner()
    if ext is None or path == "-":
        return None
    import stat
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None         # a pipe or device can be read once only: by the numpy reader
    except OSError:
        return None             # the numpy reader raises the error
    index = _scan_index(q, ext)
    if index is None:
        return None
    m = -1 if max_docs is None else min(max(0, int(max_docs)), 2 ** 62)
    mapped = _mapped(path)
    try:
        if mapped is None:
            from ..io._text import read_raw_bytes
            data = read_raw_bytes(path)             # gzip decompressed; errors as the numpy reader's
        else:
            data = mapped
        r = ext.scan_run(data, index, m, bool(judged_only), bool(complete), bool(float32))
    finally:
        if mapped is not None:
            mapped.close()
    if r is None:
        return None
    relb, D, numb, presb, tag = r
    T = len(q.topics)
    rel = np.frombuffer(relb, np.int32).reshape(T, D)
    num_ret = np.frombuffer(numb, np.int64)
    present = np.frombuffer(presb, np.uint8).view(np.bool_)
    return rel, num_ret, present, tag.decode("ascii")


def _mapped(path: str):
    """The plain (not gzip) non-empty regular file ``path`` memory-mapped read-only (no copy of its
    bytes), or None: gzip, empty, not mappable, or not readable (the caller reads it the usual way,
    which raises the usual error)."""
    import mmap
    try:
        with open(path, "rb") as fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    if mm[:2] == b"\x1f\x8b":
        mm.close()
        return None
    return mm


def rank_run_file(q: TrecQrels, path: str | os.PathLike, max_docs: int | None = None,
                  judged_only: bool = False, complete: bool = False, version: int = 10):
    """One run file read and ranked as ``_rank_one(q, read_trec_run(path, q.topic_bytes), ...)``
    does: ``(rel (T, D) int32, num_ret (T,) int64, present (T,) bool, run_id)``.  Uses the C
    scanner (:func:`c_scanner`) when it is built and the input is plain; otherwise, and for every
    input it declines (non-ASCII or NUL bytes, control bytes, short lines, duplicates, NaN scores,
    stdin ``-``), the numpy reader, which also raises the errors."""
    path = str(path)
    fast = _scan_file(q, path, max_docs, judged_only, complete, version == 9)
    if fast is not None:
        return fast
    run = read_trec_run(path, q.topic_bytes)
    rel, num_ret, present = _rank_one(q, run, max_docs, judged_only, complete, version == 9)
    return rel, num_ret, present, run.run_id


def rank_run_files(q: TrecQrels, paths: list, names: list[str] | None = None,
                   max_docs: int | None = None, judged_only: bool = False,
                   complete: bool = False, version: int = 10) -> TrecRanking:
    """:func:`rank_runs` of ``[read_trec_run(p, q.topic_bytes) for p in paths]``, through
    :func:`rank_run_file` (the C scanner when available)."""
    got = [rank_run_file(q, p, max_docs, judged_only, complete, version) for p in paths]
    names = names or [os.path.basename(str(p)) for p in paths]
    return stack_rankings(q, [g[:3] for g in got], names, [g[3] for g in got])


def stack_rankings(q: TrecQrels, parts, names, run_ids) -> TrecRanking:
    """One :class:`TrecRanking` of several runs' ``(rel, num_ret, present)`` (:func:`rank_run_file`),
    the lists padded to the longest."""
    T = len(q.topics)
    D = max([p[0].shape[1] for p in parts] + [1])
    rel = np.full((len(parts), T, D), PAD_REL, np.int32)
    for i, p in enumerate(parts):
        rel[i, :, :p[0].shape[1]] = p[0]
    num_ret = np.stack([p[1] for p in parts]) if parts else np.zeros((0, T), np.int64)
    present = np.stack([p[2] for p in parts]) if parts else np.zeros((0, T), bool)
    return TrecRanking(q.topics, tuple(names), tuple(run_ids), rel, num_ret, present,
                       q.rel_levels(), q.num_rel_positive())
