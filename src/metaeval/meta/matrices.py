"""Topic x run score matrices: reading ``DIR/METRIC.csv`` and selecting the runs to meta-evaluate.

File form (as ``metaeval matrices`` writes it, or exported from any other tool): a CSV whose first
column is ``topic`` and whose other columns are runs, one row per topic, one file per metric named
by the canonical measure name (``AP.csv``, ``nDCG@10.csv``, ``P-plus(gains=10:20:30).csv``).
``topics.csv`` in the same folder is the topic list, not a matrix.
"""

from __future__ import annotations

import csv
import os
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..util import open_text

__all__ = ["identical_measures", "read_matrix", "load_matrices", "list_matrices", "select_top_runs", "restrict_runs",
           "align_matrices", "matrix_for", "matrices_for", "NON_MATRIX_FILES"]

NON_MATRIX_FILES = {"topics.csv", "runs_used.csv", "std_factors.csv"}     # std_factors.csv: a standardisation's factors
_NUMBER = re.compile(r"\s*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\s*\Z",
                     re.IGNORECASE)


#: the tidy per-topic frame of :func:`metaeval.evaluate`
TIDY_COLUMNS = ["run", "topic", "measure", "value"]


def tidy_to_matrices(scores: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """A tidy ``run, topic, measure, value`` frame (:func:`metaeval.evaluate`'s) ->
    ``{measure: topic x run DataFrame}`` (topics and runs in string order, measures in the order
    they first appear -- :func:`metaeval.evaluate`'s, the order asked -- so that the Kendall pairs
    are oriented as the pipeline's ``kendall.csv``, whose metrics are in the config's order)."""
    missing = [c for c in TIDY_COLUMNS if c not in scores.columns]
    if missing:
        raise ValueError(f"scores: missing column(s) {', '.join(missing)}; expected {', '.join(TIDY_COLUMNS)}")
    df = scores[TIDY_COLUMNS].copy()
    for c in ("run", "topic", "measure"):
        df[c] = df[c].astype(str)
    dup = df.duplicated(["run", "topic", "measure"])
    if dup.any():
        r = df[dup].iloc[0]
        raise ValueError(f"scores: two values for run {r.run!r}, topic {r.topic!r}, measure {r.measure!r}")
    out = {}
    for m in pd.unique(df["measure"]):
        part = df[df["measure"] == m]
        mat = part.pivot(index="topic", columns="run", values="value").sort_index().sort_index(axis=1)
        if mat.isna().any().any():
            raise ValueError(f"scores: measure {m!r} lacks a value for some run and topic")
        mat.index.name, mat.columns.name = "topic", "run"
        out[m] = mat.astype(np.float64)
    return out


def read_matrix(path: str | Path) -> pd.DataFrame:
    """Read one topic x run CSV into a DataFrame (index ``topic`` as str, float columns = runs).

    Raises :class:`~metaeval.errors.InputError` naming the file and line for a missing header,
    a ragged row, a duplicate topic or run, or a value that is not a finite number.
    """
    path = Path(path)
    try:
        fh = open_text(path)
    except FileNotFoundError:
        raise InputError("matrix file not found", path) from None
    with fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise InputError("empty matrix file (expected a header 'topic,RUN,...')", path, 1) from None
        except (csv.Error, UnicodeDecodeError) as e:
            raise InputError(f"unreadable CSV: {e}", path, 1) from None
        if not header or header[0].strip().lstrip("\ufeff") != "topic":
            raise InputError(f"first header column must be 'topic', got {header[:1]}", path, 1)
        runs = [h.strip() for h in header[1:]]
        if not runs:
            raise InputError("no run columns", path, 1)
        if any(not r for r in runs):
            raise InputError("empty run name in header", path, 1)
        seen = set()
        for r in runs:
            if r in seen:
                raise InputError(f"duplicate run column {r!r}", path, 1)
            seen.add(r)
        topics: list[str] = []
        rows: list[list[float]] = []
        tseen: dict[str, int] = {}
        try:
            for lineno, row in enumerate(reader, start=2):
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) != len(runs) + 1:
                    raise InputError(f"expected {len(runs) + 1} fields, got {len(row)}", path, lineno)
                t = row[0].strip()
                if t in tseen:
                    raise InputError(f"duplicate topic {t!r} (first on line {tseen[t]})", path, lineno, t)
                tseen[t] = lineno
                vals = []
                for r, c in zip(runs, row[1:]):
                    try:
                        if not _NUMBER.match(c):             # float() also takes "1_0", "\u0661"
                            raise ValueError(c)
                        v = float(c)
                    except ValueError:
                        raise InputError(f"run {r}: {c!r} is not a number", path, lineno, t) from None
                    if not math.isfinite(v):
                        raise InputError(f"run {r}: non-finite value {c!r}", path, lineno, t)
                    vals.append(v)
                topics.append(t)
                rows.append(vals)
        except (csv.Error, UnicodeDecodeError) as e:
            raise InputError(f"unreadable CSV: {e}", path, reader.line_num) from None
    if not topics:
        raise InputError("no topic rows", path)
    df = pd.DataFrame(np.array(rows, dtype=np.float64), index=pd.Index(topics, name="topic"),
                      columns=pd.Index(runs, name="run"))
    return df


def list_matrices(directory: str | Path) -> list[str]:
    """Metric names of the matrices in ``directory`` (file stems of ``*.csv``), sorted."""
    d = Path(directory)
    if not d.is_dir():
        raise InputError("matrix folder not found", d)
    return sorted(p.name[:-4] for p in d.glob("*.csv") if p.name not in NON_MATRIX_FILES)


