"""Run a stage and write its files: the one orchestration layer of metaeval.

:mod:`metaeval.meta` computes (``{table: DataFrame}``, no files); this module reads the inputs of a
stage, calls it and writes its outputs.  Its callers are the ``metaeval`` command line --
``metaeval meta`` (every stage of one collection in one command, on every core: :func:`run_meta_files`) and
``metaeval stage NAME`` (one stage) -- and, through ``metaeval stage``, the Snakemake rules of
``workflow/rules/``.  The two routes run the same stage functions on the same seed-derived samples,
so a pipeline run writes byte-identical tables to a single ``metaeval meta`` run.

Files of one collection ``C`` in the pipeline (docs/pipeline.md):

``C/parts/STAGE/TABLE.csv``  the rows stage ``STAGE`` contributes to table ``TABLE``
                             (:func:`write_stage_parts`; the stages and their tables are
                             :data:`metaeval.meta.run.STAGES`); every stage picks the runs in
                             use itself (:func:`stage_runs`: top K by mean of ``select_by``);
``C/tables/TABLE.{csv,md,tex}`` every table, parts combined and the collection-level tables added
                             (:func:`write_collection_tables`), and ``C/runs_used.csv``, the runs
                             meta-evaluated (:func:`write_runs_used`);
``C/pvalues/METRIC.rthsd.B``  the text files the stages derive from the tables (written with
                             them, :func:`write_texts`: the Discpower files of ``pvalues``);
``C/figures/``, ``summary/`` drawn from the table CSVs (:func:`write_figures`, :func:`write_summary`).

Importing this module is cheap (no pandas, numpy or matplotlib until a function needs them).
"""

from __future__ import annotations

import os
import sys
from functools import partial
from pathlib import Path
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from .forking import (available_cores, deal, fork_map, frozen_gc, process_pool, reuse_freed_memory,
                      sharded_stage_runner, stage_groups)

__all__ = ["read_runs", "load_stage_matrices", "write_part", "write_parts", "read_parts",
           "stage_runs", "write_runs_used", "write_stage_parts", "write_collection_tables",
           "write_collection", "write_tables", "write_figures", "write_summary", "run_meta_files",
           "write_labelled_stage", "write_stage_folder", "write_texts", "caption_notes", "collection_cache",
           "stderr_progress"]


def caption_values(cfg) -> dict:
    """The configured values of the caption parameters (:func:`metaeval.outputs.caption_values`;
    imported on first use: importing the pipeline loads no stage)."""
    from .outputs import caption_values as values

    return values(cfg)


# --------------------------------------------------------------------------- reading and writing
def read_runs(path: str | os.PathLike) -> list[str]:
    """The runs in use (``runs_used.csv``: ``run, mean``), in the order every stage uses them."""
    import pandas as pd

    return [str(r) for r in pd.read_csv(path, dtype={"run": str})["run"]]


#: matrices already read by this process, by (path, size, mtime): the stages of one collection job
#: (and the processes forked for them) read each matrix file once
_READ: dict = {}


def _read_matrix(p: Path):
    from .meta.matrices import read_matrix

    st = p.stat()
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _READ:
        _READ[key] = read_matrix(p)
    return _READ[key].copy()


def load_stage_matrices(matrices_dir, names: Sequence[str], runs: Sequence[str] | None = None) -> dict:
    """``{name: topic x run DataFrame}`` read from ``DIR/NAME.csv``, restricted to ``runs`` (in that
    order) when given; every matrix must hold the same topics and runs."""
    from .errors import InputError
    from .meta.matrices import align_matrices, list_matrices

    d = Path(matrices_dir)
    out, paths = {}, {}
    for name in names:
        p = d / f"{name}.csv"
        if not p.is_file():
            avail = ", ".join(list_matrices(d)) if d.is_dir() else "none"
            raise InputError(f"no matrix for metric {name!r} (available: {avail or 'none'})", p)
        out[name], paths[name] = _read_matrix(p), p
    if runs is not None:
        for name, df in out.items():
            missing = [r for r in runs if r not in df.columns]
            if missing:
                raise InputError(f"runs missing from the matrix: {', '.join(missing[:5])}", paths[name])
            out[name] = df[list(runs)]
    return align_matrices(out, paths) if len(out) > 1 else out


def write_part(df, path: str | os.PathLike) -> Path:
    """One part CSV (floats as shortest repr, ``\\n`` line ends, as the tables), written atomically."""
    from .report.csvio import csv_text
    from .util import atomic_write

    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(csv_text(df))
    return Path(path)


def write_parts(frames: Mapping, out_dir) -> list[Path]:
    """``OUT/TABLE.csv`` for every frame; on a failure no part of this call is left behind."""
    from .util import atomic_dir_outputs

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with atomic_dir_outputs(written):
        for name, df in frames.items():
            written.append(write_part(df, out / f"{name}.csv"))
    return written


def read_parts(parts_dir, stages: Sequence[str]) -> list[dict]:
    """The parts of ``stages`` (``PARTS/STAGE/TABLE.csv`` for every table of the stage), one
    ``{table: DataFrame}`` per stage, in the order given."""
    from .errors import InputError
    from .meta.run import STAGES
    from .report.csvio import read_table

    out = []
    for s in stages:
        if s not in STAGES:
            raise InputError(f"unknown stage {s!r}; known: {', '.join(STAGES)}")
        piece = {}
        for t in STAGES[s].tables:
            p = Path(parts_dir) / s / f"{t}.csv"
            if not p.is_file():
                raise InputError(f"stage {s!r} wrote no part for table {t!r}", p)
            piece[t] = read_table(p)
        out.append(piece)
    return out


def write_tables(tables: Mapping, out_dir, *, jobs: int = 1, **kwargs: Any) -> list[Path]:
    """Every table as ``OUT/NAME.{csv,md,tex}`` (:func:`metaeval.report.tables.write_table`), the
    captions stating the configured caption parameters ``params`` (``alpha``, ``swap_threshold``:
    :data:`metaeval.outputs.CAPTION_PARAMS`); ``labels`` ({name: label},
    :mod:`metaeval.labels`) shown in the Markdown and LaTeX texts; ``matrices`` (the topic x run
    matrices): what the caption notes the stages declare read (:func:`caption_notes`: the Kendall
    table's notes two measures that are the same measure).  With more
    runs than ``pair_top_runs`` (default :data:`metaeval.report.per_pair.PAIR_TOP_RUNS`; 0 = every
    pair) the Markdown and LaTeX of a per-pair table show the pairs of the top runs only.
    ``jobs > 1``: the tables dealt by size into that many processes (:func:`fork_map`), a long
    table's CSV in parts side by side (:func:`_table_tasks`), the same files.  ``select_by``: the
    configured measure that ranks the runs; the primary measure of the captions and the run
    table's order is it when the run means hold it, else their first metric (:func:`table_context`).
    ``formats``: those files of each table only (``("csv",)``: the numbers, laid out later by
    :func:`write_table_views`).  ``cfg``: the
    :class:`~metaeval.meta.run.MetaConfig` whose settings the captions state (:func:`caption_fields`:
    the collection's name, B, whether it reproduces the papers); ``data``: caption fields of the
    data when neither the run means nor the matrices are at hand (a labelled stage run alone:
    :func:`metaeval.outputs.caption_context` of its runs and topics)."""
    tasks, join = table_writing(tables, out_dir, split=jobs > 1, **kwargs)
    return join(_run_tasks_cleaning(tasks, jobs, Path(out_dir)))


