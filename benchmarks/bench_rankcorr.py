"""Benchmark of metaeval.meta.rankcorr: 30 runs, 13 metrics (156 ordered pairs), B = 1000.

Times the whole ``rank_correlation`` table -- the eight coefficients (tau-a, tau-b, tau_AP,
tau_AP-a, tau_AP-b, RBO, RBO^a, RBO^b) for every ordered metric pair and their 2.5%/97.5%
bootstrap intervals over the paired samples Q*b (target: under 10 s), and compares it with a
literal loop (a plain Python loop over samples and pairs calling the two-ranking function) on a
slice of the samples, extrapolated to B.  Matrices: TREC DL19 (the top 30 of its 37 runs by mean
AP, 43 topics) when ../shared is present, else random scores with 4-decimal ties.

    .venv/bin/python benchmarks/bench_rankcorr.py [--B 1000] [--loop-samples 20]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.meta import BootstrapSamples, select_top_runs
from metaeval.meta.rankcorr import rank_correlation, rank_correlation_table

ROOT = Path(__file__).resolve().parents[1]
DL19 = ROOT.parent / "shared" / "data" / "trec-dl19-passage"
METRICS = ["RR", "NWRR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "PDoc@1000", "nCG@1000",
           "nDCG@1000", "nDCG@10", "Prec@10", "R-prec"]


def load_matrices() -> tuple[dict[str, pd.DataFrame], str]:
    if DL19.is_dir():
        import metaeval.metrics  # noqa: F401
        from metaeval.io.ingest import load_collection
        from metaeval.metrics.evaluate import evaluate

        c = load_collection(DL19 / "qrels.txt", sorted((DL19 / "runs").glob("*.run.gz")))
        res = evaluate(c, METRICS, gains=(1, 2, 3))
        mats = {m: pd.DataFrame(v.T, index=list(c.topics), columns=list(c.runs)) for m, v in res.items()}
        top = select_top_runs(mats["AP"], 30)
        return {m: df[top] for m, df in mats.items()}, "TREC DL19 (top 30 runs by AP, 43 topics)"
    rng = np.random.default_rng(0)
    base = rng.uniform(0.1, 0.5, 30)
    mats = {m: pd.DataFrame(np.round(np.clip(base + rng.normal(0, 0.25, (43, 30)), 0, 1), 4))
            for m in METRICS}
    return mats, "random (43 topics x 30 runs, 4 decimals, clipped at 0 and 1: ties)"


def literal(mats, smp: BootstrapSamples, rows: int) -> float:
    """Seconds for ``rows`` samples of a plain loop over samples and ordered pairs."""
    names = list(mats)
    X = {m: df.to_numpy() for m, df in mats.items()}
    t = time.perf_counter()
    for r in range(rows):
        idx = smp.indices[r]
        means = {m: dict(enumerate(X[m][idx].mean(axis=0))) for m in names}
        for a in names:
            for b in names:
                if a != b:
                    rank_correlation(means[a], means[b])
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--B", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20070101)
    ap.add_argument("--loop-samples", type=int, default=20, help="samples timed for the literal loop (0: skip)")
    args = ap.parse_args()
    mats, what = load_matrices()
    n_topics, n_runs = next(iter(mats.values())).shape
    print(f"data: {what}; {len(mats)} metrics, {n_runs} runs, {n_topics} topics, B = {args.B}")
    rank_correlation_table(mats, B=10, seed=args.seed)          # warm-up (imports, BLAS)
    t0, c0 = time.perf_counter(), time.process_time()
    df = rank_correlation_table(mats, B=args.B, seed=args.seed)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"rank_correlation table: {len(df)} ordered pairs x 8 coefficients + intervals: "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU (target < 10 s)")
    if args.loop_samples > 0:
        smp = BootstrapSamples.from_seed(args.seed, n_topics, args.B, "paired")
        rows = min(args.loop_samples, args.B)
        tl = literal(mats, smp, rows) * args.B / rows
        print(f"literal loop over samples and pairs (extrapolated from {rows} samples): {tl:.1f} s; "
              f"ratio {tl / wall:.0f}x")


if __name__ == "__main__":
    main()
