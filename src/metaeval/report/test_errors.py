"""Writing the simulated error rates of ``metaeval test-errors`` (Urbano, Lima & Hanjalic 2019):
``tables/test_errors_{type1,power,type3}.{csv,md,tex}``, ``test_errors/{margins,copulas}.csv`` and
the figures ``figures/test_errors_type1.png`` (rate against alpha per test, one panel per topic
set size) and ``figures/test_errors_power.png`` (power against delta at alpha = 0.05)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_test_errors", "CAPTIONS"]

_REF = "Urbano, Lima & Hanjalic (2019)"
CAPTIONS = {
    "test_errors_type1": f"Simulated type I error rate of each paired test (two-tailed) by topic set size and "
                         f"significance level, with its binomial standard error; regenerates Figures 2-3 of {_REF}",
    "test_errors_power": f"Simulated power (1 - type II error rate) of each paired test (two-tailed) by topic set "
                         f"size, true difference delta and significance level; regenerates Figures 4-5 of {_REF}",
    "test_errors_type3": f"Simulated type III error rate (significant in the wrong direction) of each paired test by "
                         f"topic set size, delta and significance level; regenerates Figure 6 of {_REF}",
}


def _plot(res, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    t1 = res.type1
    if len(t1):
        for metric, g in t1.groupby("metric", sort=False):
            sizes = sorted(g["n_topics"].unique())
            fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 3.8), squeeze=False,
                                     constrained_layout=True)
            for ax, n in zip(axes[0], sizes):
                h = g[g["n_topics"] == n]
                for test, s in h.groupby("test", sort=False):
                    ax.plot(s["alpha"], s["rate"], marker="o", ms=3, label=test)
                lim = float(h["alpha"].max())
                ax.plot([0, lim], [0, lim], color="grey", ls="--", lw=1)
                ax.set_title(f"{metric}, {n} topics", fontsize=10)
                ax.set_xlabel("alpha")
                ax.set_ylabel("type I error rate")
            axes[0][-1].legend(fontsize=8, loc="upper left")
            written.append(_save(fig, out / f"test_errors_type1{_suffix(metric, t1)}.png"))
            plt.close(fig)
    pw = res.power
    if len(pw):
        alpha = 0.05 if (pw["alpha"] == 0.05).any() else float(pw["alpha"].iloc[0])
        for metric, g in pw[pw["alpha"] == alpha].groupby("metric", sort=False):
            sizes = sorted(g["n_topics"].unique())
            fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 3.8), squeeze=False,
                                     constrained_layout=True)
            for ax, n in zip(axes[0], sizes):
                h = g[g["n_topics"] == n]
                for test, s in h.groupby("test", sort=False):
                    ax.plot(s["delta"], s["rate"], marker="o", ms=3, label=test)
                ax.set_title(f"{metric}, {n} topics, alpha = {alpha:g}", fontsize=10)
                ax.set_xlabel("delta")
                ax.set_ylabel("power")
                ax.set_ylim(0, 1)
            axes[0][-1].legend(fontsize=8, loc="lower right")
            written.append(_save(fig, out / f"test_errors_power{_suffix(metric, pw)}.png"))
            plt.close(fig)
    return written


def _suffix(metric, df) -> str:
    """'' for the only metric, else ``_METRIC`` (file-name safe)."""
    if df["metric"].nunique() == 1:
        return ""
    return "_" + "".join(c if c.isalnum() or c in "@-=" else "_" for c in str(metric))


def _save(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150)
    return path


def write_test_errors(res, out, *, figures: bool = True) -> list[Path]:
    from .csvio import csv_text
    from .tables import write_table
    from ..util import atomic_write

    out = Path(out)
    written: list[Path] = []
    for name, df in res.tables().items():
        written += write_table(df, out / "tables" / name, kind="generic", caption=CAPTIONS[name])
    (out / "test_errors").mkdir(parents=True, exist_ok=True)
    for name, df in (("margins", res.margins), ("copulas", res.copulas)):
        path = out / "test_errors" / f"{name}.csv"
        with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(csv_text(df))
        written.append(path)
    if figures:
        written += _plot(res, out / "figures")
    return written