def table_writing(tables: Mapping, out_dir, *, labels: Mapping | None = None, matrices: Mapping | None = None,
                  pair_top_runs: int | None = None, select_by: str | None = "AP",
                  formats: tuple[str, ...] | None = None, label_scope: str | None = None, cfg=None,
                  data: Mapping | None = None, split: bool = False,
                  **params: float) -> tuple[list[_Task], Callable[[Mapping[str, list[Path]]], list[Path]]]:
    """:func:`write_tables` as tasks (:func:`_table_tasks`: with ``split`` a long table's CSV in
    parts), to be run with other writing (:func:`run_meta_files`: the figures beside the tables)."""
    from .report.per_pair import PAIR_TOP_RUNS, pair_runs_for
    from .report.tables import table_caption, write_table

    out = Path(out_dir)
    context = {**(data or {}), **table_context(tables, select_by, matrices, labels), **caption_fields(cfg)}
    context.update({k: v for k, v in (data or {}).items() if context.get(k) is None})
    top = pair_runs_for(tables, PAIR_TOP_RUNS if pair_top_runs is None else pair_top_runs,
                        metric=context.get("measure_name"))
    notes = caption_notes()

    def one(name, only=formats):
        df = tables[name]
        caption = None
        note = notes[name](df, matrices, labels) if name in notes else ""
        if note:
            caption = f"{table_caption(name, context=context, **params)} {note}"
        return write_table(df, out / name, kind=name, labels=labels, caption=caption, pair_runs=top,
                           context=context, formats=only, label_scope=label_scope, **params)

    return _table_tasks(tables, out, one, formats, split=split)


def _run_tasks_cleaning(tasks: Sequence[_Task], jobs: int, out: Path) -> dict[str, list[Path]]:
    """:func:`_run_tasks`, the CSV parts of ``out`` (:func:`_table_tasks`) removed when one fails."""
    out.mkdir(parents=True, exist_ok=True)
    try:
        return _run_tasks(tasks, jobs)
    except BaseException:
        for p in out.glob(".*.csv.part*"):
            p.unlink(missing_ok=True)
        raise


#: a table's CSV over this many rows is written in parts of this many rows by the processes of
#: :func:`write_tables` side by side, then joined (whole blocks of
#: :data:`metaeval.report.csvio.CSV_BLOCK_ROWS`: the same text); campaign scale: 8 million p-values
CSV_PART_ROWS = 1_000_000
#: seconds to write one table element (CSV, Markdown and LaTeX; 2-core VM): only to balance the
#: processes' shares of :func:`write_tables` and of the figures (:attr:`Output.draw_seconds`)
_SECONDS_PER_ELEMENT = 0.28e-6


class _Task(NamedTuple):
    """A piece of the writing of outputs: ``run()`` writes files and returns their paths."""

    key: str
    cost: float
    run: Callable[[], list[Path]]


def _run_tasks(tasks: Sequence[_Task], jobs: int) -> dict[str, list[Path]]:
    """``{key: run()}`` of every task, the tasks dealt by cost into ``jobs`` processes
    (:func:`fork_map`; in this process when ``jobs <= 1``)."""
    by_key = {t.key: t for t in tasks}
    groups = deal({t.key: t.cost for t in tasks}, jobs) if jobs > 1 and len(tasks) > 1 else [list(by_key)]
    done: dict[str, list[Path]] = {}
    for part in fork_map(lambda i: {k: by_key[k].run() for k in groups[i]}, len(groups)):
        done.update(part)
    return done


def _table_tasks(tables: Mapping, out: Path, one: Callable[..., list[Path]], formats: tuple[str, ...] | None,
                 *, split: bool) -> tuple[list[_Task], Callable[[Mapping[str, list[Path]]], list[Path]]]:
    """The tasks writing ``tables`` (``one(name, formats)``: one table's files) and the function
    that, given their results, joins the CSV parts of the long tables and returns every path in
    table order.  With ``split``, a table of over :data:`CSV_PART_ROWS` rows has its CSV written
    in parts of that many rows (``OUT/.NAME.csv.partI``, :func:`metaeval.report.tables.write_csv_part`),
    its other files by a task of their own."""
    wanted = ("csv", "md", "tex") if formats is None else tuple(formats)
    tasks: list[_Task] = []
    parts: dict[str, list[str]] = {}
    for name, df in tables.items():
        rows = len(df)
        cost = _SECONDS_PER_ELEMENT * max(1, int(df.size))
        if not (split and "csv" in wanted and rows > CSV_PART_ROWS):
            tasks.append(_Task(f"table:{name}", cost, partial(one, name)))
            continue
        rest = tuple(f for f in wanted if f != "csv")
        if rest:
            tasks.append(_Task(f"table:{name}", 0.5, partial(one, name, rest)))
        keys = parts[name] = []
        for start in range(0, rows, CSV_PART_ROWS):
            stop = min(rows, start + CSV_PART_ROWS)
            key = f"csv:{name}:{start // CSV_PART_ROWS}"
            keys.append(key)
            tasks.append(_Task(key, cost * (stop - start) / rows, partial(_csv_part, df, out, name, start, stop)))

    def join(done: Mapping[str, list[Path]]) -> list[Path]:
        written: list[Path] = []
        for name in tables:
            if name in parts:
                written.append(_join_parts(out / f"{name}.csv", [done[k][0] for k in parts[name]]))
            written += done.get(f"table:{name}", [])
        return written
    return tasks, join


def _csv_part(df, out: Path, name: str, start: int, stop: int) -> list[Path]:
    """Rows ``start:stop`` of table ``name``'s CSV into ``OUT/.NAME.csv.partI`` (:func:`_table_tasks`)."""
    from .report.tables import write_csv_part

    return [write_csv_part(df, out / f".{name}.csv.part{start // CSV_PART_ROWS}", name, start, stop, kind=name)]


def _join_parts(path: Path, parts: Sequence[Path]) -> Path:
    """``path`` written atomically as the parts one after the other; the parts removed."""
    import shutil

    from .util import atomic_write

    try:
        with atomic_write(path, "wb") as fh:
            for p in parts:
                with open(p, "rb") as src:
                    shutil.copyfileobj(src, fh, 1 << 24)
    finally:
        for p in parts:
            Path(p).unlink(missing_ok=True)
    return path


