"""Benchmark of the diversity measures on the shared TREC 2013 Web
diversity data (20 runs, 50 topics, up to 8 intents).

Two workloads, each the work of one ``metaeval matrices`` call in this process (parse and label
the 20 gzipped runs, compute, write the CSVs), best of ``--repeats`` wall times:

* **plain**: the plain (non-diversity) measures at cutoffs 10 and 20: what ``ntcir_eval compute
  -cutoffs 10,20`` prints (47 measures), on the same runs with TREC qrels derived from the
  diversity qrels (each document at its highest per-intent level; written once, not timed);
* **diversity**: every diversity measure at cutoffs 10 and 20 from the per-intent qrels and the
  intent probabilities (``--qrels-form intents``): the D-version of every gcompute line (47),
  I-rec@10/@20 and I-rec@n, D#-X@10/@20 for the 17 cutoff measures X (34), and ndeval's family
  (alpha-nDCG, alpha-DCG, ERR-IA, nERR-IA, P-IA, strec at 10 and 20; NRBP, nNRBP, MAP-IA).

    python benchmarks/bench_diversity.py [--repeats 5]

Goal: diversity / plain <= 3. The script prints both times and the ratio (no assertion).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "trec-web2013-diversity"
CUTOFFS = (10, 20)


def diversity_measures() -> list[str]:
    from metaeval.metrics import ntcir_measures
    from metaeval.metrics.diversity import DSHARP_BASES, NDEVAL_CUT, NDEVAL_TOP

    out = ["D-" + m.name for m in ntcir_measures(CUTOFFS)]
    out += [f"I-rec@{l}" for l in CUTOFFS] + ["I-rec"]
    out += [f"D#-{b}@{l}" for l in CUTOFFS for b in DSHARP_BASES]
    out += [f"{b}@{l}" for b in NDEVAL_CUT for l in CUTOFFS] + list(NDEVAL_TOP)
    return out


def _plain_qrels(path: Path) -> None:
    """TREC qrels: each (topic, document) at its highest per-intent level."""
    best: dict[tuple[str, str], int] = {}
    for line in open(DATA / "qrels.txt"):
        t, _, d, r = line.split()
        best[(t, d)] = max(best.get((t, d), 0), int(r))
    path.write_text("".join(f"{t} 0 {d} {r}\n" for (t, d), r in best.items()))


def _time(argv: list[str], repeats: int) -> float:
    from metaeval.cli import main

    best = float("inf")
    for _ in range(repeats):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            rc = main(argv)
            best = min(best, time.perf_counter() - t0)
        assert rc == 0
    return best


def main_(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"shared data missing: {DATA}", file=sys.stderr)
        return 1
    sys.path.insert(0, str(ROOT / "src"))
    from metaeval.metrics import ntcir_measures

    tmp = Path(tempfile.mkdtemp(prefix="bench-div-"))
    try:
        _plain_qrels(tmp / "plain.qrels")
        plain = [m.name for m in ntcir_measures(CUTOFFS)]
        div = diversity_measures()
        runs = str(DATA / "runs")
        t_plain = _time(["matrices", "--qrels", str(tmp / "plain.qrels"), "--runs", runs,
                         "--vocabulary", "ntcireval", "--out", str(tmp / "plain"), "--quiet", "--metrics", *plain], args.repeats)
        t_div = _time(["matrices", "--qrels", str(DATA / "qrels.txt"), "--runs", runs,
                       "--qrels-form", "intents", "--intent-probs", str(DATA / "intents.txt"),
                       "--vocabulary", "ntcireval", "--out", str(tmp / "div"), "--quiet", "--metrics", *div], args.repeats)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"plain     : {len(plain):3d} measures  {t_plain:7.3f} s")
    print(f"diversity : {len(div):3d} measures  {t_div:7.3f} s")
    print(f"ratio diversity/plain = {t_div / t_plain:.2f} (goal <= 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main_())
