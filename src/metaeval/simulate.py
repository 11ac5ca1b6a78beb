"""Simulated test collections shaped like the NTCIR CLIR data of Sakai (2007a, 2007b).

:func:`simulate` draws one collection (graded qrels + ranked runs) from a seeded
``numpy.random.Generator``; :func:`write_collection` writes it in the real file forms (NTCIR qrels
``TOPIC DOCID Lk``, TREC 6-column runs, one file per run) atomically; :data:`PRESETS` holds the four
default collections shaped like Sakai (2007a) Table 1 (NTCIR-3 Chinese/Japanese, NTCIR-5
Chinese/Japanese).  The generative model is documented in ``docs/simulation.md``; in short:

* **qrels** -- per topic the numbers of S-, A- and B-relevant documents (levels L3, L2, L1) are
  spread around the table's means by log-normal topic weights (a shared "topic size" factor plus a
  per-level factor) and rounded by largest remainders so that each level's mean over topics equals
  the target to within 1/T; every topic has at least one relevant document.
* **documents** -- each topic has ``candidates`` documents: its relevant ones and nonrelevant ones.
  Each document has a shared *attractiveness* (how likely every system is to rank it high) and each
  run adds its own noise, so runs agree partly, as real runs do.
* **systems** -- a run's score for a relevant document is shifted by
  ``skill[run] + ease[topic] + interaction[run, topic] + team[team(run), topic] + bonus[level]``:
  a latent per-run effectiveness (normal, ``skill_mean``/``skill_sd``; a small ``skill_sd`` gives
  closely bunched runs), per-topic difficulty, run-by-topic variation (partly shared by the runs of
  one team) and a level bonus (highly relevant documents are easier to rank high).  Each run returns
  the ``depth`` best-scored documents; some lists are shorter.
* **pooling** -- the qrels judge every relevant document and the nonrelevant documents that some run
  ranks within ``pool_depth`` (judged nonrelevant, L0); documents that appear only deeper are
  unjudged (absent from the qrels).

Everything is vectorised over runs x topics x candidates; the same parameters and seed give
byte-identical files.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from . import detmath
from .util import check_memory

__all__ = ["SimParams", "PRESETS", "SimulatedCollection", "simulate", "write_collection",
           "preset", "to_collection", "qrels_text", "run_text"]


@dataclass(frozen=True)
class SimParams:
    """Parameters of one simulated collection (all have defaults; see docs/simulation.md)."""

    topics: int = 50
    #: mean number of relevant documents per topic for L1, L2, L3 (B, A, S): Sakai (2007a) Table 1 order
    #: is S, A, B -- here it is listed from L1 upward like gain vectors.
    rel_means: tuple[float, ...] = (23.3, 30.7, 7.0)
    runs: int = 30
    depth: int = 1000
    #: candidate documents per topic (relevant + nonrelevant) each run ranks from
    candidates: int = 3000
    pool_depth: int = 100
    #: latent run effectiveness ~ Normal(skill_mean, skill_sd)
    skill_mean: float = 1.6
    skill_sd: float = 0.45
    #: per-topic difficulty sd (shared by all runs)
    topic_sd: float = 0.9
    #: run-by-topic interaction sd, of which a share ``team_share`` is common to a team's runs
    interaction_sd: float = 0.5
    teams: int = 10
    team_share: float = 0.5
    #: score bonus of a relevant document per level L1..LH
    level_bonus: tuple[float, ...] = (0.0, 0.3, 0.6)
    #: share of score variance that is the document's attractiveness common to all runs
    shared_attractiveness: float = 0.5
    #: log-normal spread of the per-topic numbers of relevant documents (shared, per level)
    topic_size_sd: float = 0.6
    level_size_sd: float = 0.5
    #: fraction of (run, topic) lists cut short (uniform length between 50 and depth)
    short_list_rate: float = 0.05
    seed: int = 0
    topic_prefix: str = ""
    doc_prefix: str = "DOC"
    run_prefix: str = "RUN"

    def __post_init__(self):
        object.__setattr__(self, "rel_means", tuple(float(v) for v in self.rel_means))
        object.__setattr__(self, "level_bonus", tuple(float(v) for v in self.level_bonus))
        if self.topics < 2 or self.runs < 2:
            raise ValueError("a simulated collection needs at least 2 topics and 2 runs")
        if len(self.level_bonus) != len(self.rel_means):
            raise ValueError(f"level_bonus has {len(self.level_bonus)} values for "
                             f"{len(self.rel_means)} relevance levels")
        if any(v < 0 for v in self.rel_means) or sum(self.rel_means) <= 0:
            raise ValueError("rel_means must be non-negative with a positive total")
        if self.depth < 1 or self.pool_depth < 1:
            raise ValueError("depth and pool_depth must be >= 1")
        if self.candidates < self.depth + 1:
            raise ValueError(f"candidates ({self.candidates}) must exceed depth ({self.depth})")
        if not 0 <= self.shared_attractiveness < 1:
            raise ValueError("shared_attractiveness must be in [0, 1)")
        if not 0 <= self.team_share <= 1 or not 0 <= self.short_list_rate <= 1:
            raise ValueError("team_share and short_list_rate must be in [0, 1]")
        if self.teams < 1:
            raise ValueError("teams must be >= 1")

    @classmethod
    def from_dict(cls, d: dict) -> SimParams:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown simulation parameter(s) {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(known))}")
        return cls(**d)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["rel_means"] = list(self.rel_means)
        d["level_bonus"] = list(self.level_bonus)
        return d


#: The four default collections, shaped like Sakai (2007a) Table 1 (R(S), R(A), R(B) means per topic;
#: listed here L1..L3 = B, A, S).  NTCIR-5 Japanese has closely bunched runs (Sakai 2007a, Fig. 8,
#: Sakai (2007b) Fig. 1) and the lowest discriminative power; NTCIR-3 Japanese the highest.
PRESETS: dict[str, SimParams] = {
    "ntcir3-chinese": SimParams(topics=42, rel_means=(32.3, 24.9, 21.0), skill_mean=1.3,
                                skill_sd=0.3, seed=3001, doc_prefix="N3C-", topic_prefix="C"),
    "ntcir3-japanese": SimParams(topics=42, rel_means=(21.0, 31.5, 7.9), skill_mean=1.35,
                                 skill_sd=0.45, seed=3002, doc_prefix="N3J-", topic_prefix="J"),
    "ntcir5-chinese": SimParams(topics=50, rel_means=(23.3, 30.7, 7.0), skill_mean=1.2,
                                skill_sd=0.22, seed=5001, doc_prefix="N5C-", topic_prefix="C"),
    "ntcir5-japanese": SimParams(topics=47, rel_means=(44.2, 41.8, 3.2), skill_mean=1.35,
                                 skill_sd=0.14, seed=5002, doc_prefix="N5J-", topic_prefix="J"),
}


def preset(name: str, **overrides) -> SimParams:
    """A preset's parameters with ``overrides`` applied."""
    if name not in PRESETS:
        raise ValueError(f"unknown simulation preset {name!r}; known: {', '.join(sorted(PRESETS))}")
    return replace(PRESETS[name], **overrides) if overrides else PRESETS[name]


