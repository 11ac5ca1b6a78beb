"""Run files as ranked lists of document identifiers in repro_eval's order (Breuer et al. 2020):
the lines of each topic in file order, every stretch of consecutive lines with an equal score
ordered by document id descending (``repro_eval.util.break_ties``), then cut to a depth
(``trim_run``).  The scores are read as Python reads them (double precision), as
``ir_measures.read_trec_run`` does; the lines kept are handed on as a
:class:`~metaeval.io.runs.ParsedRun` (float32 scores, trec_eval's precision) for the measures.

Used by :mod:`metaeval.meta.reproducibility`; nothing here computes a measure."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ._cext import c_numbers
from ._text import Table, check_numeric, tokenize
from .runs import ParsedRun

__all__ = ["RunLines", "document_codes", "parsed_run", "ranked_order", "read_run_lines"]


@dataclass(frozen=True, eq=False)
class RunLines:
    """One run file's lines: ``topics`` / ``docs`` (byte strings), ``scores`` (float64), ``lines``
    (1-based line numbers), ``doc_hash`` (:func:`~metaeval.io._text.hash_ids`), in file order."""
    path: str
    topics: np.ndarray
    docs: np.ndarray
    scores: np.ndarray
    lines: np.ndarray
    doc_hash: np.ndarray
    #: the distinct topics (string order) and each line's index among them
    topic_list: np.ndarray
    topic_index: np.ndarray


def read_run_lines(path: str | os.PathLike) -> RunLines:
    """A six-column TREC run (``TOPIC Q0 DOCID RANK SCORE TAG``): its lines in file order; a line
    that is not a run line, a score that is not a number or a document listed twice for a topic
    is an :class:`InputError` naming the file and line."""
    path = str(path)
    t = tokenize(path, 6, "TREC run (TOPIC Q0 DOCID RANK SCORE TAG)", header=b"<SYSDESC>")
    check_numeric(t, 3, "rank")
    check_numeric(t, 4, "score")
    if t.n and c_numbers(t.buf, *t.span(4), False) is True:
        scores = t.fixed(4).astype(np.float64) if t.width(4) <= 64 else _slow_scores(t)
    else:
        scores = _slow_scores(t)
    topics, docs = t.ids(0), t.ids(2)
    h = t.hash(2)
    if t.n:
        topic_list, ti = np.unique(topics, return_inverse=True)
        o = np.lexsort((h, ti))
        same = (ti[o[1:]] == ti[o[:-1]]) & (h[o[1:]] == h[o[:-1]])
        for k in np.flatnonzero(same)[:8].tolist():          # equal hashes: the same id, or a collision
            i, j = sorted((int(o[k]), int(o[k + 1])))
            if bytes(docs[i]) == bytes(docs[j]):
                raise InputError(f"document {_s(docs[i])} listed twice for topic {_s(topics[i])} (first at line "
                                 f"{int(t.line[i])}): a ranked list holds a document once", path, int(t.line[j]))
    else:
        topic_list, ti = topics[:0], np.zeros(0, np.int64)
    return RunLines(path, topics, docs, scores, t.line, h, topic_list, ti)


def _slow_scores(t: Table) -> np.ndarray:
    s, e = t.span(4)
    return np.array([float(bytes(t.buf[a:b])) for a, b in zip(s.tolist(), e.tolist())], np.float64)


def _s(b: object) -> str:
    return bytes(b).decode("utf-8", "replace") if isinstance(b, (bytes, bytearray, np.bytes_)) else str(b)


def ranked_order(run: RunLines, topic_index: np.ndarray, doc_code: np.ndarray, depth: int | None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, rank)``: the run's lines kept (indices into its lines) in repro_eval's order --
    sorted by topic, then file order with each stretch of equal consecutive scores by document
    id descending (``doc_code``: the documents' positions in string order) -- and each kept line's
    0-based rank within its topic, ``rank < depth``."""
    n = len(run.lines)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    by_topic = np.argsort(topic_index, kind="stable")          # each topic's lines in file order
    ti = topic_index[by_topic]
    sc = run.scores[by_topic]
    new = np.ones(n, bool)
    new[1:] = (ti[1:] != ti[:-1]) | (sc[1:] != sc[:-1])
    group = np.cumsum(new)                                      # stretches of equal consecutive scores
    o = np.lexsort((-doc_code[by_topic], group))
    rows = by_topic[o]
    tt = topic_index[rows]
    start = np.ones(n, bool)
    start[1:] = tt[1:] != tt[:-1]
    first = np.flatnonzero(start)
    rank = np.arange(n) - np.repeat(first, np.diff(np.append(first, n)))
    if depth is not None:
        keep = rank < depth
        rows, rank = rows[keep], rank[keep]
    return rows, rank


def parsed_run(run: RunLines, name: str, rows: np.ndarray) -> ParsedRun:
    """The lines ``rows`` of ``run`` as a :class:`ParsedRun` (scores as C's ``(float) atof``)."""
    return ParsedRun(name, (run.path,), run.topics[rows], run.docs[rows], run.lines[rows],
                     np.zeros(len(rows), np.int32), run.scores[rows].astype(np.float32), True, run.doc_hash[rows])


def document_codes(runs: list[RunLines]) -> list[np.ndarray]:
    """Every line's document as its position among all the runs' distinct document ids in string
    order (as Python sorts ``str``: UTF-8 byte order), one array per run.  Distinct ids are found
    by their 64-bit hashes and checked against the ids themselves (a collision falls back to the
    ids); only the distinct ids are sorted as strings."""
    if not runs:
        return []
    hashes = np.concatenate([r.doc_hash for r in runs])
    obj = any(r.docs.dtype == object for r in runs)
    docs = np.concatenate([r.docs.astype(object) if obj else r.docs for r in runs])
    _uh, first, inv = np.unique(hashes, return_index=True, return_inverse=True)
    reps = docs[first]
    if obj:
        ok = all(bytes(a) == bytes(b) for a, b in zip(docs.tolist(), reps[inv].tolist()))
    else:
        ok = bool(np.all(docs == reps[inv]))
    if ok:
        _, rank = np.unique(reps, return_inverse=True)      # distinct ids: their string order
        codes = rank[inv]
    else:                                                   # a hash collision: sort every id
        _, codes = np.unique(docs, return_inverse=True)
    codes = codes.astype(np.int64)
    offs = np.cumsum([0] + [len(r.docs) for r in runs])
    return [codes[offs[k]:offs[k + 1]] for k in range(len(runs))]
