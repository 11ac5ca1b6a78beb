"""cwl_eval's dot products, the same on every machine: the order of the ``ddot`` numpy calls on
AVX-512 machines (OpenBLAS's SkylakeX kernel; its Haswell kernel, that of AVX2 machines, with
``METAEVAL_CWL_DDOT=haswell``), its fused multiply-adds emulated exactly
(:func:`_dot`), and a fast route to the same printed digits (:func:`dots_printed`: rounded
products, a rigorous error bound, the exact route for the rows the bound leaves undecided).

Why the emulation and not a plain fixed order: the sign cwl_eval prints for a residual that is
mathematically 0 is the sign of the rounding error of that order (docs/metrics.md, C/W/L,
"Why the ddot emulation stays"; ``tests/conformance/test_cwl_ddot.py``)."""

from __future__ import annotations

import functools
import os

import numpy as np

__all__ = ["KERNELS", "blas_core", "ddot_kernel", "dots", "dots_printed"]

#: the ``ddot`` kernels whose order can be emulated: OpenBLAS's SkylakeX kernel (AVX-512
#: machines; the default, so that every machine prints the same bytes) and its Haswell kernel
#: (AVX2 machines without AVX-512: also AMD Zen)
KERNELS = ("skylakex", "haswell")


#: OpenBLAS cores (``openblas_get_corename``) by the ``ddot`` kernel they use
_CORES = {"skylakex": "skylakex", "cooperlake": "skylakex", "sapphirerapids": "skylakex",
          "haswell": "haswell", "zen": "haswell"}


@functools.lru_cache(maxsize=1)
def blas_core() -> str | None:
    """The core numpy's bundled OpenBLAS runs on here (``SkylakeX``, ``Haswell``, ``Zen``, ...),
    or None when numpy's BLAS is not a bundled OpenBLAS."""
    import ctypes
    import glob

    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "*openblas*"))
    for lib in sorted(libs):
        try:
            h = ctypes.CDLL(lib)
        except OSError:
            continue
        for name in ("scipy_openblas_get_corename64_", "openblas_get_corename64_", "openblas_get_corename"):
            f = getattr(h, name, None)
            if f is not None:
                f.restype = ctypes.c_char_p
                return f().decode()
    return None


def ddot_kernel() -> str:
    """The ``ddot`` order emulated: ``METAEVAL_CWL_DDOT`` -- ``skylakex`` (the default),
    ``haswell``, or ``native`` (the kernel numpy's OpenBLAS uses on this machine, as cwl-eval
    here: the output then depends on the machine, as cwl-eval's does)."""
    from ..errors import ConfigError

    k = os.environ.get("METAEVAL_CWL_DDOT", "").strip().lower() or "skylakex"
    if k == "native":
        core = blas_core()
        if (core or "").lower() not in _CORES:
            raise ConfigError(f"METAEVAL_CWL_DDOT=native: numpy's BLAS here ({core or 'not a bundled OpenBLAS'}) "
                              f"uses a ddot order metaeval does not emulate ({', '.join(KERNELS)})")
        return _CORES[(core or "").lower()]
    if k not in KERNELS:
        raise ConfigError(f"METAEVAL_CWL_DDOT={k!r}: the ddot order is one of {', '.join(KERNELS)} or native")
    return k