@dataclass(frozen=True, eq=False)
class SimulatedCollection:
    """One simulated collection as arrays (before formatting).

    ``rel_level[t, j]`` is the level of candidate ``j`` of topic ``t`` (0 nonrelevant);
    ``ranked[r, t, :lengths[r, t]]`` the candidates run ``r`` returns for topic ``t``, best first;
    ``judged[t, j]`` whether candidate ``j`` is in the qrels; ``skill[r]`` the latent effectiveness.
    """

    params: SimParams
    topic_ids: tuple[str, ...]
    run_ids: tuple[str, ...]
    doc_number: np.ndarray
    rel_level: np.ndarray
    judged: np.ndarray
    ranked: np.ndarray
    lengths: np.ndarray
    skill: np.ndarray = field(repr=False)


def _allocate_counts(mean: float, weights: np.ndarray) -> np.ndarray:
    """Integer counts proportional to ``weights`` whose total is round(mean * T) (largest remainder)."""
    T = weights.size
    total = round(mean * T)
    raw = total * weights / weights.sum()
    base = np.floor(raw).astype(np.int64)
    short = total - int(base.sum())
    if short > 0:
        # stable: largest remainder first, ties by topic order
        order = np.argsort(-(raw - base), kind="stable")[:short]
        base[order] += 1
    return base


