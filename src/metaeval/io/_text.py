"""Vectorised whitespace tokenizer for the line-oriented text formats (qrels, runs, rel, res).

The whole file is read as bytes and split with numpy: no Python work per line.  A
:class:`Table` holds, for every non-blank line, the byte span of each of its ``ncols`` fields and
its 1-based line number in the file (blank lines are skipped but still counted), so errors found
column-wise can name the file and line.

Whitespace is any byte <= 0x20 (space, tab, CR, LF, ...), as ``str.split()`` / ``sscanf`` treat it
for ASCII.  Field contents are kept as raw bytes (UTF-8); ids are compared byte for byte.
"""

from __future__ import annotations

import os
import re

import numpy as np

from ..errors import InputError
from ._cext import c_hashes, c_numbers, c_regular_split

_NL = 10

_PAD = 256          # zero bytes after the data: fixed-width field extraction never runs off the end
_BOM = b"\xef\xbb\xbf"
# Fields up to this many bytes are held in dense fixed-width arrays (memory <= 64 bytes a line);
# a column with a longer field is held as Python bytes objects (memory proportional to the input).
DENSE_MAX = 64


def read_bytes(path: str | os.PathLike) -> bytes:
    """The file's bytes; gzip (by magic number, any suffix) is decompressed transparently."""
    return check_text(read_raw_bytes(path), path)


def read_text(path: str | os.PathLike) -> str:
    """The file's text (UTF-8, plain or gzip by magic number, a byte-order mark dropped); an
    unreadable, corrupt or non-UTF-8 file is an :class:`InputError` naming it."""
    return read_bytes(path).decode("utf-8")


def read_raw_bytes(path: str | os.PathLike) -> bytes:
    """:func:`read_bytes` without the text check (a caller that checks chunk by chunk): the input
    read once (:func:`metaeval.util.source_bytes`; a FIFO or ``<(cmd)`` too), gzip decompressed."""
    from ..util import gunzip, source_bytes

    try:
        raw = source_bytes(path)
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gunzip(raw)
        except (OSError, EOFError, ValueError) as e:
            raise InputError(f"corrupt gzip data: {e}", path) from None
    return raw


def _line_of(data: bytes, pos: int) -> int:
    return data.count(b"\n", 0, pos) + 1


def check_text(data: bytes, path) -> bytes:
    """The bytes of a UTF-8 text file, a leading UTF-8 byte-order mark removed.

    Refused with an :class:`InputError` naming the line: UTF-16/UTF-32 (a UTF-16 byte-order mark,
    or NUL bytes), a byte-order mark anywhere but at the very start, and bytes that are not UTF-8."""
    if data.isascii() and b"\0" not in data:      # plain ASCII: valid UTF-8 without any mark
        return data
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("UTF-16/UTF-32 text (byte-order mark): only UTF-8 is accepted; convert the "
                         "file (e.g. iconv -f UTF-16 -t UTF-8)", path, 1)
    data = data.removeprefix(_BOM)
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError("NUL byte: binary or UTF-16 data; only UTF-8 text is accepted", path,
                         _line_of(data, nul))
    bom = data.find(_BOM)
    if bom >= 0:
        raise InputError("byte-order mark (U+FEFF) inside the file: only one at the very start is "
                         "allowed (concatenated files?)", path, _line_of(data, bom))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (byte 0x{data[e.start]:02x}); other encodings are refused",
                         path, _line_of(data, e.start)) from None
    return data