def matrix_for(name: str, available) -> str:
    """The name of the matrix in ``available`` that metric ``name`` reads, resolving aliases as the
    measure registry does everywhere: the name itself when a matrix has it (any tool's name is
    taken as is), else its canonical measure name (``PDoc@1000`` -> ``Prec@1000``, ``MAP`` ->
    ``AP``, ``Q`` -> ``Q-measure``) in NTCIREVAL's vocabulary, else in ir_measures' (``nDCG@10`` ->
    ``trec.ndcg_cut@10``), an ``AG_``/``G_`` prefix kept.  A name that resolves to no
    available matrix is returned unchanged, for the caller to report."""
    name = str(name)
    if name in available:
        return name
    prefix = next((p for p in ("AG_", "G_") if name.startswith(p)), "")
    base = name[len(prefix):]
    if prefix and base in available:
        return name
    from ..metrics.registry import parse_measure

    # a name read in either vocabulary: nDCG@10 reads trec.ndcg_cut@10's matrix when the matrices
    # are trec_eval's (TREC input) and there is no NTCIREVAL nDCG@10 (docs/io.md, Conventions)
    for vocabulary in ("ntcireval", "ir_measures"):
        try:
            canonical = parse_measure(base, vocabulary).name
        except ValueError:
            continue
        if canonical in available:
            return prefix + canonical
    return name


def matrices_for(names, available) -> list[str] | None:
    """:func:`matrix_for` of every name (``None`` stays ``None``)."""
    if names is None:
        return None
    available = set(available)
    return [matrix_for(n, available) for n in names]


def load_matrices(directory: str | os.PathLike, metrics: list[str] | None = None) -> dict[str, pd.DataFrame]:
    """``{metric: matrix}`` for ``metrics`` (default: every matrix in the folder, sorted by name).

    All matrices must hold the same topics and runs (they are re-ordered like the first one).
    """
    d = Path(directory)
    names = list_matrices(d) if metrics is None else matrices_for(metrics, list_matrices(d))
    if not names:
        raise InputError("no METRIC.csv matrices found", d)
    out = {}
    for m in names:
        p = d / f"{m}.csv"
        if not p.exists():
            avail = ", ".join(list_matrices(d)) or "none"
            raise InputError(f"no matrix for metric {m!r} (available: {avail})", p)
        out[m] = read_matrix(p)
    return align_matrices(out, {m: d / f"{m}.csv" for m in names})


def align_matrices(matrices: dict[str, pd.DataFrame], paths: dict | None = None) -> dict[str, pd.DataFrame]:
    """Check that all matrices share topics and runs; return copies ordered like the first."""
    names = list(matrices)
    first = matrices[names[0]]
    topics, runs = list(first.index), list(first.columns)
    out = {}
    for m in names:
        df = matrices[m]
        where = (paths or {}).get(m)
        if set(df.index) != set(topics):
            extra = sorted(set(df.index) ^ set(topics))[:5]
            raise InputError(f"{m}: topics differ from those of {names[0]} (e.g. {extra})", where)
        if set(df.columns) != set(runs):
            extra = sorted(set(df.columns) ^ set(runs))[:5]
            raise InputError(f"{m}: runs differ from those of {names[0]} (e.g. {extra})", where)
        out[m] = df.loc[topics, runs].copy()
    return out


def select_top_runs(matrix, k: int | None) -> list[str]:
    """The top ``k`` runs by mean over topics (descending; ties by run name), as the papers keep
    the top 30 by mean relaxed AP.  ``k=None`` or ``k >= runs`` keeps all runs, in that order.
    Means are compared after rounding to 12 decimals, so float noise never breaks a tie."""
    if not isinstance(matrix, pd.DataFrame):
        raise TypeError("select_top_runs needs a DataFrame (topic x run)")
    if k is not None and (isinstance(k, bool) or int(k) < 2):
        raise ValueError(f"top-runs k must be >= 2, got {k!r}")
    means = np.round(matrix.to_numpy(dtype=np.float64).mean(axis=0), 12)
    runs = [str(r) for r in matrix.columns]
    order = sorted(range(len(runs)), key=lambda i: (-means[i], runs[i]))
    if k is not None:
        order = order[: int(k)]
    return [runs[i] for i in order]


def restrict_runs(matrices: dict[str, pd.DataFrame], runs: list[str]) -> dict[str, pd.DataFrame]:
    """Copies of the matrices with only ``runs`` (in that order)."""
    out = {}
    for m, df in matrices.items():
        missing = [r for r in runs if r not in df.columns]
        if missing:
            raise ValueError(f"{m}: runs {missing[:5]} not in the matrix")
        out[m] = df.loc[:, list(runs)].copy()
    return out


def identical_measures(matrices: dict, rtol: float = 1e-12) -> list[tuple[str, str]]:
    """Pairs of measures (in the given order) whose topic x run matrices are equal value for value,
    up to rounding (``|a - b| <= rtol * max(1, |a|)``: two implementations of one formula may sum in
    another order): the same measure under two names (e.g. ``MSnDCG@10`` and ``trec.ndcg_cut@10``
    under gains 1:2:3, which differ by at most 4.4e-16 on DL19), whose Kendall's tau is 1 by
    construction.  One vectorised comparison per measure against the measures after it."""
    names = [str(n) for n in matrices]
    mats = [np.asarray(matrices[n], dtype=np.float64) for n in names]
    if len(mats) < 2 or len({m.shape for m in mats}) != 1:
        return []
    x = np.stack([m.ravel() for m in mats])                               # (measures, cells)
    pairs = []
    for i in range(len(names) - 1):
        a, rest = x[i], x[i + 1:]
        close = (np.abs(rest - a) <= rtol * np.maximum(1.0, np.abs(a))) | (np.isnan(rest) & np.isnan(a))
        pairs += [(names[i], names[i + 1 + j]) for j in np.flatnonzero(close.all(axis=1))]
    return pairs
