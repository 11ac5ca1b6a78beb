"""Measures as value objects with one canonical name (ir_measures style).

A measure is written ``BASE``, ``BASE@CUTOFF`` or ``BASE(key=value,...)@CUTOFF``, e.g. ``AP``,
``nDCG@10``, ``Q-measure(beta=0.5)``, ``P-plus(gains=10:20:30)``, ``NCUrb,P@10``.  Gains are listed
from L1 upward (NTCIREVAL ``-g``), so paper 000's S:A:B = 30:20:10 is ``gains=10:20:30``.  The canonical
string is also the key in result dicts, the config syntax and the matrix file stem.  Parsing is a
dictionary lookup of BASE in :data:`REGISTRY` -- one implementation per measure.

Every implementation has the signature ``func(ctx, cutoff, **params) -> ndarray (runs, topics)``,
where ``ctx`` is an :class:`metaeval.metrics.context.EvalContext` whose gain vector is already the
measure's (a ``gains=`` parameter is applied by :func:`evaluate`, not by the implementation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["Param", "MeasureDef", "Measure", "REGISTRY", "register", "parse_measure",
           "parse_gains", "check_gain_order", "format_gains", "parse_cutoffs"]


def parse_gains(text: str | tuple | list) -> tuple[float, ...]:
    """``"3:2:1"`` -> ``(3.0, 2.0, 1.0)``; gains are listed for L1 upward (NTCIREVAL ``-g``)."""
    if isinstance(text, (tuple, list)):
        vals = tuple(float(v) for v in text)
    else:
        try:
            vals = tuple(float(v) for v in str(text).split(":"))
        except ValueError:
            raise ValueError(f"gains {text!r}: expected numbers separated by ':' (e.g. 1:2:3)") from None
    if not vals or any(v < 0 or not np.isfinite(v) for v in vals):
        raise ValueError(f"gains {text!r}: expected non-negative finite numbers")
    return vals


def check_gain_order(vals, text=None) -> None:
    """The gains rule (docs/io.md): gains are listed for L1..LH and must not decrease (as in
    NTCIREVAL, which rejects such a -g).  The number of gains given is H."""
    for j in range(1, len(vals)):
        if vals[j] < vals[j - 1]:
            shown = text if text is not None else ":".join(map(str, vals))
            raise ValueError(f"gains {shown!r}: the gain of L{j + 1} is below that of L{j}; gains must "
                             f"not decrease from L1 to LH")


def parse_cutoffs(text: str) -> tuple[int, ...]:
    """``"1,10,100"`` -> ``(1, 10, 100)`` (NTCIREVAL ``-cutoffs``); every item a positive integer."""
    try:
        vals = tuple(int(v) for v in str(text).split(","))
    except ValueError:
        raise ValueError(f"cutoffs {text!r}: expected positive integers separated by commas") from None
    if any(v < 1 for v in vals):
        raise ValueError(f"cutoffs {text!r}: expected positive integers separated by commas")
    return vals


def format_gains(gains) -> str:
    return ":".join(_fmt_num(g) for g in gains)


def _fmt_num(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)


@dataclass(frozen=True)
class Param:
    """A typed measure parameter: ``parse`` turns the config/CLI text into the value."""
    default: Any
    parse: Callable[[str], Any] = float
    doc: str = ""
    fmt: Callable[[Any], str] = _fmt_num


@dataclass(frozen=True)
class MeasureDef:
    base: str
    func: Callable[..., np.ndarray]
    cutoff: str = "forbidden"          # "forbidden" | "optional" | "required"
    params: dict[str, Param] = field(default_factory=dict)
    bounded: bool = True               # values lie in [0, 1]
    ntcir: bool = False                # printed by ``ntcir_eval compute`` (NTCIREVAL names)
    doc: str = ""


REGISTRY: dict[str, MeasureDef] = {}


def register(defn: MeasureDef) -> MeasureDef:
    if defn.base in REGISTRY and REGISTRY[defn.base].func is not defn.func:
        raise ValueError(f"measure {defn.base!r} is already registered")
    REGISTRY[defn.base] = defn
    return defn


_NAME_RE = re.compile(r"^(?P<base>[^()@\s]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>\d+))?$")


@dataclass(frozen=True, order=True)
class Measure:
    base: str
    cutoff: int | None = None
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def definition(self) -> MeasureDef:
        return REGISTRY[self.base]

    @property
    def name(self) -> str:
        s = self.base
        if self.params:
            d = self.definition
            s += "(" + ",".join(f"{k}={d.params[k].fmt(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            s += f"@{self.cutoff}"
        return s

    @property
    def ntcir_name(self) -> str:
        """The name as ``ntcir_eval compute`` prints it: cutoffs zero-padded to 4 digits."""
        s = self.base
        if self.cutoff is not None:
            s += f"@{self.cutoff:04d}"
        return s

    def param(self, key: str) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        return self.definition.params[key].default

    def __str__(self) -> str:
        return self.name


def parse_measure(text: str | Measure) -> Measure:
    """Parse a canonical measure name; raises ``ValueError`` naming the problem."""
    if isinstance(text, Measure):
        return text
    m = _NAME_RE.match(text.strip())
    if not m:
        raise ValueError(f"measure {text!r}: expected BASE, BASE@CUTOFF or BASE(key=value,...)@CUTOFF")
    base = m["base"]
    if base not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown measure {base!r} in {text!r}; known measures: {known}")
    d = REGISTRY[base]
    cutoff = None if m["cutoff"] is None else int(m["cutoff"])
    if cutoff is not None and d.cutoff == "forbidden":
        raise ValueError(f"measure {text!r}: {base} takes no cutoff")
    if cutoff is None and d.cutoff == "required":
        raise ValueError(f"measure {text!r}: {base} needs a cutoff, e.g. {base}@10")
    if cutoff is not None and cutoff < 1:
        raise ValueError(f"measure {text!r}: cutoff must be >= 1")
    params: dict[str, Any] = {}
    if m["params"]:
        for item in m["params"].split(","):
            if "=" not in item:
                raise ValueError(f"measure {text!r}: parameter {item!r} is not key=value")
            k, v = (s.strip() for s in item.split("=", 1))
            if k not in d.params:
                allowed = ", ".join(sorted(d.params)) or "none"
                raise ValueError(f"measure {text!r}: unknown parameter {k!r} (allowed: {allowed})")
            try:
                params[k] = d.params[k].parse(v)
            except ValueError as e:
                raise ValueError(f"measure {text!r}: parameter {k}: {e}") from None
    return Measure(base, cutoff, tuple(sorted(params.items())))
