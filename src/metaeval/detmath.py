"""Arithmetic whose result does not depend on the CPU, the BLAS kernel or the thread count.

A matrix product in numpy goes to BLAS, whose kernel (chosen at run time for the CPU: OpenBLAS'
Haswell, SkylakeX, Zen, ...) and thread count decide the order of the additions and whether they
are fused with the multiplications; numpy's vectorised ``log``, ``exp`` and ``power`` run other
SIMD code on an AVX-512 CPU than on an AVX2 one.  Either changes the last digits of a number, and a
number on a decision boundary (``|t*| = |t|``, a bin edge) can then flip a count.  What reaches a
table is therefore computed here:

* :func:`int_product` -- ``M @ K`` for a float matrix ``M`` and an integer-valued matrix ``K``
  (bootstrap count matrices, sign matrices).  Each row of ``M`` is split into two slices on a
  fixed-point grid (the error-free splitting of Ozaki, Ogita, Oishi and Rump (2012)) fine enough
  to keep every bit that matters and coarse enough that every product and every partial sum of a
  slice times ``K`` is an exactly representable multiple of the grid: BLAS then computes each
  slice's product *exactly*, in whatever order it likes, and the two exact results are added once.
  The result is the exact product of the (at most 2^-90 relatively) truncated ``M``, rounded once --
  more accurate than one plain BLAS call, and as fast as two.
* :func:`fixed_sum` -- a float sum along an axis in an order fixed by the array's shape
  (``numpy.add.reduce``; numpy's reductions are plain C loops whose order the CPU does not change).
* :func:`log`, :func:`exp`, :func:`power`, :func:`log2` -- elementwise through the C library's
  scalar functions (Python's ``math``): every family's tables of C-library values (trec_eval's
  discounts :func:`log2_offsets`, NTCIREVAL's and ndeval's logarithms and powers, cwl_eval's
  ``math.pow``) are computed by them; :func:`powers` -- ``p^i`` as a C loop's running product.
* :func:`running_sum` -- the running sums along the rank axis in index order (a C loop's order),
  the one running sum of the ranked measures.
* :func:`gauss_legendre` -- Gauss-Legendre nodes and weights by Newton's method on the Legendre
  recurrence in scalar arithmetic (``numpy.polynomial.legendre.leggauss`` goes through LAPACK).
"""

from __future__ import annotations

import math
import os
from functools import lru_cache

import numpy as np

__all__ = ["int_product", "split_rows", "sliced_product", "sliced_products", "fixed_sum", "log", "exp", "power",
           "gauss_legendre", "log2", "log2_offsets", "powers", "running_sum", "loop_total"]

#: rows whose largest magnitude is below 2^MIN_EXP are split on the grid of 2^MIN_EXP (keeps the
#: grids normal numbers; such tiny values never reach a table)
MIN_EXP = -900


