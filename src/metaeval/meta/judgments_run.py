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
    #: tables and files left unwritten because nothing fills them (leaderboards alone: no labels, so
    #: no label agreement, per-topic agreement or coverage)
    omitted: tuple = ()

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
                         f"pair in common: nothing to compare (--topic-set own ranks each set over its own topics)",
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


def _measure_keys(m: str) -> list:
    """The names a requested measure may have in a leaderboard: as spelled, the registry's
    canonical name, and trec_eval's printed name as the registry names it (``map``, ``trec.map``,
    ``trec.ndcg_cut_10`` and ``trec.ndcg_cut@10`` all find ``trec.ndcg_cut@10``)."""
    from ..metrics.registry import parse_measure
    from ..treceval.names import registry_name

    keys = [m]
    try:
        keys.append(parse_measure(m).name)
    except ValueError:
        pass
    for printed in (m, m[len("trec."):] if m.startswith("trec.") else None):
        if printed:
            keys.append(registry_name(printed))
    return list(dict.fromkeys(keys))


def _results_metrics(res_scores: dict, reference: str, metrics: list | str | None, notes: list | None = None) -> list:
    """The metrics of a comparison of leaderboards only: those asked for (as spelled in the files, or
    any name of it: :func:`_measure_keys`), default every measure of the reference that another set
    also has (the others named in one note)."""
    ref = res_scores[reference]
    if metrics is None:
        others = [s for n, s in res_scores.items() if n != reference]
        shared = [m for m in ref if any(m in o for o in others)]
        if shared and notes is not None:
            alone = [m for m in ref if m not in shared]
            if alone:
                _note(notes, f"results {reference} (the reference): {len(alone)} measure(s) no other set gives left "
                             f"out: {_preview(alone, 3)}")
            for n, o in res_scores.items():
                extra = [m for m in o if m not in ref] if n != reference else []
                if extra:
                    _note(notes, f"results {n}: {len(extra)} measure(s) the reference {reference} does not give left "
                                 f"out: {_preview(extra, 3)}")
        return shared or list(ref)
    from ..io.results import NOT_MEASURES

    out = []
    for m in ([metrics] if isinstance(metrics, str) else list(metrics)):
        found = next((k for k in _measure_keys(m) if k in ref), None)
        if found is None:
            bare = m.removeprefix("trec.")
            why = (" (a counter or text field of trec_eval's output, not a measure)"
                   if bare.split("(")[0] in NOT_MEASURES else "")
            raise InputError(f"metric {m} is not in the reference {reference}'s leaderboard{why} (it has "
                             f"{_preview(list(ref))})")
        out.append(found)
    return list(dict.fromkeys(out))


def _board_notes(boards: dict, res: dict, notes: list, drop_runs: bool) -> None:
    """One note per leaderboard for its skipped bad files and its measures given as run means only;
    ``drop_runs`` (leaderboards alone): a run whose file was skipped in one set is left out of every
    set (a ranking of the same runs under each)."""
    from ..io.runs import run_name

    for name, lb in boards.items():
        if lb.skipped:
            shown = "; ".join(f"{f.name}: {why}" for f, why in lb.skipped[:3])
            _note(notes, f"results {name} ({res[name]}): {len(lb.skipped)} bad file(s) skipped (--skip-bad): {shown}"
                         + (f"; and {len(lb.skipped) - 3} more" if len(lb.skipped) > 3 else ""))
        if lb.all_only:
            _note(notes, f"results {name} ({res[name]}): {len(lb.all_only)} measure(s) given only as run means "
                         f"('all' lines) beside per-topic ones left out: {_preview(lb.all_only, 3)}")
    if not drop_runs:
        return
    gone = sorted({run_name(f) for lb in boards.values() for f, _why in lb.skipped})
    gone = [r for r in gone if any(r in df.columns for lb in boards.values() for df in lb.scores.values())]
    if gone:
        for lb in boards.values():
            lb.scores = {m: df.drop(columns=[r for r in gone if r in df.columns]) for m, df in lb.scores.items()}
        _note(notes, f"{len(gone)} run(s) whose file was skipped left out of every set: {_preview(gone, 3)}")


