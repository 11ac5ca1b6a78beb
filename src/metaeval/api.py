"""The one-call Python API: pandas DataFrames in, pandas DataFrames out.

* :func:`evaluate` -- qrels + runs (paths or DataFrames) -> a tidy DataFrame ``run, topic, measure,
  value``, the values of ``metaeval matrices`` (same code, same policies).
* :func:`meta_evaluate` -- such a tidy DataFrame (or a dict of topic x run matrices) -> a
  :class:`MetaResult` holding every table of ``metaeval meta`` as a DataFrame (the content of its
  CSV files) and writing the CSV / Markdown / LaTeX tables and the figures with ``.write(out_dir)``.

Both are exported lazily by :mod:`metaeval` (``metaeval.evaluate``); importing :mod:`metaeval` loads
neither pandas' plotting, matplotlib nor Snakemake.  Walkthrough: ``docs/python.md``.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .meta.display import NamedTables, Result
from .meta.stages.bayes import BayesParams as _BayesP
from .meta.stages.common import SEED
from .meta.stages.error_rates import CONVENTIONS as _TE_CONVENTIONS
from .meta.stages.error_rates import TestErrorsParams as _TeP
from .meta.stages.standardisation import StandardisationParams as _StdP

__all__ = ["evaluate", "meta_evaluate", "MetaResult", "Result", "collection", "tidy_to_matrices", "incompleteness", "compare",
           "judgments", "standardisation", "test_errors", "ppi", "reproducibility", "bayes", "run_stage"]

from .meta.matrices import TIDY_COLUMNS, tidy_to_matrices  # noqa: F401  (re-exported; meta.compare uses them too)


# ------------------------------------------------------------------------------- the results
def _sized(writer: Any) -> Any:
    """``writer`` taking ``figure_width`` and ``figure_formats`` besides: its figures drawn at that
    width in those formats (:func:`metaeval.report.figure_size.figure_settings`)."""
    def write(res: Any, folder: Path, figures: bool, *, figure_width: str | float | None = None,
              figure_formats: str | Sequence[str] | None = None) -> Any:
        from .report.figure_size import figure_settings

        with figure_settings(figure_width, figure_formats):
            return writer(res, folder, figures)
    return write


def _attached(res: Any, writer: Any, out: str | os.PathLike | None, figures: bool, owner: str,
              figure_width: str | float | None = None, figure_formats: str | Sequence[str] | None = None) -> Any:
    """``res`` (a :class:`~metaeval.meta.display.Result`) with its writer, published as command
    ``owner``'s output (:func:`_published`), written into ``out`` first when given (its figures
    ``figure_width`` wide, in ``figure_formats``: as ``res.write``)."""
    res._writer = _sized(_published(writer, owner))
    if out is not None:
        res.write(out, figures=figures, figure_width=figure_width, figure_formats=figure_formats)
    return res


def _published(writer: Any, owner: str) -> Any:
    """``writer(res, folder, figures)`` run through the one publisher
    (:func:`metaeval.publish.publishing`): written beside ``folder`` and committed as command
    ``owner``'s files (the command line's manifest name: a rerun of the API or of the command
    replaces them), all or nothing -- an error or Ctrl-C leaves ``folder`` as it was.  The paths
    returned are the published ones."""
    def write(res: Any, folder: Path, figures: bool) -> list[Path]:
        from .publish import publishing

        folder = Path(folder)
        with publishing(folder, owner) as tmp:
            paths = list(writer(res, tmp, figures) or [])
        return [folder / Path(p).relative_to(tmp) if Path(p).is_relative_to(tmp) else Path(p) for p in paths]
    return write


# ----------------------------------------------------------------------------------- evaluate
def _is_frame(x) -> bool:
    return isinstance(x, pd.DataFrame)


def _run_items(runs) -> list[tuple]:
    """``runs`` -> list of ("frame", name, DataFrame) / ("path", spec) items."""
    if _is_frame(runs):
        return [("frames", runs)]                  # one run per value of a 'run' column
    out: list[tuple]
    if isinstance(runs, Mapping):
        out = []
        for name, v in runs.items():
            if _is_frame(v):
                out.append(("frame", str(name), v))
            else:
                raise TypeError(f"runs[{name!r}]: expected a DataFrame (query_id, doc_id, score[, rank]), "
                                f"got {type(v).__name__}")
        return out
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    out = []
    for r in runs:
        if _is_frame(r):
            raise TypeError("a list of runs holds paths; give DataFrames as one frame with a 'run' "
                            "column or as a dict {run name: DataFrame}")
        out.append(("path", r))
    return out


def _input_form(qrels, runs) -> str:
    """``"trec"`` or ``"ntcir"`` (:func:`metaeval.io.conventions.input_form`) of the API's inputs."""
    from .io.conventions import input_form

    return input_form(qrels, runs)


def collection(qrels, runs, *, order: str | None = None, depth: int | None = 1000,
               max_level: int | None = None, trec_eval_version: int = 10):
    """The labelled :class:`~metaeval.collection.Collection` of :func:`evaluate`'s inputs.

    Files only (paths, directories, globs) go through :func:`metaeval.io.load_collection` exactly as
    ``metaeval matrices`` does; DataFrames through :mod:`metaeval.io.frames`.
    """
    from .io import load_collection
    from .io.frames import (collection_from_parsed, parse_run_source, read_qrels_any, run_from_frame,
                            runs_from_frame)
    from .io.runs import expand_runs

    if order not in (None, "file", "score", "rank"):
        raise ValueError(f"order must be 'file', 'score', 'rank' or None, got {order!r}")
    from .io.frames import as_qrels_input, as_runs_input

    qrels, runs = as_qrels_input(qrels), as_runs_input(runs)
    items = _run_items(runs)
    paths = [it[1] for it in items if it[0] == "path"]
    if not _is_frame(qrels) and len(paths) == len(items) and order != "rank":
        return load_collection(qrels, paths, order=order, depth=depth, max_level=max_level,
                               trec_eval_version=trec_eval_version)
    if order == "rank" and paths:
        raise ValueError("order='rank' applies to DataFrame runs only (run files are in rank order)")
    q = read_qrels_any(qrels, max_level=max_level)
    # one rule (metaeval.io.conventions): TREC input by score, NTCIR input in file order; a frame
    # without a score column falls back to its rank column, then its row order
    if order is None:
        trec = _input_form(q, runs) == "trec"
        from .io.conventions import conventional

        file_order: str = conventional("score" if trec else "file")
        frame_order: str | None = None if trec else conventional("file")
    else:
        file_order, frame_order = order, order
    parsed = []
    if paths:
        for src in expand_runs(paths):
            parsed.append(parse_run_source(src, file_order))
    for kind, *rest in items:
        if kind == "frame":
            name, df = rest
            parsed.append(run_from_frame(df, name, frame_order))
        elif kind == "frames":
            parsed.extend(runs_from_frame(rest[0], "run", frame_order))
    from .io.ingest import check_trec_eval_version

    return collection_from_parsed(q, parsed, depth=depth, max_level=max_level,
                                  trec_eval_version=check_trec_eval_version(trec_eval_version))