def split_rows(M, bound: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(hi, lo)`` with ``hi + lo`` = ``M`` up to ``2^-(2s+1)`` of each row's largest magnitude,
    such that ``hi @ K`` and ``lo @ K`` are exact for every integer-valued ``K`` whose columns have
    ``sum |K[:, j]| <= bound`` (``s = 53 - ceil(log2(bound))`` bits per slice).  ``None`` when
    ``M`` is not finite or ``bound`` too large for two useful slices (the caller sums in order)."""
    M = np.asarray(M, dtype=np.float64)
    bound = max(1, int(bound))
    s = 53 - math.ceil(math.log2(bound))
    if s < 20 or not np.isfinite(M).all():
        return None
    mx = np.abs(M).max(axis=-1, keepdims=True) if M.size else np.zeros(M.shape[:-1] + (1,))
    e = np.maximum(np.frexp(mx)[1], MIN_EXP)                 # |M| < 2^e row by row
    q1 = np.ldexp(1.0, e - s)
    q2 = np.ldexp(1.0, e - 2 * s)
    hi = np.rint(M / q1) * q1                                # |hi| <= 2^s q1: bound 2^s q1 <= 2^53 q1
    lo = np.rint((M - hi) / q2) * q2                         # M - hi is exact, |.| <= q1 / 2
    return hi, lo


def sliced_product(slices: tuple[np.ndarray, np.ndarray], K) -> np.ndarray:
    """``hi @ K + lo @ K`` (exact products, one rounding), negative zeros made positive."""
    hi, lo = slices
    out = hi @ K
    out += lo @ K
    out += 0.0
    return out


def sliced_products(splits, CT, buf: np.ndarray | None = None) -> list[np.ndarray]:
    """:func:`sliced_product` of several matrices in one BLAS call: ``hi @ CT + lo @ CT`` for each
    ``(hi, lo)`` of ``splits`` (:func:`split_rows` with the bound of ``CT``'s columns), all slices
    stacked into one exact product, the two exact halves added once, negative zeros made positive
    (the bootstrap samples' count-matrix products).  ``buf``: a scratch array of at least
    ``2 * sum(k) * CT.shape[1]`` elements reused for the stacked product (fewer page faults); the
    results are views into it then."""
    rows = sum(2 * hi.shape[0] for hi, _ in splits)
    stack = np.concatenate([x for sl in splits for x in sl])
    if buf is not None and buf.size >= rows * CT.shape[1]:
        R = buf.reshape(-1)[:rows * CT.shape[1]].reshape(rows, CT.shape[1])
        np.matmul(stack, CT, out=R)                           # exact
    else:
        R = stack @ CT                                        # exact
    outs, r = [], 0
    for hi, _ in splits:
        k = hi.shape[0]
        out = R[r:r + k]
        out += R[r + k:r + 2 * k]                              # hi + lo: the one rounding
        out += 0.0                                             # no negative zero
        outs.append(out)
        r += 2 * k
    return outs


def _ordered_product(M, K) -> np.ndarray:
    """``M @ K`` as a loop over the inner dimension with elementwise operations (fixed order)."""
    M = np.asarray(M, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    out = np.zeros(M.shape[:-1] + K.shape[-1:])
    for i in range(M.shape[-1]):
        out += M[..., i:i + 1] * K[..., i:i + 1, :]
    out += 0.0
    return out


def int_product(M, K, bound: int | None = None) -> np.ndarray:
    """``M @ K`` independent of the BLAS kernel and thread count, for a float ``(..., k, n)``
    matrix ``M`` and an integer-valued ``(..., n, r)`` matrix ``K`` (float or integer dtype).

    ``bound``: an upper bound of ``sum |K[:, j]|`` over every column ``j`` (computed when not
    given), e.g. the sample size for a bootstrap count matrix or ``n`` for a +-1 sign matrix."""
    K = np.asarray(K)
    if bound is None:
        bound = int(np.abs(K).sum(axis=-2).max()) if K.size else 1
    Kf = K.astype(np.float64, copy=False)
    slices = split_rows(M, bound)
    if slices is None:
        return _ordered_product(M, Kf)
    return sliced_product(slices, Kf)


def fixed_sum(x, axis: int = -1) -> np.ndarray:
    """The sum along ``axis`` by ``numpy.add.reduce`` (an order fixed by the shape, not the CPU)."""
    return np.add.reduce(np.asarray(x, dtype=np.float64), axis=axis)


def running_sum(x, axis: int = -1) -> np.ndarray:
    """The running sums along ``axis`` in index order (``np.cumsum``: a sequential loop, as a C
    loop ``s += x[i]`` computes them, never a pairwise sum): the one running sum of the ranked
    measures (trec_eval, NTCIREVAL, ir_measures); its last entry is the loop's total."""
    return np.cumsum(x, axis=axis)


def loop_total(x) -> np.ndarray:
    """The sum over the last axis as the C loop ``s = 0.0; for (i...) s += x[i]`` computes it: the
    running sum's last entry, plus 0.0 (the loop's start: a sum of negative zeros is +0.0); zeros
    for an empty axis."""
    x = np.asarray(x, dtype=np.float64)
    if x.shape[-1] == 0:
        return np.zeros(x.shape[:-1])
    return running_sum(x)[..., -1] + 0.0


def _log1(v: float) -> float:
    if v > 0.0:
        return math.log(v)
    return -math.inf if v == 0.0 else math.nan


def _exp1(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def _pow1(a: float, b: float) -> float:
    try:
        return math.pow(a, b)
    except OverflowError:
        return math.inf
    except ValueError:                                       # negative base, fractional exponent
        return math.inf if a == 0.0 else math.nan


def _map(f, x) -> np.ndarray | float:
    a = np.asarray(x, dtype=np.float64)
    out = np.fromiter(map(f, a.ravel().tolist()), dtype=np.float64, count=a.size).reshape(a.shape)
    return float(out) if np.ndim(x) == 0 else out


def log(x):
    """Natural logarithm elementwise by the C library's ``log`` (``-inf`` at 0, NaN below)."""
    return _map(_log1, x)


def exp(x):
    """``e^x`` elementwise by the C library's ``exp`` (``inf`` on overflow)."""
    return _map(_exp1, x)


def _c_pow():
    """``pow_column`` of the optional C extension ``metaeval._reader`` (a C loop of what
    :func:`_pow1` computes, bit for bit), or None: not built, or ``METAEVAL_NO_CEXT`` set (as
    :func:`metaeval.io._cext.c_extensions_enabled` reads it)."""
    if os.environ.get("METAEVAL_NO_CEXT", "").strip().lower() not in ("", "0", "false", "no"):
        return None
    try:
        from ._reader import pow_column
    except ImportError:  # pragma: no cover - depends on the build
        return None
    return pow_column


def power(x, y):
    """``x ** y`` elementwise (broadcast) by the C library's ``pow``, as :func:`math.pow` gives it
    (an overflow +inf, a NaN of finite arguments NaN): a C loop when the extension is built, else
    :func:`_pow1` value by value."""
    xa, ya = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    c_pow = _c_pow()
    if c_pow is not None:
        out = np.empty(xa.shape, np.float64)
        c_pow(np.ascontiguousarray(xa), np.ascontiguousarray(ya), out)
    else:
        out = np.fromiter(map(_pow1, xa.ravel().tolist(), ya.ravel().tolist()), dtype=np.float64,
                          count=xa.size).reshape(xa.shape)
    return float(out) if xa.ndim == 0 else out


_LOG2_INT = [np.zeros(0)]         # math.log2(i) for the integers i below its length
_LOG2_OFF: list[float] = []       # math.log2(i + 2) for i below its length


def log2(x) -> np.ndarray:
    """C's ``log2`` of each value: integral values in [1, 2^16) from a table of ``math.log2``, the
    others one by one (the same function: the same bits)."""
    x = np.asarray(x, np.float64)
    with np.errstate(invalid="ignore"):
        small = (x >= 1.0) & (x < 65536.0) & (x == np.floor(x))
    out = np.empty(x.shape)
    if small.any():
        xi = x[small].astype(np.int64)
        top = int(xi.max()) + 1
        if len(_LOG2_INT[0]) < top:
            n = max(top, 2 * len(_LOG2_INT[0]))
            _LOG2_INT[0] = np.array([0.0] + [math.log2(float(i)) for i in range(1, min(n, 65536))])
        out[small] = _LOG2_INT[0][xi]
    rest = ~small
    if rest.any():
        out[rest] = np.fromiter(map(math.log2, x[rest].tolist()), np.float64, int(rest.sum()))
    return out


def log2_offsets(n: int) -> np.ndarray:
    """``log2(i + 2)`` for ``i < n`` by C's ``log2`` (the discounts of rank i + 1; a table grown
    on demand)."""
    while len(_LOG2_OFF) < n:
        _LOG2_OFF.append(math.log2(len(_LOG2_OFF) + 2))
    return np.array(_LOG2_OFF[:n], np.float64)


def powers(p: float, n: int) -> np.ndarray:
    """``p^i`` for ``i <= n`` as sequential products (``p^i = p^(i-1) * p``, as a C loop
    multiplying a running value computes them)."""
    return np.multiply.accumulate(np.r_[1.0, np.full(n, p)])


@lru_cache(maxsize=32)
def _gauss_legendre(deg: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    xs, ws = [], []
    for i in range(deg):
        x = math.cos(math.pi * (i + 0.75) / (deg + 0.5))      # Tricomi's initial guess of root i
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, deg + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = deg * (x * p1 - p0) / ((x - 1.0) * (x + 1.0))
            dx = p1 / dp
            x -= dx
            if abs(dx) <= 4e-16:
                break
        p0, p1 = 1.0, x
        for k in range(2, deg + 1):
            p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        dp = deg * (x * p1 - p0) / ((x - 1.0) * (x + 1.0))
        xs.append(x)
        ws.append(2.0 / ((1.0 - x) * (1.0 + x) * dp * dp))
    # symmetric about 0: average each node with its mirror, ascending order
    xs, ws = xs[::-1], ws[::-1]
    nodes = tuple((xs[i] - xs[deg - 1 - i]) / 2 for i in range(deg))
    weights = tuple((ws[i] + ws[deg - 1 - i]) / 2 for i in range(deg))
    return nodes, weights


def gauss_legendre(deg: int) -> tuple[np.ndarray, np.ndarray]:
    """``(nodes, weights)`` of the ``deg``-point Gauss-Legendre rule on ``[-1, 1]``, nodes
    ascending (as ``numpy.polynomial.legendre.leggauss``, to a few units in the last place)."""
    deg = int(deg)
    if deg < 1:
        raise ValueError(f"Gauss-Legendre needs at least one node, got {deg}")
    if deg == 1:
        return np.array([0.0]), np.array([2.0])
    x, w = _gauss_legendre(deg)
    return np.array(x), np.array(w)
