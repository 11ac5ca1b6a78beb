"""A progress bar on stderr for long work (``test-errors``, ``standardisation``, ``judgments`` with a
large B, ``meta`` at campaign scale): drawn only when stderr is a terminal and the command was not
given ``--quiet`` (:func:`set_quiet`), so logs (the pipeline's jobs write stderr to a file) and
scripts see nothing.  Standard library only; redrawn at most a few times a second.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Self

__all__ = ["Progress", "set_quiet", "enabled"]

_QUIET = False
_WIDTH = 24
_EVERY = 0.2                     # seconds between redraws


def set_quiet(quiet: bool) -> None:
    """``--quiet`` of the running command: no bar at all."""
    global _QUIET
    _QUIET = bool(quiet)


def enabled(file: IO[str] | None = None) -> bool:
    """Whether a bar is drawn on ``file`` (default stderr): a terminal, and not quiet."""
    f = sys.stderr if file is None else file
    try:
        return not _QUIET and f.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """``with Progress(total, "what") as bar: ... bar.update()``: ``what  [#####     ] 12/40 (30%)
    0:42 left`` redrawn in place; cleared at the end.  A no-op when :func:`enabled` is false."""

    def __init__(self, total: int, what: str, file: IO[str] | None = None):
        self.total, self.what = max(int(total), 0), what
        self.file = sys.stderr if file is None else file
        self.on = enabled(self.file) and self.total > 0
        self.done = 0
        self.start = time.monotonic()
        self.last = 0.0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        self.done = min(self.total, self.done + n)
        if not self.on:
            return
        now = time.monotonic()
        if now - self.last >= _EVERY or self.done == self.total:
            self.last = now
            self.file.write("\r" + self.line(now - self.start) + "\x1b[K")
            self.file.flush()

    def line(self, elapsed: float) -> str:
        """The bar's text after ``elapsed`` seconds."""
        frac = self.done / self.total if self.total else 1.0
        fill = round(frac * _WIDTH)
        text = f"{self.what}  [{'#' * fill}{' ' * (_WIDTH - fill)}] {self.done}/{self.total} ({frac:.0%})"
        if 0 < self.done < self.total:
            left = int(elapsed * (self.total - self.done) / self.done)
            text += f" {left // 60}:{left % 60:02d} left"
        return text

    def close(self) -> None:
        if self.on:
            self.file.write("\r\x1b[K")
            self.file.flush()
            self.on = False
