"""The table CSVs: the data (never rounded, fixed row order, ``\\n`` line ends, floats as their
shortest round-tripping ``repr``), written and read back the same way everywhere."""

from __future__ import annotations

import math

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..util import atomic_write

__all__ = ["csv_text", "csv_blocks", "write_csv", "read_table", "TEXT_COLUMNS"]


def _float_text(x) -> str:
    return "" if x is None or math.isnan(x) else repr(float(x))


def _float_texts(v: np.ndarray) -> list[str]:
    """:func:`_float_text` of every value (no Python call per value: millions of p-values per
    table at campaign scale): ``repr`` of each distinct value once when values repeat (p-values
    are counts / B), missing values ''."""
    u, inv = np.unique(v, return_inverse=True) if len(v) > 4096 else (v, None)
    if inv is not None and len(u) < len(v) // 2:
        texts = np.array(list(map(repr, u.tolist())), dtype=object)[inv.ravel()]
        z = np.flatnonzero(v == 0)                     # unique() merges -0.0 with 0.0
        neg = np.signbit(v[z])
        texts[z[neg]] = "-0.0"
        texts[z[~neg]] = "0.0"
    else:
        texts = np.array(list(map(repr, v.tolist())), dtype=object)
    texts[np.isnan(v)] = ""
    return texts.tolist()


#: rows converted to text at once by :func:`csv_text` (memory: a table of millions of p-values is
#: written a block at a time, not as millions of Python strings per column)
CSV_BLOCK_ROWS = 250_000


def csv_text(df: pd.DataFrame) -> str:
    """The CSV text: floats as shortest round-tripping repr (never rounded), ``\\n`` line ends.
    Long tables are converted a block of rows at a time (each field is written on its own, so the
    text is the same)."""
    if len(df) <= CSV_BLOCK_ROWS:
        return _csv_block(df, True)
    return "".join(csv_blocks(df))


def csv_blocks(df: pd.DataFrame, start: int = 0, stop: int | None = None):
    """The text of :func:`csv_text` a block of rows at a time (a long table can be written as it
    is converted, never held as one string).  ``start``, ``stop``: the blocks of those rows only
    (``start`` a multiple of :data:`CSV_BLOCK_ROWS`; the header with the first), so that the parts
    of a table written side by side join into the same text."""
    if start % CSV_BLOCK_ROWS:
        raise ValueError(f"csv_blocks: start {start} is not a multiple of {CSV_BLOCK_ROWS}")
    end = len(df) if stop is None else min(int(stop), len(df))
    for i in range(start, max(1, end) if start == 0 else end, CSV_BLOCK_ROWS):
        yield _csv_block(df.iloc[i:min(i + CSV_BLOCK_ROWS, end)], i == 0)


#: characters that make the csv module (QUOTE_MINIMAL) quote a field
_QUOTED = (",", '"', "\n", "\r")


def _plain_texts(col: pd.Series) -> list[str] | None:
    """The CSV fields of a column as ``to_csv`` writes them when no field needs quoting: floats by
    :func:`_float_texts`, integers by ``str``, strings as they are; ``None`` for anything else
    (booleans, missing text, mixed objects, a field with a comma, quote or line break)."""
    kind = col.dtype.kind
    if kind == "f":
        return _float_texts(col.to_numpy(dtype=float))
    if kind in "iu":                    # a missing Int64 value: an empty cell (str would give "<NA>")
        return ["" if v is pd.NA else str(v) for v in col.tolist()] if col.hasnans else list(map(str, col.tolist()))
    if ((kind in "OT" or isinstance(col.dtype, pd.StringDtype)) and not col.isna().any()
            and pd.api.types.infer_dtype(col, skipna=False) == "string"):                   # all str
        vals = col.tolist()
        if all(q not in v for v in set(vals) for q in _QUOTED):
            return vals
    return None


def _csv_block(df: pd.DataFrame, header: bool) -> str:
    # fast path: every field is known text needing no quotes -- joined directly, the same bytes
    # as pandas' writer (QUOTE_MINIMAL, "\n" line ends); else pandas' to_csv
    if df.shape[1] > 1 and df.columns.is_unique:
        cols = []
        for c in df.columns:
            texts = _plain_texts(df[c])
            if texts is None:
                break
            cols.append(texts)
        else:
            names = [str(c) for c in df.columns]
            if all(type(c) is str and c and all(q not in c for q in _QUOTED) for c in df.columns):
                lines = list(map(",".join, zip(*cols)))
                if header:
                    lines.insert(0, ",".join(names))
                return "\n".join(lines) + "\n" if lines else ""
    out = df.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_float_dtype(col.dtype):
            out[c] = _float_texts(col.to_numpy(dtype=float))
        elif col.dtype == object:
            out[c] = [_float_text(v) if isinstance(v, (float, np.floating)) else v for v in col]
        elif isinstance(col.dtype, pd.api.extensions.ExtensionDtype) and col.isna().any():
            # a missing integer (Int64) or text: an empty cell, as every missing value (pandas
            # would write "<NA>")
            # (pandas 3's str dtype gives NaN for a missing text, not pd.NA)
            out[c] = ["" if v is pd.NA or v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in col.astype(object)]
    return out.to_csv(index=False, header=header, lineterminator="\n")


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write :func:`csv_text` of ``df`` to ``path`` atomically; return the path."""
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(csv_text(df))
    return Path(path)


#: the text columns of the tables (and of the pipeline's part CSVs); every other column is read
#: as numbers or booleans
TEXT_COLUMNS = ("metric", "metric_a", "metric_b", "run", "system_x", "system_y", "test", "topic",
                "gains", "paper_gains", "variant", "level")


#: pandas before 3.0 parses CSV floats with a fast converter that misreads about a third of the
#: shortest-repr values by one ulp (e.g. 157 of k/435); its Python-float parser reads them exactly
_FLOAT_PRECISION = "round_trip" if int(pd.__version__.split(".")[0]) < 3 else None


def read_table(path) -> pd.DataFrame:
    """Read a table CSV back (as :func:`csv_text` wrote it): empty cells are missing values, the
    :data:`TEXT_COLUMNS` stay strings (a run named ``001`` or a metric named ``NA`` survives)."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""], float_precision=_FLOAT_PRECISION,
                       dtype={c: str for c in TEXT_COLUMNS})
