"""argparse value types shared by the commands: each checks its value where argparse parses it, so
a bad value is a usage error (exit 2) naming the option, and no command repeats the check.  The
standard-library ones the stage declarations name too live in :mod:`metaeval.argtypes`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..argtypes import (comma_list, describe, floats, int_at_least, ints_at_least, names_in, probabilities,
                        violation)

__all__ = ["checked", "comma_list", "declared", "describe", "floats", "int_at_least", "ints_at_least", "names_in",
           "param_type", "probabilities", "violation"]


def checked(parse: Callable[[str], Any], schema: dict | None, check: Callable[[Any], None] | None = None, *,
            item: bool = False) -> Callable[[str], Any]:
    """An argparse type: ``parse(text)``, then the value checked against ``schema`` (``item``: the
    schema of a list and the value one of its items, as with ``nargs``) and by ``check`` (raises
    ``ValueError``); a failure is an ``ArgumentTypeError`` (exit 2, naming the option)."""
    sub = (schema or {}).get("items") if item else schema
    if item and schema and "items" not in schema:
        sub = None

    import math

    def parse_checked(text: str) -> Any:
        try:
            value = parse(text)
        except argparse.ArgumentTypeError:
            raise
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"invalid value {text!r}") from None
        if isinstance(value, float) and math.isnan(value):
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}")
        why = violation(value, sub)
        if why is not None:
            raise argparse.ArgumentTypeError(f"must be {why}, got {text!r}")
        if check is not None:
            try:
                check(value)
            except (TypeError, ValueError) as e:
                raise argparse.ArgumentTypeError(str(e)) from None
        return value
    parse_checked.__name__ = getattr(parse, "__name__", "value")
    parse_checked.schema = sub  # type: ignore[attr-defined]
    return parse_checked


def param_type(prm: Any, *, element: bool | None = None) -> Callable[[str], Any]:
    """The argparse type of a declared :class:`metaeval.stages.Param`: its ``type`` checked against its
    ``schema`` (one item of it when the option takes several words, ``nargs``) and, for a single value,
    its ``check``."""
    item = bool(prm.nargs) if element is None else element
    return checked(prm.type, prm.schema, None if item else prm.check, item=item)


def declared(name: str, stage: str | None = None) -> Callable[[str], Any]:
    """The argparse type of the declared parameter ``name`` (of ``stage``, or any method's / the
    common ones), for a command whose option means the same (``compare --alpha``)."""
    from ..meta import stages

    prm = stages.param(name) if stage is None else next(p for p in stages.get(stage).params if p.name == name)
    return param_type(prm, element=False)


class DeprecatedOption(argparse.Action):
    """An option's old spelling, kept for one release: hidden from the help, it stores into the new
    option's ``dest`` and prints a one-line note naming the new spelling.  ``add_argument(OLD,
    dest=..., action=DeprecatedOption, new=NEW, help=argparse.SUPPRESS)``; ``old``: how the note
    names the old spelling when the option string alone does not (``--topics common|own``, whose
    option string now means something else in other commands)."""

    def __init__(self, option_strings, dest, new: str = "", old: str | None = None, **kwargs):
        self.new = new
        self.old = old
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        import sys

        print(f"metaeval: warning: {self.old or option_string} is deprecated and goes in the next release; "
              f"use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)
