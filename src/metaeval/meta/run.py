"""Per-stage entry points (for the pipeline) and ``run_meta`` (everything for one collection).

Each ``stage_*`` function takes the topic x run matrices (``{metric: DataFrame}``), the metric name
for per-metric stages, and a :class:`MetaConfig`, and returns ``{table name: DataFrame}`` in the
output contract's columns.  Per-metric stages can run in separate processes: every stage derives
the bootstrap samples from ``(seed, n topics, B)`` alone, so all metrics of a collection share the
same ``Q*b`` without passing files around.  :func:`combine` concatenates the parts in a fixed
order.

Metric names: a matrix name (``AP``) is evaluated as is; ``AG_AP`` is the paired test on
``log(AP + 0.00001)`` (paper 001 Sec. 5.1, only in the paired stage); ``G_AP`` is the geometric
mean of Eq. 7 (unpaired, swap and stability stages).  ``MetaConfig.geometric = ("AP",)`` adds both.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ._validate import as_scores, check_alpha, check_B
from .bootstrap import paired_bootstrap, paired_tstar, unpaired_bootstrap
from .kendall import rank_correlations
from .matrices import align_matrices, restrict_runs, select_top_runs
from .samples import BootstrapSamples
from .stability import DEFAULT_FUZZINESS, stability_method
from .statistics import GMEAN, MEAN, Statistic, _identity, log_transform
from .swap import swap_method
from .sweep import DEFAULT_SWEEP_METRICS, gain_sweep, paper_to_gains, PAPER_GAIN_VARIANTS, variant_name

__all__ = ["MetaConfig", "resolve_metric", "select_runs", "prepare_matrices", "stage_kendall",
           "stage_run_means", "stage_paired", "stage_unpaired", "stage_swap", "stage_stability",
           "stage_gain_sweep", "stage_collection", "combine", "run_meta", "write_tables",
           "TABLE_ORDER", "default_metrics"]

TABLE_ORDER = ("collection", "kendall", "bootstrap_paired", "bootstrap_unpaired", "swap", "swap_rates",
               "stability", "gain_kendall", "gain_bootstrap", "preferred_rank", "asl", "run_means", "tstar")

AG_LOG = Statistic("ag_mean", transform=log_transform, outer=_identity)


@dataclass(frozen=True)
class MetaConfig:
    """Parameters of every meta-evaluation method (defaults = the papers)."""

    B: int = 1000
    alpha: float = 0.05
    seed: int = 0
    top_runs: int | None = None
    select_by: str = "AP"
    swap_threshold: float = 0.05
    swap_max_rule: str = "performance"          # or "difference" (see metaeval.meta.swap)
    swap_required_rule: str = "monotone"        # or "first"
    fuzziness: tuple = DEFAULT_FUZZINESS
    kendall_variant: str = "a"                  # or "b"
    geometric: tuple = ()                       # metrics that also get AG_ (paired) and G_ rows
    batch: int | None = None
    sweep_metrics: tuple = DEFAULT_SWEEP_METRICS
    sweep_gains: tuple | None = None            # measure syntax (L1 first); None = the paper's four
    default_gains: str | None = None            # label of the default row of the sweep, e.g. "1:2:3"
    tstar_pair: tuple | None = None             # (run x, run y); None = ASL closest to alpha

    def __post_init__(self):
        check_B(self.B)
        check_alpha(self.alpha)
        if isinstance(self.seed, bool) or int(self.seed) != self.seed or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.kendall_variant not in ("a", "b"):
            raise ValueError(f"kendall_variant must be 'a' or 'b', got {self.kendall_variant!r}")

    @property
    def sweep_variants(self) -> tuple:
        if self.sweep_gains is not None:
            return tuple(self.sweep_gains)
        return tuple(paper_to_gains(p) for p in PAPER_GAIN_VARIANTS)


def resolve_metric(matrices: dict, name: str, stage: str):
    """``(DataFrame, transform, statistic)`` for a metric name (plain, ``AG_X`` or ``G_X``)."""
    if name in matrices:
        return matrices[name], None, MEAN
    if name.startswith("AG_") and name[3:] in matrices:
        return matrices[name[3:]], "log", AG_LOG
    if name.startswith("G_") and name[2:] in matrices:
        if stage == "paired":
            raise ValueError(f"{name}: the paired test is on arithmetic means; use AG_{name[2:]} "
                             "(paper 001 Sec. 5.1) or the unpaired test for the geometric mean")
        return matrices[name[2:]], None, GMEAN
    raise ValueError(f"no matrix for metric {name!r} (have: {', '.join(sorted(matrices))})")


def default_metrics(matrices: dict, cfg: MetaConfig) -> list[str]:
    """Every matrix except the gain-sweep variants, in the given order."""
    variants = {variant_name(m, g) for m in cfg.sweep_metrics for g in cfg.sweep_variants}
    return [m for m in matrices if m not in variants]


def select_runs(matrices: dict, cfg: MetaConfig) -> list[str]:
    """The runs to meta-evaluate: the top ``cfg.top_runs`` by the mean of ``cfg.select_by``."""
    first = next(iter(matrices.values()))
    if cfg.top_runs is None:
        return [str(r) for r in first.columns]
    if cfg.select_by not in matrices:
        raise ValueError(f"--top-runs ranks runs by {cfg.select_by!r}, but there is no such matrix "
                         f"(have: {', '.join(sorted(matrices))})")
    return select_top_runs(matrices[cfg.select_by], cfg.top_runs, cfg.select_by)


def prepare_matrices(matrices: dict, cfg: MetaConfig) -> dict:
    """Aligned copies restricted to :func:`select_runs` (inputs are never modified)."""
    aligned = align_matrices({m: (df if isinstance(df, pd.DataFrame) else pd.DataFrame(df))
                              for m, df in matrices.items()})
    return restrict_runs(aligned, select_runs(aligned, cfg))


def _samples(df, cfg: MetaConfig, stream: str = "paired") -> BootstrapSamples:
    return BootstrapSamples.from_seed(cfg.seed, df.shape[0], cfg.B, stream)


def stage_kendall(matrices: dict, cfg: MetaConfig, metrics: list[str] | None = None) -> dict:
    metrics = [m for m in (metrics or default_metrics(matrices, cfg)) if m in matrices]
    if len(metrics) < 2:
        return {"kendall": pd.DataFrame(columns=["metric_a", "metric_b", "tau", "z0", "p_value"])}
    return {"kendall": rank_correlations(matrices, metrics, cfg.kendall_variant)}


def stage_run_means(matrices: dict, cfg: MetaConfig, metrics: list[str] | None = None) -> dict:
    rows = []
    for m in metrics or default_metrics(matrices, cfg):
        df, _, stat = resolve_metric(matrices, m, "unpaired")
        s = as_scores(df, m)
        vals = stat(s.values.T)
        rows.append(pd.DataFrame({"metric": m, "run": list(s.runs), "mean": vals}))
    return {"run_means": _concat(rows, ["metric", "run", "mean"])}


def _asl_frame(metric, test, res) -> pd.DataFrame:
    return pd.DataFrame({"metric": metric, "test": test, "system_x": res.system_x,
                         "system_y": res.system_y, "asl": res.asl})


def _boot_row(metric, res) -> pd.DataFrame:
    return pd.DataFrame([(metric, res.n_pairs, res.significant, res.sensitivity, res.estimated_diff)],
                        columns=["metric", "pairs", "significant", "sensitivity", "estimated_diff"])


def stage_paired(matrices: dict, metric: str, cfg: MetaConfig, samples=None) -> dict:
    """``bootstrap_paired`` (one row), ``asl`` (test = paired) and ``tstar`` for one metric."""
    df, transform, _ = resolve_metric(matrices, metric, "paired")
    smp = samples if samples is not None else _samples(df, cfg)
    res = paired_bootstrap(df, smp, alpha=cfg.alpha, transform=transform, batch=cfg.batch, metric=metric)
    if cfg.tstar_pair is not None:
        runs = list(res.runs)
        i, j = (runs.index(str(r)) for r in cfg.tstar_pair)
    else:
        p = int(np.argmin(np.abs(res.asl - cfg.alpha)))      # first pair on ties
        i, j = int(res.pair_x[p]), int(res.pair_y[p])
    t_obs, t = paired_tstar(df, (i, j), smp, transform=transform, metric=metric)
    tstar = pd.DataFrame({"metric": metric, "system_x": res.runs[i], "system_y": res.runs[j],
                          "t_observed": t_obs, "t_star": t})
    return {"bootstrap_paired": _boot_row(metric, res), "asl": _asl_frame(metric, "paired", res),
            "tstar": tstar}


def stage_unpaired(matrices: dict, metric: str, cfg: MetaConfig, samples=None) -> dict:
    """``bootstrap_unpaired`` (one row) and ``asl`` (test = unpaired) for one metric."""
    df, _, stat = resolve_metric(matrices, metric, "unpaired")
    smp = samples if samples is not None else _samples(df, cfg, "unpaired")
    res = unpaired_bootstrap(df, smp, alpha=cfg.alpha, statistic=stat, batch=cfg.batch, metric=metric)
    return {"bootstrap_unpaired": _boot_row(metric, res), "asl": _asl_frame(metric, "unpaired", res)}


def stage_swap(matrices: dict, metric: str, cfg: MetaConfig, samples=None, samples2=None) -> dict:
    """``swap`` (one row) and ``swap_rates`` (one row per bin) for one metric."""
    df, _, stat = resolve_metric(matrices, metric, "swap")
    q1 = samples if samples is not None else _samples(df, cfg)
    q2 = samples2 if samples2 is not None else _samples(df, cfg, "swap")
    r = swap_method(df, q1, q2, threshold=cfg.swap_threshold, statistic=stat, max_rule=cfg.swap_max_rule,
                    required_rule=cfg.swap_required_rule, batch=cfg.batch, metric=metric)
    swap = pd.DataFrame([(metric, r.diff_required, r.max_value, r.relative, r.pct_satisfying)],
                        columns=["metric", "diff_required", "max_diff", "relative", "pct_satisfying"])
    rates = pd.DataFrame({"metric": metric, "bin": r.edges, "comparisons": r.counts, "swaps": r.swaps,
                          "swap_rate": r.swap_rate})
    return {"swap": swap, "swap_rates": rates}


def stage_stability(matrices: dict, metric: str, cfg: MetaConfig, samples=None) -> dict:
    """``stability``: one row per fuzziness value for one metric."""
    df, _, stat = resolve_metric(matrices, metric, "stability")
    smp = samples if samples is not None else _samples(df, cfg)
    r = stability_method(df, smp, fuzziness=cfg.fuzziness, statistic=stat, batch=cfg.batch, metric=metric)
    return {"stability": pd.DataFrame({"metric": metric, "f": r.fuzziness, "minority_rate": r.minority_rate,
                                       "proportion_ties": r.proportion_ties})}


def stage_gain_sweep(matrices: dict, cfg: MetaConfig, samples=None) -> dict:
    """``gain_kendall`` and ``gain_bootstrap`` (paper 000 Tables 5-6) for ``cfg.sweep_metrics``."""
    first = next(iter(matrices.values()))
    smp = samples if samples is not None else _samples(first, cfg)
    k, b = gain_sweep(matrices, cfg.sweep_metrics, cfg.sweep_variants, default_gains=cfg.default_gains,
                      samples=smp, alpha=cfg.alpha, variant=cfg.kendall_variant, batch=cfg.batch)
    return {"gain_kendall": k, "gain_bootstrap": b}


def sweep_available(matrices: dict, cfg: MetaConfig) -> bool:
    """True when the default and every variant matrix of every sweep metric is present."""
    return bool(cfg.sweep_metrics) and all(
        m in matrices and all(variant_name(m, g) in matrices for g in cfg.sweep_variants)
        for m in cfg.sweep_metrics)


def stage_collection(collection, runs: list[str] | None = None) -> dict:
    """``collection`` (Table 1) and ``preferred_rank`` (Tables 7-9) from a Collection."""
    from .collection_stats import collection_stats
    from .preferred import preferred_rank_stats

    runs = list(collection.runs) if runs is None else list(runs)
    missing = [r for r in runs if r not in collection.runs]
    if missing:
        raise ValueError(f"runs {missing[:5]} are not in the collection")
    return {"collection": collection_stats(collection, runs),
            "preferred_rank": preferred_rank_stats(collection, runs)}


def _concat(frames, columns):
    frames = [f for f in frames if f is not None and len(f)]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)


def combine(parts: list[dict]) -> dict[str, pd.DataFrame]:
    """Concatenate stage outputs per table (in the order given); sort the bootstrap tables by
    sensitivity (descending; ties by metric name), as the papers do -- the row order
    :func:`metaeval.tables.write_table` gives them (``KINDS[name].sort``)."""
    from ..tables import KINDS

    names: dict[str, list] = {}
    for p in parts:
        for k, v in p.items():
            names.setdefault(k, []).append(v)
    out = {}
    for k in sorted(names, key=lambda n: (TABLE_ORDER.index(n) if n in TABLE_ORDER else len(TABLE_ORDER), n)):
        df = _concat(names[k], list(names[k][0].columns))
        if k in ("bootstrap_paired", "bootstrap_unpaired"):
            df = KINDS[k].sort(df)
        out[k] = df
    return out


def _stage_lists(metrics: list[str], cfg: MetaConfig):
    plain = [m for m in metrics if not (m.startswith("AG_") or m.startswith("G_"))]
    geo = list(cfg.geometric)
    paired = plain + [m for m in metrics if m.startswith("AG_")] + [f"AG_{g}" for g in geo]
    other = plain + [m for m in metrics if m.startswith("G_")] + [f"G_{g}" for g in geo]
    dedup = lambda xs: list(dict.fromkeys(xs))  # noqa: E731
    return plain, dedup(paired), dedup(other)


def run_meta(matrices: dict, cfg: MetaConfig = MetaConfig(), metrics: list[str] | None = None,
             collection=None, progress: Callable[[str, str], None] | None = None,
             figures_data: bool = True) -> dict[str, pd.DataFrame]:
    """Every table of the output contract for one collection.

    ``matrices``: ``{metric: topic x run DataFrame}`` (all with the same topics and runs); the
    runs are first restricted to the top ``cfg.top_runs`` by ``cfg.select_by``.  ``metrics``:
    which to meta-evaluate (default: every matrix but the gain-sweep variants); ``AG_X``/``G_X``
    names are allowed.  ``collection``: a :class:`metaeval.collection.Collection` for the
    collection-dependent tables.  ``progress(stage, metric)`` is called before each step.
    """
    say = progress or (lambda stage, metric: None)
    mats = prepare_matrices(matrices, cfg)
    runs = [str(r) for r in next(iter(mats.values())).columns]
    metrics = list(metrics) if metrics is not None else default_metrics(mats, cfg)
    missing = [m for m in list(metrics) + list(cfg.geometric)
               if (m[3:] if m.startswith("AG_") else m[2:] if m.startswith("G_") else m) not in mats]
    if missing:
        raise ValueError(f"no matrix for metric {missing[0]!r} (available: {', '.join(sorted(mats))})")
    plain, paired_list, other_list = _stage_lists(metrics, cfg)
    first = mats[plain[0] if plain else next(iter(mats))]
    q1 = _samples(first, cfg)
    q2 = _samples(first, cfg, "swap")
    qu = _samples(first, cfg, "unpaired")
    parts: list[dict] = []
    if collection is not None:
        say("collection", "")
        parts.append(stage_collection(collection, runs))
    say("kendall", "")
    parts.append(stage_kendall(mats, cfg, plain))
    say("run_means", "")
    parts.append(stage_run_means(mats, cfg, plain + [m for m in other_list if m not in plain]))
    for m in paired_list:
        say("paired", m)
        parts.append(stage_paired(mats, m, cfg, q1))
    for m in other_list:
        say("unpaired", m)
        parts.append(stage_unpaired(mats, m, cfg, qu))
    for m in other_list:
        say("swap", m)
        parts.append(stage_swap(mats, m, cfg, q1, q2))
    for m in other_list:
        say("stability", m)
        parts.append(stage_stability(mats, m, cfg, q1))
    if sweep_available(mats, cfg):
        say("gain_sweep", ",".join(cfg.sweep_metrics))
        parts.append(stage_gain_sweep(mats, cfg, q1))
    return combine(parts)


def write_tables(tables: dict[str, pd.DataFrame], out_dir: str | Path) -> list[Path]:
    """Write every table as ``OUT/NAME.{csv,md,tex}`` via :func:`metaeval.tables.write_table`."""
    from ..tables import write_table

    out = Path(out_dir)
    paths: list[Path] = []
    for name, df in tables.items():
        paths += write_table(df, out / name, kind=name)
    return paths


def stderr_progress(stage: str, metric: str) -> None:
    print(f"metaeval meta: {stage}" + (f" {metric}" if metric else ""), file=sys.stderr, flush=True)
