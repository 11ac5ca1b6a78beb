"""C's ``atol`` and ``atof`` on bytes, as trec_eval reads its numbers (qrels REL, run SCORE,
options, measure parameters): the leading number of a token, 0 when there is none."""

from __future__ import annotations

import re

_ATOL = re.compile(rb"\s*([+-]?[0-9]+)")
_ATOF = re.compile(rb"\s*([+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan))",
                   re.IGNORECASE)


def c_atol(b: bytes) -> int:
    """C's ``atol``: the leading integer of ``b`` (0 if none)."""
    m = _ATOL.match(b)
    return int(m.group(1)) if m else 0


def c_atof(b: bytes) -> float:
    """C's ``atof`` for decimal input: the leading number of ``b`` (0.0 if none).  A whole token
    Python's ``float`` reads is read by it (the same correctly rounded value), but for digit
    separators: ``float`` reads ``1_0`` as 10.0, C's atof as 1.0."""
    if b"_" not in b:
        try:
            return float(b)
        except ValueError:
            pass
    m = _ATOF.match(b)
    if not m:
        return 0.0
    try:
        return float(m.group(1))
    except ValueError:      # pragma: no cover - the regex admits only floats
        return 0.0
