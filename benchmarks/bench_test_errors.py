"""Benchmark of ``metaeval test-errors`` (issue 29): the simulation of Urbano, Lima & Hanjalic (2019)
at the issue's size -- 20 run pairs x 3 topic set sizes (25, 50, 100) x 10,000 trials x the 5 tests,
B = 2,000 for the bootstrap and permutation tests (type I) -- against a per-trial loop (the same
tests called trial by trial, each trial with its own resamples, as the paper's R scripts run them),
timed on a sample of trials and extrapolated.

    python benchmarks/bench_test_errors.py [--trials 10000] [--loop-trials 40] [--matrix DL19_AP.csv]

Without --matrix the DL19 AP matrix is computed from ../shared/data (or a simulated one is used).
Prints wall and CPU seconds, peak memory, and the ratio.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def _matrix(path):
    if path:
        return pd.read_csv(path, index_col=0)
    d = ROOT.parent / "shared" / "data" / "trec-dl19-passage"
    if d.is_dir():
        import warnings

        import metaeval

        with warnings.catch_warnings():              # the file/score order notes of the DL19 runs
            warnings.simplefilter("ignore")
            s = metaeval.evaluate(d / "qrels.txt", d / "runs", ["AP"], order="file")
        return s.pivot(index="topic", columns="run", values="value")
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.beta(2, 5, (50, 30)), columns=[f"r{i}" for i in range(30)])


def _loop(margins, cop, n, trials, B, seed):
    """The per-trial loop: one simulated topic set and five tests at a time."""
    from metaeval.meta import copulas as C
    from metaeval.meta.urbano_tests import run_tests

    rng = np.random.default_rng(seed)
    for _ in range(trials):
        u1, u2 = C.simulate(cop, n, 1, rng)
        b, e = margins.ppf(u1), margins.ppf(u2)
        run_tests(b, e, B=B, rng=rng)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10_000)
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--B", type=int, default=2000)
    ap.add_argument("--loop-trials", type=int, default=40)
    ap.add_argument("--matrix")
    args = ap.parse_args(argv)
    from metaeval.meta import copulas as C
    from metaeval.meta import margins as M
    from metaeval.meta.error_rates import prepare_runs, test_errors

    X = _matrix(args.matrix)
    t0, c0 = time.perf_counter(), time.process_time()
    res = test_errors({"AP": X}, pairs=args.pairs, topics=(25, 50, 100), trials=args.trials, deltas=(),
                      alphas=(0.01, 0.05), B=args.B, seed=1)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total = args.pairs * 3 * args.trials
    print(f"vectorised: {args.pairs} pairs x 3 sizes x {args.trials} trials x 5 tests, B = {args.B}: "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak:.0f} MB")
    print(res.type1[res.type1["alpha"] == 0.05].to_string(index=False))
    # the loop on a sample of trials of one pair, the three sizes
    Xp, runs = prepare_runs(X.to_numpy(float), list(map(str, X.columns)))
    m = M.fit_and_select(Xp[:, 0])
    cop = C.fit_copula(Xp[:, 0], Xp[:, 1], np.random.default_rng(0))
    t0, c0 = time.perf_counter(), time.process_time()
    for n in (25, 50, 100):
        _loop(m, cop, n, args.loop_trials, args.B, n)
    lwall, lcpu = time.perf_counter() - t0, time.process_time() - c0
    per_trial = lcpu / (3 * args.loop_trials)
    est = per_trial * total
    print(f"per-trial loop: {3 * args.loop_trials} trials in {lcpu:.2f} s CPU -> {est:.0f} s CPU for "
          f"{total} trials (extrapolated)")
    print(f"ratio (CPU): {est / cpu:.1f}x; target: under 300 s wall -> {'met' if wall < 300 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
