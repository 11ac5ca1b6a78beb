"""File-in/file-out stages of the Snakemake pipeline (``workflow/scripts/*.py`` call these).

Each function reads the topic x run matrices (``results/C/matrices/METRIC.csv``) restricted to the
runs in use (``results/C/runs_used.csv``), calls one :mod:`metaeval.meta` method and writes one
contract-shaped part CSV (``results/C/parts/...``) atomically; :func:`write_tables` concatenates the
parts into ``results/C/tables/`` through :func:`metaeval.tables.write_table`.  Per-metric stages use
bootstrap samples derived from ``(seed, topics, B)`` alone, so jobs on different nodes agree.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .util import atomic_write

__all__ = ["read_matrix", "write_csv", "select_runs", "kendall_part", "bootstrap_parts",
           "swap_parts", "stability_part", "sweep_parts", "write_tables", "run_means"]


# --------------------------------------------------------------------------- I/O
def read_matrix(path: str | os.PathLike, runs: Sequence[str] | None = None) -> pd.DataFrame:
    """A ``matrices/METRIC.csv`` as a DataFrame (index = topic, columns = runs), optionally only
    ``runs`` (in that order)."""
    df = pd.read_csv(path, dtype={"topic": str}, keep_default_na=False, na_values=[""])
    if "topic" not in df.columns:
        raise ValueError(f"{path}: first column must be 'topic'")
    df = df.set_index("topic")
    df.columns = [str(c) for c in df.columns]
    if runs is not None:
        missing = [r for r in runs if r not in df.columns]
        if missing:
            raise ValueError(f"{path}: runs missing from the matrix: {', '.join(missing)}")
        df = df[list(runs)]
    return df


def read_runs(path: str | os.PathLike) -> list[str]:
    """The runs in use (``runs_used.csv``: ``run, mean``), in the matrices' column order."""
    return [str(r) for r in pd.read_csv(path, dtype={"run": str})["run"]]


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Deterministic CSV (floats as shortest repr, ``\\n`` line ends), written atomically."""
    from .tables import csv_text

    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(csv_text(df))
    return Path(path)


def read_part(path: str | os.PathLike) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""],
                       dtype={"metric": str, "metric_a": str, "metric_b": str, "run": str,
                              "system_x": str, "system_y": str, "test": str, "topic": str})


def _concat(paths: Iterable) -> pd.DataFrame:
    frames = [read_part(p) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# --------------------------------------------------------------------------- stages
def select_runs(matrix_path, out_path, top_runs: int | None) -> list[str]:
    """Keep the top ``top_runs`` runs by mean of the matrix's metric (the papers: 30 by relaxed AP;
    ties by run name); ``None`` keeps every run.  Writes ``run, mean`` in the matrix's column order."""
    df = read_matrix(matrix_path)
    means = df.mean(axis=0)
    ranked = sorted(means.index, key=lambda r: (-float(means[r]), r))
    keep = set(ranked if top_runs is None else ranked[:int(top_runs)])
    used = [r for r in df.columns if r in keep]
    write_csv(pd.DataFrame({"run": used, "mean": [float(means[r]) for r in used]}), out_path)
    return used


def kendall_part(matrix_paths: Mapping[str, str], runs_path, out_path) -> pd.DataFrame:
    """Kendall's tau, Z0 and p-value for every two metrics (paper 000 Table 2)."""
    from .meta.kendall import rank_correlations

    runs = read_runs(runs_path)
    mats = {m: read_matrix(p, runs) for m, p in matrix_paths.items()}
    df = rank_correlations(mats, list(mats)) if len(mats) >= 2 else pd.DataFrame(
        columns=["metric_a", "metric_b", "tau", "z0", "p_value"])
    write_csv(df, out_path)
    return df


def _pair_rows(res, metric: str, test: str) -> pd.DataFrame:
    return pd.DataFrame({"metric": metric, "test": test, "system_x": res.system_x,
                         "system_y": res.system_y, "asl": np.asarray(res.asl, dtype=float)})


