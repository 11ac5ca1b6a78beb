"""Benchmark of metaeval.meta: 30 runs (435 pairs), 43 topics, 10 metrics.

Times paired + unpaired + swap + stability (per metric) + Kendall (all metric pairs) at B = 1000
and B = 100000 (targets: under 2 s and under 60 s in total), and compares B = 1000 with a literal
per-pair loop implementation of the same algorithms (numpy inside each pair, Python loop over the
435 pairs) run in the same process; prints the ratio.  Matrices: TREC DL19 (the top 30 of its 37
runs by mean AP, 43 topics) when ../shared is present, else random scores with 4-decimal ties.

    .venv/bin/python benchmarks/bench_meta.py [--B 1000 100000] [--no-loop]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from metaeval.meta import (BootstrapSamples, paired_bootstrap, rank_correlations, select_top_runs,
                           stability_method, swap_method, unpaired_bootstrap)
from metaeval.meta.stability import DEFAULT_FUZZINESS

ROOT = Path(__file__).resolve().parents[1]
DL19 = ROOT.parent / "shared" / "data" / "trec-dl19-passage"
METRICS = ["AP", "Q-measure", "nDCG@10", "nDCG@1000", "RR", "O-measure", "P-measure", "P-plus",
           "nCG@1000", "PDoc@1000"]


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


def vectorised(mats, B, seed=1):
    n = next(iter(mats.values())).shape[0]
    t0 = time.perf_counter()
    c0 = time.process_time()
    q1 = BootstrapSamples.from_seed(seed, n, B)
    q2 = BootstrapSamples.from_seed(seed, n, B, "swap")
    qu = BootstrapSamples.from_seed(seed, n, B, "unpaired")
    times = {"paired": 0.0, "unpaired": 0.0, "swap": 0.0, "stability": 0.0}
    out = {}
    for m, df in mats.items():
        t = time.perf_counter()
        p = paired_bootstrap(df, q1)
        times["paired"] += time.perf_counter() - t
        t = time.perf_counter()
        u = unpaired_bootstrap(df, qu)
        times["unpaired"] += time.perf_counter() - t
        t = time.perf_counter()
        s = swap_method(df, q1, q2)
        times["swap"] += time.perf_counter() - t
        t = time.perf_counter()
        st = stability_method(df, q1)
        times["stability"] += time.perf_counter() - t
        out[m] = (p, u, s, st)
    t = time.perf_counter()
    rank_correlations(mats)
    times["kendall"] = time.perf_counter() - t
    times["cpu"] = time.process_time() - c0
    return time.perf_counter() - t0, times, out, (q1, q2, qu)


# ---------------------------------------------------------------- literal per-pair loops (peer)

def loop_all(X, q1, q2, qu, alpha=0.05, fs=DEFAULT_FUZZINESS):
    n, R = X.shape
    idx, idx2, idxu = q1.indices, q2.indices, qu.indices
    fs = np.asarray(fs)
    sig = usig = 0
    swap_c = np.zeros(21, int)
    swap_s = np.zeros(21, int)
    mins = np.zeros(len(fs))
    eqs = np.zeros(len(fs))
    for i in range(R):
        for j in range(i + 1, R):
            x, y = X[:, i], X[:, j]
            # paired (Figs 2-3)
            z = x - y
            with np.errstate(divide="ignore", invalid="ignore"):      # the library's zero-variance rule
                t_obs = z.mean() / (z.std(ddof=1) / np.sqrt(n))
                wb = (z - z.mean())[idx]
                t = wb.mean(1) / (wb.std(1, ddof=1) / np.sqrt(n))
            t_obs = 0.0 if np.isnan(t_obs) else t_obs
            t = np.nan_to_num(t, nan=0.0, posinf=np.inf, neginf=-np.inf)
            sig += (np.mean(np.abs(t) >= abs(t_obs)) < alpha)
            np.sort(np.abs(t))
            # unpaired (Figs 6-7)
            v = np.concatenate([x, y])
            d = v[idxu[:, :n]].mean(1) - v[idxu[:, n:]].mean(1)
            usig += (np.mean(np.abs(d) >= abs(x.mean() - y.mean())) < alpha)
            np.sort(np.abs(d))
            # swap (Fig. 4)
            D1 = x[idx].mean(1) - y[idx].mean(1)
            D2 = x[idx2].mean(1) - y[idx2].mean(1)
            b = np.minimum(20, (np.abs(D1) * 100).astype(int))
            swap_c += np.bincount(b, minlength=21)
            swap_s += np.bincount(b[D1 * D2 <= 0], minlength=21)
            # stability (Fig. 16)
            mx, my = x[idx].mean(1), y[idx].mean(1)
            for fi, f in enumerate(fs):
                eq = (np.abs(mx - my) < f * np.maximum(mx, my)) | (mx == my)
                gxy = (~eq & (mx > my)).sum()
                gyx = (~eq & ~(mx > my)).sum()
                mins[fi] += min(gxy, gyx)
                eqs[fi] += eq.sum()
    return sig, usig, swap_c, swap_s, mins, eqs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--B", type=int, nargs="+", default=[1000, 100000])
    ap.add_argument("--no-loop", action="store_true", help="skip the per-pair loop peer")
    args = ap.parse_args(argv)
    mats, what = load_matrices()
    n, R = next(iter(mats.values())).shape
    print(f"data: {what}; {len(mats)} metrics, {R * (R - 1) // 2} pairs")
    vectorised(mats, 100)        # warm-up (imports, BLAS threads)
    for B in args.B:
        total, times, out, samples = vectorised(mats, B)
        cpu = times.pop("cpu")
        parts = ", ".join(f"{k} {v:.2f}s" for k, v in times.items())
        target = 2.0 if B <= 1000 else 60.0 if B <= 100000 else float("inf")
        print(f"vectorised B={B}: {total:.2f} s wall, {cpu:.2f} s CPU ({parts}); target < {target:g} s: "
              f"{'OK' if total < target else 'MISSED'}  (load average {os.getloadavg()[0]:.1f})")
        if not args.no_loop and B <= 1000:
            t = time.perf_counter()
            for m, df in mats.items():
                sig, usig, *_ = loop_all(df.to_numpy(dtype=float), *samples)
                p, u, s, st = out[m]
                if sig != p.significant or usig != u.significant:     # same samples: same counts
                    print(f"  note: {m}: loop peer counts {sig}/{usig} vs {p.significant}/{u.significant} "
                          "(float ties / zero-variance pairs treated differently)", file=sys.stderr)
            loop = time.perf_counter() - t
            print(f"per-pair loop peer B={B} (paired + unpaired + swap + stability): {loop:.2f} s wall; "
                  f"vectorised is {loop / total:.1f}x faster")


if __name__ == "__main__":
    main()
