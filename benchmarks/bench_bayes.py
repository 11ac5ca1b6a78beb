"""Benchmark of ``metaeval bayes`` (issue 50): the two timings of the issue's Speed line --

1. 45 runs x 50 topics x 1 metric with the default draws (4 chains x 1,000 kept draws after 1,000
   warm-up iterations), simulated from the model (the issue's bound: 30 s on 2 cores);
2. DL19 (37 runs x 43 topics) x 5 metrics, the DL19 example's ``bayes`` job: ``metaeval bayes
   --matrices DIR --out OUT`` as the pipeline's rule runs it, tables and figures (bound: 2 minutes).

    python benchmarks/bench_bayes.py [--matrices DIR] [--metrics M ...]

Without --matrices the five DL19 matrices (gains 1:2:3, trec_eval's order) are computed from
../shared/data first (not timed).  Prints wall and CPU seconds of each.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
#: the DL19 example's bayes metrics (config/examples/trec-dl19-official.yaml)
DL19_METRICS = ["nDCG@10", "RR(rel=2)@10", "AP(rel=2)@1000", "R(rel=2)@1000", "nERR@10"]


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def _dl19_matrices(folder: Path, metrics) -> Path:
    d = ROOT.parent / "shared" / "data" / "trec-dl19-passage"
    subprocess.run([sys.executable, "-m", "metaeval", "matrices", "--qrels", str(d / "qrels.txt"), "--runs",
                    str(d / "runs"), "--gains", "1:2:3", "--order", "score", "--metrics", *metrics, "--out",
                    str(folder), "--quiet"], check=True)
    return folder


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matrices", help="folder of the DL19 matrices (default: computed from ../shared/data)")
    ap.add_argument("--metrics", nargs="+", default=DL19_METRICS)
    args = ap.parse_args(argv)

    from metaeval.meta.bayes import fit

    rng = np.random.default_rng(50)
    S, T = 45, 50
    Y = 0.4 + rng.normal(0, 0.08, S)[:, None] + rng.normal(0, 0.2, T)[None, :] + rng.normal(0, 0.12, (S, T))
    M = pd.DataFrame(Y.T, index=[f"t{i}" for i in range(T)], columns=[f"run{i}" for i in range(S)])
    post, wall, cpu = _timed(lambda: fit(M, "sim"))
    print(f"45 runs x 50 topics x 1 metric, {post.chains} chains x {post.draws} draws: {wall:.2f} s wall, "
          f"{cpu:.2f} s CPU (bound 30 s); R-hat {post.diagnostics['rhat_max']:.4f}, "
          f"bulk ESS {post.diagnostics['ess_min']:.0f}")
    with tempfile.TemporaryDirectory() as tmp:
        mats = Path(args.matrices) if args.matrices else _dl19_matrices(Path(tmp) / "matrices", args.metrics)
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "metaeval", "bayes", "--matrices", str(mats), "--out", str(out), "--metrics",
               *args.metrics]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        _, wall, _ = _timed(lambda: subprocess.run(cmd, check=True, capture_output=True))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        shape = pd.read_csv(out / "tables" / "bayes_runs.csv")
        print(f"DL19 x {len(args.metrics)} metrics ({shape['run'].nunique()} runs), the pipeline's bayes job "
              f"(tables and figures): {wall:.2f} s wall, "
              f"{cpu:.2f} s CPU (bound 120 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
