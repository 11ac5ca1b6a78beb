"""Shared test configuration: ONE mechanism for tests that need something outside the repository.

Two resources are optional on a developer's machine and required in CI:

* the real data -- a folder laid out like ``../shared/data`` (``ntcir-www4/``,
  ``trec-dl19-passage/``, each with ``qrels.txt``, ``runs/``, ``reference/``).  Default: the
  ``shared/data`` folder beside the project; the environment variable ``METAEVAL_SHARED_DATA``
  points the tests at another folder.  (The papers' text, used by one test, is looked up in
  ``../data/../papers``, i.e. ``shared/papers``; ``METAEVAL_SHARED_PAPERS`` overrides it.)
* a headless browser -- ``chromium`` (Debian package ``chromium``), ``chromium-browser`` or
  ``google-chrome`` on ``PATH``.

How a test asks for them (use exactly these names):

    @pytest.mark.shared_data           # the test reads DL19 / WWW4 / DATA below
    def test_x(): ...

    def test_y(shared_data):           # fixture: the data folder (a pathlib.Path)
        qrels = shared_data / "trec-dl19-passage" / "qrels.txt"

    @pytest.mark.shared_papers  /  fixture ``shared_papers``  -> the papers' folder
    @pytest.mark.browser        /  fixture ``chromium``       -> the browser's executable

When the resource is absent the test is SKIPPED with a one-line reason (``pytest -ra`` lists it in
the summary); when the environment variable ``CI`` is set (to anything but "", "0", "false") it
FAILS instead, so CI keeps checking conformance and the report.  ``require(kind)`` does the same
from inside a test or helper.  Module constants ``DATA``, ``DL19``, ``WWW4``, ``PAPERS`` are plain
paths (they exist or not); mark every test that uses them.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: tests/ itself: its helper modules (_pipeline_run, _synth_tables, metric_helpers, this conftest) are
#: imported by the test files of tests/unit, tests/conformance and tests/pipeline, whatever --import-mode
TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
DEFAULT_DATA = ROOT.parent / "shared" / "data"          # where CI puts the data, beside the project
DATA = Path(os.environ.get("METAEVAL_SHARED_DATA") or DEFAULT_DATA).expanduser().resolve()
SHARED = DATA.parent                                     # kept for older imports
WWW4 = DATA / "ntcir-www4"
DL19 = DATA / "trec-dl19-passage"
PAPERS = Path(os.environ.get("METAEVAL_SHARED_PAPERS") or SHARED / "papers").expanduser().resolve()
BROWSERS = ("chromium", "chromium-browser", "google-chrome")

#: marker name -> one-line description (also registered with pytest below)
MARKERS = {
    "shared_data": "needs the real data (../shared/data or $METAEVAL_SHARED_DATA); skipped when absent "
                   "unless CI is set",
    "shared_papers": "needs the papers' text (../shared/papers or $METAEVAL_SHARED_PAPERS); skipped when "
                     "absent unless CI is set",
    "browser": "needs headless Chromium on PATH (Debian: apt-get install chromium); skipped when absent "
               "unless CI is set",
}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _probe(kind: str):
    """(value, reason): value is the path (None when absent); reason says what is missing."""
    if kind == "shared_data":
        ok = WWW4.is_dir() and DL19.is_dir()
        return (DATA if ok else None, data_reason(DATA))
    if kind == "shared_papers":
        ok = PAPERS.is_dir() and any(PAPERS.glob("004_*.txt"))
        return (PAPERS if ok else None,
                f"papers' text not found at {PAPERS} (set METAEVAL_SHARED_PAPERS)")
    if kind == "browser":
        return (_find_browser(),
                "headless Chromium not on PATH (Debian: apt-get install chromium)")
    raise ValueError(f"unknown resource {kind!r}; one of {sorted(MARKERS)}")


def data_reason(path) -> str:
    """The one wording of every skip for missing shared data (``require``, ``require_data``)."""
    return f"real data not found at {path} (set METAEVAL_SHARED_DATA to a folder laid out like shared/data)"


def require_data(path) -> Path:
    """A file or folder of the shared data, or skip (fail when CI is set) with :func:`data_reason`."""
    path = Path(path)
    if not path.exists():
        if in_ci():
            pytest.fail(f"{data_reason(path)} [required because CI is set]", pytrace=False)
        pytest.skip(data_reason(path))
    return path


def require(kind: str):
    """The resource's path, or skip (fail when CI is set) with a one-line reason."""
    value, reason = _probe(kind)
    if value is None:
        if in_ci():
            pytest.fail(f"{reason} [required because CI is set]", pytrace=False)
        pytest.skip(reason)
    return value


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    # one folder for what the session's processes share (tests/_pipeline_run.py): made by the
    # main process before pytest-xdist starts its workers, which inherit the variable
    if not hasattr(config, "workerinput") and "METAEVAL_TEST_SHARED" not in os.environ:
        config._metaeval_shared = tempfile.mkdtemp(prefix="metaeval-tests-")
        os.environ["METAEVAL_TEST_SHARED"] = config._metaeval_shared


def pytest_unconfigure(config):
    shared = getattr(config, "_metaeval_shared", None)
    if shared:
        shutil.rmtree(shared, ignore_errors=True)
        os.environ.pop("METAEVAL_TEST_SHARED", None)


def pytest_runtest_setup(item):
    for kind in MARKERS:
        if item.get_closest_marker(kind) is not None:
            require(kind)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real data folder (``DATA``); skips / fails as described above."""
    return require("shared_data")


@pytest.fixture(scope="session")
def shared_papers() -> Path:
    return require("shared_papers")


@pytest.fixture(scope="session")
def chromium() -> str:
    """The headless browser's executable."""
    return require("browser")


