"""One group of runs evaluated as one batch: each run file ranked as trec_eval ranks it (with the
drop-in's checks), the rankings stacked, every requested measure computed at once, the summaries'
sums, the text (:func:`group_text`)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .ranking import rank_run_file, stack_rankings
from .engine import compute
from .render import layout, render
from .summaries import totals as _sums
from .table import zeroed_when_empty

__all__ = ["values", "totals", "group_text"]


def values(o, rk):
    """Every requested measure of every run of ``rk`` at once: ``[(printed name, spec, values
    (runs, topics))]``, the topics in chunks of about 2^20 ranks (bounds the temporaries)."""
    R, T, D = rk.rel.shape
    step = max(1, (1 << 20) // max(1, R * D))
    res: list | None = None
    for a in range(0, T, step):
        part = compute(rk.rel[:, a:a + step], rk.num_ret[:, a:a + step], rk.rel_levels[a:a + step],
                       o["specs"], o["l"], o["N"], o["version"])
        res = part if res is None else [(n, sp, np.concatenate([v0, v], axis=-1)) for (n, sp, v0), (_, _, v)
                                        in zip(res, part)]
    # trec_eval.c: on a topic evaluated as an empty ranking (-c) these are zeroed after the fact
    assert res is not None
    miss = ~rk.present
    if miss.any():
        res = [(n, sp, np.where(miss, 0.0, v) if zeroed_when_empty(n, sp.info) else v) for n, sp, v in res]
    return res


def totals(o, rk, values):
    """Every run's sequential sums of every measure over the topics (the summaries' sums), a list
    (runs) of lists (values) of floats, when every run is summarised over all the topics and
    without z-scores; else None (each summary sums its run's values)."""
    if o.get("zdata") is not None or (o["version"] == 9 and not o["c"] and not rk.present.all()):
        return None
    R = rk.num_ret.shape[0]
    return np.array([_sums(v) for _, _, v in values], np.float64).reshape(len(values), R).T.tolist()



def _rank(o, q, path):
    """One run file as trec_eval ranks it: ``(rel, num_ret, present, run_id)`` of
    :func:`metaeval.treceval.ranking.rank_run_file`, with the drop-in's checks: a qrels topic missing from
    the run (10.0 without ``-c``), a topic with only negative judgments (trec_eval cannot evaluate
    it)."""
    got = rank_run_file(q, path, max_docs=o["M"], judged_only=o["J"], complete=o["c"], version=o["version"])
    present = got[2]
    if not o["c"] and o["version"] == 10:
        miss = np.flatnonzero(~present)
        if len(miss):
            t = q.topics[miss[0]]
            e = InputError(f"topic {t} of the qrels has no result in the run (trec_eval 10.0 stops "
                           f"here: \"result qid '{t}' not found\", exit status 4); use -c to evaluate it "
                           f"as an empty ranking, or --trec-eval-version 9 to skip it as trec_eval 9.0.x "
                           f"(pytrec_eval, ir_measures) does", path)
            e.trec_eval_status = 4
            raise e
    ev = np.ones(len(q.topics), bool) if o["version"] == 10 or o["c"] else present
    bad = [t for t in o["neg"] if ev[t]]
    if bad:
        e = InputError(f"topic {q.topics[bad[0]]} has only negative judgments: trec_eval cannot "
                       f"evaluate it (form_res_rels fails)", o["args"][0])
        e.trec_eval_status = 4                      # trec_eval: "Can't calculate measure", exit 4
        raise e
    return got


def group_text(o, q, paths) -> str:
    """The output of a group of consecutive runs, computed as one batch."""
    got = [_rank(o, q, p) for p in paths]
    rk = stack_rankings(q, [g[:3] for g in got], paths, [g[3] for g in got])
    vals = values(o, rk)
    sums = totals(o, rk, vals)
    lay = layout(o, vals)
    return "".join([render(o, q, rk, r, vals, sums, lay) for r in range(len(paths))])
