"""Qrels and runs read as TREC's ``ndeval`` 4.5 reads them (for the ``metaeval ndeval`` drop-in).

ndeval's rules, all kept:

* a line is split at C whitespace; qrels need 4 fields ``TOPIC SUBTOPIC DOCNO JUDGMENT`` and runs 6
  ``TOPIC Q0 DOCNO RANK SCORE RUNID`` (further fields are ignored); an empty line is a syntax error;
* TOPIC, SUBTOPIC, JUDGMENT and RANK are natural numbers (digits only; ndeval gives up above about
  a million); a run's TOPIC may carry a prefix up to a ``-`` (``wt09-1`` is topic 1);
  a JUDGMENT above 1 counts as 1 (binary relevance per subtopic);
* the run id is the RUNID of the first line; a run is ordered by RANK within each topic
  (``traditional``: by SCORE descending, then DOCNO descending, then ranked 1, 2, ...);
  ``depth`` (``-M``) keeps the first ``depth`` documents of each topic in that order;
* two lines of a topic with the same RANK, or (after the cut) the same DOCNO, are errors.

Departures, for inputs ndeval does not define: the same (topic, subtopic, docno) twice in the qrels
is an error here (ndeval keeps one of the judgments, whichever its unstable sort puts last, and
counts both); a run topic with a prefix but no ``-`` is a syntax error (ndeval reads past the end
of the field); a SCORE that is not a number reads as C's ``atof`` reads it (0 without a leading
number) where ndeval would leave it undefined.  Files may be gzipped.  Errors name the file and
line (:class:`metaeval.errors.InputError`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..cnum import c_atof
from ..errors import InputError
from ..io._text import DENSE_MAX, read_bytes, tokenize

__all__ = ["NdevalQrels", "NdevalRun", "read_ndeval_qrels", "read_ndeval_run"]

#: ndeval's naturalNumber gives up when the value before the next digit exceeds this
_LARGE_ENOUGH = 100000


def _natural(tok: bytes) -> int:
    """ndeval's ``naturalNumber``: the value of an all-digit token, -1 otherwise."""
    if not tok or not tok.isdigit():
        return -1
    if len(tok) > 1 and int(tok[:-1]) > _LARGE_ENOUGH:
        return -1
    return int(tok)


def _naturals(tokens: np.ndarray) -> np.ndarray:
    """:func:`_natural` of every token of a bytes array (int64; -1 where it fails), vectorised:
    a digit string is accepted when its value without the last digit is at most 100000."""
    ok = np.char.isdigit(tokens)
    stripped = np.char.lstrip(tokens, b"0")
    width = np.char.str_len(stripped)
    ok &= width <= 7
    value = np.zeros(len(tokens), dtype=np.int64)
    some = ok & (width > 0)
    value[some] = stripped[some].astype(np.int64)
    ok &= value // 10 <= _LARGE_ENOUGH
    return np.where(ok, value, -1)


def _topics(tokens: np.ndarray) -> np.ndarray:
    """ndeval's ``parseTopic`` of every token: a number, or a number after a prefix ending in ``-``
    (the prefixed tokens, rare, one by one)."""
    out = _naturals(tokens)
    prefixed = np.flatnonzero(~np.char.isdigit(tokens.astype("S1")))
    for k in prefixed:
        tok = bytes(tokens[k])
        cut = tok.find(b"-")
        out[k] = -1 if cut < 0 else _natural(tok[cut + 1:])
    return out


def _lines(path, what: str, data: bytes | None = None) -> list[bytes]:
    data = read_bytes(path) if data is None else data
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        raise InputError(f"{what} file is empty", path)
    return lines


#: bytes that C's whitespace (ndeval's ``sscanf``, Python's ``bytes.split``) does not split at
#: but :func:`metaeval.io._text.tokenize` does (every byte <= 0x20 separates there)
_NOT_SPACE = np.array([b for b in range(33) if b not in b" \t\n\v\f\r"], dtype=np.uint8)


def _columns(path, data: bytes, fields: int, what: str, cols: tuple[int, ...]) -> list[np.ndarray] | None:
    """Fields ``cols`` of every line as byte-string arrays, split by the vectorised tokenizer
    (:func:`metaeval.io._text.tokenize`), when that split is the one of ndeval's line reader
    (:func:`_lines`, ``line.split(None, fields)``): no blank line, every line with the same number
    of fields, at least ``fields`` and at most ``fields + 4``, no control byte that C does not take
    for whitespace.  None otherwise: the line-by-line reader then reads the file and names the
    line it rejects."""
    if not data:
        return None
    raw = np.frombuffer(data, np.uint8)
    if np.isin(raw[raw < 32], _NOT_SPACE).any():
        return None
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    try:
        table = tokenize(path, tuple(range(fields, fields + 5)), what, data=data)
    except InputError:
        return None
    if table.n != n_lines:                   # a blank line: a syntax error, which _lines names
        return None
    return [table.fixed(c) if table.width(c) <= DENSE_MAX else table.ids(c).astype(bytes) for c in cols]


