"""CPU seconds of reading + labelling + ranking the DL19 runs for ``metaeval trec_eval``: the C
scanner (``metaeval.treceval._trecscan``, through ``rank_run_file``) against the numpy reader
(``read_trec_run`` + ``_rank_one``), in one process (``time.process_time``, best of ``--repeat``).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_trecscan.py [--runs DIR_OR_FILES...] [--repeat 3]

Default runs: ``../shared/data/trec-dl19-passage/runs/*.run.gz`` decompressed into a temporary
folder (trec_eval's usual input: plain files).
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.environ.get("METAEVAL_SHARED_DATA") or ROOT.parent / "shared" / "data")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    from metaeval.treceval import ranking as tr
    from metaeval.treceval import reader as te

    dl19 = Path(a.data) / "trec-dl19-passage"
    q = te.read_trec_qrels(dl19 / "qrels.txt")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for p in sorted((dl19 / "runs").glob("*.run.gz")):
            paths.append(Path(tmp) / p.name[:-3])
            paths[-1].write_bytes(gzip.decompress(p.read_bytes()))
        size = sum(p.stat().st_size for p in paths)

        def numpy_path(p):
            tr._rank_one(q, te.read_trec_run(p, q.topic_bytes), None, False, False)

        def c_path(p):
            tr.rank_run_file(q, p)

        print(f"{len(paths)} runs, {size / 1e6:.0f} MB; C scanner built: {tr.c_scanner() is not None}")
        for name, f in (("numpy reader", numpy_path), ("C scanner", c_path)):
            for p in paths[:2]:
                f(p)                                    # warm-up: imports, qrels index
            best = float("inf")
            for _ in range(a.repeat):
                t0 = time.process_time()
                for p in paths:
                    f(p)
                best = min(best, time.process_time() - t0)
            print(f"{name:>13}: {best:.3f} s CPU (best of {a.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
