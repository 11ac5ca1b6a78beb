"""Robustness to incomplete judgments and pool reuse: the measures recomputed on reduced qrels.

Four ways of reducing the judgments of a labelled collection (docs/meta.md, "Incomplete
judgments and pool reuse"):

``judged``      per topic, a simple random sample without replacement of ``round(f |judged|)``
                (at least one) of its judged documents, redrawn until it holds a relevant one
                (Buckley & Voorhees 2004; Sakai SIGIR 2007, "Alternatives to bpref");
``stratified``  the same fraction of the relevant (at least one) and of the nonrelevant documents
                separately (Sakai SIGIR 2007);
``depth``       the judged documents in the top ``d`` of at least one run of the collection: the
                pool the runs would have formed at depth ``d`` (Zobel 1998; Sakai & Kando 2008);
``leave-one-group-out``  for each group of runs, the judged documents only that group contributed
                to the depth-``p`` pool are removed and the group's runs are evaluated on the rest
                (Zobel 1998; Büttcher et al. 2007).

A reduced qrels differs from the full one only in which judged documents are dropped, so a trial
is a *mask* over the collection's judgments: the dropped documents become unjudged in the
labelled lists and the relevance counts per level (hence the ideal lists and R) are recounted
from the mask.  Nothing is read again.  The trials of a level are evaluated together, stacked along
the topic axis (every measure is per run and topic), as many at once as :data:`MAX_ELEMENTS` allows.
Every measure is computed as given (unjudged = nonrelevant) and on condensed lists (unjudged
documents removed: NTCIREVAL's ``-j``, trec_eval's ``-J``): the registry's parameter
``M(judged_only=True)``; bpref (on condensed lists) and trec_eval's infAP are added.

Each trial's draw comes from its own generator, ``SeedSequence([seed, stream "incompleteness",
method, level, trial])`` (:func:`metaeval.meta.samples.trial_rng`): independent of how many trials
are drawn together, of the batch size and of the job split, and of the other stages' samples.
The paired bootstrap test of the reduced scores uses the ``paired`` samples ``Q*b`` of the
number of topics (those of the paired stage when no topic is lost).
"""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..collection import UNJUDGED, Collection
from .pool_groups import DEFAULT_GROUPS, group_summary, pool_contributors, run_groups

__all__ = ["METHODS", "DEFAULT_FRACTIONS", "DEFAULT_DEPTHS", "DEFAULT_TRIALS", "DEFAULT_GROUPS",
           "DEFAULT_POOL_DEPTH", "TABLE_COLUMNS", "TRIAL_COLUMNS", "POOL_REUSE_COLUMNS",
           "IncompletenessConfig", "binary_threshold", "condensed_name", "level_text", "measure_names", "sample_judged",
           "sample_stratified", "depth_pool", "run_groups", "group_pools", "pool_contributors",
           "pool_groups", "group_summary", "TRIVIAL_CONDENSED", "reduced_collection",
           "trial_masks", "level_masks", "reduced_scores", "summarise", "stage_incompleteness",
           "reduced_judgments", "qrels_file_name"]

METHODS = ("judged", "stratified", "depth", "leave-one-group-out")
DEFAULT_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
DEFAULT_DEPTHS = (10, 20, 50, 100)
DEFAULT_TRIALS = 20
DEFAULT_POOL_DEPTH = 100
#: the measures added beside the configured ones: bpref, defined on condensed lists (Buckley &
#: Voorhees 2004; NTCIREVAL's, Sakai (2011) Sec. 3.2), and trec_eval's infAP
EXTRA_MEASURES = ("bpref(judged_only=True)", "trec.infAP")

TABLE_COLUMNS = ["metric", "method", "level", "trials", "tau", "tau_sd", "tau_ap", "rmse",
                 "significant_pairs", "pairs"]
