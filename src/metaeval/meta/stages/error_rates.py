"""Stage ``test_errors``: which significance test to trust on this collection -- the simulated
type I, II and III error rates of the paired tests (Urbano, Lima & Hanjalic 2019;
:mod:`metaeval.meta.error_rates`).  An own job (kind ``other`` with a ``run``): ``metaeval stage
test_errors``, ``metaeval.run_stage("test_errors", ...)`` and, when ``test_errors: {enabled:
true}``, the generic rule ``own_job_test_errors`` per collection (``workflow/rules/own_job.smk``)
run it; its own command (``metaeval test-errors``, :mod:`metaeval.cli.error_rates`) and API
function (:func:`metaeval.api.test_errors`, returning the whole result) write through the same
writer (:func:`metaeval.pipeline.write_own_outputs`: its tables, figures and its folder
``test_errors/``, margins.csv and copulas.csv).  Its parameters (defaults as the command's), its
config section, its outputs and its job's arguments are declared here (:mod:`metaeval.dag`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...argtypes import comma_list, int_at_least, ints_at_least, names_in, probabilities
from ...stages import JobPlan, Output, PlanView, StageInfo, parameter
from .cite import URBANO_19
from .common import B_SCHEMA, SEED, TE_ALPHAS, TE_DELTAS, TE_TESTS, TE_TOPICS, check_B, commas as _commas

# the names and defaults of the test-errors stage (standard library only: the config schema and
# `metaeval --help` import no numpy), kept in .common: metaeval.meta.error_rates and urbano_tests read them there
#: the tests, as ``metaeval compare --test`` spells them
TESTS = TE_TESTS
#: the paper's significance levels (``R/common.R``: 1:9 * .001, 1:9 * .01, .1)
DEFAULT_ALPHAS = TE_ALPHAS
#: the paper's effect sizes (seq(.01, .1, .01))
DEFAULT_DELTAS = TE_DELTAS
#: the paper's topic set sizes
DEFAULT_TOPICS = TE_TOPICS
#: the tests' conventions the simulation follows (the paper's ``ir_tests.R``)
CONVENTIONS = ("urbano2019",)


def plan(p: PlanView) -> JobPlan:
    """The metrics of the stage's job in the plan of a config: its own ``metrics`` or the config's
    (``reads``: its rule's matrices), computed by the metrics job when the stage is on."""
    te = p.config.get("test_errors") or {}
    metrics = tuple(p.measures(te["metrics"], "test_errors.metrics") if te.get("metrics") else p.metrics)
    return JobPlan(values={"te_metrics": metrics}, reads=metrics,
                   matrices=metrics if p.switched_on(STAGE) else (), data=True)


#: the frames of the fitted models the job's run gives besides its tables: the files of its folder
#: (``test_errors/margins.csv``, ``copulas.csv``: :func:`folder_files`)
MARGINS, COPULAS = "test_errors_margins", "test_errors_copulas"


def frames(result) -> dict:
    """The job's frames of a :class:`metaeval.meta.error_rates.TestErrors`: its three tables and
    the fitted models (:data:`MARGINS`, :data:`COPULAS`: its folder's files)."""
    return {**result.tables, MARGINS: result.margins, COPULAS: result.copulas}


def folder_files(inputs, frames, params):
    """What goes in the stage's folder (``C/test_errors/``): the fitted margins and copulas."""
    yield "margins.csv", frames[MARGINS]
    yield "copulas.csv", frames[COPULAS]


def run(inputs, params: TestErrorsParams) -> dict:
    """The stage on a collection's matrices (``inputs.matrices``: every run on every topic): the
    simulation of every metric of ``params.te_metrics`` (None: every matrix given), as
    :func:`frames` gives it -- what :func:`metaeval.api.test_errors` computes."""
    from ..error_rates import test_errors

    if params.te_conventions not in CONVENTIONS:
        raise ValueError(f"unknown conventions {params.te_conventions!r}; expected one of {', '.join(CONVENTIONS)}")
    kw = {k: v for k, v in (("deltas", params.te_deltas), ("alphas", params.te_alphas), ("tests", params.te_tests))
          if v is not None}                        # None: the default, as the API has it
    return frames(test_errors(dict(inputs.matrices),
                              metrics=None if params.te_metrics is None else [str(m) for m in params.te_metrics],
                              pairs=params.te_pairs, topics=params.te_topics, trials=params.te_trials,
                              B=params.te_B, seed=params.te_seed, **kw))


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
    "test_errors", "other", run, tables=("test_errors_type1", "test_errors_power", "test_errors_type3"),
    folder="test_errors", folder_files=folder_files, runtime=120,
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
