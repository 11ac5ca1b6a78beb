"""Small shared helpers: atomic output files and folders, gzip-transparent opening."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator


def open_text(path: str | os.PathLike) -> IO[str]:
    """Open a text file for reading; ``.gz`` (or gzip magic bytes) is decompressed transparently."""
    path = Path(path)
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="strict")
    return open(path, "r", encoding="utf-8", errors="strict")


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **kwargs) -> Iterator[IO]:
    """Write ``path`` via a temporary file in the same folder, renamed into place on success.

    On any exception the temporary file is removed and ``path`` is untouched, so a rejected input
    never leaves a half-written output behind.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_dir_outputs(paths: list[str | os.PathLike]) -> Iterator[None]:
    """Remove every path in ``paths`` if the block raises (for multi-file outputs)."""
    try:
        yield
    except BaseException:
        for p in paths:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.unlink(p)
        raise


# ------------------------------------------------------------------ whole-folder replacement
_NEW, _OLD = ".new-", ".old-"
MANIFEST = ".metaeval-output"          # names the files a metaeval command wrote into a folder


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False if unsupported."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    rc = fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE)
    if rc != 0:
        err = ctypes.get_errno()
        if err in (22, 38, 95):             # EINVAL/ENOSYS/EOPNOTSUPP: file system cannot exchange
            return False
        raise OSError(err, os.strerror(err), str(a))
    return True


def clean_stale(path: str | os.PathLike) -> None:
    """Remove the sibling temporary folders ``.NAME.new-PID-*`` / ``.NAME.old-PID-*`` left by
    earlier runs that were killed (their process is gone).  If a kill came between moving the old
    folder away and moving the new one in (only where atomic exchange is unsupported), the
    complete new folder is moved into place first."""
    import shutil

    path = Path(path)
    parent = path.parent
    if not parent.is_dir():
        return
    for p in sorted(parent.glob(f".{path.name}.*-*-*")):
        rest = p.name[len(path.name) + 1:]
        kind = rest[:5]
        if kind not in (_NEW, _OLD):
            continue
        try:
            pid = int(rest[5:].split("-")[0])
        except ValueError:
            continue
        if _pid_alive(pid) and pid != os.getpid():
            continue
        if kind == _NEW and not path.exists() and (p / MANIFEST).exists():
            os.rename(p, path)               # the new output was complete: finish the swap
            continue
        shutil.rmtree(p, ignore_errors=True)


def _carry_over(old: Path, new: Path, ours: set[str]) -> None:
    """Hard-link (or copy) into ``new`` every entry of ``old`` that a metaeval command did not
    write there (not listed in its manifest) and that the new output does not replace."""
    import shutil

    for e in old.iterdir():
        if e.name in ours or e.name == MANIFEST or (new / e.name).exists():
            continue
        if e.is_dir() and not e.is_symlink():
            shutil.copytree(e, new / e.name, copy_function=_link_or_copy, symlinks=True)
        else:
            _link_or_copy(e, new / e.name)


def _link_or_copy(src, dst):
    import shutil

    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)
    return dst


@contextlib.contextmanager
def replace_dir(path: str | os.PathLike) -> Iterator[Path]:
    """Write a whole output folder at once: yields a fresh sibling folder ``.NAME.new-PID-XXXX``
    to write into; when the block ends without an exception, it replaces ``path`` as a whole.

    * The swap is one atomic ``renameat2(RENAME_EXCHANGE)`` on Linux, so a process killed at any
      moment leaves ``path`` holding either the complete old or the complete new output, never a
      mix.  Elsewhere: rename the old folder away, rename the new one in (a kill between the two
      is completed by the next run, see :func:`clean_stale`).
    * Temporary folders of earlier runs that were killed are removed first.
    * A manifest ``.metaeval-output`` lists the entries written; entries of the old folder that are
      not in its manifest (files the user put there) are carried over (hard links).  Stale outputs of
      a previous run (in its manifest, not written again) are dropped.
    * ``path`` naming an existing file (not a folder) is an :class:`~metaeval.errors.InputError`.
    * On an exception the temporary folder is removed and ``path`` is untouched.
    """
    import shutil

    from .errors import InputError

    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError("output path exists and is not a folder", path)
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    clean_stale(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}{_NEW}{os.getpid()}-", dir=parent))
    try:
        yield tmp
        (tmp / MANIFEST).write_text("".join(sorted(e.name + "\n" for e in tmp.iterdir())))
        if path.is_dir():
            m = path / MANIFEST
            ours = set(m.read_text().split("\n")) if m.exists() else set()
            _carry_over(path, tmp, ours)
            if _exchange(tmp, path):
                shutil.rmtree(tmp, ignore_errors=True)      # tmp now holds the old output
                return
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}{_OLD}{os.getpid()}-", dir=parent))
            os.rmdir(old)
            os.rename(path, old)
            os.rename(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