TRIAL_COLUMNS = ["metric", "method", "level", "trial", "tau", "tau_ap", "rmse", "significant_pairs"]
POOL_REUSE_COLUMNS = ["metric", "group", "run", "full", "reduced", "delta", "full_rank", "reduced_rank"]
#: the summary rows of pool_reuse.csv per metric (group "all"; the value in ``delta``)
POOL_SUMMARY = ("mean_abs_delta", "max_abs_delta", "max_rank_drop")
_METHOD_ID = {m: i for i, m in enumerate(METHODS)}
#: elements (runs x topics x depth x trials) of one stacked evaluation: trials are stacked up to
#: this size; beyond it the memory traffic of the larger arrays costs more than the per-call work
#: saved (measured on 30 runs x 50 topics x depth 1000: one trial per call 0.59 s a level, two 0.83 s)
MAX_ELEMENTS = 1 << 21
#: topic x pair-column elements of one paired bootstrap call (cache-sized: 2^18 takes 2 s a level of
#: 420 trial-measures x 435 pairs where 2^22 takes 7 s; the results do not depend on it)
_BOOT_ELEMENTS = 1 << 18


@dataclass(frozen=True)
class IncompletenessConfig:
    """The parameters of the incompleteness stage (defaults: the issue's experiment)."""

    methods: tuple = ("judged",)
    fractions: tuple = DEFAULT_FRACTIONS
    depths: tuple = DEFAULT_DEPTHS
    trials: int = DEFAULT_TRIALS
    groups: str = DEFAULT_GROUPS            # "auto", a regular expression (group 1) or a RUN GROUP file
    pool_depth: int = DEFAULT_POOL_DEPTH
    condensed: bool = True                  # also M(judged_only=True) for every measure M
    extra: tuple = EXTRA_MEASURES
    jobs: int = 1                           # processes (levels dealt to them; results unchanged)
    # the runs that formed the pool (depth, leave-one-group-out): None = every run; names or
    # globs (a list), one glob, or a file of names (pool_contributors)
    pool_runs: object = None
    # the stage's folder also holds every reduced qrels (its run keeps the keep masks for it)
    write_qrels: bool = False

    def __post_init__(self):
        bad = [m for m in self.methods if m not in METHODS]
        if bad or not self.methods:
            raise ValueError(f"incompleteness methods: unknown {bad or 'none given'}; known: {', '.join(METHODS)}")
        object.__setattr__(self, "methods", tuple(dict.fromkeys(self.methods)))
        fr = tuple(float(f) for f in self.fractions)
        if not fr or any(not 0 < f <= 1 for f in fr):
            raise ValueError(f"incompleteness fractions must lie in (0, 1], got {list(self.fractions)}")
        object.__setattr__(self, "fractions", fr)
        dp = tuple(self.depths)
        if not dp or any(isinstance(d, bool) or int(d) != d or int(d) < 1 for d in dp):
            raise ValueError(f"incompleteness depths must be positive integers, got {list(self.depths)}")
        object.__setattr__(self, "depths", tuple(int(d) for d in dp))
        if isinstance(self.pool_runs, (list, tuple)):
            object.__setattr__(self, "pool_runs", tuple(str(r) for r in self.pool_runs))
        for name in ("trials", "pool_depth", "jobs"):
            v = getattr(self, name)
            if isinstance(v, bool) or int(v) != v or int(v) < 1:
                raise ValueError(f"incompleteness {name.replace('_', ' ')} must be a positive integer, got {v}")


# --------------------------------------------------------------------------- names and levels
def condensed_name(measure: str) -> str:
    """The canonical name of a measure's condensed-list variant, the registry's parameter
    ``judged_only=True`` (the spelling of ir_measures): ``AP(judged_only=True)``,
    ``nDCG(judged_only=True)@10``.  The condensed variant of a condensed measure is itself."""
    from ..metrics import parse_measure

    spec = parse_measure(measure)
    if dict(spec.params).get("judged_only"):
        return spec.name
    base, at, cut = spec.name.partition("@")
    base = base[:-1] + ",judged_only=True)" if base.endswith(")") else base + "(judged_only=True)"
    return parse_measure(base + at + cut).name