def _sens_row(res, metric: str) -> pd.DataFrame:
    return pd.DataFrame({"metric": [metric], "pairs": [int(res.n_pairs)],
                         "significant": [int(res.significant)],
                         "sensitivity": [float(res.sensitivity)],
                         "estimated_diff": [float(res.estimated_diff)]})


def bootstrap_parts(matrix_path, runs_path, metric: str, *, B: int, alpha: float, seed: int,
                    out_paired, out_unpaired, out_asl, out_tstar) -> None:
    """Paired and unpaired bootstrap sensitivity of one metric (paper 000 Table 4, 001 Tables 2-3),
    every pair's ASL, and the t* replicates of the pair whose paired ASL is closest to alpha."""
    from .meta.bootstrap import paired_bootstrap, paired_tstar, unpaired_bootstrap

    runs = read_runs(runs_path)
    x = read_matrix(matrix_path, runs)
    pr = paired_bootstrap(x, B=B, seed=seed, alpha=alpha, metric=metric)
    ur = unpaired_bootstrap(x, B=B, seed=seed, alpha=alpha, metric=metric)
    write_csv(_sens_row(pr, metric), out_paired)
    write_csv(_sens_row(ur, metric), out_unpaired)
    write_csv(pd.concat([_pair_rows(pr, metric, "paired"), _pair_rows(ur, metric, "unpaired")],
                        ignore_index=True), out_asl)
    # the chosen pair: paired ASL closest to alpha, ties by pair order (stable argmin)
    k = int(np.argmin(np.abs(np.asarray(pr.asl, dtype=float) - alpha)))
    i, j = int(pr.pair_x[k]), int(pr.pair_y[k])
    t_obs, tstar = paired_tstar(x, (i, j), B=B, seed=seed, metric=metric)
    write_csv(pd.DataFrame({"metric": metric, "system_x": runs[i], "system_y": runs[j],
                            "t_observed": float(t_obs), "t_star": np.asarray(tstar, dtype=float)}),
              out_tstar)


def swap_parts(matrix_path, runs_path, metric: str, *, B: int, seed: int, threshold: float,
               out_swap, out_rates) -> None:
    """Swap method of one metric (paper 000 Table 3, 001 Table 4) and its swap rate per bin."""
    from .meta.swap import swap_method

    runs = read_runs(runs_path)
    x = read_matrix(matrix_path, runs)
    r = swap_method(x, B=B, seed=seed, threshold=threshold, metric=metric)
    write_csv(pd.DataFrame({"metric": [metric], "diff_required": [float(r.diff_required)],
                            "max_diff": [float(r.max_value)], "relative": [float(r.relative)],
                            "pct_satisfying": [float(r.pct_satisfying)]}), out_swap)
    write_csv(pd.DataFrame({"metric": metric, "bin": np.asarray(r.edges, dtype=float),
                            "comparisons": np.asarray(r.counts, dtype=np.int64),
                            "swaps": np.asarray(r.swaps, dtype=np.int64),
                            "swap_rate": np.asarray(r.swap_rate, dtype=float)}), out_rates)


def stability_part(matrix_path, runs_path, metric: str, *, B: int, seed: int, fuzziness,
                   out_path) -> None:
    """Stability method of one metric: MR and PT per fuzziness (paper 001 Figs 17-18)."""
    from .meta.stability import stability_method

    runs = read_runs(runs_path)
    x = read_matrix(matrix_path, runs)
    r = stability_method(x, B=B, seed=seed, fuzziness=fuzziness, metric=metric)
    write_csv(pd.DataFrame({"metric": metric, "f": np.asarray(r.fuzziness, dtype=float),
                            "minority_rate": np.asarray(r.minority_rate, dtype=float),
                            "proportion_ties": np.asarray(r.proportion_ties, dtype=float)}),
              out_path)


