"""Shared helpers of the pipeline tests: run the Snakefile on a reduced config in a temporary
working directory (``snakemake --directory``), once per test session."""

from __future__ import annotations

import atexit
import functools
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


def run_reduced(prefix: str = "metaeval-pipeline-", cores: int = 2) -> Path:
    """Run the whole default target on :data:`REDUCED`; returns the working directory."""
    work = _tmpdir(prefix)
    (work / "reduced.yaml").write_text(REDUCED)
    snakemake(work, "--configfile", "reduced.yaml", "--cores", str(cores), "--quiet", "rules")
    return work


@functools.cache
def reduced_run() -> Path:
    """The reduced run, shared by the pipeline and report tests of one session."""
    return run_reduced()
