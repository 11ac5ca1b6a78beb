"""The meta-evaluation stages of one collection: computation only, no files.

Each ``stage_*`` function takes the topic x run matrices (``{metric: DataFrame}``), the metric name
for per-metric stages, and a :class:`MetaConfig`, and returns ``{table name: DataFrame}`` in the
output contract's columns.  :data:`STAGES` holds every method as its module
``metaeval/meta/stages/NAME.py`` declares it (the tables it produces, the metric list it runs over,
the sample streams it uses, its parameters -- the fields of :class:`MetaConfig` -- and its
``run(inputs, params)``, which calls the function here or in its method module); :func:`run_stage`
runs one of them over its metric list and :func:`run_meta` runs all of them in memory.  Writing files is the business of
:mod:`metaeval.pipeline`, which the CLI and the Snakemake rules call.

Per-metric stages can run in separate processes: every stage derives the bootstrap samples from
``(seed, n topics, B)`` alone, so all metrics of a collection share the same ``Q*b`` without
passing files around.  :func:`combine` concatenates the parts in a fixed order.

Metric names: a matrix name (``AP``) is evaluated as is; ``AG_AP`` is the paired test on
``log(AP + 0.00001)`` (Sakai 2007b, Sec. 5.1; only in the paired stage); ``G_AP`` is the geometric
mean of Sakai (2007b) Eq. 7 (unpaired, swap and stability stages).  ``MetaConfig.geometric =
("AP",)`` adds both.
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Callable

import pandas as pd

from . import stages as _stages
from ._validate import as_scores
from .matrices import align_matrices, matrices_for, matrix_for, restrict_runs, select_top_runs
from .metric_forms import (AG_LOG, default_metrics, matrix_name, resolve_metric,  # noqa: F401
                           stage_metric_lists)
from .samples import BootstrapSamples
from .stages import MetaConfig, StageInfo as _StageInfo, StageInputs
from .stages.common import BY_SENSITIVITY
from .stages.gain_sweep import stage_gain_sweep, sweep_available
from .stages.kendall import stage_kendall
from .stages.paired import stage_paired
from .stages.stability import stage_stability
from .stages.swap import stage_swap
from .stages.unpaired import stage_unpaired

__all__ = ["MetaConfig", "resolve_metric", "select_runs", "prepare_matrices", "stage_kendall",
           "stage_run_means", "stage_paired", "stage_unpaired", "stage_swap", "stage_stability",
           "stage_gain_sweep", "stage_collection", "sweep_available", "combine", "sort_by_sensitivity",
           "matrix_name", "stage_metric_lists", "SampleSet", "Stage", "STAGES", "stage_metrics",
           "stage_matrix_names", "run_stage", "run_meta", "run_means_metrics", "TABLE_ORDER", "ROW_ORDER", "sort_rows",
           "sort_table",
           "default_metrics", "with_matrix_names"]

#: a collection's tables as the stages declare them (the first declaration of a name)
_TABLES = {o.name: o for st in reversed(_stages.REGISTRY) for o in reversed(st.outputs)
           if o.kind == "table" and o.scope == "collection"}
_TABLES = dict(reversed(_TABLES.items()))
#: the order of a collection's tables: the papers' (``Output.paper_order``), then every other
#: table in registry order (each stage declares it: nothing is listed here)
TABLE_ORDER: tuple[str, ...] = tuple(sorted(
    _TABLES, key=lambda t: (_TABLES[t].paper_order is None, _TABLES[t].paper_order or 0, list(_TABLES).index(t))))
#: each table's row order in a combined result (``Output.row_order``: the bootstrap tables')
ROW_ORDER: dict[str, tuple[tuple[str, bool], ...]] = {t: o.row_order for t, o in _TABLES.items() if o.row_order}



def with_matrix_names(available, metrics, cfg: MetaConfig):
    """``(metrics, cfg)`` with every measure name (``metrics``, ``select_by``, ``geometric``,
    ``sweep_metrics``) spelt as the matrix of ``available`` it reads
    (:func:`metaeval.meta.matrices.matrix_for`: aliases such as ``PDoc@1000`` find ``Prec@1000``)."""
    available = set(available)
    cfg = replace(cfg, select_by=matrix_for(cfg.select_by, available),
                  geometric=tuple(matrices_for(cfg.geometric, available) or ()),
                  sweep_metrics=tuple(matrices_for(cfg.sweep_metrics, available) or ()))
    return matrices_for(metrics, available), cfg


def select_runs(matrices: dict, cfg: MetaConfig) -> list[str]:
    """The runs to meta-evaluate: the top ``cfg.top_runs`` by the mean of ``cfg.select_by``."""
    first = next(iter(matrices.values()))
    if cfg.top_runs is None:
        return [str(r) for r in first.columns]
    if cfg.select_by not in matrices:
        raise ValueError(f"--top-runs ranks runs by {cfg.select_by!r}, but there is no such matrix "
                         f"(have: {', '.join(sorted(matrices))})")
    return select_top_runs(matrices[cfg.select_by], cfg.top_runs)


def prepare_matrices(matrices: dict, cfg: MetaConfig) -> dict:
    """Aligned copies restricted to :func:`select_runs` (inputs are never modified)."""
    aligned = align_matrices({m: (df if isinstance(df, pd.DataFrame) else pd.DataFrame(df))
                              for m, df in matrices.items()})
    return restrict_runs(aligned, select_runs(aligned, cfg))


def stage_run_means(matrices: dict, cfg: MetaConfig, metrics: list[str] | None = None) -> dict:
    rows = []
    for m in metrics or default_metrics(matrices, cfg):
        df, _, stat = resolve_metric(matrices, m, "unpaired")
        s = as_scores(df, m)
        vals = stat(s.values.T)
        rows.append(pd.DataFrame({"metric": m, "run": list(s.runs), "mean": vals}))
    return {"run_means": _concat(rows, ["metric", "run", "mean"])}


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


def sort_rows(df: pd.DataFrame, order: tuple[tuple[str, bool], ...]) -> pd.DataFrame:
    """``df`` in the declared row order (``((column, ascending), ...)``: stable, missing values
    last); a frame without these columns, or no order, as it is."""
    if not order or any(c not in df.columns for c, _ in order):
        return df
    return df.sort_values([c for c, _ in order], ascending=[a for _, a in order], kind="mergesort",
                          na_position="last").reset_index(drop=True)


def sort_table(name: str, df: pd.DataFrame) -> pd.DataFrame:
    """Table ``name`` in the row order its output declares (:data:`ROW_ORDER`)."""
    return sort_rows(df, ROW_ORDER.get(name, ()))


def sort_by_sensitivity(df: pd.DataFrame) -> pd.DataFrame:
    """A bootstrap table's row order, as the papers list it: sensitivity descending, ties by metric
    name (stable; missing values last).  Frames without these columns are returned as they are."""
    return sort_rows(df, BY_SENSITIVITY)


def combine(parts: list[dict]) -> dict[str, pd.DataFrame]:
    """Concatenate stage outputs per table (in the order given), the tables in :data:`TABLE_ORDER`,
    each in the row order its output declares (the bootstrap tables by sensitivity, as the papers)."""
    names: dict[str, list] = {}
    for p in parts:
        for k, v in p.items():
            names.setdefault(k, []).append(v)
    out = {}
    for k in sorted(names, key=lambda n: (TABLE_ORDER.index(n) if n in TABLE_ORDER else len(TABLE_ORDER), n)):
        out[k] = sort_table(k, _concat(names[k], list(names[k][0].columns)))
    return out


class SampleSet:
    """The seed-derived bootstrap samples of one collection (``n`` topics), drawn on first use per
    stream and then shared by every metric and stage run in this process."""

    def __init__(self, cfg: MetaConfig, n_topics: int):
        self.cfg, self.n = cfg, int(n_topics)
        self._drawn: dict[str, BootstrapSamples] = {}

    def __getitem__(self, stream: str) -> BootstrapSamples:
        if stream not in self._drawn:
            self._drawn[stream] = BootstrapSamples.from_seed(self.cfg.seed, self.n, self.cfg.B, stream)
        return self._drawn[stream]


#: a method as the pipeline runs it: its declaration (metaeval.stages.StageInfo: ``run(inputs,
#: params)``, tables, metric list, sample streams, needs, kind), from its module metaeval.meta.stages.NAME
Stage = _StageInfo

#: every method (the stages of kinds ``matrices`` and ``labelled`` of :data:`metaeval.stages.REGISTRY`,
#: in its order: the order rows appear in a table written by more than one stage, ``asl``: paired,
#: then unpaired).  A new method is one module metaeval/meta/stages/NAME.py plus one registry line.
STAGES: dict[str, Stage] = {s.name: s for s in _stages.REGISTRY if s.is_method}


def _stage(name: str) -> Stage:
    try:
        return STAGES[name]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}; known: {', '.join(STAGES)}") from None


def stage_metrics(name: str, metrics: list[str], cfg: MetaConfig) -> list[str]:
    """The metrics stage ``name`` runs over (``AG_``/``G_`` names included), in table order."""
    st = _stage(name)
    if st.metrics is None and st.metric_list is not None:        # a list of its own (the gain sweep's)
        return list(st.metric_list(cfg))
    return stage_metric_lists(metrics, cfg.geometric)[st.metrics or "plain"]


def stage_matrix_names(name: str, metrics: list[str], cfg: MetaConfig) -> list[str]:
    """The matrices stage ``name`` reads (``AG_X``/``G_X`` read ``X``; and those it declares besides,
    :attr:`metaeval.stages.StageInfo.extra_matrices`: the sweep's variant matrices)."""
    st = _stage(name)
    extra = list(st.extra_matrices(cfg)) if st.extra_matrices is not None else []
    return list(dict.fromkeys([matrix_name(m) for m in stage_metrics(name, metrics, cfg)] + extra))


def run_stage(name: str, matrices: dict, metrics: list[str], cfg: MetaConfig, samples: SampleSet | None = None,
              progress: Callable[[str, str], None] | None = None,
              inputs: dict | None = None, collection=None, gains=None,
              extra: dict | None = None) -> dict[str, pd.DataFrame]:
    """Stage ``name`` over every metric of its list (:func:`stage_metrics`): ``{table: DataFrame}``
    with the rows of the metrics in list order.  ``matrices`` are already restricted to the runs in
    use; ``samples`` defaults to the seed-derived set (the same in every process).  ``inputs``: the
    tables of the stages ``name`` needs (:attr:`Stage.needs`, combined), required for such a stage;
    ``collection`` and ``gains``: the labelled collection and its gain vector, required for a
    labelled stage (:attr:`Stage.labelled`); ``extra``: :attr:`metaeval.stages.StageInputs.extra`.
    Each call is ``STAGES[name].run(StageInputs(...), cfg)``."""
    st = _stage(name)
    say = progress or (lambda stage, metric: None)
    names = stage_metrics(name, metrics, cfg)
    if st.needs and inputs is None:
        raise ValueError(f"stage {name} needs the tables of stage(s) {', '.join(st.needs)}")
    if st.labelled and collection is None:
        raise ValueError(f"stage {name} needs the labelled collection (the .npz cache of metaeval ingest)")
    if samples is None:
        samples = SampleSet(cfg, next(iter(matrices.values())).shape[0])
    base = StageInputs(matrices, tuple(names), None, tuple(samples[s] for s in st.streams), inputs,
                       collection, gains, extra)
    run = st.run
    assert run is not None                     # a method on the matrices
    if not st.per_metric:
        say(name, ",".join(names) if st.metrics is None else "")
        return combine([run(base, cfg)])
    parts = []
    for m in names:
        say(name, m)
        parts.append(run(replace(base, metric=m), cfg))
    return combine(parts)


def run_stages(names: list[str], matrices: dict, metrics: list[str], cfg: MetaConfig, samples: SampleSet,
               progress: Callable[[str, str], None] | None = None) -> dict[str, dict]:
    """``{stage: {table: DataFrame}}`` of the stages ``names`` run one after the other
    (:func:`run_stage`), a stage's needed tables taken from the stages before it in ``names``."""
    done: dict[str, dict] = {}
    for name in names:
        needs = STAGES[name].needs
        inputs = combine([done[n] for n in needs]) if needs else None
        done[name] = run_stage(name, matrices, metrics, cfg, samples, progress, inputs=inputs)
    return done


def run_meta(matrices: dict, cfg: MetaConfig | None = None, metrics: list[str] | None = None,
             collection=None, progress: Callable[[str, str], None] | None = None,
             stage_runner: Callable | None = None) -> dict[str, pd.DataFrame]:
    """Every table of the output contract for one collection, in memory.

    ``matrices``: ``{metric: topic x run DataFrame}`` (all with the same topics and runs); the
    runs are first restricted to the top ``cfg.top_runs`` by ``cfg.select_by``.  ``metrics``:
    which to meta-evaluate (default: every matrix but the gain-sweep variants); ``AG_X``/``G_X``
    names are allowed.  ``collection``: a :class:`metaeval.collection.Collection` for the
    collection-dependent tables.  ``progress(stage, metric)`` is called before each step.
    ``stage_runner``: called as :func:`run_stages` (the default) to run the method stages, e.g. in
    several processes (:func:`metaeval.pipeline.run_meta_files`); the tables are the same.
    Every stage of :data:`STAGES` on matrices runs (the gain sweep when its matrices are present),
    exactly as the pipeline's per-stage jobs do; a stage on the labelled collection
    (:attr:`Stage.labelled`, e.g. incompleteness) has its own command and API function.
    """
    cfg = MetaConfig() if cfg is None else cfg
    say = progress or (lambda stage, metric: None)
    metrics, cfg = with_matrix_names(matrices, metrics, cfg)
    mats = prepare_matrices(matrices, cfg)
    runs = [str(r) for r in next(iter(mats.values())).columns]
    metrics = list(metrics) if metrics is not None else default_metrics(mats, cfg)
    missing = [m for m in list(metrics) + list(cfg.geometric) if matrix_name(m) not in mats]
    if missing:
        raise ValueError(f"no matrix for metric {missing[0]!r} (available: {', '.join(sorted(mats))})")
    lists = stage_metric_lists(metrics, cfg.geometric)
    first = mats[matrix_name(lists["plain"][0]) if lists["plain"] else next(iter(mats))]
    samples = SampleSet(cfg, first.shape[0])
    parts: list[dict] = []
    if collection is not None:
        say("collection", "")
        parts.append(stage_collection(collection, runs))
    say("run_means", "")
    parts.append(stage_run_means(mats, cfg, run_means_metrics(metrics, cfg)))
    todo = [name for name in STAGES
            if not ((applies := STAGES[name].applies) is not None and not applies(mats, cfg))  # e.g. the gain
            and not STAGES[name].labelled]          # sweep without its matrices; labelled: its own command
    done = (stage_runner or run_stages)(todo, mats, metrics, cfg, samples, say)
    return combine(parts + [done[name] for name in todo])


def run_means_metrics(metrics: list[str], cfg: MetaConfig) -> list[str]:
    """The metrics of the ``run_means`` table: every plain metric, then the ``G_X`` ones."""
    lists = stage_metric_lists(metrics, cfg.geometric)
    return lists["plain"] + [m for m in lists["other"] if m not in lists["plain"]]