def simulate(params: SimParams) -> SimulatedCollection:
    """Draw one collection from ``params`` (deterministic in ``params.seed``)."""
    p = params
    rng = np.random.default_rng(p.seed)
    T, R, C, D, H = p.topics, p.runs, p.candidates, p.depth, len(p.rel_means)
    # the (runs, topics, candidates) noise and scores, the (topics, candidates) document ids
    check_memory(T * C * (16 * R + 100), f"a collection of {T} topics x {C} candidates x {R} runs",
                 "topics, runs or candidates of --params")

    # ---- per-topic numbers of relevant documents per level
    size = rng.normal(0.0, p.topic_size_sd, T)
    counts = np.zeros((T, H), dtype=np.int64)
    for lvl in range(H):
        w = detmath.exp(size + rng.normal(0.0, p.level_size_sd, T))      # the C library's exp
        counts[:, lvl] = _allocate_counts(p.rel_means[lvl], w)
    # every topic gets at least one relevant document: move one L1 (or the most frequent level)
    # document from the largest topic, which keeps every level's total.
    for t in np.flatnonzero(counts.sum(axis=1) == 0):
        lvl = int(np.argmax(counts.sum(axis=0)))
        donor = int(np.argmax(counts[:, lvl]))
        counts[donor, lvl] -= 1
        counts[t, lvl] += 1
    n_rel = counts.sum(axis=1)
    if n_rel.max() > C - D:
        raise ValueError(f"a topic has {n_rel.max()} relevant documents; raise candidates "
                         f"(now {C}) above depth + max relevant")

    # candidate j of topic t: relevant (levels H..1, most relevant first) for j < n_rel[t]
    j = np.arange(C)
    cum = np.cumsum(counts[:, ::-1], axis=1)              # (T, H) boundaries, S first
    rel_level = np.zeros((T, C), dtype=np.int8)
    for k in range(H):
        lo = cum[:, k - 1:k] if k else np.zeros((T, 1), dtype=np.int64)
        rel_level[(j >= lo) & (j < cum[:, k:k + 1])] = H - k
    is_rel = rel_level > 0

    # ---- systems
    skill = p.skill_mean + p.skill_sd * rng.standard_normal(R)
    ease = p.topic_sd * rng.standard_normal(T)
    team_of = np.arange(R) % p.teams
    team_eff = rng.standard_normal((p.teams, T))[team_of]
    own = rng.standard_normal((R, T))
    inter = p.interaction_sd * (np.sqrt(p.team_share) * team_eff + np.sqrt(1 - p.team_share) * own)
    shift = skill[:, None] + ease[None, :] + inter                      # (R, T)
    bonus = np.concatenate([[0.0], np.asarray(p.level_bonus)])[rel_level]  # (T, C)

    attract = rng.standard_normal((T, C))
    noise = rng.standard_normal((R, T, C))
    rho = p.shared_attractiveness
    score = np.sqrt(rho) * attract[None] + np.sqrt(1 - rho) * noise
    score += np.where(is_rel[None], shift[:, :, None] + bonus[None], 0.0)

    # top D per (run, topic), best first (ties impossible with continuous scores; stable anyway)
    top = np.argpartition(-score, D - 1, axis=2)[:, :, :D]
    top_scores = np.take_along_axis(score, top, axis=2)
    order = np.argsort(-top_scores, axis=2, kind="stable")
    ranked = np.take_along_axis(top, order, axis=2).astype(np.int32)

    lengths = np.full((R, T), D, dtype=np.int32)
    short = rng.random((R, T)) < p.short_list_rate
    lengths[short] = rng.integers(min(50, D), D + 1, size=int(short.sum()))

    # ---- pooling: relevant documents are all judged; nonrelevant ones if some run ranks them
    # within pool_depth
    judged = is_rel.copy()
    pd = min(p.pool_depth, D)
    within = np.arange(pd)[None, None, :] < lengths[:, :, None]
    r_idx, t_idx, k_idx = np.nonzero(within)
    judged[t_idx, ranked[r_idx, t_idx, k_idx]] = True

    doc_number = np.argsort(rng.random((T, C)), axis=1) + np.arange(T)[:, None] * C
    width = len(str(T))
    topic_ids = tuple(f"{p.topic_prefix}{t + 1:0{max(width, 4)}d}" for t in range(T))
    run_ids = tuple(f"{p.run_prefix}{r + 1:02d}" for r in range(R))
    return SimulatedCollection(p, topic_ids, run_ids, doc_number, rel_level, judged, ranked,
                               lengths, skill)


