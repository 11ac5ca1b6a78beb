"""``metaeval judgments`` / :func:`metaeval.judgments`: qrels sets (and per-topic results of other
tools) of one collection -> every table and file of the judgments dimension (docs/meta.md
"Judgments").  Reads the sets (:mod:`metaeval.io.judgments`), ranks and labels the runs once,
evaluates the metrics under each set, then label agreement (:mod:`.judgments`), ranking and
decision agreement and discriminative power (:mod:`.judgments_ranking`).  Computes; writes nothing.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from ..errors import InputError, InputWarning
from .display import Result

if TYPE_CHECKING:
    from ..io.judgments import JudgmentSets

__all__ = ["DEFAULT_B", "DEFAULT_METRICS", "DEFAULT_TOP_K", "JudgmentsResult", "run_judgments"]

DEFAULT_METRICS = ("AP", "nDCG@10")
DEFAULT_TOP_K = 10
DEFAULT_B = 1000


@dataclass
class JudgmentsResult(Result):
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


def _clip_labels(js: JudgmentSets, reference: str, clip: bool, notes: list) -> JudgmentSets:
    """Labels above the reference's highest level: one warning per set naming it and the count;
    ``clip`` maps them to that level."""
    import dataclasses

    import numpy as np

    top = int(js.labels[js.index(reference)].max(initial=0))
    over = (js.labels > top).sum(axis=1)
    for i in np.flatnonzero(over).tolist():
        name = js.names[i]
        _note(notes, f"qrels set {name} ({js.where(name)}): {int(over[i])} label(s) above the reference {reference}'s "
                     f"highest level {top}" + (f", mapped to {top} (--clip)" if clip else
                                               f" (levels up to {int(js.labels[i].max())}; --clip maps them to {top})"))
    if clip and over.any():
        return dataclasses.replace(js, labels=np.minimum(js.labels, np.int8(top)))
    return js


def _empty(columns: list) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})


def _results_metrics(res_scores: dict, reference: str, metrics: list | str | None) -> list:
    """The metrics of a comparison of leaderboards only: those asked for (as spelled in the files, or
    the registry's name of it), default every measure of the reference that another set also has."""
    from ..metrics.registry import parse_measure

    ref = res_scores[reference]
    if metrics is None:
        others = [s for n, s in res_scores.items() if n != reference]
        return [m for m in ref if any(m in o for o in others)] or list(ref)
    out = []
    for m in ([metrics] if isinstance(metrics, str) else list(metrics)):
        if m in ref:
            out.append(m)
            continue
        try:
            canon = parse_measure(m).name
        except ValueError:
            canon = m
        if canon not in ref:
            raise InputError(f"metric {m} is not in the reference {reference}'s leaderboard (it has "
                             f"{_preview(list(ref))})")
        out.append(canon)
    return list(dict.fromkeys(out))


def run_judgments(qrels, reference: str, runs=None, *, metrics=None, gains=None, threshold: int | None = None,
                  top_k: int = DEFAULT_TOP_K, test: str = "paired-t", B: int = DEFAULT_B, alpha: float = 0.05,
                  seed: int = 0, fill=None, on_conflict: str = "error", topics: str = "common",
                  correction: str | None = None, order: str | None = None, results=None, depth: int | None = 1000,
                  rbo_p: float | None = None, clip: bool = False, results_format: str = "auto",
                  trec_eval_version: int = 10) -> JudgmentsResult:
    """Everything of section 1-4 of the judgments dimension; see :func:`metaeval.judgments`.
    Without ``runs``: label agreement of the qrels sets, and the ranking tables of the leaderboards
    of ``results`` (the reference one of them)."""
    import numpy as np

    from ..io.judgments import label_sets, read_sets, set_collection
    from ..io.results import read_leaderboard
    from ..metrics import compute_matrices, parse_gains
    from ..metrics.registry import check_vocabulary, unique_measures
    from .judgments import (
        LABEL_AGREEMENT_COLUMNS,
        TOPIC_AGREEMENT_COLUMNS,
        agreement_tables,
        coverage,
        default_threshold,
    )
    from .judgments_ranking import (
        DECISION_AGREEMENT_COLUMNS,
        RANKING_AGREEMENT_COLUMNS,
        RUN_RANKS_COLUMNS,
        TOPIC_MODES,
        TOPIC_RANKING_COLUMNS,
        decision_agreement,
        discpower_by_set,
        drop_zero_topics,
        ranking_tables,
    )
    from .rankcorr import DEFAULT_RBO_P

    if topics not in TOPIC_MODES:
        raise ValueError(f"topics must be one of {', '.join(TOPIC_MODES)}, got {topics!r}")
    if int(top_k) < 2:
        raise ValueError(f"top_k must be >= 2, got {top_k}")
    sets = _named(qrels, "--qrels")
    fills = {k: (v if isinstance(v, str) else "+".join(v) if len(v) == 2 else v[0])
             for k, v in _named(fill, "--fill").items()}
    res = {k: (v if isinstance(v, str) else v[0]) for k, v in _named(results, "--results").items()}
    if not sets and not res:
        raise ValueError("no qrels set or results given (--qrels NAME=FILE, --results NAME=PATH)")
    clash = sorted(set(res) & (set(sets) | set(fills)))
    if clash:
        raise ValueError(f"--results {clash[0]}: a qrels set of that name is already given")
    names_all = list(sets) + list(fills) + list(res)
    if reference not in names_all:
        shown = [f"{n} ({', '.join(map(str, sets[n]))})" if n in sets else n for n in names_all]
        raise InputError(f"unknown reference {reference!r}: the sets are {'; '.join(shown)}")
    if len(names_all) < 2:            # nothing to compare: header-only tables otherwise
        raise InputError(f"only the reference {reference} is given: judgments compares other qrels sets with it "
                         f"(--qrels NAME=FILE, --fill NAME=BASE+FROM or --results NAME=PATH)")
    has_runs = runs is not None and not (isinstance(runs, (list, tuple)) and len(runs) == 0)
    if res and not has_runs and reference not in res:
        raise InputError(f"results {next(iter(res))} cannot be compared with the qrels set {reference} without "
                         f"--runs (the runs are scored under it); or give a leaderboard as the reference",
                         res[next(iter(res))])
    notes: list = []
    if order is None and sets and has_runs:          # the input's conventions (metaeval.io.conventions)
        from ..io.conventions import default_order

        first = sets[reference] if reference in sets else next(iter(sets.values()))
        order = default_order(None, first[0] if isinstance(first, (list, tuple)) else first,
                              list(runs) if isinstance(runs, (list, tuple)) else [runs])
    order = order or "file"
    js = read_sets(sets, on_conflict=on_conflict, fill=fills) if sets else None
    if threshold is not None and js is not None and not 1 <= int(threshold) <= js.max_level:
        raise InputError(f"--threshold {threshold}: the qrels sets' levels are 0..{js.max_level}, so kappa_binary's "
                         f"threshold lies in 1..{js.max_level}")
    if js is not None and reference in js.names:
        js = _clip_labels(js, reference, clip, notes)
    if js is not None and reference in js.names and topics == "common" and has_runs:
        _check_common(js, reference)
    scores: dict = {}
    means_only: set = set()
    lr = None
    names: list = []
    if has_runs and js is not None:
        lr = label_sets(js, runs, order=order, depth=depth, trec_eval_version=trec_eval_version)
        if len(lr.runs) < 2:
            _note(notes, f"{len(lr.runs)} run given: no ranking of runs to compare (label agreement and coverage "
                         f"only)")
        H = js.max_level
        g = None if gains is None else parse_gains(gains)
        if g is not None and len(g) < H:
            raise InputError(f"--gains gives {len(g)} values (H = {len(g)}) but a qrels set uses level {H}")
        if g is not None:
            H = len(g)
        vocabulary = check_vocabulary(None, order)
        ms = unique_measures(list(DEFAULT_METRICS if metrics is None else [metrics] if isinstance(metrics, str)
                                  else metrics), where="metrics", vocabulary=vocabulary)
        names = [m.name for m in ms]
        run_topics = set(lr.topics)
        for s, name in enumerate(js.names if len(lr.runs) >= 2 else ()):
            c = set_collection(js, s, lr, H)
            judged = {js.topics[i] for i in np.unique(js.item_topic[js.labels[s] >= 0])}
            dropped = sorted(t for t in judged & run_topics if t not in set(c.topics))
            if dropped:
                _note(notes, f"qrels set {name} ({js.where(name)}): {len(dropped)} topic(s) without a relevant "
                             f"document left out of its statistics: {_preview(dropped)}")
            if not c.topics:
                raise InputError(f"qrels set {name}: no topic of the runs has a relevant document under it",
                                 js.where(name))
            vals = compute_matrices(c, ms, g)
            scores[name] = {m: pd.DataFrame(v.T, index=list(c.topics), columns=list(c.runs)) for m, v in vals.items()}
    # with runs, trec_eval's names become the registry's (they meet --metrics); alone, names as printed
    from ..treceval.names import registry_name

    boards = {name: read_leaderboard(path, results_format, trec_names=registry_name if has_runs else None)
              for name, path in res.items()}
    if boards and not names:
        names = _results_metrics({n: b.scores for n, b in boards.items()}, reference, metrics)
    for name, folder in res.items():
        lb = boards[name]
        got = lb.scores
        have = {m: got[m] for m in names if m in got}
        if not have:
            raise InputError(f"results {name}: none of the metrics {', '.join(names)} in its leaderboard "
                             f"(it holds {_preview(sorted(got))})", folder)
        if lr is not None:
            for m, df in have.items():
                missing = [r for r in lr.runs if r not in set(df.columns)]
                if missing:
                    raise InputError(f"results {name}: no {m} value for run {missing[0]}"
                                     + (f" (and {len(missing) - 1} more runs)" if len(missing) > 1 else "")
                                     + f" (expected a file named {missing[0]}[.txt] in a folder, or its rows)",
                                     folder)
                have[m] = df[list(lr.runs)]
            extra = sorted({str(r) for df in got.values() for r in df.columns} - set(map(str, lr.runs)))
            if extra:                      # other runs' results: left out, said once
                _note(notes, f"results {name} ({folder}): {len(extra)} run(s) not among the judged runs ignored "
                             f"(first: {extra[0]})")
        if lb.means_only:
            means_only.add(name)
            _note(notes, f"results {name} ({folder}): run means only (no per-topic values): the statistics over "
                         f"topics (tau interval, per-topic correlations, decisions, discriminative power) are "
                         f"left empty for it")
            scores[name] = have
            continue
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
    if topics == "common" and reference in scores and reference not in means_only:
        for name, folder in res.items():
            if name == reference or name in means_only:
                continue
            for m, df in scores[name].items():
                if m in scores[reference] and not set(df.index) & set(scores[reference][m].index):
                    raise InputError(f"results {name} and the reference {reference} have no topic in common for "
                                     f"{m}: nothing to compare (--topics own ranks each over its own topics)", folder)
    try:
        if js is not None:
            ref_idx = js.index(reference) if reference in js.names else None
            thr = default_threshold(js.max_level) if threshold is None else int(threshold)
            la, ta, conf = agreement_tables(list(js.names), js.labels, js.item_topic, list(js.topics), thr,
                                            js.max_level + 1, reference=ref_idx if topics == "common" else None,
                                            truth=ref_idx)
        else:
            la, ta, conf = _empty(LABEL_AGREEMENT_COLUMNS), _empty(TOPIC_AGREEMENT_COLUMNS), {}
        if reference in scores and len(scores) > 1:
            mo = frozenset(means_only)
            rk = ranking_tables(scores, reference, names, topics=topics, B=B, seed=seed,
                                rbo_p=DEFAULT_RBO_P if rbo_p is None else rbo_p, top_k=top_k, means_only=mo)
            da = decision_agreement(scores, reference, names, topics=topics, test=test, correction=correction,
                                    alpha=alpha, B=B, seed=seed, means_only=mo)
            dp = discpower_by_set(scores, names, alpha=alpha, seed=seed, B=B, means_only=mo)
        else:
            from .discpower import DISCPOWER_COLUMNS

            rk = {"ranking_agreement": _empty(RANKING_AGREEMENT_COLUMNS), "run_ranks": _empty(RUN_RANKS_COLUMNS),
                  "topic_ranking_agreement": _empty(TOPIC_RANKING_COLUMNS)}
            da = _empty(DECISION_AGREEMENT_COLUMNS)
            dp = _empty(["qrels", *DISCPOWER_COLUMNS])
    except ValueError as e:
        raise InputError(str(e)) from None
    if js is not None:
        if lr is not None:
            cov = coverage(list(js.names), js.labels, js.item_topic, lr.topic_items, list(lr.runs), lr.entry,
                           lr.lengths, top_k)
        else:
            cov = coverage(list(js.names), js.labels, js.item_topic, np.zeros(0, np.int64), [],
                           np.zeros((0, 0, 1), np.int64), np.zeros((0, 0), np.int64), top_k)
    else:
        from .judgments import COVERAGE_COLUMNS

        cov = _empty(COVERAGE_COLUMNS)
    tables = {"label_agreement": la, **rk, "decision_agreement": da, "qrels_discriminative_power": dp}
    return JudgmentsResult(tables, ta, cov, conf, {n: js.qrels_text(n) for n in js.fills} if js is not None else {},
                           scores, reference, names, notes)