def table_context(tables: Mapping, select_by: str | None = "AP", matrices: Mapping | None = None,
                  labels: Mapping | None = None) -> dict:
    """What the captions and layouts of one collection's tables say about what was computed
    (:func:`metaeval.outputs.caption_context`): the primary measure (``select_by`` when the run
    means hold it, else their first metric; shown by its label, ``measure_name`` the name), the
    number of runs and of topics."""
    from . import outputs as O

    rm = tables.get("run_means")
    metrics = list(dict.fromkeys(rm["metric"])) if rm is not None and len(rm) else []
    name = O.primary_measure(metrics, select_by)
    runs = rm["run"].astype(str).nunique() if rm is not None and len(rm) else None
    topics = len(next(iter(matrices.values())).index) if matrices else None
    ctx = O.caption_context(measure=None if name is None else dict(labels or {}).get(name, name),
                            runs=runs, topics=topics)
    if name is not None:
        ctx["measure_name"] = name
    return ctx


def caption_fields(cfg) -> dict:
    """The caption fields a :class:`~metaeval.meta.run.MetaConfig` gives
    (:func:`metaeval.outputs.caption_context`): the collection's name, the bootstrap samples B and
    the randomised Tukey HSD permutations, and whether the collection is a ``reproduction`` of the
    papers (its captions then say "Regenerates"); ``{}`` without one."""
    if cfg is None:
        return {}
    from . import outputs as O

    return O.caption_context(collection=getattr(cfg, "collection_name", None), B=cfg.B,
                             permutations=getattr(cfg, "rthsd_B", None),
                             reproduction=bool(getattr(cfg, "reproduction", False)))


def caption_notes() -> dict[str, Callable]:
    """``{table: note}``: the caption notes the stages declare for a collection's tables
    (:attr:`metaeval.stages.StageInfo.caption_notes`; not those of a stage's own scope), each
    ``note(table, matrices, labels) -> str``."""
    from .meta import stages

    return {table: stages.resolve(note) for s in stages.REGISTRY if not s.scopes for table, note in s.caption_notes}


# --------------------------------------------------------------------------- stages
def stage_runs(matrices_dir, cfg, runs_path=None) -> list[str] | None:
    """The runs a stage meta-evaluates: those of ``runs_path`` (``runs_used.csv``) when given, else
    the top ``cfg.top_runs`` by mean of the ``cfg.select_by`` matrix (ties by run name), as
    ``metaeval meta`` picks them (:func:`metaeval.meta.run.select_runs`); ``None`` = every run."""
    if runs_path is not None:
        return read_runs(runs_path)
    if cfg.top_runs is None:
        return None
    from .meta.run import select_runs

    return [str(r) for r in select_runs(load_stage_matrices(matrices_dir, [cfg.select_by]), cfg)]


def write_runs_used(matrices_dir, out_path, cfg, runs: Sequence[str] | None = None) -> list[str]:
    """``runs_used.csv`` (``run, mean`` of the ``cfg.select_by`` matrix): the runs meta-evaluated
    (``runs``, default :func:`stage_runs`), in the order every stage uses them."""
    import pandas as pd

    df = load_stage_matrices(matrices_dir, [cfg.select_by])[cfg.select_by]
    used = [str(r) for r in (runs if runs is not None else stage_runs(matrices_dir, cfg) or df.columns)]
    means = df[used].mean(axis=0)
    write_part(pd.DataFrame({"run": used, "mean": means.to_numpy(dtype=float)}), out_path)
    return used


def write_stage_parts(name: str, matrices_dir, out_dir, cfg, metrics: Sequence[str], *, runs_path=None,
                      progress: Callable[[str, str], None] | None = None, parts_dir=None,
                      collection=None, gains=None, folder=None) -> list[Path]:
    """Stage ``name`` of :data:`metaeval.meta.run.STAGES` over its metric list, on the matrices of
    ``matrices_dir`` restricted to the runs in use (:func:`stage_runs`); writes ``OUT/TABLE.csv``
    for every table of the stage (computed in full before the first file is written).  A stage
    that needs other stages' tables (:attr:`metaeval.meta.run.Stage.needs`: ``discpower`` reads
    the ASLs of ``paired`` and ``unpaired``) reads their parts under ``parts_dir``.  A stage on
    the labelled collection (:attr:`metaeval.meta.run.Stage.labelled`) reads ``collection`` (the
    ``.npz`` cache) with the collection's ``gains`` and, given ``folder``, writes its own folder
    there too (what its :attr:`~metaeval.stages.StageInfo.folder_files` give: incompleteness'
    ``trials.csv`` and, with ``write_qrels``, ``qrels/``; :func:`write_stage_folder`)."""
    from .meta.run import STAGES, combine, run_stage, stage_matrix_names

    if name not in STAGES:
        raise ValueError(f"unknown stage {name!r}; known: {', '.join(STAGES)}")
    inputs = None
    if STAGES[name].needs:
        if parts_dir is None:
            raise ValueError(f"stage {name} reads the parts of stage(s) {', '.join(STAGES[name].needs)}: "
                             "give --parts")
        inputs = combine(read_parts(parts_dir, STAGES[name].needs))
    runs = stage_runs(matrices_dir, cfg, runs_path)
    mats = load_stage_matrices(matrices_dir, stage_matrix_names(name, list(metrics), cfg), runs)
    if not STAGES[name].labelled:
        frames = run_stage(name, mats, list(metrics), cfg, progress=progress, inputs=inputs)
        return write_parts({t: frames[t] for t in STAGES[name].tables}, out_dir)
    if collection is None:
        raise ValueError(f"stage {name} reads the labelled collection: give --collection (the .npz cache)")
    from .meta.stages import StageInputs

    own = StageInputs(mats, tuple(stage_matrix_names(name, list(metrics), cfg)),
                      collection=collection_cache(collection), gains=gains, extra={} if folder is not None else None)
    frames = _run_labelled(name, own, cfg)
    written = write_parts({t: frames[t] for t in STAGES[name].tables}, out_dir)
    if folder is not None:
        written += _write_own_folder(name, own, frames, cfg, folder)
    return written


def _run_labelled(name: str, inputs, cfg) -> dict:
    """The frames of stage ``name`` on the labelled collection (``inputs``: its
    :class:`~metaeval.stages.StageInputs`, whose ``extra`` its run may fill for its folder)."""
    from .meta.run import STAGES

    run = STAGES[name].run
    assert run is not None                       # a method with its own job (labelled): it computes
    return run(inputs, cfg)


def _write_own_folder(name: str, inputs, frames: Mapping, cfg, folder) -> list[Path]:
    """Stage ``name``'s own folder (:attr:`~metaeval.stages.StageInfo.folder`): what its
    ``folder_files`` give for this run (nothing declared: an empty folder)."""
    from .meta.run import STAGES

    files = STAGES[name].folder_files
    return write_stage_folder(files(inputs, frames, cfg) if files is not None else (), folder)