def sweep_parts(matrix_paths: Mapping[str, str], runs_path, metrics: Sequence[str],
                variants: Sequence[str], names: Sequence[str], default_gains: str, *, B: int,
                alpha: float, seed: int, out_kendall, out_bootstrap) -> None:
    """Gain-value sweep (paper 000 Tables 5-6): tau of each variant against the default gains, and
    the paired bootstrap sensitivity of the default and every variant."""
    from .meta.bootstrap import paired_bootstrap
    from .meta.kendall import kendall_tau

    runs = read_runs(runs_path)
    krows, brows = [], []
    it = iter(names)
    for m in metrics:
        base = read_matrix(matrix_paths[m], runs)
        pr = paired_bootstrap(base, B=B, seed=seed, alpha=alpha, metric=m)
        brows.append({"metric": m, "gains": default_gains, "default": True,
                      **_sens_row(pr, m).iloc[0].drop("metric").to_dict()})
        for g in variants:
            name = next(it)
            var = read_matrix(matrix_paths[name], runs)
            kt = kendall_tau(base.mean(axis=0).to_numpy(), var.mean(axis=0).to_numpy())
            krows.append({"metric": m, "gains": g, "tau": float(kt.tau), "z0": float(kt.z0),
                          "p_value": float(kt.p_value)})
            pv = paired_bootstrap(var, B=B, seed=seed, alpha=alpha, metric=name)
            brows.append({"metric": name, "gains": g, "default": False,
                          **_sens_row(pv, name).iloc[0].drop("metric").to_dict()})
    bdf = pd.DataFrame(brows)[["metric", "pairs", "significant", "sensitivity", "estimated_diff",
                               "gains", "default"]]
    for c in ("pairs", "significant"):
        bdf[c] = bdf[c].astype(np.int64)
    write_csv(pd.DataFrame(krows, columns=["metric", "gains", "tau", "z0", "p_value"]), out_kendall)
    write_csv(bdf, out_bootstrap)


def run_means(matrix_paths: Mapping[str, str], runs: Sequence[str]) -> pd.DataFrame:
    """``metric, run, mean``: arithmetic mean over topics (paper 000 Fig. 8 / 001 Fig. 1 data)."""
    rows = []
    for m, p in matrix_paths.items():
        means = read_matrix(p, runs).mean(axis=0)
        rows.append(pd.DataFrame({"metric": m, "run": list(runs),
                                  "mean": means.to_numpy(dtype=float)}))
    return pd.concat(rows, ignore_index=True)


def write_tables(*, cache, runs_path, matrix_paths: Mapping[str, str], parts: Mapping[str, list],
                 out_dir, tables: Sequence[str]) -> list[Path]:
    """Concatenate the per-metric parts and write every contract table (CSV + MD + TeX)."""
    from .tables import write_table

    out_dir = Path(out_dir)
    runs = read_runs(runs_path)
    frames: dict[str, pd.DataFrame] = {}
    for name, paths in parts.items():
        frames[name] = _concat(paths)
    frames["run_means"] = run_means(matrix_paths, runs)
    if "collection" in tables or "preferred_rank" in tables:
        from .collection import Collection

        coll = Collection.load(cache).select_runs(runs)
        if "collection" in tables:
            frames["collection"] = _collection_table(coll)
        if "preferred_rank" in tables:
            frames["preferred_rank"] = _preferred_rank_table(coll)
    written: list[Path] = []
    for t in tables:
        written += write_table(frames[t], out_dir / t, kind=t)
    return written


def _collection_table(coll) -> pd.DataFrame:
    try:
        from .meta.collection_stats import collection_table
    except ImportError:
        collection_table = None
    if collection_table is not None:
        return collection_table(coll)
    # fallback until metaeval.meta.collection_stats exists: one row per topic
    counts = np.asarray(coll.level_counts)
    df = pd.DataFrame({"topic": list(coll.topics), "R": counts[:, 1:].sum(axis=1)})
    for lvl in range(counts.shape[1] - 1, 0, -1):
        df[f"R(L{lvl})"] = counts[:, lvl]
    df["runs"] = len(coll.runs)
    return df


def _preferred_rank_table(coll) -> pd.DataFrame:
    from .meta.preferred import preferred_rank_table

    return preferred_rank_table(coll)
