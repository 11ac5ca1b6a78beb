"""Several qrels sets of one collection (``metaeval judgments``): read, unioned per set, filled, and
the runs labelled once for all of them.

* A set is one or more qrels files (:func:`metaeval.io.read_qrels` reads each: one file's own
  conflicting duplicates are its error naming both lines).  The set is the union of its files; a
  (topic, document) judged by two files with different levels is an :class:`InputError` naming both
  files, their lines and the pair, unless ``on_conflict`` is ``max``, ``min`` or ``first`` (the
  first file given).  The same level twice is kept once.
* All sets share one list of *items*, the union of their (topic, document) pairs sorted by topic
  (as strings) then document id (bytes); ``labels[s, i]`` is set ``s``'s level of item ``i`` or
  ``-1`` where it did not judge it.
* ``fill`` ``{NAME: (BASE, FROM)}``: the set NAME takes BASE's judgments and FROM's levels for the
  items BASE did not judge (the hybrid human + LLM qrels).
* :func:`label_sets` reads and ranks every run once and labels it against the union of the items
  (one pass of :func:`metaeval.io.ingest.label_runs`); :func:`set_collection` then gives each set's
  :class:`~metaeval.collection.Collection` by one array lookup (its levels at the items ranked), on
  the topics on which that set has a relevant document.
"""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass, field

import numpy as np

from ..collection import PAD, UNJUDGED, Collection
from ..errors import InputError
from .qrels import Qrels, _concat, read_qrels

__all__ = ["JudgmentSets", "read_sets", "label_sets", "LabelledRuns", "set_collection", "ON_CONFLICT"]

ON_CONFLICT = ("error", "max", "min", "first")


@dataclass(frozen=True, eq=False)
class JudgmentSets:
    """Qrels sets on one list of items (see the module docstring)."""
    names: tuple[str, ...]
    files: tuple[tuple[str, ...], ...]       # per set its files (a fill: ())
    topics: tuple[str, ...]                  # every topic any set judged, sorted as strings
    item_topic: np.ndarray                   # (N,) int32 into topics
    item_docs: np.ndarray                    # (N,) document ids (bytes)
    labels: np.ndarray                       # (S, N) int8, -1 not judged
    fills: dict = field(default_factory=dict)  # NAME -> (BASE, FROM)

    @property
    def max_level(self) -> int:
        return int(self.labels.max(initial=0))

    def index(self, name: str) -> int:
        return self.names.index(name)

    def where(self, name: str) -> str:
        """The files of a set (for messages)."""
        if name in self.fills:
            b, f = self.fills[name]
            return f"{name} (= {b} + {f})"
        fs = self.files[self.index(name)]
        return fs[0] if len(fs) == 1 else f"{fs[0]} (and {len(fs) - 1} more)"

    def qrels_text(self, name: str) -> str:
        """A set as TREC qrels ``TOPIC 0 DOCID REL`` (items order)."""
        lab = self.labels[self.index(name)]
        sel = np.flatnonzero(lab >= 0)
        tp = np.array(self.topics, dtype=object)[self.item_topic[sel]]
        docs = [d.decode("utf-8", "replace") for d in self.item_docs[sel].tolist()]
        return "".join(f"{t} 0 {d} {int(v)}\n" for t, d, v in zip(tp, docs, lab[sel].tolist()))


def _read_files(files) -> list[Qrels]:
    return [read_qrels(f) for f in files]


