"""Stage ``standardisation``: the score standardisation experiments of Urbano, Lima & Hanjalic
(2019) -- within and between collections, for raw scores and each standardisation (z and N,
Webber, Moffat & Zobel 2008; U, Sakai ICTIR 2016; E, Urbano et al. 2019).  Its own command
(``metaeval standardise --experiment``, :mod:`metaeval.cli.standardisation`) and, when configured, its own job
per collection (``workflow/rules/standardisation.smk``); its parameters, its config section and its
job's arguments are declared here (:mod:`metaeval.dag`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import StageInfo, parameter
from .common import SEED

_S = "standardisation"


@dataclass(frozen=True)
class StandardisationParams:
    """The stage's parameters: the options of its command (no MetaConfig fields)."""

    # the pipeline gives the config's metrics without std= (metaeval.dag.Plan.std_metrics)
    std_metrics: tuple[str, ...] | None = parameter(None, "metrics (default: every matrix)", flag="--metrics",
        nargs="+", field=False)
    std: tuple[str, ...] = parameter(("z", "N", "U", "E"), "the standardisations besides raw scores", nargs="+",
        config=(_S, "std"), field=False,
        schema={"type": "array", "items": {"enum": ["z", "N", "U", "E"]}, "minItems": 1},
        doc="The standardisations besides raw scores - z and N (Webber et al. 2008), U (Sakai ICTIR 2016), "
        "E (Urbano et al. 2019).")
    std_topics: int = parameter(50, "topics per random subset", flag="--topics", config=(_S, "topics"), field=False,
        schema={"type": "integer", "minimum": 2},
        doc="Topics per random subset (at most half the collection's topics).")
    std_trials: int = parameter(1000, "random subsets per experiment", flag="--trials", config=(_S, "trials"),
        field=False, schema={"type": "integer", "minimum": 1},
        doc="Random subsets per experiment (the paper - 5000).")
    std_seed: int = parameter(SEED, "random seed", flag="--seed", config=(_S, "seed"), field=False,
        schema={"type": "integer", "minimum": 0}, doc="Random seed of the topic subsets.")


STAGE = StageInfo(
    "standardisation", "other", tables=("standardisation_within", "standardisation_between"),
    condition="standardisation", switch=(_S, "enabled"), switch_default=False,
    switch_doc="Run the stage (tables standardisation_within and standardisation_between).",
    title="score standardisation within and between collections (Urbano et al. 2019)",
    params=StandardisationParams,
    reads=("std_metrics", "std", "std_topics", "std_trials", "std_seed"),
    sections=(((_S,),
               "The score standardisation experiments of Urbano, Lima & Hanjalic (2019) (stage standardisation, "
               "one job per collection, `metaeval standardise --experiment`): within a collection (Kendall's tau_b, "
               "tau_AP-b and Pearson's r between raw and standardised run means on random topic subsets; paired "
               "t test power) and between collections (two disjoint topic sets; Welch t test type I error and "
               "power), for raw scores and each standardisation. On every metric of `metrics` without std=. "
               "See docs/meta.md."),))
