"""Errors and warnings for bad input.

Policy: anything that would make a number wrong is an :class:`InputError` (the CLI exits 1 and
writes nothing); anything with a documented fallback is an :class:`InputWarning` whose message states
the fallback.  Both name the file and line (or topic) they concern.
"""

from __future__ import annotations

from os import PathLike


def _where(path: str | PathLike | None, line: int | None, topic: str | None) -> str:
    parts = []
    if path is not None:
        parts.append(str(path) + (f":{line}" if line is not None else ""))
    if topic is not None:
        parts.append(f"topic {topic}")
    return ", ".join(parts)


class InputError(ValueError):
    """Rejected input.  ``str(err)`` reads ``FILE:LINE: message`` (or ``FILE, topic T: message``)."""

    #: the exit status of the trec_eval drop-in for this error: 2, a malformed file (trec_eval's
    #: "Quit in file"); 4, a measure it cannot compute
    trec_eval_status: int = 2

    def __init__(self, message: str, path: str | PathLike | None = None,
                 line: int | None = None, topic: str | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.topic = topic
        self.message = message
        where = _where(path, line, topic)
        super().__init__(f"{where}: {message}" if where else message)


class InputWarning(UserWarning):
    """Input accepted with a stated fallback (missing topic scored 0, duplicate dropped, ...)."""


class ConfigError(ValueError):
    """A configuration that does not validate against the schema."""


class UsageError(ValueError):
    """Bad usage found after the options were parsed (an ``--out`` that names no place to write):
    the CLI exits 2, before any input is read."""


def warn_input(message: str) -> None:
    """Issue an :class:`InputWarning` attributed to the first caller outside metaeval (else a
    warning from the Python API would name the library's own source line): Python prints the user's
    file and line, and ``catch_warnings`` records them."""
    import os
    import sys
    import types
    import warnings

    pkg = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame: types.FrameType | None = sys._getframe(0)
    level = 1                                          # level 1: warn_input itself
    while frame is not None and frame.f_code.co_filename.startswith(pkg):
        frame, level = frame.f_back, level + 1
    warnings.warn(InputWarning(message), stacklevel=level)
