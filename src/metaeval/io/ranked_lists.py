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
from ._text import check_numeric, tokenize
from .runs import ParsedRun

__all__ = ["RunLines", "read_run_lines", "ranked_order"]


@dataclass(frozen=True, eq=False)
class RunLines:
    """One run file's lines: ``topics`` / ``docs`` (byte strings), ``scores`` (float64), ``lines``
    (1-based line numbers), in file order."""
    path: str
    topics: np.ndarray
    docs: np.ndarray
    scores: np.ndarray
    lines: np.ndarray
    doc_hash: np.ndarray


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
        _, ti = np.unique(topics, return_inverse=True)
        key = np.stack([ti.astype(np.uint64), h])
        o = np.lexsort(key)
        same = (key[:, o[1:]] == key[:, o[:-1]]).all(axis=0)
        if same.any():
            i = int(np.max(o[1:][same]))
            dup = np.flatnonzero((topics == topics[i]) & (docs == docs[i]))
            if len(dup) > 1:
                raise InputError(f"document {_s(docs[i])} listed twice for topic {_s(topics[i])} (first at line "
                                 f"{int(t.line[dup[0]])}): a ranked list holds a document once", path,
                                 int(t.line[dup[1]]))
    return RunLines(path, topics, docs, scores, t.line, h)


def _slow_scores(t) -> np.ndarray:
    s, e = t.span(4)
    return np.array([float(bytes(t.buf[a:b])) for a, b in zip(s.tolist(), e.tolist())], np.float64)


def _s(b) -> str:
    return bytes(b).decode("utf-8", "replace")


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