_SPLIT = 134217729.0          # 2**27 + 1: Veltkamp's splitting constant for doubles


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p = RN(a*b) and its exact error e = a*b - p (Dekker's product, no FMA needed)."""
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _fma_acc(acc: np.ndarray, p: np.ndarray, e: np.ndarray) -> np.ndarray:
    """RN(acc + (p + e)) exactly -- a fused multiply-add of the product p + e into acc -- by Boldo
    & Melquiond's (2008) correctly rounded sum of three doubles: two exact sums, the low parts
    added with rounding to odd, then one rounding to nearest."""
    th = acc + p
    z = th - acc
    tl = (acc - (th - z)) + (p - z)
    u = tl + e
    z = u - tl
    err = (tl - (u - z)) + (e - z)
    even = (u.view(np.int64) & 1) == 0
    fix = (err != 0.0) & even
    if fix.any():
        u = np.where(fix, np.nextafter(u, np.copysign(np.inf, err)), u)
    return th + u


def _dot(x: np.ndarray, y: np.ndarray, fused: bool = True, kernel: str | None = None) -> np.ndarray:
    """Row-wise dot products (B,) in one fixed order: that of the ``ddot`` numpy's ``np.dot``
    calls on AVX-512 machines (OpenBLAS's SkylakeX kernel: fused multiply-adds into 32 lanes over
    blocks of 32 ranks, the lanes folded to 16, a fixed tree, then fused multiply-adds of the last
    n mod 16 ranks in sequence).  The fused multiply-add is emulated exactly
    (:func:`_fma_acc`; plain adds where every product is exact), so the result is cwl_eval's bit
    for bit on such machines -- which decides the sign cwl_eval prints for a residual that is
    mathematically 0 (``-0.0000``) -- and the same on every machine.  With ``kernel`` (default
    :func:`ddot_kernel`) ``"haswell"``, the order of OpenBLAS's Haswell kernel instead (AVX2
    machines: fused multiply-adds into 16 lanes over blocks of 16 ranks, :func:`_fold_haswell`,
    the same tail)."""
    if fused:
        p, e = _two_prod(x, y)
        exact = not e.any()
    else:                                    # the same order, products rounded (see dots_printed)
        p, e, exact = x * y, None, True
    B, n = p.shape
    n1 = n & -16
    n32 = n1 & ~31
    # adding a zero product (p = e = 0) leaves an accumulator as it is: blocks past the last
    # nonzero product are skipped
    nz = np.flatnonzero((p != 0.0).any(axis=0))
    last = int(nz[-1]) + 1 if len(nz) else 0

    def acc_add(acc, lo, hi):
        if exact:
            return acc + p[:, lo:hi]
        assert e is not None
        return _fma_acc(acc, p[:, lo:hi], e[:, lo:hi])

    dot = np.zeros(B)
    if n1 and (kernel or ddot_kernel()) == "haswell":
        acc = np.zeros((B, 16))
        for j in range(0, min(n1, last), 16):    # a loop over blocks of 16 ranks, not documents
            acc = acc_add(acc, j, j + 16)
        dot = _fold_haswell(acc)
    elif n1:
        a5 = np.zeros((B, 32))
        for j in range(0, min(n32, last), 32):   # a loop over blocks of 32 ranks, not documents
            a5 = acc_add(a5, j, j + 32)
        a58 = a5.reshape(B, 4, 8)
        acc = (a58[:, :, :4] + a58[:, :, 4:]).reshape(B, 16)
        if n1 > n32 and last > n32:
            acc = acc_add(acc, n32, n1)
        acc44 = acc.reshape(B, 4, 4)
        v = ((acc44[:, 0] + acc44[:, 1]) + acc44[:, 2]) + acc44[:, 3]
        dot = (v[:, 0] + v[:, 2]) + (v[:, 1] + v[:, 3])
    for i in range(n1, min(n, last)):        # at most 15 ranks
        dot = acc_add(dot[:, None], i, i + 1)[:, 0]
    return 0.0 + dot


def _fold_haswell(acc: np.ndarray) -> np.ndarray:
    """The (B,) sums of the 16 lanes of OpenBLAS's Haswell ``ddot`` kernel (four 4-lane
    accumulators): each accumulator's halves added, the four pairs added in a tree, then the
    two lanes."""
    a = acc.reshape(len(acc), 4, 4)
    r = a[:, :, :2] + a[:, :, 2:]
    h = (r[:, 0] + r[:, 1]) + (r[:, 2] + r[:, 3])
    return h[:, 0] + h[:, 1]


def _dot_rounded(x: np.ndarray, y: np.ndarray, kernel: str | None = None) -> np.ndarray:
    """:func:`_dot`'s order with rounded products (no fused multiply-add): the 32 lanes as one
    reduction over the blocks (sequential along a non-contiguous axis), then the same fold, tree
    and tail."""
    p = x * y
    B, n = p.shape
    n1 = n & -16
    n32 = n1 & ~31
    dot = np.zeros(B)
    if n1 and (kernel or ddot_kernel()) == "haswell":
        dot = _fold_haswell(np.add.reduce(p[:, :n1].reshape(B, n1 // 16, 16), axis=1))
    elif n1:
        a5 = np.add.reduce(p[:, :n32].reshape(B, n32 // 32, 32), axis=1) if n32 else np.zeros((B, 32))
        a5 = a5.reshape(B, 4, 8)
        acc = (a5[:, :, :4] + a5[:, :, 4:]).reshape(B, 16)
        if n1 > n32:
            acc = acc + p[:, n32:n1]
        acc = acc.reshape(B, 4, 4)
        v = ((acc[:, 0] + acc[:, 1]) + acc[:, 2]) + acc[:, 3]
        dot = (v[:, 0] + v[:, 2]) + (v[:, 1] + v[:, 3])
    for i in range(n1, n):
        dot = dot + p[:, i]
    return 0.0 + dot


_DOT_ROWS = 256         # rows per batch of dot products (bounds the temporaries' memory)


def dots(pairs, fused: bool = True) -> list[np.ndarray]:
    """``[_dot(x, y) for x, y in pairs]``, computed in batches of stacked rows."""
    X = np.concatenate([x for x, _ in pairs])
    Y = np.concatenate([y for _, y in pairs])
    out = np.empty(len(X))
    kernel = ddot_kernel()
    with np.errstate(invalid="ignore", over="ignore"):
        for r in range(0, len(X), _DOT_ROWS):
            out[r:r + _DOT_ROWS] = _dot(X[r:r + _DOT_ROWS], Y[r:r + _DOT_ROWS], fused, kernel)
    bounds = np.cumsum([0] + [len(x) for x, _ in pairs])
    return [out[bounds[i]:bounds[i + 1]] for i in range(len(pairs))]


_U = 2.0 ** -53


def _unsure(v: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """True where a value known only to within +-delta might print differently with ``{:.4f}``
    (a rounding boundary or, for the sign of a zero, 0 itself lies within reach)."""
    with np.errstate(invalid="ignore", over="ignore"):
        t = np.abs(v) * 1e4
        d = delta * 1e4 + t * 1e-15 + 1e-300
        unsure = (np.floor(t - d + 0.5) != np.floor(t + d + 0.5)) | ((np.abs(v) <= delta) & (delta > 0))
    return unsure | ~np.isfinite(v) | ~np.isfinite(delta)


def _row_info(case, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(max |y| per row, rows whose every y is 0 or a power of two) of a case's gains, costs or
    their running sums (cached: the same for every measure)."""
    key = ("info", name)

    def make():
        y = getattr(case, name)
        exact = ((np.frexp(y)[0] == 0.5) | (y == 0.0)).all(axis=1)
        return np.abs(y).max(axis=1, initial=0.0), exact
    return case.cached(key, make)


def _same_rows(a, b, rows) -> np.ndarray:
    """Of ``rows``, those where the dot of pair ``a`` and of pair ``b`` are computed identically:
    every position has the same (x, y), or a zero product in both (adding a zero changes nothing)."""
    (xa, ya), (xb, yb) = (a[0][rows], a[1][rows]), (b[0][rows], b[1][rows])
    return (((xa == xb) & (ya == yb)) | (((xa == 0) | (ya == 0)) & ((xb == 0) | (yb == 0)))).all(axis=1)


def dots_printed(cases, wls):
    """The four dot products of each case to the printed digits of the fused computation, fast:
    every dot in the same order with rounded products, with the bound |fused - rounded| <=
    2 gamma_n sum |x y| <= 2 gamma_n max|y| sum |x| (both sums are within gamma_n sum |x y| of the
    exact value, gamma_n = n u / (1 - n u); 0 where every product is exact); the rows where a
    printed quantity (or residual) is not decided by the bound are recomputed with the fused
    emulation.  Returns the values per case as lists of 4 arrays."""
    names = ("g", "cg", "k", "cc")
    flat, deltas = [], []
    n = cases[0].n + 16
    gamma = n * _U / (1.0 - n * _U)
    for case, (w, L) in zip(cases, wls):
        sx = {0: np.add.reduce(np.abs(w), axis=1), 1: np.add.reduce(np.abs(L), axis=1)}
        for q, name in enumerate(names):
            x = (w, L)[q % 2]
            y = getattr(case, name)
            flat.append((x, y))
            ymax, exact = _row_info(case, name)
            d = 2.2 * gamma * sx[q % 2] * ymax + 1e-300
            d[exact] = 0.0
            deltas.append(d)
    with np.errstate(invalid="ignore", over="ignore"):
        kernel = ddot_kernel()
        vals = [_dot_rounded(x, y, kernel) for x, y in flat]
    unsure = np.zeros(len(vals[0]), bool)
    for v, d in zip(vals, deltas):
        unsure |= _unsure(v, d)
    if len(cases) == 2:
        for q in range(4):
            r = vals[4 + q] - vals[q]
            d = (deltas[4 + q] + deltas[q]) * (1.0 + 8 * _U)
            maybe = np.flatnonzero(_unsure(r, d) & ~unsure)
            if len(maybe):
                unsure[maybe[~_same_rows(flat[q], flat[4 + q], maybe)]] = True
    rows = np.flatnonzero(unsure)
    if len(rows):
        exact_rows = dots([(x[rows], y[rows]) for x, y in flat])
        for v, ex in zip(vals, exact_rows):
            v[rows] = ex
    return [vals[4 * j:4 * j + 4] for j in range(len(cases))]
