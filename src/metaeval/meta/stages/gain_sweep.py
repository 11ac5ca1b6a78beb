"""Stage ``gain_sweep``: the gain-value sweep (Sakai 2007a, Sec. 5.5, Tables 5-6): Kendall's tau
and bootstrap sensitivity of each sweep metric under each variant gain vector."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import JobPlan, Output, PlanView, StageInfo, parameter
from .cite import SAKAI_A

_GAINS = "^[0-9]+(\\.[0-9]+)?(:[0-9]+(\\.[0-9]+)?)*$"


def sweep_available(matrices, cfg) -> bool:
    """True when the default and every variant matrix of every sweep metric is present."""
    from ..sweep import variant_name

    return bool(cfg.sweep_metrics) and all(
        m in matrices and all(variant_name(m, g) in matrices for g in cfg.sweep_variants)
        for m in cfg.sweep_metrics)


def metric_list(params) -> tuple[str, ...]:
    """The metrics the sweep runs over: its own, ``sweep_metrics`` (not the config's metric list)."""
    return tuple(params.sweep_metrics)


def variant_matrices(params) -> tuple[str, ...]:
    """The variant matrices it reads besides its metrics' (``METRIC(gains=G)``), no other stage's metric."""
    from ..sweep import variant_name

    return tuple(variant_name(m, g) for m in params.sweep_metrics for g in params.sweep_variants)


def applies(matrices, params) -> bool:
    """True when the default and every variant matrix of every sweep metric is present."""
    return sweep_available(matrices, params)


def plan(p: PlanView) -> JobPlan:
    """The gain sweep of a config: on when switched on with metrics and variants; its measures
    canonical, every variant matrix (``METRIC(gains=...)``) computed by the metrics job and read by
    the meta job."""
    gs = p.config["sweeps"]["gains"]
    on = bool(gs["enabled"]) and bool(gs["metrics"]) and bool(gs["variants"])
    metrics = tuple(dict.fromkeys(p.canonical(m, "sweeps.gains.metrics") for m in gs["metrics"])) if on else ()
    variants = tuple(gs["variants"]) if on else ()
    names = tuple(p.canonical(f"{m}(gains={g})", "sweeps.gains.variants", "ntcireval")
                  for m in metrics for g in variants)
    return JobPlan(on=on, values={"sweep_metrics": metrics, "sweep_gains": variants},
                   matrices=metrics + names, reads=metrics + names)


def stage_gain_sweep(matrices: dict, cfg, samples=None) -> dict:
    """``gain_kendall`` and ``gain_bootstrap`` (Sakai 2007a, Tables 5-6) for ``cfg.sweep_metrics``."""
    from ..metric_forms import samples_for
    from ..sweep import gain_sweep

    first = next(iter(matrices.values()))
    smp = samples if samples is not None else samples_for(first, cfg)
    k, b = gain_sweep(matrices, cfg.sweep_metrics, cfg.sweep_variants, default_gains=cfg.default_gains,
                      samples=smp, alpha=cfg.alpha, variant=cfg.kendall_variant, batch=cfg.batch)
    return {"gain_kendall": k, "gain_bootstrap": b}


def run(inputs, params):
    return stage_gain_sweep(inputs.matrices, params, *inputs.samples)


@dataclass(frozen=True)
class GainSweepParams:
    """The stage's parameters (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    sweep_metrics: tuple[str, ...] = parameter(("P-plus", "P-measure", "O-measure"),
        "gain-sweep metrics (default P-plus P-measure O-measure; run when every variant matrix is present)",
        nargs="*", metavar="M", config=("sweeps", "gains", "metrics"),
        schema={"type": "array", "items": {"type": "string"}},
        doc="Metrics whose gains are varied (Sakai (2007a) - P-plus, P-measure, O-measure).")
    sweep_gains: tuple[str, ...] | None = parameter(None,
        "gain variants in measure syntax, L1 first (default: the paper's 30:20:10, 0.3:0.2:0.1, 1:1:1, "
        "10:5:1 as 10:20:30 0.1:0.2:0.3 1:1:1 1:5:10)", nargs="+", metavar="G",
        config=("sweeps", "gains", "variants"), config_default=("10:20:30", "0.1:0.2:0.3", "1:1:1", "1:5:10"),
        schema={"type": "array", "items": {"type": "string", "pattern": _GAINS}},
        doc="Variant gain vectors (L1 upward; Sakai (2007a) - 30:20:10, 0.3:0.2:0.1, 1:1:1, 10:5:1).")
    # the pipeline gives each collection's gains
    default_gains: str | None = parameter(None, "label of the default-gain row (e.g. 1:2:3)", metavar="G",
                                          config=("collections", "*", "gains"))


STAGE = StageInfo(
    "gain_sweep", "matrices", run, tables=("gain_kendall", "gain_bootstrap"), metrics=None,
    metric_list=metric_list, extra_matrices=variant_matrices,
    streams=("paired",), condition="gain_sweep", cost=1.0, title="gain-value sweep", applies=applies,
    params=GainSweepParams,
    reads=("B", "alpha", "seed", "sweep_metrics", "sweep_gains", "default_gains"),
    switch=("sweeps", "gains", "enabled"), plan=plan, switch_doc="Run the gain sweep.",
    sections=((("sweeps",), "Parameter sweeps (Sakai 2007a, Sec. 5.5)."),
              (("sweeps", "gains"), ("Gain-value sweep (Sakai 2007a, Tables 5-6) - each metric with each variant "
               "gain vector, against the collection's default gains. Gains are listed from L1 upward, so "
               "paper \"30:20:10\" (S:A:B) is 10:20:30 here."))),
    schema_rank=1,
    outputs=(
        Output("gain_kendall", "table", "collection",
               "Kendall's rank correlations: default gain values versus others (above 0.8 in bold)",
               f"Table 5 of {SAKAI_A}",
               columns=("metric", "gains", "tau", "z0", "p_value", "paper_gains", "variant"),
               condition="gain_sweep", paper_order=8),
        Output("gain_bootstrap", "table", "collection",
               "The effect of changing gain values on the paired bootstrap sensitivity", f"Table 6 of {SAKAI_A}",
               columns=("metric", "pairs", "significant", "sensitivity", "estimated_diff", "gains", "default",
                        "paper_gains"), condition="gain_sweep", paper_order=9),
    ),
    when="gain sweep on")       # `sweeps` closes the stage sections of the config
