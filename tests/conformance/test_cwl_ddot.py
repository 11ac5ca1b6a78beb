"""Why ``metaeval.metrics.cwl`` emulates the order of OpenBLAS's SkylakeX ``ddot`` (docs/metrics.md,
C/W/L, "dot products"): on cwl-eval's own test files, a residual that is mathematically zero prints
``-0.0000`` or ``0.0000`` by the rounding errors of that order, and no rule on the value (equal at
the printed precision, a residual within its error bound of zero printed with one sign) gets every
line: the pairwise (``np.add.reduce``) and the sequential order each misprint the sign of some.
Run where cwl-eval's numpy uses that kernel (an AVX-512 machine), as on the project's CI."""

from __future__ import annotations

import numpy as np
import pytest

import metaeval.metrics.cwl_dot as C
from test_cwl import SAME_ORDER, ours, reference


@pytest.mark.shared_data
@pytest.mark.skipif(not SAME_ORDER, reason="numpy's OpenBLAS uses another ddot kernel here: cwl-eval's "
                    "signs of zero follow that one")
@pytest.mark.parametrize("order", ["pairwise", "sequential"])
def test_only_the_emulated_order_prints_cwl_evals_signs_of_zero(shared_data, tmp_path, capsys, monkeypatch, order):
    d = shared_data / "cwl-tests"
    args = [d / "gain_file", d / "result_file", "-r"]
    want = reference(tmp_path, *args)
    assert ours(capsys, *args) == want                               # the emulation: every line
    plain = {"pairwise": lambda p: np.add.reduce(p, axis=1), "sequential": lambda p: np.cumsum(p, axis=1)[:, -1]}[order]
    monkeypatch.setattr(C, "_dot", lambda x, y, *_: 0.0 + plain(x * y))
    monkeypatch.setattr(C, "_dot_rounded", lambda x, y, *_: 0.0 + plain(x * y))
    got = ours(capsys, *args)
    bad = [(a, b) for a, b in zip(got.splitlines(), want.splitlines()) if a != b]
    assert bad, "a plain order prints cwl-eval's lines too: the emulation is no longer needed"
    assert all(a.replace("-0.0000", "0.0000") == b.replace("-0.0000", "0.0000") for a, b in bad)
    assert all("-0.0000" in a + b for a, b in bad)                   # only the sign of a zero differs
