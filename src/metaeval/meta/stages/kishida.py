"""Stage ``kishida``: the Kishida (2005) reproduction -- Tables 1-5 and the output patterns behind
them, computed from the paper's own definitions (:mod:`metaeval.kishida`), no collection read.  An
own job for the whole run (kind ``other`` with a ``run``, ``run_wide``): ``metaeval stage
kishida``, ``metaeval.run_stage("kishida", ...)`` and, when ``kishida: {enabled: true}``, the
generic rule ``own_job_kishida`` (``workflow/rules/own_job.smk``, one job, not per collection) run
it into ``results/kishida/``; its own command (``metaeval paper-tables kishida``,
:mod:`metaeval.cli.paper_tables`) writes through the same writer
(:func:`metaeval.pipeline.write_own_outputs`).  The tables' Markdown is laid out as the paper's
(:func:`metaeval.report.kishida.stage_texts`, :attr:`~metaeval.stages.StageInfo.table_texts`).
Its parameters (the command's options), its config section and its outputs are declared here."""

from __future__ import annotations

from dataclasses import dataclass

from ...argtypes import comma_list, int_at_least
from ...stages import JobPlan, Output, PlanView, Scope, StageInfo, parameter
from .common import SEED, commas as _commas

_KISHIDA = "Kishida (2005)"
_K = "kishida"


def _list_of(kind: str) -> dict:
    return {"type": "array", "items": {"type": kind}, "minItems": 1}


def _positive() -> dict:
    return {"type": "integer", "minimum": 1}


@dataclass(frozen=True)
class KishidaStageParams:
    """The stage's parameters: the options of its command (``metaeval paper-tables kishida --R
    ...``; on ``metaeval stage kishida``: ``--kishida-R ...``), its config keys (``kishida: {R:
    ...}``); defaults the paper's (:class:`metaeval.kishida.reproduce.KishidaParams`)."""

    kishida_R: tuple[int, ...] = parameter((10, 50, 100), "numbers of relevant documents (10,50,100)", flag="--R",
        parse=comma_list(int, _list_of("integer")), render=_commas, config=(_K, "R"), field=False, schema=_list_of("integer"),
        doc="Table 1 - the numbers of relevant documents R.")
    kishida_v: tuple[float, ...] = parameter((0.1, 0.3, 0.5), "AP scores (0.1,0.3,0.5)", flag="--v", parse=comma_list(float, _list_of("number")),
        render=_commas, config=(_K, "v"), field=False, schema=_list_of("number"), doc="Table 1 - the average precision scores v.")
    kishida_j: int = parameter(101, "rank of the new relevant document (101)", flag="--j", parse=int_at_least(1),
        config=(_K, "j"), field=False, schema=_positive(), doc="Table 1 - the rank j of the new relevant document.")
    kishida_thetas: tuple[float, ...] = parameter((0.9, 0.5), "relevance probabilities (0.9,0.5)", flag="--thetas",
        parse=comma_list(float, _list_of("number")), render=_commas, config=(_K, "thetas"), field=False, schema=_list_of("number"),
        doc="Table 2 - the relevance probabilities theta.")
    kishida_L: int = parameter(50, "topics (50)", flag="--L", parse=int_at_least(1), config=(_K, "L"), field=False,
        schema=_positive(), doc="Table 2 - the topics L.")
    kishida_N: int = parameter(10, "documents per list (10)", flag="--N", parse=int_at_least(1), config=(_K, "N"), field=False,
        schema=_positive(), doc="Table 2 - the documents per list N.")
    kishida_M: int = parameter(1000, "repeated judgments (1000)", flag="--M", parse=int_at_least(1), config=(_K, "M"),
        field=False, schema=_positive(), doc="Table 2 - the repeated judgments M.")
    kishida_seed: int = parameter(SEED, f"random seed (default {SEED})", flag="--seed", config=(_K, "seed"),
        field=False, schema={"type": "integer", "minimum": 0}, doc="Table 2 - the simulation's random seed.")
    kishida_degrees: tuple[int, ...] = parameter((3, 2, 1), "relevance degrees (3,2,1)", flag="--degrees",
        parse=comma_list(int, _list_of("integer")), render=_commas, config=(_K, "degrees"), field=False, schema=_list_of("integer"),
        doc="Tables 3-5 - the relevance degrees.")
    kishida_n: int = parameter(5, "output length (5)", flag="--n", parse=int_at_least(1), config=(_K, "n"), field=False,
        schema=_positive(), doc="Tables 3-5 - the output length n.")
    kishida_b: float = parameter(2.0, "log base of the DCG discount (2)", flag="--b", config=(_K, "b"), field=False,
        schema={"type": "number", "exclusiveMinimum": 1}, doc="Tables 3-5 - the log base b of the DCG discount.")


