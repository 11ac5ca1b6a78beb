"""Equivalence-class qrels (Sakai (2011) Sec. 3.3, Fig. 3) -> an EC-labelled
:class:`~metaeval.collection.Collection`.

Form ``TOPIC DOCID Lk CLASS`` (declared with ``--qrels-form ec``): NTCIREVAL's ``erel`` line
``DOCID Lk CLASS`` with the topic in front.  Labelling follows ``ntcir_eval label -ec``: in each
ranked list only the first retrieved item of an equivalence class keeps its label; later items of
the same class are left unlabelled (unjudged, gain 0, not relevant).  Computation follows
``compute -ec``: the number of relevant items R is the number of classes, and the ideal list holds
the best (highest-level) item of every class -- so ``level_counts`` count classes by their best
level.  The class field of an L0 line is ignored.  Every plain measure evaluated on such a
collection is its EC-version.
"""

from __future__ import annotations

import numpy as np

from ..collection import UNJUDGED, Collection
from ..errors import InputError
from ._text import tokenize
from .qrels import _build, _levels_from_labels

__all__ = ["read_ec_qrels", "load_ec_collection", "ec_level_counts"]


def read_ec_qrels(path, max_level: int | None = None):
    """``(qrels, class_id)``: a :class:`~metaeval.io.qrels.Qrels` and, per entry, an int64 class
    id unique over (topic, class) (-1 for L0 entries)."""
    path = str(path)
    table = tokenize(path, 4, "EC qrels (TOPIC DOCID Lk CLASS)")
    level = _levels_from_labels(table, 2, "ntcir")
    q = _build([path], [[table, "ec", table.fixed(0), table.fixed(1), level]], [None], max_level, "ec")
    assert q._lines is not None                              # _build keeps the line numbers
    row = np.searchsorted(table.line, q._lines)              # table row of each kept entry
    cls = table.fixed(3)[row]
    key = np.rec.fromarrays([q.topic_index, cls]) if len(cls) else np.zeros(0)
    _, cid = np.unique(key, return_inverse=True) if len(cls) else (None, np.zeros(0, np.int64))
    cid = np.where(q.level >= 1, cid.astype(np.int64).ravel(), -1)
    return q, cid


def ec_level_counts(q, cid: np.ndarray, topic_rows: np.ndarray) -> np.ndarray:
    """(T, H+1): level 0 = judged nonrelevant items; level j >= 1 = classes whose best item is Lj,
    for the qrels topics ``topic_rows``."""
    H = q.max_level
    best = np.zeros(int(cid.max(initial=-1)) + 1, np.int64)
    ctop = np.zeros(len(best), np.int64)
    rel = cid >= 0
    np.maximum.at(best, cid[rel], q.level[rel].astype(np.int64))
    ctop[cid[rel]] = q.topic_index[rel]
    counts = np.zeros((len(q.topics), H + 1), np.int64)
    np.add.at(counts, (ctop, best), 1)
    counts[:, 0] = np.bincount(q.topic_index[q.level == 0], minlength=len(q.topics))
    return counts[topic_rows]


def load_ec_collection(qrels, runs, order: str | None = "file", depth: int | None = 1000,
                       max_level: int | None = None, progress=None, trec_eval_version: int = 10) -> Collection:
    """Parse EC qrels and runs into an EC-labelled :class:`Collection` (module docstring)."""
    from dataclasses import replace

    from .ingest import load_collection

    q, cid = read_ec_qrels(qrels, max_level) if not isinstance(qrels, tuple) else qrels
    base, entry = load_collection(q, runs, entries=True, order=order, depth=depth, max_level=max_level,
                                progress=progress, trec_eval_version=trec_eval_version)
    _R, T, _D = base.levels.shape
    c = np.where(entry >= 0, cid[np.maximum(entry, 0)], -1)
    r, t, k = np.nonzero(c >= 0)                                   # C order: by list, then rank
    if len(r):
        key = (r.astype(np.int64) * T + t) * (int(cid.max()) + 1) + c[r, t, k]
        _, first = np.unique(key, return_index=True)
        later = np.ones(len(key), bool)
        later[first] = False
        levels = base.levels.copy()
        levels[r[later], t[later], k[later]] = UNJUDGED           # redundant: left unlabelled
    else:
        levels = base.levels
    tpos = {tt: i for i, tt in enumerate(q.topics)}
    rows = np.array([tpos[tt] for tt in base.topics], np.int64)
    counts = ec_level_counts(q, cid, rows)
    if (counts[:, 1:].sum(axis=1) == 0).any():                    # pragma: no cover - load excludes them
        raise InputError("a topic has no equivalence class of relevant items", q.sources[0])
    return replace(base, levels=levels, level_counts=counts,
                   info={**base.info, "qrels_form": "ec"})
