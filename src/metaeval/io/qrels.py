"""Relevance assessments (qrels): NTCIR, TREC and NTCIREVAL per-topic forms.

Forms, detected per file from the number of fields on its first non-blank line:

* NTCIR ``TOPIC DOCID Lk`` (3 fields), ``k`` a non-negative integer; ``L0`` = judged nonrelevant.
* TREC ``TOPIC ITER DOCID REL`` (4 fields), ``REL`` an integer; a negative REL is judged
  nonrelevant (level 0), as in trec_eval.  ITER is ignored.
* NTCIREVAL per-topic ``DOCID Lk`` (2 fields) in ``TID.rel`` files (:func:`read_rel`); a directory
  given to :func:`read_qrels` is read as NTCIREVAL's layout ``DIR/TID/TID.rel``.

A file mixing 3- and 4-field lines is an error naming the first line of the other form.  Unknown
labels (``X3``, ``L-1``, ``1.5``) and wrong field counts are :class:`InputError`\\ s naming file and
line.  The same (topic, document) judged twice with different levels is an error naming both lines;
an identical repetition is accepted silently (first line kept).  Blank lines are skipped.

The level scale is ``L0..LH`` with ``H`` the highest level seen, unless given (``max_level``) so a
collection whose qrels lack the top level still has the right ``H``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError
from ._text import Table, hash_ids, tokenize

__all__ = ["Qrels", "read_qrels", "read_rel", "qrels_files", "format_qrels"]

_LABEL_NTCIR = re.compile(r"L([0-9]+)\Z")           # ASCII digits only (not "L\u0661")
_INT_TREC = re.compile(r"[+-]?[0-9]+\Z")             # no "1_0", no non-ASCII digits


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judgments as arrays, one entry per (topic, document).

    ``topics`` are all topics of the file(s), sorted as strings; ``topic_index[i]``,
    ``docs[i]`` (bytes), ``level[i]`` (int8) describe entry ``i``; entries are sorted by topic,
    then by their order in the file.  ``max_level`` is H.  Per-topic dict access:
    ``qrels["0201"] -> {docid: level}``; ``qrels.level_counts`` is (topics, H+1).
    """
    topics: tuple[str, ...]
    topic_index: np.ndarray      # (n,) int32 into topics
    docs: np.ndarray             # (n,) raw bytes of the document ids: S<W>, or object (long ids)
    level: np.ndarray            # (n,) int8, 0..H
    max_level: int
    sources: tuple[str, ...] = ()
    form: str = ""
    _hash: np.ndarray | None = field(default=None, repr=False)
    _lines: np.ndarray | None = field(default=None, repr=False)   # (n,) line numbers (diagnostics)
    _files: np.ndarray | None = field(default=None, repr=False)   # (n,) index into sources

    def __len__(self) -> int:
        return len(self.level)

    def __contains__(self, topic: str) -> bool:
        return topic in self._tpos

    def __getitem__(self, topic: str) -> dict[str, int]:
        """``{docid: level}`` of one topic (KeyError if the topic is not judged)."""
        t = self._tpos[topic]
        lo, hi = self._bounds[t], self._bounds[t + 1]
        return {d.decode("utf-8"): int(v) for d, v in zip(self.docs[lo:hi].tolist(), self.level[lo:hi].tolist())}

    def items(self):
        for t in self.topics:
            yield t, self[t]

    @property
    def _tpos(self) -> dict[str, int]:
        d = self.__dict__.get("_tpos_cache")
        if d is None:
            d = {t: i for i, t in enumerate(self.topics)}
            object.__setattr__(self, "_tpos_cache", d)
        return d

    @property
    def _bounds(self) -> np.ndarray:
        return np.searchsorted(self.topic_index, np.arange(len(self.topics) + 1))

    @property
    def level_counts(self) -> np.ndarray:
        """(topics, H+1) int64: number of documents judged at each level."""
        T, H = len(self.topics), self.max_level
        return np.bincount(self.topic_index.astype(np.int64) * (H + 1) + self.level,
                           minlength=T * (H + 1)).reshape(T, H + 1)

    @property
    def n_relevant(self) -> np.ndarray:
        return self.level_counts[:, 1:].sum(axis=1)

    @property
    def doc_hash(self) -> np.ndarray:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash_ids(self.docs))
        assert self._hash is not None
        return self._hash

    def where(self, i: int) -> str:
        """``FILE:LINE`` of entry ``i`` (for messages)."""
        if self._lines is None or self._files is None:
            return "?"
        return f"{self.sources[int(self._files[i])]}:{int(self._lines[i])}"

    def with_max_level(self, max_level: int | None) -> Qrels:
        if max_level is None or max_level == self.max_level:
            return self
        if max_level < int(self.level.max(initial=0)):
            where = self.sources[0] if self.sources else None
            raise InputError(f"max_level={max_level} but the qrels contain level "
                             f"L{int(self.level.max())}", where)
        return Qrels(self.topics, self.topic_index, self.docs, self.level, int(max_level), self.sources,
                     self.form, self._hash, self._lines, self._files)


