"""Stage ``discpower``: discriminative power as practised since 2012 (:mod:`metaeval.meta.discpower`):
randomised Tukey HSD (Carterette 2012; Sakai 2014), classical tests beside the bootstrap ASLs of the
``paired`` and ``unpaired`` stages, two-way ANOVA and the topic set size design (Sakai 2016)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ...stages import Output, StageInfo, TextFiles, parameter
from .cite import SAKAI_14, SAKAI_A, SAKAI_B
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


def texts(tables, params) -> dict:
    """The Discpower-compatible text form of the randomised Tukey HSD p-values, one file per metric,
    ``METRIC.rthsd.B`` (``B`` = the permutations used), lines ``RUN_X RUN_Y ABSDIFF PVALUE``
    (:func:`metaeval.meta.discpower.discpower_texts`); none without the ``pvalues`` table or its
    ``rthsd`` rows."""
    pvalues = tables.get("pvalues")
    if pvalues is None or not len(pvalues):
        return {}
    from ..discpower import discpower_texts

    return {f"{metric}.rthsd.{int(params.rthsd_B)}": text for metric, text in discpower_texts(pvalues).items()}


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


_CARTERETTE = "Carterette (2012)"
_SAKAI_16 = "Sakai (2016)"


STAGE = StageInfo(
    "discpower", "matrices", run, tables=("anova", "pvalues", "discriminative_power", "topic_set_size"),
    metrics="plain", needs=("paired", "unpaired"), cost=2.0, title="discriminative power",
    params=DiscpowerParams,
    reads=("alpha", "seed", "rthsd_B", "tss_beta", "tss_min_diff", "tss_systems", "metrics", "geometric"),
    texts=(TextFiles("pvalues", texts, reads=("rthsd_B",)),),
    sections=((("discpower",),
               ("Discriminative power as practised since 2012 (stage discpower) - randomised Tukey HSD "
               "(Carterette 2012; Sakai's Discpower tool, Sakai 2014), parametric Tukey HSD, paired t with "
               "Holm/BH, Wilcoxon and sign tests beside the bootstrap ASLs, two-way ANOVA, effect sizes and "
               "the topic set size design of Sakai (2016). alpha and seed are those of `bootstrap`.")),),
    outputs=(
        Output("anova", "table", "collection",
               "Two-way ANOVA without replication (system x topic) of every metric: sums of squares, "
               "mean squares, F and p of the system (A) and topic (B) effects; V_E is the residual "
               "variance behind the effect sizes and the topic set sizes",
               f"the ANOVA behind {SAKAI_14} and {_SAKAI_16}",
               columns=("metric", "topics", "systems", "S_A", "S_B", "S_E", "V_A", "V_B", "V_E", "F_A", "F_B",
                        "p_A", "p_B")),
        Output("pvalues", "table", "collection",
               "p-values of every system pair under every test (randomised Tukey HSD with {permutations} and "
               "parametric Tukey HSD, paired t with Holm and Benjamini-Hochberg adjustment, Wilcoxon, sign, "
               "paired and unpaired bootstrap ASL with {bootstrap}), with the difference and the effect size "
               "diff / sqrt(V_E)",
               f"the data of {_CARTERETTE} and of Sakai's Discpower tool, {SAKAI_14}",
               columns=("metric", "test", "system_x", "system_y", "diff", "effect_size", "p_value")),
        Output("discriminative_power", "table", "collection",
               "Discriminative power: system pairs with p < alpha = {alpha} under every test (randomised Tukey "
               "HSD with {permutations}, Carterette (2012); parametric Tukey HSD; paired t, also with Holm "
               "and Benjamini-Hochberg adjustment; Wilcoxon; sign; paired and unpaired bootstrap with "
               "{bootstrap}, Sakai (2007b))",
               f"the discriminative power of {SAKAI_14} (randomised Tukey HSD, {_CARTERETTE}) beside "
               f"Table 4 of {SAKAI_A} / Tables 2-3 of {SAKAI_B}",
               columns=("metric", "test", "alpha", "pairs", "significant", "share")),
        Output("topic_set_size", "table", "collection",
               "Topic set size design: the smallest number of topics giving power 1 - beta at "
               "alpha = {alpha} to the paired t-test and to one-way ANOVA over m systems, from each "
               "metric's residual variance V_E", f"the topic set size tables of {_SAKAI_16}",
               columns=("metric", "method", "alpha", "beta", "min_diff", "systems", "variance", "n")),
        Output("pvalues", "text", "collection",
               "Discpower-compatible p-values of the randomised Tukey HSD test, one file per metric "
               "(B = the number of permutations), one line RUN_X RUN_Y ABSDIFF PVALUE per system pair",
               f"the output of Sakai's Discpower tool, {SAKAI_14}", columns=("RUN_X", "RUN_Y", "ABSDIFF", "PVALUE"),
               formats=("METRIC.rthsd.B",)),
        Output("pvalues", "figure", "collection",
               "p-value curves: the p-value of every system pair, pairs sorted by p-value, one line "
               "per metric, one panel per test; the dotted line is alpha = {alpha}",
               f"the p-value curves of {SAKAI_14} (ASL curves of {SAKAI_B} Figs 10-13)", stages=("figures",),
               source="pvalues", draw_seconds=2.7, plot_params=(("alpha", "alpha"),),
               draw="metaeval.report.figures:plot_pvalue_curves"),
        Output("discriminative_power", "table", "summary",
               "Discriminative power (% of system pairs with p < alpha = {alpha}) per metric and test "
               "in every collection", f"the discriminative power of {SAKAI_14} across collections",
               stages=("summary",), columns=("metric", "test", "COLLECTION..."), source="discriminative_power",
               build="metaeval.report.summary:build_discriminative_power"),
        Output("discriminative_power", "figure", "summary",
               "Discriminative power by test: % of system pairs with p < alpha = {alpha}, one panel "
               "per collection, one line per metric", f"the discriminative power of {SAKAI_14} across collections",
               stages=("summary",), source="discriminative_power",
               draw="metaeval.report.summary:draw_discriminative_power"),
    ))
