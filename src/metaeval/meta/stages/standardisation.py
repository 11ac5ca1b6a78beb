"""Stage ``standardisation``: the score standardisation experiments of Urbano, Lima & Hanjalic
(2019) -- within and between collections, for raw scores and each standardisation (z and N,
Webber, Moffat & Zobel 2008; U, Sakai ICTIR 2016; E, Urbano et al. 2019).  An own job (kind
``other`` with a ``run``): ``metaeval stage standardisation``, ``metaeval.run_stage("standardisation",
...)`` and, when ``standardisation: {enabled: true}``, the generic rule ``own_job_standardisation``
per collection (``workflow/rules/own_job.smk``) run it; its own command (``metaeval standardise
--experiment``, :mod:`metaeval.cli.standardisation`) and API function
(:func:`metaeval.api.standardisation`, returning the frames) write through the same writer
(:func:`metaeval.pipeline.write_own_outputs`: its tables, figures and its folder
``standardisation/``, power.csv and trials.csv).  Its parameters, its config section, its outputs
and its job's arguments are declared here (:mod:`metaeval.dag`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...argtypes import int_at_least
from ...stages import JobPlan, Output, PlanView, StageInfo, parameter
from .cite import URBANO_19
from .common import SEED, STD_TOPICS, STD_TRIALS

def plan(p: PlanView) -> JobPlan:
    """The metrics of the stage's job in the plan of a config: the config's ``metrics`` without
    std= (``reads``: its rule's matrices)."""
    metrics = tuple(m for m in p.metrics if "std=" not in m)
    return JobPlan(values={"std_metrics": metrics}, reads=metrics)


#: the frames the job's run gives besides its tables: the files of its folder
#: (``standardisation/power.csv``, ``trials.csv``: :func:`folder_files`)
POWER, TRIALS = "standardisation_power", "standardisation_trials"


def folder_files(inputs, frames, params):
    """What goes in the stage's folder (``C/standardisation/``): the within-collection power curves
    and every trial's coefficients."""
    yield "power.csv", frames[POWER]
    yield "trials.csv", frames[TRIALS]


def run(inputs, params: StandardisationParams) -> dict:
    """The stage on a collection's matrices (``inputs.matrices``: every run on every topic): both
    experiments on every metric of ``params.std_metrics`` (None: every matrix given), the frames
    of :func:`metaeval.meta.standardisation.stage_standardisation` -- what
    :func:`metaeval.api.standardisation` computes."""
    from ..standardisation import stage_standardisation

    mats = dict(inputs.matrices)
    names = list(mats) if params.std_metrics is None else [str(m) for m in params.std_metrics]
    return stage_standardisation(mats, names, methods=tuple(params.std), n_topics=params.std_topics,
                                 trials=params.std_trials, seed=params.std_seed)


_S = "standardisation"
#: the standardisations besides raw scores
METHODS = ("z", "N", "U", "E")
#: the experiments' defaults (metaeval.meta.standardisation reads them)
DEFAULT_TOPICS, DEFAULT_TRIALS = STD_TOPICS, STD_TRIALS


@dataclass(frozen=True)
class StandardisationParams:
    """The stage's parameters: the options of its command (``metaeval standardise --experiment``,
    which words ``--metrics`` itself; ``--std`` also names the methods of its standardised copies)
    and the keywords of :func:`metaeval.api.standardisation` (no MetaConfig fields)."""

    # the pipeline gives the config's metrics without std= (metaeval.dag.Plan.std_metrics)
    std_metrics: tuple[str, ...] | None = parameter(None, "metrics (default: every matrix)", flag="--metrics",
        nargs="+", field=False)
    # a bad method is the command's usage error (metaeval.cli._std_options.std_methods): parsed as it is
    std: tuple[str, ...] = parameter(METHODS, f"the methods: {' '.join(METHODS)} (default: all four)", nargs="+",
        metavar="X", parse=str, config=(_S, "std"), field=False,
        schema={"type": "array", "items": {"enum": list(METHODS)}, "minItems": 1},
        doc="The standardisations besides raw scores - z and N (Webber et al. 2008), U (Sakai ICTIR 2016), "
        "E (Urbano et al. 2019).")
    std_topics: int = parameter(DEFAULT_TOPICS,
        f"topic-set size: topics per random subset (default {DEFAULT_TOPICS}; at most half the topics)",
        flag="--topics",
        metavar="N", parse=int_at_least(2), config=(_S, "topics"), field=False,
        schema={"type": "integer", "minimum": 2},
        doc="Topic-set size - topics per random subset (at most half the collection's topics).")
    std_trials: int = parameter(DEFAULT_TRIALS, f"random subsets per experiment (default {DEFAULT_TRIALS})",
        flag="--trials", metavar="T", parse=int_at_least(1), config=(_S, "trials"), field=False,
        schema={"type": "integer", "minimum": 1},
        doc="Random subsets per experiment (the paper - 5000).")
    std_seed: int = parameter(SEED, f"random seed (default {SEED})", flag="--seed", metavar="S", config=(_S, "seed"),
        field=False, schema={"type": "integer", "minimum": 0}, doc="Random seed of the topic subsets.")


_STD_METHODS = ("raw scores and the z-scores of Webber et al. (2008) (z), their normal CDF (N), Sakai (2016)'s "
                "std-AB (U) and the empirical CDF (E)")


STAGE = StageInfo(
    "standardisation", "other", run, tables=("standardisation_within", "standardisation_between"),
    folder="standardisation", folder_files=folder_files,
    condition="standardisation", switch=(_S, "enabled"), switch_default=False, plan=plan,
    switch_doc="Run the stage (tables standardisation_within and standardisation_between).",
    title="score standardisation within and between collections (Urbano et al. 2019)",
    params=StandardisationParams,
    reads=("std_metrics", "std", "std_topics", "std_trials", "std_seed"),
    sections=(((_S,),
               ("The score standardisation experiments of Urbano, Lima & Hanjalic (2019) (stage standardisation, "
               "one job per collection, `metaeval standardise --experiment`): within a collection (Kendall's tau_b, "
               "tau_AP-b and Pearson's r between raw and standardised run means on random topic subsets; paired "
               "t test power) and between collections (two disjoint topic sets; Welch t test type I error and "
               "power), for raw scores and each standardisation. On every metric of `metrics` without std=. "
               "See docs/meta.md.")),),
    outputs=(
        Output("standardisation_within", "table", "collection",
               f"Standardisation within a collection: {_STD_METHODS}; per trial a random subset of n_topics "
               "topics, Kendall's tau_b (mean and s.d. over the trials), tau_AP-b and Pearson's r between the runs' "
               "mean raw and mean standardised scores, and the fraction of run pairs the paired t test on the "
               "standardised scores finds significant at the two levels of the columns power_at_ALPHA",
               f"the within-collection experiment of {URBANO_19} (their R/01-within.R)",
               columns=("metric", "std", "n_topics", "trials", "tau", "tau_sd", "tau_ap", "r", "power_at_0.05",
                        "power_at_0.01"), condition="standardisation"),
        Output("standardisation_between", "table", "collection",
               f"Standardisation between collections: {_STD_METHODS}; per trial two disjoint random sets of "
               "topics play two collections: type1 = the fraction of runs Welch's t test finds different from "
               "themselves across the two sets, power = the fraction of pairs of different runs it finds "
               "different, at each alpha; Kendall's tau_b, tau_AP-b and Pearson's r between the two sets' "
               "rankings (means over the trials)",
               f"the between-collection experiment of {URBANO_19} (their R/02-between.R)",
               columns=("metric", "std", "alpha", "type1", "power", "tau", "tau_ap", "r"),
               condition="standardisation"),
        Output("standardisation", "text", "collection",
               "The power curves of the within-collection experiment (power.csv: metric, std, alpha, power) and "
               "every trial's tau_b, tau_AP-b and r in both experiments (trials.csv: metric, experiment, std, "
               "trial, tau, tau_ap, r)", f"the power curves and correlation distributions of {URBANO_19}",
               columns=("metric", "std", "alpha", "power"), formats=("power.csv", "trials.csv"),
               condition="standardisation"),
        # score standardisation (stage standardisation)
        Output("standardisation_power", "figure", "collection",
               "Power and type I error curves between collections: the fraction of pairs of different runs "
               "(left) and of runs against themselves (right) that Welch's t test finds significant, against "
               "alpha, one line per standardisation, one row of panels per metric",
               f"the between-collection power and type I error figures of {URBANO_19}",
               source="standardisation_between", condition="standardisation",
               draw="metaeval.report.standardisation:plot_standardisation_power"),
        Output("standardisation_tau", "figure", "collection",
               "Rank correlations per standardisation: within a collection, the mean tau_b (with its s.d. over "
               "the trials) and tau_AP-b between the rankings by raw and by standardised mean scores, one "
               "panel per metric", f"the within-collection tau and tau_AP figures of {URBANO_19}",
               source="standardisation_within", condition="standardisation",
               draw="metaeval.report.standardisation:plot_standardisation_tau"),
    ),
    when="standardisation configured")
