"""Small shared helpers: atomic output files, gzip-transparent opening."""

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
