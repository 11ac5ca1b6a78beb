"""The one publisher (metaeval.publish): ownership by manifest, stale files removed, clashes refused
before anything moves, all or nothing, signals, paths that are no folders, errors naming the final
path -- issue 48, causes 1-7 and 15 (the commands' rows: tests/unit/test_hostile_input.py)."""

from __future__ import annotations

import errno
import json
import os
import signal
from pathlib import Path

import pytest

from metaeval.errors import InputError, UsageError
from metaeval.publish import MANIFEST, check_target, publishing, read_manifest


def _publish(dest: Path, owner: str, files: dict[str, str]) -> None:
    with publishing(dest, owner) as tmp:
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text)


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (the manifest too) with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _nothing_beside(dest: Path) -> None:
    assert [p.name for p in dest.parent.iterdir() if p.name.startswith(f".{dest.name}.")] == []


def test_fresh_folder_is_renamed_in_with_its_manifest(tmp_path):
    dest = tmp_path / "a" / "out"
    _publish(dest, "ppi", {"tables/x.csv": "1", "figures/f.png": "2"})
    assert _tree(dest).keys() == {"tables/x.csv", "figures/f.png", MANIFEST}
    assert read_manifest(dest) == {"ppi": ["figures/f.png", "tables/x.csv"]}
    assert json.loads((dest / MANIFEST).read_text())["format"] == 1
    _nothing_beside(dest)


def test_rerun_replaces_its_files_removes_its_stale_ones_and_keeps_the_rest(tmp_path):
    dest = tmp_path / "out"
    _publish(dest, "ppi", {"tables/ppi_AP.csv": "old", "figures/RR/a.png": "old", "tables/b.csv": "old"})
    (dest / "notes.txt").write_text("mine")
    (dest / "tables" / "mine.csv").write_text("mine")
    _publish(dest, "compare", {"compare.csv": "c"})
    _publish(dest, "ppi", {"tables/ppi_AP.csv": "new", "tables/c.csv": "new"})
    assert _tree(dest) == {MANIFEST: (dest / MANIFEST).read_bytes(), "notes.txt": b"mine", "compare.csv": b"c",
                           "tables/mine.csv": b"mine", "tables/ppi_AP.csv": b"new", "tables/c.csv": b"new"}
    assert not (dest / "figures").exists()                     # emptied by the stale figures: removed
    assert read_manifest(dest) == {"compare": ["compare.csv"], "ppi": ["tables/c.csv", "tables/ppi_AP.csv"]}


@pytest.mark.parametrize("where, words", [
    ("tables/x.csv", "tables/x.csv: not written by this command"),        # the user's file at an output path
    ("tables", "tables: exists and is not a folder"),                    # a file where a folder goes
    ("figures/f.png", "figures/f.png: is a folder"),                    # a folder where a file goes
])
def test_a_file_it_does_not_own_is_a_clash_before_anything_moves(tmp_path, where, words):
    dest = tmp_path / "out"
    _publish(dest, "ppi", {"other.csv": "old"})
    if where == "figures/f.png":
        (dest / where).mkdir(parents=True)
    else:
        (dest / where).parent.mkdir(parents=True, exist_ok=True)
        (dest / where).write_text("user")
    before = _tree(dest)
    with pytest.raises(InputError) as e:
        _publish(dest, "ppi", {"tables/x.csv": "new", "figures/f.png": "new", "a.csv": "new"})
    assert str(e.value).startswith(f"{dest}/{words}"), e.value
    assert "\n" not in str(e.value) and "does not replace a file it did not write" in str(e.value)
    assert _tree(dest) == before and (dest / "other.csv").exists()
    _nothing_beside(dest)


def test_another_commands_file_is_a_clash_naming_it(tmp_path):
    dest = tmp_path / "out"
    _publish(dest, "judgments", {"tables/x.csv": "j"})
    with pytest.raises(InputError, match=r"tables/x.csv: written by `metaeval judgments`"):
        _publish(dest, "ppi", {"tables/x.csv": "p"})
    assert (dest / "tables" / "x.csv").read_text() == "j"


def test_adoption_of_a_folder_without_a_manifest(tmp_path):
    """The rule (docs/io.md): a command with no entry in the manifest takes over the files at exactly
    the paths it writes (an earlier metaeval's output) and nothing else."""
    dest = tmp_path / "out"
    (dest / "tables").mkdir(parents=True)
    (dest / "tables" / "ppi_means.csv").write_text("old run")
    (dest / "tables" / "old_metric.csv").write_text("old run, no longer written")
    (dest / "notes.txt").write_text("mine")
    _publish(dest, "ppi", {"tables/ppi_means.csv": "new"})
    assert (dest / "tables" / "ppi_means.csv").read_text() == "new"
    assert (dest / "tables" / "old_metric.csv").read_text() == "old run, no longer written"
    assert (dest / "notes.txt").read_text() == "mine"
    assert read_manifest(dest) == {"ppi": ["tables/ppi_means.csv"]}


