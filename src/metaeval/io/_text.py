"""Vectorised whitespace tokenizer for the line-oriented text formats (qrels, runs, rel, res).

The whole file is read as bytes and split with numpy: no Python work per line.  A
:class:`Table` holds, for every non-blank line, the byte span of each of its ``ncols`` fields and
its 1-based line number in the file (blank lines are skipped but still counted), so errors found
column-wise can name the file and line.

Whitespace is any byte <= 0x20 (space, tab, CR, LF, ...), as ``str.split()`` / ``sscanf`` treat it
for ASCII.  Field contents are kept as raw bytes (UTF-8); ids are compared byte for byte.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

_NL = 10


def read_bytes(path: str | os.PathLike) -> bytes:
    """The file's bytes; gzip (by magic number, any suffix) is decompressed transparently."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, ValueError) as e:
            raise InputError(f"corrupt gzip data: {e}", path) from None
    return raw


@dataclass(frozen=True, eq=False)
class Table:
    """Fields of a whitespace-separated file: ``starts/ends[i, j]`` byte span of field ``j`` of
    row ``i`` in :attr:`buf`; ``line[i]`` its 1-based line number."""
    path: str
    buf: np.ndarray          # uint8, the file's bytes with a leading and trailing newline added
    starts: np.ndarray       # (n, ncols) int64
    ends: np.ndarray         # (n, ncols) int64, exclusive
    line: np.ndarray         # (n,) int64

    @property
    def n(self) -> int:
        return self.starts.shape[0]

    @property
    def ncols(self) -> int:
        return self.starts.shape[1]

    def token(self, row: int, col: int) -> str:
        return bytes(self.buf[self.starts[row, col]:self.ends[row, col]]).decode("utf-8", "replace")

    def matrix(self, col: int, rows=None) -> np.ndarray:
        """(n, W) uint8 bytes of field ``col``, zero-padded to the widest token (W a multiple of 8)."""
        s = self.starts[:, col] if rows is None else self.starts[rows, col]
        e = self.ends[:, col] if rows is None else self.ends[rows, col]
        return _matrix(self.buf, s, e)

    def fixed(self, col: int, rows=None) -> np.ndarray:
        """Field ``col`` as a numpy bytes array (``S<W>``), one element per row."""
        m = self.matrix(col, rows)
        return m.view(f"S{m.shape[1]}").ravel()

    def strings(self, col: int) -> list[str]:
        return [b.decode("utf-8") for b in self.fixed(col).tolist()]

    def error(self, row: int, message: str) -> InputError:
        return InputError(message, self.path, int(self.line[row]))


