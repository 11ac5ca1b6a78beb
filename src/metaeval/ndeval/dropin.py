"""What TREC's ``ndeval`` 4.5 prints, from the arrays of :mod:`metaeval.ndeval.reader`.

:func:`ndeval_text` forms the whole CSV of ``ndeval [-c] [-alpha A] [-beta B] [-baseline RUN
-riskAlpha A] QRELS RUN`` (``-traditional`` and ``-M`` act when the files are read): the header,
one row per topic, the ``amean`` row, each value ``%.6f``.  The measures are
:func:`metaeval.metrics.ndeval.ndeval_measures` (exact to ndeval's last digit); this module adds
ndeval's rows, means and risk-sensitive mode:

* rows: every topic of the run in numeric order, a topic outside the qrels as a row of zeros;
  with a baseline and ``-c`` also the topics of the baseline alone (the run at 0 there);
* the ``amean`` row: the sum of the printed rows (in their order) divided by the number of run
  topics in the qrels, or (``-c``) by the number of qrels topics; with a baseline by at least the
  number of printed rows;
* risk-sensitive mode (``-baseline``): every value is ``RiskBased(run, baseline, riskAlpha)`` =
  ``r - b`` if ``r >= b`` else ``(1 + riskAlpha)(r - b)`` (Wang et al. 2012; a topic missing from
  one of the two runs counts 0 for it), and the run id column reads
  ``RUNID (rel to. BASEID, rs=1+a, a=RISKALPHA)`` with RISKALPHA as written on the command line;
* ndeval's 0/0: nNRBP of a topic whose ideal NRBP is 0 (no relevant document, or ``-alpha 0
  -beta 1``), and the means of a run with no topic in the qrels, print as ``-nan``.
"""

from __future__ import annotations

import math

import numpy as np

from ..metrics.ndeval import ndeval_measures, ndeval_names

__all__ = ["ndeval_text", "ndeval_run_values"]

NAMES = ndeval_names()
HEADER = "runid,topic," + ",".join(NAMES) + "\n"


def _fmt(v: float) -> str:
    # an x86 0/0 is the NaN with the sign bit set, which glibc's printf writes "-nan"
    return "-nan" if math.isnan(v) else "%.6f" % v                 # noqa: UP031 - C's printf, as ndeval prints


def ndeval_run_values(q, runs, alpha: float = 0.5, beta: float = 0.5) -> list[np.ndarray]:
    """Per run (``NdevalRun``) the (topics of the run, 21) matrix of ndeval's measures in CSV column
    order; a run topic outside the qrels gets zeros."""
    T, _, I = q.ideal_rel.shape
    placed = [q.lookup(r.topic, r.docno) for r in runs]
    R = len(runs)
    lengths = np.zeros((R, T), dtype=np.int64)
    D = 1
    for k, (r, (t, _j)) in enumerate(zip(runs, placed)):
        inq = t >= 0
        np.add.at(lengths[k], t[inq], 1)
        if inq.any():
            D = max(D, int(r.pos[inq].max()) + 1)
    run_rel = np.zeros((R, T, D, I), dtype=bool)
    for k, (r, (t, j)) in enumerate(zip(runs, placed)):
        hit = (t >= 0) & (j >= 0)
        run_rel[k, t[hit], r.pos[hit]] = q.ideal_rel[t[hit], j[hit]]
    vals = ndeval_measures(run_rel, lengths, q.ideal_rel, q.ideal_order, q.n_intents,
                           alpha=alpha, beta=beta)
    table = np.stack([vals[m] for m in NAMES], axis=-1)              # (R, T, 21)
    # ndeval divides nNRBP by the ideal list's NRBP even when that is 0
    zero_ideal = (q.n_intents == 0) | (1.0 - (1.0 - alpha) * beta == 0.0)
    table[:, zero_ideal, NAMES.index("nNRBP")] = np.nan
    out = []
    for k, (r, (t, _j)) in enumerate(zip(runs, placed)):
        ti = np.searchsorted(r.topics, r.topic)
        tq = np.full(len(r.topics), -1, dtype=np.int64)
        tq[ti] = t
        m = np.zeros((len(r.topics), len(NAMES)))
        inq = tq >= 0
        m[inq] = table[k, tq[inq]]
        out.append(m)
    return out


def ndeval_text(q, run, baseline=None, *, alpha: float = 0.5, beta: float = 0.5, complete: bool = False,
                risk_alpha: float = 0.0, risk_alpha_text: str = "0") -> str:
    """ndeval's CSV for ``run`` (and ``baseline``), both :class:`metaeval.ndeval.reader.NdevalRun`,
    against the qrels ``q`` (:class:`metaeval.ndeval.reader.NdevalQrels`)."""
    runs = [run] if baseline is None else [run, baseline]
    mats = ndeval_run_values(q, runs, alpha, beta)
    in_qrels = np.isin(run.topics, q.topics)
    actual = len(q.topics) if complete else int(in_qrels.sum())
    if baseline is None:
        topics, rv, bv, a = run.topics, mats[0], np.zeros_like(mats[0]), 0.0
        label = run.runid
    else:
        shown = run.topics if not complete else np.union1d(run.topics, baseline.topics)
        topics = shown
        rv = np.zeros((len(shown), len(NAMES)))
        bv = np.zeros((len(shown), len(NAMES)))
        in_run = np.isin(shown, run.topics)
        in_base = np.isin(shown, baseline.topics)
        rv[in_run] = mats[0][np.searchsorted(run.topics, shown[in_run])]
        bv[in_base] = mats[1][np.searchsorted(baseline.topics, shown[in_base])]
        a = float(risk_alpha)
        label = f"{run.runid} (rel to. {baseline.runid}, rs=1+a, a={risk_alpha_text})"
        actual = max(actual, len(shown))
    d = rv - bv
    with np.errstate(invalid="ignore"):
        vals = np.where(rv >= bv, d, (a + 1.0) * d)
    total = np.cumsum(vals, axis=0)[-1] if len(vals) else np.zeros(len(NAMES))
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / np.float64(actual)
    lines = [HEADER]
    for topic, row in zip(topics.tolist(), vals.tolist()):
        lines.append(f"{label},{topic}," + ",".join(map(_fmt, row)) + "\n")
    lines.append(f"{label},amean," + ",".join(map(_fmt, mean.tolist())) + "\n")
    return "".join(lines)
