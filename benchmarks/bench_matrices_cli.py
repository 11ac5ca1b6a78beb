"""``metaeval matrices`` against pytrec_eval on the 37 TREC DL 2019 passage runs, as a user runs them.

Both tools run as child processes (a process per call: interpreter start, imports, parsing,
computing, writing), on the same runs decompressed into a temporary folder, with the same five
measures:

* **metaeval**: ``metaeval matrices --qrels qrels.txt --runs RUNS --metrics trec.map trec.ndcg
  trec.recip_rank trec.P@1000 trec.ndcg_cut@10 --out OUT --quiet`` (one CSV per measure);
* **pytrec_eval**: one Python process that parses the qrels and every run into dicts (its
  ``parse_qrel`` / ``parse_run``) and evaluates each run with one ``RelevanceEvaluator`` of
  ``map``, ``ndcg``, ``recip_rank``, ``P_1000``, ``ndcg_cut_10`` (the per-topic values, as
  ``matrices`` gives; nothing written).

Every command runs once untimed first (page cache warm, bytecode cached as for an installed
package: the children run without ``PYTHONDONTWRITEBYTECODE``), then ``--repeats`` times; the best
wall time (``time.perf_counter`` around the child) and the best CPU seconds (user + system of the
child and its forked workers, ``RUSAGE_CHILDREN``) are printed with the ratios of the same run.
The machine may be shared: the load average is printed too.  Target (issue 46): wall ratio >= 3x.

    .venv/bin/python benchmarks/bench_matrices_cli.py [--repeats 5] [--data DIR] [--check]

``--check``: exit with status 1 when the wall ratio is below 3.
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 3.0

PYTREC_SCRIPT = r"""
import sys, pytrec_eval
qrels_path, runs = sys.argv[1], sys.argv[2:]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg", "recip_rank", "P_1000", "ndcg_cut_10"})
n = 0
for p in runs:
    with open(p) as f:
        run = pytrec_eval.parse_run(f)
    res = ev.evaluate(run)
    n += sum(len(v) for v in res.values())
print(n, file=sys.stderr)
"""

METRICS = ("trec.map", "trec.ndcg", "trec.recip_rank", "trec.P@1000", "trec.ndcg_cut@10")


def _env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _once(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of ``cmd`` in a child process (its forked workers' CPU included)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True, env=_env())
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def best(cmd: list[str], cwd: Path, repeats: int) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeats`` runs after one untimed run."""
    _once(cmd, cwd)
    times = [_once(cmd, cwd) for _ in range(repeats)]
    return min(w for w, _ in times), min(c for _, c in times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--data", default=os.environ.get("METAEVAL_SHARED_DATA") or ROOT.parent / "shared" / "data")
    ap.add_argument("--check", action="store_true", help=f"exit 1 when the wall ratio is below {TARGET}x")
    a = ap.parse_args(argv)
    dl = Path(a.data) / "trec-dl19-passage"
    ours = Path(sys.executable).parent / "metaeval"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        runs = tmp / "runs"
        runs.mkdir()
        for p in sorted((dl / "runs").glob("*.run.gz")):
            with gzip.open(p, "rb") as f:
                (runs / p.name[:-3]).write_bytes(f.read())
        files = sorted(str(p) for p in runs.iterdir())
        qrels = str(dl / "qrels.txt")
        me = [str(ours), "matrices", "--qrels", qrels, "--runs", str(runs), "--metrics", *METRICS,
              "--out", str(tmp / "out"), "--quiet"]
        peer = [sys.executable, "-c", PYTREC_SCRIPT, qrels, *files]
        print(f"TREC DL19 passage: {len(files)} runs (decompressed), {len(METRICS)} measures; "
              f"best of {a.repeats}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        w_me, c_me = best(me, tmp, a.repeats)
        w_peer, c_peer = best(peer, tmp, a.repeats)
        print(f"pytrec_eval          wall {w_peer:6.3f} s  CPU {c_peer:6.3f} s")
        print(f"metaeval matrices    wall {w_me:6.3f} s  CPU {c_me:6.3f} s")
        ratio = w_peer / w_me
        print(f"ratio (pytrec_eval / metaeval): wall {ratio:5.2f}x (target >= {TARGET:g}x), "
              f"CPU {c_peer / c_me:5.2f}x")
    return 1 if a.check and ratio < TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
