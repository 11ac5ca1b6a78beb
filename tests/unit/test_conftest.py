"""The test of the tests: tests/conftest.py skips a test that needs the real data or a browser
when they are absent, with a one-line reason in the summary, and fails it when CI is set."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]

PROBE = '''
import pytest

@pytest.mark.shared_data
def test_marker():
    pass

def test_fixture(shared_data):
    assert (shared_data / "trec-dl19-passage").is_dir()

@pytest.mark.browser
def test_browser():
    pass

def test_offline():
    pass
'''


def _pytest(tmp_path: Path, data: Path, ci: str | None) -> subprocess.CompletedProcess:
    work = tmp_path / "suite"
    work.mkdir(exist_ok=True)
    shutil.copy(HERE / "conftest.py", work / "conftest.py")
    (work / "test_probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "METAEVAL_SHARED_DATA")}
    env["METAEVAL_SHARED_DATA"] = str(data)
    env["PATH"] = str(tmp_path / "no-browser")              # no chromium on this PATH
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-ra", "-p", "no:cacheprovider",
                           "-o", "addopts=", str(work)], capture_output=True, text=True, env=env,
                          cwd=work, timeout=120)


def test_absent_resources_are_skipped_with_a_reason(tmp_path):
    r = _pytest(tmp_path, tmp_path / "nowhere", None)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 3 skipped" in r.stdout
    assert f"real data not found at {tmp_path / 'nowhere'}" in r.stdout and "METAEVAL_SHARED_DATA" in r.stdout
    assert "headless Chromium not on PATH (Debian: apt-get install chromium)" in r.stdout


@pytest.mark.parametrize("ci", ["true", "1"])
def test_absent_resources_fail_under_ci(tmp_path, ci):
    r = _pytest(tmp_path, tmp_path / "nowhere", ci)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "3 errors" in r.stdout or "3 error" in r.stdout, r.stdout
    assert "required because CI is set" in r.stdout


def test_env_var_points_at_another_data_folder(tmp_path):
    data = tmp_path / "mydata"
    for name in ("ntcir-www4", "trec-dl19-passage"):
        (data / name).mkdir(parents=True)
    r = _pytest(tmp_path, data, "false")                  # CI=false counts as unset
    assert "3 passed, 1 skipped" in r.stdout, r.stdout + r.stderr
