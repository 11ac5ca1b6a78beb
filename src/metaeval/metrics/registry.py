"""Measures as value objects with one canonical name (ir_measures style).

A measure is written ``BASE``, ``BASE@CUTOFF`` or ``BASE(key=value,...)@CUTOFF``, e.g. ``AP``,
``nDCG@10``, ``Q-measure(beta=0.5)``, ``P-plus(gains=10:20:30)``, ``NCUrb,P@10``.  Gains are listed
from L1 upward (NTCIREVAL ``-g``), so Sakai (2007a)'s S:A:B = 30:20:10 is ``gains=10:20:30``.  The
canonical string is also the key in result dicts, the config syntax and the matrix file stem.  Parsing
is a dictionary lookup of BASE in :data:`REGISTRY` -- one implementation per measure.

One name per measure: parameters at their default are left out of the canonical name
(``Q-measure(beta=1)`` is ``Q-measure``), a key given twice is an error, and the aliases of
:data:`ALIASES` (``Q`` without a cutoff is ``Q-measure``; ``PDoc@l`` is ``Prec@l``; ...) resolve to the
canonical measure.  :func:`unique_measures` merges two spellings of the same measure into one, with
a warning.

Every implementation has the signature ``func(ctx, cutoff, **params) -> ndarray (runs, topics)``,
where ``ctx`` is an :class:`metaeval.metrics.context.EvalContext` whose gain vector is already the
measure's (a ``gains=`` parameter is applied by :func:`evaluate`, not by the implementation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["Param", "MeasureDef", "Measure", "REGISTRY", "ALIASES", "register", "parse_measure",
           "unique_measures", "parse_gains", "check_gain_order", "format_gains", "parse_cutoffs", "split_param",
           "MEASURE_MODULES"]


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


#: the modules that define measures (each calls :func:`register` at import).  They are imported
#: on the registry's first use -- the one place measures come from, so that no package has to
#: import another for its side effect (and ``metaeval.kishida`` -> ``metaeval.metrics`` is the only
#: direction of import between the two).  A new family of measures is one more entry here.
MEASURE_MODULES = ("metaeval.metrics.ranked", "metaeval.kishida.measures", "metaeval.metrics.diversity", "metaeval.metrics.cwl")


class _Registry(dict):
    """``base name -> MeasureDef``; the first read imports :data:`MEASURE_MODULES`."""

    _loaded = False

    def load(self) -> "_Registry":
        if not self._loaded:
            type(self)._loaded = True            # first: the modules call register() while loading
            import importlib

            for module in MEASURE_MODULES:
                importlib.import_module(module)
        return self

    def __getitem__(self, key):
        return dict.__getitem__(self.load(), key)

    def __contains__(self, key):
        return dict.__contains__(self.load(), key)

    def __iter__(self):
        return dict.__iter__(self.load())

    def __len__(self):
        return dict.__len__(self.load())

    def get(self, key, default=None):
        return dict.get(self.load(), key, default)

    def keys(self):
        return dict.keys(self.load())

    def values(self):
        return dict.values(self.load())

    def items(self):
        return dict.items(self.load())


REGISTRY: dict[str, MeasureDef] = _Registry()

#: other spellings of a measure -> (canonical base, when): ``when`` is "any", or "no-cutoff" for an
#: alias that means the canonical measure only without a cutoff (``Q`` is ``Q-measure``, while
#: ``Q@l`` is NTCIREVAL's own cutoff version of Q).  An alias keeps its cutoff and parameters.
ALIASES: dict[str, tuple[str, str]] = {
    "Q": ("Q-measure", "no-cutoff"),       # Sakai (2007a,b) write Q for Q-measure
    "PDoc": ("Prec", "any"),               # Sakai (2007b) Eq. 2: PDoc_l = P(l), NTCIREVAL's Prec@l
    "P": ("Prec", "any"),                  # ir_measures / trec_eval spelling (P@10, P_10)
    "MAP": ("AP", "any"),
    "MRR": ("RR", "any"),
    "RecipRank": ("RR", "any"),
    "Rprec": ("R-prec", "any"),
}


def register(defn: MeasureDef) -> MeasureDef:
    if dict.__contains__(REGISTRY, defn.base) and dict.__getitem__(REGISTRY, defn.base).func is not defn.func:
        raise ValueError(f"measure {defn.base!r} is already registered")
    dict.__setitem__(REGISTRY, defn.base, defn)
    return defn


_NAME_RE = re.compile(r"^(?P<base>[^()@\s]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>\d+))?$")


def split_param(name: str, key: str = "gains") -> tuple[str, str | None]:
    """Take one parameter out of a measure name, as written (no registry lookup):
    ``P-plus(gains=10:20:30)@1000`` -> (``P-plus@1000``, ``10:20:30``); a name without the
    parameter, or not of the measure syntax, -> (name, None).  The tables group a gain sweep's
    variants by the name without ``gains``."""
    m = _NAME_RE.match(str(name))
    if not m:
        return str(name), None
    value = None
    rest = []
    for part in (m.group("params") or "").split(","):
        part = part.strip()
        if not part:
            continue
        k, _, v = part.partition("=")
        if k.strip() == key:
            value = v.strip()
        else:
            rest.append(part)
    base = m.group("base") + (f"({','.join(rest)})" if rest else "")
    if m.group("cutoff"):
        base += "@" + m.group("cutoff")
    return base, value


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


def _resolve_alias(base: str, cutoff: int | None) -> str:
    if base in ALIASES:
        target, when = ALIASES[base]
        if when == "any" or (when == "no-cutoff" and cutoff is None):
            return target
    return base


def parse_measure(text: str | Measure) -> Measure:
    """Parse a measure name into its canonical :class:`Measure`; raises ``ValueError`` naming the problem.

    Aliases resolve to their canonical base, parameters at their default are dropped, a parameter
    given twice is an error.
    """
    if isinstance(text, Measure):
        return text
    m = _NAME_RE.match(str(text).strip())
    if not m:
        raise ValueError(f"measure {text!r}: expected BASE, BASE@CUTOFF or BASE(key=value,...)@CUTOFF")
    cutoff = None if m["cutoff"] is None else int(m["cutoff"])
    base = _resolve_alias(m["base"], cutoff)
    if base not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown measure {m['base']!r} in {text!r}; known measures: {known}")
    d = REGISTRY[base]
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
            if k in params:
                raise ValueError(f"measure {text!r}: parameter {k!r} given twice")
            try:
                params[k] = d.params[k].parse(v)
            except ValueError as e:
                raise ValueError(f"measure {text!r}: parameter {k}: {e}") from None
    # a parameter at its default is the measure without it: one name per measure
    params = {k: v for k, v in params.items() if not _is_default(v, d.params[k].default)}
    return Measure(base, cutoff, tuple(sorted(params.items())))


def _is_default(value: Any, default: Any) -> bool:
    if default is None:
        return value is None
    try:
        return bool(value == default)
    except (TypeError, ValueError):       # e.g. array-valued parameters
        return False


def unique_measures(names, *, where: str = "measures", warn: bool = True, stacklevel: int = 2) -> list[Measure]:
    """Parse ``names`` and keep the first of every canonical measure, in order.

    Two spellings of the same measure (``Q`` and ``Q-measure(beta=1)``, ``PDoc@10`` and ``Prec@10``)
    yield one measure; with ``warn`` an :class:`metaeval.errors.InputWarning` names them.
    """
    import warnings

    from ..errors import InputWarning

    first: dict[Measure, str] = {}
    out: list[Measure] = []
    for name in names:
        m = parse_measure(name)
        spelled = name.name if isinstance(name, Measure) else str(name).strip()
        if m in first:
            if warn:
                warnings.warn(f"{where}: {spelled!r} is the same measure as {first[m]!r} (canonical name "
                              f"{m.name}); computed once", InputWarning, stacklevel=stacklevel)
            continue
        first[m] = spelled
        out.append(m)
    return out