def write_stage_folder(items: Iterable, folder) -> list[Path]:
    """A stage's own folder: every ``(path relative to the folder, DataFrame or text)`` of
    ``items`` (an iterator, consumed one file at a time), a DataFrame as a CSV (:func:`write_part`),
    a text as it is; the folder is replaced as a whole (no mix of old and new files)."""
    from .util import replace_dir

    written: list[Path] = []
    with replace_dir(folder, keep_old=False) as out:          # the stage's own folder
        for rel, content in items:
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                path.write_text(content, encoding="utf-8", newline="")
            else:
                write_part(content, path)
            written.append(path)
    return [Path(folder) / p.relative_to(out) for p in written]


def run_own_job(name: str, matrices: Mapping | None, params: Any = None, *, data=None) -> dict:
    """Own job ``name`` (a stage of kind ``other`` with a ``run``: :attr:`metaeval.stages.StageInfo.own_job`)
    on ``matrices`` (``{metric: topic x run DataFrame}``) -- or, a stage on the data
    (:attr:`~metaeval.stages.StageInfo.data`), on ``data`` (:class:`~metaeval.stages.CollectionData`)
    -- : ``{table: DataFrame}``.  ``params``: an instance of its parameter class (None: its
    defaults), its declared checks run first."""
    return own_job_run(name, matrices, params, data=data)[2]


def own_job_run(name: str, matrices: Mapping | None, params: Any = None, *, data=None) -> tuple[Any, Any, dict]:
    """:func:`run_own_job`'s ``(inputs, params, frames)``: the :class:`~metaeval.stages.StageInputs`
    of the run (its ``extra`` as the run filled it, which the stage's ``folder_files`` and
    ``shown`` read), the parameters (the defaults filled in) and the frames."""
    from .meta.stages import CollectionData, StageInputs, check_params, get

    st = get(name)
    if not st.own_job:
        raise ValueError(f"stage {name} is no own job (kind other with a run function)")
    if params is None and st.params_class is not None:
        params = st.params_class()
    if params is not None:
        check_params(params)
    if st.data and data is None:
        data = CollectionData()
    mats = dict(matrices or {})
    inputs = StageInputs(mats, tuple(mats), data=data, extra={})
    assert st.run is not None
    return inputs, params, dict(st.run(inputs, params))


def own_outputs(name: str, kind: str | None = None) -> list:
    """The outputs own job ``name`` writes (of ``kind`` only, when given): those of its scopes
    (:attr:`~metaeval.stages.StageInfo.scopes`), else its outputs of the collection's scope
    (``Output(..., "collection")``: ``results/C/tables``, ``results/C/figures``)."""
    from . import outputs as O
    from .meta.stages import get

    st = get(name)
    if st.scopes:
        return [o for sc in st.scopes for o in O.outputs(sc.name, kind)]
    return [o for o in O.outputs("collection", kind) if name in o.stages]


def own_job_data(matrices: Mapping, matrices_dir=None, out_dir=None, collection: str | None = None) -> dict:
    """What the captions and LaTeX labels of an own job's collection tables say of its data:
    ``context`` (the runs and topics of ``matrices``, the collection's name) and ``label_scope``
    (the collection's name: ``collection``, else the folder's when ``matrices_dir`` is its
    ``matrices/`` folder beside ``out_dir``, as the pipeline lays them out: :func:`collection_scope`)."""
    from . import outputs as O

    first = next(iter(matrices.values()), None)
    name = collection or (collection_scope(Path(out_dir) / "tables", matrices_dir)
                          if matrices_dir is not None and out_dir is not None else None)
    context = O.caption_context(collection=name, runs=None if first is None else first.shape[1],
                                topics=None if first is None else first.shape[0])
    return {"context": context, "label_scope": name}


def _shown(name: str, inputs, frames: Mapping, params: Any, labels_file) -> Any:
    """What own job ``name`` declares its outputs show of this run (:attr:`~metaeval.stages.StageInfo.shown`:
    a :class:`~metaeval.stages.Shown`), None without a declaration."""
    from .meta.stages import get, resolve

    st = get(name)
    return None if st.shown is None else resolve(st.shown)(inputs, frames, params, labels_file)


def _plot_values(o, values: Mapping, frames: Mapping) -> dict:
    """The keyword arguments of figure ``o``'s plotter its ``plot_params`` name: a caption
    parameter's value or caption field (``values``), else a frame of the run (by name)."""
    out = {}
    for keyword, value in o.plot_params:
        if value in values:
            out[keyword] = values[value]
        elif value in frames:
            out[keyword] = frames[value]
        else:
            raise ValueError(f"figure {o.name}: plot_params names {value!r}, no caption value nor frame of the run")
    return out


