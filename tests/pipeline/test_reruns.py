"""Reruns do only what changed: after a run, a config change re-runs the jobs that read what
changed, and no other (the default profile's rerun triggers: mtime, params, input, code): a metric
added to `metrics:` leaves the test-errors job of its own metrics alone, the standardisation block
its job alone, `pair_top_runs:` the writers job alone and `labels:` (an input) the writers, judgments
and ppi jobs, the jobs that lay out tables and draw figures.

The run is a Snakemake ``--touch`` of the DAG's outputs (made empty first): it records every
job's parameters, inputs and code as a real run does, in a few seconds; each change is then a dry
run against that record."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _pipeline_run import snakemake

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PROFILE = str(ROOT / "workflow" / "profiles" / "default")

# one tiny collection with the opt-in stages that have jobs of their own
CONFIG = """\
collections:
  tiny:
    qrels: qrels.txt
    runs: runs
    judgments: {reference: nist, qrels: {other: [other-qrels.txt]}}
    ppi: {judge: [other-qrels.txt], labelled: 2, sizes: [2], trials: 4}
metrics: [AP, RR]
geometric: []
bootstrap: {B: 50}
stability: {fuzziness: [0.05]}
sweeps: {gains: {enabled: false}}
kishida: {enabled: false}
test_errors: {enabled: true, metrics: [AP], pairs: 2, topics: [5], trials: 10, deltas: [0.05], alphas: [0.05]}
standardisation: {enabled: true, topics: 3, trials: 5}
"""


def _snakemake(work: Path, *args: str) -> str:
    """Snakemake's console output (stdout and stderr) of a run that must succeed."""
    r = snakemake(work, *args, timeout=300)
    return r.stdout + r.stderr


def _would_run(work: Path, config: str) -> set[str]:
    """The jobs a run with ``config`` would run (a dry run with the default profile)."""
    (work / "changed.yaml").write_text(config)
    out = _snakemake(work, "--profile", PROFILE, "--configfile", "changed.yaml", "-n")
    if "Nothing to be done" in out:
        return set()
    table = out[out.index("Job stats:"):out.index("total")]
    return set(re.findall(r"^(\w+)\s+\d+$", table, flags=re.MULTILINE)) - {"all"}


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("reruns")
    (work / "config.yaml").write_text(CONFIG)
    # the collection's files and another assessor's qrels (never read: the run is touched)
    for f in ("qrels.txt", "other-qrels.txt", "runs/a.run", "runs/b.run"):
        (work / f).parent.mkdir(parents=True, exist_ok=True)
        (work / f).write_text("1 0 d1 1\n")
    summary = _snakemake(work, "--configfile", "config.yaml", "-n", "--summary")
    for line in summary.splitlines()[1:]:
        if "\t" not in line:
            continue
        p = work / line.split("\t")[0]
        if p.suffix:                                   # a file (every directory output has no suffix)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.touch()
        else:
            p.mkdir(parents=True, exist_ok=True)
    _snakemake(work, "--profile", PROFILE, "--configfile", "config.yaml", "--touch", "--forceall", "--cores", "1")
    return work


def test_a_metric_added_to_metrics_leaves_the_test_errors_job_alone(ran):
    # test_errors: {metrics: [AP]} is unchanged: its job neither re-runs nor is re-run by the
    # metrics job rewriting every matrix
    jobs = _would_run(ran, CONFIG.replace("metrics: [AP, RR]", "metrics: [AP, RR, Q-measure]"))
    assert {"metrics", "meta", "summary"} <= jobs
    assert not {"test_errors", "own_job_test_errors"} & jobs        # its job: the generic rule's


def test_a_changed_standardisation_block_reruns_that_job_alone(ran):
    # the summary reads none of the standardisation tables: it is not re-run
    assert _would_run(ran, CONFIG.replace("trials: 5}", "trials: 6}")) == {"own_job_standardisation"}


def test_changed_labels_rerun_the_writers_alone(ran):
    # labels touch the Markdown, LaTeX and figures only: the meta job's numbers stay; the judgments,
    # ppi and summary jobs (one label step for every table and figure, issue 47) write theirs themselves
    assert _would_run(ran, CONFIG + "labels: {a: first run, AP: MAP}\npair_top_runs: 3\n") == {
        "writers", "own_job_judgments", "own_job_ppi", "summary"}
