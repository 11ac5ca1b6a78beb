"""Stub of the optional C extension (_trecfmt.c): its functions are typed loosely here; the module may be
absent (no compiler at install time), and its callers fall back to their numpy code then."""

from typing import Any

def __getattr__(name: str) -> Any: ...
