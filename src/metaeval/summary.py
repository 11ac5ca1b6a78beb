"""Cross-collection summary: one row per metric, one column per collection (``results/summary/``).

:func:`write_summary` reads each collection's ``tables/*.csv`` (the output contract) and writes,
into ``out_dir``, the tables of :data:`SUMMARY_TABLES` (CSV/MD/TEX via
:func:`metaeval.tables.write_table`) and the figures of :data:`SUMMARY_FIGURES` (PNG/PDF).  The set
of files is always the same (a table no collection has becomes a header-only CSV and a "no data"
figure), so a workflow can declare them as outputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from metaeval import figures as F
from metaeval.tables import KINDS, read_table, write_table

__all__ = ["write_summary", "SUMMARY_TABLES", "SUMMARY_FIGURES", "SUMMARY_CAPTIONS",
           "summary_outputs", "metric_table", "collection_table", "kendall_table",
           "report_captions", "write_report_captions"]

#: summary table stem -> table kind (layout) in metaeval.tables.KINDS
SUMMARY_TABLES: dict[str, str] = {
    "collection": "summary_collection",
    "sensitivity_paired": "summary_sensitivity_paired",
    "sensitivity_unpaired": "summary_sensitivity_unpaired",
    "estimated_diff_paired": "summary_estimated_diff_paired",
    "estimated_diff_unpaired": "summary_estimated_diff_unpaired",
    "swap_diff_required": "summary_swap_diff_required",
    "swap_relative": "summary_swap_relative",
    "swap_pct_satisfying": "summary_swap_pct_satisfying",
    "kendall": "summary_kendall",
}

#: summary figure stem -> caption (which paper figure it regenerates)
SUMMARY_FIGURES: dict[str, str] = {
    "sensitivity_paired": "Paired bootstrap sensitivity (% of system pairs with ASL < alpha) per "
                          "metric across the collections. Regenerates paper 000 Fig. 10 / "
                          "paper 001 Fig. 14.",
    "sensitivity_unpaired": "Unpaired bootstrap sensitivity per metric across the collections. "
                            "Regenerates paper 001 Fig. 15.",
    "swap_pct_satisfying": "Swap method: % of comparisons satisfying the difference required for "
                           "a swap rate <= 5%, per metric across the collections. Regenerates "
                           "paper 000 Fig. 9 / paper 001 Fig. 20.",
    "asl_paired": "Paired test ASL curves, one panel per collection (paper 001 Figs 10 and 12 "
                  "for every collection).",
    "asl_unpaired": "Unpaired test ASL curves, one panel per collection (paper 001 Figs 11 and 13 "
                    "for every collection).",
    "run_means": "Distribution of the mean AP over the runs of every collection. Regenerates "
                 "paper 000 Fig. 8 / paper 001 Fig. 1.",
}

SUMMARY_CAPTIONS: dict[str, str] = {
    **{f"table_{stem}": KINDS[kind].caption + f". Regenerates {KINDS[kind].regenerates}."
       for stem, kind in SUMMARY_TABLES.items()},
    **{f"figure_{stem}": cap for stem, cap in SUMMARY_FIGURES.items()},
}


def summary_outputs(out_dir) -> list[Path]:
    """Every file :func:`write_summary` writes into ``out_dir``."""
    out = Path(out_dir)
    return ([out / f"{s}.{ext}" for s in SUMMARY_TABLES for ext in ("csv", "md", "tex")]
            + [out / f"{s}.{ext}" for s in SUMMARY_FIGURES for ext in ("png", "pdf")])


def _tables_dir(path) -> Path:
    path = Path(path)
    return path / "tables" if (path / "tables").is_dir() else path


def _read(tables: Path, name: str) -> pd.DataFrame | None:
    csv = tables / f"{name}.csv"
    if not csv.is_file():
        return None
    return read_table(csv)


def _unique(values) -> list:
    return list(dict.fromkeys(values))


def metric_table(frames: Mapping[str, pd.DataFrame | None], value: Callable[[pd.DataFrame], pd.Series],
                 order: list[str] | None = None) -> pd.DataFrame:
    """One row per metric (``order`` first, then first appearance), one column per collection."""
    metrics = list(order or [])
    cols = {}
    for name, df in frames.items():
        if df is None or "metric" not in df.columns:
            cols[name] = {}
            continue
        metrics += [m for m in df["metric"] if m not in metrics]
        cols[name] = dict(zip(df["metric"], value(df)))
    metrics = _unique(m for m in metrics if any(m in c for c in cols.values()))
    out = pd.DataFrame({"metric": pd.Series(metrics, dtype=object)})
    for name, c in cols.items():
        out[name] = np.array([c.get(m, np.nan) for m in metrics], dtype=float)
    return out


def kendall_table(frames: Mapping[str, pd.DataFrame | None]) -> pd.DataFrame:
    """One row per metric pair, one column per collection: Kendall's tau."""
    pairs: list[tuple[str, str]] = []
    cols = {}
    for name, df in frames.items():
        cols[name] = {}
        if df is None:
            continue
        for a, b, t in zip(df["metric_a"], df["metric_b"], df["tau"]):
            key = (a, b) if (b, a) not in pairs else (b, a)
            if key not in pairs:
                pairs.append(key)
            cols[name][key] = t
    out = pd.DataFrame({"metric_a": pd.Series([a for a, _ in pairs], dtype=object),
                        "metric_b": pd.Series([b for _, b in pairs], dtype=object)})
    for name, c in cols.items():
        out[name] = np.array([c.get(p, np.nan) for p in pairs], dtype=float)
    return out


