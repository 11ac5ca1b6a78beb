"""``metaeval judgments`` / :func:`metaeval.judgments`: qrels sets (and per-topic results of other
tools) of one collection -> every table and file of the judgments dimension (docs/meta.md
"Judgments").  Reads the sets (:mod:`metaeval.io.judgments`), ranks and labels the runs once,
evaluates the metrics under each set, then label agreement (:mod:`.judgments`), ranking and
decision agreement and discriminative power (:mod:`.judgments_ranking`).  Computes; writes nothing.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import pandas as pd

from ..errors import InputError, InputWarning

__all__ = ["JudgmentsResult", "run_judgments", "DEFAULT_METRICS", "DEFAULT_TOP_K", "DEFAULT_B"]

DEFAULT_METRICS = ("AP", "nDCG@10")
DEFAULT_TOP_K = 10
DEFAULT_B = 1000


@dataclass
class JudgmentsResult:
    """The tables (``label_agreement``, ``ranking_agreement``, ``run_ranks``,
    ``decision_agreement``, ``qrels_discriminative_power``) and the files of ``DIR/judgments/``:
    ``topic_agreement``, ``coverage``, ``confusion`` ``{(A, B): DataFrame}``, ``qrels`` ``{fill
    name: TREC qrels text}``; ``scores`` ``{set: {metric: topic x run DataFrame}}``."""
    tables: dict
    topic_agreement: pd.DataFrame
    coverage: pd.DataFrame
    confusion: dict
    qrels: dict
    scores: dict
    reference: str
    metrics: list
    notes: list = field(default_factory=list)

    def _parts(self) -> dict:
        return {**self.tables, "topic_agreement": self.topic_agreement, "coverage": self.coverage,
                "confusion": self.confusion, "qrels": self.qrels, "scores": self.scores}

    def _head(self) -> str:
        sets = list(self.scores)
        return (f"{len(sets)} sets against {self.reference!r}, metrics {', '.join(map(str, self.metrics))}"
                + (f", {len(self.notes)} notes" if self.notes else ""))

    def __repr__(self) -> str:
        from .display import short_repr

        return short_repr("JudgmentsResult", self._parts(), self._head())

    def _repr_html_(self) -> str:
        from .display import html_view

        main = "ranking_agreement" if "ranking_agreement" in self.tables else next(iter(self.tables), None)
        return html_view("JudgmentsResult", self._parts(), main, self._head())


def _note(notes: list, msg: str) -> None:
    notes.append(msg)
    warnings.warn(InputWarning(msg), stacklevel=3)


def _preview(items, k: int = 5) -> str:
    items = list(items)
    return ", ".join(items[:k]) + (f", ... ({len(items)} in all)" if len(items) > k else "")


def _named(spec, what: str) -> dict:
    """``{NAME: value}`` from a dict or from ``NAME=VALUE`` strings (values of one name merged)."""
    if spec is None:
        return {}
    if isinstance(spec, dict):
        return dict(spec)
    out: dict = {}
    for item in spec:
        name, sep, value = str(item).partition("=")
        if not sep or not name or not value:
            raise ValueError(f"{what} {item!r}: expected NAME=VALUE")
        out.setdefault(name, []).extend(v for v in value.split(",") if v)
    return out


def _check_common(js, reference: str) -> None:
    """Every qrels set shares a judged (topic, document) pair with the reference: else an error
    naming both sets and their files (nothing to compare is never a table of NaN)."""
    import numpy as np

    ref = js.labels[js.index(reference)] >= 0
    both = ((js.labels >= 0) & ref[None]).any(axis=1)
    for i in np.flatnonzero(~both).tolist():
        name = js.names[i]
        raise InputError(f"qrels sets {reference} ({js.where(reference)}) and {name} judged no (topic, document) "
                         f"pair in common: nothing to compare (--topics own ranks each set over its own topics)",
                         js.where(name))


def run_judgments(qrels, reference: str, runs, *, metrics=DEFAULT_METRICS, gains=None, threshold: int | None = None,
                  top_k: int = DEFAULT_TOP_K, test: str = "paired-t", B: int = DEFAULT_B, alpha: float = 0.05,
                  seed: int = 0, fill=None, on_conflict: str = "error", topics: str = "common",
                  correction: str | None = None, order: str | None = None, results=None, depth: int | None = 1000,
                  rbo_p: float | None = None) -> JudgmentsResult:
    """Everything of section 1-4 of the judgments dimension; see :func:`metaeval.judgments`."""
    import numpy as np

    from ..io.judgments import label_sets, read_sets, set_collection
    from ..io.results import read_results
    from ..metrics import compute_matrices, parse_gains
    from ..metrics.registry import check_vocabulary, unique_measures
    from ..treceval.names import registry_name
    from .judgments import agreement_tables, coverage, default_threshold
    from .judgments_ranking import (TOPIC_MODES, decision_agreement, discpower_by_set, drop_zero_topics,
                                    ranking_tables)
    from .rankcorr import DEFAULT_RBO_P

    if topics not in TOPIC_MODES:
        raise ValueError(f"topics must be one of {', '.join(TOPIC_MODES)}, got {topics!r}")
    if int(top_k) < 2:
        raise ValueError(f"top_k must be >= 2, got {top_k}")
    sets = _named(qrels, "--qrels")
    fills = {k: (v if isinstance(v, str) else "+".join(v) if len(v) == 2 else v[0])
             for k, v in _named(fill, "--fill").items()}
    res = {k: (v if isinstance(v, str) else v[0]) for k, v in _named(results, "--results").items()}
    if not sets:
        raise ValueError("no qrels set given (--qrels NAME=FILE)")
    clash = sorted(set(res) & (set(sets) | set(fills)))
    if clash:
        raise ValueError(f"--results {clash[0]}: a qrels set of that name is already given")
    names_all = list(sets) + list(fills) + list(res)
    if reference not in names_all:
        shown = [f"{n} ({', '.join(map(str, sets[n]))})" if n in sets else n for n in names_all]
        raise InputError(f"unknown reference {reference!r}: the sets are {'; '.join(shown)}")
    notes: list = []
    if order is None and sets:                       # the input's conventions (metaeval.io.conventions)
        from ..io.conventions import default_order

        first = sets[reference] if reference in sets else next(iter(sets.values()))
        order = default_order(None, first[0] if isinstance(first, (list, tuple)) else first,
                              list(runs) if isinstance(runs, (list, tuple)) else [runs])
    order = order or "file"
    js = read_sets(sets, on_conflict=on_conflict, fill=fills)
    if reference in js.names and topics == "common":
        _check_common(js, reference)
    lr = label_sets(js, runs, order=order, depth=depth)
    H = js.max_level
    g = None if gains is None else parse_gains(gains)
    if g is not None and len(g) < H:
        raise InputError(f"--gains gives {len(g)} values (H = {len(g)}) but a qrels set uses level {H}")
    if g is not None:
        H = len(g)
    vocabulary = check_vocabulary(None, order)
    if isinstance(metrics, str):
        metrics = [metrics]
    ms = unique_measures(list(metrics), where="metrics", vocabulary=vocabulary)
    names = [m.name for m in ms]
    scores: dict = {}
    run_topics = set(lr.topics)
    for s, name in enumerate(js.names):
        c = set_collection(js, s, lr, H)
        judged = set(js.topics[i] for i in np.unique(js.item_topic[js.labels[s] >= 0]))
        dropped = sorted(t for t in judged & run_topics if t not in set(c.topics))
        if dropped:
            _note(notes, f"qrels set {name} ({js.where(name)}): {len(dropped)} topic(s) without a relevant "
                         f"document left out of its statistics: {_preview(dropped)}")
        if not c.topics:
            raise InputError(f"qrels set {name}: no topic of the runs has a relevant document under it", js.where(name))
        vals = compute_matrices(c, ms, g)
        scores[name] = {m: pd.DataFrame(v.T, index=list(c.topics), columns=list(c.runs)) for m, v in vals.items()}
    for name, folder in res.items():
        got = read_results(folder, list(lr.runs), names=registry_name)
        have = {m: got[m] for m in names if m in got}
        if not have:
            raise InputError(f"results {name}: none of the metrics {', '.join(names)} in the trec_eval -q "
                             f"files (they hold {_preview(sorted(got))})", folder)
        mats = {}
        for m, df in have.items():
            kept, zero = drop_zero_topics(df)
            if zero:
                _note(notes, f"results {name} ({folder}), {m}: {len(zero)} topic(s) where every run scores 0 "
                             f"left out of its statistics: {_preview(zero)}")
            if kept.shape[0] == 0:
                raise InputError(f"results {name}, {m}: every run scores 0 on every topic", folder)
            mats[m] = kept
        scores[name] = mats
    if topics == "common":
        for name, folder in res.items():
            for m, df in scores[name].items():
                if m in scores[reference] and not set(df.index) & set(scores[reference][m].index):
                    raise InputError(f"results {name} and the reference {reference} have no topic in common for "
                                     f"{m}: nothing to compare (--topics own ranks each over its own topics)", folder)
    ref_idx = js.index(reference) if reference in js.names else None
    thr = default_threshold(js.max_level) if threshold is None else int(threshold)
    try:
        la, ta, conf = agreement_tables(list(js.names), js.labels, js.item_topic, list(js.topics), thr,
                                        js.max_level + 1, reference=ref_idx if topics == "common" else None)
        rk = ranking_tables(scores, reference, names, topics=topics, B=B, seed=seed,
                            rbo_p=DEFAULT_RBO_P if rbo_p is None else rbo_p, top_k=top_k)
        da = decision_agreement(scores, reference, names, topics=topics, test=test, correction=correction,
                                alpha=alpha, B=B, seed=seed)
        dp = discpower_by_set(scores, names, alpha=alpha, seed=seed, B=B)
    except ValueError as e:
        raise InputError(str(e)) from None
    cov = coverage(list(js.names), js.labels, js.item_topic, lr.topic_items, list(lr.runs), lr.entry,
                   lr.lengths, top_k)
    tables = {"label_agreement": la, **rk, "decision_agreement": da, "qrels_discriminative_power": dp}
    return JudgmentsResult(tables, ta, cov, conf, {n: js.qrels_text(n) for n in js.fills}, scores, reference,
                           names, notes)
