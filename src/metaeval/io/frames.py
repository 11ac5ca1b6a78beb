"""In-memory input -> :class:`~metaeval.collection.Collection`: qrels and runs given as pandas
DataFrames (the column names of ir_measures / ranx / PyTerrier), mixed freely with files.

* qrels: a DataFrame with columns ``query_id, doc_id, relevance`` (integers; a negative relevance is
  judged nonrelevant, as in trec_eval), or anything :func:`metaeval.io.read_qrels` reads.
* a run: a DataFrame with columns ``query_id, doc_id, score`` and optionally ``rank``: TREC's
  six-column form, so each run's ranked lists are ordered as trec_eval orders them, by ``score``
  (descending in single precision, ties by ``doc_id`` descending), whether or not the frame has a
  ``rank`` column (trec_eval ignores RANK); a frame without ``score`` is ordered by ``rank`` (ties
  keep the frame's order), one with neither in row order.  ``order`` overrides: ``"file"`` = the
  frame's row order, ``"score"`` = by score, ``"rank"`` = by rank (docs/io.md, "Conventions").

The frames are turned into the same arrays the file readers produce (:class:`~metaeval.io.qrels.Qrels`,
:class:`~metaeval.io.runs.ParsedRun`) and labelled by :func:`metaeval.io.ingest.label_run`, so every
policy of ``docs/io.md`` (topic set, repeated documents, truncation, missing topics) applies
unchanged and the values equal those computed from the same data in files.  Bad frames raise
:class:`~metaeval.errors.InputError` naming the frame, the row and the column.
"""

from __future__ import annotations

from types import SimpleNamespace
from collections.abc import Callable

import numpy as np

from ..collection import Collection
from ..errors import InputError
from ._text import DENSE_MAX
from .ingest import label_runs
from .qrels import Qrels, _build, read_qrels
from .runs import ParsedRun, RunSource, read_run

__all__ = ["qrels_from_frame", "runs_from_frame", "run_from_frame", "collection_from_parsed", "QRELS_COLUMNS",
           "RUN_COLUMNS", "as_qrels_input", "as_runs_input"]

QRELS_COLUMNS = ("query_id", "doc_id", "relevance")
RUN_COLUMNS = ("query_id", "doc_id", "score")


# the column names of the other toolkits, as their owners write them: PyTerrier (qid, docno, label /
# qid, docno, score, rank), ranx (q_id, doc_id, score: its qrels' grade is called score)
_QRELS_ALIASES = {"qid": "query_id", "q_id": "query_id", "docno": "doc_id", "label": "relevance"}
_RUN_ALIASES = {"qid": "query_id", "q_id": "query_id", "docno": "doc_id"}


def _renamed(df, aliases: dict, extra: dict | None = None):
    """``df`` with the other toolkits' column names read as metaeval's (a column already under
    metaeval's name wins; a name neither knows is left as it is)."""
    aliases = {**aliases, **(extra or {})}
    ren = {c: aliases[c] for c in df.columns if c in aliases and aliases[c] not in df.columns}
    if len(set(ren.values())) < len(ren):               # qid and q_id both: leave it to _require
        return df
    return df.rename(columns=ren) if ren else df


