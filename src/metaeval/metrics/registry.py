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
measure's (a ``gains=`` parameter is applied by :func:`evaluate`, not by the implementation), as are
``rel=`` (:func:`rel_param`; unless the implementation takes a ``rel`` argument) and the generic
``judged_only=True`` of every measure (:data:`GENERIC_PARAMS`).

Names are read in a vocabulary (:data:`VOCABULARIES`): ``"ntcireval"`` (the default; canonical
names are its fixed points) or ``"ir_measures"``, where the few names NTCIREVAL uses for other
measures (``nDCG@10``, ``AP@100``, ``ERR@20``, ``RBP``) mean ir_measures' (trec_eval's, gdeval's,
cwl_eval's); :mod:`metaeval.metrics.vocabulary` maps every ir_measures name.  An unknown name gets
the three nearest known names (:func:`nearest_names`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy as np

from .names import parse_bool, tokenize

__all__ = ["Param", "MeasureDef", "Measure", "REGISTRY", "ALIASES", "GENERIC_PARAMS", "register",
           "parse_measure", "unique_measures", "parse_gains", "check_gain_order", "format_gains", "parse_cutoffs",
           "split_param", "VOCABULARIES", "default_vocabulary", "check_vocabulary",
           "known_names", "nearest_names", "rel_param", "parse_bool", "vocabulary_table"]


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


def warn_extra_gains(vals, qrels_max_level: int, text=None, *, stacklevel: int = 2) -> bool:
    """Gains declaring more levels than the qrels hold (``0:1:2:3`` on grades 0-3, trec_eval users
    listing grade 0): the number of gains is H and gains start at L1 (NTCIREVAL ``-g``), so the
    qrels' levels get the *first* gains -- legal, but rarely meant.  One
    :class:`metaeval.errors.InputWarning` line saying so; returns whether it warned."""
    import warnings

    from ..errors import InputWarning

    H, q = len(vals), int(qrels_max_level)
    if H <= q:
        return False
    shown = text if text is not None else format_gains(vals)
    used = format_gains(vals[:q]) if q else "none"
    hint = (f"; to give L1..L{q} the gains {format_gains(vals[H - q:])}, write {format_gains(vals[H - q:])!r}"
            if q and vals[0] == 0 else "")
    warnings.warn(f"gains {shown!r} declare {H} levels but the qrels hold L1..L{q}: gains start at L1 "
                  f"(NTCIREVAL -g), so L1..L{q} get {used}{hint}", InputWarning, stacklevel=stacklevel)
    return True


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


def _fmt_bool(v) -> str:
    return "True" if v else "False"


def _parse_rel(text) -> int:
    try:
        v = int(str(text).strip())
    except ValueError:
        raise ValueError(f"{text!r}: expected a relevance level >= 1") from None
    if v < 1:
        raise ValueError(f"{text!r}: expected a relevance level >= 1 (level 0 is judged nonrelevant)")
    return v


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
    family: str = ""                   # shown by `metaeval measures`; default: from the defining module
    source: str = ""                   # the reference it is exact to (program or paper); same default

    def param_def(self, key: str) -> Param:
        """The parameter ``key`` of this measure, or a generic one (:data:`GENERIC_PARAMS`)."""
        return self.params[key] if key in self.params else GENERIC_PARAMS[key]


#: defining module -> (family, source) shown by ``metaeval measures`` for measures that do not say
_MODULE_FAMILY = {
    "metaeval.metrics.ranked": ("ntcireval", "NTCIREVAL (Sakai 2011)"),
    "metaeval.metrics.diversity": ("diversity", "NTCIREVAL / TREC ndeval"),
    "metaeval.metrics.ndeval": ("diversity", "TREC ndeval"),
    "metaeval.kishida.measures": ("kishida", "Kishida (2005)"),
    "metaeval.metrics.irm": ("ir_measures", "ir_measures 0.4.3 providers"),
    "metaeval.treceval.adapter": ("trec_eval", "trec_eval 10.0"),
}


def family_of(d: MeasureDef) -> tuple[str, str]:
    """(family, source) of a measure definition."""
    fam, src = _MODULE_FAMILY.get(getattr(d.func, "__module__", ""), ("", ""))
    return d.family or fam or "other", d.source or src


def rel_param() -> Param:
    """``rel``: the binary relevance threshold (trec_eval ``-l``, ir_measures ``rel=``): documents
    judged below level ``rel`` count as nonrelevant.  Applied by :func:`metaeval.metrics.evaluate`
    (the implementation sees a context whose collection has the levels below ``rel`` made L0)."""
    return Param(1, _parse_rel, "relevance threshold: levels below it count as nonrelevant (trec_eval -l)")


#: parameters every measure takes, applied by :func:`metaeval.metrics.evaluate` before the
#: implementation is called: ``judged_only=True`` computes the measure on the condensed lists
#: (unjudged documents removed; NTCIREVAL ``-j``, trec_eval ``-J``, ir_measures ``judged_only``).
GENERIC_PARAMS: dict[str, Param] = {
    "judged_only": Param(False, parse_bool, "compute on the condensed list: unjudged documents removed "
                                            "(NTCIREVAL -j, trec_eval -J)", _fmt_bool),
}

# score standardisation: ``std=z|N|U|E`` on any measure -- the measure's matrix
# standardised per topic by the standardising runs' scores (metaeval.metrics.standardise, applied
# by metaeval.metrics.evaluate)
from .names import parse_std as _parse_std

GENERIC_PARAMS["std"] = Param(None, _parse_std, "score standardisation per topic: z (Webber et al. 2008), "
                                                "N, U (Sakai 2016) or E (Urbano et al. 2019)", str)

#: the vocabularies a measure name is read in: NTCIREVAL's (the canonical names) or ir_measures'
#: (trec_eval's meanings of nDCG@k, AP@k, ERR@k, ...).  Names that are not ambiguous read the same
#: in both; a canonical name reads as itself in "ntcireval".
VOCABULARIES = ("ntcireval", "ir_measures")


def default_vocabulary(order: str | None = None) -> str:
    """"ir_measures" for runs ranked by score (trec_eval's order), else "ntcireval"."""
    return "ir_measures" if order == "score" else "ntcireval"


def check_vocabulary(vocabulary: str | None, order: str | None = None) -> str:
    if vocabulary is None:
        return default_vocabulary(order)
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"vocabulary must be one of {', '.join(VOCABULARIES)}, got {vocabulary!r}")
    return vocabulary


