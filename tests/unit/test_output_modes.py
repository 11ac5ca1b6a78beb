"""Written files and folders follow the umask, as any ``open()`` / ``mkdir`` would: 0644 files and
0755 folders under umask 022 (not tempfile's private 0600 / 0700)."""

from __future__ import annotations

import os
import stat

import pytest

from metaeval.cli import main

QRELS = "T1 d1 L1\nT1 d2 L2\nT2 d1 L1\nT2 d3 L2\n"
RUNS = {"a": "T1 Q0 d2 1 3 a\nT1 Q0 d1 2 2 a\nT2 Q0 d3 1 3 a\n",
        "b": "T1 Q0 d1 1 3 b\nT2 Q0 d1 1 3 b\nT2 Q0 d3 2 1 b\n"}


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _modes(root):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, root)] = stat.S_IMODE(os.lstat(p).st_mode)
    return out


def test_cli_outputs_follow_the_umask(tmp_path, umask022, capsys):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "runs").mkdir()
    for name, text in RUNS.items():
        (tmp_path / "runs" / f"{name}.run").write_text(text)
    common = ["--qrels", str(tmp_path / "qrels.txt"), "--runs", str(tmp_path / "runs")]
    out = tmp_path / "out"
    out.mkdir()
    assert main(["matrices", *common, "--out", str(out / "m"), "--metrics", "AP", "RR", "--quiet"]) == 0
    assert main(["compare", *common, "--metrics", "AP", "--out", str(out / "cmp"), "--quiet"]) == 0
    assert main(["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--runs", str(tmp_path / "runs" / "a.run"),
                 "--out", str(out / "a.eval")]) == 0
    modes = _modes(out)
    assert {"m", "m/AP.csv", "cmp", "cmp/compare.csv", "cmp/compare.md", "a.eval"} <= set(modes)
    bad = {p: oct(m) for p, m in modes.items()
           if m != (0o755 if os.path.isdir(out / p) else 0o644)}
    assert not bad, bad


def test_atomic_helpers_follow_the_umask(tmp_path):
    from metaeval.util import atomic_write, replace_dir

    old = os.umask(0o027)
    try:
        with atomic_write(tmp_path / "f.txt") as fh:
            fh.write("x")
        with replace_dir(tmp_path / "d") as d:
            (d / "g.txt").write_text("y")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f.txt").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "d").stat().st_mode) == 0o750