def _matrix(buf: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    n = len(s)
    L = e - s
    W = int(L.max(initial=1))
    W = max(8, (W + 7) // 8 * 8)
    if n == 0:
        return np.zeros((0, W), np.uint8)
    k = np.arange(W)
    idx = s[:, None] + k
    np.minimum(idx, len(buf) - 1, out=idx)
    m = buf[idx]
    m[k >= L[:, None]] = 0
    return m


def tokenize(path: str | os.PathLike, ncols: int | tuple[int, ...], what: str,
             data: bytes | None = None, header: bytes | None = None) -> Table:
    """Split ``path`` into fields.  Every non-blank line must have the same number of fields, one
    of ``ncols``; the first non-blank line decides which.  A line with another count is an
    :class:`InputError` naming the line.  If the first non-blank line starts with ``header``
    (e.g. NTCIR's ``<SYSDESC>`` run description) it is skipped."""
    path = str(path)
    if data is None:
        data = read_bytes(path)
    allowed = (ncols,) if isinstance(ncols, int) else tuple(ncols)
    buf = np.empty(len(data) + 2, np.uint8)
    buf[0] = _NL
    buf[1:-1] = np.frombuffer(data, np.uint8)
    buf[-1] = _NL
    if header is not None:
        lead = len(data) - len(data.lstrip())
        if data.startswith(header, lead):
            stop = data.find(b"\n", lead)
            stop = len(data) if stop < 0 else stop
            buf[1 + lead:1 + stop] = 32          # blank it, keeping line numbers
    ws = buf <= 32
    p = np.flatnonzero(ws)                      # separator positions; p[0] = 0, p[-1] = len-1
    del ws
    gap = p[1:] != p[:-1] + 1                   # a token lies between p[i] and p[i+1]
    tok_start = p[:-1][gap] + 1
    tok_end = p[1:][gap]
    # line number of each token = newlines at or before its preceding separator (the leading
    # newline we added makes this 1-based)
    nl_cum = np.cumsum(buf[p] == _NL)
    tok_line = nl_cum[:-1][gap]
    del p, gap, nl_cum
    ntok = len(tok_start)
    if ntok == 0:
        return Table(path, buf, np.zeros((0, allowed[0]), np.int64), np.zeros((0, allowed[0]), np.int64),
                     np.zeros(0, np.int64))
    first = np.flatnonzero(np.r_[True, tok_line[1:] != tok_line[:-1]])
    counts = np.diff(np.r_[first, ntok])
    nc = int(counts[0])
    if nc not in allowed:
        raise InputError(f"expected {_cols(allowed)} fields in a {what} line, found {nc}", path,
                         int(tok_line[0]))
    bad = np.flatnonzero(counts != nc)
    if len(bad):
        i = int(bad[0])
        ln = int(tok_line[first[i]])
        c = int(counts[i])
        if c in allowed:
            raise InputError(f"{c} fields where line {int(tok_line[0])} has {nc}: a {what} file must "
                             f"not mix forms", path, ln)
        raise InputError(f"expected {nc} fields in a {what} line, found {c}", path, ln)
    return Table(path, buf, tok_start.reshape(-1, nc), tok_end.reshape(-1, nc), tok_line[first])


def _cols(allowed) -> str:
    return " or ".join(str(a) for a in allowed)


# ------------------------------------------------------------------------- numbers
# byte classes: 0 pad, 1 digit, 2 '.', 3 sign, 4 e/E, 5 other
_CLASS = np.full(256, 5, np.uint8)
_CLASS[0] = 0
_CLASS[ord("0"):ord("9") + 1] = 1
_CLASS[ord(".")] = 2
_CLASS[ord("+")] = 3
_CLASS[ord("-")] = 3
_CLASS[ord("e")] = 4
_CLASS[ord("E")] = 4


def check_numeric(table: Table, col: int, what: str, integer: bool = False) -> None:
    """Raise :class:`InputError` at the first row whose field ``col`` is not a number.

    Plain decimals (``[+-]digits[.digits]``) are recognised vectorised; anything else (exponents,
    ``inf``, ``nan``) is checked by parsing just those tokens.
    """
    if table.n == 0:
        return
    m = table.matrix(col)
    c = _CLASS[m]
    ndig = (c == 1).sum(axis=1)
    ndot = (c == 2).sum(axis=1)
    nsign = (c == 3).sum(axis=1)
    nother = ((c == 4) | (c == 5)).sum(axis=1)
    simple = (ndig >= 1) & (nother == 0) & (ndot <= (0 if integer else 1)) & \
             ((nsign == 0) | ((nsign == 1) & (c[:, 0] == 3)))
    rest = np.flatnonzero(~simple)
    for i in rest:          # only unusual tokens reach Python
        tok = table.token(int(i), col)
        try:
            v = float(tok)
            if integer and (not np.isfinite(v) or v != int(v)):
                raise ValueError
        except ValueError:
            kind = "an integer" if integer else "a number"
            raise table.error(int(i), f"{what} {tok!r} is not {kind}") from None


def parse_float(table: Table, col: int, what: str) -> np.ndarray:
    """Field ``col`` as float64 (after :func:`check_numeric`)."""
    f = table.fixed(col)
    try:
        return f.astype(np.float64)
    except ValueError:
        check_numeric(table, col, what)
        raise


# --------------------------------------------------------------------------- hashing
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SEED = np.uint64(0x9E3779B97F4A7C15)


def hash_rows(m: np.ndarray) -> np.ndarray:
    """64-bit hash of each row of a zero-padded (n, 8k) uint8 byte matrix, independent of the
    padding width (all-zero words are skipped: ids contain no NUL bytes).  Used only to find
    candidate matches, which are then verified byte for byte."""
    n = m.shape[0]
    words = np.ascontiguousarray(m).view(np.uint64).reshape(n, -1)
    h = np.full(n, _SEED, np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words.shape[1]):
            w = words[:, j]
            x = (h ^ w) * _M1
            x ^= x >> np.uint64(29)
            x *= _M2
            x ^= x >> np.uint64(32)
            h = np.where(w != 0, x, h) if j else x
    return h
