"""The optional C extension ``metaeval._trecscan`` (setup.py builds it) for the io layer: whether it
may be used, and its column readers for :mod:`metaeval.io._text`.

Without a compiler, or with ``METAEVAL_NO_CEXT`` set, every function here answers None and the
callers take their numpy code, which is the specification: same values, same errors
(``tests/unit/test_reader_c.py`` compares the two paths).
"""

from __future__ import annotations

import os

import numpy as np

try:  # the optional C scanner (docs/io.md, "trec_eval run scanner")
    from .. import _trecscan as _cscan
except ImportError:  # pragma: no cover - depends on the build
    _cscan = None

__all__ = ["c_extensions_enabled", "c_scanner", "c_numbers", "c_hashes"]


def c_extensions_enabled() -> bool:
    """Whether the optional C extensions may be used: not when the environment variable
    ``METAEVAL_NO_CEXT`` is set (to anything but "", "0", "false", "no")."""
    return os.environ.get("METAEVAL_NO_CEXT", "").strip().lower() in ("", "0", "false", "no")


def c_scanner():
    """The C run scanner (module ``metaeval._trecscan``), or None: not built, or
    ``METAEVAL_NO_CEXT`` set (:func:`c_extensions_enabled`)."""
    if _cscan is None or not c_extensions_enabled():
        return None
    return _cscan


def _spans(s: np.ndarray, e: np.ndarray):
    return np.ascontiguousarray(s, np.int64), np.ascontiguousarray(e, np.int64)


def c_numbers(buf: np.ndarray, s: np.ndarray, e: np.ndarray, convert: bool) -> np.ndarray | bool | None:
    """The fields ``buf[s[i]:e[i]]`` when every one is a decimal number in full
    (``[+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?``): converted as C's ``(float) atof`` (float32) if
    ``convert``, else True.  None: no C extension, or some field is something else (``inf``,
    ``nan``, not a number): the numpy code checks (and words the error)."""
    ext = c_scanner()
    if ext is None:
        return None
    s, e = _spans(s, e)
    out = np.empty(len(s), np.float32) if convert else None
    if ext.number_column(buf, s, e, out) >= 0:
        return None
    return out if convert else True


def c_hashes(buf: np.ndarray, s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(hashes, long)``: :func:`metaeval.io._text.hash_rows` of the fields ``buf[s[i]:e[i]]`` of
    up to 64 bytes, and the indices of the longer ones (their hash left for the caller), or None
    without the C extension."""
    ext = c_scanner()
    if ext is None:
        return None
    s, e = _spans(s, e)
    out = np.empty(len(s), np.uint64)
    if ext.hash_column(buf, s, e, out):
        return out, np.flatnonzero((e - s) > 64)
    return out, np.zeros(0, np.intp)
