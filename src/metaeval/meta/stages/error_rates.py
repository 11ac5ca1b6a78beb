"""Stage ``test_errors``: which significance test to trust on this collection -- the simulated
type I, II and III error rates of the paired tests (Urbano, Lima & Hanjalic 2019;
:mod:`metaeval.meta.error_rates`).  Its own command (``metaeval test-errors``,
:mod:`metaeval.cli.error_rates`) and, when ``test_errors: {enabled: true}``, its own job per
collection (``workflow/rules/test_errors.smk``); its parameters (defaults as the command's), its
config section and its job's arguments are declared here (:mod:`metaeval.dag`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...argtypes import comma_list, int_at_least, ints_at_least, names_in, probabilities
from ...stages import JobPlan, Output, PlanView, StageInfo, parameter
from .cite import URBANO_19
from .common import B_SCHEMA, SEED, check_B

# the names and defaults of the test-errors stage, declared here (standard library only: the config
# schema and `metaeval --help` import no numpy); metaeval.meta.error_rates and urbano_tests read them
#: the tests, as ``metaeval compare --test`` spells them
TESTS = ("paired-t", "wilcoxon", "sign", "bootstrap", "permutation")
#: the paper's significance levels (``R/common.R``: 1:9 * .001, 1:9 * .01, .1)
DEFAULT_ALPHAS = tuple([round(i * 0.001, 3) for i in range(1, 10)] + [round(i * 0.01, 2) for i in range(1, 10)] + [0.1])
#: the paper's effect sizes (seq(.01, .1, .01))
DEFAULT_DELTAS = tuple(round(i * 0.01, 2) for i in range(1, 11))
#: the paper's topic set sizes
DEFAULT_TOPICS = (25, 50, 100)
#: the tests' conventions the simulation follows (the paper's ``ir_tests.R``)
CONVENTIONS = ("urbano2019",)


def _commas(values):
    return ",".join(str(v) for v in values)


def plan(p: PlanView) -> JobPlan:
    """The metrics of the stage's job in the plan of a config: its own ``metrics`` or the config's
    (``reads``: its rule's matrices), computed by the metrics job when the stage is on."""
    te = p.config.get("test_errors") or {}
    metrics = tuple(p.measures(te["metrics"], "test_errors.metrics") if te.get("metrics") else p.metrics)
    return JobPlan(values={"te_metrics": metrics}, reads=metrics,
                   matrices=metrics if p.switched_on(STAGE) else ())


_E = "test_errors"
_DELTAS = {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}, "minItems": 1}


@dataclass(frozen=True)
class TestErrorsParams:
    """The stage's parameters: the options of its command (``metaeval test-errors``, which words
    ``--metrics`` itself) and the keywords of :func:`metaeval.api.test_errors` (no MetaConfig
    fields)."""

    te_metrics: tuple[str, ...] | None = parameter(None, "metrics (default: every matrix)", flag="--metrics", nargs="+",
        config=(_E, "metrics"), field=False,
        schema={"type": ["array", "null"], "items": {"type": "string", "minLength": 1}},
        doc="The metrics whose tests are simulated (null = the config's `metrics`).")
    te_pairs: int = parameter(20, "run pairs per metric and delta (default 20)", flag="--pairs",
        config=(_E, "pairs"), field=False, parse=int_at_least(1),
        schema={"type": "integer", "minimum": 1}, doc="Run pairs sampled per metric and delta.")
    te_topics: tuple[int, ...] = parameter(DEFAULT_TOPICS,
        f"topic-set sizes: topics per simulated topic set (default {_commas(DEFAULT_TOPICS)})",
        flag="--topics", config=(_E, "topics"), render=_commas, field=False, parse=ints_at_least(2),
        schema={"type": "array", "items": {"type": "integer", "minimum": 2}, "minItems": 1},
        doc="Topic-set sizes - topics per simulated collection.")
    te_trials: int = parameter(1000, "simulated topic sets per pair and size (default 1000)", flag="--trials",
        config=(_E, "trials"), field=False, parse=int_at_least(1), schema={"type": "integer", "minimum": 1},
        doc="Simulated topic sets per run pair and topic set size (the paper - 1,000,000 in all).")
    te_deltas: tuple[float, ...] = parameter(DEFAULT_DELTAS,
        "true differences for power and type III (default 0.01,...,0.10)", flag="--deltas",
        config=(_E, "deltas"), render=_commas, field=False, parse=comma_list(float, _DELTAS), schema=_DELTAS,
        doc="True differences delta of the power and type III experiments.")
    te_alphas: tuple[float, ...] = parameter(DEFAULT_ALPHAS,
        "significance levels (default 0.001,...,0.009,0.01,...,0.1)", flag="--alphas", config=(_E, "alphas"),
        render=_commas, field=False, parse=probabilities,
        schema={"type": "array", "items": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                  "minItems": 1}, doc="Significance levels.")
    te_tests: tuple[str, ...] = parameter(TESTS, f"tests (default {_commas(TESTS)})", flag="--tests",
        config=(_E, "tests"), render=_commas, field=False, parse=names_in(TESTS),
        schema={"type": "array", "items": {"enum": list(TESTS)}, "minItems": 1},
        doc="The paired tests (two-tailed), as the paper's ir_tests.R.")
    te_B: int = parameter(1000, "bootstrap / permutation resamples (default 1000)", flag="--B", config=(_E, "B"),
        field=False, schema=B_SCHEMA, doc="Bootstrap / permutation resamples of those tests.", check=check_B)
    te_seed: int = parameter(SEED, f"random seed (default {SEED})", flag="--seed", config=(_E, "seed"), field=False,
        schema={"type": "integer", "minimum": 0}, doc="Random seed of the simulation.")
    # the command's only: no config key, no job argument (the pipeline's job follows the paper)
    te_conventions: str = parameter(CONVENTIONS[0],
        "the tests' conventions (urbano2019: the paper's ir_tests.R; docs/meta.md)", flag="--conventions",
        choices=CONVENTIONS, field=False)