def collection_table(frames: Mapping[str, pd.DataFrame | None]) -> pd.DataFrame:
    """Paper 000 Table 1 across collections: topics, mean R and R(L) per topic, runs used."""
    recs = []
    for name, df in frames.items():
        if df is None:
            continue
        if "topic" in df.columns:
            rec = {"collection": name, "topics": int(df["topic"].nunique())}
            for c in df.columns:
                if c == "R" or (c.startswith("R(") and c.endswith(")")):
                    rec[c] = float(pd.to_numeric(df[c]).mean())
            if "runs" in df.columns:
                runs = _unique(df["runs"].dropna())
                rec["runs"] = runs[0] if len(runs) == 1 else None
            recs.append(rec)
        else:
            for r in df.to_dict("records"):
                recs.append({"collection": name, **{k: v for k, v in r.items() if k != "collection"}})
    if not recs:
        return pd.DataFrame({"collection": pd.Series(dtype=object), "topics": pd.Series(dtype=float),
                             "R": pd.Series(dtype=float), "runs": pd.Series(dtype=float)})
    out = pd.DataFrame(recs)
    first = [c for c in ("collection", "topics", "R") if c in out.columns]
    levels = [c for c in out.columns if c.startswith("R(")]
    rest = [c for c in out.columns if c not in first and c not in levels]
    return out[first + levels + rest]


def _pct(df: pd.DataFrame) -> pd.Series:
    pairs = df["pairs"].astype(float)
    return 100.0 * df["significant"].astype(float) / pairs.where(pairs > 0)


def _relative(df: pd.DataFrame) -> pd.Series:
    """Column (ii)/(iii) in percent."""
    if "relative" in df.columns:
        return 100.0 * df["relative"].astype(float)
    return 100.0 * df["diff_required"].astype(float) / df["max_diff"].astype(float)


def write_summary(collection_dirs: Mapping[str, Path], out_dir, *, alpha: float = 0.05,
                  metric: str | None = None) -> list[Path]:
    """Write the cross-collection tables and figures; return every path written.

    ``collection_dirs``: collection name -> ``results/C`` (or directly its ``tables/`` folder).
    ``metric`` selects the run-means figure's metric (default AP, else each collection's first).
    """
    out = Path(out_dir)
    tdirs = {name: _tables_dir(p) for name, p in collection_dirs.items()}

    def each(table: str) -> dict[str, pd.DataFrame | None]:
        return {name: _read(t, table) for name, t in tdirs.items()}

    run_means = each("run_means")
    order = _unique(m for df in run_means.values() if df is not None for m in df["metric"])
    paired, unpaired, swap = each("bootstrap_paired"), each("bootstrap_unpaired"), each("swap")

    tables = {
        "collection": collection_table(each("collection")),
        "sensitivity_paired": metric_table(paired, _pct, order),
        "sensitivity_unpaired": metric_table(unpaired, _pct, order),
        "estimated_diff_paired": metric_table(paired, lambda d: d["estimated_diff"], order),
        "estimated_diff_unpaired": metric_table(unpaired, lambda d: d["estimated_diff"], order),
        "swap_diff_required": metric_table(swap, lambda d: d["diff_required"], order),
        "swap_relative": metric_table(swap, _relative, order),
        "swap_pct_satisfying": metric_table(swap, lambda d: d["pct_satisfying"], order),
        "kendall": kendall_table(each("kendall")),
    }
    written: list[Path] = []
    for stem, kind in SUMMARY_TABLES.items():
        written += write_table(tables[stem], out / stem, kind=kind)

    written += F.plot_metric_by_collection(
        tables["sensitivity_paired"], out / "sensitivity_paired",
        ylabel="% pairs with ASL < alpha", title="Paired bootstrap sensitivity")
    written += F.plot_metric_by_collection(
        tables["sensitivity_unpaired"], out / "sensitivity_unpaired",
        ylabel="% pairs with ASL < alpha", title="Unpaired bootstrap sensitivity")
    written += F.plot_metric_by_collection(
        tables["swap_pct_satisfying"], out / "swap_pct_satisfying",
        ylabel="% comparisons satisfying the difference", title="Swap method (swap rate <= 5%)")
    asl = {name: df for name, df in each("asl").items() if df is not None}
    written += F.plot_asl_by_collection(asl, out / "asl_paired", test="paired", alpha=alpha)
    written += F.plot_asl_by_collection(asl, out / "asl_unpaired", test="unpaired", alpha=alpha)
    written += F.plot_run_means_by_collection(
        {n: d for n, d in run_means.items() if d is not None}, out / "run_means", metric=metric)
    return written


def report_captions() -> dict[str, str]:
    """``workflow/report/NAME.rst`` -> caption text, for every table kind and figure.

    Per collection: ``table_KIND.rst`` and ``figure_STEM.rst``; cross-collection:
    ``summary_table_STEM.rst`` and ``summary_figure_STEM.rst``.
    """
    from metaeval.tables import CAPTIONS

    out = {}
    for kind, cap in CAPTIONS.items():
        if not kind.startswith("summary_"):
            out[f"table_{kind}.rst"] = cap
    for stem, cap in F.FIGURE_CAPTIONS.items():
        out[f"figure_{stem}.rst"] = cap
    for key, cap in SUMMARY_CAPTIONS.items():
        out[f"summary_{key}.rst"] = cap
    return {name: text + "\n" for name, text in out.items()}


def write_report_captions(report_dir) -> list[Path]:
    """(Re)write the caption files of :func:`report_captions` into ``report_dir``."""
    from metaeval.util import atomic_write

    paths = []
    for name, text in report_captions().items():
        path = Path(report_dir) / name
        with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        paths.append(path)
    return paths
