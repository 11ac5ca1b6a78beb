"""Shared helpers of the pipeline tests: run the Snakefile on a reduced config in a temporary
working directory (``snakemake --directory``), once per test session.

The suite runs in several pytest-xdist worker processes (pyproject's ``addopts``): the reduced run
is made once for all of them, in the session folder ``METAEVAL_TEST_SHARED`` that tests/conftest.py
creates (the first worker to ask runs it under a file lock, the others wait and reuse it).  Treat
it as read-only: a test that runs Snakemake in it again works on its own copy
(:func:`reduced_copy`), so no two Snakemake processes ever share a working directory."""

from __future__ import annotations

import atexit
import fcntl
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAKEFILE = ROOT / "Snakefile"

# two small simulated collections, few metrics, B = 200: the same DAG as the default config
REDUCED = """\
collections:
  simA:
    simulate: {preset: ntcir3-japanese, topics: 15, runs: 8, depth: 200, candidates: 600, pool_depth: 30}
    top_runs: 6
  simB:
    simulate: {preset: ntcir5-japanese, topics: 15, runs: 7, depth: 200, candidates: 600, pool_depth: 30}
    top_runs: null
metrics: [AP, RR, "nDCG@100"]
geometric: [AP]
bootstrap: {B: 200, alpha: 0.05, seed: 7}
stability: {fuzziness: [0.01, 0.05, 0.1]}
sweeps: {gains: {metrics: [P-plus], variants: ["1:1:1", "1:5:10"]}}
kishida: {enabled: true}
"""


def snakemake_result(workdir: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run Snakemake with this repository's Snakefile in ``workdir``; whatever its exit status."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(workdir),
           *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=workdir)


def snakemake(workdir: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run Snakemake with this repository's Snakefile in ``workdir``; raise with its output on failure."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(workdir),
           *args]
    r = snakemake_result(workdir, *args, timeout=timeout)
    if r.returncode != 0:
        raise AssertionError(f"snakemake failed ({r.returncode}): {' '.join(cmd)}\n"
                             f"--- stdout\n{r.stdout[-5000:]}\n--- stderr\n{r.stderr[-8000:]}")
    return r


def _tmpdir(prefix: str) -> Path:
    d = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, d, True)
    return d


def run_reduced(prefix: str = "metaeval-pipeline-", cores: int = 2, work: Path | None = None) -> Path:
    """Run the whole default target on :data:`REDUCED` (in ``work``, default a new temporary
    folder); returns the working directory."""
    work = _tmpdir(prefix) if work is None else work
    (work / "reduced.yaml").write_text(REDUCED)
    snakemake(work, "--configfile", "reduced.yaml", "--cores", str(cores), "--quiet", "rules")
    return work


@functools.cache
def reduced_run() -> Path:
    """The reduced run, shared by the pipeline and report tests of one session (of every xdist
    worker of it: see the module's docstring).  Read-only; :func:`reduced_copy` to run in it."""
    shared = os.environ.get("METAEVAL_TEST_SHARED")
    if not shared:                                     # outside the test session (conftest.py)
        return run_reduced()
    work = Path(shared) / "reduced"
    with open(Path(shared) / "reduced.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)               # released when the file is closed
        if not (Path(shared) / "reduced.done").exists():
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            run_reduced(work=work)
            (Path(shared) / "reduced.done").touch()
    return work


def reduced_copy(dest: Path) -> Path:
    """A copy of the reduced run's working directory (file times kept, so Snakemake sees its
    outputs up to date) at ``dest``, for a test that runs Snakemake in it again."""
    shutil.copytree(reduced_run(), dest, symlinks=True)
    return dest