# ------------------------------------------------------------------------------ reading
def _levels_from_labels(table: Table, col: int, form: str) -> np.ndarray:
    """Parse the label column through its few distinct values (no Python loop per line)."""
    labels = table.ids(col)
    uniq, inv = np.unique(labels, return_inverse=True)
    vals = np.empty(len(uniq), np.int64)
    for j, u in enumerate(uniq.tolist()):
        s = u.decode("utf-8", "replace")
        if form == "trec":
            v = int(s) if _INT_TREC.match(s) else None
            if v is not None and v < 0:
                v = 0                      # trec_eval: negative REL = judged nonrelevant
        else:
            m = _LABEL_NTCIR.match(s)
            v = int(m.group(1)) if m else None
        if v is None:
            row = int(np.flatnonzero(inv == j)[0])
            expect = "an integer relevance value" if form == "trec" else "a label L0, L1, L2, ..."
            raise table.error(row, f"unknown relevance label {s!r}: expected {expect}")
        if v > 127:
            row = int(np.flatnonzero(inv == j)[0])
            raise table.error(row, f"relevance level {v} is too large (at most 127)")
        vals[j] = v
    return vals[inv].astype(np.int8)


def _read_one(path: str, topic: str | None = None) -> tuple[list, str]:
    """Parse one qrels file: ``([table, form, topics (S per row) or None, docs (S), levels], form)``;
    ``topic`` given = a per-topic ``DOCID Lk`` file of that topic."""
    if topic is None:
        table = tokenize(path, (3, 4), "qrels")
        form = "ntcir" if table.ncols == 3 else "trec"
        tcol, dcol, lcol = (0, 1, 2) if form == "ntcir" else (0, 2, 3)
        topics = table.ids(tcol)
    else:
        table = tokenize(path, 2, "rel")
        form = "rel"
        dcol, lcol = 0, 1
        topics = None
    level = _levels_from_labels(table, lcol, "trec" if form == "trec" else "ntcir")
    docs = table.ids(dcol)
    return [table, form, topics, docs, level], form


def read_rel(path: str | os.PathLike, topic: str | None = None, max_level: int | None = None) -> Qrels:
    """Read NTCIREVAL's per-topic relevance file (``DOCID Lk`` lines).

    ``topic`` defaults to the file name without its suffix (``0201.rel`` -> ``0201``)."""
    path = str(path)
    if topic is None:
        topic = Path(path).name.split(".")[0]
    return _build([path], [_read_one(path, topic)[0]], [topic], max_level, "rel")


def qrels_files(paths) -> list[tuple[str, str | None]]:
    """The files a qrels argument stands for, each with its fixed topic (per-topic ``.rel``
    files) or ``None``: a file, several files, or a directory ``DIR/TID/TID.rel``."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[tuple[str, str | None]] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            rels = sorted(p.glob("*/*.rel"))
            rels = [r for r in rels if r.name.split(".")[0] == r.parent.name] or rels
            if not rels:
                raise InputError("directory holds no TID/TID.rel files (NTCIREVAL per-topic qrels)", p)
            out.extend((str(r), r.parent.name) for r in rels)
        else:
            out.append((str(p), p.name.split(".")[0] if p.suffix == ".rel" else None))
    return out


def read_qrels(paths, max_level: int | None = None) -> Qrels:
    """Read qrels from a file (NTCIR or TREC form, plain or gzip), several files, or a directory
    in NTCIREVAL's per-topic layout ``DIR/TID/TID.rel``.  Returns a :class:`Qrels`."""
    pairs = qrels_files(paths)
    files = [f for f, _ in pairs]
    fixed_topics = [t for _, t in pairs]
    parsed = []
    forms = set()
    for f, t in pairs:
        item, form = _read_one(f, t)
        parsed.append(item)
        forms.add(form)
    return _build(files, parsed, fixed_topics, max_level, "+".join(sorted(forms)))


