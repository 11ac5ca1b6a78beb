"""Benchmark of ``metaeval reproducibility``: a CENTRE-style campaign of 20 reproductions, each a
baseline and an advanced run compared with the original pair (4 runs per reproduction), 1000
documents x 50 topics per run, 10 measures -- against repro_eval 0.5.0 (Breuer et al. 2020, the
authors' implementation: one RpdEvaluator per reproduction, trim, evaluate, KTU, RBO, RMSE, nRMSE,
the t test, ER and Delta RI), measured in the same run on a subsample of reproductions
(``--oracle-reps``, default 1) and extrapolated to all of them (it says so).

    python benchmarks/bench_reproducibility.py [--reps 20] [--topics 50] [--docs 1000] [--oracle-reps 1]

The runs and qrels are synthetic (seeded): the original pair scores a 50-topic pool, each
reproduction perturbs it (documents swapped, dropped and replaced, scores jittered, ties).
Prints wall and CPU seconds of both, the ratio and the largest difference between the two on the
reproductions both computed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

MEASURES = ["AP", "nDCG@10", "nDCG@20", "nDCG@100", "P@5", "P@10", "P@20", "P@100", "RR", "R@1000"]


def _write(tmp: Path, reps: int, topics: int, docs: int, seed: int = 38):
    rng = np.random.default_rng(seed)
    pool = docs * 3
    qlines = []
    truth = {}
    for t in range(topics):
        rel = rng.choice(pool, size=60, replace=False)
        grade = rng.integers(0, 4, size=60)
        truth[t] = dict(zip(rel.tolist(), grade.tolist()))
        qlines += [f"{1000 + t} 0 D{t}_{d} {g}\n" for d, g in zip(rel.tolist(), grade.tolist())]
    (tmp / "qrels.txt").write_text("".join(qlines))

    def run(path: Path, base: np.ndarray, noise: float, swap: float, tag: str):
        lines = []
        for t in range(topics):
            s = base[t] + rng.normal(0, noise, size=pool)
            s = np.round(s, 2)                                     # ties, as real runs have
            top = np.argsort(-s, kind="stable")[:docs]
            if swap:
                k = int(swap * docs)
                out = np.setdiff1d(np.arange(pool), top)       # replacements from outside the list
                top[rng.choice(docs, k, replace=False)] = rng.choice(out, k, replace=False)
            sc = np.sort(s[top])[::-1]
            lines += [f"{1000 + t} Q0 D{t}_{d} {i + 1} {v:.2f} {tag}\n" for i, (d, v) in enumerate(zip(top.tolist(),
                                                                                                      sc.tolist()))]
        path.write_text("".join(lines))

    base_b = np.stack([rng.normal(0, 1, pool) + np.array([truth[t].get(d, 0) * 0.6 for d in range(pool)])
                       for t in range(topics)])
    base_a = base_b + np.stack([np.array([truth[t].get(d, 0) * 0.3 for d in range(pool)]) for t in range(topics)])
    run(tmp / "orig_b.txt", base_b, 0.0, 0.0, "ob")
    run(tmp / "orig_a.txt", base_a, 0.0, 0.0, "oa")
    out = []
    for r in range(reps):
        b, a = tmp / f"rep{r:02d}_b.txt", tmp / f"rep{r:02d}_a.txt"
        run(b, base_b, 0.05 * (r % 5 + 1), 0.0 if r % 4 else 0.01, f"b{r}")
        run(a, base_a, 0.05 * (r % 5 + 1), 0.0 if r % 3 else 0.01, f"a{r}")
        out.append((f"team{r:02d}", str(b), str(a)))
    return str(tmp / "qrels.txt"), (str(tmp / "orig_b.txt"), str(tmp / "orig_a.txt")), out


def _oracle(qrels, orig, rep, depth):
    import ir_measures
    from repro_eval.Evaluator import RpdEvaluator

    ev = RpdEvaluator(qrels_orig_path=qrels, run_b_orig_path=orig[0], run_a_orig_path=orig[1],
                      run_b_rep_path=rep[1], run_a_rep_path=rep[2])
    ev.measures = [ir_measures.parse_measure(m) for m in MEASURES]
    ev.trim(depth)
    ev.evaluate()
    return dict(ktu=ev.ktu(), rbo=ev.rbo(depth=depth), rmse=ev.rmse(), nrmse=ev.nrmse(), p=ev.ttest(), er=ev.er(),
                dri=ev.dri())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--oracle-reps", type=int, default=1, help="reproductions repro_eval computes (0: none)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    import scipy.stats  # noqa: F401  (imported before the clock starts, by either side)

    from metaeval.meta.reproducibility import Reproduction, reproducibility

    with tempfile.TemporaryDirectory(prefix="bench-repro-") as tmp:
        qrels, orig, reps = _write(Path(tmp), args.reps, args.topics, args.docs)
        w0, c0 = time.perf_counter(), time.process_time()
        res = reproducibility(qrels, orig, [Reproduction(*r) for r in reps], MEASURES, depth=args.docs)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        print(f"metaeval reproducibility: {args.reps} reproductions x 4 runs x {args.docs} documents x "
              f"{args.topics} topics x {len(MEASURES)} measures: {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"(target: under 10 s; wall time depends on the machine's load, CPU time does not)")
        if args.oracle_reps:
            k = min(args.oracle_reps, len(reps))
            w0, c0 = time.perf_counter(), time.process_time()
            got = [_oracle(qrels, orig, reps[i], args.docs) for i in range(k)]
            owall, ocpu = time.perf_counter() - w0, time.process_time() - c0
            scale = len(reps) / k
            print(f"repro_eval 0.5.0: {k} of {len(reps)} reproductions in {owall:.2f} s wall, {ocpu:.2f} s CPU; "
                  f"extrapolated to {len(reps)}: {owall * scale:.1f} s wall, {ocpu * scale:.1f} s CPU")
            print(f"ratio (repro_eval extrapolated / metaeval): {owall * scale / wall:.0f}x wall, "
                  f"{ocpu * scale / cpu:.0f}x CPU")
            name = dict(zip(res.metrics, MEASURES))
            worst = 0.0
            t, e = res.reproducibility, res.effects
            for i in range(k):
                rep = reps[i][0]
                for row in t[t.reproduction == rep].itertuples():
                    m = name[row.metric]
                    o = got[i]
                    for ours, ref in ((row.ktu, o["ktu"][row.run]), (row.rbo, o["rbo"][row.run]),
                                      (row.rmse, o["rmse"][row.run][m]), (row.nrmse, o["nrmse"][row.run][m]),
                                      (row.p_value, o["p"][row.run][m])):
                        worst = max(worst, abs(ours - ref))
                for row in e[e.reproduction == rep].itertuples():
                    worst = max(worst, abs(row.er - got[i]["er"][name[row.metric]]),
                                abs(row.dri - got[i]["dri"][name[row.metric]]))
            print(f"largest difference from repro_eval on those reproductions: {worst:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
