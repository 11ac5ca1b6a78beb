"""Writing what ``metaeval reproducibility`` computes (Breuer et al. 2020;
:mod:`metaeval.meta.reproducibility`): ``tables/{reproducibility,effects,reproducibility_topics}.
{csv,md,tex}`` and the figures ``figures/reproducibility_effects.{png,pdf}`` (Effect Ratio against
Delta RI, one point per reproduction, one panel per measure) and
``figures/reproducibility_rmse.{png,pdf}`` (RMSE against the measure's cutoff), drawn from the
tables.  Every table and figure is rendered before the output folder is touched: a failure leaves
nothing half-written."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from ..meta.reproducibility import ReproResult

__all__ = ["write_reproducibility", "plot_reproducibility_effects", "plot_reproducibility_rmse", "captions"]


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


def write_reproducibility(res: ReproResult, out: str | Path, *, figures: bool = True) -> list[Path]:
    """Write ``res`` (:class:`~metaeval.meta.reproducibility.ReproResult`) into ``out``:
    the three tables and, with ``figures``, the two figures.  Each file atomically; a failure
    removes what this call wrote."""
    from .. import outputs as O
    from ..util import atomic_dir_outputs
    from .figures import plotter
    from .tables import write_table

    out = Path(out)
    cap = captions()
    tables = res.tables
    written: list = []
    with atomic_dir_outputs(written):
        for name, df in tables.items():
            written += write_table(df, out / "tables" / name, kind="generic", caption=cap[name])
        for o in O.figures("reproducibility") if figures else ():       # as its stage declares them
            draw, kwargs = plotter(o.layout)
            written += draw(tables[o.source or o.name], out / "figures" / o.name, **kwargs)
    return written

