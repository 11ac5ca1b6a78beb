"""``metaeval meta``: meta-evaluate metrics from per-topic score matrices (any tool's output)."""

from __future__ import annotations

import argparse


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "meta",
        help="Kendall's tau, bootstrap sensitivity, swap and stability methods from topic x run matrices",
        description="Read MATRICES/METRIC.csv (first column 'topic', one column per run; as written by "
                    "'metaeval matrices' or exported from any other tool) and write the meta-evaluation "
                    "tables (CSV, Markdown, LaTeX) into OUT/tables/ and the figures into OUT/figures/. "
                    "Methods and decisions: docs/meta.md.",
    )
    p.add_argument("--matrices", required=True, metavar="DIR", help="folder of METRIC.csv matrices")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (tables/, figures/)")
    p.add_argument("--B", type=int, default=1000, help="bootstrap samples (default 1000)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed; every sample set derives from (seed, number of topics, B) (default 0)")
    p.add_argument("--top-runs", type=int, metavar="K",
                   help="keep the top K runs by the mean of --select-by (the papers: 30)")
    p.add_argument("--select-by", default="AP", metavar="METRIC",
                   help="matrix whose mean ranks the runs for --top-runs (default AP, relaxed AP)")
    p.add_argument("--metrics", nargs="+", metavar="M",
                   help="metrics to meta-evaluate (default: every matrix except gain-sweep variants); "
                        "AG_M = paired test on log(M + 0.00001), G_M = geometric mean")
    p.add_argument("--geometric", nargs="+", default=[], metavar="M",
                   help="also evaluate AG_M (paired) and G_M (unpaired, swap, stability) for these")
    p.add_argument("--swap-threshold", type=float, default=0.05, help="largest swap rate (default 0.05)")
    p.add_argument("--swap-max", choices=["performance", "difference"], default="performance",
                   help="column (iii) of the swap table: maximum performance (default) or maximum |D|")
    p.add_argument("--swap-rule", choices=["monotone", "first"], default="monotone",
                   help="read the required difference as the bin from which all swap rates are within "
                        "the threshold (monotone, default) or the first such bin")
    p.add_argument("--fuzziness", nargs="+", type=float, metavar="F",
                   help="fuzziness values of the stability method (default 0.01 ... 0.20)")
    p.add_argument("--kendall", choices=["a", "b"], default="a",
                   help="Kendall's tau-a (paper 000 Eq. 8, default) or tau-b")
    p.add_argument("--sweep-metrics", nargs="*", metavar="M",
                   help="gain-sweep metrics (default P-plus P-measure O-measure; run when every "
                        "variant matrix is present)")
    p.add_argument("--sweep-gains", nargs="+", metavar="G",
                   help="gain variants in measure syntax, L1 first (default: the paper's 30:20:10, "
                        "0.3:0.2:0.1, 1:1:1, 10:5:1 as 10:20:30 0.1:0.2:0.3 1:1:1 1:5:10)")
    p.add_argument("--default-gains", metavar="G", help="label of the default-gain row (e.g. 1:2:3)")
    p.add_argument("--collection", metavar="CACHE.npz",
                   help="collection cache (metaeval ingest) for collection.csv and preferred_rank.csv")
    p.add_argument("--batch", type=int, help="bootstrap samples per batch (memory bound)")
    p.add_argument("--no-figures", action="store_true", help="do not draw figures")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=run)
    return p


def run(args) -> int:

    from ..errors import InputError
    from ..meta.matrices import load_matrices
    from ..meta.run import MetaConfig, run_meta, stderr_progress, write_tables
    from ..meta.stability import DEFAULT_FUZZINESS
    from ..meta.sweep import DEFAULT_SWEEP_METRICS

    try:
        cfg = MetaConfig(
            B=args.B, alpha=args.alpha, seed=args.seed, top_runs=args.top_runs, select_by=args.select_by,
            swap_threshold=args.swap_threshold, swap_max_rule=args.swap_max, swap_required_rule=args.swap_rule,
            fuzziness=tuple(args.fuzziness) if args.fuzziness else DEFAULT_FUZZINESS,
            kendall_variant=args.kendall, geometric=tuple(args.geometric), batch=args.batch,
            sweep_metrics=tuple(args.sweep_metrics) if args.sweep_metrics is not None else DEFAULT_SWEEP_METRICS,
            sweep_gains=tuple(args.sweep_gains) if args.sweep_gains else None,
            default_gains=args.default_gains)
    except ValueError as e:
        raise InputError(str(e)) from None
    mats = load_matrices(args.matrices)
    collection = None
    if args.collection:
        from ..collection import Collection

        try:
            collection = Collection.load(args.collection)
        except (OSError, ValueError, KeyError) as e:
            raise InputError(f"cannot load the collection cache: {e}", args.collection) from None
    progress = None if args.quiet else stderr_progress
    try:
        tables = run_meta(mats, cfg, metrics=args.metrics, collection=collection, progress=progress)
    except ValueError as e:
        if isinstance(e, InputError):
            raise
        raise InputError(str(e), args.matrices) from None
    from ..util import replace_dir

    with replace_dir(args.out) as out:          # swapped in as a whole: never a mix of old and new
        write_tables(tables, out / "tables")
        if not args.no_figures:
            from ..figures import make_all_figures

            if progress:
                progress("figures", "")
            make_all_figures(out / "tables", out / "figures", alpha=cfg.alpha)
    return 0
