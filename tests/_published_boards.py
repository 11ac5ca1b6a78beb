"""Synthetic leaderboards shaped as published ones (SynDL's per-topic ``trec_eval -q`` files for the
DL19 runs under NIST's and an LLM's qrels), built from scratch: two folders, one file per run, with
trec_eval's counters and text fields (``runid``, ``num_q``, ``num_ret``, ``num_rel``,
``num_rel_ret``), the ``all`` lines (``gm_map`` only there, as trec_eval prints it), topics where
every run scores 0 (the judge found nothing relevant), a measure whose nonzero topics the two sets do
not share (``P_1``), a measure only one set gives (``P_20``) and an empty ``input.*.ndcgeval`` file
in a folder of several."""

from __future__ import annotations

from pathlib import Path

import numpy as np

RUNS = [f"p_run{i}" for i in range(8)]
NIST_TOPICS = [str(1101 + t) for t in range(10)]
SYNDL_TOPICS = [str(1101 + t) for t in range(16)]
ZERO_TOPICS = ("1115", "1116")                   # syndl: every run scores 0 there
MEASURES = ("map", "P_10", "ndcg_cut_10", "recip_rank", "P_1")


def values(seed: int, topics: list[str], noise: float) -> dict:
    """``{measure: (topics, runs)}``: a run quality plus noise, 4 decimals as trec_eval prints."""
    rng = np.random.default_rng(seed)
    q = np.linspace(0.2, 0.8, len(RUNS))
    out = {}
    for m in MEASURES + ("P_20",):
        x = np.clip(q[None] + noise * rng.standard_normal((len(topics), len(RUNS))), 0.0, 1.0)
        out[m] = np.round(x, 4)
    return out


def write_set(folder: Path, topics: list[str], vals: dict, *, zero=(), p1_nonzero=(), extra=(),
              drop=None, empty=True) -> Path:
    """One folder: a ``trec_eval -q`` file per run; ``drop`` ``(run, topic)`` leaves that run's
    lines of the topic out (trec_eval -q without -c, the run retrieved nothing there)."""
    folder.mkdir(parents=True)
    for j, r in enumerate(RUNS):
        lines = [f"runid                 \tall\t{r}"]
        kept = []
        for i, t in enumerate(topics):
            if drop is not None and drop == (r, t):
                continue
            kept.append(i)
            lines += [f"num_ret               \t{t}\t1000", f"num_rel               \t{t}\t{20 + i}",
                      f"num_rel_ret           \t{t}\t{0 if t in zero else 10 + j}"]
            for m in MEASURES + tuple(extra):
                v = 0.0 if t in zero or (m == "P_1" and t not in p1_nonzero) else float(vals[m][i, j])
                lines.append(f"{m:<22}\t{t}\t{v:.4f}")
        lines.append(f"num_q                 \tall\t{len(kept)}")
        for m in MEASURES + tuple(extra):
            col = [0.0 if topics[i] in zero or (m == "P_1" and topics[i] not in p1_nonzero) else vals[m][i, j]
                   for i in kept]
            lines.append(f"{m:<22}\tall\t{np.mean(col):.4f}")
        lines.append(f"gm_map                \tall\t{0.1 + 0.01 * j:.4f}")
        (folder / r).write_text("\n".join(lines) + "\n")
    if empty:
        (folder / "input.broken.ndcgeval").write_text("")
    return folder


def write_boards(root: Path, *, drop=None, empty: bool = True) -> tuple[Path, Path]:
    """``(nist, syndl)`` folders under ``root`` (``empty``: with the empty file in syndl's)."""
    nist = write_set(root / "nist", NIST_TOPICS, values(1, NIST_TOPICS, 0.15), p1_nonzero=NIST_TOPICS[:5],
                     empty=False)
    syndl = write_set(root / "syndl", SYNDL_TOPICS, values(2, SYNDL_TOPICS, 0.25), zero=ZERO_TOPICS,
                      p1_nonzero=SYNDL_TOPICS[5:], extra=("P_20",), drop=drop, empty=empty)
    return nist, syndl


def read_means(folder: Path, measure: str, topics: list[str]) -> np.ndarray:
    """Each run's mean of ``measure`` over ``topics`` from its file (a missing topic: 0)."""
    out = []
    for r in RUNS:
        got = {}
        for ln in (folder / r).read_text().splitlines():
            m, t, v = ln.split()
            if m == measure and t in topics:
                got[t] = float(v)
        out.append(np.mean([got.get(t, 0.0) for t in topics]))
    return np.array(out)
