"""Benchmark of ``metaeval judgments`` (issue 28, section 5).

1. Label agreement over ten qrels sets of one million judged (topic, document) pairs each (levels
   0-3, 1000 topics, each set judging 90% of the pairs): :func:`metaeval.meta.judgments.agreement_tables`
   (every kappa, every alpha, the confusion and per-topic tables; target under 5 s) against a literal
   loop over the pairs of sets calling scikit-learn's ``cohen_kappa_score`` four times (unweighted,
   linear, quadratic, binary) -- run on ``--loop-pairs`` pairs and scaled to the 45.
2. Rankings and decisions for 100 runs x 50 topics x 10 metrics x 5 sets (the reference and four
   others) with B = 1000: :func:`metaeval.meta.judgments_ranking.ranking_tables`,
   :func:`~metaeval.meta.judgments_ranking.decision_agreement` and
   :func:`~metaeval.meta.judgments_ranking.discpower_by_set` (target under 60 s together) against a
   literal loop over sets and metrics: ``rank_correlation_table`` on the two rankings per (metric,
   set) and ``metaeval.compare`` per (metric, set) -- run on ``--loop-metrics`` metrics, scaled to 10.

3. The whole command (``metaeval judgments`` in-process, files written) on inputs generated here:
   33 label sets without runs (LLMJudge's 33 submissions: 50 topics x 30 documents, levels 0-3, each
   set judging 90%; one set with labels above the scale) and two leaderboards of 60 runs (ir_measures
   layout, 50 topics, 2 measures; B = 1000); target under 10 s each, and the same inputs through
   autojudge-evaluate 1.1.0's LeaderboardEvaluator for the correlations alone (``--autojudge``;
   needs NLTK_DATA with corpora/stopwords/english).

Prints wall and CPU seconds and the ratios (CPU time of the loop / of the vectorised code, in the
same process).  On the shared 2-core machine the timings are inflated by the other jobs.

    PYTHONPATH=src python benchmarks/bench_judgments.py [--pairs 1000000] [--sets 10] [--B 1000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd


def _timed(f, *a, **k):
    w, c = time.perf_counter(), time.process_time()
    out = f(*a, **k)
    return out, time.perf_counter() - w, time.process_time() - c


def label_sets(n_pairs, n_sets, topics=1000, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n_pairs)
    L = np.where(rng.random((n_sets, n_pairs)) < 0.6, truth, rng.integers(0, 4, (n_sets, n_pairs))).astype(np.int8)
    L[rng.random((n_sets, n_pairs)) < 0.1] = -1                      # each set judges 90%
    item_topic = np.sort(rng.integers(0, topics, n_pairs)).astype(np.int32)
    return L, item_topic, [f"t{i}" for i in range(topics)]


def bench_labels(args):
    from sklearn.metrics import cohen_kappa_score

    from metaeval.meta.judgments import agreement_tables

    L, it, topics = label_sets(args.pairs, args.sets)
    names = [f"s{i}" for i in range(args.sets)]
    (la, ta, conf), wall, cpu = _timed(agreement_tables, names, L, it, topics, 2)
    print(f"label agreement, {args.sets} sets x {args.pairs} pairs: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"(target < 5 s); {len(la) - 1} pairs of sets, {len(ta)} topic rows")
    pairs = [(i, j) for i in range(args.sets) for j in range(i + 1, args.sets)]
    c0 = time.process_time()
    for i, j in pairs[:args.loop_pairs]:
        both = (L[i] >= 0) & (L[j] >= 0)
        x, y = L[i][both], L[j][both]
        for w in (None, "linear", "quadratic"):
            cohen_kappa_score(x, y, labels=[0, 1, 2, 3], weights=w)
        cohen_kappa_score(x >= 2, y >= 2)
    loop = (time.process_time() - c0) * len(pairs) / args.loop_pairs
    print(f"  loop over the {len(pairs)} pairs with sklearn's cohen_kappa_score x4 (kappa only; scaled from "
          f"{args.loop_pairs}): {loop:.1f} s CPU -> ratio {loop / cpu:.1f}x")


def score_sets(runs=100, topics=50, metrics=10, sets=5, seed=1):
    rng = np.random.default_rng(seed)
    cols = [f"run{i:03d}" for i in range(runs)]
    idx = [f"q{i}" for i in range(topics)]
    base = rng.uniform(0.1, 0.6, (metrics, runs))
    out = {}
    for s in range(sets):
        shift = rng.normal(0, 0.03, (metrics, runs))
        out["ref" if s == 0 else f"s{s}"] = {
            f"M{m}": pd.DataFrame(np.round(np.clip(base[m] + shift[m] + rng.normal(0, 0.2, (topics, runs)), 0, 1), 4),
                                  index=idx, columns=cols) for m in range(metrics)}
    return out


def bench_rankings(args):
    import metaeval
    from metaeval.meta.judgments_ranking import decision_agreement, discpower_by_set, ranking_tables
    from metaeval.meta.rankcorr import rank_correlation_table

    sc = score_sets(sets=args.rank_sets)
    metrics = list(sc["ref"])
    _, w1, c1 = _timed(ranking_tables, sc, "ref", metrics, B=args.B, seed=0)
    _, w2, c2 = _timed(decision_agreement, sc, "ref", metrics)
    _, w3, c3 = _timed(discpower_by_set, sc, metrics, B=args.B, seed=0)
    print(f"rankings + decisions, 100 runs x 50 topics x {len(metrics)} metrics x {args.rank_sets} sets, B = {args.B}: "
          f"{w1 + w2 + w3:.1f} s wall, {c1 + c2 + c3:.1f} s CPU (target < 60 s): ranking {c1:.1f} s, decisions "
          f"{c2:.1f} s, discriminative power {c3:.1f} s CPU")
    c0 = time.process_time()
    for m in metrics[:args.loop_metrics]:
        for s in sc:
            if s == "ref":
                continue
            rank_correlation_table({"ref": sc["ref"][m], s: sc[s][m]}, B=args.B, seed=0)
            metaeval.compare({m: sc["ref"][m]})
            metaeval.compare({m: sc[s][m]})
    loop = (time.process_time() - c0) * len(metrics) / args.loop_metrics
    print(f"  loop over sets and metrics (rank_correlation_table + metaeval.compare per pair of rankings; scaled "
          f"from {args.loop_metrics} metrics): {loop:.1f} s CPU -> ratio {loop / (c1 + c2):.1f}x "
          f"(against ranking + decisions)")


def llmjudge_inputs(folder, sets=33, runs=60, topics=50, docs=30, seed=0):
    """33 qrels files and two leaderboards (see the module docstring); returns ({set: path}, {board: path})."""
    from pathlib import Path

    rng = np.random.default_rng(seed)
    d = Path(folder)
    (d / "q").mkdir(parents=True, exist_ok=True)
    (d / "b").mkdir(parents=True, exist_ok=True)
    truth = rng.integers(0, 4, (topics, docs))
    qrels = {}
    for s in range(sets):
        lab = np.clip(truth + rng.integers(-1, 2, (topics, docs)), 0, 3)
        if s == 5:
            lab[0, :7] = 5                                   # a judge on a larger scale
        judged = rng.random((topics, docs)) < 0.9 if s else np.ones((topics, docs), bool)
        t, k = np.nonzero(judged)
        p = d / "q" / f"judge{s:02d}.txt"
        p.write_text("".join(f"{1000 + a} 0 d{a}_{b} {lab[a, b]}\n" for a, b in zip(t.tolist(), k.tolist())))
        qrels[f"judge{s:02d}"] = str(p)
    q = rng.random(runs)
    boards = {}
    for name, noise in (("human", 0.15), ("llm", 0.25)):
        v = np.clip(q[:, None, None] + noise * rng.standard_normal((runs, topics, 2)), 0, 1)
        lines = [f"run{r:02d}\t{1000 + t}\t{m}\t{float(v[r, t, j])!r}\n" for r in range(runs) for t in range(topics)
                 for j, m in enumerate(("ndcg_cut_10", "map"))]
        lines += [f"run{r:02d}\tall\t{m}\t{float(v[r, :, j].mean())!r}\n" for r in range(runs)   # the aggregates
                  for j, m in enumerate(("ndcg_cut_10", "map"))]
        p = d / "b" / f"{name}.tsv"
        p.write_text("".join(lines))
        boards[name] = str(p)
    return qrels, boards


def bench_command(args):
    import tempfile

    from metaeval.cli import main as cli

    d = tempfile.mkdtemp()
    qrels, boards = llmjudge_inputs(d)
    for what, argv in (("33 label sets, no runs", ["--qrels", *[f"{k}={v}" for k, v in qrels.items()],
                                                    "--reference", "judge00"]),
                       ("2 leaderboards of 60 runs", ["--results", *[f"{k}={v}" for k, v in boards.items()],
                                                       "--reference", "human", "--B", str(args.B)])):
        out = f"{d}/out-{len(argv)}"
        rc, w, c = _timed(cli, ["judgments", *argv, "--quiet", "--out", out])
        print(f"metaeval judgments, {what}: exit {rc}, {w:.2f} s wall, {c:.2f} s CPU (target < 10 s)")
    if args.autojudge:
        from pathlib import Path

        from autojudge_evaluate.evaluation import LeaderboardEvaluator

        ev = LeaderboardEvaluator(Path(boards["human"]), truth_format="ir_measures", eval_format="ir_measures")
        _, w, c = _timed(ev.evaluate, Path(boards["llm"]))
        print(f"  autojudge-evaluate 1.1.0, the correlations of the same two leaderboards: {w:.2f} s wall, "
              f"{c:.2f} s CPU")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=1_000_000)
    p.add_argument("--sets", type=int, default=10)
    p.add_argument("--loop-pairs", type=int, default=3)
    p.add_argument("--rank-sets", type=int, default=5)
    p.add_argument("--B", type=int, default=1000)
    p.add_argument("--loop-metrics", type=int, default=2)
    p.add_argument("--skip", choices=("labels", "rankings", "command"), action="append", default=[])
    p.add_argument("--autojudge", action="store_true", help="also time autojudge-evaluate on the leaderboards")
    args = p.parse_args()
    warnings.simplefilter("ignore")
    if "labels" not in args.skip:
        bench_labels(args)
    if "rankings" not in args.skip:
        bench_rankings(args)
    if "command" not in args.skip:
        bench_command(args)


if __name__ == "__main__":
    main()
