"""Benchmark of the discriminative-power stage: 30 runs (435 pairs) x 50 topics x 10 metrics.

Times :func:`metaeval.meta.discpower.stage_discpower` with B_r = 5000 (randomised Tukey HSD, Tukey
HSD, paired t with Holm and BH, Wilcoxon, sign test, two-way ANOVA, effect sizes, topic set size
design; target under 5 s) and compares it with a per-pair loop implementation of the same
computation (a Python loop over the B_r replicates for the randomised test, one scipy call per pair
and test) run on ``--loop-metrics`` metrics and scaled to 10; prints the CPU-time ratio, also without the
parametric Tukey HSD (scipy's studentised range takes ~20 ms a value and dominates the loop).
Scores: random, 4 decimals, clipped at 0 and 1 (ties), seeded.

    PYTHONPATH=src python benchmarks/bench_discpower.py [--B 5000] [--loop-metrics 2]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd


def matrices(runs=30, topics=50, metrics=10, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 0.5, runs)
    cols = [f"run{i:02d}" for i in range(runs)]
    return {f"M{k}": pd.DataFrame(np.round(np.clip(base + rng.normal(0, 0.25, (topics, runs)), 0, 1), 4),
                                  columns=cols) for k in range(metrics)}


def loop_metric(df, B, seed):
    """Per-pair loop: the randomised Tukey HSD by a loop over replicates, every other test by one
    scipy call per pair.  Returns CPU seconds (without Tukey HSD, of the Tukey HSD part)."""
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    X = df.to_numpy()
    n, m = X.shape
    t0 = time.process_time()
    rng = np.random.default_rng(seed)
    ranges = np.empty(B)
    for b in range(B):
        P = rng.permuted(X, axis=1)
        mu = P.mean(axis=0)
        ranges[b] = mu.max() - mu.min()
    means = X.mean(axis=0)
    grand = X.mean()
    R = X - means[None, :] - X.mean(axis=1)[:, None] + grand
    VE = (R * R).sum() / ((m - 1) * (n - 1))
    pt = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(m):
            for j in range(i + 1, m):
                x, y = X[:, i], X[:, j]
                _ = (ranges >= abs(means[i] - means[j])).mean()
                pt.append(stats.ttest_rel(x, y).pvalue)
                stats.wilcoxon(x, y)
                stats.binomtest(int((x > y).sum()), int((x != y).sum()), 0.5)
        multipletests(pt, method="holm")
        multipletests(pt, method="fdr_bh")
    t1 = time.process_time()
    for i in range(m):
        for j in range(i + 1, m):
            stats.studentized_range.sf(abs(means[i] - means[j]) / np.sqrt(VE / n), m, (m - 1) * (n - 1))
    return t1 - t0, time.process_time() - t1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--B", type=int, default=5000)
    ap.add_argument("--loop-metrics", type=int, default=2)
    ap.add_argument("--no-loop", action="store_true")
    args = ap.parse_args()
    import scipy.interpolate  # noqa: F401  (imports outside the timed region)
    import scipy.stats  # noqa: F401

    from metaeval.meta.discpower import stage_discpower

    mats = matrices()
    stage_discpower({"w": mats["M0"].iloc[:5, :3]}, B_r=10)          # warm-up (lazy imports, caches)
    t0 = time.perf_counter()
    c0 = time.process_time()
    out = stage_discpower(mats, alpha=0.05, seed=1, B_r=args.B)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"stage_discpower: 30 runs x 50 topics x 10 metrics, B_r = {args.B}: wall {wall:.2f} s, "
          f"CPU {cpu:.2f} s ({len(out['pvalues'])} p-values)")
    if args.no_loop:
        return
    k = args.loop_metrics
    parts = [loop_metric(mats[f"M{i}"], args.B, i) for i in range(k)]
    rest = sum(p[0] for p in parts) * 10 / k
    tukey = sum(p[1] for p in parts) * 10 / k
    print(f"per-pair loop (measured on {k} metrics, scaled to 10): CPU {rest + tukey:.1f} s "
          f"(of which parametric Tukey HSD {tukey:.1f} s)")
    print(f"ratio (CPU, robust to other jobs on the machine): {(rest + tukey) / cpu:.0f}x; without the "
          f"loop's Tukey HSD part (ours still includes it): {rest / cpu:.0f}x")


if __name__ == "__main__":
    main()
