"""Every number metaeval writes is the same whatever the CPU's BLAS kernel, the BLAS thread count and
numpy's SIMD dispatch.

The same commands (tests/_machine_run.py: ``metaeval simulate``, ``matrices``, ``meta`` with every
stage, ``paper-tables kishida`` and ``compare`` with four tests) run in subprocesses that differ only
in the environment read when numpy loads:

* ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` 1 instead of 2;
* ``OPENBLAS_CORETYPE``: the Haswell kernel (AVX2 + FMA) and the Sandybridge kernel (AVX, no FMA)
  instead of the one OpenBLAS picks for the CPU (SkylakeX on an AVX-512 machine) -- the kernels
  block and fuse the sums of a matrix product differently;
* ``NPY_DISABLE_CPU_FEATURES`` naming numpy's AVX-512 targets: numpy's ``log``, ``exp`` and
  ``power`` then run its AVX2 / C library code instead of its AVX-512 code.

Every file written (tables, matrices, Discpower files, comparison tables, the simulated collection,
Kishida's tables) must be byte-identical to the default environment's.  A switch the machine cannot
make (no AVX-512 CPU, a CPU or OpenBLAS build without that kernel, a non-x86 machine) is skipped with
the reason; each subprocess reports the kernel and numpy features actually in use, so a switch that
silently did nothing is caught as a skip, not passed as a success.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
DRIVER = HERE / "_machine_run.py"
SWITCHES = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
            "NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES", "OPENBLAS_VERBOSE")


def _run(out: Path, **env_over: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    env.update({"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"})
    env.update(env_over)
    r = subprocess.run([sys.executable, str(DRIVER), str(out)], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, f"{env_over}: the driver failed\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return json.loads((out / "runtime.json").read_text())


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "runtime.json" and p.suffix not in (".png", ".pdf", ".svg")}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    out = tmp_path_factory.mktemp("machine") / "base"
    rt, files = _run(out), _files(out)
    assert len(files) > 60, sorted(files)
    assert any(f.startswith("meta/tables/") for f in files) and any(f.startswith("kishida/") for f in files)
    return rt, files


def _assert_same(base_files: dict, out: Path, what: str) -> None:
    files = _files(out)
    assert sorted(files) == sorted(base_files), f"{what}: other files written"
    differ = [f for f in base_files if files[f] != base_files[f]]
    assert not differ, f"{what}: {len(differ)} of {len(base_files)} files differ from the default run: {differ[:12]}"


def _kernels(rt: dict) -> list[str]:
    return sorted({b["architecture"] for b in rt["blas"] if b.get("architecture")})


def test_blas_thread_count_changes_no_byte(base, tmp_path):
    rt, files = base
    if not rt["blas"]:
        pytest.skip("no BLAS library reported by threadpoolctl: the thread count cannot be switched")
    got = _run(tmp_path / "t1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    assert {b["num_threads"] for b in got["blas"]} == {1}
    _assert_same(files, tmp_path / "t1", "1 BLAS thread")


@pytest.mark.parametrize("kernel,needs", [("Haswell", {"AVX2", "FMA3"}), ("Sandybridge", {"AVX"})])
def test_openblas_kernel_changes_no_byte(base, tmp_path, kernel, needs):
    rt, files = base
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"OpenBLAS kernel {kernel} exists on x86-64 only (this is {platform.machine()})")
    if not any("openblas" in (b.get("prefix") or "") for b in rt["blas"]):
        pytest.skip("numpy is not linked to OpenBLAS: OPENBLAS_CORETYPE does not apply")
    if not needs <= set(rt["numpy_features"]):
        pytest.skip(f"this CPU lacks {sorted(needs - set(rt['numpy_features']))} for the {kernel} kernel")
    if _kernels(rt) == [kernel]:
        pytest.skip(f"OpenBLAS already uses the {kernel} kernel on this CPU (the other kernel test switches)")
    got = _run(tmp_path / kernel, OPENBLAS_CORETYPE=kernel)
    if _kernels(got) != [kernel]:
        pytest.skip(f"OPENBLAS_CORETYPE={kernel} was not taken (kernels in use: {_kernels(got)})")
    _assert_same(files, tmp_path / kernel, f"OpenBLAS kernel {kernel} instead of {_kernels(rt)}")


def test_numpy_without_avx512_changes_no_byte(base, tmp_path):
    rt, files = base
    found = set(rt["numpy_features"])
    off = [f for f in rt["numpy_dispatch"] if ("AVX512" in f or f == "X86_V4") and f in found]
    if not off:
        pytest.skip("this CPU has no AVX-512 targets of numpy's dispatch: numpy runs the same code "
                    "with or without NPY_DISABLE_CPU_FEATURES")
    got = _run(tmp_path / "noavx512", NPY_DISABLE_CPU_FEATURES=" ".join(off))
    still = sorted(set(off) & set(got["numpy_features"]))
    assert not still, f"NPY_DISABLE_CPU_FEATURES did not disable {still}"
    _assert_same(files, tmp_path / "noavx512", f"numpy without {off}")