def read_sets(sets: dict, on_conflict: str = "error", fill: dict | None = None) -> JudgmentSets:
    """Read ``{NAME: file or [files]}`` into :class:`JudgmentSets`; ``fill`` ``{NAME: (BASE, FROM)}``
    (or ``"BASE+FROM"``) adds the hybrid sets, in the order given."""
    if on_conflict not in ON_CONFLICT:
        raise ValueError(f"on_conflict must be one of {', '.join(ON_CONFLICT)}, got {on_conflict!r}")
    names = [str(n) for n in sets]
    if not names:
        raise InputError("no qrels set given")
    from ..util import file_args

    files = [tuple(file_args(v, f"qrels set {n}")) for n, v in zip(names, sets.values())]
    tb: list[Any] = []
    docs: list[Any] = []
    lev: list[Any] = []
    sid: list[Any] = []
    fid: list[Any] = []
    line: list[Any] = []
    allfiles: list[Any] = []
    for s, fs in enumerate(files):
        if not fs:
            raise InputError(f"qrels set {names[s]}: no file given")
        for q in _read_files(fs):
            ft = np.array([t.encode("utf-8") for t in q.topics], dtype=object)
            tb.append(ft[q.topic_index].astype(bytes) if len(q) else np.zeros(0, "S1"))
            docs.append(q.docs)
            lev.append(np.asarray(q.level, np.int8))
            sid.append(np.full(len(q), s, np.int64))
            fid.append(np.full(len(q), len(allfiles), np.int64))
            line.append(q._lines if q._lines is not None else np.zeros(len(q), np.int64))
            allfiles.append(q.sources[0] if q.sources else "qrels")
    tb_all, docs_all = _concat(tb), _concat(docs)
    lev_all, sid_all, fid_all, line_all = (np.concatenate(x) for x in (lev, sid, fid, line))
    tuniq, tcode = np.unique(tb_all, return_inverse=True)
    duniq, dcode = np.unique(docs_all, return_inverse=True)
    key = tcode.astype(np.int64) * max(1, len(duniq)) + dcode
    ikeys, item = np.unique(key, return_inverse=True)
    topics = tuple(b.decode("utf-8") for b in tuniq.tolist())
    S, N = len(names), len(ikeys)
    # one (set, item): duplicates within a set, in the order of the files given
    order = np.lexsort((np.arange(len(item)), item, sid_all))
    sk = sid_all[order] * N + item[order]
    start = np.r_[True, sk[1:] != sk[:-1]]
    gstart = np.flatnonzero(start)
    lv = lev_all[order]
    gmax = np.maximum.reduceat(lv, gstart) if len(lv) else lv
    gmin = np.minimum.reduceat(lv, gstart) if len(lv) else lv
    bad = np.flatnonzero(gmax != gmin)
    if len(bad) and on_conflict == "error":
        g = int(bad[0])
        lo = gstart[g]
        hi = gstart[g + 1] if g + 1 < len(gstart) else len(order)
        rows = order[lo:hi]
        j = rows[np.flatnonzero(lev_all[rows] != lev_all[rows[0]])[0]]
        i = rows[0]
        t, d = tuniq[tcode[i]].decode("utf-8", "replace"), docs_all[i]
        d = d.decode("utf-8", "replace") if isinstance(d, bytes) else str(d)
        raise InputError(f"qrels set {names[int(sid_all[i])]}: topic {t} document {d} is judged {int(lev_all[i])} in "
                         f"{allfiles[fid_all[i]]}:{int(line_all[i])} and {int(lev_all[j])} in {allfiles[fid_all[j]]}:"
                         f"{int(line_all[j])}; --on-conflict max, min or first decides", allfiles[fid_all[j]],
                         int(line_all[j]))
    chosen = {"max": gmax, "min": gmin}.get(on_conflict, lv[gstart] if len(lv) else lv)
    labels = np.full((S, N), -1, np.int8)
    g_order = order[gstart]
    labels[sid_all[g_order], item[g_order]] = chosen
    item_topic = (ikeys // max(1, len(duniq))).astype(np.int32)
    item_docs = duniq[ikeys % max(1, len(duniq))]
    js = JudgmentSets(tuple(names), tuple(files), topics, item_topic, item_docs, labels)
    return add_fills(js, fill or {})


def parse_fill(spec) -> tuple[str, str]:
    """``"BASE+FROM"`` or ``(BASE, FROM)`` -> ``(BASE, FROM)``."""
    if isinstance(spec, str):
        base, sep, frm = spec.partition("+")
        if not sep or not base or not frm:
            raise ValueError(f"fill {spec!r}: expected BASE+FROM")
        return base.strip(), frm.strip()
    base, frm = spec
    return str(base), str(frm)


def add_fills(js: JudgmentSets, fill: dict) -> JudgmentSets:
    """The sets of ``fill`` ``{NAME: BASE+FROM}`` added after those of ``js``."""
    if not fill:
        return js
    names, fills = list(js.names), dict(js.fills)
    cur = js.labels
    for name, spec in fill.items():
        base, frm = parse_fill(spec)
        for x in (base, frm):
            if x not in names:
                raise InputError(f"fill {name}={base}+{frm}: no qrels set named {x} "
                                 f"(sets: {', '.join(names)})")
        if name in names:
            raise InputError(f"fill {name}: a qrels set of that name is already given")
        b, f = cur[names.index(base)], cur[names.index(frm)]
        row = np.where(b >= 0, b, f)[None]
        cur = np.concatenate([cur, row])
        names.append(str(name))
        fills[str(name)] = (base, frm)
    return JudgmentSets(tuple(names), js.files + ((),) * len(fill), js.topics, js.item_topic, js.item_docs,
                        cur, fills)


def select_sets(js: JudgmentSets, names) -> JudgmentSets:
    idx = [js.index(n) for n in names]
    return JudgmentSets(tuple(js.names[i] for i in idx), tuple(js.files[i] for i in idx), js.topics,
                        js.item_topic, js.item_docs, js.labels[idx],
                        {k: v for k, v in js.fills.items() if k in names})


# ---------------------------------------------------------------------------------------- runs
@dataclass(frozen=True, eq=False)
class LabelledRuns:
    """The runs ranked once against the union of the items: ``entry[r, t, k]`` the item at rank
    ``k + 1`` of run ``r`` on topic ``topics[t]`` (-1: no set judged it; ``PAD`` past the end)."""
    runs: tuple[str, ...]
    topics: tuple[str, ...]
    topic_items: np.ndarray                  # (T,) index of each topic in JudgmentSets.topics
    entry: np.ndarray
    lengths: np.ndarray
    info: dict


def label_sets(js: JudgmentSets, runs, order: str = "file", depth: int | None = 1000,
               trec_eval_version: int = 10) -> LabelledRuns:
    """Read, rank and label every run once against the union of the sets' items."""
    from .ingest import _runs_arg, _runs_info, label_runs
    from .runs import read_run

    q = Qrels(js.topics, js.item_topic, js.item_docs, np.ones(len(js.item_topic), np.int8), 1,
              tuple(f for fs in js.files for f in fs), "trec")
    sources = _runs_arg(runs)
    if not sources:
        raise InputError("no runs given")
    parsed = [read_run(s, scores=(order == "score")) for s in sources]
    used, _excluded, _levels, lengths, entry = label_runs(q, [(pr, order) for pr in parsed], depth, None, True,
                                                          trec_eval_version)
    pos = {t: i for i, t in enumerate(js.topics)}
    return LabelledRuns(tuple(s.name for s in sources), tuple(used), np.array([pos[t] for t in used], np.int64),
                        entry, lengths, {"runs": _runs_info(sources), "order": order, "depth": depth,
                                         "trec_eval_version": trec_eval_version})


def set_collection(js: JudgmentSets, s: int, lr: LabelledRuns, max_level: int | None = None) -> Collection:
    """Set ``s``'s labelled collection: its levels looked up at every ranked item, on the topics of
    ``lr`` on which set ``s`` has a relevant document (level >= 1); ``max_level`` H of the scale
    (default: the highest level of any set, so all sets share one gain vector)."""
    H = js.max_level if max_level is None else int(max_level)
    lab = js.labels[s]
    T = len(js.topics)
    judged = lab >= 0
    counts = np.bincount(js.item_topic[judged].astype(np.int64) * (H + 1) + lab[judged],
                         minlength=T * (H + 1)).reshape(T, H + 1)[lr.topic_items]
    keep = np.flatnonzero(counts[:, 1:].sum(axis=1) > 0)
    ent = lr.entry[:, keep]
    levels = np.where(ent >= 0, lab[np.maximum(ent, 0)], np.where(ent == PAD, PAD, UNJUDGED)).astype(np.int8)
    kept = set(keep.tolist())
    excluded = tuple(t for i, t in enumerate(lr.topics) if i not in kept)
    return Collection(topics=tuple(lr.topics[i] for i in keep), runs=lr.runs, levels=levels,
                      lengths=lr.lengths[:, keep].copy(), level_counts=counts[keep], excluded_topics=excluded,
                      info={**lr.info, "qrels": list(js.files[s]), "max_level": H, "qrels_set": js.names[s]})
