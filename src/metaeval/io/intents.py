"""Diversity qrels (per-intent form) and intent probabilities -> :class:`DiversityCollection`.

Forms (``docs/io.md``):

* qrels ``TOPIC INTENT DOCID REL`` (ndeval's form; declared with ``--qrels-form intents`` since it
  has the shape of TREC qrels).  REL is an integer level; a negative REL is judged nonrelevant
  (level 0) as in the TREC form; a REL above ``max_level`` is an error naming file and line.
  A document judged for some intents of its topic and not listed for another is judged
  nonrelevant (L0) for that intent.  The same (topic, intent, document) twice with different
  levels is an error naming both lines.
* intent probabilities ``TOPIC INTENT PROB`` (``--intent-probs``): P(i|q) of every intent of the
  qrels; by default uniform, 1/n over the n intents the qrels list for the topic.  A probability
  outside [0, 1], a qrels intent without a probability, or a topic whose probabilities sum to
  something farther than 0.01 from 1 are errors; a sum off by more than 1e-6 (but at most 0.01) is
  used as given with a warning.  Probabilities of intents the qrels do not list are ignored with a
  warning.
* An intent with no relevant (REL > 0) document is kept for the global gains (it adds 0) but not
  counted in the number of intents of I-rec and the intent-aware measures (ndeval's "actual
  subtopics"); one warning names them.
"""

from __future__ import annotations

from typing import Any


import numpy as np

from ..collection import PAD, UNJUDGED
from ..errors import InputError, warn_input
from ._text import tokenize
from .qrels import Qrels

__all__ = ["IntentQrels", "read_intent_qrels", "read_intent_probs", "load_diversity_collection"]


def _warn(msg: str) -> None:
    warn_input(msg)                    # attributed to the caller outside metaeval


class IntentQrels:
    """Per-intent judgments as arrays.

    ``topics`` sorted as strings; ``intent_ids[t]`` the intent ids of topic t in slot order (those
    with a relevant document first, each group in order of first appearance in the file);
    entries ``k`` = distinct (topic, document): ``entry_topic[k]``, ``docs[k]`` (bytes),
    ``levels[k, i]`` (int8, per intent slot), ``lines[k]`` (first line); ``n_intents[t]`` intents
    with a relevant document, ``n_listed[t]`` all intents of the topic."""

    def __init__(self, path, topics, intent_ids, entry_topic, docs, levels, lines, n_intents,
                 n_listed, max_level):
        self.path = path
        self.topics = topics
        self.intent_ids = intent_ids
        self.entry_topic = entry_topic
        self.docs = docs
        self.levels = levels
        self.lines = lines
        self.n_intents = n_intents
        self.n_listed = n_listed
        self.max_level = max_level

    def as_qrels(self) -> Qrels:
        """Plain qrels: each document at its highest per-intent level."""
        lv = self.levels.max(axis=1, initial=0).astype(np.int8)
        return Qrels(self.topics, self.entry_topic.astype(np.int32), self.docs, lv, self.max_level,
                     (self.path,), "intents", None, self.lines, np.zeros(len(lv), np.int32))


