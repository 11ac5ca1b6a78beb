"""The optional C line printer (``metaeval.treceval._trecfmt``) against the '%' formatting it replaces.

``metaeval trec_eval`` prints its per-topic lines with the C extension when it is built; the
Python path (``_fmt`` / ``_long`` / '%' templates) is the specification.  Skipped when the
extension is not built, a failure instead when the environment variable CI is set.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import in_ci
from metaeval.treceval import render as te


@pytest.fixture(scope="module")
def cfmt():
    """The built extension; skipped when absent, a failure when CI is set."""
    if te._cfmt is None:
        reason = "metaeval.treceval._trecfmt is not built (no C compiler at install time?): pip install -e . builds it"
        if in_ci():
            pytest.fail(f"{reason} [required because CI is set]", pytrace=False)
        pytest.skip(reason)
    return te._cfmt


def _doubles(rng) -> np.ndarray:
    """Values a measure takes and the awkward ones: [0, 1), counts, wide magnitudes of both signs,
    decimal midpoints (never exact in binary) and exact binary ties at the 4th decimal (multiples
    of 1/32: 0.03125 -> 0.0312, 0.09375 -> 0.0938), zeros, subnormals, 10^15 and beyond (snprintf)."""
    k = rng.integers(0, 10 ** 7, 50_000)
    return np.concatenate([
        rng.random(200_000), rng.integers(0, 10 ** 6, 20_000).astype(float), rng.random(50_000) * 1000,
        (k + 0.5) / 1e4, rng.integers(0, 2 ** 15, 20_000) / 32.0, np.arange(-4000, 4000) / 20000,
        np.exp(rng.uniform(-745, 40, 50_000)), -np.exp(rng.uniform(-745, 40, 50_000)),
        [0.0, -0.0, 5e-5, -5e-5, 0.99995, 9.99995, 1e15 - 1, 1e15, 1e15 + 0.5, 2.0 ** 53, 2.0 ** 63,
         -2.0 ** 63, 5e-324, -5e-324, 1.7976931348623157e308, math.inf, -math.inf, math.nan, -math.nan]])


def test_fixed4_is_printf_6_4f(cfmt):
    """'%6.4f' exactly as glibc prints it (the drop-in's ``_fmt``: correctly rounded, ties to even,
    NaN spelled by its sign), on about half a million values."""
    xs = _doubles(np.random.default_rng(7)).tolist()
    bad = [(x, cfmt.fixed4(x), te._fmt(x)) for x in xs if cfmt.fixed4(x) != te._fmt(x)]
    assert not bad, bad[:5]
    assert [cfmt.fixed4(x) for x in (0.03125, 0.09375, -0.0, -math.nan, 1e20)] == \
        ["0.0312", "0.0938", "-0.0000", "  -nan", "100000000000000000000.0000"]


def _columns(rng, pool, T, finite: bool):
    """Random -q columns ``[(head, format, values)]``: %6.4f (drawn from ``pool``), %d (counts; with
    non-finite values and values beyond a C long unless ``finite``), relstrings."""
    cols = []
    for j in range(int(rng.integers(1, 12))):
        kind = rng.choice(["%6.4f", "%d", "'%s'"], p=[0.6, 0.3, 0.1])
        head = f"{'Z' if j % 5 == 4 else ''}m{j}_{'%' if j % 7 == 3 else ''}x".ljust(22) + "\t"
        if kind == "'%s'":
            vals = ["".join(rng.choice(list("0123-.<>"), int(rng.integers(0, 12)))) for _ in range(T)]
        elif kind == "%d":
            vals = rng.integers(-10 ** 6, 10 ** 12, T).astype(float)
            if not finite:
                vals[rng.random(T) < 0.2] = rng.choice([math.nan, math.inf, -math.inf, 2.0 ** 63, -2.0 ** 64, 1e300])
        else:
            vals = pool[rng.integers(0, len(pool), T)]
            if finite:
                vals[~(np.abs(vals) < 2.0 ** 63)] = 0.5
        cols.append((head, kind, vals))
    return cols


def test_format_lines_equals_the_python_printer(cfmt, monkeypatch):
    """``_per_topic`` prints the same text with the C printer as with '%' (its template path when
    every value is finite, its line-by-line path otherwise), topics shown or hidden, topic ids with
    '%' and non-ASCII bytes."""
    rng = np.random.default_rng(11)
    pool = _doubles(rng)
    for case in range(300):
        T = int(rng.integers(1, 40))
        topics = [f"{t}{'%s' if t % 9 == 4 else ''}{'é' if t % 11 == 5 else ''}" for t in range(T)]
        show = rng.random(T) < (1.0 if case % 3 else 0.7)
        cols = _columns(rng, pool, T, finite=case % 2 == 0)
        monkeypatch.delenv("METAEVAL_NO_CEXT", raising=False)
        c = te._per_topic(cols, topics, show)
        monkeypatch.setenv("METAEVAL_NO_CEXT", "1")
        py = te._per_topic(cols, topics, show)
        assert c == py, case
        assert c.count("\n") == len(cols) * int(show.sum())


def test_long_is_the_c_cast():
    """``%ld`` of ``(long)v``: truncated toward zero; NaN, infinities and values beyond a long print
    LONG_MIN, as trec_eval on x86-64 does."""
    assert [te._long(v) for v in (3.9, -3.9, 0.0, 2.0 ** 62)] == ["3", "-3", "0", str(2 ** 62)]
    assert {te._long(v) for v in (math.nan, math.inf, -math.inf, 2.0 ** 63, -2.0 ** 64)} == {"-9223372036854775808"}
