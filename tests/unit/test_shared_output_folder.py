"""An output folder shared by several commands (the pipeline's ``COLLECTION/``: the meta job's
tables and figures, test-errors' and standardise --experiment's beside them in ``tables/`` and
``figures/``): a command publishes only its own files, each atomically, and never removes or
rewrites the others' -- also when two commands commit into it at the same time."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from metaeval.cli import main
from metaeval.util import replace_dir


def _files(root):
    """Every file under ``root``: relative path -> (inode, bytes)."""
    out = {}
    for dirpath, _, filenames in os.walk(root):
        for n in filenames:
            p = os.path.join(dirpath, n)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = (os.stat(p).st_ino, fh.read())
    return out


def test_a_command_writing_into_a_collection_folder_keeps_the_meta_jobs_files(tmp_path, capsys):
    # the collection folder as the metrics and meta jobs leave it, then the standardisation job's
    # command into the same folder (as test-errors: --out COLLECTION)
    coll = tmp_path / "C"
    rng = np.random.default_rng(3)
    (coll / "matrices").mkdir(parents=True)
    scores = rng.random((8, 5))
    lines = ["topic," + ",".join(f"r{j}" for j in range(5))]
    lines += [f"t{i}," + ",".join(repr(float(v)) for v in row) for i, row in enumerate(scores)]
    (coll / "matrices" / "AP.csv").write_text("\n".join(lines) + "\n")
    meta = {"tables/kendall.csv": b"metric_a,metric_b,tau\n", "tables/run_means.md": b"| run |\n",
            "figures/run_means.png": b"\x89PNG", "pvalues/AP.rthsd.50": b"r0 r1 0.1 0.5\n",
            "runs_used.csv": b"run\nr0\n", "report/run_means.csv": b"run\n"}
    for rel, data in meta.items():
        (coll / rel).parent.mkdir(parents=True, exist_ok=True)
        (coll / rel).write_bytes(data)
    (coll / "tables" / "standardisation_within.csv").write_text("an earlier run's\n")
    before = _files(coll)
    assert main(["standardise", "--experiment", "--matrices", str(coll / "matrices"), "--out", str(coll),
                 "--topics", "3", "--trials", "5", "--no-figures", "--quiet"]) == 0
    after = _files(coll)
    # every other file untouched (same inode, same bytes), the command's own written beside them
    kept = {rel: v for rel, v in before.items() if rel != "tables/standardisation_within.csv"}
    assert {rel: after.get(rel) for rel in kept} == kept
    own = set(after) - set(before)
    assert own == {f"tables/standardisation_{k}.{e}" for k in ("within", "between") for e in ("csv", "md", "tex")} \
        - {"tables/standardisation_within.csv"} | {"standardisation/power.csv", "standardisation/trials.csv",
                                                  ".metaeval-manifest.json"}   # the files it owns, listed
    assert after["tables/standardisation_within.csv"][1].startswith(b"metric,")     # its namesake replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["C"]                       # no temporary folder left


def test_two_commands_committing_at_once_keep_each_others_files(tmp_path):
    # two writers into one folder, interleaved: both prepare, one publishes, then the other (which
    # finds the folder made meanwhile); then both again into the folder they share
    out = tmp_path / "C"
    for rnd in ("1", "2"):
        with replace_dir(out) as a:
            with replace_dir(out) as b:
                (b / "tables").mkdir()
                (b / "tables" / "test_errors_type1.csv").write_text(f"b{rnd}\n")
                (b / "test_errors").mkdir()
                (b / "test_errors" / "margins.csv").write_text(f"b{rnd}\n")
            (a / "tables").mkdir()
            (a / "tables" / "kendall.csv").write_text(f"a{rnd}\n")
            (a / "runs_used.csv").write_text(f"a{rnd}\n")
        got = {rel: v[1] for rel, v in _files(out).items()}
        assert got == {"tables/test_errors_type1.csv": f"b{rnd}\n".encode(),
                       "test_errors/margins.csv": f"b{rnd}\n".encode(),
                       "tables/kendall.csv": f"a{rnd}\n".encode(), "runs_used.csv": f"a{rnd}\n".encode()}
        assert sorted(p.name for p in tmp_path.iterdir()) == ["C"]
    # a folder the command alone writes (keep_old=False) is still replaced as a whole
    with replace_dir(out, keep_old=False) as c:
        (c / "qrels.txt").write_text("q\n")
    assert {rel: v[1] for rel, v in _files(out).items()} == {"qrels.txt": b"q\n"}


def test_a_signal_during_the_commit_takes_effect_once_every_file_is_in_place(tmp_path, monkeypatch):
    out = tmp_path / "C"
    (out / "tables").mkdir(parents=True)
    (out / "tables" / "kendall.csv").write_text("meta\n")
    real_replace, seen = os.replace, []

    def replace_then_signal(src, dst):             # SIGTERM right after the first file is in place
        real_replace(src, dst)
        if not seen:
            seen.append(dst)
            os.kill(os.getpid(), signal.SIGTERM)

    class Stop(BaseException):
        pass

    def on_term(signum, frame):
        raise Stop

    old = signal.signal(signal.SIGTERM, on_term)
    monkeypatch.setattr(os, "replace", replace_then_signal)
    try:
        with pytest.raises(Stop), replace_dir(out) as d:
            (d / "tables").mkdir()
            for name in ("a.csv", "b.csv", "c.csv"):
                (d / "tables" / name).write_text(name)
    finally:
        signal.signal(signal.SIGTERM, old)
    assert seen and sorted(p.name for p in (out / "tables").iterdir()) == ["a.csv", "b.csv", "c.csv", "kendall.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["C"]
