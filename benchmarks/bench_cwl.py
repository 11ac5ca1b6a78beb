"""Benchmark of ``metaeval cwl_eval`` against ``cwl-eval`` 1.0.12 on one TREC DL19 run.

The same inputs for both: DL19's qrels as a cwl gain file (REL / 3), one run decompressed (default
``p_bert``, 43 topics x 1000 documents), and a metrics file naming every cwl_eval metric
(``tests/data/cwl_all_metrics.txt``: 29 metrics, every class with its parameters).  Both outputs
are checked to be identical before anything is timed.

Workloads, each with and without ``-r`` (residuals: every metric computed twice):

* **end to end**: the two command lines as child processes, CPU seconds (user + system of the
  child, ``RUSAGE_CHILDREN``): interpreter start, imports, reading, computing, printing.
  cwl-eval once (it takes seconds), ours best of ``--repeats`` after one untimed run (bytecode
  cached as for an installed package: the children run without ``PYTHONDONTWRITEBYTECODE``).
  The floor of any Python drop-in is printed too: the interpreter starting and importing numpy.
* **in process**: the work after the imports -- cwl-eval's ``main()`` (its own process, stdout
  to /dev/null) and our ``compute()`` (after one warm-up call), CPU seconds by
  ``time.process_time``.

CPU seconds rather than wall time: the machine may be shared; the ratio of CPU times is what the
tools cost.  The script prints the times and the ratios (goal: >= 50x); no assertion.

    .venv/bin/python benchmarks/bench_cwl.py [--run p_bert] [--repeats 5] [--data DIR]
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALL_METRICS = ROOT / "tests" / "data" / "cwl_all_metrics.txt"


def _env() -> dict:
    """The children's environment: compiled bytecode cached as an installed package has it
    (``PYTHONDONTWRITEBYTECODE`` removed; every command runs once untimed first)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _cpu_child(cmd, cwd) -> tuple[float, bytes]:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True,
                         env=_env()).stdout
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), out


_CWL_IN_PROCESS = r"""
import os, sys, time, contextlib
import cwl
sys.path.insert(0, os.path.dirname(cwl.__file__))     # as cwl-eval's entry point does
from cwl import cwl_eval
args = sys.argv[1:]
with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
    t = time.process_time()
    cwl_eval.main(args[1], args[0], None, args[2], None, False, args[3] == "1")
    print(time.process_time() - t, file=sys.stderr)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", default="p_bert")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--data", default=os.environ.get("METAEVAL_SHARED_DATA") or ROOT.parent / "shared" / "data")
    a = ap.parse_args()
    # compared with cwl-eval on this machine: the drop-in follows this machine's BLAS ddot order
    # (cwl-eval's signs of zero in the residuals do; metaeval's default is one order on every CPU)
    os.environ.setdefault("METAEVAL_CWL_DDOT", "native")
    dl = Path(a.data) / "trec-dl19-passage"
    exe = Path(sys.executable).parent / "cwl-eval"
    ours_exe = Path(sys.executable).parent / "metaeval"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with open(dl / "qrels.txt") as f, open(tmp / "gains", "w") as out:
            for line in f:
                t, it, doc, rel = line.split()
                out.write(f"{t} {it} {doc} {max(int(rel), 0) / 3!r}\n")
        with gzip.open(dl / "runs" / f"{a.run}.run.gz", "rt") as f:
            (tmp / "run").write_text(f.read())
        base = [str(tmp / "gains"), str(tmp / "run"), "-m", str(ALL_METRICS)]
        print(f"DL19 run {a.run}, {sum(1 for _ in open(ALL_METRICS))} metrics (every cwl_eval class), "
              f"gains REL/3; CPU seconds")
        from metaeval.cwl.cli import compute

        floor_cmd = [sys.executable, "-c", "import os; os.environ['OPENBLAS_NUM_THREADS'] = '1'; import numpy"]
        _cpu_child(floor_cmd, tmp)
        floor = min(_cpu_child(floor_cmd, tmp)[0] for _ in range(a.repeats))
        print(f"floor of a Python drop-in (interpreter + numpy import, one BLAS thread): {floor:.3f} s")
        for res in (False, True):
            flag = ["-r"] if res else []
            t_cwl, ref = _cpu_child([sys.executable, str(exe), *base, *flag], tmp)
            _cpu_child([str(ours_exe), "cwl_eval", *base, *flag], tmp)            # untimed: warm
            runs = [_cpu_child([str(ours_exe), "cwl_eval", *base, *flag], tmp) for _ in range(a.repeats)]
            t_ours = min(t for t, _ in runs)
            assert runs[0][1] == ref, "outputs differ"
            r = subprocess.run([sys.executable, "-c", _CWL_IN_PROCESS, *base[:2], str(ALL_METRICS),
                                "1" if res else "0"], cwd=tmp, capture_output=True, text=True, check=True)
            t_cwl_in = float(r.stderr.strip().splitlines()[-1])
            import time

            compute(*base[:2], str(ALL_METRICS), residuals=res)
            ts = []
            for _ in range(a.repeats):
                t = time.process_time()
                compute(*base[:2], str(ALL_METRICS), residuals=res)
                ts.append(time.process_time() - t)
            t_ours_in = min(ts)
            label = "with -r   " if res else "without -r"
            print(f"{label}  end to end: cwl-eval {t_cwl:7.3f} s, metaeval {t_ours:6.3f} s, "
                  f"ratio {t_cwl / t_ours:6.1f}x (the floor alone allows {t_cwl / floor:5.1f}x) | in process: "
                  f"cwl-eval {t_cwl_in:7.3f} s, metaeval {t_ours_in:6.3f} s, ratio {t_cwl_in / t_ours_in:6.1f}x")


if __name__ == "__main__":
    main()
