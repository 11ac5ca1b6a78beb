"""metaeval.detmath: CPU-independent arithmetic, checked against exact rational arithmetic, the C
library and numpy's own routines."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from metaeval import detmath


def _counts(rng, B, n, draws):
    C = np.zeros((B, n))
    np.add.at(C, (np.repeat(np.arange(B), draws), rng.integers(0, n, B * draws)), 1)
    return C


@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e6])
def test_int_product_is_the_exact_sum_rounded_once(scale):
    rng = np.random.default_rng(3)
    n = 43
    M = rng.normal(size=(12, n)) * scale * rng.uniform(0.01, 1.0, (12, 1))
    M[2] = 0.0
    M[3, :4] = 1e-25 * scale                                   # tiny entries beside large ones
    M[4] = np.round(M[4], 4)                                   # 4-decimal scores
    C = _counts(rng, 64, n, n)
    got = detmath.int_product(M, C.T, n)
    for k in range(M.shape[0]):
        for b in range(C.shape[0]):
            exact = sum(Fraction(float(M[k, i])) * int(C[b, i]) for i in range(n))
            assert got[k, b] == float(exact), (k, b)          # correctly rounded
    assert not np.signbit(got[2]).any()                         # no negative zero


def test_int_product_sign_matrices_and_bound():
    rng = np.random.default_rng(4)
    D = rng.normal(size=(15, 9))
    S = 1.0 - 2.0 * rng.integers(0, 2, (40, 15))
    got = detmath.int_product(D.T, S.T).T                       # bound computed: 15
    for r in range(S.shape[0]):
        for c in range(D.shape[1]):
            exact = sum(Fraction(float(D[i, c])) * int(S[r, i]) for i in range(15))
            assert got[r, c] == float(exact)


def test_int_product_non_finite_falls_back_to_an_ordered_sum():
    M = np.array([[1.0, np.inf, 2.0], [0.5, 0.25, -1.0]])
    K = np.array([[1.0, 1.0], [2.0, 1.0], [3.0, 1.0]])
    got = detmath.int_product(M, K)
    want = np.array([[np.inf, np.inf], [0.5 + 0.5 - 3.0, 0.5 + 0.25 - 1.0]])
    assert np.array_equal(got, want)


def test_split_is_exact_where_it_matters():
    rng = np.random.default_rng(5)
    M = rng.normal(size=(5, 30))
    hi, lo = detmath.split_rows(M, 30)
    assert np.array_equal(hi + lo, M)                           # nothing of a double is lost here
    q = np.ldexp(1.0, np.frexp(np.abs(M).max(axis=1))[1] - (53 - 5))
    assert np.array_equal(np.rint(hi / q[:, None]), hi / q[:, None])   # on the grid


def test_transcendental_functions_are_the_c_librarys():
    x = np.array([1e-5, 0.3, 1.0, 2.5, 1e300])
    assert detmath.log(x).tolist() == [math.log(v) for v in x]
    assert detmath.exp(-x[:4]).tolist() == [math.exp(-v) for v in x[:4]]
    assert detmath.power(0.9, np.arange(5.0)).tolist() == [math.pow(0.9, k) for k in range(5)]
    assert detmath.log(np.array([0.0, -1.0])).tolist()[0] == -math.inf
    assert math.isnan(detmath.log(np.array([-1.0]))[0])
    assert detmath.exp(np.array([1000.0]))[0] == math.inf
    assert detmath.log(2.0) == math.log(2.0) and isinstance(detmath.log(2.0), float)
    assert detmath.log(np.zeros((2, 3)) + 1.0).shape == (2, 3)


@pytest.mark.parametrize("deg", [1, 2, 3, 8, 10, 20, 40])
def test_gauss_legendre_matches_numpy(deg):
    x, w = detmath.gauss_legendre(deg)
    X, W = np.polynomial.legendre.leggauss(deg)
    assert np.allclose(x, X, rtol=0, atol=4e-16) and np.allclose(w, W, rtol=1e-12, atol=0)
    assert np.array_equal(x, -x[::-1]) and np.array_equal(w, w[::-1])
    # exact for polynomials of degree 2 deg - 1 (to rounding; numpy's rule is within 1e-14 too)
    for k in range(deg):
        assert abs(float((w * x ** (2 * k)).sum()) - 2.0 / (2 * k + 1)) < 2e-15


def test_power_c_loop_is_math_pow_bit_for_bit(monkeypatch):
    """``power``'s C loop (``metaeval._reader.pow_column``) and its Python fallback
    (``METAEVAL_NO_CEXT=1``: ``math.pow`` value by value) give the same bits: ordinary values, and
    the special ones (overflow, 0 ** negative, negative ** fraction, infinities, NaN, signed zeros)."""
    monkeypatch.delenv("METAEVAL_NO_CEXT", raising=False)
    if detmath._c_pow() is None:
        pytest.skip("the C extension is not built")
    rng = np.random.default_rng(46)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1e308, -1e308, 1e-320, math.inf,
               -math.inf, math.nan]
    sx, sy = np.meshgrid(special, special)
    x = np.r_[rng.uniform(0, 1, 4000), rng.uniform(-5, 5, 2000), sx.ravel()]
    y = np.r_[rng.uniform(0, 40, 4000), rng.integers(-400, 400, 2000).astype(float), sy.ravel()]
    c = detmath.power(x, y)
    monkeypatch.setenv("METAEVAL_NO_CEXT", "1")
    assert detmath._c_pow() is None
    py = detmath.power(x, y)
    assert c.view(np.uint64).tolist() == py.view(np.uint64).tolist()
    ref = []
    for a, b in zip(x.tolist(), y.tolist()):          # a literal loop of math.pow
        try:
            ref.append(math.pow(a, b))
        except OverflowError:
            ref.append(math.inf)
        except ValueError:
            ref.append(math.inf if a == 0.0 else math.nan)
    assert py.view(np.uint64).tolist() == np.array(ref).view(np.uint64).tolist()
    assert detmath.power(2.0, 10.0) == 1024.0