def level_text(level) -> str:
    """A level as the tables and the qrels file names write it: ``0.1``, ``10``."""
    return format(float(level), "g") if isinstance(level, float) else str(int(level))


#: measures whose condensed variant is trivially 1 (the share of judged documents among the
#: judged ones): not added beside them
TRIVIAL_CONDENSED = ("Judged",)


def binary_threshold(metrics) -> int | None:
    """The relevance threshold (``rel=``) every binary measure of ``metrics`` shares, which the
    added measures take (a track judging on rel=2 gets ``bpref(judged_only=True,rel=2)`` and
    ``trec.infAP(rel=2)``); ``None`` when there is no binary measure or they differ."""
    from ..metrics import parse_measure

    levels = {parse_measure(m).param("rel") for m in metrics
              if "rel" in parse_measure(m).definition.params}
    return int(levels.pop()) if len(levels) == 1 else None


def measure_names(metrics, icfg: IncompletenessConfig) -> list[str]:
    """The canonical names of every measure of the stage: each metric as given, then its
    condensed variant (unless it is the metric itself, or trivially 1 as ``Judged``'s is); then
    the extra measures (bpref on condensed lists, trec_eval's infAP) at the relevance threshold
    the configured binary measures share (:func:`binary_threshold`); each name once."""
    from ..metrics import parse_measure

    out = []
    for m in metrics:
        spec = parse_measure(m)
        out.append(spec.name)
        if icfg.condensed and spec.base not in TRIVIAL_CONDENSED:
            out.append(condensed_name(m))
    out = list(dict.fromkeys(out))
    rel = binary_threshold(metrics)
    for e in icfg.extra:
        spec = parse_measure(e)
        if rel is not None and "rel" in spec.definition.params and "rel" not in dict(spec.params):
            spec = parse_measure(f"{e[:-1]},rel={rel})" if e.endswith(")") else f"{e}(rel={rel})")
        name = spec.name
        if name not in out:
            out.append(name)
    return out


# --------------------------------------------------------------------------- the draws
def _need(a: np.ndarray | None) -> np.ndarray:
    """One of the collection's document-identity arrays (``judged_*``, ``qrels_row``): the methods
    need a collection read with them."""
    if a is None:
        raise ValueError("incompleteness needs the collection's judgments (judged_topic, qrels_row): "
                         "read it with metaeval.io.load_collection")
    return a


def _topic_bounds(c: Collection) -> np.ndarray:
    return np.searchsorted(_need(c.judged_topic), np.arange(len(c.topics) + 1))


