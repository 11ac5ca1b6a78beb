"""The optional C extensions of the io layer (setup.py builds them): whether they may be used
(also for the trec_eval drop-in's scanner, :mod:`metaeval.treceval.ranking`) and the hot loops of
metaeval's own reader, ``metaeval._reader`` (for :mod:`metaeval.io._text` and
:mod:`metaeval.io.ingest`).

Without a compiler, or with ``METAEVAL_NO_CEXT`` set, every function here answers None and the
callers take their numpy code, which is the specification: same values, same errors
(``tests/unit/test_reader_c.py`` compares the two paths).
"""

from __future__ import annotations

import os

import numpy as np

try:  # the optional C reader loops (docs/io.md, "The project's reader through the same extension")
    from .. import _reader as _creader
except ImportError:  # pragma: no cover - depends on the build
    _creader = None
if _creader is not None and not hasattr(_creader, "number_column64"):  # pragma: no cover
    _creader = None          # built from an older _reader.c: as if not built (rebuild: setup.py build_ext)

__all__ = ["c_extensions_enabled", "c_reader", "c_numbers", "c_hashes", "c_first_index", "c_order_ties", "c_regular_split"]


def c_extensions_enabled() -> bool:
    """Whether the optional C extensions may be used: not when the environment variable
    ``METAEVAL_NO_CEXT`` is set (to anything but "", "0", "false", "no")."""
    return os.environ.get("METAEVAL_NO_CEXT", "").strip().lower() in ("", "0", "false", "no")


def c_reader():
    """The C loops of metaeval's reader (module ``metaeval._reader``), or None: not built, or
    ``METAEVAL_NO_CEXT`` set."""
    if _creader is None or not c_extensions_enabled():
        return None
    return _creader


def _spans(s: np.ndarray, e: np.ndarray):
    return np.ascontiguousarray(s, np.int64), np.ascontiguousarray(e, np.int64)


def c_numbers(buf: np.ndarray, s: np.ndarray, e: np.ndarray, convert: bool) -> np.ndarray | bool | None:
    """The fields ``buf[s[i]:e[i]]`` when every one is a decimal number in full
    (``[+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?``): converted as C's ``atof`` (float64) if ``convert``,
    else True.  None: no C extension, or some field is
    something else (``inf``, ``nan``, not a number): the numpy code checks (and words the error)."""
    ext = c_reader()
    if ext is None:
        return None
    s, e = _spans(s, e)
    if convert:
        out = np.empty(len(s), np.float64)
        return None if ext.number_column64(buf, s, e, out) >= 0 else out
    return None if ext.number_column(buf, s, e, None) >= 0 else True


def c_hashes(buf: np.ndarray, s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(hashes, long)``: :func:`metaeval.io._text.hash_rows` of the fields ``buf[s[i]:e[i]]`` of
    up to 64 bytes, and the indices of the longer ones (their hash left for the caller), or None
    without the C extension."""
    ext = c_reader()
    if ext is None:
        return None
    s, e = _spans(s, e)
    out = np.empty(len(s), np.uint64)
    if ext.hash_column(buf, s, e, out):
        return out, np.flatnonzero((e - s) > 64)
    return out, np.zeros(0, np.intp)


def c_first_index(keys: np.ndarray) -> tuple[np.ndarray, int] | None:
    """``(first, repeats)``: ``first[i]`` the first ``j`` with ``keys[j] == keys[i]`` (uint64 keys;
    one hash table, no sort) and the number of ``i`` with ``first[i] != i``; None without the C
    extension."""
    ext = c_reader()
    if ext is None:
        return None
    keys = np.ascontiguousarray(keys, np.uint64)
    out = np.empty(len(keys), np.int64)
    return out, ext.first_index(keys, out)


def c_order_ties(order: np.ndarray, keys: np.ndarray, rows: np.ndarray, docs: np.ndarray) -> bool:
    """``order`` (a stable argsort of the uint64 ``keys``) reordered in place within each run of
    equal keys by DOCID ``docs[rows[i]]`` descending (byte order), then by position; True when
    done, False without the C extension or for ids held as ``bytes`` objects (the caller sorts)."""
    ext = c_reader()
    if ext is None or docs.dtype.kind != "S" or docs.itemsize < 1:
        return False
    ext.order_ties(order, np.ascontiguousarray(keys, np.uint64), np.ascontiguousarray(rows, np.int64),
                   np.ascontiguousarray(docs), docs.itemsize)
    return True


def c_regular_split(buf: np.ndarray, body: int, allowed) -> tuple[np.ndarray, int] | None:
    """``(separator positions, fields a line)`` of ``buf[:body]`` in
    :func:`metaeval.io._text._fast_split`'s form (the first of ``allowed`` that fits), or None:
    another form (the numpy tokenizer splits it), or no C extension."""
    ext = c_reader()
    if ext is None:
        return None
    for nc in allowed:
        p = ext.regular_split(buf, body, nc)
        if p is not None:
            return np.frombuffer(p, np.int64), nc
    return None