def read_intent_qrels(path, max_level: int | None = None) -> IntentQrels:
    path = str(path)
    table = tokenize(path, 4, "diversity qrels (TOPIC INTENT DOCID REL)")
    n = table.n
    if n == 0:
        raise InputError("no judgments in the diversity qrels", path)
    # REL through its few distinct values
    uniq, inv = np.unique(table.fixed(3), return_inverse=True)
    vals = np.empty(len(uniq), np.int64)
    for j, u in enumerate(uniq.tolist()):
        s = u.decode("utf-8", "replace")
        try:
            v = int(s)
        except ValueError:
            row = int(np.flatnonzero(inv == j)[0])
            raise table.error(row, f"REL {s!r} is not an integer relevance level") from None
        vals[j] = max(v, 0)
    rel = vals[inv]
    H = int(rel.max(initial=0))
    if max_level is not None:
        if H > int(max_level):
            row = int(np.argmax(rel > int(max_level)))
            raise table.error(row, f"REL {int(rel[row])} is outside the levels L0..L{int(max_level)} "
                                   f"(--max-level {int(max_level)})")
        H = int(max_level)
    if H > 127:
        row = int(np.argmax(rel > 127))
        raise table.error(row, f"relevance level {int(rel[row])} is too large (at most 127)")
    rel = rel.astype(np.int8)

    tb, ib, db = table.fixed(0), table.fixed(1), table.fixed(2)
    tuniq, tinv = np.unique(tb, return_inverse=True)
    topics = tuple(b.decode("utf-8") for b in tuniq.tolist())
    T = len(topics)
    iuniq, iinv = np.unique(ib, return_inverse=True)
    duniq, dinv = np.unique(db, return_inverse=True)
    # (topic, intent) pairs: slot order = relevant-bearing first, then first appearance
    pkey = tinv.astype(np.int64) * len(iuniq) + iinv
    puniq, pfirst, pinv = np.unique(pkey, return_index=True, return_inverse=True)
    has_rel = np.zeros(len(puniq), bool)
    has_rel[pinv[rel > 0]] = True
    ptopic = puniq // len(iuniq)
    porder = np.lexsort((pfirst, ~has_rel, ptopic))
    slot = np.empty(len(puniq), np.int64)
    cnt = np.bincount(ptopic, minlength=T)
    start = np.cumsum(cnt) - cnt
    slot[porder] = np.arange(len(puniq)) - start[ptopic[porder]]
    I = int(cnt.max(initial=1))
    n_intents = np.bincount(ptopic[has_rel], minlength=T).astype(np.int64)
    intent_lists: list[list[Any]] = [[] for _ in range(T)]
    for p in porder.tolist():
        intent_lists[int(ptopic[p])].append(iuniq[puniq[p] % len(iuniq)].decode("utf-8"))
    intent_ids = tuple(tuple(x) for x in intent_lists)
    empty = [(topics[int(ptopic[p])], iuniq[puniq[p] % len(iuniq)].decode("utf-8"))
             for p in np.flatnonzero(~has_rel).tolist()]
    if empty:
        shown = ", ".join(f"{t}/{i}" for t, i in empty[:5]) + (f", ... ({len(empty)} in all)" if len(empty) > 5 else "")
        _warn(f"{path}: {len(empty)} intent(s) without any relevant document (topic/intent: {shown}); "
              f"they add nothing to the global gains and are not counted by I-rec or the "
              f"intent-aware measures")
    # (topic, document) entries, sorted by topic then document id
    ekey = tinv.astype(np.int64) * len(duniq) + dinv
    euniq, efirst, einv = np.unique(ekey, return_index=True, return_inverse=True)
    K = len(euniq)
    cell = einv.astype(np.int64) * I + slot[pinv]
    # duplicates of (topic, intent, document)
    order = np.argsort(cell, kind="stable")
    cs = cell[order]
    same = np.flatnonzero(cs[1:] == cs[:-1])
    if len(same):
        a, b = order[same], order[same + 1]
        bad = rel[a] != rel[b]
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            i, j = int(a[k]), int(b[k])
            raise InputError(f"document {table.token(j, 2)} of topic {table.token(j, 0)} intent "
                             f"{table.token(j, 1)} is judged {int(rel[i])} at line {int(table.line[i])} "
                             f"and {int(rel[j])}", path, int(table.line[j]))
    levels = np.zeros((K, I), np.int8)
    levels.reshape(-1)[cell[::-1]] = rel[::-1]          # first line wins (duplicates are equal)
    # padding intent slots of topics with fewer intents
    etopic = (euniq // len(duniq)).astype(np.int64)
    levels[np.arange(I)[None, :] >= cnt[etopic][:, None]] = 0
    docs = duniq[euniq % len(duniq)]
    return IntentQrels(path, topics, intent_ids, etopic, docs, levels, table.line[efirst],
                       n_intents, cnt.astype(np.int64), H)


def read_intent_probs(path, iq: IntentQrels) -> np.ndarray:
    """(T, I) P(i|q) in the slot order of ``iq``, from a ``TOPIC INTENT PROB`` file."""
    path = str(path)
    table = tokenize(path, 3, "intent probabilities (TOPIC INTENT PROB)")
    tpos = {t: k for k, t in enumerate(iq.topics)}
    spos = [{s: k for k, s in enumerate(ids)} for ids in iq.intent_ids]
    T, I = len(iq.topics), iq.levels.shape[1]
    probs = np.zeros((T, I))
    seen = np.zeros((T, I), bool)
    first_line: dict[Any, Any] = {}
    ignored = []
    tt, ii, pp = table.fixed(0), table.fixed(1), table.fixed(2)
    for row, (t, i, p) in enumerate(zip(tt.tolist(), ii.tolist(), pp.tolist())):   # one line per intent
        t, i, ps = t.decode("utf-8"), i.decode("utf-8"), p.decode("utf-8", "replace")
        try:
            v = float(ps)
        except ValueError:
            raise table.error(row, f"probability {ps!r} is not a number") from None
        if not (0.0 <= v <= 1.0):
            raise table.error(row, f"probability {ps} is outside [0, 1]")
        k = tpos.get(t)
        s = spos[k].get(i) if k is not None else None
        if s is None:
            ignored.append(f"{t}/{i}")
            continue
        if seen[k, s] and probs[k, s] != v:
            raise table.error(row, f"topic {t} intent {i} has two probabilities "
                                   f"({probs[k, s]!r} and {v!r})")
        probs[k, s] = v
        seen[k, s] = True
        first_line.setdefault(k, int(table.line[row]))
    if ignored:
        _warn(f"{path}: {len(ignored)} intent(s) not in the qrels (no judged document) ignored: "
              f"{', '.join(ignored[:5])}" + (", ..." if len(ignored) > 5 else ""))
    for k, t in enumerate(iq.topics):
        n = int(iq.n_listed[k])
        miss = np.flatnonzero(~seen[k, :n])
        if len(miss):
            raise InputError(f"intent {iq.intent_ids[k][int(miss[0])]} of topic {t} (in the qrels) has "
                             f"no probability", path, first_line.get(k), t)
        total = float(probs[k, :n].sum())
        if abs(total - 1.0) > 0.01:
            raise InputError(f"the intent probabilities of topic {t} sum to {total:.6g}, not 1",
                             path, first_line.get(k), t)
        if abs(total - 1.0) > 1e-6:
            _warn(f"{path}:{first_line.get(k)}: topic {t}: intent probabilities sum to {total:.9g}; "
                  f"used as given (not renormalised)")
    return probs


def uniform_probs(iq: IntentQrels) -> np.ndarray:
    I = iq.levels.shape[1]
    n = iq.n_listed.astype(np.float64)
    return np.where(np.arange(I)[None, :] < n[:, None], 1.0 / np.maximum(n, 1)[:, None], 0.0)


def _desc_rank(docs: np.ndarray, topic: np.ndarray, T: int) -> np.ndarray:
    """Rank (0-based) of each entry's document id among its topic's ids in descending byte order."""
    order = np.lexsort((docs,))                  # ascending ids
    order = order[np.argsort(topic[order], kind="stable")]
    cnt = np.bincount(topic, minlength=T)
    start = np.cumsum(cnt) - cnt
    asc = np.empty(len(docs), np.int64)
    asc[order] = np.arange(len(docs)) - start[topic[order]]
    return cnt[topic] - 1 - asc


def load_diversity_collection(qrels, runs, intent_probs=None, order: str | None = "file",
                              depth: int | None = 1000, max_level: int | None = None, progress=None,
                              trec_eval_version: int = 10):
    """Parse per-intent qrels, intent probabilities and runs into a
    :class:`~metaeval.collection.DiversityCollection` (labelling and its policies as
    :func:`metaeval.io.load_collection`)."""
    from ..collection import DiversityCollection
    from .ingest import load_collection

    iq = qrels if isinstance(qrels, IntentQrels) else read_intent_qrels(qrels, max_level)
    probs = uniform_probs(iq) if intent_probs is None else read_intent_probs(intent_probs, iq)
    base, entry = load_collection(iq.as_qrels(), runs, entries=True, order=order, depth=depth,
                                max_level=iq.max_level, progress=progress, trec_eval_version=trec_eval_version)
    _R, T, _D = base.levels.shape
    filled = base.levels != PAD
    # judged lists of the used topics
    tpos = {t: k for k, t in enumerate(iq.topics)}
    used = np.array([tpos[t] for t in base.topics], np.int64)
    sel = np.isin(iq.entry_topic, used)
    new_topic = np.full(len(iq.topics), -1, np.int64)
    new_topic[used] = np.arange(T)
    et = new_topic[iq.entry_topic]
    cnt_all = np.bincount(iq.entry_topic, minlength=len(iq.topics))
    start_all = np.cumsum(cnt_all) - cnt_all
    jpos = np.arange(len(et)) - start_all[iq.entry_topic]          # position within its topic
    n_judged = cnt_all[used]
    J = int(n_judged.max(initial=1))
    I = iq.levels.shape[1]
    judged_levels = np.full((T, J, I), PAD, np.int8)
    judged_levels[et[sel], jpos[sel]] = iq.levels[sel]
    judged_order = np.full((T, J), np.iinfo(np.int32).max, np.int32)
    judged_order[et[sel], jpos[sel]] = _desc_rank(iq.docs[sel], et[sel], T)
    doc_index = np.where(entry >= 0, jpos[np.maximum(entry, 0)], np.where(filled, UNJUDGED, PAD))
    info = {**base.info, "qrels_form": "intents",
            "intent_probs": None if intent_probs is None else str(intent_probs)}
    return DiversityCollection(
        topics=base.topics, runs=base.runs, levels=base.levels, lengths=base.lengths,
        level_counts=base.level_counts, excluded_topics=base.excluded_topics, info=info,
        doc_index=doc_index.astype(np.int32), judged_levels=judged_levels,
        judged_order=judged_order, n_judged=n_judged.astype(np.int64),
        n_intents=iq.n_intents[used], probs=probs[used],
        intent_ids=tuple(iq.intent_ids[k] for k in used.tolist()))