class Table:
    """Fields of a whitespace-separated file: :meth:`span` gives the byte spans of one field of
    every row in :attr:`buf`; ``line[i]`` is row ``i``'s 1-based line number.

    Built either from the separator positions of a regular file (fields separated by single
    whitespace bytes: spans are strided slices, computed per field on demand) or from explicit
    (rows, fields) start/end arrays."""

    def __init__(self, path: str, buf: np.ndarray, line: np.ndarray, ncols: int,
                 sep: np.ndarray | None = None, starts: np.ndarray | None = None,
                 ends: np.ndarray | None = None):
        self.path = path
        self.buf = buf            # uint8: LF, the file's bytes, LF, _PAD zero bytes
        self.line = line          # (n,) int64
        self.ncols = ncols
        self._sep = sep           # regular form: separator positions, ncols per row (+ leading LF)
        self._starts = starts     # general form: (n, ncols) int64
        self._ends = ends
        self._spans: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def n(self) -> int:
        return len(self.line)

    def span(self, col: int) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, ends)`` (n,) int64 byte offsets of field ``col`` (ends exclusive)."""
        if col not in self._spans:
            if self._sep is not None:
                nc, p = self.ncols, self._sep
                self._spans[col] = (p[col:len(p) - 1:nc] + 1, p[col + 1::nc])
            else:
                assert self._starts is not None and self._ends is not None     # no separator table: field spans
                self._spans[col] = (self._starts[:, col], self._ends[:, col])
        return self._spans[col]

    def token(self, row: int, col: int) -> str:
        s, e = self.span(col)
        return bytes(self.buf[s[row]:e[row]]).decode("utf-8", "replace")

    def matrix(self, col: int) -> np.ndarray:
        """(n, W) uint8 bytes of field ``col``, zero-padded to the widest token (W a multiple of 8)."""
        return _matrix(self.buf, *self.span(col))

    def words(self, col: int) -> np.ndarray:
        """(n, k) little-endian 8-byte words of field ``col``, zero-padded."""
        return _words(self.buf, *self.span(col))

    def fixed(self, col: int) -> np.ndarray:
        """Field ``col`` as a numpy bytes array (``S<W>``), one element per row.  Dense: only for
        columns whose fields are short (see :meth:`ids`)."""
        m = self.matrix(col)
        return m.view(f"S{m.shape[1]}").ravel()

    def width(self, col: int) -> int:
        s, e = self.span(col)
        return int((e - s).max(initial=0))

    def ids(self, col: int) -> np.ndarray:
        """Field ``col`` as an array of byte strings in memory proportional to the input: ``S<W>``
        when every field has at most :data:`DENSE_MAX` bytes, else an object array of ``bytes``
        (one long id must not make every row as wide as itself)."""
        if self.width(col) <= DENSE_MAX:
            return self.fixed(col)
        return _objects(self.buf, *self.span(col))

    def hash(self, col: int) -> np.ndarray:
        """64-bit hash of every field of column ``col`` (:func:`hash_ids`)."""
        return _hash_spans(self.buf, *self.span(col))

    def error(self, row: int, message: str) -> InputError:
        return InputError(message, self.path, int(self.line[row]))


_MASKS = np.array([(1 << (8 * i)) - 1 for i in range(9)], dtype="<u8")


def _words(buf: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Fields ``buf[s[i]:e[i]]`` as zero-padded little-endian 8-byte words, shape (n, k) with
    ``8k`` >= the longest field (k >= 1): one unaligned 8-byte gather per word, no byte loop."""
    n = len(s)
    L = e - s
    k = max(1, (int(L.max(initial=1)) + 7) // 8)
    out = np.empty((n, k), "<u8")
    if n == 0:
        return out
    if 8 * k <= _PAD:
        u = np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))
        for j in range(k):
            w = u[s + 8 * j] if j else u[s]
            w &= _MASKS[np.clip(L - 8 * j, 0, 8)]
            out[:, j] = w
        return out
    idx = s[:, None] + np.arange(8 * k)                       # very long fields: byte gather
    np.minimum(idx, len(buf) - 1, out=idx)
    m = buf[idx]
    m *= np.arange(8 * k) < L[:, None]
    return m.view("<u8")