def write_own_outputs(name: str, frames: Mapping, out_dir, *, figures: bool = True,
                      labels: Mapping | None = None, context: Mapping | None = None,
                      label_scope: str | None = None, params: Any = None, inputs: Any = None,
                      labels_file: Any = None) -> list[Path]:
    """Write the tables and figures own job ``name`` declares (:func:`own_outputs`) under
    ``out_dir``: its scope's root (``results/C/NAME``) for a stage with a scope of its own
    (``Scope(NAME)``), else the collection's folder (``results/C``: ``tables/``, ``figures/``,
    its :attr:`~metaeval.stages.StageInfo.folder`).  ``tables/TABLE.{csv,md,tex}`` with its layout
    (:attr:`~metaeval.stages.StageInfo.layouts`, else the generic one), ``figures/FIGURE.*`` by
    its plotter (:attr:`~metaeval.stages.Output.draw`); all or nothing.  In a scope of its own the
    texts of its tables a stage renders itself (:attr:`~metaeval.stages.StageInfo.table_texts`:
    the Kishida Markdown) replace the generic layout's (:func:`_write_table_texts`).
    ``labels``: the runs and
    measures shown in the Markdown, LaTeX and (collection scope) figures.  In the collection's
    scope ``context`` and ``label_scope`` (:func:`own_job_data`) give the captions their data and
    the LaTeX labels their collection, and the frames of the run that are no declared table (the
    t test's p-values of ``bayes_pairs``) join the layouts' context, by name.  A stage with a
    :attr:`~metaeval.stages.StageInfo.folder` writes it too, ``out_dir/FOLDER/`` replaced as a whole
    by what its ``folder_files(inputs, frames, params)`` give (an own job's folder is made of the
    frames of its run and what its run left in ``inputs.extra``; ``inputs``, ``params``: the run's
    :class:`~metaeval.stages.StageInputs` and parameters, None from an own command's writer that has
    none; :func:`write_stage_folder`; no ``folder_files``: an empty folder).

    In a scope of its own, what the outputs show of the run is what the stage's ``shown`` gives
    (:class:`~metaeval.stages.Shown`, from ``inputs``, the run's :class:`~metaeval.stages.StageInputs`,
    the frames, ``params`` and ``labels_file``, the labels given): the captions' fields and caption
    parameters (``alpha``) and the labels (``labels``, when given, instead); a table is written in its
    declared formats (a long one: ``("csv",)``), its caption with the note its stage declares
    (:attr:`~metaeval.stages.StageInfo.caption_notes`), a frame None is a table nothing fills (not
    written, nor the figures drawn from it); a figure's plotter is called with the values its
    ``plot_params`` name (:func:`_plot_values`) and ``labels`` (when there are any); the folder
    (``folder_files(inputs, frames, params)``) goes under the scope's root."""
    from . import outputs as O
    from .meta.stages import get, resolve
    from .report.figures import plotter, relabel_frame
    from .report.tables import write_table
    from .util import atomic_dir_outputs

    st = get(name)
    out = Path(out_dir)
    written: list[Path] = []
    with atomic_dir_outputs(written):
        tables = own_outputs(name, "table")
        for o in tables:
            if o.name not in frames:
                raise ValueError(f"stage {name}: its run gave no table {o.name!r}")
        if st.scopes:
            shown = _shown(name, inputs, frames, params, labels_file)
            if labels is None and shown is not None:
                labels = shown.labels
            ctx = {**(shown.context if shown is not None else {}), **(context or {})}
            values = {k: ctx.pop(k) for k in list(ctx) if k in O.CAPTION_PARAMS}
            notes = {t: resolve(n) for t, n in st.caption_notes}
            for o in tables:
                df = frames[o.name]
                if df is None:                      # nothing fills it
                    continue
                caption = O.caption(o, context=ctx, **values)
                if o.name in notes:
                    caption += notes[o.name](df, None, labels)
                written += write_table(df, out / o.directory / o.name, kind=o.layout, caption=caption,
                                       labels=labels, context=ctx or None, formats=tuple(o.formats), **values)
            if st.folder:
                files = st.folder_files
                written += write_stage_folder(files(inputs, frames, params) if files is not None else (),
                                              out / st.folder)
            plotted = {**O.caption_values(**values), **ctx}
            for o in own_outputs(name, "figure") if figures else ():
                if frames.get(o.source or o.name) is None:
                    continue
                draw, kwargs = plotter(o.layout)
                kwargs.update(_plot_values(o, plotted, frames))
                if labels is not None:              # the names its figures show
                    kwargs["labels"] = labels
                written += draw(frames[o.source or o.name], out / o.directory / o.name, **kwargs)
            written += _write_table_texts(st, frames, params, out, written)
            return written
        declared = {o.name for o in tables}
        ctx = {**(context or {}), **{k: v for k, v in frames.items() if k not in declared}}
        for o in tables:
            written += write_table(frames[o.name], out / o.directory / o.name, kind=o.layout, labels=labels,
                                   context=ctx or None, label_scope=label_scope)
        if st.folder:
            files = st.folder_files
            written += write_stage_folder(files(inputs, frames, params) if files is not None else (),
                                          out / st.folder)
        for o in own_outputs(name, "figure") if figures else ():
            draw, kwargs = plotter(o.layout)
            written += draw(relabel_frame(frames[o.source or o.name], labels), out / o.directory / o.name,
                            **kwargs)
    return written


