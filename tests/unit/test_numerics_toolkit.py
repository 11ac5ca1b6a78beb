"""The exactness toolkit every measure family shares (issue 27): detmath's C-library tables and
sums against literal loops over Python's ``math``, ``cnum.c_atof`` against C's ``atof``'s reading,
and :class:`metaeval.memo.Memo`."""

from __future__ import annotations

import math

import numpy as np

from metaeval import detmath
from metaeval.cnum import c_atof, c_atol
from metaeval.memo import Memo


def test_tables_equal_the_c_library_value_by_value():
    x = np.array([1.0, 2.0, 3.0, 1000.0, 65535.0, 65536.0, 0.5, 7.25, 1e300, 3.0])
    assert detmath.log2(x).tobytes() == np.array([math.log2(v) for v in x]).tobytes()
    assert detmath.log2_offsets(300).tolist() == [math.log2(i + 2) for i in range(300)]
    assert detmath.log2_offsets(3).tolist() == [math.log2(i + 2) for i in range(3)]      # a prefix of the grown table
    p, acc, want = 0.8, 1.0, [1.0]
    for _ in range(50):
        acc *= p
        want.append(acc)
    assert detmath.powers(p, 50).tolist() == want                     # a running product, not pow
    assert detmath.power(2.0, np.arange(5.0)).tolist() == [math.pow(2.0, k) for k in range(5)]


def test_sums_in_the_c_loops_order():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(6, 40)) * 10.0 ** rng.integers(-8, 8, size=(6, 40))
    run = np.zeros(6)
    want = []
    for j in range(40):
        run = run + x[:, j]
        want.append(run.copy())
    assert detmath.running_sum(x).tobytes() == np.stack(want, axis=1).tobytes()
    assert detmath.loop_total(x).tobytes() == want[-1].tobytes()
    z = np.full((2, 3), -0.0)
    assert [math.copysign(1.0, v) for v in detmath.loop_total(z)] == [1.0, 1.0]     # s = 0.0; s += -0.0
    assert detmath.loop_total(np.zeros((2, 0))).tolist() == [0.0, 0.0]


def test_atof_and_atol_read_as_c_does():
    cases = {b"1.5": 1.5, b" 12abc": 12.0, b"1_0": 1.0, b"-.5e1x": -5.0, b"abc": 0.0, b"1e400": math.inf,
             b"+3": 3.0, b"0.1": 0.1, b"nan": math.nan}
    for b, v in cases.items():
        got = c_atof(b)
        assert got == v or (math.isnan(v) and math.isnan(got)), b
    assert (c_atol(b"42x"), c_atol(b" -7"), c_atol(b"x")) == (42, -7, 0)


def test_memo_computes_once():
    calls = []

    class Ctx(Memo):
        pass

    c = Ctx()
    assert c.cached("k", lambda: calls.append(1) or 5) == 5
    assert c.cached("k", lambda: calls.append(1) or 6) == 5 and calls == [1]
