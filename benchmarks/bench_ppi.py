"""Benchmark of the judging-budget table of ``metaeval ppi`` (metaeval.meta.ppi.budget_table): 100 runs
x 50 topics x 5 measures, labelled-set sizes 5, 10, 15, ..., 40, 1,000 random labelled sets per size,
the four estimators (human, judge, ppi, ppi++) -- target: under 60 s on the 2-core machine.

Beside it, the per-trial route with ``ppi_py`` 0.2.3 (one ``classical_mean_ci``, one
``ppi_mean_pointestimate`` / ``ppi_mean_ci`` pair for lambda = 1 and for the tuned lambda, per trial,
run and measure, as a user of ``ppi_py`` would write it), timed on ``--loop-trials`` trials of every
size, measure and run and extrapolated linearly to all trials (its cost per trial does not depend on
the trial); the ratio compares it with the vectorised table measured in the same run.

    PYTHONPATH=src python benchmarks/bench_ppi.py [--runs 100] [--topics 50] [--measures 5]
        [--trials 1000] [--loop-trials 10]

On a shared machine the timings are inflated by the other processes; the lead re-measures.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def loop_budget(Y, Yh, target, sizes, idx_of, trials: int, alpha: float) -> float:
    """The budget's intervals with ppi_py, one trial, run and estimator at a time; returns a checksum."""
    from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate

    J, R = Yh.shape
    s = 0.0
    for n in sizes:
        idx = idx_of(n)[:trials]
        for L in idx:
            mask = np.ones(J, bool)
            mask[L] = False
            for r in range(R):
                y, yh, yu = Y[L, r], Yh[L, r], Yh[mask, r]
                lo, hi = classical_mean_ci(y, alpha=alpha)
                s += hi - lo
                lo, hi = classical_mean_ci(Yh[:, r], alpha=alpha)
                s += hi - lo
                for lam in (1, None):
                    ppi_mean_pointestimate(y, yh, yu, lam=lam)
                    lo, hi = ppi_mean_ci(y, yh, yu, alpha=alpha, lam=lam)
                    s += float(hi[0] - lo[0]) + float(target[r] >= lo[0])
    return s


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--measures", type=int, default=5)
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--loop-trials", type=int, default=10)
    args = ap.parse_args()

    from metaeval.meta import ppi as P

    rng = np.random.default_rng(2024)
    sizes = list(range(5, 41, 5))
    mats = []
    for _ in range(args.measures):            # topic difficulty x run strength; a judge biased upwards
        Y = np.clip(rng.beta(2, 4, (args.topics, 1)) * rng.uniform(0.5, 1.5, (1, args.runs))
                    + rng.normal(0, 0.08, (args.topics, args.runs)), 0, 1)
        mats.append((Y, np.clip(Y + 0.08 + rng.normal(0, 0.12, Y.shape), 0, 1)))
    P.budget_table("w", mats[0][0], mats[0][1], mats[0][1], mats[0][0].mean(axis=0), [5], 4, 0, 0.05)  # warm-up
    t0, c0 = time.perf_counter(), time.process_time()
    tables = [P.budget_table(f"m{k}", Y, Yh, Yh, Y.mean(axis=0), sizes, args.trials, 1, 0.05)
              for k, (Y, Yh) in enumerate(mats)]
    vec, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"vectorised: {args.runs} runs x {args.topics} topics x {args.measures} measures, sizes "
          f"{sizes[0]}..{sizes[-1]} ({len(sizes)}), {args.trials} trials: {vec:.1f} s wall, {cpu:.1f} s CPU "
          f"(target < 60 s)")
    t = tables[0]
    for n in (10, 20, 40):
        row = t[t.labelled == n].set_index("estimator")
        print(f"  m0, {n} labelled: " + ", ".join(f"{e} cover {row.loc[e, 'coverage']:.3f} width "
                                                   f"{row.loc[e, 'mean_width']:.3f}" for e in P.ESTIMATORS))

    k = min(args.loop_trials, args.trials)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for Y, Yh in mats:
            loop_budget(Y, Yh, Y.mean(axis=0), sizes, lambda n: P.budget_sets(args.topics, n, args.trials, 1), k, 0.05)
    per, per_cpu = (time.perf_counter() - t0) / k, (time.process_time() - c0) / k
    full, full_cpu = per * args.trials, per_cpu * args.trials
    print(f"ppi_py loop: {k} trials per size and measure timed ({per:.2f} s wall per trial of every size and "
          f"measure), extrapolated to {args.trials} trials: {full:.0f} s wall, {full_cpu:.0f} s CPU")
    print(f"ratio (ppi_py loop / vectorised): {full / vec:.0f}x wall, {full_cpu / cpu:.0f}x CPU")


if __name__ == "__main__":
    main()