def _nested_frame(d: dict, value: str):
    """``{query: {doc: value}}`` (ranx's ``to_dict()``, pytrec_eval's form) -> a DataFrame."""
    import pandas as pd

    rows = [(str(q), str(doc), v) for q, docs in d.items() for doc, v in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", value])


def _is_nested(x) -> bool:
    return isinstance(x, dict) and bool(x) and all(isinstance(v, dict) for v in x.values())


def _namedtuples_frame(items, value: str):
    """ir_measures' namedtuples (``Qrel(query_id, doc_id, relevance, iteration)``, ``ScoredDoc(query_id,
    doc_id, score)``) -> a DataFrame; None when ``items`` holds something else."""
    import pandas as pd

    items = list(items)
    if not items or not all(hasattr(x, "_fields") and {"query_id", "doc_id", value} <= set(x._fields)
                            for x in items):
        return None
    return pd.DataFrame([(str(x.query_id), str(x.doc_id), getattr(x, value)) for x in items],
                        columns=["query_id", "doc_id", value])


def _is_frame(x) -> bool:
    return hasattr(x, "columns") and hasattr(x, "rename")


def as_qrels_input(qrels):
    """Qrels as the other toolkits hold them, as a DataFrame ``query_id, doc_id, relevance``: a
    PyTerrier frame (``qid, docno, label``), a ranx frame (``q_id, doc_id, score``) or ``Qrels``
    object (anything with ``to_dict()`` giving ``{query: {doc: grade}}``), such a dict itself
    (pytrec_eval's form), or ir_measures' ``Qrel`` namedtuples.  Anything else (paths, metaeval's
    frames) is returned as it is."""
    if _is_frame(qrels):
        extra = {"score": "relevance"} if "relevance" not in qrels.columns and "label" not in qrels.columns else None
        return _renamed(qrels, _QRELS_ALIASES, extra)
    if not isinstance(qrels, (str, bytes, dict, list, tuple)) and callable(getattr(qrels, "to_dict", None)) \
            and hasattr(qrels, "qrels"):
        qrels = qrels.to_dict()                          # ranx Qrels
    if _is_nested(qrels):
        return _nested_frame(qrels, "relevance")
    if isinstance(qrels, (list, tuple)) or (hasattr(qrels, "__next__") and not isinstance(qrels, (str, bytes))):
        items = list(qrels)
        frame = _namedtuples_frame(items, "relevance")
        return frame if frame is not None else items
    return qrels


def _run_object(x):
    """A ranx ``Run`` (``to_dict()`` giving ``{query: {doc: score}}``, a ``name``) -> (name, frame)."""
    if isinstance(x, (str, bytes, dict, list, tuple)) or _is_frame(x):
        return None
    if callable(getattr(x, "to_dict", None)) and hasattr(x, "run"):
        return getattr(x, "name", None), _nested_frame(x.to_dict(), "score")
    return None


def as_runs_input(runs):
    """Runs as the other toolkits hold them, as metaeval's DataFrames (``query_id, doc_id, score``,
    optionally ``rank`` and ``run``): PyTerrier frames (``qid, docno, score, rank``), ranx frames
    (``q_id, doc_id, score``) or ``Run`` objects (one, a list, or a dict name -> Run), ir_measures'
    ``ScoredDoc`` namedtuples (one run).  Anything else (paths, metaeval's frames) is returned as it
    is.  A ranx Run without a name is called ``run``, ``run2``, ... in the order given."""
    if _is_frame(runs):
        return _renamed(runs, _RUN_ALIASES)
    one = _run_object(runs)
    if one is not None:
        return {one[0] or "run": one[1]}
    if isinstance(runs, dict):
        out = {}
        for name, v in runs.items():
            obj = _run_object(v)
            out[name] = obj[1] if obj is not None else _renamed(v, _RUN_ALIASES) if _is_frame(v) else v
        return out
    if isinstance(runs, (list, tuple)) or (hasattr(runs, "__next__") and not isinstance(runs, (str, bytes))):
        items = list(runs)
        frame = _namedtuples_frame(items, "score")
        if frame is not None:
            return frame
        objs = [_run_object(x) for x in items]
        if items and all(o is not None for o in objs):
            out = {}
            for k, (name, frame) in enumerate(objs):
                name = name or ("run" if k == 0 else f"run{k + 1}")
                if name in out:
                    raise InputError(f"two runs named {name!r}: run names must be unique")
                out[name] = frame
            return out
        return items
    return runs


def _require(df, cols, what: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(f"{what}: missing column(s) {', '.join(missing)} (has: "
                         f"{', '.join(map(str, df.columns))}); expected {', '.join(cols)}")


def _ids(series, what: str, col: str) -> np.ndarray:
    """A column of ids as a numpy bytes array (UTF-8); missing or empty ids and whitespace rejected.

    Works on the distinct values (``pandas.factorize``): ids repeat (topics always, documents
    across runs), so conversion and checks cost little more than one hash pass over the column."""
    import pandas as pd

    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if (codes < 0).any():
        raise InputError(f"{what}: row {int(np.flatnonzero(codes < 0)[0])}: {col} is missing")
    text = np.asarray(pd.Index(uniques).astype(str), dtype=object)
    if len(text) and max(map(len, text)) > DENSE_MAX:
        # long ids: object bytes (as the file readers keep them), so that one long id does not
        # size a dense (ids x width) array
        ub = np.array([t.encode("utf-8") for t in text], dtype=object)
        bad = [i for i, b in enumerate(ub) if not b or any(c in b for c in b" \t\n\r\x0b\x0c")]
        if bad:
            row = int(np.flatnonzero(codes == bad[0])[0])
            raise InputError(f"{what}: row {row}: {col} {uniques[bad[0]]!r} is empty or contains whitespace")
        return ub[codes]
    try:
        ub = text.astype("S")                          # ASCII: converted in C
    except UnicodeEncodeError:
        ub = np.asarray(pd.Series(text).str.encode("utf-8"), dtype=object).astype("S")
    w = max(1, ub.dtype.itemsize)
    m = ub.view(np.uint8).reshape(len(ub), w) if len(ub) else np.zeros((0, w), np.uint8)
    space = np.isin(m, np.frombuffer(b" \t\n\r\x0b\x0c", np.uint8)).any(axis=1)
    bad = space | (m[:, 0] == 0)                       # whitespace inside, or empty
    if bad.any():
        u = int(np.flatnonzero(bad)[0])
        row = int(np.flatnonzero(codes == u)[0])
        raise InputError(f"{what}: row {row}: {col} {uniques[u]!r} is empty or contains whitespace")
    return ub[codes]


def _numbers(series, what: str, col: str, dtype) -> np.ndarray:
    try:
        vals = series.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise InputError(f"{what}: column {col} is not numeric") from None
    bad = ~np.isfinite(vals)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{what}: row {i}: {col} {series.iloc[i]!r} is not a finite number")
    return vals.astype(dtype)


def qrels_from_frame(df, max_level: int | None = None, name: str = "qrels DataFrame") -> Qrels:
    """A :class:`Qrels` from a DataFrame ``query_id, doc_id, relevance``."""
    _require(df, QRELS_COLUMNS, name)
    topics = _ids(df["query_id"], name, "query_id")
    docs = _ids(df["doc_id"], name, "doc_id")
    rel = _numbers(df["relevance"], name, "relevance", np.float64)
    if (rel != np.round(rel)).any():
        i = int(np.flatnonzero(rel != np.round(rel))[0])
        raise InputError(f"{name}: row {i}: relevance {rel[i]!r} is not an integer")
    rel = np.maximum(rel, 0)                       # trec_eval: negative = judged nonrelevant
    if (rel > 127).any():
        i = int(np.flatnonzero(rel > 127)[0])
        raise InputError(f"{name}: row {i}: relevance level {int(rel[i])} is too large (at most 127)")
    table = SimpleNamespace(line=np.arange(len(df), dtype=np.int64))      # "line" = row number
    return _build([name], [[table, "frame", topics, docs, rel.astype(np.int8)]], [None], max_level,
                  "frame")


def runs_from_frame(df, name: str = "run", order: str | None = None) -> list[tuple[ParsedRun, str]]:
    """``[(ParsedRun, order for label_run)]`` from a DataFrame ``query_id, doc_id, score[, rank]``,
    one run per value of a ``run`` column if the frame has one (else one run named ``name``).

    ``order`` None: by ``score`` (trec_eval) if the frame has it, else by ``rank`` if it has that,
    else the row order; ``"file"``: the frame's row order; ``"score"``: by score; ``"rank"``: by
    rank.  Each column is converted once for all runs."""
    what = "runs DataFrame" if "run" in df.columns else f"run {name!r} (DataFrame)"
    if order is None:
        from .conventions import conventional

        order = conventional("score" if "score" in df.columns else "rank" if "rank" in df.columns else "file")
    if order not in ("file", "score", "rank"):
        raise ValueError(f"order must be 'file', 'score' or 'rank', got {order!r}")
    need = ["query_id", "doc_id"] + (["score"] if order == "score" else []) + \
        (["rank"] if order == "rank" else [])
    _require(df, need, what)
    topics = _ids(df["query_id"], what, "query_id")
    docs = _ids(df["doc_id"], what, "doc_id")
    scores = _numbers(df["score"], what, "score", np.float64) \
        if "score" in df.columns else None
    # the frame's own order is its rank column when it has one (the order the warning on a
    # disagreement with score order names), else its row order
    rank = _numbers(df["rank"], what, "rank", np.float64) if order != "file" and "rank" in df.columns else None
    if "run" in df.columns:
        import pandas as pd

        codes, names = pd.factorize(df["run"].astype(str), sort=True, use_na_sentinel=True)
        if (codes < 0).any():
            raise InputError(f"{what}: row {int(np.flatnonzero(codes < 0)[0])}: run is missing")
        names = [str(n) for n in names]
    else:
        codes, names = np.zeros(len(df), np.int64), [str(name)]
    # rows of each run, in the frame's order (or by rank, stable), grouped by run
    if rank is None:
        rows = np.argsort(codes, kind="stable")
    else:
        rows = np.lexsort((np.arange(len(df)), rank, codes))
    bounds = np.searchsorted(codes[rows], np.arange(len(names) + 1))
    out = []
    for k, run_name in enumerate(names):
        r = rows[bounds[k]:bounds[k + 1]]
        sc = None if scores is None else scores[r]
        src = f"run {run_name!r} (DataFrame)" if "run" in df.columns else what
        out.append((ParsedRun(run_name, (src,), topics[r], docs[r], r.astype(np.int64),
                              np.zeros(len(r), np.int32), sc, sc is not None,
                              order_name="rank order" if rank is not None else "row order"),
                    order if order in ("score", "file") else "file"))
    return out


def run_from_frame(df, name: str, order: str | None = None) -> tuple[ParsedRun, str]:
    """One run from a DataFrame without a ``run`` column (see :func:`runs_from_frame`)."""
    if "run" in df.columns:
        df = df.drop(columns="run")
    return runs_from_frame(df, name, order)[0]


def read_qrels_any(qrels, max_level: int | None = None) -> Qrels:
    """A path (or list of paths), a :class:`Qrels` or a DataFrame -> :class:`Qrels`."""
    if isinstance(qrels, Qrels):
        return qrels.with_max_level(max_level)
    if hasattr(qrels, "columns"):
        return qrels_from_frame(qrels, max_level)
    return read_qrels(qrels, max_level=max_level)


def collection_from_parsed(q: Qrels, parsed: list[tuple[ParsedRun, str]], depth: int | None = 1000,
                           max_level: int | None = None, info: dict | None = None,
                           progress: Callable[[int, int, str], None] | None = None,
                           trec_eval_version: int = 10) -> Collection:
    """Label parsed runs (each with its ``label_run`` order) against ``q``: the second half of
    :func:`metaeval.io.load_collection`, for runs that did not come from files.  Runs are sorted by
    name; two runs of one name are an error."""
    if depth is not None:
        depth = int(depth)
        if depth < 1:
            raise ValueError(f"depth must be >= 1 (or None), got {depth}")
    q = q.with_max_level(max_level)
    if not parsed:
        raise InputError("no runs given")
    names = [p.name for p, _ in parsed]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(f"two runs named {dup[0]!r}: run names must be unique")
    parsed = sorted(parsed, key=lambda po: po[0].name)
    used, excluded, levels, lengths, entry = label_runs(q, parsed, depth, progress, True, trec_eval_version)
    qi = np.array([q.topics.index(t) for t in used], np.int64)
    from .ingest import document_identity
    meta = {"qrels": list(q.sources), "qrels_form": q.form, "runs": {p.name: list(p.sources) for p, _ in parsed},
            "order": sorted({o for _, o in parsed}), "depth": depth, "max_level": q.max_level,
            "trec_eval_version": trec_eval_version,
            **(info or {})}
    return Collection(topics=tuple(used), runs=tuple(p.name for p, _ in parsed), levels=levels,
                      lengths=lengths, level_counts=q.level_counts[qi], excluded_topics=tuple(excluded),
                      info=meta, **document_identity(q, qi, entry))


def parse_run_source(source: RunSource, order: str) -> tuple[ParsedRun, str]:
    """A run file (or per-topic layout) parsed for ``order`` ("file" or "score")."""
    return read_run(source, scores=source.path is not None), order
