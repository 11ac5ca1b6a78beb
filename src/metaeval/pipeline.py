"""File-in/file-out stages of the Snakemake pipeline (``workflow/scripts/*.py`` call these).

Each function reads the topic x run matrices (``results/C/matrices/METRIC.csv``) restricted to the
runs in use (``results/C/runs_used.csv``), calls one stage of :mod:`metaeval.meta.run` and writes
its contract-shaped part CSVs (``results/C/parts/...``) atomically; :func:`write_tables`
concatenates the parts (:func:`metaeval.meta.run.combine`) into ``results/C/tables/`` through
:func:`metaeval.tables.write_table`.  The per-metric stages derive their bootstrap samples from
``(seed, topics, B)`` alone, exactly as ``metaeval meta`` does, so jobs on different nodes agree
with each other and with a single ``metaeval meta`` run.

Metric names follow :func:`metaeval.meta.run.resolve_metric`: ``AG_X`` is the paired test on
``log(X + 0.00001)`` and ``G_X`` the geometric mean (paper 001 Sec. 5.1); both read ``X.csv``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from .util import atomic_write

__all__ = ["matrix_name", "read_runs", "write_csv", "meta_config", "select_runs",
           "kendall_part", "paired_part", "unpaired_part", "swap_part", "stability_part",
           "sweep_part", "write_tables"]


def matrix_name(metric: str) -> str:
    """The matrix a (possibly ``AG_``/``G_``-prefixed) metric name reads."""
    for prefix in ("AG_", "G_"):
        if metric.startswith(prefix):
            return metric[len(prefix):]
    return metric


# --------------------------------------------------------------------------- I/O
def read_runs(path: str | os.PathLike) -> list[str]:
    """The runs in use (``runs_used.csv``: ``run, mean``), in the order every stage uses them."""
    return [str(r) for r in pd.read_csv(path, dtype={"run": str})["run"]]


def _matrices(paths: Mapping[str, str], runs_path) -> dict[str, pd.DataFrame]:
    """``{matrix name: DataFrame}`` restricted to the runs in use (validated by metaeval.meta)."""
    from .meta.matrices import read_matrix

    runs = read_runs(runs_path)
    out = {}
    for name, p in paths.items():
        df = read_matrix(p)
        missing = [r for r in runs if r not in df.columns]
        if missing:
            raise ValueError(f"{p}: runs missing from the matrix: {', '.join(missing[:5])}")
        out[name] = df[runs]
    return out


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Deterministic CSV (floats as shortest repr, ``\\n`` line ends), written atomically."""
    from .tables import csv_text

    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(csv_text(df))
    return Path(path)


def _write_parts(frames: Mapping[str, pd.DataFrame], outs: Mapping[str, str]) -> None:
    for name, path in outs.items():
        write_csv(frames[name], path)


def meta_config(**kw):
    """A :class:`metaeval.meta.run.MetaConfig` from the pipeline's config values (None = default)."""
    from .meta.run import MetaConfig

    kw = {k: (tuple(v) if isinstance(v, list) else v) for k, v in kw.items() if v is not None}
    return MetaConfig(**kw)


# --------------------------------------------------------------------------- stages
def select_runs(matrix_path, out_path, top_runs: int | None, select_by: str = "AP") -> list[str]:
    """The runs meta-evaluated: the top ``top_runs`` by mean of the ``select_by`` matrix (the
    papers: 30 by relaxed AP; ties by run name), or every run for ``None``.  Writes ``run, mean``
    in the order ``metaeval meta`` uses (:func:`metaeval.meta.run.select_runs`), so that system
    pairs -- and hence every table -- come out identical to a single ``metaeval meta`` run."""
    from .meta.matrices import read_matrix
    from .meta.run import select_runs as meta_select

    df = read_matrix(matrix_path)
    cfg = meta_config(top_runs=None if top_runs is None else int(top_runs), select_by=select_by)
    used = [str(r) for r in meta_select({select_by: df}, cfg)]
    means = df[used].mean(axis=0)
    write_csv(pd.DataFrame({"run": used, "mean": means.to_numpy(dtype=float)}), out_path)
    return used