def test_a_failed_move_rolls_everything_back(tmp_path, monkeypatch):
    """Cause 3: the new figures moved in, the tables' move fails (a read-only folder): all undone."""
    dest = tmp_path / "out"
    _publish(dest, "ppi", {"figures/a.png": "old", "tables/t.csv": "old", "tables/stale.csv": "old"})
    before = _tree(dest)
    real = os.rename

    def failing(src, dst, *a, **k):
        if "tables" in str(dst) and str(dst).startswith(str(dest)) and str(src).count(".new-"):
            raise PermissionError(errno.EACCES, "Permission denied", str(dst))
        return real(src, dst, *a, **k)
    monkeypatch.setattr(os, "rename", failing)
    with pytest.raises(PermissionError) as e:
        _publish(dest, "ppi", {"figures/a.png": "new", "figures/b.png": "new", "tables/t.csv": "new"})
    monkeypatch.undo()
    assert e.value.filename == f"{dest}/tables/t.csv"
    assert _tree(dest) == before
    _nothing_beside(dest)


@pytest.mark.parametrize("at", [".new-", ".tmp"])         # a file moved in; the manifest, the last move
def test_a_signal_while_committing_rolls_back_then_takes_effect(tmp_path, monkeypatch, at):
    dest = tmp_path / "out"
    _publish(dest, "ppi", {"a.csv": "old", "b.csv": "old"})
    before = _tree(dest)
    real = os.rename
    sent = []

    def interrupting(src, dst, *a, **k):
        r = real(src, dst, *a, **k)
        if not sent and at in str(src):
            sent.append(1)
            os.kill(os.getpid(), signal.SIGINT)           # deferred: the commit is undone first
        return r
    monkeypatch.setattr(os, "rename", interrupting)
    # Python's Ctrl-C handler whatever the shell started pytest with (a background job's SIGINT is
    # ignored, and Python then installs none)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            _publish(dest, "ppi", {"a.csv": "new", "b.csv": "new"})
    finally:
        signal.signal(signal.SIGINT, handler)
    monkeypatch.undo()
    assert sent and _tree(dest) == before
    _nothing_beside(dest)


def test_errors_name_the_final_path_not_the_temporary_one(tmp_path):
    dest = tmp_path / "out"
    with pytest.raises(OSError) as e:
        with publishing(dest, "compare", shown="out") as tmp:
            raise PermissionError(errno.EACCES, "Permission denied", str(tmp / "compare.csv"))
    assert e.value.filename == "out/compare.csv"
    with pytest.raises(InputError) as e2:
        with publishing(dest, "compare", shown="out") as tmp:
            raise InputError("cannot write", tmp / "x.csv")
    assert str(e2.value) == "out/x.csv: cannot write"
    assert not dest.exists()
    _nothing_beside(dest)


def test_paths_that_are_not_folders_are_usage_errors(tmp_path):
    (tmp_path / "f").write_text("keep")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to-file").symlink_to(tmp_path / "f")
    (tmp_path / "to-dev").symlink_to("/dev/null")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    for bad, words in [("", "empty path"), (tmp_path / "fifo", "a FIFO"), (tmp_path / "to-file", "link to a file"),
                       (tmp_path / "to-dev", "link to a device"), (tmp_path / "dangling", "link to nothing")]:
        with pytest.raises(UsageError, match=words):
            check_target(bad)
    check_target(tmp_path / "f")                 # a file: util.check_out's business (exit 1 for a folder)
    check_target(tmp_path / "absent" / "x")
    (tmp_path / "real").mkdir()
    (tmp_path / "to-dir").symlink_to(tmp_path / "real")
    _publish(tmp_path / "to-dir", "ppi", {"x.csv": "1"})             # a link to a folder: written there
    assert (tmp_path / "to-dir").is_symlink() and (tmp_path / "real" / "x.csv").read_text() == "1"
    assert (tmp_path / "f").read_text() == "keep" and Path("/dev/null").is_char_device()


def test_a_full_disk_fails_before_anything_moves(tmp_path, monkeypatch):
    """The new manifest is written first (the one file a commit adds besides the output's)."""
    import metaeval.publish as P

    dest = tmp_path / "out"
    _publish(dest, "ppi", {"a.csv": "old"})
    before = _tree(dest)

    def full(**kw):
        raise OSError(errno.ENOSPC, "No space left on device", str(kw.get("dir")))
    monkeypatch.setattr(P, "public_mkstemp", full)
    with pytest.raises(OSError, match="No space"):
        _publish(dest, "ppi", {"a.csv": "new", "b.csv": "new"})
    monkeypatch.undo()
    assert _tree(dest) == before
    _nothing_beside(dest)


def test_an_accumulating_folder_keeps_its_earlier_files(tmp_path):
    """``metaeval matrices``: one matrix per measure, added run by run (still the command's own)."""
    dest = tmp_path / "m"
    with publishing(dest, "matrices", accumulate=True) as tmp:
        (tmp / "AP.csv").write_text("1")
        (tmp / "topics.csv").write_text("1")
    with publishing(dest, "matrices", accumulate=True) as tmp:
        (tmp / "RR.csv").write_text("2")
        (tmp / "topics.csv").write_text("2")
    assert {k: v.decode() for k, v in _tree(dest).items() if k != MANIFEST} == {"AP.csv": "1", "RR.csv": "2",
                                                                                "topics.csv": "2"}
    assert read_manifest(dest) == {"matrices": ["AP.csv", "RR.csv", "topics.csv"]}
    _publish(dest, "matrices", {"RR.csv": "3"})                          # not accumulating: AP, topics stale
    assert sorted(_tree(dest)) == [MANIFEST, "RR.csv"]
