"""`metaeval meta` and `metaeval matrices` killed with
SIGKILL at random moments while writing into an existing output folder leave either the complete
old or the complete new output, never a mix, and the next run leaves no temporary folder behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def strays(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def command(args) -> list[str]:
    return [sys.executable, "-m", "metaeval", *map(str, args)]


def run(args) -> float:
    t = time.perf_counter()
    subprocess.run(command(args), check=True, env=ENV, capture_output=True)
    return time.perf_counter() - t


def kill_at(args, delay: float) -> None:
    p = subprocess.Popen(command(args), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    p.wait()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    rng = np.random.default_rng(5)
    for name in ("qa", "qb"):
        (d / f"{name}.txt").write_text("".join(f"T{t} d{k} L{int(rng.integers(0, 3))}\n"
                                               for t in range(12) for k in range(40)))
    (d / "runs").mkdir()
    for r in range(6):
        (d / "runs" / f"R{r}.run").write_text("".join(
            f"T{t} Q0 d{k} {i} {100 - i} x\n" for t in range(12) for i, k in enumerate(rng.permutation(40))))
    return d


def _check(tmp_path, old_args, new_args, out: Path, seeds):
    """old/new: argument lists writing into ``out``."""
    ref_old, ref_new = tmp_path / "ref_old", tmp_path / "ref_new"
    run([a if a != out else ref_old for a in old_args])
    wall = run([a if a != out else ref_new for a in new_args])
    old, new = snapshot(ref_old), snapshot(ref_new)
    assert old != new and old.keys() == new.keys()
    outcomes = set()
    for seed in seeds:
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(ref_old, out)
        delay = float(np.random.default_rng(seed).uniform(0.05, 1.1 * wall))
        kill_at(new_args, delay)
        got = snapshot(out)
        assert got in (old, new), f"seed {seed}: a mix of old and new after a kill at {delay:.2f}s"
        outcomes.add("old" if got == old else "new")
    run(new_args)                                          # the next run cleans up
    assert snapshot(out) == new
    assert strays(out) == []
    return outcomes


def test_matrices_killed_leaves_old_or_new(tmp_path, inputs):
    out = tmp_path / "m"
    common = ["--runs", inputs / "runs", "--out", out, "--metrics", "AP", "RR", "nDCG@10", "Q-measure",
              "--quiet"]
    _check(tmp_path, ["matrices", "--qrels", inputs / "qa.txt", *common],
           ["matrices", "--qrels", inputs / "qb.txt", *common], out, seeds=range(4))


def test_meta_killed_leaves_old_or_new(tmp_path, inputs):
    mats = tmp_path / "mats"
    run(["matrices", "--qrels", inputs / "qa.txt", "--runs", inputs / "runs", "--out", mats,
         "--metrics", "AP", "RR", "--quiet"])
    out = tmp_path / "o"
    common = ["meta", "--matrices", mats, "--out", out, "--B", "50", "--rthsd-B", "100", "--no-figures",
              "--quiet"]
    _check(tmp_path, [*common, "--seed", "1"], [*common, "--seed", "2"], out, seeds=range(3))
    # the forked shard workers of a killed meta end with it (PR_SET_PDEATHSIG), none left running
    import time

    def left():
        found = []
        for d in os.listdir("/proc") if os.path.isdir("/proc") else []:
            try:
                with open(f"/proc/{d}/cmdline", "rb") as fh:
                    if str(mats).encode() in fh.read():
                        found.append(d)
            except OSError:
                pass
        return found
    deadline = time.time() + 10
    while left() and time.time() < deadline:
        time.sleep(0.2)
    assert left() == []


def test_stale_temporary_folder_of_a_killed_run_is_removed(tmp_path):
    from metaeval.util import replace_dir

    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()                                             # a pid that is gone
    stale = tmp_path / f".out.new-{p.pid}-abc"
    (stale / "tables").mkdir(parents=True)
    with replace_dir(out) as d:
        (d / "x.csv").write_text("1\n")
    assert strays(out) == [] and (out / "x.csv").read_text() == "1\n"
    # a failed block leaves the old folder untouched and no temporary folder
    with pytest.raises(RuntimeError), replace_dir(out) as d:
        (d / "x.csv").write_text("2\n")
        raise RuntimeError
    assert strays(out) == [] and (out / "x.csv").read_text() == "1\n"
    # files the user keeps in the folder survive a replacement
    (out / "notes.txt").write_text("mine")
    with replace_dir(out) as d:
        (d / "x.csv").write_text("3\n")
    assert snapshot(out) == {"notes.txt": b"mine", "x.csv": b"3\n"}