@pytest.fixture(scope="session")
def shared() -> Path:
    """Older name: like ``shared_data`` but returns the folder above the data (``SHARED``)."""
    require("shared_data")
    return SHARED


_DL19_COLLECTION = []


def dl19_collection():
    """The DL19 collection (every run, file order, depth 1000), parsed once per session and shared
    by the tests that read it (do not modify it); requires the shared data (skip, or fail under CI)."""
    require("shared_data")
    if not _DL19_COLLECTION:
        from metaeval.io import load_collection

        _DL19_COLLECTION.append(load_collection(DL19 / "qrels.txt", sorted((DL19 / "runs").glob("*.run.gz")),
                                                order="file"))
    return _DL19_COLLECTION[0]


def dl19_matrices(metrics) -> dict:
    """``{metric: topic x run DataFrame}`` of every DL19 run (gains 1:2:3), for the statistics
    tests; requires the shared data (skip, or fail under CI)."""
    import pandas as pd

    from metaeval.metrics import evaluate

    c = dl19_collection()
    res = evaluate(c, list(metrics), gains=(1, 2, 3))
    return {m: pd.DataFrame(v.T, index=list(c.topics), columns=list(c.runs)) for m, v in res.items()}


# --------------------------------------------------------------------------- longest tests first
#: The suite's longest tests and modules (their CPU seconds in the comments), started first and in this order, so that the two xdist workers do not end
#: with one of them running a long DAG alone.  :func:`pytest_xdist_make_scheduler` makes xdist
#: hand out these tests one by one in this order, then the other modules one at a time (by
#: default it gives each worker a quarter of the collection at once, in consecutive blocks).  A
#: node id prefix each: a whole module (one unit: its module-scoped fixtures made once) or one
#: test (a unit of its own, e.g. a DAG run; the rest of its module is another unit); the other
#: tests keep pytest's order after these.  Refresh when a test becomes long or short.
LONG_FIRST = (
    # CPU seconds of the test or module in a full CI=true run on the loaded 2-core VM (-p cpuplug:
    # getrusage of the worker and its children around each test)
    "tests/pipeline/test_output_checksums.py::test_reduced_dag_outputs_are_the_recorded_ones",     # 32: the shared reduced run
    "tests/unit/test_figures_readable.py",                                                          # 45 (the 80-run report size too)
    "tests/pipeline/test_pipeline_dl19.py::test_dl19_example_runs_end_to_end",                      # 44
    "tests/pipeline/test_pipeline.py::test_cluster_generic_executor_runs_self_contained_jobs",      # 2 (40 wall: detached jobs)
    "tests/conformance/test_ndeval_dropin.py",                                                      # 37
    "tests/unit/test_figures.py",                                                                   # 27
    "tests/unit/test_incompleteness.py",                                                            # 23
    "tests/unit/test_margins.py",                                                                   # 21
    "tests/pipeline/test_machine_independence.py",                                                  # 19
    "tests/unit/test_hostile_input.py",                                                             # 20 (437 cases)
    "tests/unit/test_test_errors.py",                                                               # 18
    "tests/conformance/test_cwl.py",                                                                # 18
    "tests/pipeline/test_pipeline.py::test_a_rerun_gives_byte_identical_tables",                    # 17 (after the reduced run)
    "tests/unit/test_api.py",                                                                       # 17
    "tests/unit/test_interrupt.py",                                                                 # 15
    "tests/unit/test_campaign_scale.py",                                                            # 14
    "tests/unit/test_package_own_jobs.py",                                                          # 13
    "tests/conformance/test_standardisation.py",                                                    # 15
    "tests/pipeline/test_pipeline_diversity.py::test_diversity_example_runs_end_to_end",            # 14
    "tests/pipeline/test_results_folder.py::test_readme_sequence_one_config_per_results_folder",    # 13
    "tests/unit/test_discpower.py",                                                                 # 12
    "tests/unit/test_compare.py",                                                                   # 11
    "tests/unit/test_rankcorr_meta.py",                                                             # 10
    "tests/unit/test_discpower_outputs.py",                                                         # 10
    "tests/unit/test_test_errors_stage.py",                                                         # 10
    "tests/unit/test_properties.py",                                                                # 10
    "tests/pipeline/test_console_and_report.py::test_dag_run_ends_with_a_console_summary_naming_the_run",  # 8
    "tests/unit/test_labels.py",                                                                    # 8
    "tests/unit/test_meta_cli.py",                                                                  # 8
)


def _long_first_rank(nodeid: str) -> tuple[int, str]:
    """(place in :data:`LONG_FIRST` or after it, the test's xdist work unit): a test listed alone
    is a unit of its own, every other test is in its module's unit."""
    nodeid = nodeid.replace("\\", "/")
    for i, prefix in enumerate(LONG_FIRST):
        if nodeid.startswith(prefix):
            return i, (nodeid if "::" in prefix else nodeid.split("::", 1)[0])
    return len(LONG_FIRST), nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(session, config, items):
    """Move the :data:`LONG_FIRST` tests to the front, in its order (the same order in every
    xdist worker: the order depends on the node ids only); the others keep their order."""
    items[:] = sorted(items, key=lambda item: _long_first_rank(item.nodeid)[0])


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's ``loadscope`` scheduling with the work units of :func:`_long_first_rank`:
    each worker takes the next unit (a long test, or a whole module, its module-scoped fixtures
    then made once) in the order above when it has two tests or fewer left (pyproject's
    ``--no-loadscope-reorder`` keeps that order).  (Written here because ``--dist loadgroup``
    of pytest-xdist 3.8 does not group under pytest 9.)"""
    from xdist.scheduler import LoadScopeScheduling

    class LongFirstScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _long_first_rank(nodeid)[1]

    return LongFirstScheduling(config, log)