def _sample_within(groups: np.ndarray, sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A simple random sample without replacement of ``sizes[g]`` entries of every group ``g``
    (``groups`` per entry): random keys, the ``sizes[g]`` smallest of each group kept."""
    keys = rng.random(len(groups))
    order = np.lexsort((keys, groups))
    g = groups[order]
    start = np.searchsorted(g, g, side="left")
    rank = np.arange(len(g)) - start
    keep = np.zeros(len(groups), bool)
    keep[order] = rank < sizes[g]
    return keep


def _round_half_up(x: np.ndarray) -> np.ndarray:
    return np.floor(np.asarray(x, np.float64) + 0.5).astype(np.int64)


def sample_judged(c: Collection, f: float, rng: np.random.Generator) -> np.ndarray:
    """``judged``: per topic ``max(1, round(f n))`` of its ``n`` judged documents, redrawn (that
    topic only) until a relevant one is kept.  Returns the keep mask over the judgments."""
    topic = _need(c.judged_topic).astype(np.int64)
    T = len(c.topics)
    n = np.bincount(topic, minlength=T)
    size = np.maximum(1, _round_half_up(f * n))
    rel = _need(c.judged_level) >= 1
    keep = _sample_within(topic, size, rng)
    while True:
        ok = np.bincount(topic, weights=keep & rel, minlength=T) > 0
        if ok.all():
            return keep
        redo = ~ok[topic]
        sub = _sample_within(topic[redo], size, rng)
        keep[redo] = sub


def sample_stratified(c: Collection, f: float, rng: np.random.Generator) -> np.ndarray:
    """``stratified``: per topic ``max(1, round(f R))`` of its ``R`` relevant and ``round(f N)`` of
    its ``N`` judged nonrelevant documents.  Returns the keep mask over the judgments."""
    T = len(c.topics)
    stratum = _need(c.judged_topic).astype(np.int64) * 2 + (_need(c.judged_level) >= 1)
    n = np.bincount(stratum, minlength=2 * T)
    size = _round_half_up(f * n)
    size[1::2] = np.maximum(1, size[1::2])
    return _sample_within(stratum, size, rng)


def depth_pool(c: Collection, d: int, pool=None) -> np.ndarray:
    """``depth``: the judgments found in the top ``d`` of at least one run of ``c`` (of the runs
    ``pool``, indices into ``c.runs``, when given: the pool contributors)."""
    rows = _need(c.qrels_row)[:, :, :d] if pool is None else _need(c.qrels_row)[np.asarray(pool, np.int64), :, :d]
    keep = np.zeros(len(_need(c.judged_level)), bool)
    keep[rows[rows >= 0]] = True
    return keep


def pool_groups(c: Collection, icfg: IncompletenessConfig) -> dict[str, str]:
    """Contributor run -> group of the ``leave-one-group-out`` method (the runs of
    ``icfg.pool_runs`` grouped by ``icfg.groups``)."""
    return run_groups(pool_contributors(c.runs, icfg.pool_runs), icfg.groups)


def group_pools(c: Collection, groups: dict, depth: int) -> dict[str, np.ndarray]:
    """``leave-one-group-out``: for every group (sorted), the keep mask without the judgments that
    only that group's runs bring to the depth-``depth`` pool of the grouped runs (the pool
    contributors: the runs of ``c`` named in ``groups``; the others contribute nothing)."""
    names = sorted(set(groups.values()))
    gid = np.array([names.index(groups[r]) if r in groups else -1 for r in c.runs])
    N = len(_need(c.judged_level))
    inpool = np.zeros((len(names), N), bool)
    rows = _need(c.qrels_row)[:, :, :depth]
    for g in range(len(names)):
        rg = rows[gid == g]
        inpool[g, rg[rg >= 0]] = True
    count = inpool.sum(axis=0)
    return {name: ~(inpool[g] & (count == 1)) for g, name in enumerate(names)}


def trial_masks(c: Collection, method: str, level, trials: range, seed: int) -> np.ndarray:
    """The keep masks ``(len(trials), judgments)`` of trials ``trials`` (0-based) of a random
    method at fraction ``level``; each trial from its own generator."""
    draw = sample_judged if method == "judged" else sample_stratified
    from .samples import trial_rng

    key = round(float(level) * 1_000_000)
    return np.stack([draw(c, float(level), trial_rng(seed, "incompleteness", _METHOD_ID[method], key, k))
                     for k in trials])


# --------------------------------------------------------------------------- evaluation
def reduced_collection(c: Collection, keep: np.ndarray) -> tuple[Collection, np.ndarray]:
    """The collection on the reduced qrels of every mask in ``keep`` ``(K, judgments)``, the K
    trials stacked along the topic axis (topic ``k T + t``), and the ``(K, T)`` relevant counts.
    The dropped documents become unjudged; the counts per level are recounted from the mask."""
    keep = np.atleast_2d(keep)
    K, T, H1 = keep.shape[0], len(c.topics), c.level_counts.shape[1]
    row = _need(c.qrels_row)
    lv = np.broadcast_to(c.levels, (K,) + c.levels.shape)
    judged = row >= 0
    kept = keep[:, np.maximum(row, 0)]                               # (K, R, T, D)
    levels = np.where(judged[None] & ~kept, np.int8(UNJUDGED), lv)
    R, D = len(c.runs), c.depth
    levels = np.ascontiguousarray(levels.transpose(1, 0, 2, 3)).reshape(R, K * T, D)
    idx = _need(c.judged_topic).astype(np.int64) * H1 + _need(c.judged_level)
    flat = (np.arange(K)[:, None] * (T * H1) + idx[None, :])[keep]
    counts = np.bincount(flat, minlength=K * T * H1).reshape(K * T, H1).astype(c.level_counts.dtype)
    lengths = np.tile(c.lengths, (1, K))
    topics = tuple(f"{k}:{t}" for k in range(K) for t in c.topics)
    red = Collection(topics=topics, runs=c.runs, levels=levels, lengths=lengths, level_counts=counts,
                     info={**c.info, "reduced": True})
    return red, counts[:, 1:].sum(axis=1).reshape(K, T)


def _evaluate(c: Collection, measures, gains) -> dict[str, np.ndarray]:
    """``{name: (runs, topics)}`` for every canonical measure name (``judged_only=True``: on the
    condensed lists, by the registry)."""
    from ..metrics.evaluate import evaluate

    with np.errstate(divide="ignore", invalid="ignore"):
        return evaluate(c, list(measures), gains=gains)


def reduced_scores(c: Collection, keep: np.ndarray, measures, gains, max_elements: int = MAX_ELEMENTS):
    """Per-topic scores on the reduced qrels of every mask: ``{name: (K, runs, topics)}`` (NaN on
    a topic left without a relevant document), evaluated in stacked batches of trials."""
    keep = np.atleast_2d(keep)
    K, T, R = keep.shape[0], len(c.topics), len(c.runs)
    per = max(1, R * T * c.depth)
    step = max(1, min(K, max_elements // per))
    out = {n: np.empty((K, R, T)) for n in measures}
    for k0 in range(0, K, step):
        k1 = min(K, k0 + step)
        red, nrel = reduced_collection(c, keep[k0:k1])
        vals = _evaluate(red, measures, gains)
        for n, v in vals.items():
            v = v.reshape(R, k1 - k0, T).transpose(1, 0, 2)
            out[n][k0:k1] = np.where((nrel > 0)[:, None, :], v, np.nan)
    return out


def _means(scores: np.ndarray) -> np.ndarray:
    """Run means over the topics with a score (``(..., runs, topics)``; NaN = topic left out),
    summed in topic order."""
    ok = ~np.isnan(scores)
    s = np.add.reduce(np.where(ok, scores, 0.0), axis=-1)
    return s / ok.sum(axis=-1)


def _significant(scores: np.ndarray, cfg, samples_for) -> np.ndarray:
    """Run pairs the paired bootstrap test finds significant at ``cfg.alpha``, per row of
    ``scores`` ``(S, runs, topics)`` (rows with the same topics tested together)."""
    from .bootstrap import paired_test_differences
    from .statistics import pair_indices

    S, R, _ = scores.shape
    ia, ib = pair_indices(R)
    out = np.zeros(S, np.int64)
    ok_topics = ~np.isnan(scores).any(axis=1)                   # (S, T)
    keys: dict[Any, Any] = {}
    for s in range(S):
        keys.setdefault(ok_topics[s].tobytes(), []).append(s)
    for rows in keys.values():
        t = ok_topics[rows[0]]
        n = int(t.sum())
        if n < 2:
            continue
        smp = samples_for(n)
        step = max(1, _BOOT_ELEMENTS // max(1, n * len(ia)))
        for r0 in range(0, len(rows), step):
            rr = rows[r0:r0 + step]
            X = scores[rr][:, :, t]                                # (k, R, n)
            Z = (X[:, ia, :] - X[:, ib, :]).transpose(2, 0, 1).reshape(n, -1)
            _, _, asl, _ = paired_test_differences(Z, smp, alpha=cfg.alpha, batch=cfg.batch, estimate=False)
            out[rr] = (asl.reshape(len(rr), len(ia)) < cfg.alpha).sum(axis=1)
    return out


def _tau_a(full: np.ndarray, red: np.ndarray) -> np.ndarray:
    """Kendall's tau-a of every row pair as :func:`metaeval.meta.kendall.kendall_tau` computes it
    (scores rounded to its tie tolerance; (concordant - discordant) / (n (n - 1) / 2), exact counts)."""
    from .kendall import TIE_DECIMALS

    a, b = np.round(full, TIE_DECIMALS), np.round(red, TIE_DECIMALS)
    n = a.shape[1]
    i, j = np.triu_indices(n, 1)
    prod = np.sign(a[:, i] - a[:, j]) * np.sign(b[:, i] - b[:, j])
    return ((prod > 0).sum(axis=1) - (prod < 0).sum(axis=1)) / (n * (n - 1) // 2)


def _tau_ap(full: np.ndarray, red: np.ndarray) -> np.ndarray:
    """tau_AP (Yilmaz et al. 2008) of every reduced ranking against the full one
    (:func:`metaeval.meta.rankcorr.coefficient_matrices`; NaN with ties)."""
    from .rankcorr import coefficient_matrices

    return coefficient_matrices(np.stack([full, red], axis=1))["tau_ap"][:, 0, 1]


class _Samples:
    def __init__(self, cfg, samples=None):
        self.cfg, self._have = cfg, {}
        if samples is not None:
            self._have[samples.indices.shape[1]] = samples

    def __call__(self, n: int):
        from .samples import BootstrapSamples

        if n not in self._have:
            self._have[n] = BootstrapSamples.from_seed(self.cfg.seed, n, self.cfg.B, "paired")
        return self._have[n]


def _level_rows(c, method, level, masks, measures, gains, full_means, cfg, samples_for):
    """Trial rows of one (method, level): ``{name: DataFrame}`` pieces."""
    scores = reduced_scores(c, masks, measures, gains)
    names = list(measures)
    K = masks.shape[0]
    red = np.concatenate([_means(scores[n]) for n in names])                 # (M K, runs)
    full = np.repeat(np.stack([full_means[n] for n in names]), K, axis=0)    # (M K, runs)
    tau, tau_ap = _tau_a(full, red), _tau_ap(full, red)
    d = red - full
    rmse = np.sqrt(np.add.reduce(d * d, axis=1) / d.shape[1])
    sig = _significant(np.concatenate([scores[n] for n in names]), cfg, samples_for)
    return pd.DataFrame({"metric": np.repeat(names, K), "method": method, "level": level_text(level),
                         "trial": np.tile(np.arange(1, K + 1), len(names)), "tau": tau, "tau_ap": tau_ap,
                         "rmse": rmse, "significant_pairs": sig})


def _levels(icfg: IncompletenessConfig) -> list[tuple[str, object]]:
    out = []
    for m in icfg.methods:
        if m in ("judged", "stratified"):
            out += [(m, f) for f in icfg.fractions]
        elif m == "depth":
            out += [(m, d) for d in icfg.depths]
    return out


def level_masks(c: Collection, method: str, level, icfg: IncompletenessConfig, seed: int) -> np.ndarray:
    """The keep masks of every trial of one (method, level) over ``c``'s judgments (``depth``:
    one deterministic trial, the pool of the contributors ``icfg.pool_runs``)."""
    if method == "depth":
        pool = None
        if icfg.pool_runs is not None:
            names = set(pool_contributors(c.runs, icfg.pool_runs))
            pool = [i for i, r in enumerate(c.runs) if r in names]
        return depth_pool(c, int(level), pool)[None]
    return trial_masks(c, method, level, range(icfg.trials), seed)


def _check(c: Collection) -> None:
    if not c.has_documents or type(c) is not Collection:
        raise ValueError("the incompleteness stage needs a labelled collection with document identity "
                         "(qrels in NTCIR or TREC form; rebuild the .npz cache with this version of "
                         "metaeval matrices / ingest)")


def _work(args):
    ev, method, level, masks, measures, gains, full_means, cfg = args
    return _level_rows(ev, method, level, masks, measures, gains, full_means, cfg, _Samples(cfg))


def stage_incompleteness(collection: Collection, metrics, cfg, *, gains=None, runs=None, samples=None,
                         icfg: IncompletenessConfig | None = None, masks_out: dict | None = None) -> dict:
    """``incompleteness`` (one row per metric, method and level), ``incompleteness_trials`` (one
    row per trial) and ``pool_reuse`` for the ``metrics`` (plain names) of ``collection``.

    ``runs``: the runs meta-evaluated (default every run); the pools of ``depth`` and
    ``leave-one-group-out`` are formed by the runs of the collection ``icfg.pool_runs`` names
    (default every run); the other runs are evaluated on the pool the contributors form.  ``cfg``: a
    :class:`~metaeval.meta.run.MetaConfig` (seed, B, alpha, batch; ``cfg.incompleteness``
    unless ``icfg`` is given).  ``masks_out``: filled with ``{(method, level text, trial): keep
    mask}`` (``leave-one-group-out``: ``(method, group, None)``) for writing the reduced qrels.
    """
    _check(collection)
    icfg = icfg or getattr(cfg, "incompleteness", None) or IncompletenessConfig()
    runs = list(collection.runs) if runs is None else [str(r) for r in runs]
    missing = [r for r in runs if r not in collection.runs]
    if missing:
        raise ValueError(f"runs {missing[:5]} are not in the collection")
    if len(runs) < 2:
        raise ValueError("the incompleteness stage needs at least 2 runs")
    ev = collection.select_runs(runs)
    measures = measure_names(list(metrics), icfg)
    names = list(measures)
    full_scores = _evaluate(ev, measures, gains)
    full_means = {n: _means(v) for n, v in full_scores.items()}
    todo = []
    for method, level in _levels(icfg):
        masks = level_masks(collection, method, level, icfg, cfg.seed)
        if masks_out is not None:
            for k, m in enumerate(masks, 1):
                masks_out[(method, level_text(level), k)] = m
        todo.append((ev, method, level, masks, measures, gains, full_means, cfg))
    pieces = _run_levels(todo, icfg.jobs)
    trials = (pd.concat(pieces, ignore_index=True) if pieces else pd.DataFrame(columns=TRIAL_COLUMNS))
    trials = _order(trials, names, icfg)
    table = summarise(trials, len(runs))
    pool = _pool_reuse(collection, ev, measures, gains, full_means, icfg, masks_out) \
        if "leave-one-group-out" in icfg.methods else pd.DataFrame(columns=POOL_REUSE_COLUMNS)
    return {"incompleteness": table, "pool_reuse": pool, "incompleteness_trials": trials[TRIAL_COLUMNS]}


def _run_levels(todo, jobs: int) -> list:
    from ..workers import pool_map          # forked workers that end with this process

    return pool_map(_work, todo, jobs)


def _order(trials: pd.DataFrame, names, icfg) -> pd.DataFrame:
    """Rows by metric (stage order), method (given order), level (given order), trial."""
    if not len(trials):
        return trials
    lv = {(m, level_text(l)): i for i, (m, l) in enumerate(_levels(icfg))}
    key = pd.DataFrame({"m": trials["metric"].map({n: i for i, n in enumerate(names)}),
                        "l": [lv[(a, b)] for a, b in zip(trials["method"], trials["level"])],
                        "t": trials["trial"]})
    order = np.lexsort((key["t"].to_numpy(), key["l"].to_numpy(), key["m"].to_numpy()))
    return trials.iloc[order].reset_index(drop=True)


def summarise(trials: pd.DataFrame, n_runs: int) -> pd.DataFrame:
    """The ``incompleteness`` table from the trial rows: per metric, method and level the number
    of trials, the mean and s.d. (n - 1) of tau over trials, the mean tau_AP (over the trials where
    it is defined), the mean RMSE and the mean number of significant pairs, of ``pairs``."""
    if not len(trials):
        return pd.DataFrame(columns=TABLE_COLUMNS)
    rows = []
    keys = list(dict.fromkeys(zip(trials["metric"], trials["method"], trials["level"])))
    grp = {k: g for k, g in trials.groupby(["metric", "method", "level"], sort=False)}
    for k in keys:
        g = grp[k]
        tau = g["tau"].to_numpy(float)
        tap = g["tau_ap"].to_numpy(float)
        tap = tap[~np.isnan(tap)]
        n = len(tau)
        mean = np.add.reduce(tau) / n
        # s.d. (n - 1) from the pairwise differences: exactly 0 when every trial gives one value
        i, j = np.triu_indices(n, 1)
        sd = float(np.sqrt(np.add.reduce((tau[i] - tau[j]) ** 2) / (n * (n - 1)))) if n > 1 else float("nan")
        rows.append((*k, n, mean, sd, np.add.reduce(tap) / len(tap) if len(tap) else float("nan"),
                     np.add.reduce(g["rmse"].to_numpy(float)) / n,
                     np.add.reduce(g["significant_pairs"].to_numpy(float)) / n, n_runs * (n_runs - 1) // 2))
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def _competition_rank(value: float, others: np.ndarray) -> int:
    """1 + the number of ``others`` strictly better (ties share the best rank)."""
    return 1 + int((np.round(others, 12) > np.round(value, 12)).sum())


def _pool_reuse(c, ev, measures, gains, full_means, icfg, masks_out) -> pd.DataFrame:
    groups = pool_groups(c, icfg)
    pools = group_pools(c, groups, icfg.pool_depth)
    names = list(measures)
    runs = list(ev.runs)
    rows: dict[str, list[Any]] = {n: [] for n in names}
    for g, keep in pools.items():
        if masks_out is not None:
            masks_out[("leave-one-group-out", g, None)] = keep
        members = [i for i, r in enumerate(runs) if groups.get(r) == g]
        if not members:
            continue
        sub = ev.select_runs([runs[i] for i in members])
        scores = reduced_scores(sub, keep[None], measures, gains)
        for n in names:
            red = _means(scores[n][0])
            full = full_means[n]
            for j, i in enumerate(members):
                others = np.delete(full, i)
                rows[n].append((n, g, runs[i], full[i], red[j], red[j] - full[i],
                                _competition_rank(full[i], others), _competition_rank(red[j], others)))
    out = []
    for n in names:
        df = pd.DataFrame(rows[n], columns=POOL_REUSE_COLUMNS)
        out.append(df)
        if len(df):
            absd = np.abs(df["delta"].to_numpy(float))
            drop = (df["reduced_rank"] - df["full_rank"]).to_numpy()
            summary = [np.add.reduce(absd) / len(absd), absd.max(), float(drop.max())]
            out.append(pd.DataFrame([(n, "all", s, np.nan, np.nan, v, np.nan, np.nan)
                                     for s, v in zip(POOL_SUMMARY, summary)], columns=POOL_REUSE_COLUMNS))
    out = [d for d in out if len(d)]
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=POOL_REUSE_COLUMNS)


# --------------------------------------------------------------------------- reduced qrels
def reduced_judgments(c: Collection, keep: np.ndarray) -> tuple[list, list, list]:
    """``(topics, document ids, levels)`` of the judgments a keep mask keeps, in the order of the
    collection's judgments (for :func:`metaeval.io.qrels.format_qrels`)."""
    idx = np.flatnonzero(keep)
    topics = [c.topics[t] for t in _need(c.judged_topic)[idx].tolist()]
    docs = [d.decode("utf-8") for d in _need(c.judged_docs)[idx].tolist()]
    return topics, docs, _need(c.judged_level)[idx].tolist()


def qrels_file_name(method: str, level: str, trial) -> str:
    """``METHOD-LEVEL-TRIAL.txt``; leave-one-group-out: ``leave-one-group-out-GROUP.txt``."""
    return f"{method}-{level}.txt" if trial is None else f"{method}-{level}-{trial}.txt"
