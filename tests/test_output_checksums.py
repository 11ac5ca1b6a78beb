"""The pipeline's outputs are byte-identical to those recorded before the DAG was reorganised
(issue 8, acceptance 3): tests/data/*_outputs.sha256 list the SHA-256 of every table (CSV,
Markdown, LaTeX), matrix, runs_used.csv, summary table and Kishida table, written by the code as it
was before (one job per collection x metric).  Figures are not listed: their bytes depend on the
matplotlib version.

Record a list again (only when an output is meant to change, and say why in the commit):

    PYTHONPATH=src python tests/test_output_checksums.py RESULTS_DIR > tests/data/NAME_outputs.sha256
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from _pipeline_run import ROOT, reduced_run, snakemake

DATA = Path(__file__).resolve().parent / "data"
PATTERNS = ["*/tables/*.csv", "*/tables/*.md", "*/tables/*.tex", "*/matrices/*.csv", "*/runs_used.csv",
            "summary/*.csv", "summary/*.md", "summary/*.tex", "kishida/*.csv", "kishida/*.md"]


def checksums(results: Path) -> dict[str, str]:
    """``{path relative to results/: sha256}`` of every compared output."""
    out = {}
    for pat in PATTERNS:
        for p in results.glob(pat):
            out[p.relative_to(results).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return dict(sorted(out.items()))


def recorded(name: str) -> dict[str, str]:
    out = {}
    for line in (DATA / f"{name}_outputs.sha256").read_text().splitlines():
        digest, path = line.split(maxsplit=1)
        out[path] = digest
    return out


def compare(results: Path, name: str) -> None:
    want, got = recorded(name), checksums(results)
    assert sorted(got) == sorted(want), (sorted(set(want) - set(got))[:10], sorted(set(got) - set(want))[:10])
    differ = [p for p in want if got[p] != want[p]]
    assert not differ, f"{len(differ)} of {len(want)} outputs differ from the record: {differ[:10]}"


@pytest.mark.slow
def test_reduced_dag_outputs_are_the_recorded_ones():
    compare(reduced_run() / "results", "reduced")


@pytest.mark.slow
@pytest.mark.skipif(not (os.environ.get("CI") or os.environ.get("METAEVAL_FULL_DAG")),
                    reason="runs the whole default config (a few minutes on 2 cores): set METAEVAL_FULL_DAG=1")
def test_default_config_outputs_are_the_recorded_ones(tmp_path):
    snakemake(tmp_path, "--configfile", str(ROOT / "config.yaml"), "--cores", "2", "--quiet", "rules",
              timeout=3600)
    compare(tmp_path / "results", "default")


if __name__ == "__main__":
    for path, digest in checksums(Path(sys.argv[1])).items():
        print(f"{digest}  {path}")