def paper_params(params: KishidaStageParams | None):
    """The :class:`metaeval.kishida.reproduce.KishidaParams` of the stage's parameters (None: the paper's)."""
    from ...kishida.reproduce import KishidaParams

    p = KishidaStageParams() if params is None else params
    return KishidaParams(R=tuple(p.kishida_R), v=tuple(p.kishida_v), j=p.kishida_j, thetas=tuple(p.kishida_thetas),
                         L=p.kishida_L, N=p.kishida_N, M=p.kishida_M, seed=p.kishida_seed,
                         degrees=tuple(p.kishida_degrees), n=p.kishida_n, b=p.kishida_b)


def run(inputs, params: KishidaStageParams) -> dict:
    """Every table of the reproduction (``inputs``: nothing read; the tables are the paper's own
    computations with ``params``): :func:`metaeval.kishida.reproduce.build_tables`."""
    from ...kishida.reproduce import build_tables

    return dict(build_tables(paper_params(params)))


def plan(p: PlanView) -> JobPlan:
    """The reproduction in the plan of a config: on when ``kishida: {enabled: true}``."""
    return JobPlan(on=p.switched_on(STAGE))


STAGE = StageInfo(
    _K, "other", run, params=KishidaStageParams, plan=plan, run_wide=True, runtime=10,
    reads=("kishida_R", "kishida_v", "kishida_j", "kishida_thetas", "kishida_L", "kishida_N", "kishida_M",
           "kishida_seed", "kishida_degrees", "kishida_n", "kishida_b"),
    switch=(_K, "enabled"), switch_default=True, switch_doc="Include the Kishida outputs in the default target.",
    sections=(((_K,), (f"{_KISHIDA} reproduction - `metaeval paper-tables kishida` into results/kishida/ (stage "
                       "kishida, one job for the run); its parameters those of the command's options.")),),
    title=f"{_KISHIDA}: the tables of the reproduction",
    table_texts="metaeval.report.kishida:stage_texts",
    scopes=(Scope(_K, folders=(("table", ""),), caption_key="{scope}_{name}", reproduction=True,
                  title="Kishida (2005)"),),
    outputs=(
        Output("table1", "table", _K,
               "Change of the average precision score after finding a new relevant document "
               "(unknown relevant documents)", f"Table 1 of {_KISHIDA}", columns=("R", "v", "delta"),
               formats=("csv", "md")),
        Output("table2", "table", _K,
               "Results of the simulation of judgment variation (variance of average precision)",
               f"Table 2 of {_KISHIDA}", columns=("theta", "statistic", "value"), formats=("csv", "md")),
        Output("table3", "table", _K,
               "Statistics of the graded-relevance indicators over the 136 output patterns",
               f"Table 3 of {_KISHIDA}", columns=("indicator", "mean", "std"), formats=("csv", "md")),
        Output("table4", "table", _K, "Correlation matrix of the indicators over the 136 output patterns",
               f"Table 4 of {_KISHIDA}", columns=("indicator", "vS'", "vD", "vQ", "vG", "AP"),
               formats=("csv", "md")),
        Output("table5", "table", _K, "Scores of the indicators for some characteristic output patterns",
               f"Table 5 of {_KISHIDA}", columns=("row", "pattern", "vS'", "vD", "vQ", "vG"),
               formats=("csv", "md")),
        Output("patterns", "table", _K,
               "The output patterns of Sec. 4.3 and every indicator's value on each",
               f"the data behind Tables 3-5 of {_KISHIDA}", columns=("pattern", "vS'", "vD", "vQ", "vG", "AP"),
               formats=("csv",)),
    ))