def to_collection(sim: SimulatedCollection):
    """The labelled :class:`metaeval.collection.Collection` of a simulated collection -- exactly
    what ingesting its written files gives (run-file order, depth ``params.depth``)."""
    from .collection import PAD, UNJUDGED, Collection

    _R, T, D = sim.ranked.shape
    H = len(sim.params.rel_means)
    idx = sim.ranked.astype(np.intp)
    t_idx = np.arange(T)[None, :, None]
    lv = np.where(sim.judged[t_idx, idx], sim.rel_level[t_idx, idx], UNJUDGED).astype(np.int8)
    lv[np.arange(D)[None, None, :] >= sim.lengths[:, :, None]] = PAD
    counts = np.stack([((sim.rel_level == j) & sim.judged).sum(axis=1) for j in range(H + 1)],
                      axis=1).astype(np.int64)
    return Collection(topics=sim.topic_ids, runs=sim.run_ids, levels=lv,
                      lengths=sim.lengths.astype(np.int64), level_counts=counts,
                      info={"simulated": sim.params.to_dict()})


# --------------------------------------------------------------------------- writing
def _docids(sim: SimulatedCollection) -> np.ndarray:
    """(T, C) object array of document ids."""
    p = sim.params
    nums = sim.doc_number.ravel()
    return np.array([f"{p.doc_prefix}{n:08d}" for n in nums.tolist()], dtype=object).reshape(
        sim.doc_number.shape)


def qrels_text(sim: SimulatedCollection, docids: np.ndarray | None = None) -> str:
    """NTCIR-form qrels ``TOPIC DOCID Lk``: judged documents, sorted by topic then docid."""
    docids = _docids(sim) if docids is None else docids
    lines: list[str] = []
    for t, topic in enumerate(sim.topic_ids):
        idx = np.flatnonzero(sim.judged[t])
        ids = docids[t, idx]
        o = np.argsort(ids.astype(str), kind="stable")
        lv = sim.rel_level[t, idx[o]]
        lines.extend(f"{topic} {d} L{l}\n" for d, l in zip(ids[o].tolist(), lv.tolist()))
    return "".join(lines)


def run_text(sim: SimulatedCollection, r: int, docids: np.ndarray | None = None) -> str:
    """One run in TREC 6-column form; score = depth - rank + 1 (strictly decreasing)."""
    docids = _docids(sim) if docids is None else docids
    D = sim.params.depth
    name = sim.run_ids[r]
    ranks = np.arange(1, D + 1)
    suffix = np.array([f" {k} {D - k + 1} {name}\n" for k in ranks.tolist()], dtype=object)
    parts = []
    for t, topic in enumerate(sim.topic_ids):
        n = int(sim.lengths[r, t])
        ids = docids[t, sim.ranked[r, t, :n]]
        parts.append("".join(((topic + " Q0 ") + ids + suffix[:n]).tolist()))
    return "".join(parts)


def write_collection(params: SimParams, out_dir: str | os.PathLike, *, force: bool = True) -> Path:
    """Simulate and write ``OUT/qrels.txt``, ``OUT/runs/RUN.run`` and ``OUT/params.json``.

    The files are written into a temporary sibling directory and committed by the one publisher
    (:func:`metaeval.publish.publishing`), so ``out_dir`` holds either the previous complete
    collection or the new complete one; its other files stay (a run of an earlier simulation no
    longer simulated is removed).
    """
    from .publish import publishing
    from .util import file_name

    out = Path(out_dir)
    file_name(f"{params.run_prefix}01", "run_prefix")        # the run names are file names
    if out.exists() and not force and any(out.iterdir()):
        raise FileExistsError(f"{out} exists (use force=True to replace it)")
    sim = simulate(params)
    docids = _docids(sim)
    with publishing(out, "simulate") as tmp:          # written aside, committed as the simulation's files
        (tmp / "runs").mkdir()
        (tmp / "qrels.txt").write_text(qrels_text(sim, docids), encoding="utf-8")
        for r, name in enumerate(sim.run_ids):
            (tmp / "runs" / f"{name}.run").write_text(run_text(sim, r, docids), encoding="utf-8")
        (tmp / "params.json").write_text(
            json.dumps(params.to_dict(), sort_keys=True, indent=1) + "\n", encoding="utf-8")
    return out