def _renamed(new: str, new_value: Any, old: str, old_value: Any, function: str, stacklevel: int = 3) -> Any:
    """The value of an argument renamed from ``old`` to ``new`` (the old name kept one release, with
    a ``DeprecationWarning``)."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise TypeError(f"{function}: give {new}= only ({old}= is its old name)")
    warnings.warn(f"{function}({old}=...) is deprecated and goes in the next release; use {new}=",
                  DeprecationWarning, stacklevel=stacklevel)
    return old_value


def evaluate(qrels, runs, metrics: str | Iterable[str] | None = None, *, gains: str | Iterable[float] | None = None,
             order: str | None = None, depth: int | None = 1000, max_level: int | None = None,
             condensed: bool = False, vocabulary: str | None = None,
             trec_eval_version: int = 10, measures: str | Iterable[str] | None = None) -> pd.DataFrame:
    """Per-topic scores of every run under every measure, as a tidy DataFrame.

    ``qrels``: a path (NTCIR ``TOPIC DOCID Lk`` or TREC ``TOPIC 0 DOCID REL``, gzip ok, or an
    NTCIREVAL per-topic directory) or a DataFrame ``query_id, doc_id, relevance`` -- or as the other
    toolkits write them: PyTerrier's ``qid, docno, label``, ranx's ``q_id, doc_id, score`` or its
    ``Qrels`` object, ``{query: {doc: grade}}``, ir_measures' ``Qrel`` namedtuples.
    ``runs``: a path, a directory, a glob, a list of those; a DataFrame ``query_id, doc_id, score``
    with optional ``run`` (one run per value) and ``rank``; or a dict run name -> DataFrame -- or
    PyTerrier's ``qid, docno, score, rank``, ranx's ``q_id, doc_id, score`` or its ``Run`` objects
    (one, a list or a dict), ir_measures' ``ScoredDoc`` namedtuples; the same numbers as files.
    ``metrics``: canonical names or aliases (``"AP"``, ``"nDCG@10"``, ``"Q"``, ...); two spellings
    of one measure are computed once, with a warning (``measures=``, its old name, is deprecated).  ``gains``: gains of L1..LH (``"1:2:3"`` or a
    sequence; default 1:2:...:H).  ``order``: ``None`` = the input's conventions, one rule for
    files and DataFrames (docs/io.md, "Conventions"): TREC input (TREC six-column runs or
    DataFrames ``query_id, doc_id, score``, with TREC-form qrels or a qrels DataFrame) by score
    with trec_eval's tie rule, whether or not a DataFrame has a ``rank`` column; NTCIR input
    (NTCIR-form qrels, ``.res`` runs) in file order (NTCIREVAL); ``"file"``, ``"score"`` or
    ``"rank"`` for every run.  A run whose own order is not by decreasing score on some topic gets
    one warning (not under an explicit ``order="score"``).  ``depth``: truncation (None: none).
    ``trec_eval_version``: 10 (default) ranks by score in double precision, as trec_eval 10.0 and
    ``metaeval trec_eval`` (so the means of the ``trec.*`` measures are the drop-in's); 9 in single
    precision, as trec_eval 9.0.x, pytrec_eval and ir_measures.
    ``vocabulary``: how ambiguous names are read (``nDCG@10``, ``AP@100``, ``ERR@20``, ``RBP``):
    ``"ntcireval"`` (NTCIREVAL's meanings) or ``"ir_measures"`` (ir_measures' / trec_eval's);
    default ``"ir_measures"`` for TREC input or ``order="score"``, else ``"ntcireval"``.  Any measure takes
    ``judged_only=True`` (computed on the condensed lists, unjudged documents removed) and the
    binary ones ``rel=`` (``AP(rel=2)``: levels below 2 count as nonrelevant); docs/metrics.md.

    Returns columns ``run, topic, measure, value``: one row per run, topic (the qrels topics with a
    relevant document, string order) and measure (canonical name), runs sorted by name, measures in
    the order asked; ``value`` is float64, exactly the ``metaeval matrices`` value.
    """
    from .errors import InputError
    from .metrics import compute_matrices, parse_gains
    from .metrics.registry import check_vocabulary, unique_measures

    measures = _renamed("metrics", metrics, "measures", measures, "evaluate")
    if measures is None:
        raise TypeError("evaluate: metrics= is required (the measures to compute)")

    from .io.frames import as_qrels_input, as_runs_input

    qrels, runs = as_qrels_input(qrels), as_runs_input(runs)       # PyTerrier's, ranx's, ir_measures'
    if isinstance(measures, str):
        from .metrics.registry import split_names

        measures = split_names(measures)
    if vocabulary is None and order is None:           # the input's conventions (docs/io.md)
        vocabulary = "ir_measures" if _input_form(qrels, runs) == "trec" else "ntcireval"
    vocabulary = check_vocabulary(vocabulary, order)
    ms = unique_measures(list(measures), where="measures", stacklevel=3, vocabulary=vocabulary)
    if not ms:
        raise ValueError("no measure given")
    g = None if gains is None else parse_gains(gains if isinstance(gains, str) else list(gains))
    c = collection(qrels, runs, order=order, depth=depth, max_level=max_level, trec_eval_version=trec_eval_version)
    if g is not None and len(g) < c.max_level:
        raise InputError(f"gains gives {len(g)} values but the qrels have levels L1..L{c.max_level}")
    if g is not None and max_level is None:
        from .metrics.registry import warn_extra_gains

        warn_extra_gains(g, c.max_level, gains if isinstance(gains, str) else None, stacklevel=3)
    if condensed:
        c = c.condensed()
    vals = compute_matrices(c, ms, g)                          # {name: (runs, topics)}
    names = list(vals)
    R, T, M = len(c.runs), len(c.topics), len(names)
    cube = np.stack([vals[n] for n in names], axis=-1) if M else np.zeros((R, T, 0))
    return pd.DataFrame({
        "run": np.repeat(np.array(c.runs, dtype=object), T * M),
        "topic": np.tile(np.repeat(np.array(c.topics, dtype=object), M), R),
        "measure": np.tile(np.array(names, dtype=object), R * T),
        "value": cube.reshape(-1).astype(np.float64),
    })


def compare(scores, *, baseline: str | list[str] | None = None, labels: str | Mapping[str, str] | None = None,
            metrics: Iterable[str] | None = None, test: str = "paired-t", correction: str | None = None,
            alpha: float = 0.05, B: int | None = None, seed: int = SEED, ci: float = 0.95,
            batch: int | None = None, conventions: str = "metaeval",
            risk_alpha: float | None = None) -> pd.DataFrame:
    """:func:`metaeval.meta.compare.compare` (significance tests, corrections, effect sizes: the
    table of ``metaeval compare``) with the baseline named by its run name or its label -- from
    ``labels`` (a labels file or a dict ``{run: label}``) or the default short name
    (:mod:`metaeval.labels`: ``pash_f1`` for ``dl-20-official-input.pash_f1``); a list of
    baselines compares every run with each -- and ``metrics`` by any alias; every other option as
    there (``B`` None: the test's own default)."""
    from .labels import labels_for, resolve_run
    from .meta.compare import compare as _compare

    if baseline is not None:
        if isinstance(scores, pd.DataFrame) and {"run", "measure", "value"} <= set(scores.columns):
            runs = [str(r) for r in dict.fromkeys(scores["run"])]
        elif isinstance(scores, Mapping) and scores:
            runs = [str(r) for r in next(iter(scores.values())).columns]
        else:
            runs = [str(r) for r in getattr(scores, "columns", [])]
        known = labels_for(runs, [], labels)
        if isinstance(baseline, str):
            baseline = resolve_run(baseline, runs, known)
        else:                                   # several baselines: every run against each
            baseline = [resolve_run(str(b), runs, known) for b in baseline]
    return _compare(scores, baseline=baseline, metrics=None if metrics is None else list(metrics), test=test,
                    correction=correction, alpha=alpha, B=B, seed=seed, ci=ci, batch=batch,
                    conventions=conventions, risk_alpha=risk_alpha)


# ----------------------------------------------------------------------------- meta_evaluate
def _as_read(df: pd.DataFrame) -> pd.DataFrame:
    """A matrix laid out as :func:`metaeval.meta.matrices.read_matrix` returns one (str labels, a
    C-ordered float64 block): numpy's sums depend on the memory layout, and the tables must equal
    those of ``metaeval meta`` to the last bit."""
    vals = np.ascontiguousarray(df.to_numpy(dtype=np.float64))
    return pd.DataFrame(vals, index=pd.Index([str(t) for t in df.index], name="topic"),
                        columns=pd.Index([str(r) for r in df.columns], name="run"))


def _meta_config(options: dict):
    from .meta.stages import MetaConfig, known_fields

    known = known_fields()
    bad = sorted(set(options) - known)
    if bad:
        raise TypeError(f"meta_evaluate: unknown option(s) {', '.join(bad)}; known: metrics, collection, "
                        f"{', '.join(sorted(known))}")
    return MetaConfig.of(**options)


def _run_meta(matrices, cfg, metrics, collection):
    """The one call into the meta-evaluation orchestration."""
    from .meta.run import run_meta

    return run_meta(matrices, cfg, metrics=metrics, collection=collection)


def _write_outputs(tables: dict, out_dir: Path, cfg, figures: bool, labels=None, matrices=None) -> list[Path]:
    """The one call into the writers: ``OUT/tables/NAME.{csv,md,tex}``, ``OUT/figures/`` and the
    Discpower text files ``OUT/pvalues/METRIC.rthsd.B``; ``labels`` {name: label} shown in the
    Markdown/LaTeX tables and the figures."""
    from .outputs import caption_values
    from .pipeline import write_figures, write_tables, write_texts

    paths = write_tables(tables, out_dir / "tables", select_by=cfg.select_by, labels=labels, matrices=matrices,
                         cfg=cfg, **caption_values(cfg))
    paths += write_texts(tables, cfg, out_dir)
    if figures:
        paths += write_figures(out_dir / "tables", out_dir / "figures", labels=labels, select_by=cfg.select_by,
                               **caption_values(cfg))
    return paths


def _as_written(name: str, df: pd.DataFrame) -> pd.DataFrame:
    """The table as its CSV holds it (the writer's row order and text, read back)."""
    from .report.csvio import csv_text, read_table
    from .report.layout_catalogue import KINDS

    spec = KINDS.get(name)
    data = spec.sort(df) if spec is not None and spec.sort is not None else df
    return read_table(io.StringIO(csv_text(data)))


class MetaResult(Mapping, Result):
    """Every meta-evaluation table as a DataFrame: ``res.kendall``, ``res["bootstrap_paired"]``,
    ``list(res)``; the content of ``metaeval meta``'s ``tables/NAME.csv``.  ``res.raw`` holds the
    tables as computed (before the writers' sorting); ``res.config`` the
    :class:`~metaeval.meta.run.MetaConfig`."""

    def __init__(self, raw: dict[str, pd.DataFrame], config, runs=(), measures=(), matrices=None):
        self.raw = dict(raw)
        self.config = config
        self._tables: dict[str, pd.DataFrame] = {}
        self._names = (tuple(runs), tuple(measures))            # for the display labels
        self._matrices = matrices                               # for the Kendall table's note

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self.raw:
            raise KeyError(f"no table {name!r}; tables: {', '.join(self.raw)}")
        if name not in self._tables:
            self._tables[name] = _as_written(name, self.raw[name])
        return self._tables[name]

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table as its CSV file holds it."""
        return {name: self[name] for name in self.raw}

    def __getattr__(self, name: str) -> pd.DataFrame:
        if name.startswith("_") or name in ("raw", "config", "write", "tables"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"MetaResult has no table {name!r}; tables: {', '.join(self.raw)}") from None

    def __iter__(self):
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.raw))

    #: the table a notebook shows first (the first of these computed)
    MAIN_TABLES = ("discriminative_power", "bootstrap_paired", "kendall", "run_means")

    def _head(self) -> str:
        runs, measures = self._names
        return f"{len(measures)} measures x {len(runs)} runs"

    def __repr__(self) -> str:
        from .meta.display import short_repr

        return short_repr("MetaResult", self.raw, self._head())

    def _repr_html_(self) -> str:
        """What the tables hold, then the main table as its CSV holds it (numbers to 4 decimals)."""
        from .meta.display import html_view

        main = next((t for t in self.MAIN_TABLES if t in self.raw), next(iter(self.raw), None))
        parts = dict(self.raw)
        if main is not None:
            parts[main] = self[main]
        return html_view("MetaResult", parts, main, self._head())

    def write(self, out_dir: str | Path, *, figures: bool = True,  # type: ignore[override]
              labels: str | Mapping[str, str] | None = None, figure_width: str | float | None = None,
              figure_formats: str | Sequence[str] | None = None) -> list[Path]:
        """Write ``OUT/tables/NAME.{csv,md,tex}`` and (``figures``) ``OUT/figures/*.png``, as
        ``metaeval meta --out OUT`` does; returns the paths.  ``labels``: a labels file or a dict
        ``{run or measure: label}`` shown in the Markdown/LaTeX tables and figures (default: each
        run's short name, :mod:`metaeval.labels`); the CSVs keep the names.  ``figure_width``:
        ``"column"`` (3.17 in, the default), ``"text"`` (6.48 in) or inches; ``figure_formats``: of
        ``("png", "pdf")`` (``--figure-width`` / ``--figure-formats``)."""
        from .labels import labels_for

        from .report.figure_size import figure_settings

        shown = labels_for(*self._names, labels)

        def writer(res: MetaResult, folder: Path, figures: bool) -> list[Path]:
            return _write_outputs(res.raw, folder, res.config, figures, shown, res._matrices)
        with figure_settings(figure_width, figure_formats):   # the figures' width and formats (docs/outputs.md)
            return _published(writer, "meta")(self, Path(out_dir), figures)


def meta_evaluate(scores, *, metrics: Iterable[str] | None = None, collection=None,
                  **options: Any) -> MetaResult:
    """Meta-evaluate measures from per-topic scores: Kendall's tau, bootstrap sensitivity, swap
    and stability methods, discriminative power (``docs/meta.md``).

    ``scores``: the tidy DataFrame of :func:`evaluate` (``run, topic, measure, value``) or a dict
    ``{measure: topic x run DataFrame}``.  ``metrics``: which to meta-evaluate (default every
    measure but gain-sweep variants; ``AG_X`` / ``G_X`` allowed).  ``collection``: a
    :class:`~metaeval.collection.Collection` for the collection-dependent tables.  ``options``: the
    fields of :class:`metaeval.meta.run.MetaConfig` -- ``B=1000, alpha=0.05, seed=0 (metaeval.meta.stages.common.SEED), top_runs=None,
    select_by="AP", swap_threshold=0.05, geometric=(), rthsd_B=5000, ...`` -- with the defaults of
    ``metaeval meta``.
    """
    from .meta.matrices import align_matrices

    cfg = _meta_config(options)
    if isinstance(scores, pd.DataFrame):
        mats = tidy_to_matrices(scores)
    elif isinstance(scores, Mapping):
        mats = {str(k): v for k, v in scores.items()}
    else:
        raise TypeError("scores: expected a tidy DataFrame (run, topic, measure, value) or a dict of "
                        "topic x run DataFrames")
    if not mats:
        raise ValueError("scores: no measure")
    mats = align_matrices({m: _as_read(df) for m, df in mats.items()})
    raw = _run_meta(mats, cfg, None if metrics is None else list(metrics), collection)
    first = next(iter(mats.values()))
    return MetaResult(raw, cfg, [str(r) for r in first.columns], list(mats), mats)


def incompleteness(qrels, runs, metrics: Iterable[str] = ("AP", "Q-measure", "nDCG@1000", "RR"), *,
                   gains=None, order: str | None = None, depth: int | None = 1000,
                   methods=("judged",), fractions=None, depths=None, trials: int | None = None,
                   groups=None, pool_depth: int | None = None, condensed: bool = True,
                   top_runs: int | None = None, select_by: str = "AP", B: int = 1000,
                   alpha: float = 0.05, seed: int = SEED, jobs: int = 1, out=None,
                   write_qrels: bool = False, figures: bool = True, figure_width: str | float | None = None,
                   figure_formats: str | Sequence[str] | None = None,
                   pool_runs=None, trec_eval_version: int = 10) -> dict[str, pd.DataFrame]:
    """Robustness of ``metrics`` to incomplete judgments and pool reuse (``metaeval
    incompleteness``; docs/meta.md): ``{"incompleteness", "pool_reuse", "incompleteness_trials":
    DataFrame}``.  ``qrels``/``runs`` as for :func:`evaluate` (paths or DataFrames) or ``qrels`` a
    :class:`~metaeval.collection.Collection` (``runs=None``).  ``methods``: any of ``judged``,
    ``stratified``, ``depth``, ``leave-one-group-out``; ``groups``: a regular expression (group 1
    names the group), a ``{run: group}`` dict or a ``RUN GROUP`` file (default: the submitting
    team read from the run names).  ``pool_runs``: the runs that formed the pool of ``depth`` and
    ``leave-one-group-out`` (names, globs or a file; default every run), the others evaluated on
    it.  ``out``: also write the files of the command line there (``write_qrels``: the reduced
    qrels too)."""
    from .collection import Collection
    from .meta import incompleteness as inc
    from .meta.run import MetaConfig
    from .metrics import parse_measure
    from .metrics.registry import parse_gains

    c = qrels if isinstance(qrels, Collection) else collection(qrels, runs, order=order, depth=depth,
                                                               trec_eval_version=trec_eval_version)
    g = parse_gains(gains) if gains is not None else None
    icfg = inc.IncompletenessConfig(
        methods=tuple([methods] if isinstance(methods, str) else methods),
        fractions=inc.DEFAULT_FRACTIONS if fractions is None else tuple(fractions),
        depths=inc.DEFAULT_DEPTHS if depths is None else tuple(depths),
        trials=inc.DEFAULT_TRIALS if trials is None else trials,
        groups=inc.DEFAULT_GROUPS if groups is None else groups,
        pool_depth=inc.DEFAULT_POOL_DEPTH if pool_depth is None else pool_depth,
        condensed=condensed, jobs=jobs, pool_runs=pool_runs, write_qrels=write_qrels)
    cfg = MetaConfig(B=B, alpha=alpha, seed=seed, top_runs=top_runs, select_by=select_by, incompleteness=icfg)
    vocabulary = "ir_measures" if c.info.get("order") in ("score", ["score"]) else "ntcireval"   # docs/io.md
    names = [parse_measure(m, vocabulary).name for m in ([metrics] if isinstance(metrics, str) else metrics)]
    from .pipeline import collection_runs

    use = collection_runs(c, cfg, g)

    def files(_res: Any, folder: Path, figures: bool) -> list[Path]:
        from .pipeline import write_labelled_stage          # computes the trials' files again

        return write_labelled_stage("incompleteness", c, folder, cfg, names, gains=g, runs=use, figures=figures)
    write = _sized(_published(files, "incompleteness"))
    if out is not None:
        write(None, Path(out), figures, figure_width=figure_width, figure_formats=figure_formats)
        from .report.csvio import read_table

        res = NamedTables({"incompleteness": read_table(Path(out) / "tables" / "incompleteness.csv"),
                           "pool_reuse": read_table(Path(out) / "tables" / "pool_reuse.csv"),
                           "incompleteness_trials": read_table(Path(out) / "incompleteness" / "trials.csv")},
                          "incompleteness", "incompleteness")
    else:
        res = NamedTables(inc.stage_incompleteness(c, names, cfg, gains=g, runs=use), "incompleteness",
                          "incompleteness")

    res._writer = write
    return res


# ------------------------------------------------------------------------- judgments
def judgments(qrels: Mapping[str, Any], runs: Any = None, *legacy: Any, reference: str | None = None,
              metrics: Iterable[str] | None = None, gains: str | None = None, threshold: int | None = None,
              top_k: int = 10, test: str = "paired-t", B: int = 1000, alpha: float = 0.05, seed: int = SEED,
              fill: Mapping[str, str] | None = None, on_conflict: str = "error", topic_set: str | None = None,
              correction: str | None = None, order: str | None = None, results: Mapping[str, Any] | None = None,
              depth: int | None = 1000, rbo_p: float = 0.9, out: str | os.PathLike | None = None,
              figures: bool = True, figure_width: str | float | None = None,
        figure_formats: str | Sequence[str] | None = None, clip: bool = False, results_format: str = "auto",
              labels: str | Mapping[str, str] | None = None, trec_eval_version: int = 10,
              skip_bad: bool = False, topics: str | None = None) -> Any:
    """Judgments as a dimension (``metaeval judgments``; docs/meta.md "Judgments"): several qrels
    sets of one collection compared with the set named ``reference`` (keyword; the older
    ``judgments(qrels, reference, runs)`` still works, with a ``DeprecationWarning``, for one release).

    ``qrels``: ``{NAME: file or [files]}`` (a set given as several files is their union);
    ``fill``: ``{NAME: "BASE+FROM"}`` (BASE's judgments, FROM's where BASE has none);
    ``results``: ``{NAME: path}`` of leaderboards (a folder of ``trec_eval -q`` outputs, one per
    run, or any layout of ``results_format``) in place of a qrels set; ``runs`` None: label
    agreement of the qrels sets and the rankings of the leaderboards only; ``metrics`` None: AP and
    nDCG@10 (with runs) or the measures of the reference's leaderboard; ``skip_bad``: a leaderboard
    file that cannot be read is named in a warning and left out (else an error); ``topic_set``
    (``--topic-set``) ``"common"`` (None: the default) or ``"own"``: the topics each set is ranked
    over (``topics=``, its old name, still works with a ``DeprecationWarning``, for one release);
    ``labels`` ``{name: label}`` or a labels file for the written Markdown, LaTeX and figures; the other options as the command
    line's.  Returns a
    :class:`~metaeval.meta.judgments_run.JudgmentsResult`: ``.tables`` (``label_agreement``,
    ``ranking_agreement``, ``run_ranks``, ``decision_agreement``, ``qrels_discriminative_power``),
    ``.topic_agreement``, ``.coverage``, ``.confusion`` ``{(A, B): DataFrame}``, ``.qrels`` (the
    filled sets as TREC qrels text), ``.scores`` (per set ``{metric: topic x run DataFrame}``).
    ``out``: also write the command line's files there."""
    from .meta.judgments_run import run_judgments

    names = set(qrels) | set(results or {})
    if legacy or (reference is None and isinstance(runs, str) and runs in names):
        warnings.warn("judgments(qrels, reference, runs) is deprecated and goes in the next release; use "
                      "judgments(qrels, runs, reference=NAME)", DeprecationWarning, stacklevel=2)
        reference, runs = runs, (legacy[0] if legacy else None)
        if len(legacy) > 1:
            raise TypeError("judgments: too many positional arguments (qrels, runs; the options by keyword)")
    if reference is None:
        raise TypeError("judgments: reference= is required (the name of the reference set)")
    topic_set = _renamed("topic_set", topic_set, "topics", topics, "judgments") or "common"
    res = run_judgments(qrels, reference, runs, metrics=metrics, gains=gains, threshold=threshold, top_k=top_k,
                        test=test, B=B, alpha=alpha, seed=seed, fill=fill, on_conflict=on_conflict, topics=topic_set,
                        correction=correction, order=order, results=results, depth=depth, rbo_p=rbo_p, clip=clip,
                        results_format=results_format, trec_eval_version=trec_eval_version, skip_bad=skip_bad)

    def write(r: Any, folder: Path, figures: bool) -> list[Path]:
        from .meta.stages import StageInputs
        from .meta.stages.judgments import JudgmentsParams
        from .pipeline import write_own_outputs

        # its stage's parameters but the sets (the captions state the test, correction, B and alpha)
        params = JudgmentsParams(
            judgments_reference=reference, judgments_metrics=None if metrics is None else tuple(_listed(metrics)),
            judgments_threshold=threshold, judgments_top_k=top_k, judgments_test=test,
            judgments_correction=correction, judgments_B=B, judgments_alpha=alpha, judgments_rbo_p=rbo_p,
            judgments_seed=seed, judgments_on_conflict=on_conflict, judgments_topic_set=topic_set,
            judgments_results_format=results_format, judgments_skip_bad=skip_bad, judgments_clip=clip)
        frames = {name: None if name in r.omitted else df for name, df in r.tables.items()}
        return write_own_outputs("judgments", frames, folder, figures=figures, params=params,
                                 inputs=StageInputs({}, extra={"result": r}),
                                 labels_file=None if not labels else labels if isinstance(labels, str) else dict(labels))
    return _attached(res, write, out, figures, "judgments", figure_width, figure_formats)


# ------------------------------------------------------------- prediction-powered intervals (stage ppi)
def ppi(qrels, judge, runs, *, metrics: Iterable[str] = ("AP", "nDCG@10"), labelled_topics=None,
        labelled: int | None = None, alpha: float = 0.05, seed: int = SEED, sizes: Iterable[int] | None = None,
        trials: int = 1000, gains: str | None = None, order: str | None = None, depth: int | None = 1000,
        on_conflict: str = "error", trec_eval_version: int = 10, out=None, figures: bool = True,
        labels=None, figure_width: str | float | None = None,
        figure_formats: str | Sequence[str] | None = None):
    """Prediction-powered intervals of every run's mean score (``metaeval ppi``; docs/meta.md
    "Prediction-powered intervals"): ``qrels`` the human qrels, ``judge`` the judge's (a file or a
    list of files: their union), ``runs`` run files, folders or globs.  ``labelled_topics``: a file
    of topic ids (or a list of ids), or ``labelled`` N drawn with ``seed``; default every human
    topic.  Returns a :class:`~metaeval.meta.ppi.PPIResult`: ``.means``, ``.pairs``, ``.budget``
    (the tables ``ppi_means``, ``ppi_pairs``, ``ppi_budget``), ``.labelled``, ``.unlabelled``,
    ``.notes``.  ``trec_eval_version``: 10 (default) ranks by score in double precision, as
    trec_eval 10.0; 9 in single precision, as trec_eval 9.0.x.  ``out``: also write the command
    line's files there, runs and measures shown by their ``labels`` (a labels file or a {NAME: LABEL}
    mapping; default the runs' default labels)."""
    from .meta.ppi import run_ppi

    res = run_ppi(qrels, judge, runs, metrics=[str(m) for m in metrics] if not isinstance(metrics, str) else metrics,
                  labelled_topics=labelled_topics, labelled=labelled, alpha=alpha, seed=seed,
                  sizes=None if sizes is None else [int(s) for s in sizes], trials=trials, gains=gains, order=order,
                  depth=depth, on_conflict=on_conflict, trec_eval_version=trec_eval_version)
    def write(r: Any, folder: Path, figures: bool) -> list[Path]:
        from .meta.stages import StageInputs
        from .pipeline import write_own_outputs

        return write_own_outputs("ppi", r.tables, folder, figures=figures, inputs=StageInputs({}, extra={"result": r}),
                                 labels_file=dict(labels) if isinstance(labels, Mapping) else labels)
    return _attached(res, write, out, figures, "ppi", figure_width, figure_formats)


# ------------------------------------------------------------------------ a stage with a job of its own
def run_stage(name: str, matrices: Any = None, *, metrics: Iterable[str] | None = None, qrels: Any = None,
              runs: Any = None, gains: str | None = None, order: str | None = None, depth: int | None = 1000,
              trec_eval_version: int = 10, labels: str | Mapping[str, str] | None = None, out=None,
              figures: bool = True, figure_width: str | float | None = None,
              figure_formats: str | Sequence[str] | None = None, **params: Any) -> dict[str, pd.DataFrame]:
    """Stage ``name`` with a job of its own that the package runs (kind ``other`` with a ``run``,
    a plug-in's own job: :attr:`metaeval.stages.StageInfo.own_job`) on ``matrices`` (a folder of
    ``METRIC.csv``, a dict ``{metric: topic x run DataFrame}`` or a tidy frame; ``metrics``: those
    only) -- a stage on the collection's data (:attr:`~metaeval.stages.StageInfo.data`: ``ppi``,
    ``judgments``) on ``qrels`` (a file or a list of files: their union) and ``runs`` (run files,
    folders or globs), read with ``gains``, ``order``, ``depth`` and ``trec_eval_version`` as
    ``metaeval stage NAME --qrels --runs`` reads them.  ``params``: its parameters by name, the
    keywords of its parameter class (defaults its declared ones; an unknown one is refused; a file
    parameter's value a path).  Returns ``{table: DataFrame}``; with ``out`` also writes its
    scope's tables and figures there (as ``metaeval stage NAME``), runs and measures shown by
    their ``labels`` (a labels file or a ``{NAME: LABEL}`` mapping; default the runs' default
    labels).  A job for the whole run (:attr:`~metaeval.stages.StageInfo.run_wide`: ``kishida``)
    reads no ``matrices``."""
    import dataclasses

    from .meta.stages import CollectionData, get
    from .pipeline import own_job_run, write_own_outputs

    st = get(name)
    if not st.own_job:
        raise ValueError(f"stage {name} is no stage with a job of its own (kind other with a run function)")
    known = [f.name for f in dataclasses.fields(st.params_class)] if st.params_class is not None else []
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise TypeError(f"run_stage({name!r}): unknown parameter {unknown[0]!r}; known: {', '.join(known) or 'none'}")
    values = st.params_class(**params) if st.params_class is not None else None
    mats: dict = {}
    if st.run_wide:
        if matrices is not None or metrics is not None:
            raise TypeError(f"run_stage({name!r}): a job for the whole run reads no matrices")
    elif matrices is not None or not st.data:
        if matrices is None:
            raise TypeError(f"run_stage({name!r}): give the matrices")
        mats = _matrices_of(matrices, metrics)
        if metrics is not None:
            mats = {str(m): mats[str(m)] for m in metrics}
    data = None
    if st.data:
        data = CollectionData(tuple(str(f) for f in _listed(qrels)), tuple(str(r) for r in _listed(runs)),
                              gains=gains, order=order, depth=depth, trec_eval_version=trec_eval_version)
    inputs, values, frames = own_job_run(name, mats, values, data=data)

    def write(r: Any, folder: Path, figures: bool) -> list[Path]:
        shown = None
        if not st.scopes and labels is not None and mats:
            from .labels import labels_for

            first = next(iter(mats.values()))
            shown = labels_for([str(c) for c in first.columns], list(mats), dict(labels) if isinstance(labels, Mapping)
                               else labels)
        return write_own_outputs(name, frames, folder, figures=figures, labels=shown, params=values, inputs=inputs,
                                 labels_file=dict(labels) if isinstance(labels, Mapping) else labels)
    # a folder of its own is the stage's, as metaeval stage NAME and its own command publish it
    owner = name if st.scopes else f"stage {name}"
    return _attached(NamedTables(frames, name), write, out, figures, owner, figure_width, figure_formats)


def _listed(x: Any) -> list:
    """None: ``[]``; a path or string: ``[it]``; else its items."""
    if x is None:
        return []
    return [x] if isinstance(x, (str, os.PathLike)) else list(x)


# ------------------------------------------------------------------------ standardisation
def _matrices_of(matrices, metrics):
    """``{metric: topic x run DataFrame}`` of a folder of ``METRIC.csv`` (only ``metrics``, when
    given), a tidy ``run, topic, measure, value`` frame or a dict of matrices (aligned)."""
    from .meta.matrices import align_matrices, load_matrices

    if isinstance(matrices, (str, os.PathLike)):
        return load_matrices(matrices, None if metrics is None else list(metrics))
    elif _is_frame(matrices):
        return tidy_to_matrices(matrices)
    else:
        return align_matrices({str(k): v for k, v in dict(matrices).items()})


def _data_of(mats: Mapping, matrices, folder, collection: str | None = None) -> dict:
    """What the captions and LaTeX labels of an own job's tables say of its data
    (:func:`metaeval.pipeline.own_job_data`; ``matrices`` a folder: its collection's name)."""
    from .pipeline import own_job_data

    return own_job_data(mats, matrices if isinstance(matrices, (str, os.PathLike)) else None, folder, collection)


def standardisation(matrices, *, metrics: Iterable[str] | None = _StdP.std_metrics,
                    std: Iterable[str] = _StdP.std, topics: int = _StdP.std_topics,
                    trials: int = _StdP.std_trials, seed: int = _StdP.std_seed, out=None,
                    figures: bool = True, figure_width: str | float | None = None,
        figure_formats: str | Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
    """The standardisation experiments of Urbano, Lima & Hanjalic (2019) (``metaeval
    standardise --experiment``; docs/meta.md): ``matrices`` a folder of ``METRIC.csv``, a dict ``{metric:
    topic x run DataFrame}`` or a tidy ``run, topic, measure, value`` frame; the keywords and their
    defaults are the stage's parameters (:class:`~metaeval.meta.stages.standardisation.StandardisationParams`,
    as the command's options).  Returns
    ``{"standardisation_within", "standardisation_between", "standardisation_power",
    "standardisation_trials": DataFrame}``; with ``out`` also writes them (tables, the
    ``standardisation/`` folder, figures)."""
    from .meta.standardisation import stage_standardisation

    mats = _matrices_of(matrices, metrics)
    names = list(mats) if metrics is None else [str(m) for m in metrics]
    frames = stage_standardisation(mats, names, methods=tuple(std), n_topics=topics, trials=trials, seed=seed)
    def write(r: Any, folder: Path, figures: bool) -> list[Path]:
        from .pipeline import write_own_outputs

        return write_own_outputs("standardisation", frames, folder, figures=figures,
                                 **_data_of(mats, matrices, folder))
    return _attached(NamedTables(frames, "standardisation", "standardisation_within"), write, out, figures,
                     "standardise", figure_width, figure_formats)


# ------------------------------------------------------------------------ test errors
def test_errors(matrices, *, metrics: Iterable[str] | None = _TeP.te_metrics, pairs: int = _TeP.te_pairs,
                topics: Iterable[int] = _TeP.te_topics, trials: int = _TeP.te_trials,
                deltas: Iterable[float] | None = _TeP.te_deltas, alphas: Iterable[float] | None = _TeP.te_alphas,
                tests: Iterable[str] | None = _TeP.te_tests, B: int = _TeP.te_B, seed: int = _TeP.te_seed,
                conventions: str = _TeP.te_conventions, out=None, figures: bool = True,
                figure_width: str | float | None = None, figure_formats: str | Sequence[str] | None = None):
    """Which significance test to trust (``metaeval test-errors``; docs/meta.md): simulated type I,
    II and III error rates of the paired tests on the collection of ``matrices`` (a folder of
    ``METRIC.csv``, a dict ``{metric: topic x run DataFrame}`` or a tidy ``run, topic, measure,
    value`` frame), as Urbano, Lima & Hanjalic (2019).  The keywords and their defaults are the
    stage's parameters (:class:`~metaeval.meta.stages.error_rates.TestErrorsParams`, as the
    command's options; ``deltas``, ``alphas``, ``tests`` None: the default too; ``conventions``: the
    tests' conventions, the paper's ``urbano2019`` the one there is).  Returns a
    :class:`~metaeval.meta.error_rates.TestErrors` (``.type1``, ``.power``, ``.type3``,
    ``.margins``, ``.copulas``); with ``out`` also writes the command line's files."""
    from .meta import error_rates as te

    if conventions not in _TE_CONVENTIONS:
        raise ValueError(f"unknown conventions {conventions!r}; expected one of {', '.join(_TE_CONVENTIONS)}")
    mats = _matrices_of(matrices, metrics)
    kw = {k: v for k, v in (("deltas", deltas), ("alphas", alphas), ("tests", tests)) if v is not None}
    res = te.test_errors(mats, metrics=None if metrics is None else [str(m) for m in metrics], pairs=pairs,
                         topics=topics, trials=trials, B=B, seed=seed, **kw)
    def write(r: Any, folder: Path, figures: bool) -> list[Path]:
        from .meta.stages.error_rates import frames
        from .pipeline import write_own_outputs

        return write_own_outputs("test_errors", frames(r), folder, figures=figures,
                                 **_data_of(mats, matrices, folder))
    return _attached(res, write, out, figures, "error_rates", figure_width, figure_formats)


setattr(test_errors, "__test__", False)              # noqa: B010 - a function named test_*, not a pytest test


# ------------------------------------------------------------------------ bayes
def bayes(matrices, *, metrics: Iterable[str] | None = _BayesP.bayes_metrics, draws: int = _BayesP.bayes_draws,
          chains: int = _BayesP.bayes_chains, seed: int = _BayesP.bayes_seed, out=None, figures: bool = True,
          labels=None, figure_width: str | float | None = None,
          figure_formats: str | Sequence[str] | None = None, collection: str | None = None):
    """Bayesian inference on the crossed topic x run model (``metaeval bayes``; docs/meta.md, "Bayesian
    inference"; Sakai 2017; Benham et al. 2020) of every metric of ``matrices`` (a folder of
    ``METRIC.csv``, a dict ``{metric: topic x run DataFrame}`` or a tidy ``run, topic, measure, value``
    frame; every run on every topic); ``draws``, ``chains``, ``seed`` and their defaults are the
    stage's parameters (:class:`~metaeval.meta.stages.bayes.BayesParams`, as the command's
    options).  Returns a :class:`~metaeval.meta.bayes.BayesResult` (``.runs``,
    ``.pairs``, ``.fit``, ``.posteriors``, ``.warnings``); with ``out`` also writes the command line's
    files, runs and measures shown by their ``labels`` in the Markdown, LaTeX and figures (a labels
    file or a {NAME: LABEL} mapping; default the runs' default labels; the CSVs keep the names).
    ``collection``: the collection's name its captions and LaTeX labels state (default: the
    collection's folder when ``matrices`` is its ``matrices/`` folder beside ``out``)."""
    from .meta.bayes import bayes_tables

    mats = _matrices_of(matrices, metrics)
    names = list(mats) if metrics is None else [str(m) for m in metrics]
    res = bayes_tables(mats, names, draws=draws, chains=chains, seed=seed)

    def write(r: Any, folder: Path, figures: bool) -> list[Path]:
        from .meta.stages.bayes import frames
        from .pipeline import write_own_outputs
        from .report.bayes import bayes_labels

        return write_own_outputs("bayes", frames(r), folder, figures=figures, labels=bayes_labels(r, labels),
                                 **_data_of(mats, matrices, folder, collection))
    return _attached(res, write, out, figures, "bayes", figure_width, figure_formats)


# ------------------------------------------------------------------------ reproducibility
def reproducibility(qrels, orig, reproductions, *, metrics: Iterable[str] = ("AP", "nDCG@10", "P@10", "RR"),
                    rep_qrels=None, depth: int = 1000, rbo_p: float = 0.95, out=None, figures: bool = True, figure_width: str | float | None = None,
        figure_formats: str | Sequence[str] | None = None):
    """Was it reproduced? (``metaeval reproducibility``; docs/meta.md): the measures of Breuer et
    al. (2020), exact to repro_eval 0.5.0, of every reproduction of the original pair ``orig`` =
    (baseline run file, advanced run file) on ``qrels``.  ``reproductions``: ``{name: (baseline,
    advanced)}`` or a sequence of :class:`~metaeval.meta.reproducibility.Reproduction`;
    ``rep_qrels``: the reproductions' collection when it is not the original's (replicability);
    ``metrics`` in ir_measures' vocabulary; ``depth`` documents kept per topic (and RBO's depth);
    ``rbo_p`` RBO's persistence.  Returns a :class:`~metaeval.meta.reproducibility.ReproResult`
    (``.reproducibility``, ``.effects``, ``.topics``); with ``out`` also writes the command's files."""
    from .meta.reproducibility import Reproduction
    from .meta.reproducibility import reproducibility as compute

    from .util import file_args

    if isinstance(reproductions, Mapping):
        reps = [Reproduction(str(k), *file_args(list(v), f"reproduction {k}")) for k, v in reproductions.items()]
    else:
        reps = [r if isinstance(r, Reproduction) else Reproduction(str(r[0]), *file_args(list(r[1:]), f"reproduction {r[0]}"))
                for r in reproductions]
    if isinstance(metrics, str):
        metrics = [metrics]
    res = compute(qrels, file_args(orig, "orig"), reps, [str(m) for m in metrics], rep_qrels=rep_qrels,
                  depth=int(depth), rbo_p=float(rbo_p))
    def write(r: Any, folder: Path, figures: bool) -> list[Path]:
        from .pipeline import write_own_outputs

        return write_own_outputs("reproducibility", r.tables, folder, figures=figures)
    return _attached(res, write, out, figures, "reproducibility", figure_width, figure_formats)