class _Registry(dict):
    """``base name -> MeasureDef``, passive: the modules that define measures call :func:`register`
    when imported, and the first read runs the loaders the package root puts in
    :data:`metaeval._plugins.MEASURE_FAMILIES` (the one place that names those modules; the
    registry never imports them, which import it)."""

    _loaded = False

    def load(self) -> _Registry:
        if not self._loaded:
            type(self)._loaded = True            # first: the modules call register() while loading
            from .. import _plugins

            for load_family in _plugins.MEASURE_FAMILIES:
                load_family()
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
            s += "(" + ",".join(f"{k}={d.param_def(k).fmt(v)}" for k, v in self.params) + ")"
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
        return self.definition.param_def(key).default

    def __str__(self) -> str:
        return self.name


def _resolve_alias(base: str, cutoff: int | None) -> str:
    if base in ALIASES:
        target, when = ALIASES[base]
        if when == "any" or (when == "no-cutoff" and cutoff is None):
            return target
    return base


def split_names(text: str) -> list[str]:
    """Names separated by whitespace, a name's parentheses and quotes kept whole:
    ``"AP RBP(p=0.8, rel=2)"`` -> [``AP``, ``RBP(p=0.8, rel=2)``]."""
    out: list[Any] = []
    cur: list[Any] = []
    depth: int = 0
    quote: Any = None
    for ch in str(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif ch.isspace() and depth == 0:
            if cur:
                out.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def known_names(vocabulary: str = "ntcireval") -> list[str]:
    """Every measure base a name may start with: the registry's, its aliases and the ir_measures
    names (:mod:`metaeval.metrics.vocabulary`)."""
    from .vocabulary import IR_MEASURES

    return sorted(set(REGISTRY) | set(ALIASES) | set(IR_MEASURES))


def nearest_names(name: str, n: int = 3, vocabulary: str = "ntcireval") -> list[str]:
    """The ``n`` known names nearest to ``name`` (difflib's ratio, case-insensitive)."""
    import difflib

    low = name.lower()
    names: dict[Any, Any] = {}
    for k in sorted(known_names(vocabulary), key=lambda k: (k not in REGISTRY, k)):
        names.setdefault(k.lower(), k)                    # NDCG and nDCG: one suggestion
    scored = sorted(names.values(), key=lambda k: (-difflib.SequenceMatcher(None, low, k.lower()).ratio(), k))
    return scored[:n]


def vocabulary_table(examples=None) -> list[tuple[str, str, str, str]]:
    """Rows (name, canonical name in vocabulary ntcireval, in vocabulary ir_measures, provider)
    for the example names of ``docs/metrics.md``."""
    from .vocabulary import EXAMPLES, IR_MEASURES

    def canon(name, vocabulary):
        try:
            return parse_measure(name, vocabulary).name
        except ValueError:
            return "-"

    names = examples or EXAMPLES
    rows = []
    for n in names:
        e = IR_MEASURES.get(tokenize(n)[0])
        rows.append((n, canon(n, "ntcireval"), canon(n, "ir_measures"), e.provider if e else ""))
    return rows


def parse_measure(text: str | Measure, vocabulary: str | None = None) -> Measure:
    """Parse a measure name into its canonical :class:`Measure`; raises ``ValueError`` naming the problem.

    ``vocabulary`` ("ntcireval", the default, or "ir_measures") says what an ambiguous name means
    (``nDCG@10`` is NTCIREVAL's original nDCG or trec_eval's ``ndcg_cut``; see
    :mod:`metaeval.metrics.vocabulary`); names that are not ambiguous read the same in both.
    Aliases resolve to their canonical base, parameters at their default are dropped, a parameter
    given twice is an error; an unknown name gets the three nearest known names.
    """
    if isinstance(text, Measure):
        return text
    vocabulary = check_vocabulary(vocabulary)
    base, items, cutoff = tokenize(text)
    from .vocabulary import translate

    tr = translate(text, base, items, cutoff, vocabulary)
    if tr is not None:
        base, items, cutoff = tr
    return _build(text, base, items, cutoff, vocabulary)


def _build(text, base: str, items: list[tuple[str, str]], cutoff_text: str | None, vocabulary: str) -> Measure:
    cutoff = None
    if cutoff_text is not None:
        if not cutoff_text.isdigit():
            raise ValueError(f"measure {text!r}: the cutoff {cutoff_text!r} is not a positive integer")
        cutoff = int(cutoff_text)
    written = base
    base = _resolve_alias(base, cutoff)
    if base not in REGISTRY:
        if base.startswith("trec."):
            raise ValueError(f"measure {text!r}: {base} is a measure of the trec_eval family, which is not "
                             f"installed in this version")
        near = ", ".join(nearest_names(written, 3, vocabulary))
        raise ValueError(f"unknown measure {written!r} in {text!r}; did you mean {near}? "
                         f"(`metaeval measures` lists them all)")
    d = REGISTRY[base]
    if cutoff is not None and d.cutoff == "forbidden":
        raise ValueError(f"measure {text!r}: {base} takes no cutoff")
    if cutoff is None and d.cutoff == "required":
        raise ValueError(f"measure {text!r}: {base} needs a cutoff, e.g. {base}@10")
    if cutoff is not None and cutoff < 1:
        raise ValueError(f"measure {text!r}: cutoff must be >= 1")
    params: dict[str, Any] = {}
    for k, v in items:
        if k not in d.params and k not in GENERIC_PARAMS:
            allowed = ", ".join(sorted(set(d.params) | set(GENERIC_PARAMS)))
            raise ValueError(f"measure {text!r}: unknown parameter {k!r} (allowed: {allowed})")
        if k in params:
            raise ValueError(f"measure {text!r}: parameter {k!r} given twice")
        try:
            params[k] = d.param_def(k).parse(v) if isinstance(v, str) else v
        except ValueError as e:
            raise ValueError(f"measure {text!r}: parameter {k}: {e}") from None
    # a parameter at its default is the measure without it: one name per measure
    params = {k: v for k, v in params.items() if not _is_default(v, d.param_def(k).default)}
    return Measure(base, cutoff, tuple(sorted(params.items())))


def _is_default(value: Any, default: Any) -> bool:
    if default is None:
        return value is None
    try:
        return bool(value == default)
    except (TypeError, ValueError):       # e.g. array-valued parameters
        return False


def unique_measures(names, *, where: str = "measures", warn: bool = True, stacklevel: int = 2,
                    vocabulary: str | None = None) -> list[Measure]:
    """Parse ``names`` and keep the first of every canonical measure, in order.

    Two spellings of the same measure (``Q`` and ``Q-measure(beta=1)``, ``PDoc@10`` and ``Prec@10``)
    yield one measure; with ``warn`` an :class:`metaeval.errors.InputWarning` names them.
    """
    import warnings

    from ..errors import InputWarning

    first: dict[Measure, str] = {}
    out: list[Measure] = []
    for name in names:
        m = parse_measure(name, vocabulary)
        spelled = name.name if isinstance(name, Measure) else str(name).strip()
        if m in first:
            if warn:
                warnings.warn(f"{where}: {spelled!r} is the same measure as {first[m]!r} (canonical name "
                              f"{m.name}); computed once", InputWarning, stacklevel=stacklevel)
            continue
        first[m] = spelled
        out.append(m)
    return out
