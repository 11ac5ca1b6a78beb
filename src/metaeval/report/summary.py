"""Cross-collection summary: one row per metric, one column per collection (``results/summary/``).

:func:`write_summary` reads each collection's ``tables/*.csv`` (the output contract) and writes,
into ``out_dir``, every summary table and figure declared in :mod:`metaeval.outputs` (scope
``"summary"``): the tables through :func:`metaeval.report.tables.write_table` (CSV/MD/TEX), the
figures as PNG/PDF.  Each summary output names the function that builds it
(:attr:`metaeval.stages.Output.build` of a table, ``draw`` of a figure: the ``build_*`` and
``draw_*`` functions below for the package's stages), found by :func:`summary_builder` and
:func:`summary_plotter`.  The set of files is always the same (a table no collection has
becomes a header-only CSV and a "no data" figure), so a workflow can declare them as outputs.
"""

from __future__ import annotations

from typing import Any

from pathlib import Path
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from .. import outputs as O
from . import summary_figures as F
from .csvio import read_table
from .tables import write_table

__all__ = ["write_summary", "summary_builder", "summary_plotter",
           "summary_outputs", "metric_table",
           "collection_table", "kendall_table", "rank_correlation_table", "discpower_table"]


def summary_outputs(out_dir) -> list[Path]:
    """Every file :func:`write_summary` writes into ``out_dir``."""
    out = Path(out_dir)
    return [out / f for f in O.files("summary")]


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
    cols: dict[str, Any] = {}
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
    cols: dict[str, Any] = {}
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


def rank_correlation_table(frames: Mapping[str, pd.DataFrame | None]) -> pd.DataFrame:
    """tau_AP-b and RBO^a of every metric pair (one row per pair and coefficient), one column per
    collection: :func:`metaeval.meta.rankcorr.summary_rank_correlation` on the per-collection
    ``rank_correlation`` tables (a collection without the table gets an empty column)."""
    from ..meta.rankcorr import summary_rank_correlation

    return summary_rank_correlation(frames)


def collection_table(frames: Mapping[str, pd.DataFrame | None]) -> pd.DataFrame:
    """Table 1 of Sakai (2007a) across collections: topics, mean R and R(L) per topic, runs used."""
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


def discpower_table(frames: Mapping[str, pd.DataFrame | None], order: list[str] | None = None) -> pd.DataFrame:
    """Discriminative power across collections: one row per metric and test (metrics in ``order``
    first, then first appearance; tests in the order of ``discriminative_power.csv``), one column
    per collection: 100 * significant / pairs."""
    keys: list[tuple[str, str]] = []
    cols: dict[str, Any] = {}
    for name, df in frames.items():
        cols[name] = {}
        if df is None:
            continue
        pct = _pct(df)
        for m, t, v in zip(df["metric"], df["test"], pct):
            keys.append((m, t))
            cols[name][(m, t)] = v
    keys = _unique(keys)
    rank = {m: i for i, m in enumerate(_unique(list(order or []) + [m for m, _ in keys]))}
    tests = _unique(t for _, t in keys)
    keys.sort(key=lambda k: (rank[k[0]], tests.index(k[1])))
    out = pd.DataFrame({"metric": pd.Series([m for m, _ in keys], dtype=object),
                        "test": pd.Series([t for _, t in keys], dtype=object)})
    for name, c in cols.items():
        out[name] = np.array([c.get(k, np.nan) for k in keys], dtype=float)
    return out


# ------------------------------------------------------------------ the package's summary tables
# each ``build_NAME(read)``, named by its Output (``build="metaeval.report.summary:build_NAME"``):
# ``read(table)`` gives ``{collection: DataFrame or None}`` of a per-collection table and
# ``read.order`` the metric order

def build_collection(read) -> pd.DataFrame:
    return collection_table(read("collection"))


def build_sensitivity_paired(read) -> pd.DataFrame:
    return metric_table(read("bootstrap_paired"), _pct, read.order)


def build_sensitivity_unpaired(read) -> pd.DataFrame:
    return metric_table(read("bootstrap_unpaired"), _pct, read.order)


def build_estimated_diff_paired(read) -> pd.DataFrame:
    return metric_table(read("bootstrap_paired"), lambda d: d["estimated_diff"], read.order)


def build_estimated_diff_unpaired(read) -> pd.DataFrame:
    return metric_table(read("bootstrap_unpaired"), lambda d: d["estimated_diff"], read.order)


def build_swap_diff_required(read) -> pd.DataFrame:
    return metric_table(read("swap"), lambda d: d["diff_required"], read.order)


def build_swap_relative(read) -> pd.DataFrame:
    return metric_table(read("swap"), _relative, read.order)


def build_swap_pct_satisfying(read) -> pd.DataFrame:
    return metric_table(read("swap"), lambda d: d["pct_satisfying"], read.order)


def build_kendall(read) -> pd.DataFrame:
    return kendall_table(read("kendall"))


def build_rank_correlation(read) -> pd.DataFrame:
    return rank_correlation_table(read("rank_correlation"))


def build_discriminative_power(read) -> pd.DataFrame:
    return discpower_table(read("discriminative_power"), read.order)


# ------------------------------------------------------------------ the package's summary figures
# each ``draw_NAME(tables, read, stem, cfg)``, named by its Output
# (``draw="metaeval.report.summary:draw_NAME"``): ``tables`` are the summary tables just built,
# ``cfg`` holds the caption parameters' values (alpha, swap_threshold:
# :data:`metaeval.outputs.CAPTION_PARAMS`) and metric

