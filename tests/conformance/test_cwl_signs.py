"""The sign ``metaeval cwl_eval -r`` prints for a residual that is mathematically 0 is the same on
every machine: on generated runs whose zero residuals print ``-0.0000`` on some lines and
``0.0000`` on others, the output is the same bytes in-process (C reader), without the C extensions,
and in a process whose numpy may not dispatch to AVX2/AVX-512 and whose OpenBLAS uses its Haswell
kernel; the lines with ``-0.0000`` are pinned, also for ``METAEVAL_CWL_DDOT=haswell`` (the order of
OpenBLAS's Haswell kernel, whose signs cwl-eval prints on AVX2 machines without AVX-512).  cwl-eval itself prints the sign its BLAS ``ddot``
order gives (docs/metrics.md, C/W/L): the comparison with it is made where that order is the one
metaeval emulates (an AVX-512 machine), with OpenBLAS on either kernel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from test_cwl import SAME_ORDER, ours, reference

import metaeval.cwl.dot as cwl_dot
from metaeval.cli import main

SRC = Path(__file__).resolve().parents[2] / "src"

#: numpy's dispatch restricted to its baseline (numpy 2 names; unknown names are ignored) and
#: OpenBLAS on its AVX2 kernel: what an older or non-AVX-512 machine runs
RESTRICTED = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
              "OPENBLAS_CORETYPE": "Haswell", "METAEVAL_NO_CEXT": "1"}

#: (topic, metric, residual column) printed as -0.0000: the sign of the rounding error of the
#: emulated ddot order (ResEC of an adaptive metric: the weights differ between the two cases
#: and sum to 1 in both)
NEGATIVE_ZEROS = [("T2", "INST-T=1.0", "ResEC"), ("T3", "INST-T=2.0", "ResEC")]
#: the same with ``METAEVAL_CWL_DDOT=haswell``: cwl-eval's signs on an AVX2 machine without AVX-512
NEGATIVE_ZEROS_HASWELL = [("T2", "INST-T=1.0", "ResEC"), ("T3", "AP", "ResEC"), ("T3", "INST-T=2.0", "ResEC")]


def _write_runs(d: Path) -> tuple[Path, Path]:
    """Four topics of 1000, 1000, 600 and 1000 ranked documents, mostly judged gain 0 (every one
    judged on the first three topics, 90% on the last): every residual of the fully judged
    1000-document topics is 0, and ResEC of the adaptive metrics is mathematically 0 on all four."""
    rng = np.random.default_rng(20261127)
    gains, run = [], []
    for t, n in enumerate((1000, 1000, 600, 1000)):
        judged = np.ones(n, bool) if t != 3 else rng.random(n) < 0.9
        g = np.where(rng.random(n) < 0.05, rng.integers(1, 4, n) / 3, 0.0)
        gains += [f"T{t} 0 d{i} {float(g[i])!r}\n" for i in range(n) if judged[i]]
        run += [f"T{t} Q0 d{i} {i + 1} {1000 - i} gen\n" for i in range(n)]
    (d / "gains").write_text("".join(gains))
    (d / "run").write_text("".join(run))
    return d / "gains", d / "run"


def _negative_zeros(text: str) -> list[tuple[str, str, str]]:
    cols = ["ResEU", "ResETU", "ResEC", "ResETC", "ResED"]
    return [(f[0], f[1], cols[j]) for f in (line.split("\t") for line in text.splitlines())
            for j, v in enumerate(f[7:12]) if v == "-0.0000"]


def test_zero_residual_signs_are_the_same_bytes_on_every_cpu(tmp_path, capsys, monkeypatch):
    gains, run = _write_runs(tmp_path)
    args = [gains, run, "-r"]
    got = ours(capsys, *args)
    assert len(got.splitlines()) == 4 * 16
    zeros = [f for f in (line.split("\t") for line in got.splitlines()) for v in f[7:12] if v == "0.0000"]
    assert len(zeros) > 100                                 # mostly +0, a few -0
    assert _negative_zeros(got) == NEGATIVE_ZEROS

    monkeypatch.setenv("METAEVAL_NO_CEXT", "1")             # numpy reader instead of the C loops
    assert ours(capsys, *args) == got

    env = {**os.environ, **RESTRICTED, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-m", "metaeval", "cwl_eval", *map(str, args)], check=False, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout == got

    monkeypatch.setenv("METAEVAL_CWL_DDOT", "haswell")     # the order of OpenBLAS's Haswell kernel
    haswell = ours(capsys, *args)
    assert _negative_zeros(haswell) == NEGATIVE_ZEROS_HASWELL
    assert haswell.replace("-0.0000", "0.0000") == got.replace("-0.0000", "0.0000")
    monkeypatch.delenv("METAEVAL_NO_CEXT")
    assert ours(capsys, *args) == haswell
    monkeypatch.setenv("METAEVAL_CWL_DDOT", "native")      # the kernel numpy's OpenBLAS uses here
    for core, want in (("Zen", haswell), ("SkylakeX", got)):
        monkeypatch.setattr(cwl_dot, "blas_core", lambda core=core: core)
        assert ours(capsys, *args) == want
    monkeypatch.delenv("METAEVAL_CWL_DDOT")

    if SAME_ORDER:                    # cwl-eval on the kernel each order emulates: every line
        assert reference(tmp_path, *args) == got
        monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")     # cwl-eval on OpenBLAS's AVX2 kernel
        assert reference(tmp_path, *args) == haswell


def test_bad_ddot_order_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    gains, run = _write_runs(tmp_path)
    monkeypatch.setattr(cwl_dot, "blas_core", lambda: "Sandybridge")
    for value, err in (("zen", "METAEVAL_CWL_DDOT='zen': the ddot order is one of skylakex, haswell or native"),
                       ("native", ("METAEVAL_CWL_DDOT=native: numpy's BLAS here (Sandybridge) uses a ddot order "
                                   "metaeval does not emulate (skylakex, haswell)"))):
        monkeypatch.setenv("METAEVAL_CWL_DDOT", value)
        assert main(["cwl_eval", str(gains), str(run)]) == 1
        out = capsys.readouterr()
        assert (out.out, out.err) == ("", f"metaeval: error: {err}\n")
