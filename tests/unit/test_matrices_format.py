"""`metaeval matrices`: float text exactly as repr; no heavy imports on its path."""

from __future__ import annotations

import numpy as np

from metaeval.cli import matrices


def _values():
    rng = np.random.default_rng(0)
    x = np.concatenate([
        rng.random(4000), -rng.random(1000), rng.random(1000) * 1e-4,
        10 ** rng.uniform(-325, 308, 4000),                      # every exponent, subnormals included
        rng.integers(0, 1000, 1000) / rng.integers(1, 1000, 1000),  # ties, simple fractions
        [0.0, -0.0, 1.0, 1e-4, np.nextafter(1e-4, 0), 1e15, np.nextafter(1e15, 0), 1e16,
         np.nan, np.inf, -np.inf, 5e-324, 0.1, 1 / 3],
    ])
    return np.resize(x, (len(x) // 50 + 1, 50))


def test_float_rows_equal_repr():
    x = _values()
    assert matrices._float_rows(x) == [",".join(map(repr, r)) for r in x.tolist()]


def test_float_rows_empty_shapes():
    assert matrices._float_rows(np.zeros((0, 3))) == []
    assert matrices._float_rows(np.zeros((2, 0))) == ["", ""]
    assert matrices._float_rows(np.array([[0.5]])) == ["0.5"]


def test_matrices_path_imports_no_pandas_scipy():
    """``metaeval matrices`` must start fast: its imports pull neither pandas nor scipy (~0.3 s)."""
    import subprocess
    import sys

    code = ("import sys, metaeval.cli, metaeval.cli.matrices, metaeval.io, metaeval.metrics\n"
            "metaeval.cli.build_parser()\n"
            "print(sorted(m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
