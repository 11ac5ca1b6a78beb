r"""The pipeline's outputs are byte-identical to those written before the code was reorganised
(one module per job, one job per collection x metric): tests/data/*_outputs.sha256 list the SHA-256
of every table (CSV, Markdown, LaTeX), matrix, runs_used.csv, summary table and Kishida table that
the code of version 0.1 wrote.  Figures are not listed: their bytes depend on the matplotlib version.

Two changes were made on purpose since, and the record was taken with both applied to the 0.1
outputs (:func:`normalised`), so that everything else is compared to the byte:

* captions cite papers by author and year and state the configured alpha, so the caption line of
  each Markdown (``**...**``) and LaTeX (``\caption{...}``) table is left out of the comparison;
* ``PDoc@l`` is an alias of ``Prec@l`` (one name per measure), so the 0.1 outputs' ``PDoc@1000``
  reads ``Prec@1000`` (file names and contents);
* the t* table's mean and s.d. are those of the finite t* (a zero-variance bootstrap sample gives
  t* = +-inf, which 0.1 averaged into an infinite mean): in the reduced config's ``simB`` the RR
  row changed from ``inf | -`` to finite values, and its ``tstar.md``/``tstar.tex`` were recorded
  from the new code.

Outputs that did not exist in 0.1 (tables added since) are not compared here.  Record a list again
(only when an output is meant to change, and say why in the commit):

    PYTHONPATH=src python tests/test_output_checksums.py RESULTS_DIR [--rename OLD=NEW] > tests/data/NAME_outputs.sha256

(``dl19_outputs.sha256``, the DL19 example config, is compared by tests/test_pipeline_dl19.py.)
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


def normalised(path: Path, renames: dict[str, str] | None = None) -> bytes:
    """The bytes compared: without the caption line of a Markdown or LaTeX table, with ``renames``
    (old measure name -> new) applied."""
    data = path.read_bytes()
    for old, new in (renames or {}).items():
        data = data.replace(old.encode(), new.encode())
    if path.suffix in (".md", ".tex"):
        lines = data.split(b"\n")
        keep = [ln for ln in lines if not (ln.startswith(b"\\caption{")
                                          or (ln.startswith(b"**") and ln.endswith(b"**")))]
        data = b"\n".join(keep)
    return data


def checksums(results: Path, renames: dict[str, str] | None = None) -> dict[str, str]:
    """``{path relative to results/: sha256}`` of every compared output (:func:`normalised`)."""
    out = {}
    for pat in PATTERNS:
        for p in results.glob(pat):
            rel = p.relative_to(results).as_posix()
            for old, new in (renames or {}).items():
                rel = rel.replace(old, new)
            out[rel] = hashlib.sha256(normalised(p, renames)).hexdigest()
    return dict(sorted(out.items()))


def recorded(name: str) -> dict[str, str]:
    out = {}
    for line in (DATA / f"{name}_outputs.sha256").read_text().splitlines():
        digest, path = line.split(maxsplit=1)
        out[path] = digest
    return out


def compare(results: Path, name: str) -> None:
    want, got = recorded(name), checksums(results)
    missing = sorted(set(want) - set(got))
    assert not missing, f"recorded outputs not written: {missing[:10]}"
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
    renames = dict(a.split("=", 1) for a in sys.argv[3::2]) if "--rename" in sys.argv else {}
    for path, digest in checksums(Path(sys.argv[1]), renames).items():
        print(f"{digest}  {path}")