def _write_table_texts(st, frames: Mapping, params: Any, out: Path, written: Sequence[Path]) -> list[Path]:
    """The texts of its tables an own job with a scope of its own renders itself
    (:attr:`~metaeval.stages.StageInfo.table_texts`: ``{file name under the scope's root: text}``;
    its parameters' defaults when ``params`` is None), written under ``out`` over what the
    generic layout wrote there; the paths not in ``written`` yet."""
    from .stages import resolve
    from .util import atomic_write

    if st.table_texts is None:
        return []
    if params is None and st.params_class is not None:
        params = st.params_class()
    new: list[Path] = []
    for rel, text in resolve(st.table_texts)(dict(frames), params).items():
        with atomic_write(out / rel, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        if out / rel not in written:
            new.append(out / rel)
    return new


def write_own_job(name: str, matrices_dir, out_dir, params: Any = None, *, metrics: Sequence[str] | None = None,
                  figures: bool = True, labels: Mapping | None = None, labels_file=None,
                  data=None) -> list[Path]:
    """Own job ``name`` on the matrices of ``matrices_dir`` (``metrics``: those only; default every
    one) -- a stage on the data (:attr:`~metaeval.stages.StageInfo.data`): on ``data``
    (:class:`~metaeval.stages.CollectionData`), no matrices --, its outputs written under
    ``out_dir`` (:func:`write_own_outputs`): what ``metaeval stage NAME`` and the rule
    ``own_job_NAME`` (``workflow/rules/own_job.smk``) do.  A stage writing outputs of the
    collection's scope shows the runs and measures by ``labels`` (``{name: label}``), else by those
    of ``labels_file`` (a labels file; None: the runs' default labels,
    :func:`metaeval.labels.labels_for`); one with a scope of its own as its ``shown`` says.  A job
    for the whole run (:attr:`~metaeval.stages.StageInfo.run_wide`: ``metaeval stage kishida``)
    reads no matrices (``matrices_dir`` None), only its ``params``."""
    from .meta.matrices import list_matrices
    from .meta.stages import get

    mats: dict = {}
    if not (get(name).data or get(name).run_wide) or matrices_dir is not None:
        names = list(metrics) if metrics else list_matrices(matrices_dir)
        if not names:
            raise ValueError(f"no matrices (METRIC.csv) in {matrices_dir}")
        mats = load_stage_matrices(matrices_dir, names)
    inputs, params, frames = own_job_run(name, mats, params, data=data)
    if get(name).scopes:
        return write_own_outputs(name, frames, out_dir, figures=figures, labels=labels, params=params,
                                 inputs=inputs, labels_file=labels_file)
    if labels is None:
        from .labels import labels_for

        first = next(iter(mats.values()))
        labels = labels_for([str(r) for r in first.columns], [str(m) for m in mats], labels_file)
    return write_own_outputs(name, frames, out_dir, figures=figures, labels=labels, params=params,
                             inputs=inputs, **own_job_data(mats, matrices_dir, out_dir))


def collection_runs(collection, cfg, gains=None) -> list[str]:
    """The runs meta-evaluated on a labelled collection: the top ``cfg.top_runs`` by mean
    ``cfg.select_by`` (as every stage picks them from the matrices), or every run."""
    if cfg.top_runs is None:
        return list(collection.runs)
    import pandas as pd

    from .meta.run import select_runs
    from .metrics import evaluate, parse_measure

    name = parse_measure(cfg.select_by).name
    vals = evaluate(collection, [name], gains=gains)[name]
    mats = {cfg.select_by: pd.DataFrame(vals.T, index=list(collection.topics), columns=list(collection.runs))}
    return select_runs(mats, cfg)


def write_labelled_stage(name: str, collection, out_dir, cfg, metrics: Sequence[str], *, gains=None,
                         runs: Sequence[str] | None = None, figures: bool = True) -> list[Path]:
    """A stage on the labelled collection run alone (its own command, e.g. ``metaeval
    incompleteness``): stage ``name`` of :data:`metaeval.meta.run.STAGES` on ``collection`` (a
    :class:`~metaeval.collection.Collection` or its ``.npz`` cache) for ``metrics``, with its
    ``gains``, on the runs ``runs`` (default every run); its tables into ``OUT/tables/`` (CSV,
    Markdown, LaTeX), its own folder into ``OUT/FOLDER/`` (:attr:`~metaeval.stages.StageInfo.folder`,
    :func:`write_stage_folder`) and, with ``figures``, its figures into ``OUT/figures/``."""
    from .meta.run import STAGES
    from .meta.stages import StageInputs

    st = STAGES[name]
    if not st.labelled:
        raise ValueError(f"stage {name} runs on the matrices, not alone on the labelled collection")
    inputs = StageInputs({}, tuple(metrics), collection=collection_cache(collection), gains=gains,
                         extra={} if st.folder else None, runs=None if runs is None else tuple(runs))
    frames = _run_labelled(name, inputs, cfg)
    out = Path(out_dir)
    from . import outputs as O

    c = inputs.collection
    data = O.caption_context(runs=len(runs) if runs is not None else len(c.runs), topics=len(c.topics))
    written = write_tables({t: frames[t] for t in st.tables}, out / "tables",
                           **caption_values(cfg), cfg=cfg, data=data)
    if st.folder:
        written += _write_own_folder(name, inputs, frames, cfg, out / st.folder)
    if figures:
        written += write_figures(out / "tables", out / "figures", **caption_values(cfg))
    return written


def collection_scope(tables_dir, matrices_dir) -> str | None:
    """The collection's name when its tables and matrices are in one collection folder, as the
    pipeline writes them (``results/NAME/tables``, ``results/NAME/matrices``): the LaTeX labels'
    scope (``tab:NAME:TABLE``, the same in every run of a config); else None (``tab:TABLE``: the
    tables' bytes do not depend on where they are written)."""
    from .util import published_name

    tables, matrices = Path(tables_dir).absolute(), Path(matrices_dir).absolute()
    if published_name(tables) != "tables" or matrices.name != "matrices":
        return None
    parent = tables.parent.parent / published_name(tables.parent)    # a collection folder written aside
    if parent != matrices.parent:
        return None
    return published_name(matrices.parent)


def write_collection_tables(*, matrices_dir, parts_dir, stages: Sequence[str], out_dir, cfg,
                            metrics: Sequence[str], runs_path=None, collection=None,
                            runs_used=None, texts_dir=None, computed: Mapping | None = None,
                            labels: Mapping | None = None, formats: tuple[str, ...] | None = None) -> list[Path]:
    """Every table of one collection: the parts of ``stages`` combined
    (:func:`metaeval.meta.run.combine`), plus the run means and -- given a collection cache
    (``metaeval ingest``) -- Table 1 and the preferred-rank tables; written as CSV + Markdown +
    LaTeX into ``out_dir``.  ``runs_used``: also write the runs in use there
    (:func:`write_runs_used`).  ``texts_dir``: also write the text files the stages derive from
    the tables into that folder (:func:`write_texts`: the Discpower files of ``pvalues``).
    ``computed``: ``{stage: {table: DataFrame}}`` of stages computed in this process, used
    instead of their parts."""
    from .meta.run import combine, matrix_name, run_means_metrics, stage_collection, stage_run_means

    mean_metrics = run_means_metrics(list(metrics), cfg)
    runs = stage_runs(matrices_dir, cfg, runs_path)
    mats = load_stage_matrices(matrices_dir, list(dict.fromkeys(matrix_name(m) for m in mean_metrics)), runs)
    runs = [str(r) for r in next(iter(mats.values())).columns]
    pieces: list[dict] = []
    if collection is not None:
        pieces.append(stage_collection(collection_cache(collection), runs))
    pieces.append(stage_run_means(mats, cfg, mean_metrics))
    computed = computed or {}
    rest = [s for s in stages if s not in computed]
    on_disk = iter(read_parts(parts_dir, rest) if rest else [])
    pieces += [computed[s] if s in computed else next(on_disk) for s in stages]
    tables = combine(pieces)
    written = write_tables(tables, out_dir, **caption_values(cfg), labels=labels,
                           matrices=mats, pair_top_runs=cfg.pair_top_runs, select_by=cfg.select_by,
                           formats=formats, label_scope=collection_scope(out_dir, matrices_dir), cfg=cfg)
    if texts_dir is not None:
        written += write_texts(tables, cfg, folder=texts_dir)
    if runs_used is not None:
        written.append(Path(runs_used))
        write_runs_used(matrices_dir, runs_used, cfg, runs)
    return written




def write_table_views(tables_dir, names: Sequence[str], *, matrices_dir, runs_path, cfg,
                      labels: Mapping | None = None, figures_dir=None, jobs: int = 1) -> list[Path]:
    """The writers of a collection's tables whose CSVs are computed (``stage meta --formats csv``):
    the Markdown and LaTeX of the tables ``names`` (``TABLES/NAME.csv`` read back, the same texts as
    from the frames in memory) with ``labels``, and, given ``figures_dir``, their figures -- what
    the labels, ``pair_top_runs``, alpha and the swap threshold change, apart from the numbers.
    ``runs_path``: ``runs_used.csv``, the runs whose matrices the captions read (as
    :func:`write_collection_tables`)."""
    import tempfile

    from .meta.run import matrix_name
    from .report.csvio import read_table

    tables_dir = Path(tables_dir)
    tables = {n: read_table(tables_dir / f"{n}.csv") for n in names if (tables_dir / f"{n}.csv").is_file()}
    rm = tables.get("run_means")
    mean_metrics = list(dict.fromkeys(rm["metric"])) if rm is not None and len(rm) else []
    mats = load_stage_matrices(matrices_dir, list(dict.fromkeys(matrix_name(m) for m in mean_metrics)),
                               read_runs(runs_path)) if mean_metrics else None
    written = write_tables(tables, tables_dir, **caption_values(cfg), labels=labels,
                           matrices=mats, pair_top_runs=cfg.pair_top_runs, select_by=cfg.select_by,
                           formats=("md", "tex"), jobs=jobs, label_scope=collection_scope(tables_dir, matrices_dir),
                           cfg=cfg)
    if figures_dir is not None:                  # drawn from these tables only (not others' in the folder)
        Path(figures_dir).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=".tables-", dir=figures_dir) as tmp:
            for n in tables:
                os.symlink((tables_dir / f"{n}.csv").resolve(), Path(tmp) / f"{n}.csv")
            written += write_figures(tmp, figures_dir, **caption_values(cfg),
                                     jobs=jobs, labels=labels, select_by=cfg.select_by)
    return written


