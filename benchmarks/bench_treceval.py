"""``metaeval trec_eval -q -m all_trec`` against trec_eval 10.0 (the C program) and pytrec_eval.

Two workloads, every tool in its own subprocess (parse included), wall time (best of ``--repeat``)
and peak resident memory (``ru_maxrss`` of the child), ratios printed from the same run:

1. the 37 TREC DL 2019 passage runs: ``metaeval trec_eval -q -m all_trec QRELS RUN...`` (one
   process) vs ``trec_eval -q -m all_trec QRELS RUN`` once per run (built from
   ``shared/tools/trec_eval-10.0`` with ``make`` into a temporary folder) vs pytrec_eval computing
   the all_trec measures it knows (parse into dicts, evaluate, per run);
2. a synthetic run set of ``--lines`` lines (default 10 million: 10 runs x 1000 topics x 1000
   documents, graded qrels with ties in the scores): metaeval vs pytrec_eval, time and memory.

Runs are decompressed into a temporary folder first (trec_eval reads plain files only), and every
tool runs once untimed first (page cache warm, Python's bytecode cached as for an installed package:
the children run without ``PYTHONDONTWRITEBYTECODE``).  ``metaeval trec_eval`` evaluates many runs
in two processes (the second forked): its memory is the peak of their sum (sampled).  The DL19 runs
are also timed in one process (``METAEVAL_SERIAL=1``): the work, in CPU seconds, without what two
processes at once cost each other -- on a virtual machine whose two cores share their caches (or
are two threads of one core) each runs up to half again slower while the other runs, which adds
CPU seconds but no work.  The machine may be shared: compare the ratios, not the seconds.

    python benchmarks/bench_treceval.py [--data ../shared/data] [--lines 10000000] [--repeat 5] [--check]

Targets: the wall time of the command as users run it, and the CPU seconds (user + system, which a
loaded machine inflates less than wall time) of the same work in one process; memory.
``--check``: exit with status 1 when one is missed.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

PYTREC_SCRIPT = r"""
import sys, pytrec_eval
qrels_path, runs = sys.argv[1], sys.argv[2:]
qrels = {}
for line in open(qrels_path):
    t, _, d, r = line.split()
    qrels.setdefault(t, {})[d] = int(r)
measures = {"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
            "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
            "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"}
measures &= set(pytrec_eval.supported_measures)
ev = pytrec_eval.RelevanceEvaluator(qrels, measures)
n = 0
for p in runs:
    run = {}
    for line in open(p):
        f = line.split()
        run.setdefault(f[0], {})[f[2]] = float(f[4])
    res = ev.evaluate(run)
    n += sum(len(v) for v in res.values())
print(n, file=sys.stderr)
"""

# the wall time is taken inside the wrapper, around the tool's own process only (not the wrapper's
# Python start-up, which would otherwise be counted once per run against the C program)
WRAP = ("import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
        "t = time.perf_counter() - t\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(r.returncode, u.ru_maxrss, u.ru_utime + u.ru_stime, t)\n")


def _env() -> dict:
    """The children's environment: compiled bytecode cached as an installed package has it
    (``PYTHONDONTWRITEBYTECODE`` removed; :func:`warm` runs every tool once first)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def warm(cmd: list[str]) -> None:
    """One untimed run: the files in the page cache and the bytecode written, for every tool alike."""
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())


