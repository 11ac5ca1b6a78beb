"""argparse value types shared by the commands: each checks its value where argparse parses it, so
a bad value is a usage error (exit 2) naming the option, and no command repeats the check."""

from __future__ import annotations

import argparse

__all__ = ["int_at_least", "ints_at_least", "probabilities", "floats", "names_in"]


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def int_at_least(low: int):
    """An integer ``>= low``."""
    def parse(text: str) -> int:
        v = _int(text)
        if v < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {v}")
        return v
    parse.__name__ = f"integer >= {low}"
    return parse


def ints_at_least(low: int):
    """Comma-separated integers, each ``>= low``."""
    def parse(text: str) -> list[int]:
        try:
            vals = [int(v) for v in text.split(",") if v.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
        if any(v < low for v in vals):
            raise argparse.ArgumentTypeError(f"every value must be >= {low}, got {text!r}")
        return vals
    return parse


def floats(text: str) -> list[float]:
    """Comma-separated numbers."""
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def probabilities(text: str) -> list[float]:
    """Comma-separated levels, each in (0, 1)."""
    vals = floats(text)
    if any(not 0 < a < 1 for a in vals):
        raise argparse.ArgumentTypeError(f"every level must be in (0, 1), got {text!r}")
    return vals


def names_in(known):
    """Comma-separated names, each one of ``known``."""
    known = tuple(known)

    def parse(text: str) -> list[str]:
        vals = [v for v in text.split(",") if v]
        bad = [v for v in vals if v not in known]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown {bad[0]!r}; known: {', '.join(known)}")
        return vals
    return parse
