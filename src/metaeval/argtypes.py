"""argparse value types (standard library only): each checks its value where argparse parses it, so
a bad value is a usage error (exit 2) naming the option.  The commands use them
(:mod:`metaeval.cli._types`), and so do the stage declarations, whose parameters may name the parser
of their option's value (:func:`metaeval.stages.parameter`, ``parse=int_at_least(1)``): this module
sits below both."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

__all__ = ["comma_list", "describe", "floats", "int_at_least", "ints_at_least", "names_in", "probabilities",
           "violation"]


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
    # what it accepts, as the declared types say it (tests derive out-of-range values from it)
    parse.schema = {"type": "integer", "minimum": low}  # type: ignore[attr-defined]
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
    parse.schema = {"type": "array", "items": {"type": "integer", "minimum": low}}  # type: ignore[attr-defined]
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


probabilities.schema = {"type": "array",  # type: ignore[attr-defined]
                        "items": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}}


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


# ------------------------------------------------------------------ values checked by their declaration
# A parameter declares its constraints once, as JSON-schema (metaeval.stages.Param.schema: type,
# minimum, maximum, exclusiveMinimum, exclusiveMaximum, enum, const, oneOf/anyOf, items, minItems,
# minLength, pattern); the option's argparse type checks a value against them where argparse parses
# it, so an out-of-range value is a usage error (exit 2) before any input is read.

_TYPES = {"integer": "an integer", "number": "a number", "string": "a text", "boolean": "true or false",
          "array": "a list", "null": "nothing", "object": "a mapping"}


def _is(value: object, kind: str) -> bool:
    import math

    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if kind == "string":                 # a file parameter's path (os.PathLike) is the config's string
        return isinstance(value, str) or hasattr(value, "__fspath__")
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, (list, tuple))
    if kind == "null":
        return value is None
    if kind == "object":
        return isinstance(value, dict)
    return True


def describe(schema: dict) -> str:
    """What ``schema`` asks for, in words (``an integer >= 2``, ``a number in (0, 1)``)."""
    alts = schema.get("oneOf") or schema.get("anyOf")
    if alts:
        return " or ".join(describe(a) for a in alts)
    if "const" in schema:
        return repr(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(map(str, schema["enum"]))
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    words = " or ".join(_TYPES.get(k, k) for k in kinds if k != "null") or "a value"
    lo, hi = schema.get("minimum"), schema.get("maximum")
    xlo, xhi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if (lo is not None or xlo is not None) and (hi is not None or xhi is not None):
        words += (f" in {'(' if xlo is not None else '['}{xlo if xlo is not None else lo}, "
                  f"{xhi if xhi is not None else hi}{')' if xhi is not None else ']'}")
    elif lo is not None or xlo is not None:
        words += f" >= {lo}" if lo is not None else f" > {xlo}"
    elif hi is not None or xhi is not None:
        words += f" <= {hi}" if hi is not None else f" < {xhi}"
    if "items" in schema and isinstance(schema["items"], dict):
        words += " of " + describe(schema["items"])
    return words


def violation(value: object, schema: dict | None) -> str | None:
    """None if ``value`` meets ``schema`` (the JSON-schema subset the parameters declare), else what
    it should be.  A number must be finite (``nan`` and ``inf`` meet no numeric constraint)."""
    import math
    import re

    if not schema:
        return None
    alts = schema.get("oneOf") or schema.get("anyOf")
    if alts:
        return None if any(violation(value, a) is None for a in alts) else describe(schema)
    if "const" in schema and value != schema["const"]:
        return describe(schema)
    if "enum" in schema and value not in schema["enum"]:
        return describe(schema)
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    if kinds and not any(_is(value, k) for k in kinds):
        return describe(schema)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            return describe(schema)
        for key, bad in (("minimum", lambda b: value < b), ("maximum", lambda b: value > b),
                         ("exclusiveMinimum", lambda b: value <= b), ("exclusiveMaximum", lambda b: value >= b)):
            if key in schema and bad(schema[key]):
                return describe(schema)
    if isinstance(value, str) and (len(value) < schema.get("minLength", 0)
                                   or ("pattern" in schema and not re.search(schema["pattern"], value))):
        return describe(schema)
    if isinstance(value, (list, tuple)):
        if len(value) < schema.get("minItems", 0):
            return f"at least {schema['minItems']} value(s)"
        items = schema.get("items")
        if isinstance(items, dict):
            for v in value:
                why = violation(v, items)
                if why is not None:
                    return why
    return None


def comma_list(parse: Callable[[str], Any], schema: dict | None) -> Callable[[str], list]:
    """An argparse type: comma-separated values, each parsed by ``parse``, the list checked against
    the declared array ``schema``."""
    def parse_list(text: str) -> list:
        try:
            vals = [parse(v) for v in text.split(",") if v.strip()]
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"expected comma-separated values, got {text!r}") from None
        why = violation(vals, schema)
        if why is not None:
            raise argparse.ArgumentTypeError(f"every value must be {why}, got {text!r}")
        return vals
    parse_list.schema = schema  # type: ignore[attr-defined]
    return parse_list
