"""Laying out what the stage ``reproducibility`` computes (Breuer et al. 2020;
:mod:`metaeval.meta.reproducibility`): the Markdown and LaTeX of ``tables/{reproducibility,effects,
reproducibility_topics}`` (:func:`stage_texts`, the stage's ``table_texts``) and the plotters of
the figures ``figures/reproducibility_effects.{png,pdf}`` (Effect Ratio against Delta RI, one point
per reproduction, one panel per measure) and ``figures/reproducibility_rmse.{png,pdf}`` (RMSE
against the measure's cutoff), drawn from the tables; the files are written by the generic writer
of an own job (:func:`metaeval.pipeline.write_own_outputs`, all or nothing)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

__all__ = ["stage_texts", "plot_reproducibility_effects", "plot_reproducibility_rmse", "captions"]


def captions() -> dict[str, str]:
    """The declared captions (:mod:`metaeval.meta.stages.reproducibility`) by output name."""
    from .. import outputs

    return {o.name: o.caption for o in outputs.outputs("reproducibility")}


def plot_reproducibility_effects(effects: pd.DataFrame, path_stem: str | Path) -> list[Path]:
    """ER (x) against Delta RI (y), one point per reproduction, one panel per measure; the dashed
    lines ER = 1 and Delta RI = 0 cross at a perfect reproduction (Breuer et al. 2020, Figure 3)."""
    from .figure_layout import _legend, _no_data, _rc, _style, _unique, new_figure, save_figure

    with _rc():
        metrics = _unique(effects["metric"]) if len(effects) else []
        cols = min(3, max(1, len(metrics)))
        rows = max(1, -(-len(metrics) // cols))
        fig = new_figure(4.2 * cols, 3.8 * rows)
        if not metrics:
            _no_data(fig.add_subplot(), "reproducibility")
            return save_figure(fig, path_stem)
        axes = fig.subplots(rows, cols, squeeze=False).ravel()
        reps = _unique(effects["reproduction"])
        for i, m in enumerate(metrics):
            ax, g = axes[i], effects[effects["metric"] == m]
            for k, r in enumerate(reps):
                h = g[g["reproduction"] == r]
                ax.plot(h["er"].to_numpy(float), h["dri"].to_numpy(float), linestyle="none", label=str(r),
                        **{kk: v for kk, v in _style(k, n=len(reps)).items() if kk != "linestyle"})
            ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
            ax.axhline(0.0, color="grey", linestyle="--", linewidth=1)
            ax.set_title(str(m), fontsize=10)
            ax.set_xlabel("Effect Ratio (ER)")
            ax.set_ylabel("Delta RI")
            ax.grid(True, alpha=0.3)
        for ax in axes[len(metrics):]:
            ax.set_visible(False)
        _legend(axes[min(len(metrics), len(axes)) - 1], len(reps))
        fig.tight_layout()
        return save_figure(fig, path_stem)


def _cutoff(metric: str) -> tuple[str, float] | None:
    """``(family, cutoff)`` of a measure with a cutoff (``P@10`` -> ``("P", 10)``), else None."""
    from ..metrics.registry import parse_measure

    try:
        m = parse_measure(metric, "ir_measures")
    except ValueError:
        return None
    if m.cutoff is None:
        return None
    name = str(metric)
    return name[:name.index("@")] if "@" in name else m.base, float(m.cutoff)


def plot_reproducibility_rmse(table: pd.DataFrame, path_stem: str | Path) -> list[Path]:
    """RMSE against the cutoff of each measure family with a cutoff (one panel per family), one
    line per reproduction and run; a table without such measures (or replicability: no RMSE) gets
    an empty panel saying so."""
    from .figure_layout import _legend, _no_data, _rc, _style, _unique, new_figure, save_figure

    with _rc():
        t = table[table["rmse"].notna()] if len(table) else table
        cut = {m: _cutoff(m) for m in (_unique(t["metric"]) if len(t) else [])}
        fams = _unique([c[0] for c in cut.values() if c is not None])
        fig = new_figure(4.6 * max(1, len(fams)), 3.8)
        if not fams:
            _no_data(fig.add_subplot(), "reproducibility (no measure with a cutoff, or no RMSE)")
            return save_figure(fig, path_stem)
        axes = fig.subplots(1, len(fams), squeeze=False)[0]
        lines = _unique(list(zip(t["reproduction"], t["run"])))
        for i, fam in enumerate(fams):
            ax = axes[i]
            ms = [m for m, c in cut.items() if c is not None and c[0] == fam]
            sub = t[t["metric"].isin(ms)]
            sub = sub.assign(cutoff=[c[1] for c in (cut[m] for m in sub["metric"]) if c is not None])
            for k, (rep, run) in enumerate(lines):
                h = sub[(sub["reproduction"] == rep) & (sub["run"] == run)].sort_values("cutoff", kind="mergesort")
                ax.plot(h["cutoff"].to_numpy(float), h["rmse"].to_numpy(float), label=f"{rep} {run}",
                        **_style(k, n=len(lines)))
            ax.set_xscale("log")
            ax.set_title(f"{fam}@k", fontsize=10)
            ax.set_xlabel("cutoff k")
            ax.set_ylabel("RMSE")
            ax.grid(True, alpha=0.3)
        _legend(axes[-1], len(lines))
        fig.tight_layout()
        return save_figure(fig, path_stem)


def stage_texts(tables: dict[str, pd.DataFrame], params=None) -> dict[str, str]:
    """The Markdown and LaTeX of the stage's three tables (``tables/NAME.{md,tex}``), laid out
    generically under their declared captions as they are (the stage's
    :attr:`~metaeval.stages.StageInfo.table_texts`, which the generic writer,
    :func:`metaeval.pipeline.write_own_outputs`, writes beside the CSVs and the figures)."""
    from .. import outputs as O
    from .tables import table_texts

    out = {}
    for o in O.tables("reproducibility"):
        texts = table_texts(tables[o.name], o.name, kind="generic", caption=o.caption)
        out.update({f"{o.directory}/{o.name}{x}": texts[x] for x in (".md", ".tex")})
    return out
