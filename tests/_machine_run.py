"""Driver of tests/pipeline/test_machine_independence.py, run in a subprocess whose environment selects the
OpenBLAS kernel, the BLAS thread count and numpy's CPU dispatch (they are read when numpy loads).

    python tests/_machine_run.py OUT

runs the metaeval commands below into OUT (in this one process, one after the other, so the
environment's numpy and BLAS serve them all) and writes OUT/runtime.json: the OpenBLAS kernel and
thread count in use and numpy's enabled CPU features, so the test can tell whether a switch took.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SIM = '{"topics": 25, "runs": 10, "depth": 150, "candidates": 500, "pool_depth": 20, "seed": 11}'
METRICS = ["AP", "RR", "nDCG@20", "Q-measure", "P-plus", "kishida-vG",
           "P-plus(gains=1:1:1)", "P-plus(gains=1:5:10)"]


def commands(out: Path) -> list[list[str]]:
    sim, mats = out / "sim", out / "matrices"
    cmds = [
        ["simulate", "ntcir5-japanese", "--out", str(sim), "--params", SIM, "--quiet"],
        ["matrices", "--qrels", str(sim / "qrels.txt"), "--runs", str(sim / "runs"), "--out", str(mats),
         "--gains", "1:2:3", "--metrics", *METRICS, "--quiet"],
        # every stage of the meta-evaluation: bootstrap tests (AG_/G_ rows: log/exp), t*, swap,
        # stability, Kendall, rank correlation (tau_AP, RBO), gain sweep, discriminative power
        # (ANOVA, randomised and parametric Tukey HSD, paired tests, topic set size)
        ["meta", "--matrices", str(mats), "--out", str(out / "meta"), "--B", "500", "--seed", "3",
         "--geometric", "AP", "--sweep-metrics", "P-plus", "--sweep-gains", "1:1:1", "1:5:10",
         "--rthsd-B", "400", "--no-figures", "--quiet"],
        ["reproduce", "kishida", "--out", str(out / "kishida"), "--L", "20", "--M", "200"],
    ]
    for test in ("permutation", "tukey-hsd", "bootstrap", "wilcoxon"):
        draws = ["--B", "500", "--seed", "5"] if test in ("permutation", "bootstrap") else []   # (the others draw none)
        cmds.append(["compare", "--matrices", str(mats), "--metrics", "AP", "nDCG@20", "--test", test, *draws,
                     "--out", str(out / f"compare-{test}"), "--quiet"])
    return cmds


def runtime() -> dict:
    try:
        from numpy._core import _multiarray_umath as mu
    except ImportError:                     # numpy 1.x
        from numpy.core import _multiarray_umath as mu
    from threadpoolctl import threadpool_info

    blas = [{"architecture": i.get("architecture"), "num_threads": i.get("num_threads"),
             "prefix": i.get("prefix")} for i in threadpool_info() if i.get("user_api") == "blas"]
    return {"blas": blas, "numpy_features": sorted(k for k, v in mu.__cpu_features__.items() if v),
            "numpy_dispatch": list(mu.__cpu_dispatch__)}


def main(out: Path) -> int:
    import contextlib
    import io

    import numpy  # noqa: F401  (load BLAS before threadpool_info)
    import scipy.linalg  # noqa: F401  (scipy's own OpenBLAS, if it has one)

    from metaeval.cli import main as metaeval

    out.mkdir(parents=True, exist_ok=True)
    for cmd in commands(out):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = metaeval(cmd)
        if rc:
            print(f"metaeval {' '.join(cmd)} exited {rc}", file=sys.stderr)
            return rc
    (out / "runtime.json").write_text(json.dumps(runtime(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