def _concat(arrays) -> np.ndarray:
    """Concatenate byte-string arrays: ``S<W>`` if all are, else an object array of ``bytes``."""
    if not arrays:
        return np.zeros(0, "S1")
    if all(a.dtype.kind == "S" for a in arrays):
        return np.concatenate(arrays)        # numpy widens to the widest (each <= DENSE_MAX)
    return np.concatenate([a.astype(object) for a in arrays])


def _build(files, parsed, fixed_topics, max_level, form) -> Qrels:
    tstr_rows = []
    for (table, _form, topics, docs, level), t in zip(parsed, fixed_topics):
        if topics is None:
            tstr_rows.append(np.full(len(docs), t.encode("utf-8"), dtype=f"S{max(1, len(t.encode()))}"))
        else:
            tstr_rows.append(topics)
    docs = _concat([p[3] for p in parsed])
    tb = _concat(tstr_rows)
    level = np.concatenate([p[4] for p in parsed]) if parsed else np.zeros(0, np.int8)
    lines = np.concatenate([p[0].line for p in parsed]) if parsed else np.zeros(0, np.int64)
    fileidx = np.concatenate([np.full(len(p[4]), i, np.int32) for i, p in enumerate(parsed)]) \
        if parsed else np.zeros(0, np.int32)

    # topics sorted as strings (bytes order of UTF-8 = code point order)
    tuniq, tinv = np.unique(tb, return_inverse=True)
    topics = tuple(b.decode("utf-8") for b in tuniq.tolist())
    order = np.argsort(tinv, kind="stable")
    tinv, docs, level, lines, fileidx = tinv[order], docs[order], level[order], lines[order], fileidx[order]

    # duplicates (topic, doc): identical label -> keep first; conflicting -> error naming both lines
    if len(docs):
        dcode = np.unique(docs, return_inverse=True)[1]
        o = np.lexsort((np.arange(len(docs)), dcode, tinv))
        same = (tinv[o[1:]] == tinv[o[:-1]]) & (docs[o[1:]] == docs[o[:-1]])
        if same.any():
            pairs = np.flatnonzero(same)
            a, b = o[pairs], o[pairs + 1]
            conflict = level[a] != level[b]
            if conflict.any():
                k = int(np.flatnonzero(conflict)[0])
                i, j = int(a[k]), int(b[k])
                # report in file order: earlier line first
                # a per-topic .rel file names its topic by its path: no "topic" in the message
                per_topic = fixed_topics[fileidx[j]] is not None
                raise InputError(
                    f"document {docs[j].decode('utf-8', 'replace')} is judged "
                    f"L{int(level[i])} at {files[fileidx[i]]}:{int(lines[i])} and L{int(level[j])} at "
                    f"{files[fileidx[j]]}:{int(lines[j])}", files[fileidx[j]], int(lines[j]),
                    None if per_topic else topics[tinv[j]])
            keep = np.ones(len(docs), bool)
            keep[b] = False
            tinv, docs, level, lines, fileidx = tinv[keep], docs[keep], level[keep], lines[keep], fileidx[keep]

    H = int(level.max(initial=0))
    if max_level is not None:
        if int(max_level) < H:
            i = int(np.argmax(level))
            raise InputError(f"max_level={max_level} but the qrels contain level L{H}",
                             files[fileidx[i]], int(lines[i]))
        H = int(max_level)
    return Qrels(topics, tinv.astype(np.int32), docs, level, H, tuple(files), form,
                 None, lines, fileidx)


def format_qrels(topics, docs, levels, form: str = "ntcir") -> str:
    """Judgments as qrels text that :func:`read_qrels` reads back to the same levels: TREC form
    ``TOPIC 0 DOCID REL`` when ``form`` is ``"trec"``, else NTCIR form ``TOPIC DOCID Lk``."""
    if form == "trec":
        return "".join(f"{t} 0 {d} {v}\n" for t, d, v in zip(topics, docs, levels))
    return "".join(f"{t} {d} L{v}\n" for t, d, v in zip(topics, docs, levels))