_TE_RATE = "with its binomial standard error se over the trials simulated topic sets"


STAGE = StageInfo(
    "test_errors", "other", tables=("test_errors_type1", "test_errors_power", "test_errors_type3"),
    condition="test_errors", switch=(_E, "enabled"), switch_default=False, plan=plan,
    switch_doc="Run the stage (tables test_errors_type1, test_errors_power and test_errors_type3).",
    title="simulated type I, II and III error rates of the paired tests (Urbano et al. 2019)",
    params=TestErrorsParams,
    reads=("te_metrics", "te_pairs", "te_topics", "te_trials", "te_deltas", "te_alphas", "te_tests", "te_B",
           "te_seed"),
    sections=(((_E,),
               ("Which significance test to trust on this collection (stage test_errors, one job per collection, "
               "`metaeval test-errors`): every run's score distribution and the copula of sampled run pairs "
               "fitted, topic sets simulated where the truth is known, and the type I, II (power) and III error "
               "rates of each paired test counted, as Urbano, Lima & Hanjalic (2019). See docs/meta.md.")),),
    outputs=(
        Output("test_errors_type1", "table", "collection",
               "Simulated type I error rate of each paired test (two-tailed) by topic set size and significance "
               f"level alpha: the fraction of simulated topic sets of two runs with the same true mean on which the "
               f"test rejects, {_TE_RATE}; the Markdown and LaTeX show one column per test",
               f"Figures 2-3 of {URBANO_19}",
               columns=("metric", "n_topics", "test", "alpha", "rate", "se", "trials"), condition="test_errors"),
        Output("test_errors_power", "table", "collection",
               "Simulated power (1 - type II error rate) of each paired test (two-tailed) by topic set size, true "
               f"difference delta and significance level alpha, {_TE_RATE}; the Markdown and LaTeX "
               "show one column per test at alpha = 1/20 (or the first level computed), the CSV every level",
               f"Figures 4-5 of {URBANO_19}",
               columns=("metric", "n_topics", "test", "delta", "alpha", "rate", "se", "trials"),
               condition="test_errors"),
        Output("test_errors_type3", "table", "collection",
               "Simulated type III error rate of each paired test (significant in the wrong direction) by topic "
               f"set size, true difference delta and significance level alpha, {_TE_RATE}; the Markdown and LaTeX "
               "show one column per test at alpha = 1/20 (or the first level computed), the CSV every level",
               f"Figure 6 of {URBANO_19}",
               columns=("metric", "n_topics", "test", "delta", "alpha", "rate", "se", "trials"),
               condition="test_errors"),
        Output("test_errors", "text", "collection",
               "The fitted models of the simulation: every run's margin (margins.csv: the distribution family "
               "chosen by AIC, its degrees of freedom, AIC, mean and parameters) and every sampled run pair's "
               "copula (copulas.csv)", f"the simulation of {URBANO_19} (after Urbano & Nagler 2018)",
               columns=("metric", "run", "family", "df", "aic", "mean", "params"),
               formats=("margins.csv", "copulas.csv"), condition="test_errors"),
        Output("test_errors_type1", "figure", "collection",
               "Simulated type I error rate of each paired test against the significance level alpha, one panel "
               "per metric and topic set size, the diagonal (rate = alpha) dashed", f"Figures 2-3 of {URBANO_19}",
               source="test_errors_type1", condition="test_errors",
               draw="metaeval.report.error_rates:plot_test_errors_type1"),
        Output("test_errors_power", "figure", "collection",
               "Simulated power of each paired test against the true difference delta at the significance level "
               "1/20 (or the first level computed), with its standard error as a band, one panel per metric and "
               "topic set size", f"Figures 4-5 of {URBANO_19}", source="test_errors_power",
               condition="test_errors", draw="metaeval.report.error_rates:plot_test_errors_power"),
        Output("test_errors_type3", "figure", "collection",
               "Simulated type III error rate of each paired test (significant in the wrong direction) against the "
               "true difference delta at the significance level 1/20 (or the first level computed), with its "
               "standard error as a band, one panel per metric and topic set size", f"Figure 6 of {URBANO_19}",
               source="test_errors_type3", condition="test_errors",
               draw="metaeval.report.error_rates:plot_test_errors_type3"),
    ),
    when="test_errors enabled")
