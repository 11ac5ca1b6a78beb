"""Reading a measure name as text, before any registry lookup: ``BASE(key=value,...)@CUTOFF``
split into its parts, and the booleans of parameters.  The standard library only, so that the
registry (:mod:`metaeval.metrics.registry`) and the ir_measures vocabulary
(:mod:`metaeval.metrics.vocabulary`) both read names with it without importing each other."""

from __future__ import annotations

from typing import Any

import re

__all__ = ["tokenize", "parse_bool", "STD_METHODS", "parse_std"]


def parse_bool(text) -> bool:
    """``True``/``False`` (Python's spelling, as ir_measures writes them), also ``true``/``1``/..."""
    if isinstance(text, bool):
        return text
    t = str(text).strip().strip("'\"").lower()
    if t in ("true", "1", "yes"):
        return True
    if t in ("false", "0", "no"):
        return False
    raise ValueError(f"{text!r}: expected True or False")


_CUT_FIRST_RE = re.compile(r"^(?P<base>[^()@\s]+)@(?P<cutoff>[^()@\s]+)\((?P<params>.*)\)$", re.DOTALL)
_HEAD_RE = re.compile(r"^(?P<base>[^()@\s]+)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[^()@\s]+))?$", re.DOTALL)


def _split_items(text: str) -> list[str]:
    """``a=1, b='x,y', c={1:2,3:4}`` -> the items, split at commas outside quotes and braces."""
    items: list[Any] = []
    cur: list[Any] = []
    quote: Any = None
    depth: int = 0
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    items.append("".join(cur))
    return [i.strip() for i in items if i.strip()]


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def tokenize(text: str) -> tuple[str, list[tuple[str, str]], str | None]:
    """``nDCG(dcg='exp-log2')@10`` -> (``nDCG``, [(``dcg``, ``exp-log2``)], ``10``): the name as
    written, no registry lookup (quoted values unquoted; the text after ``@`` as written, which may
    be a number with a decimal point, e.g. ir_measures' ``IPrec@0.1``)."""
    m = _HEAD_RE.match(str(text).strip())
    if not m:      # parameters after the cutoff (``nDCG@10(std=N)``) read as nDCG(std=N)@10
        m = _CUT_FIRST_RE.match(str(text).strip())
    if not m:
        raise ValueError(f"measure {text!r}: expected BASE, BASE@CUTOFF or BASE(key=value,...)@CUTOFF")
    items = []
    for item in _split_items(m["params"] or ""):
        if "=" not in item:
            raise ValueError(f"measure {text!r}: parameter {item!r} is not key=value")
        k, v = item.split("=", 1)
        items.append((k.strip(), _unquote(v)))
    return m["base"], items, m["cutoff"]


# score standardisation: the methods of ``std=`` (metaeval.metrics.standardise)
STD_METHODS = ("z", "N", "U", "E")


def parse_std(text) -> str:
    """``z``, ``N``, ``U`` or ``E`` (any case; ``z-std`` and the like also read)."""
    t = str(text).strip().strip("'\"")
    key = t[:-4] if t.lower().endswith("-std") else t
    for m in STD_METHODS:
        if key.lower() == m.lower():
            return m
    raise ValueError(f"{text!r}: expected one of {', '.join(STD_METHODS)} (z-scores, normal, uniform std-AB, "
                     f"empirical CDF)")
