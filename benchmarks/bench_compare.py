"""Benchmark of ``metaeval.meta.compare``: TREC DL19, 37 runs, all 666 pairs, 5 metrics, every test
(paired-t, wilcoxon, sign, permutation, bootstrap, rthsd, tukey-hsd) with B = 10000 (target: under
10 s in total).  Matrices: DL19 when ../shared is present, else random scores of the same shape.

    PYTHONPATH=src python benchmarks/bench_compare.py [--B 10000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DL19 = ROOT.parent / "shared" / "data" / "trec-dl19-passage"
METRICS = ["AP", "nDCG@10", "RR", "Q-measure", "Prec@10"]


def load():
    if DL19.is_dir():
        from metaeval.io import load_collection
        from metaeval.metrics import evaluate

        c = load_collection(DL19 / "qrels.txt", sorted((DL19 / "runs").glob("*.run.gz")))
        res = evaluate(c, METRICS, gains=(1, 2, 3))
        return {m: pd.DataFrame(v.T, index=list(c.topics), columns=list(c.runs)) for m, v in res.items()}, "DL19"
    rng = np.random.default_rng(0)
    base = rng.uniform(0.1, 0.5, 37)
    return {m: pd.DataFrame(np.round(np.clip(base + rng.normal(0, 0.25, (43, 37)), 0, 1), 4)) for m in METRICS}, \
        "random 43 x 37"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--B", type=int, default=10000)
    args = ap.parse_args()
    import scipy.interpolate  # noqa: F401
    import scipy.stats  # noqa: F401

    from metaeval.meta.compare import COMPARE_TESTS, compare

    mats, what = load()
    compare({"w": mats["AP"].iloc[:5, :3]}, test="tukey-hsd")          # warm-up (lazy imports)
    total_w = total_c = 0.0
    for test in COMPARE_TESTS:
        t0, c0 = time.perf_counter(), time.process_time()
        df = compare(mats, test=test, B=args.B, seed=1)
        w, c = time.perf_counter() - t0, time.process_time() - c0
        total_w += w
        total_c += c
        print(f"{test:12s} {len(df):5d} rows  wall {w:6.2f} s  CPU {c:6.2f} s")
    print(f"{what}: 37 runs, 666 pairs, {len(mats)} metrics, every test, B = {args.B}: "
          f"wall {total_w:.2f} s, CPU {total_c:.2f} s")


if __name__ == "__main__":
    main()