def _run_stage_group(names, matrices_dir, parts_dir, cfg, metrics, runs_path, progress) -> dict[str, dict]:
    """``{stage: {table: DataFrame}}`` of the method stages ``names``, run one after the other in
    this process on the runs in use, sharing their bootstrap samples; a stage that needs others'
    tables takes them from this group or, failing that, from their parts under ``parts_dir``."""
    from .errors import InputError
    from .meta.run import STAGES, SampleSet, combine, run_stage, stage_matrix_names

    runs = stage_runs(matrices_dir, cfg, runs_path)
    done: dict[str, dict] = {}
    samples = None
    for name in names:
        try:
            needs = STAGES[name].needs
            inputs = None
            if needs:
                missing = [n for n in needs if n not in done]
                if missing and parts_dir is None:
                    raise ValueError(f"stage {name} reads the parts of stage(s) {', '.join(missing)}: give --parts")
                inputs = combine([done[n] for n in needs if n in done]
                                 + (read_parts(parts_dir, missing) if missing else []))
            mats = load_stage_matrices(matrices_dir, stage_matrix_names(name, list(metrics), cfg), runs)
            if samples is None:
                samples = SampleSet(cfg, next(iter(mats.values())).shape[0])
            frames = run_stage(name, mats, list(metrics), cfg, samples, progress, inputs=inputs)
            done[name] = {t: frames[t] for t in STAGES[name].tables}
        except ValueError as e:
            if isinstance(e, InputError):
                raise
            raise InputError(f"stage {name}: {e}") from None
    return done


def write_collection(*, matrices_dir, stages: Sequence[str], out_dir, cfg, metrics: Sequence[str],
                     parts_dir=None, write_parts_dir=None, runs_path=None, collection=None, runs_used=None,
                     texts_dir=None, figures_dir=None, jobs: int = 1,
                     progress: Callable[[str, str], None] | None = None,
                     labels: Mapping | None = None, formats: tuple[str, ...] | None = None) -> list[Path]:
    """Everything of one collection after its matrices, in one process: the method ``stages`` on
    the matrices (as :func:`write_stage_parts` runs them, but kept in memory; a stage on the
    labelled collection is run by its own job, its parts read from ``parts_dir``), then its tables
    (:func:`write_collection_tables`) and, given ``figures_dir``, its figures (:func:`write_figures`).
    ``jobs > 1`` runs the stages in that many groups side by side (:func:`stage_groups`; the
    others in processes forked from this one, so no further start-up or imports, their tables
    sent back) and draws the figures in that many processes -- the same code as one job per stage,
    so the same bytes.  ``write_parts_dir``: also write each stage's part folder there;
    ``parts_dir``: where to find the parts of a needed stage that is not in ``stages``."""
    from .meta.run import STAGES, stage_matrix_names

    run_here = [s for s in stages if not STAGES[s].labelled]   # the others: their parts, by their own job
    groups = stage_groups(run_here, jobs)
    args = (matrices_dir, parts_dir, cfg, list(metrics), runs_path, progress)
    # every matrix the stages read, read once here (the forked processes inherit them)
    load_stage_matrices(matrices_dir, list(dict.fromkeys(
        [cfg.select_by] + [n for s in run_here for n in stage_matrix_names(s, list(metrics), cfg)])))
    if len(groups) <= 1 or not hasattr(os, "fork"):
        computed = _run_stage_group(run_here, *args)
    else:
        with frozen_gc(), process_pool(len(groups) - 1) as pool:
            # the forked processes report through stderr_progress (a local callback does not pickle)
            child = args[:-1] + (stderr_progress if progress else None,)
            futures = [pool.submit(_run_stage_group, g, *child) for g in groups[1:]]
            computed = _run_stage_group(groups[0], *args)
            for f in futures:
                computed.update(f.result())
    written: list[Path] = []
    if write_parts_dir is not None:
        for name in run_here:
            written += write_parts(computed[name], Path(write_parts_dir) / name)
    written += write_collection_tables(matrices_dir=matrices_dir, parts_dir=parts_dir, stages=stages,
                                       out_dir=out_dir, cfg=cfg, metrics=metrics, runs_path=runs_path,
                                       collection=collection, runs_used=runs_used, texts_dir=texts_dir,
                                       computed=computed, labels=labels, formats=formats)
    if figures_dir is not None:
        if progress:
            progress("figures", "")
        written += write_figures(out_dir, figures_dir, **caption_values(cfg),
                                 jobs=jobs, labels=labels, select_by=cfg.select_by)
    return written


def _declared_draw_seconds(source: str) -> float:
    """Seconds to draw the figures of table ``source`` as their declarations say
    (:attr:`metaeval.outputs.Output.draw_seconds`; 0 when none says)."""
    from . import outputs

    return sum(o.draw_seconds for o in outputs.figures("collection") if o.source == source)


def _draw_cost(path: Path) -> float:
    """Rough seconds to draw the figures of table ``path``: as their declarations say
    (:func:`_declared_draw_seconds`), else a fraction of a second.  Only used to deal the tables
    into balanced groups."""
    return _declared_draw_seconds(path.stem) or (0.3 if path.stat().st_size > 4096 else 0.05)


def write_figures(tables_dir, figures_dir, *, jobs: int = 1, labels: Mapping | None = None,
                  select_by: str | None = None, **params: float) -> list[Path]:
    """Every figure of one collection, drawn from its table CSVs (PNG + PDF)
    (:func:`metaeval.report.figures.make_all_figures`; ``params``: the caption parameters'
    configured values, ``alpha``, ``swap_threshold``).

    ``jobs > 1`` draws in that many processes (forked once matplotlib is imported): the table CSVs
    are dealt into ``jobs`` groups, largest first, and each process draws the figures of its group
    from a folder linking just those tables -- the same drawing code, so the same bytes.  A
    pipeline job with ``threads: 2`` thus draws the t* histograms beside the other figures.
    """
    from functools import partial

    from .report.figures import make_all_figures as _draw

    values: dict[str, Any] = dict(params)
    make_all_figures: Callable[..., list[Path]] = partial(_draw, labels=labels, select_by=select_by, **values)

    tables_dir, figures_dir = Path(tables_dir), Path(figures_dir)
    csvs = sorted(tables_dir.glob("*.csv"), key=lambda p: (-_draw_cost(p), p.name))
    if jobs <= 1 or len(csvs) < 2 or not hasattr(os, "fork"):
        return make_all_figures(tables_dir, figures_dir)
    import shutil
    import tempfile

    groups: list[list[Path]] = [[] for _ in range(min(jobs, len(csvs)))]
    load = [0.0] * len(groups)
    for p in csvs:                                   # costliest table to the least loaded group
        i = load.index(min(load))
        groups[i].append(p)
        load[i] += _draw_cost(p)
    figures_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".tables-", dir=figures_dir) as tmp:
        views = []
        for i, group in enumerate(groups):
            view = Path(tmp) / str(i)
            view.mkdir()
            for p in group:
                try:
                    os.symlink(p.resolve(), view / p.name)
                except OSError:
                    shutil.copyfile(p, view / p.name)
            views.append(view)
        with frozen_gc(), process_pool(len(views) - 1) as pool:
            futures = [pool.submit(make_all_figures, v, figures_dir) for v in views[1:]]
            written = make_all_figures(views[0], figures_dir)
            for f in futures:
                written += f.result()
    return written


