"""Benchmark of the within-collection standardisation experiment (metaeval.meta.standardisation;
Urbano, Lima & Hanjalic 2019): 10,000 trials of 50 topics, 100 runs, the 4 standardisations (z, N,
U, E; ``--with-raw`` adds raw scores' power, which the stage also computes), on a synthetic matrix
of 249 topics (Robust 2004's size, the collection of the paper) -- target: under 30 s on the 2-core
machine.

Beside it, the per-trial route of their ``R/01-within.R``, transcribed to Python with numpy and
scipy (one trial at a time: the subset's means, Kendall's tau_b, tau_AP-b, Pearson's r and the
paired t test of every run pair at once with ``scipy.stats.ttest_rel``), timed on
``--loop-trials`` trials and extrapolated linearly to all trials (the loop's cost per trial does
not depend on the trial); the ratio compares that with the vectorised experiment.  R itself is
slower still (a ``t.test`` call per pair).

    PYTHONPATH=src python benchmarks/bench_standardisation.py [--trials 10000] [--runs 100]
        [--topics 249] [--n 50] [--loop-trials 100]

On a shared machine the timings are inflated by the other processes; the lead re-measures.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def loop_within(x, y, idx):
    """01-within.R's within_collection, one trial at a time."""
    from scipy import stats

    from metaeval.meta.rankcorr import tau_ap_b

    R = x.shape[1]
    iu, ju = np.triu_indices(R, 1)
    out = []
    for i in idx:
        mx, my = x[i].mean(axis=0), y[i].mean(axis=0)
        p = stats.ttest_rel(y[i][:, iu], y[i][:, ju], axis=0).pvalue
        out.append((stats.kendalltau(mx, my).statistic, tau_ap_b(mx, my), stats.pearsonr(mx, my)[0],
                    np.mean(p <= 0.05)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--topics", type=int, default=249)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--loop-trials", type=int, default=100)
    ap.add_argument("--with-raw", action="store_true")
    args = ap.parse_args()

    from metaeval.meta import standardisation as S
    from metaeval.meta.samples import single_threaded_blas

    rng = np.random.default_rng(2019)
    # topic difficulty x run strength, beta-distributed noise: AP-like scores in [0, 1]
    x = np.clip(rng.beta(2, 5, (args.topics, 1)) * rng.uniform(0.5, 1.5, (1, args.runs))
                + rng.normal(0, 0.08, (args.topics, args.runs)), 0, 1)
    methods = ("z", "N", "U", "E")
    S.within(x, x, S.topic_subsets(args.topics, args.n, 8, 1, "within"))          # warm-up (imports)
    t0, c0 = time.perf_counter(), time.process_time()
    ys = S.standardised_matrices(x, methods)
    idx = S.topic_subsets(args.topics, args.n, args.trials, 1, "within")
    rows = [s for s in ys if s != "raw" or args.with_raw]
    run = single_threaded_blas(S.within)
    res = {s: run(x, ys[s], idx) for s in rows}
    vec, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"vectorised: {args.trials} trials x {args.n} of {args.topics} topics x {args.runs} runs x "
          f"{len(rows)} standardisations ({', '.join(rows)}): {vec:.1f} s wall, {cpu:.1f} s CPU (target < 30 s)")
    for s in rows:
        print(f"  {s}: tau {np.nanmean(res[s].tau):.4f}  power@0.05 {res[s].power[:, S.ALPHAS.index(0.05)].mean():.4f}")

    k = min(args.loop_trials, args.trials)
    t0, c0 = time.perf_counter(), time.process_time()
    for s in rows:
        loop = loop_within(x, ys[s], idx[:k])
    per, per_cpu = (time.perf_counter() - t0) / k, (time.process_time() - c0) / k
    est, est_cpu = per * args.trials, per_cpu * args.trials
    print(f"per-trial loop: {per * 1e3:.1f} ms wall, {per_cpu * 1e3:.1f} ms CPU per trial ({len(rows)} "
          f"standardisations), measured on {k} trials, extrapolated to {args.trials}: {est:.0f} s wall, {est_cpu:.0f} s CPU")
    print(f"ratio loop / vectorised: {est / vec:.1f}x wall, {est_cpu / cpu:.1f}x CPU")
    last = rows[-1]
    got = res[last].power[:k, S.ALPHAS.index(0.05)]
    assert np.allclose(got, [r[3] for r in loop], atol=1e-12), "the loop and the vectorised power differ"


if __name__ == "__main__":
    main()