def _objects(buf: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    mv = buf.data                                            # a memoryview of the array
    out = np.empty(len(s), object)
    out[:] = [bytes(mv[a:b]) for a, b in zip(s.tolist(), e.tolist())]
    return out


def _matrix(buf: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Rows ``buf[s[i]:e[i]]`` zero-padded to a common width (a multiple of 8, at least 8), uint8."""
    w = _words(buf, s, e)
    return w.view(np.uint8).reshape(len(s), 8 * w.shape[1])


def _buffer(data: bytes, skip: int) -> tuple[np.ndarray, int]:
    """``(buf, body)``: LF, ``data[skip:]``, LF unless the data already ends with one, then _PAD
    zero bytes; ``body`` is the length before the padding."""
    n = len(data) - skip
    end_nl = n > 0 and data[-1] == _NL
    body = 1 + n + (0 if end_nl else 1)
    buf = np.empty(body + _PAD, np.uint8)
    buf[0] = _NL
    buf[1:n + 1] = np.frombuffer(data, np.uint8, offset=skip)
    buf[body - 1] = _NL
    buf[body:] = 0
    return buf, body


def tokenize(path: str | os.PathLike, ncols: int | tuple[int, ...], what: str,
             data: bytes | None = None, header: bytes | None = None) -> Table:
    """Split ``path`` into fields.  Every non-blank line must have the same number of fields, one
    of ``ncols``; the first non-blank line decides which.  A line with another count is an
    :class:`InputError` naming the line.  If the first non-blank line starts with ``header``
    (e.g. NTCIR's ``<SYSDESC>`` run description) it is skipped.  Whitespace is any byte <= 0x20."""
    path = str(path)
    data = read_bytes(path) if data is None else check_text(data, path)
    allowed = (ncols,) if isinstance(ncols, int) else tuple(ncols)
    skip, first_line = 0, 1
    if header is not None:
        lead = len(data) - len(data.lstrip())
        if data.startswith(header, lead):
            stop = data.find(b"\n", lead)
            skip = len(data) if stop < 0 else stop + 1
            first_line = data.count(b"\n", 0, skip) + 1
    buf, body = _buffer(data, skip)
    fast = c_regular_split(buf, body, allowed)       # the C reader: _fast_split's form in one pass
    if fast is not None:
        return _regular_table(path, buf, *fast, first_line)
    p = np.flatnonzero(buf[:body] <= 32)             # separator positions; p[0] = 0, p[-1] = end newline
    fast = _fast_split(path, buf, p, allowed, first_line)
    if fast is not None:
        return fast
    return _general_split(path, buf, p, allowed, what, first_line)


def _fast_split(path, buf, p, allowed, first_line):
    """Files whose fields are separated by exactly one whitespace byte, lines by one LF, with no
    blank lines (the usual machine-written form): fields are read straight off the separators."""
    nsep = len(p) - 1
    c = None
    for nc in allowed:
        if nsep == 0 or nsep % nc:
            continue
        nrows = nsep // nc
        if c is None:
            c = buf[p]
        # every nc-th separator is a line end and no other separator is (p[0] is the leading LF)
        if np.count_nonzero(c == _NL) != nrows + 1 or not (c[nc::nc] == _NL).all():
            continue
        if int((p[1:] - p[:-1]).min()) <= 1:     # two adjacent whitespace bytes: general path
            return None
        return _regular_table(path, buf, p, nc, first_line)
    return None


def _regular_table(path, buf, p, nc, first_line) -> Table:
    """The :class:`Table` of a file in :func:`_fast_split`'s form, ``p`` its separator positions."""
    nrows = (len(p) - 1) // nc
    return Table(path, buf, np.arange(first_line, first_line + nrows, dtype=np.int64), nc, sep=p)


def _general_split(path, buf, p, allowed, what, first_line) -> Table:
    gap = p[1:] != p[:-1] + 1                   # a token lies between p[i] and p[i+1]
    tok_start = p[:-1][gap] + 1
    tok_end = p[1:][gap]
    # line number of each token = newlines at or before its preceding separator (the leading
    # newline added in _buffer makes this 1-based)
    nl_cum = np.cumsum(buf[p] == _NL)
    tok_line = nl_cum[:-1][gap] + (first_line - 1)
    ntok = len(tok_start)
    if ntok == 0:
        z = np.zeros((0, allowed[0]), np.int64)
        return Table(path, buf, np.zeros(0, np.int64), allowed[0], starts=z, ends=z.copy())
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
    return Table(path, buf, tok_line[first], nc, starts=tok_start.reshape(-1, nc),
                 ends=tok_end.reshape(-1, nc))


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

# DFA for [+-]?(d+(.d*)?|.d+)([eE][+-]?d+)? ending at whitespace; state 10 = reject, 9 = done.
# It runs on the file buffer itself: every field is followed by a whitespace byte (class 0), after
# which the automaton stays in state 9 whatever comes next.
_WS_CLASS = _CLASS.copy()
_WS_CLASS[:33] = 0
_ERR = 10
_DFA = np.full((11, 6), _ERR, np.uint8)
#          ws  digit dot sign  e
_DFA[0, [1, 2, 3]] = [2, 4, 1]
_DFA[1, [1, 2]] = [2, 4]
_DFA[2, [0, 1, 2, 4]] = [9, 2, 3, 6]
_DFA[3, [0, 1, 4]] = [9, 3, 6]
_DFA[4, [1]] = [5]
_DFA[5, [0, 1, 4]] = [9, 5, 6]
_DFA[6, [1, 3]] = [8, 7]
_DFA[7, [1]] = [8]
_DFA[8, [0, 1]] = [9, 8]
_DFA[9, :] = 9
# one lookup table indexed by state * 256 + byte
_STEP = _DFA[:, _WS_CLASS].reshape(-1).astype(np.intp)


# A number as C's strtod reads it, restricted to what a score or rank may be: decimal digits are
# ASCII only, and the whole field must be the number (atof would silently read the prefix "1" of
# "1_000"; we refuse it).  Hexadecimal floats and "nan(...)" are refused too.
_NUMBER = re.compile(rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z",
                     re.IGNORECASE)


def check_numeric(table: Table, col: int, what: str) -> None:
    """Raise :class:`InputError` at the first row whose field ``col`` is not a number.

    Decimal and exponent forms are recognised by a vectorised automaton, one byte position at a
    time over all rows (fields longer than :data:`DENSE_MAX` bytes skip it); the remaining tokens
    (``inf``, ``nan``, very long ones, bad ones) are checked one by one with :data:`_NUMBER`."""
    if table.n == 0:
        return
    s, e = table.span(col)
    if c_numbers(table.buf, s, e, False):         # the C reader: every field a decimal number
        return
    L = e - s
    steps = min(int(L.max()), DENSE_MAX) + 1
    buf = table.buf
    n = len(s)
    state = np.zeros(n, np.intp)
    byte = np.empty(n, np.uint8)
    idx = s.copy()
    for _ in range(steps):                      # in place: no allocation per step
        np.take(buf, idx, out=byte)
        state <<= 8
        state |= byte
        np.take(_STEP, state, out=state)
        idx += 1
    rest = np.flatnonzero((state != 9) | (L > DENSE_MAX))
    for i in rest:          # only unusual tokens reach Python
        s_i, e_i = int(s[i]), int(e[i])
        if not _NUMBER.match(bytes(buf[s_i:e_i])):
            tok = table.token(int(i), col)
            if len(tok) > 40:
                tok = tok[:40] + "..."
            raise table.error(int(i), f"{what} {tok!r} is not a number")


def parse_float32(table: Table, col: int, what: str) -> np.ndarray:
    """Field ``col`` validated (:func:`check_numeric`) and converted as C does ``(float) atof(s)``:
    the correctly rounded double, then rounded to single precision (trec_eval 9.0.x keeps scores as
    ``float``; a double beyond float32's range becomes an infinity, without numpy's overflow
    warning)."""
    with np.errstate(over="ignore"):
        return parse_float64(table, col, what).astype(np.float32)


def parse_float64(table: Table, col: int, what: str) -> np.ndarray:
    """Field ``col`` validated (:func:`check_numeric`) and converted as C does ``atof(s)``: the
    correctly rounded double (trec_eval 10.0 keeps scores as ``double``).  The plain route (the
    specification): numpy's string-to-double conversion; the C reader
    (:func:`metaeval.io._cext.c_numbers`) when every field is decimal."""
    n = table.n
    if n and isinstance(fast := c_numbers(table.buf, *table.span(col), True), np.ndarray):
        return fast
    check_numeric(table, col, what)
    out = np.empty(n, np.float64)
    if n == 0:
        return out
    s, e = table.span(col)
    short = (e - s) <= DENSE_MAX
    if short.all():
        out[:] = table.fixed(col).astype(np.float64)
        return out
    i = np.flatnonzero(short)
    m = _matrix(table.buf, s[i], e[i])
    out[i] = m.view(f"S{m.shape[1]}").ravel().astype(np.float64)
    for k in np.flatnonzero(~short).tolist():
        out[k] = float(bytes(table.buf[s[k]:e[k]]))
    return out


# --------------------------------------------------------------------------- hashing
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SEED = np.uint64(0x9E3779B97F4A7C15)


def hash_rows(m: np.ndarray) -> np.ndarray:
    """64-bit hash of each row of a zero-padded (n, 8k) uint8 byte matrix (or (n, k) 8-byte words),
    independent of the padding width (all-zero words are skipped: ids contain no NUL bytes).  Used
    only to find candidate matches, which are then verified byte for byte."""
    n = m.shape[0]
    if n == 0:                                   # no ids (an empty file): no hashes
        return np.zeros(0, np.uint64)
    words = m if m.dtype.itemsize == 8 else np.ascontiguousarray(m).view("<u8").reshape(n, -1)
    h = np.full(n, _SEED, np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words.shape[1]):
            w = words[:, j].astype(np.uint64, copy=False)
            x = (h ^ w) * _M1
            x ^= x >> np.uint64(29)
            x *= _M2
            x ^= x >> np.uint64(32)
            h = np.where(w != 0, x, h) if j else x
    return h


def _blake64(items) -> np.ndarray:
    import hashlib

    return np.array([int.from_bytes(hashlib.blake2b(b, digest_size=8).digest(), "little")
                     for b in items], np.uint64)


def _hash_spans(buf: np.ndarray, s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """:func:`hash_ids` of the fields ``buf[s[i]:e[i]]``, without a dense array wider than
    :data:`DENSE_MAX` bytes."""
    fast = c_hashes(buf, s, e)                    # the C reader: the same hashes
    if fast is not None:
        out, j = fast
    else:
        long_ = (e - s) > DENSE_MAX
        if not long_.any():
            return hash_rows(_words(buf, s, e))
        out = np.empty(len(s), np.uint64)
        i = np.flatnonzero(~long_)
        out[i] = hash_rows(_words(buf, s[i], e[i]))
        j = np.flatnonzero(long_)
    if len(j):
        mv = buf.data                                        # a memoryview of the array
        out[j] = _blake64(bytes(mv[a:b]) for a, b in zip(s[j].tolist(), e[j].tolist()))
    return out


def as_fixed(ids: np.ndarray) -> np.ndarray | None:
    """``ids`` (an ``S<W>`` or object array of ``bytes``) as an ``S<W>`` array when that takes at
    most a few times the bytes of the ids themselves (``8 x`` their total length, or 16 MiB), else
    None: one long id among many short ones must not size a (rows x longest) array (a 2 MB id among
    9,000 would be 17 GiB).  Callers keep the object array (or take a path that does) on None."""
    if ids.dtype.kind == "S":
        return ids
    lens = np.fromiter(map(len, ids), np.int64, len(ids))
    width = int(lens.max(initial=1))
    if len(ids) * width > max(8 * int(lens.sum()), 1 << 24):
        return None
    return ids.astype(f"S{max(1, width)}")


def hash_ids(ids: np.ndarray) -> np.ndarray:
    """64-bit hash of each byte string of ``ids`` (an ``S<W>`` or object array of ``bytes``): the
    same value whatever the array's form, so qrels and runs held differently still match.  Ids of
    up to :data:`DENSE_MAX` bytes go through :func:`hash_rows`, longer ones through BLAKE2b."""
    n = len(ids)
    if ids.dtype.kind == "S":
        w = ids.dtype.itemsize
        w8 = max(8, (w + 7) // 8 * 8)
        m = np.zeros((n, w8), np.uint8)
        m[:, :w] = ids.view(np.uint8).reshape(n, w)
        return hash_rows(m)
    lens = np.fromiter(map(len, ids), np.int64, n)
    long_ = lens > DENSE_MAX
    out = np.empty(n, np.uint64)
    i = np.flatnonzero(~long_)
    if len(i):
        out[i] = hash_ids(ids[i].astype(f"S{DENSE_MAX}"))
    j = np.flatnonzero(long_)
    if len(j):
        out[j] = _blake64(ids[j].tolist())
    return out
