"""The hand-written ingest fast paths that issue 8 asked to justify, kept here (not in the package)
only so that ``bench_metrics.py --parts`` can measure what each would save against the plain route:

* ``HashIndex`` -- the vectorised open-addressing hash table of the former ``metaeval/io/_hash.py``
  (qrels lookup), against sorted keys + ``numpy.searchsorted``;
* ``parse_float32_fast`` -- the Clinger fast-path score parser of the former ``io/_text.py``,
  against ``astype(float64).astype(float32)`` after validation;
* ``float_rows_orjson`` -- the orjson matrix writer of the former ``cli/matrices.py``, against
  ``repr``.
"""

from __future__ import annotations

import numpy as np

_EMPTY = np.iinfo(np.int32).max


def _size(n: int, load: int = 4) -> int:
    return 1 << max(6, int(n * load - 1).bit_length())


class HashIndex:
    def __init__(self, keys: np.ndarray):
        keys = np.asarray(keys, np.uint64)
        self.size = _size(len(keys))
        self.mask = np.uint64(self.size - 1)
        self.keys = np.zeros(self.size, np.uint64)
        self.pos = np.full(self.size, -1, np.int64)
        slot = (keys & self.mask).view(np.int64)
        pending = np.arange(len(keys), dtype=np.int32)
        claim = np.full(self.size, _EMPTY, np.int32)
        while len(pending):
            s = slot[pending]
            free = self.pos[s] == -1
            if free.any():
                np.minimum.at(claim, s[free], pending[free])
            won = claim[s] == pending
            self.pos[s[won]] = pending[won]
            self.keys[s[won]] = keys[pending[won]]
            pending = pending[~won]
            slot[pending] = (slot[pending] + 1) & (self.size - 1)

    def get(self, needles: np.ndarray) -> np.ndarray:
        needles = np.asarray(needles, np.uint64)
        out = np.full(len(needles), -1, np.int64)
        active = np.arange(len(needles))
        slot = (needles & self.mask).view(np.int64)
        while len(active):
            p = self.pos[slot]
            hit = (p >= 0) & (self.keys[slot] == needles[active])
            out[active[hit]] = p[hit]
            cont = (p >= 0) & ~hit
            active = active[cont]
            slot = (slot[cont] + 1) & (self.size - 1)
        return out


_POW10 = 10.0 ** np.arange(23)
_TWO53 = np.uint64(1 << 53)


def parse_float32_fast(table, col: int, what: str) -> np.ndarray:
    """Field ``col`` validated and converted as C does ``(float) atof(s)``: the correctly rounded
    double, then rounded to single precision (trec_eval keeps scores as ``float``).

    Plain decimals ``[+-]?digits[.digits]`` with at most 19 digits, at most 22 of them after the
    point, are converted in one vectorised pass: the digits form an integer M, and M / 10^k is
    the exact double when M < 2^53 (Clinger's fast path), otherwise within 1.5 units in the last
    place -- which gives the same single-precision value unless it lies that close to a midpoint
    between two floats; those rows, and every other form (exponents, ``inf``...), are converted
    exactly by numpy's string parser.  Result identical to ``float32(float64(token))``."""
    n = table.n
    if n == 0:
        return np.zeros(0, np.float32)
    s, e = table.span(col)
    L = e - s
    buf = table.buf
    M = np.zeros(n, np.uint64)
    ndig = np.zeros(n, np.int64)
    frac = np.zeros(n, np.int64)
    dots = np.zeros(n, np.int64)
    plain = np.ones(n, bool)
    first = buf[s]
    neg = first == ord("-")
    signed = neg | (first == ord("+"))
    idx = s + signed
    Ls = L - signed
    # work arrays, updated in place (no allocation per byte position)
    b = np.empty(n, np.uint8)
    d = np.empty(n, np.uint8)
    live = np.empty(n, bool)
    isdig = np.empty(n, bool)
    isdot = np.empty(n, bool)
    ok = np.empty(n, bool)
    seen = np.zeros(n, bool)
    mul = np.empty(n, np.uint8)
    for j in range(int(Ls.max())):
        np.take(buf, idx, out=b)
        np.greater(Ls, j, out=live)
        np.subtract(b, np.uint8(48), out=d)                   # wraps: digits -> 0..9
        np.less(d, 10, out=isdig)
        isdig &= live
        np.equal(b, 46, out=isdot)                              # '.'
        isdot &= live
        np.logical_or(isdig, isdot, out=ok)
        np.logical_not(live, out=live)
        ok |= live
        plain &= ok
        np.multiply(isdig.view(np.uint8), np.uint8(9), out=mul)
        mul += np.uint8(1)                                      # 10 for a digit, else 1
        M *= mul
        d *= isdig.view(np.uint8)
        M += d
        ndig += isdig
        np.logical_and(isdig, seen, out=ok)
        frac += ok
        dots += isdot
        seen |= isdot
        idx += 1
    plain &= (ndig >= 1) & (ndig <= 19) & (dots <= 1) & (frac <= 22)
    with np.errstate(all="ignore"):
        d64 = M.astype(np.float64) / _POW10[np.minimum(frac, 22)]
    d64[neg] = -d64[neg]
    out = d64.astype(np.float32)
    # inexact M (>= 2^53): near a single-precision rounding midpoint -> exact conversion
    near = plain & (M >= _TWO53)
    if near.any():
        i = np.flatnonzero(near)
        g = out[i].astype(np.float64)
        lo = np.nextafter(out[i], np.float32(-np.inf)).astype(np.float64)
        hi = np.nextafter(out[i], np.float32(np.inf)).astype(np.float64)
        dist = np.minimum(np.abs(d64[i] - (g + lo) / 2), np.abs(d64[i] - (g + hi) / 2))
        risky = dist <= 8 * np.spacing(np.abs(d64[i]))
        plain[i[risky]] = False
    rest = np.flatnonzero(~plain)
    if len(rest):
        f = table.fixed(col)[rest]
        try:
            out[rest] = f.astype(np.float64).astype(np.float32)
        except ValueError:
            from metaeval.io._text import Table, check_numeric
            sub = Table(table.path, buf, table.line[rest], 1, starts=s[rest][:, None], ends=e[rest][:, None])
            check_numeric(sub, 0, what)
            raise
    return out


def float_rows_orjson(mat) -> list[str]:
    """The former orjson writer: repr's text for |x| in [1e-4, 1e15) or 0, repr for other rows."""
    import orjson

    mat = np.ascontiguousarray(mat, dtype=np.float64)
    if mat.shape[0] == 0:
        return []
    rows = orjson.dumps(mat, option=orjson.OPT_SERIALIZE_NUMPY).decode()[2:-2].split("],[")
    a = np.abs(mat)
    slow = ~(((a >= 1e-4) & (a < 1e15)) | (a == 0.0))
    for t in np.flatnonzero(slow.any(axis=1)):
        rows[t] = ",".join(map(repr, mat[t].tolist()))
    return rows
