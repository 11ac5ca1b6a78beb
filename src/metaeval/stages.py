"""The stage registry: every stage of the pipeline, declared once (standard library only).

A *stage* is one kind of job of the pipeline.  Every list of stages the project keeps is derived
from :data:`REGISTRY`:

* :data:`metaeval.meta.run.STAGES` -- the meta-evaluation methods with their functions (kinds
  ``"matrices"`` and ``"labelled"``), run by :mod:`metaeval.pipeline`;
* :data:`metaeval.outputs.STAGES` -- the names an output may give as the stage computing it;
* ``FILE_STAGES`` of ``metaeval stage`` (:mod:`metaeval.cli.stage`) -- :func:`file_stages`;
* ``METHOD_STAGES`` of the workflow (``workflow/rules/common.smk``) -- :func:`method_stages`,
  the stages whose tables the ``meta`` job combines.

Kinds:

``"matrices"``  a meta-evaluation method on the topic x run matrices (``metaeval stage NAME``
                writes ``C/parts/NAME/TABLE.csv``; the pipeline runs every one of a collection
                in its ``meta`` job, ``metaeval stage meta``, tables kept in memory);
``"labelled"``  a method that needs the labelled collection (the ``.npz`` cache with document
                identity) and the collection's gains besides the matrices (``metaeval stage NAME
                --collection CACHE --gains G``); it writes its parts like a ``"matrices"`` stage
                and may write a folder of its own (:attr:`StageInfo.folder`);
``"tables"``    a table computed with the tables themselves (Table 1, run means);
``"file"``      a job of ``metaeval stage`` that is not a method (select runs, tables, meta,
                figures, summary);
``"other"``     a job with its own command (the Kishida (2005) reproduction).

This module imports nothing but the standard library, so that :mod:`metaeval.outputs` and the
Snakefile (parsed once per job on a cluster) can read it without numpy or pandas.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StageInfo", "REGISTRY", "KINDS", "names", "get", "method_stages", "file_stages",
           "stage_names"]

KINDS = ("matrices", "labelled", "tables", "file", "other")


@dataclass(frozen=True)
class StageInfo:
    """One stage.  For a method (kinds ``matrices``/``labelled``): ``function`` names its function
    in :mod:`metaeval.meta.run`; ``tables`` the part files it writes; ``metrics`` the metric list
    of :func:`metaeval.meta.run.stage_metric_lists` it runs over (``None``: the gain-sweep
    metrics); ``per_metric`` whether the function is called once per metric; ``streams`` the
    bootstrap sample streams passed to it; ``needs`` the stages whose parts it reads;
    ``condition`` the output condition (:data:`metaeval.outputs.CONDITIONS`) that switches it on;
    ``folder`` a folder of the collection the stage writes besides its parts."""

    name: str
    kind: str
    function: str | None = None
    tables: tuple = ()
    metrics: str | None = "plain"
    per_metric: bool = False
    streams: tuple = ()
    needs: tuple = ()
    condition: str | None = None
    folder: str | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"stage {self.name}: unknown kind {self.kind!r}; known: {', '.join(KINDS)}")
        if (self.kind in ("matrices", "labelled")) != (self.function is not None):
            raise ValueError(f"stage {self.name}: a method (and only a method) names its function")

    @property
    def is_method(self) -> bool:
        return self.kind in ("matrices", "labelled")


#: every stage, methods in the order their rows appear in a table written by more than one of them
#: (``asl``: paired, then unpaired).  A new method is its function in metaeval.meta.run, one entry
#: here, its outputs in metaeval.outputs and one rule in workflow/rules/.
REGISTRY: tuple[StageInfo, ...] = (
    StageInfo("select_runs", "file"),
    StageInfo("collection", "tables"),
    StageInfo("run_means", "tables"),
    StageInfo("kendall", "matrices", "_kendall_stage", ("kendall",), "plain"),
    StageInfo("paired", "matrices", "stage_paired", ("bootstrap_paired", "asl", "tstar"), "paired",
              per_metric=True, streams=("paired",)),
    StageInfo("unpaired", "matrices", "stage_unpaired", ("bootstrap_unpaired", "asl"), "other",
              per_metric=True, streams=("unpaired",)),
    StageInfo("swap", "matrices", "stage_swap", ("swap", "swap_rates"), "other", per_metric=True,
              streams=("paired", "swap")),
    StageInfo("stability", "matrices", "stage_stability", ("stability",), "other", per_metric=True,
              streams=("paired",)),
    StageInfo("gain_sweep", "matrices", "_sweep_stage", ("gain_kendall", "gain_bootstrap"), None,
              streams=("paired",), condition="gain_sweep"),
    StageInfo("rank_correlation", "matrices", "_rank_correlation_stage", ("rank_correlation",), "plain",
              streams=("paired",)),
    StageInfo("discpower", "matrices", "_discpower_stage",
              ("anova", "pvalues", "discriminative_power", "topic_set_size"), "plain",
              needs=("paired", "unpaired")),
    StageInfo("incompleteness", "labelled", "_incompleteness_stage",
              ("incompleteness", "pool_reuse"), "plain",
              streams=("paired",), condition="incompleteness", folder="incompleteness"),
    # risk-sensitive measures against a configured baseline run (issue 30: tables/risk.csv)
    StageInfo("risk", "matrices", "_risk_stage", ("risk",), "plain", condition="risk"),
    StageInfo("tables", "file"),
    StageInfo("meta", "file"),
    StageInfo("figures", "file"),
    StageInfo("summary", "file"),
    StageInfo("kishida", "other"),
    # judgments as a dimension (issue 28): `metaeval judgments`, its own command and job
    StageInfo("judgments", "other"),
    # score standardisation, the experiments of Urbano et al. (2019) (issue 30): its own command
    # `metaeval standardisation` and, when configured, one job per collection
    StageInfo("standardisation", "other", condition="standardisation"),
)

_BY_NAME = {s.name: s for s in REGISTRY}


def names() -> tuple[str, ...]:
    """Every stage name, in registry order."""
    return tuple(s.name for s in REGISTRY)


def get(name: str) -> StageInfo:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}; known: {', '.join(_BY_NAME)}") from None


def stage_names(*kinds: str) -> tuple[str, ...]:
    """The names of the stages of ``kinds``, in registry order."""
    return tuple(s.name for s in REGISTRY if s.kind in kinds)


def method_stages(**conditions) -> list[str]:
    """The methods whose tables the ``meta`` job combines, in order; a conditional one only when
    its condition is on (``method_stages(gain_sweep=False, incompleteness=True)``; default on)."""
    return [s.name for s in REGISTRY if s.is_method
            and (s.condition is None or bool(conditions.get(s.condition, True)))]


def file_stages() -> tuple[str, ...]:
    """The ``metaeval stage`` commands that are not a method."""
    return stage_names("file")
