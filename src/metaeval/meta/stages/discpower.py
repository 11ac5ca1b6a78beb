"""Stage ``discpower``: discriminative power as practised since 2012 (:mod:`metaeval.meta.discpower`):
randomised Tukey HSD (Carterette 2012; Sakai 2014), classical tests beside the bootstrap ASLs of the
``paired`` and ``unpaired`` stages, two-way ANOVA and the topic set size design (Sakai 2016)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ...stages import StageInfo, parameter
from .common import B_SCHEMA, check_B


def _systems(text: str):
    """A ``--tss-systems`` value: an integer or ``runs``."""
    if text == "runs":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or 'runs', got {text!r}") from None


def _check_beta(v):
    if not 0 < float(v) < 1:
        raise ValueError(f"tss_beta must lie in (0, 1), got {v}")


def _check_min_diff(v):
    if not v or any(not float(d) > 0 for d in v):
        raise ValueError(f"tss_min_diff: give positive differences, got {', '.join(map(str, v))}")


def _check_systems(v):
    for m in v:
        if m != "runs" and (isinstance(m, bool) or int(m) != m or int(m) < 2):
            raise ValueError(f"tss_systems: give integers >= 2 or 'runs', got {m}")


def run(inputs, params):
    """The four tables of the plain metrics; the paired and unpaired bootstrap ASLs
    (``inputs.tables["asl"]``) become the ``paired-bootstrap`` and ``unpaired-bootstrap`` tests."""
    from ..discpower import stage_discpower

    return stage_discpower(inputs.matrices, list(inputs.metrics), alpha=params.alpha, seed=params.seed,
                           B_r=params.rthsd_B, tss_beta=params.tss_beta, tss_min_diff=params.tss_min_diff,
                           tss_systems=params.tss_systems, batch=params.batch, asl=inputs.tables.get("asl"))


@dataclass(frozen=True)
class DiscpowerParams:
    """The stage's parameters (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    rthsd_B: int = parameter(5000, "permutations of the randomised Tukey HSD test (default 5000, as Sakai's "
        "Discpower)", flag="--rthsd-B", metavar="N", config=("discpower", "B"), schema=B_SCHEMA,
        doc="Permutations of the randomised Tukey HSD test (Discpower - 5000).", check=check_B)
    tss_beta: float = parameter(0.20, "topic set size design: type II error rate, power = 1 - BETA (default 0.20)",
        metavar="BETA", config=("discpower", "tss_beta"),
        schema={"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        doc="Topic set size design - type II error rate beta (power 1 - beta; Sakai 2016 - 0.20).",
        check=_check_beta)
    tss_min_diff: tuple[float, ...] = parameter((0.05, 0.10),
        "topic set size design: minimum detectable differences (default 0.05 0.10)", nargs="+", metavar="D",
        config=("discpower", "tss_min_diff"),
        schema={"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}, "minItems": 1},
        doc="Topic set size design - minimum detectable differences between two systems' means.",
        check=_check_min_diff)
    tss_systems: tuple[int | str, ...] = parameter((2, 10, "runs"),
        "topic set size design: numbers of systems m of the one-way ANOVA, integers >= 2 or 'runs' = "
        "the number of runs (default 2 10 runs)", type=_systems, nargs="+", metavar="M",
        config=("discpower", "tss_systems"),
        schema={"type": "array", "items": {"oneOf": [{"type": "integer", "minimum": 2}, {"const": "runs"}]},
                  "minItems": 1},
        doc="Topic set size design - numbers of systems m of the one-way ANOVA (integers >= 2, or `runs` for "
        "the number of runs meta-evaluated); the paired t-test is always for 2.", check=_check_systems)


STAGE = StageInfo(
    "discpower", "matrices", run, tables=("anova", "pvalues", "discriminative_power", "topic_set_size"),
    metrics="plain", needs=("paired", "unpaired"), cost=2.0, title="discriminative power",
    params=DiscpowerParams,
    reads=("alpha", "seed", "rthsd_B", "tss_beta", "tss_min_diff", "tss_systems", "metrics", "geometric"),
    sections=((("discpower",),
               "Discriminative power as practised since 2012 (stage discpower) - randomised Tukey HSD "
               "(Carterette 2012; Sakai's Discpower tool, Sakai 2014), parametric Tukey HSD, paired t with "
               "Holm/BH, Wilcoxon and sign tests beside the bootstrap ASLs, two-way ANOVA, effect sizes and "
               "the topic set size design of Sakai (2016). alpha and seed are those of `bootstrap`."),))