def write_summary(collection_dirs: Mapping[str, str], out_dir, *, metric: str | None = None,
                  reproduction: bool = False, labels_file=None, **params: float) -> list[Path]:
    """The cross-collection tables and figures (:func:`metaeval.report.summary.write_summary`);
    ``metric``: the primary measure (the run-means figure's; a collection without it: its first);
    ``reproduction``: every collection reproduces the papers (captions: "Regenerates");
    ``labels_file``: the measures' labels (``labels:``); ``params``: the caption parameters'
    configured values (``alpha``, ``swap_threshold``)."""
    from .report.summary import write_summary as _write_summary

    return _write_summary({k: Path(v) for k, v in collection_dirs.items()}, out_dir, metric=metric,
                          reproduction=reproduction, labels_file=labels_file, **params)


def run_meta_files(matrices: Mapping, cfg, out_dir, *, metrics: Sequence[str] | None = None, collection=None,
                   figures: bool = True, progress: Callable[[str, str], None] | None = None,
                   labels: Mapping | None = None, jobs: int | None = None) -> list[Path]:
    """``metaeval meta``: every stage of one collection (:func:`metaeval.meta.run.run_meta`), the
    tables into ``OUT/tables/`` and, with ``figures``, the figures into ``OUT/figures/``, the
    text files derived from the tables into ``OUT/NAME/`` (:func:`write_texts`: the Discpower
    files into ``OUT/pvalues/``).  ``jobs`` (default: the available cores) processes
    run the stages and draw the figures side by side (:func:`sharded_stage_runner`,
    :func:`write_figures`; the same bytes).  Written aside and published in ``OUT`` file by file
    (:func:`metaeval.util.replace_dir`): a run killed midway leaves the old output; other commands'
    files in ``OUT`` (test-errors', standardise's tables beside these) stay."""
    from .meta.run import run_meta
    from .util import replace_dir

    jobs = available_cores() if jobs is None else max(1, int(jobs))
    reuse_freed_memory()
    tables = run_meta(dict(matrices), cfg, metrics=None if metrics is None else list(metrics),
                      collection=collection, progress=progress,
                      stage_runner=sharded_stage_runner(jobs) if jobs > 1 else None)
    with replace_dir(out_dir) as out:
        # the tables (a long table's CSV in parts), the text files and the figures (drawn from the
        # tables in memory, as their CSVs hold them) dealt together into the processes
        tasks, join = table_writing(tables, out / "tables", **caption_values(cfg), labels=labels, matrices=matrices,
                                    pair_top_runs=cfg.pair_top_runs, select_by=cfg.select_by, cfg=cfg,
                                    split=jobs > 1)
        tasks.append(_Task("texts", 1.0, lambda: write_texts(tables, cfg, out)))
        drawn = _figure_tasks(tables, out / "tables", out / "figures", labels=labels, select_by=cfg.select_by,
                              **caption_values(cfg)) if figures else []
        if drawn and progress:
            progress("figures", "")
        done = _run_tasks_cleaning(tasks + drawn, jobs, out / "tables")
        written = join(done) + done["texts"] + [p for t in drawn for p in done[t.key]]
    return written


def _figure_tasks(tables: Mapping, tables_dir: Path, figures_dir: Path, *, labels: Mapping | None,
                  select_by: str | None, **params: float) -> list[_Task]:
    """A task per table with figures (:func:`metaeval.report.figures.make_all_figures` of that
    table, in memory as its CSV holds it), costed by the figures' ``draw_seconds``; matplotlib is
    imported here, before the processes are forked."""
    from . import outputs
    from .report.figures import make_all_figures
    from .report.tables import csv_frame

    figures_dir.mkdir(parents=True, exist_ok=True)
    values: dict[str, Any] = dict(params)
    tasks = []
    for source in dict.fromkeys(o.source for o in outputs.figures("collection") if o.source in tables):
        assert source is not None
        cost = _declared_draw_seconds(source) or 0.3
        tasks.append(_Task(f"figures:{source}", cost, partial(
            make_all_figures, tables_dir, figures_dir, labels=labels, select_by=select_by,
            frames={source: csv_frame(tables[source], source)}, **values)))
    return tasks


def write_texts(tables: Mapping, cfg, root=None, *, folder=None) -> list[Path]:
    """The text files the stages derive from ``tables`` (:attr:`metaeval.stages.StageInfo.texts`,
    each ``files(tables, cfg)``; ``cfg`` the :class:`~metaeval.meta.run.MetaConfig`): each text
    output's files in ``ROOT/NAME/`` (``pvalues/METRIC.rthsd.B``), for the stages with a table in
    ``tables``; or, given ``folder``, those of every stage in that folder, made even when it stays
    empty (the tables job's ``--texts``: the job's output folder).  Each file is written
    atomically; on a failure no file of this call is left behind."""
    from .meta import stages
    from .util import atomic_dir_outputs, atomic_write

    if (root is None) == (folder is None):
        raise ValueError("write_texts: give the root of the text outputs' folders or one folder")
    if folder is not None:
        Path(folder).mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with atomic_dir_outputs(written):
        for st in stages.REGISTRY:
            if folder is None and not any(t in tables for t in st.tables):
                continue
            for declared in st.texts:
                out = Path(folder) if folder is not None else Path(root) / declared.output
                out.mkdir(parents=True, exist_ok=True)
                files = declared.files(tables, cfg)
                for name, text in (files.items() if isinstance(files, Mapping) else files):
                    path = out / name
                    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
                        fh.write(text)
                    written.append(path)
    return written


def collection_cache(collection):
    """A :class:`metaeval.collection.Collection`, or the one cached in an npz file."""
    if not isinstance(collection, (str, os.PathLike)):
        return collection
    from .collection import Collection
    from .errors import InputError

    try:
        return Collection.load(collection)
    except (OSError, ValueError, KeyError) as e:
        raise InputError(f"cannot load the collection cache: {e}", collection) from None


def stderr_progress(stage: str, metric: str) -> None:
    """Progress line on stderr (``metaeval meta: paired AP``)."""
    print(f"metaeval meta: {stage}" + (f" {metric}" if metric else ""), file=sys.stderr, flush=True)