def tree_peak_mb(cmd: list[str], interval: float = 0.005) -> int:
    """Peak of the summed resident memory of ``cmd`` and all its descendants (metaeval's forked
    workers included), sampled from /proc every ``interval`` seconds (MB)."""
    import time

    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    peak = 0

    def rss(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def tree(root: int) -> list[int]:
        kids: dict[int, list[int]] = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                kids.setdefault(ppid, []).append(int(d))
        out, todo = [], [root]
        while todo:
            p = todo.pop()
            out.append(p)
            todo.extend(kids.get(p, []))
        return out

    while proc.poll() is None:
        peak = max(peak, sum(rss(p) for p in tree(proc.pid)))
        time.sleep(interval)
    return peak // 1024


def measure(cmd: list[str], repeat: int) -> tuple[float, float, int]:
    """(best wall seconds, best CPU seconds, peak RSS in MB) of ``cmd`` run in a child process."""
    return measure_each([cmd], repeat)


def measure_each(cmds: list[list[str]], repeat: int) -> tuple[float, float, int]:
    """One process per command (trec_eval once per run): total wall and CPU time (user + system of
    the children), largest RSS."""
    best, best_cpu, rss = float("inf"), float("inf"), 0
    for _ in range(repeat):
        wall = cpu = 0.0
        for c in cmds:
            out = subprocess.run([sys.executable, "-c", WRAP, *c], capture_output=True, text=True, check=True,
                                 env=_env())
            rc, kb, sec, w = out.stdout.split()
            if rc != "0":
                raise SystemExit(f"{c[:3]} failed with exit status {rc}")
            rss = max(rss, int(kb) // 1024)
            cpu += float(sec)
            wall += float(w)
        best = min(best, wall)
        best_cpu = min(best_cpu, cpu)
    return best, best_cpu, rss


def _report(me, one, others) -> list[str]:
    """Print the times and the ratios; return the targets missed: wall time as run (``me``), CPU
    time of the work in one process (``one``; ``None``: ``me`` ran in one process)."""
    print(f"  {'metaeval trec_eval':22s} {me[0]:7.2f} s wall {me[1]:7.2f} s CPU {me[2]:6d} MB")
    if one is not None:
        print(f"  {'... in one process':22s} {one[0]:7.2f} s wall {one[1]:7.2f} s CPU {one[2]:6d} MB")
    work = one if one is not None else me
    missed = []
    for name, (w, c, m), target in others:
        rw, rc = w / me[0], c / max(work[1], 1e-9)
        both = "" if one is None else f" (two processes: {c / max(me[1], 1e-9):.2f}x)"
        print(f"  {name:22s} {w:7.2f} s wall {c:7.2f} s CPU {m:6d} MB   metaeval faster: "
              f"{rw:.2f}x wall, {rc:.2f}x CPU in one process{both} (target {target}x)")
        missed += [f"{rw:.2f}x wall vs {name} (target {target}x)"] if rw < target else []
        missed += [f"{rc:.2f}x CPU vs {name} (target {target}x)"] if rc < target else []
    return missed


def build_trec_eval(src: Path, into: Path) -> Path:
    shutil.copytree(src, into / "te")
    subprocess.run(["make", "-s"], cwd=into / "te", check=True, capture_output=True)
    return into / "te" / "trec_eval"


def synthetic(into: Path, lines: int, seed: int = 1) -> tuple[Path, list[Path]]:
    """Qrels and runs totalling ``lines`` lines: R runs x 1000 topics x 1000 documents."""
    rng = np.random.default_rng(seed)
    T, D = 1000, 1000
    R = max(1, lines // (T * D))
    docs = np.array([f"doc{i:07d}" for i in range(50 * D)])
    qlines = []
    for t in range(T):
        pool = rng.choice(len(docs), 200, replace=False)
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], 200)
        qlines.extend(f"q{t} 0 {docs[d]} {g}" for d, g in zip(pool, grades))
    qp = into / "qrels.txt"
    qp.write_text("\n".join(qlines) + "\n")
    runs = []
    for r in range(R):
        parts = []
        for t in range(T):
            sel = rng.choice(len(docs), D, replace=False)
            sc = np.round(np.sort(rng.gamma(2.0, 3.0, D))[::-1], 3)      # rounded: ties
            parts.append("\n".join(f"q{t} Q0 {docs[d]} {k + 1} {s:.3f} sys{r}"
                                   for k, (d, s) in enumerate(zip(sel, sc))))
        p = into / f"sys{r}.run"
        p.write_text("\n".join(parts) + "\n")
        runs.append(p)
    return qp, runs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.environ.get("METAEVAL_SHARED_DATA", str(ROOT.parent / "shared" / "data")))
    ap.add_argument("--lines", type=int, default=10_000_000, help="synthetic run set size (0: skip)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--check", action="store_true",
                    help="exit with status 1 when a target (speed ratio or memory) is missed")
    a = ap.parse_args(argv)
    data = Path(a.data)
    dl = data / "trec-dl19-passage"
    src = data.parent / "tools" / "trec_eval-10.0"
    metaeval = [sys.executable, "-m", "metaeval", "trec_eval", "-q", "-m", "all_trec"]
    pytrec = [sys.executable, "-c", PYTREC_SCRIPT]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        exe = build_trec_eval(src, tmp)
        runs = []
        for p in sorted((dl / "runs").glob("*.run.gz")):
            q = tmp / p.name[:-3]
            q.write_bytes(gzip.decompress(p.read_bytes()))
            runs.append(q)
        qrels = dl / "qrels.txt"
        print(f"TREC DL 2019 passage: {len(runs)} runs, -q -m all_trec")
        for cmd in ([*metaeval, str(qrels), *map(str, runs)], [str(exe), "-q", "-m", "all_trec", str(qrels),
                    str(runs[0])], [*pytrec, str(qrels), str(runs[0])]):
            warm(cmd)
        me = measure([*metaeval, str(qrels), *map(str, runs)], a.repeat)
        one = measure(["env", "METAEVAL_SERIAL=1", *metaeval, str(qrels), *map(str, runs)], a.repeat)
        c = measure_each([[str(exe), "-q", "-m", "all_trec", str(qrels), str(r)] for r in runs], a.repeat)
        py = measure([*pytrec, str(qrels), *map(str, runs)], a.repeat)
        missed = _report(me, one, [("trec_eval 10.0 (C)", c, 3), ("pytrec_eval", py, 5)])
        print(f"  in one process metaeval is also {c[0] / one[0]:.2f}x faster than trec_eval and "
              f"{py[0] / one[0]:.2f}x faster than pytrec_eval in wall time")
        if a.lines:
            qp, sruns = synthetic(tmp, a.lines)
            n = sum(1 for r in sruns for _ in open(r))
            print(f"synthetic: {n:,} run lines in {len(sruns)} runs, -q -m all_trec")
            warm([*metaeval, str(qp), str(sruns[0])])
            me = measure([*metaeval, str(qp), *map(str, sruns)], 1)
            py = measure([*pytrec, str(qp), *map(str, sruns)], 1)
            missed += _report(me, None, [("pytrec_eval", py, 3)])     # runs of 45 MB: one process
            # metaeval's peak: the sum over its process tree (the forked workers run at once)
            tree = tree_peak_mb([*metaeval, str(qp), *map(str, sruns)])
            mine = max(me[2], tree)
            print(f"  metaeval peak memory: {tree} MB summed over its processes, {me[2]} MB largest process")
            mem = mine / max(py[2], 1)
            print(f"  memory: metaeval / pytrec_eval = {mem:.2f} (target <= 1)")
            missed += [f"memory {mem:.2f}x pytrec_eval's (target <= 1)"] if mem > 1 else []
    if missed:
        print("targets missed: " + "; ".join(missed))
        return 1 if a.check else 0
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