def kendall_part(matrix_paths: Mapping[str, str], runs_path, out_path, **cfg) -> None:
    """Kendall's tau, Z0 and p-value of every two metrics (paper 000 Table 2, 001 Table 5)."""
    from .meta.run import stage_kendall

    mats = _matrices(matrix_paths, runs_path)
    _write_parts(stage_kendall(mats, meta_config(**cfg), list(mats)), {"kendall": out_path})


def paired_part(matrix_path, runs_path, metric: str, *, out_paired, out_asl, out_tstar, **cfg) -> None:
    """Paired bootstrap test of one metric: sensitivity row (paper 000 Table 4, 001 Table 2),
    every pair's ASL, and the t* of the pair whose ASL is closest to alpha (001 Figs 4-5)."""
    from .meta.run import stage_paired

    mats = _matrices({matrix_name(metric): matrix_path}, runs_path)
    _write_parts(stage_paired(mats, metric, meta_config(**cfg)),
                 {"bootstrap_paired": out_paired, "asl": out_asl, "tstar": out_tstar})


def unpaired_part(matrix_path, runs_path, metric: str, *, out_unpaired, out_asl, **cfg) -> None:
    """Unpaired bootstrap test of one metric (paper 001 Table 3) and every pair's ASL."""
    from .meta.run import stage_unpaired

    mats = _matrices({matrix_name(metric): matrix_path}, runs_path)
    _write_parts(stage_unpaired(mats, metric, meta_config(**cfg)),
                 {"bootstrap_unpaired": out_unpaired, "asl": out_asl})


def swap_part(matrix_path, runs_path, metric: str, *, out_swap, out_rates, **cfg) -> None:
    """Swap method of one metric (paper 000 Table 3, 001 Table 4) and its swap rate per bin."""
    from .meta.run import stage_swap

    mats = _matrices({matrix_name(metric): matrix_path}, runs_path)
    _write_parts(stage_swap(mats, metric, meta_config(**cfg)),
                 {"swap": out_swap, "swap_rates": out_rates})


def stability_part(matrix_path, runs_path, metric: str, *, out_path, **cfg) -> None:
    """Stability method of one metric: MR and PT per fuzziness (paper 001 Figs 17-18)."""
    from .meta.run import stage_stability

    mats = _matrices({matrix_name(metric): matrix_path}, runs_path)
    _write_parts(stage_stability(mats, metric, meta_config(**cfg)), {"stability": out_path})


def sweep_part(matrix_paths: Mapping[str, str], runs_path, *, out_kendall, out_bootstrap,
               **cfg) -> None:
    """Gain-value sweep (paper 000 Tables 5-6)."""
    from .meta.run import stage_gain_sweep

    mats = _matrices(matrix_paths, runs_path)
    _write_parts(stage_gain_sweep(mats, meta_config(**cfg)),
                 {"gain_kendall": out_kendall, "gain_bootstrap": out_bootstrap})


def write_tables(*, cache, runs_path, matrix_paths: Mapping[str, str], mean_metrics: Sequence[str],
                 parts: Mapping[str, Sequence], out_dir, tables: Sequence[str], **cfg) -> list[Path]:
    """Combine the parts, add the collection-level tables (Table 1, Tables 7-9, run means) and
    write every table in ``tables`` as CSV + Markdown + LaTeX."""
    from .collection import Collection
    from .meta.run import combine, stage_collection, stage_run_means
    from .tables import read_table, write_table

    runs = read_runs(runs_path)
    mats = _matrices(matrix_paths, runs_path)
    pieces: list[dict] = []
    if "collection" in tables or "preferred_rank" in tables:
        pieces.append(stage_collection(Collection.load(cache), runs))
    pieces.append(stage_run_means(mats, meta_config(**cfg), list(mean_metrics)))
    for name, paths in parts.items():
        for p in paths:
            pieces.append({name: read_table(p)})
    frames = combine(pieces)
    out_dir = Path(out_dir)
    written: list[Path] = []
    for t in tables:
        if t not in frames:
            raise ValueError(f"table {t!r}: no part produced it")
        written += write_table(frames[t], out_dir / t, kind=t)
    return written