def run_judgments(qrels, reference: str, runs=None, *, metrics=None, gains=None, threshold: int | None = None,
                  top_k: int = DEFAULT_TOP_K, test: str = "paired-t", B: int = DEFAULT_B, alpha: float = 0.05,
                  seed: int = 0, fill=None, on_conflict: str = "error", topics: str = "common",
                  correction: str | None = None, order: str | None = None, results=None, depth: int | None = 1000,
                  rbo_p: float | None = None, clip: bool = False, results_format: str = "auto",
                  trec_eval_version: int = 10, skip_bad: bool = False) -> JudgmentsResult:
    """Everything of section 1-4 of the judgments dimension; see :func:`metaeval.judgments`.
    Without ``runs``: label agreement of the qrels sets, and the ranking tables of the leaderboards
    of ``results`` (the reference one of them).  ``skip_bad``: a leaderboard file that cannot be
    read is named in a note and left out (else an error)."""
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
    # trec_eval's printed names become the registry's (trec.map, trec.ndcg_cut@10), with or without
    # runs: one vocabulary whatever the inputs (they meet --metrics)
    from ..treceval.names import registry_name, trec_measure_name

    boards = {name: read_leaderboard(path, results_format, trec_names=registry_name if has_runs else
                                     trec_measure_name, skip_bad=skip_bad)
              for name, path in res.items()}
    _board_notes(boards, res, notes, lr is None)
    if boards and not names:
        names = _results_metrics({n: b.scores for n, b in boards.items()}, reference, metrics, notes)
    for name, folder in res.items():
        lb = boards[name]
        got = lb.scores
        have = {m: got[m] for m in names if m in got}
        if not have:
            raise InputError(f"results {name}: none of the metrics {', '.join(names)} in its leaderboard "
                             f"(it holds {_preview(sorted(got))})", folder)
        lacking = [m for m in names if m not in have]
        if lacking and name != reference:  # a metric this leaderboard does not give: said, not dropped silently
            _note(notes, f"results {name} ({folder}): {len(lacking)} metric(s) not in its leaderboard, compared "
                         f"without it: {_preview(lacking, 3)}")
        if lr is not None:
            for m, df in have.items():
                missing = [r for r in lr.runs if r not in set(df.columns)]
                if missing:
                    from ..io.runs import run_name

                    bad = {run_name(f): f.name for f, _why in lb.skipped}
                    where = (f" (its file {bad[missing[0]]} is no leaderboard, skipped by --skip-bad)"
                             if missing[0] in bad else
                             f" (expected a file named {missing[0]}[.txt] in a folder, or its rows)")
                    raise InputError(f"results {name}: no {m} value for run {missing[0]}"
                                     + (f" (and {len(missing) - 1} more runs)" if len(missing) > 1 else "")
                                     + where, folder)
                have[m] = df[list(lr.runs)]
            extra = sorted({str(r) for df in got.values() for r in df.columns} - set(map(str, lr.runs)))
            if extra:                      # other runs' results: left out, said once
                _note(notes, f"results {name} ({folder}): {len(extra)} run(s) not among the judged runs ignored "
                             f"(first: {extra[0]})")
        holes = {m: lb.filled[m] for m in have if m in lb.filled}
        if holes and not lb.means_only:   # trec_eval -q without -c: a run's missing topic scored 0, said
            runs_h = sorted({r for d in holes.values() for r in d if lr is None or r in set(lr.runs)})
            n = sum(len(ts) for d in holes.values() for r, ts in d.items() if r in runs_h)
            if runs_h:
                _note(notes, f"results {name} ({folder}): {n} (run, topic) value(s) missing where other runs give "
                             f"the topic, scored 0 as trec_eval -c does (a run's own 'all' line averages over its "
                             f"own topics only): run(s) {_preview(runs_h, 3)}; measure(s) {_preview(list(holes), 3)}")
        if lb.means_only:
            means_only.add(name)
            _note(notes, f"results {name} ({folder}): run means only (no per-topic values): the statistics over "
                         f"topics (tau interval, per-topic correlations, decisions, discriminative power) are "
                         f"left empty for it")
            scores[name] = have
            continue
        mats = {}
        zeros: dict = {}
        empty: list = []
        for m, df in have.items():
            kept, zero = drop_zero_topics(df)
            if zero:
                zeros[m] = zero
            if kept.shape[0] == 0:
                empty.append(m)
                continue
            mats[m] = kept
        if zeros:                          # one note per set, whatever the number of measures
            counts = sorted({len(z) for z in zeros.values()})
            span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
            first = next(iter(zeros))
            _note(notes, f"results {name} ({folder}): topics where every run scores 0 left out of the statistics "
                         f"of {len(zeros)} measure(s) ({span} topic(s) each; {first}: {_preview(zeros[first], 3)})")
        if empty:
            _note(notes, f"results {name} ({folder}): {len(empty)} measure(s) where every run scores 0 on every "
                         f"topic left out (nothing to rank): {_preview(empty, 3)}")
        if not mats:
            raise InputError(f"results {name}: every run scores 0 on every topic of every measure "
                             f"({', '.join(have)})", folder)
        scores[name] = mats
    if topics == "common" and reference in scores and reference not in means_only:
        for name, folder in res.items():
            if name == reference or name in means_only:
                continue
            apart = [m for m, df in scores[name].items()
                     if m in scores[reference] and not set(df.index) & set(scores[reference][m].index)]
            if apart:                      # a measure that cannot be compared: one note, not the end
                _note(notes, f"results {name} ({folder}): {len(apart)} measure(s) with no topic in common with the "
                             f"reference {reference} left out of its comparison (--topic-set own ranks each over its "
                             f"own topics): {_preview(apart, 3)}")
                scores[name] = {m: df for m, df in scores[name].items() if m not in apart}
            if not any(m in scores[reference] for m in scores[name]):
                raise InputError(f"results {name} and the reference {reference} have no topic in common for any "
                                 f"measure: nothing to compare (--topic-set own ranks each over its own topics)",
                                 folder)
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
    omitted: tuple = ()
    if js is None:                 # leaderboards alone: no labels to agree on, no ranked documents to cover
        omitted = ("label_agreement", "topic_agreement", "coverage")
    elif not has_runs and not res:  # qrels sets alone: label agreement only, no ranking of runs
        omitted = ("ranking_agreement", "run_ranks", "topic_ranking_agreement", "decision_agreement",
                   "qrels_discriminative_power")
    return JudgmentsResult(tables, ta, cov, conf, {n: js.qrels_text(n) for n in js.fills} if js is not None else {},
                           scores, reference, names, notes, omitted)
