"""Benchmark of the incompleteness stage (metaeval.meta.incompleteness): 9 fractions x 20 trials of
the ``judged`` reduced qrels x 10 measures, each as given and on condensed lists (plus bpref and
trec_eval's infAP), on 30
runs x 50 topics (a simulated collection of depth 1000, metaeval.simulate defaults), the paired
bootstrap at B = 1000 included (target: under 60 s on 2 cores, ``--jobs 2``).

Beside it, the route the stage replaces: writing each reduced qrels to a file and recomputing the
matrices with ``metaeval matrices`` from the files (as given and ``--condensed``), timed on
``--baseline-trials`` trials and scaled to all 180; the ratio compares that with the stage's own
scoring of the 180 reduced qrels (masking the labelled collection, trials stacked).

    PYTHONPATH=src python benchmarks/bench_incompleteness.py [--jobs 2] [--trials 20] [--B 1000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

MEASURES = ["RR", "NWRR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "Prec@1000",
            "nCG@1000", "nDCG@1000"]
FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--B", type=int, default=1000)
    ap.add_argument("--baseline-trials", type=int, default=3)
    ap.add_argument("--with-infap", action="store_true",
                    help="also trec_eval's infAP (the stage's default extra measures; dense, about 2x the scoring)")
    args = ap.parse_args()

    from metaeval.cli import main as cli
    from metaeval.io import load_collection
    from metaeval.io.qrels import format_qrels
    from metaeval.meta import incompleteness as inc
    from metaeval.meta.run import MetaConfig
    from metaeval.simulate import SimParams, write_collection

    gains = (1.0, 2.0, 3.0)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        write_collection(SimParams(), tmp / "sim")
        t0 = time.perf_counter()
        c = load_collection(tmp / "sim" / "qrels.txt", tmp / "sim" / "runs")
        parse = time.perf_counter() - t0
        R, T, D = c.levels.shape
        print(f"collection: {R} runs x {T} topics x depth {D}, {len(c.judged_level)} judgments (parsed in {parse:.2f} s)")
        extra = inc.EXTRA_MEASURES if args.with_infap else ("bpref(judged_only=True)",)
        icfg = inc.IncompletenessConfig(methods=("judged",), fractions=FRACTIONS, trials=args.trials, jobs=args.jobs,
                                        extra=extra)
        cfg = MetaConfig(B=args.B, seed=1, incompleteness=icfg)
        inc.stage_incompleteness(c, ["AP"], MetaConfig(B=100, incompleteness=inc.IncompletenessConfig(
            fractions=(0.5,), trials=1)), gains=gains)                                  # warm-up
        import resource

        def cpu_now():
            ch = resource.getrusage(resource.RUSAGE_CHILDREN)
            return time.process_time() + ch.ru_utime + ch.ru_stime

        t0, c0 = time.perf_counter(), cpu_now()
        res = inc.stage_incompleteness(c, MEASURES, cfg, gains=gains)
        wall, cpu = time.perf_counter() - t0, cpu_now() - c0
        n_trials = len(FRACTIONS) * args.trials
        measures = inc.measure_names(MEASURES, icfg)
        print(f"stage: {len(FRACTIONS)} fractions x {args.trials} trials x {len(measures)} measures "
              f"({len(MEASURES)} as given + condensed + {', '.join(extra)}) x {R} runs x {T} topics, paired bootstrap "
              f"B = {args.B}, {args.jobs} process(es): wall {wall:.1f} s, CPU {cpu:.1f} s in all processes "
              f"(on an otherwise idle 2-core machine: about {cpu / min(2, args.jobs):.1f} s wall); "
              f"{len(res['incompleteness_trials'])} trial rows")

        # the scoring alone: every reduced qrels by masking (trials of a level stacked)
        masks = {f: inc.level_masks(c, "judged", f, icfg, 1) for f in FRACTIONS}
        t0 = time.perf_counter()
        for f in FRACTIONS:
            inc.reduced_scores(c, masks[f], measures, gains)
        ours = time.perf_counter() - t0
        # the route it replaces: write the qrels, `metaeval matrices` from files (raw and --condensed)
        runs = str(tmp / "sim" / "runs")
        t0 = time.perf_counter()
        for k in range(args.baseline_trials):
            keep = masks[FRACTIONS[k % len(FRACTIONS)]][k // len(FRACTIONS)]
            q = tmp / f"q{k}.txt"
            q.write_text(format_qrels(*inc.reduced_judgments(c, keep), form=str(c.info.get("qrels_form"))))
            for extra in ([], ["--condensed"]):
                assert cli(["matrices", "--qrels", str(q), "--runs", runs, "--gains", "1:2:3", "--quiet",
                            "--metrics", *(MEASURES + (["bpref"] if extra else [])
                                           + (["trec.infAP"] if args.with_infap and not extra else [])),
                            "--out", str(tmp / f"m{k}{len(extra)}")] + extra) == 0
        per = (time.perf_counter() - t0) / args.baseline_trials
        print(f"scoring {n_trials} reduced qrels: masking {ours:.1f} s; `metaeval matrices` from files "
              f"{per:.2f} s per qrels (x2: raw and condensed) -> {per * n_trials:.1f} s for {n_trials}; "
              f"ratio {per * n_trials / ours:.1f}x")


if __name__ == "__main__":
    main()
