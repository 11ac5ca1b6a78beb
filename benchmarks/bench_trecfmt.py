"""What the C line printer ``metaeval.treceval._trecfmt`` buys ``metaeval trec_eval``, against the drop-in's
targets (``bench_treceval.py``: 5x pytrec_eval, 3x trec_eval 10.0, wall and CPU).

The 37 TREC DL 2019 passage runs under ``-q -m all_trec``: metaeval with the C printer and without
it (the '%' templates; the run reader ``_trecscan`` stays on in both), interleaved run by run so
that a machine loaded by other work slows both alike, then trec_eval 10.0 (once per run, built from
``shared/tools/trec_eval-10.0``) and pytrec_eval, every tool in its own process.  Prints the best
wall and CPU seconds of each, the ratios, and whether each variant meets the targets.

    python benchmarks/bench_trecfmt.py [--data ../shared/data] [--repeat 5]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_treceval import PYTREC_SCRIPT, ROOT, build_trec_eval, measure_each, warm  # noqa: E402

#: the drop-in with the C line printer switched off (``off``) or left as built (``on``)
DROPIN = ("import sys\n"
          "import metaeval.treceval.render as r\n"
          "if sys.argv[1] == 'off':\n"
          "    r._cfmt = None\n"
          "from metaeval.cli import main\n"
          "sys.exit(main(['trec_eval', *sys.argv[2:]]))\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.environ.get("METAEVAL_SHARED_DATA", str(ROOT.parent / "shared" / "data")))
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args(argv)
    data = Path(a.data)
    dl = data / "trec-dl19-passage"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        runs = []
        for p in sorted((dl / "runs").glob("*.run.gz")):
            out = tmp / p.name[:-3]
            with gzip.open(p, "rb") as f, open(out, "wb") as g:
                shutil.copyfileobj(f, g)
            runs.append(str(out))
        qrels = str(dl / "qrels.txt")
        te = build_trec_eval(data.parent / "tools" / "trec_eval-10.0", tmp)
        opts = ["-q", "-m", "all_trec"]
        me = {k: [sys.executable, "-c", DROPIN, k, *opts, qrels, *runs] for k in ("on", "off")}
        serial = dict(os.environ, METAEVAL_SERIAL="1")
        for c in me.values():
            warm(c)
        best = {k: [float("inf")] * 4 for k in me}       # wall, CPU, one-process wall, one-process CPU
        for _ in range(a.repeat):                          # interleaved: on, off, on, off, ...
            for k, c in me.items():
                w, cpu, _ = measure_each([c], 1)
                old = os.environ.copy()
                os.environ.update(serial)
                try:
                    w1, cpu1, _ = measure_each([c], 1)
                finally:
                    os.environ.clear()
                    os.environ.update(old)
                best[k] = [min(x, y) for x, y in zip(best[k], (w, cpu, w1, cpu1))]
        warm([str(te), *opts, qrels, runs[0]])
        t_te = measure_each([[str(te), *opts, qrels, r] for r in runs], a.repeat)
        py = [sys.executable, "-c", PYTREC_SCRIPT, qrels, *runs]
        warm(py)
        t_py = measure_each([py], a.repeat)
    print(f"37 DL19 runs, -q -m all_trec, best of {a.repeat} (interleaved; the machine may be loaded)")
    print(f"  {'trec_eval 10.0':24s} {t_te[0]:7.2f} s wall {t_te[1]:7.2f} s CPU")
    print(f"  {'pytrec_eval':24s} {t_py[0]:7.2f} s wall {t_py[1]:7.2f} s CPU")
    for k, (w, c, w1, c1) in best.items():
        name = "metaeval, C printer" if k == "on" else "metaeval, '%' printer"
        ok = (t_py[0] / w >= 5 and t_py[1] / c1 >= 5 and t_te[0] / w >= 3 and t_te[1] / c1 >= 3)
        print(f"  {name:24s} {w:7.2f} s wall {c1:7.2f} s CPU (one process)   "
              f"vs pytrec_eval {t_py[0] / w:.2f}x wall {t_py[1] / c1:.2f}x CPU, "
              f"vs trec_eval {t_te[0] / w:.2f}x wall {t_te[1] / c1:.2f}x CPU: targets {'met' if ok else 'MISSED'}")
    on, off = best["on"], best["off"]
    print(f"  without the C printer: {off[0] / on[0]:.3f}x the wall time, {off[3] / on[3]:.3f}x the CPU time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