class NdevalQrels(NamedTuple):
    """The qrels as arrays: ``topics`` (T,) sorted numerically; a topic's judged documents are
    indexed j = 0, 1, ... in byte order of their docnos; ``ideal_rel`` bool (T, J, I), the
    documents' relevance to the topic's subtopics (columns: its subtopic ids in increasing order);
    ``ideal_order`` (T, J) the rank of each document in descending docno order (padding: a large
    value); ``n_intents`` (T,) subtopics with a relevant document; ``doc_ids`` every docno (sorted
    bytes), ``pair_keys`` (sorted) ``t * len(doc_ids) + d`` of every judged (topic, document) and
    ``pair_j`` its j (see :meth:`lookup`)."""

    topics: np.ndarray
    ideal_rel: np.ndarray
    ideal_order: np.ndarray
    n_intents: np.ndarray
    doc_ids: np.ndarray
    pair_keys: np.ndarray
    pair_j: np.ndarray

    def lookup(self, topic: np.ndarray, docno: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(t, j)`` of every (topic number, docno): the qrels topic index (-1 for a topic not in
        the qrels) and the judged document index (-1 for an unjudged document)."""
        topic = np.asarray(topic, dtype=np.int64)
        T = len(self.topics)
        t = np.minimum(np.searchsorted(self.topics, topic), max(T - 1, 0))
        t = np.where((T > 0) & (self.topics[t] == topic), t, -1)
        docs = np.asarray(docno, dtype=object).astype(bytes)
        n = len(self.doc_ids)
        d = np.minimum(np.searchsorted(self.doc_ids, docs), n - 1)
        known = (t >= 0) & (self.doc_ids[d] == docs)
        key = t * n + d
        k = np.minimum(np.searchsorted(self.pair_keys, key), len(self.pair_keys) - 1)
        hit = known & (self.pair_keys[k] == key)
        return t, np.where(hit, self.pair_j[k], -1)


def _qrels_columns(path) -> list[np.ndarray]:
    """TOPIC, SUBTOPIC, DOCNO and JUDGMENT of every line (byte strings)."""
    data = read_bytes(path)
    cols = _columns(path, data, 4, "qrels", (0, 1, 2, 3))
    if cols is not None:
        return cols
    rows = [line.split(None, 4) for line in _lines(path, "qrels", data)]
    short = [n for n, r in enumerate(rows, 1) if len(r) < 4]
    if short:
        raise InputError("syntax error (expected TOPIC SUBTOPIC DOCNO JUDGMENT)", path, short[0])
    return [np.array([r[k] for r in rows], dtype="S") for k in range(4)]


def read_ndeval_qrels(path) -> NdevalQrels:
    c_topic, c_sub, c_doc, c_judgment = _qrels_columns(path)
    topic, sub, judgment = (_naturals(c) for c in (c_topic, c_sub, c_judgment))
    bad = np.flatnonzero((topic < 0) | (sub < 0) | (judgment < 0))
    if bad.size:
        k = bad[0]
        what = "TOPIC" if topic[k] < 0 else "SUBTOPIC" if sub[k] < 0 else "JUDGMENT"
        raise InputError(f"syntax error ({what} is not a natural number)", path, int(k) + 1)
    rel = judgment > 0                                  # ndeval: a judgment above 1 counts as 1
    line_no = np.arange(1, len(topic) + 1, dtype=np.int64)
    docs = c_doc

    topics, t_idx = np.unique(topic, return_inverse=True)
    # documents: distinct (topic, docno), in topic then byte order
    doc_ids, d_idx = np.unique(docs, return_inverse=True)   # byte order, as strcmp
    pair = t_idx.astype(np.int64) * len(doc_ids) + d_idx
    pairs, p_idx = np.unique(pair, return_inverse=True)
    p_topic = pairs // len(doc_ids)
    first_of_topic = np.searchsorted(p_topic, np.arange(len(topics)))
    j_of_pair = np.arange(len(pairs)) - first_of_topic[p_topic]
    n_docs = np.bincount(p_topic, minlength=len(topics))
    # subtopic columns: the topic's subtopic ids in increasing order
    subs, s_idx = np.unique(t_idx.astype(np.int64) * (int(sub.max()) + 1) + sub, return_inverse=True)
    s_topic = subs // (int(sub.max()) + 1)
    col_of_sub = np.arange(len(subs)) - np.searchsorted(s_topic, np.arange(len(topics)))[s_topic]
    n_cols = int(np.bincount(s_topic, minlength=len(topics)).max())
    # the same judgment twice
    cell = p_idx.astype(np.int64) * len(subs) + s_idx
    order = np.argsort(cell, kind="stable")
    dup = np.flatnonzero(cell[order][1:] == cell[order][:-1])
    if dup.size:
        k1, k2 = sorted((order[dup[0]], order[dup[0] + 1]))
        raise InputError(f"topic {topic[k2]}, subtopic {sub[k2]}, document {bytes(docs[k2]).decode(errors='replace')} "
                         f"judged twice (also at line {line_no[k1]})", path, int(line_no[k2]))
    T, J = len(topics), int(n_docs.max())
    ideal_rel = np.zeros((T, J, max(n_cols, 1)), dtype=bool)
    ideal_rel[p_topic[p_idx], j_of_pair[p_idx], col_of_sub[s_idx]] = rel
    ideal_order = np.full((T, J), np.iinfo(np.int64).max // 2, dtype=np.int64)
    ideal_order[p_topic, j_of_pair] = n_docs[p_topic] - 1 - j_of_pair
    n_intents = ideal_rel.any(axis=1).sum(axis=1).astype(np.int64)
    return NdevalQrels(topics, ideal_rel, ideal_order, n_intents, doc_ids, pairs, j_of_pair)


class NdevalRun(NamedTuple):
    """A run in ndeval's order: ``runid``; ``topics`` (sorted, distinct); per line kept, in topic
    then rank order: ``topic`` (int), ``docno`` (bytes), ``pos`` (0-based position in its topic)."""

    runid: str
    topics: np.ndarray
    topic: np.ndarray
    docno: np.ndarray
    pos: np.ndarray


def _run_columns(path) -> list[np.ndarray]:
    """TOPIC, DOCNO, RANK, SCORE and RUNID of every line (byte strings)."""
    data = read_bytes(path)
    cols = _columns(path, data, 6, "run", (0, 2, 3, 4, 5))
    if cols is not None:
        return cols
    rows = [line.split(None, 6) for line in _lines(path, "run", data)]
    short = [n for n, r in enumerate(rows, 1) if len(r) < 6]
    if short:
        raise InputError("syntax error (expected TOPIC Q0 DOCNO RANK SCORE RUNID)", path, short[0])
    return [np.array([r[k] for r in rows], dtype="S") for k in (0, 2, 3, 4, 5)]


def read_ndeval_run(path, traditional: bool = False, depth: int = 0) -> NdevalRun:
    c_topic, c_doc, c_rank, c_score, c_runid = _run_columns(path)
    topic = _topics(c_topic)
    rank = _naturals(c_rank)
    bad = np.flatnonzero((topic < 0) | (rank < 0))
    if bad.size:
        k = bad[0]
        raise InputError(f"syntax error ({'TOPIC' if topic[k] < 0 else 'RANK'} is not a natural number)",
                         path, int(k) + 1)
    runid = bytes(c_runid[0]).decode("utf-8", errors="replace")
    docno = c_doc.astype(object)
    line_no = np.arange(1, len(topic) + 1, dtype=np.int64)
    _, doc_rank = np.unique(c_doc, return_inverse=True)
    if traditional:
        score = np.array([c_atof(v) for v in c_score.tolist()], dtype=np.float64)
        order = np.lexsort((-doc_rank, -score, topic))
    else:
        order = np.lexsort((rank, topic))
        same = np.flatnonzero((topic[order][1:] == topic[order][:-1]) & (rank[order][1:] == rank[order][:-1]))
        if same.size:
            k1, k2 = sorted((order[same[0]], order[same[0] + 1]))
            raise InputError(f"duplicate rank ({rank[k2]}) for topic {topic[k2]} (also at line {line_no[k1]})",
                             path, int(line_no[k2]))
    topic, docno, doc_rank, line_no = topic[order], docno[order], doc_rank[order], line_no[order]
    starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])
    pos = np.arange(len(topic)) - np.repeat(starts, np.diff(np.r_[starts, len(topic)]))
    if depth and depth > 0:
        keep = pos < depth
        topic, docno, doc_rank, line_no, pos = topic[keep], docno[keep], doc_rank[keep], line_no[keep], pos[keep]
    by_doc = np.lexsort((line_no, doc_rank, topic))
    same = np.flatnonzero((topic[by_doc][1:] == topic[by_doc][:-1]) & (doc_rank[by_doc][1:] == doc_rank[by_doc][:-1]))
    if same.size:
        k1, k2 = by_doc[same[0]], by_doc[same[0] + 1]
        raise InputError(f"duplicate docno ({docno[k2].decode(errors='replace')}) for topic {topic[k2]} "
                         f"(also at line {line_no[k1]})", path, int(line_no[k2]))
    return NdevalRun(runid, np.unique(topic), topic, docno, pos)