def _asl_frames(read) -> dict:
    return {name: df for name, df in read("asl").items() if df is not None}


def draw_sensitivity_paired(tables, read, stem, cfg) -> list[Path]:
    return F.plot_metric_by_collection(tables["sensitivity_paired"], stem, ylabel="% pairs with ASL < alpha",
                                       title="Paired bootstrap sensitivity")


def draw_sensitivity_unpaired(tables, read, stem, cfg) -> list[Path]:
    return F.plot_metric_by_collection(tables["sensitivity_unpaired"], stem, ylabel="% pairs with ASL < alpha",
                                       title="Unpaired bootstrap sensitivity")


def draw_swap_pct_satisfying(tables, read, stem, cfg) -> list[Path]:
    return F.plot_metric_by_collection(
        tables["swap_pct_satisfying"], stem, ylabel="% comparisons satisfying the difference",
        title=f"Swap method (swap rate <= {O.CAPTION_FORMATS['swap_threshold'](cfg['swap_threshold'])})")


def draw_asl_paired(tables, read, stem, cfg) -> list[Path]:
    return F.plot_asl_by_collection(_asl_frames(read), stem, test="paired", alpha=cfg["alpha"])


def draw_asl_unpaired(tables, read, stem, cfg) -> list[Path]:
    return F.plot_asl_by_collection(_asl_frames(read), stem, test="unpaired", alpha=cfg["alpha"])


def draw_run_means(tables, read, stem, cfg) -> list[Path]:
    return F.plot_run_means_by_collection({n: d for n, d in read("run_means").items() if d is not None}, stem,
                                          metric=cfg["metric"])


def draw_discriminative_power(tables, read, stem, cfg) -> list[Path]:
    return F.plot_discpower_by_collection(tables["discriminative_power"], stem, alpha=cfg["alpha"])


def _declared(name: str, kind: str) -> Callable:
    from ..meta import stages

    what = "builder (Output(..., build=...))" if kind == "table" else "plotter (Output(..., draw=...))"
    for s in stages.REGISTRY:
        for o in s.outputs:
            if o.scope == "summary" and o.kind == kind and o.name == name:
                ref = o.build if kind == "table" else o.draw
                if ref is None:
                    break
                return stages.resolve(ref)
    raise ValueError(f"summary {kind} {name!r}: no {what} declared by its stage")


def summary_builder(name: str) -> Callable:
    """The builder of summary table ``name``, ``build(read) -> DataFrame``: the one its stage
    declares (:attr:`metaeval.stages.Output.build`)."""
    return _declared(name, "table")


def summary_plotter(name: str) -> Callable:
    """The plotter of summary figure ``name``, ``draw(tables, read, path_stem, values) -> [paths]``:
    the one its stage declares (:attr:`metaeval.stages.Output.draw`)."""
    return _declared(name, "figure")


def write_summary(collection_dirs: Mapping[str, Path], out_dir, *, metric: str | None = None,
                  reproduction: bool = False, labels_file=None, **params: float) -> list[Path]:
    """Write the cross-collection tables and figures; return every path written.

    ``collection_dirs``: collection name -> ``results/C`` (or directly its ``tables/`` folder).
    ``params``: the caption parameters' configured values (``alpha``, ``swap_threshold``:
    captions, titles, dotted lines).
    ``metric`` selects the run-means figure's metric (default AP, else each collection's first).
    ``reproduction``: every collection reproduces the papers (the captions say "Regenerates").
    ``labels_file``: the labels (a file or a {NAME: LABEL} mapping, :mod:`metaeval.labels`) of the
    measures, shown in the Markdown, LaTeX and figures (the CSV keep the names).
    """
    out = Path(out_dir)
    tdirs = {name: _tables_dir(p) for name, p in collection_dirs.items()}
    cache: dict[str, dict] = {}

    def read(table: str) -> dict[str, pd.DataFrame | None]:
        if table not in cache:
            cache[table] = {name: _read(t, table) for name, t in tdirs.items()}
        return cache[table]

    setattr(read, "order", _unique(m for df in read("run_means").values() if df is not None  # noqa: B010
                                   for m in df["metric"]))                     # the builders read it
    tables = {o.name: summary_builder(o.name)(read) for o in O.tables("summary")}
    labels = _measure_labels(read.order, labels_file) if labels_file else {}       # type: ignore[attr-defined]
    written: list[Path] = []
    for o in O.tables("summary"):
        written += write_table(tables[o.name], out / o.name, kind=o.layout, context={"reproduction": reproduction},
                               labels=labels, label_scope="summary", **dict[str, Any](params))
    cfg = dict(O.caption_values(**params), metric=labels.get(metric, metric))
    if labels:                             # the figures name the measures by their labels
        from .figures import relabel_frame

        tables = {n: relabel_frame(df, labels) for n, df in tables.items()}
        raw = read
        shown = {}

        def read(table: str) -> dict[str, pd.DataFrame | None]:
            if table not in shown:
                shown[table] = {n: None if df is None else relabel_frame(df, labels) for n, df in raw(table).items()}
            return shown[table]
    for o in O.figures("summary"):
        written += summary_plotter(o.name)(tables, read, out / o.name, cfg)
    return written


def _measure_labels(metrics, labels_file) -> dict:
    """``{measure: label}`` of the measures of the run tables given a label in ``labels_file``
    (by any alias)."""
    from collections.abc import Mapping as _Mapping

    from ..labels import labels_for

    given = dict(labels_file) if isinstance(labels_file, _Mapping) else labels_file
    return labels_for([], [str(m) for m in metrics], given)
