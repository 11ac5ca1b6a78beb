"""``metaeval standardise``: standardised copies of any tool's topic x run matrices; with
``--experiment``, the experiments of Urbano, Lima & Hanjalic (2019) on them instead
(:mod:`metaeval.cli.standardisation`).

For every ``DIR/METRIC.csv`` and every method X of ``--std`` writes ``OUT/NAME.csv``, NAME the
canonical name of METRIC with ``std=X`` (one name per measure, parameters before the cutoff:
``AP(std=z).csv``, ``trec.ndcg_cut(std=z)@10.csv``; a name that is no registry measure gets
``(std=X)`` appended), in the same layout (first column ``topic``, one column per run, unrounded values), and
``OUT/std_factors.csv`` (``metric, topic, mu, sigma, support``).  Every file is computed before
any is written; each is written atomically, so rejected input writes nothing.  ``OUT`` may be
``DIR`` (the standardised matrices join the raw ones).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._std_options import add_std_args, matrix_text, raw_matrices, std_methods, std_settings
from .standardisation import DESCRIPTION, add_experiment_args, add_std_arg, experiment_options
from .standardisation import run as run_experiment


from ._figure_options import add_figure_args

def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "standardise", help="standardised copies of topic x run matrices (z, N, U, E); --experiment: how "
                            "standardisation changes rankings and significance (Urbano et al. 2019)",
        description="Standardise every topic of every DIR/METRIC.csv by the standardising runs' scores on it "
                    "(z: Webber et al. 2008; N: normal CDF of z; U: Sakai 2016's std-AB; E: empirical CDF, "
                    "Urbano et al. 2019) and write OUT/NAME.csv, NAME the canonical name of METRIC with std=X "
                    "(parameters before the cutoff: AP(std=z).csv, trec.ndcg_cut(std=z)@10.csv), and "
                    "OUT/std_factors.csv. With --experiment: " + DESCRIPTION)
    p.add_argument("--matrices", required=True, metavar="DIR", help="folder of METRIC.csv matrices")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (may be DIR)")
    add_std_arg(p)
    p.add_argument("--metrics", nargs="+", metavar="M", default=None,
                   help="the matrices to standardise (default: every matrix without std= in DIR)")
    add_std_args(p)
    p.add_argument("--experiment", action="store_true",
                   help="run the experiments of Urbano et al. (2019) on the matrices instead of writing "
                        "standardised copies (docs/meta.md, 'Score standardisation')")
    add_experiment_args(p)
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(func=run, out_kind="folder", _parser=p, out_accumulates=_matrices_mode)
    add_figure_args(p)
    return p


def _matrices_mode(args) -> bool:
    """Standardised matrices accumulate in their folder, one per measure and method, run by run (the
    experiments' tables do not: a rerun removes the ones it no longer writes)."""
    return not getattr(args, "experiment", False)


def run(args) -> int:
    import numpy as np

    from ..errors import InputError
    from ..meta.matrices import load_matrices
    from ..metrics.standardise import standardise_matrix, with_std, without_std, write_factors
    from ..util import atomic_dir_outputs, atomic_write

    parser = args._parser
    if args.experiment:
        if args.std_runs or args.std_factors or args.leave_one_out:
            parser.error("--std-runs, --std-factors and --leave-one-out make standardised copies; "
                         "--experiment standardises by every run")
        return run_experiment(args)
    given = [o for o in experiment_options() if getattr(args, o) is not None]
    if given:
        parser.error(f"--{given[0].replace('_', '-')} is an option of --experiment")
    methods = std_methods(parser, args)
    settings = std_settings(parser, args)
    mats = load_matrices(args.matrices, raw_matrices(args))
    files: dict[str, str] = {}
    factors = {}
    for name, df in mats.items():
        key, done = without_std(name)
        if done is not None:
            raise InputError(f"{name} is standardised already", Path(args.matrices) / f"{name}.csv")
        topics, runs = [str(t) for t in df.index], [str(r) for r in df.columns]
        x = df.to_numpy(dtype=np.float64).T                                  # (runs, topics)
        for method in methods:
            try:
                vals, f = standardise_matrix(x, topics, runs, method, settings, key=key,
                                             where=str(Path(args.matrices) / f"{name}.csv"))
            except ValueError as e:
                raise InputError(str(e), settings.source or Path(args.matrices) / f"{name}.csv") from None
            files[with_std(name, method)] = matrix_text(topics, runs, vals.T)
            factors[key] = f
    out = Path(args.out)
    paths = [out / f"{n}.csv" for n in files] + [out / "std_factors.csv"]
    with atomic_dir_outputs(paths):
        for n, text in files.items():
            with atomic_write(out / f"{n}.csv", newline="", encoding="utf-8") as fh:
                fh.write(text)
        write_factors(factors, out / "std_factors.csv")
    if not args.quiet:
        print(f"metaeval: {len(files)} standardised matrices ({', '.join(methods)}) -> {args.out_shown}", file=sys.stderr)
    return 0
