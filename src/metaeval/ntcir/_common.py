"""What ``metaeval ntcir``'s single-topic subcommands share (:mod:`metaeval.ntcir.cli` and
:mod:`metaeval.ntcir.diversity`): reading a file or stdin, the relevance-label pattern, the
``-g``/``-s`` value lists."""

from __future__ import annotations

import re
import sys
import itertools

_LABEL = re.compile(r"L([0-9]+)\Z")


def _read_lines(path):
    """(name, lines) of a file or stdin."""
    if path is None or path == "-":
        return "<stdin>", sys.stdin.read().removeprefix("\ufeff").splitlines()
    from ..errors import InputError
    from ..util import open_text
    try:
        with open_text(path) as fh:
            return str(path), fh.read().splitlines()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path) from None
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text: {e}", path) from None


def _parse_values(text: str, what: str, positive: bool = False) -> tuple[float, ...]:
    from ..errors import InputError
    from ..metrics.registry import parse_gains
    try:
        vals = parse_gains(text)
    except ValueError as e:
        raise InputError(f"-{what[0]} {text!r}: {e}") from None
    if any(b < a for a, b in itertools.pairwise(vals)):
        raise InputError(f"{what} {text!r}: values must not decrease from L1 to LH "
                         "(NTCIREVAL: bad gain/stop values)")
    if positive and any(v <= 0 for v in vals):
        raise InputError(f"{what} {text!r}: stop values must be positive")
    return vals
