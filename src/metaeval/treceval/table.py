"""The measure table: one row per trec_eval measure (``measures.c``'s ``te_trec_measures``), each
row registered with its function by :func:`measure` (``measures.py``), in trec_eval's printing
order; the nicknames (``-m official``, ``set``, ``all_trec``) and :class:`Spec`, a requested
measure with its parameters."""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable

__all__ = ["MeasureInfo", "MEASURES", "NICKNAMES", "PREFERENCE_SETS", "Spec", "TrecEvalError", "measure",
           "MIN_GEO_MEAN", "INFAP_EPSILON", "MISSING_ZSCORE_VALUE", "empty_zeroed", "zeroed_when_empty",
           "LONG9", "ELEVEN"]

MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001
MISSING_ZSCORE_VALUE = -1000000.0
LONG9 = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
ELEVEN = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


class TrecEvalError(ValueError):
    """A measure request trec_eval refuses (message = trec_eval's reason)."""


@dataclass(frozen=True)
class MeasureInfo:
    """A measure's row: ``kind`` its parameters (``"s"`` none, ``"cut_long"`` / ``"cut_double"``
    cutoffs, ``"p_double"`` numbers, ``"p_pair"`` ``name=value`` pairs), ``printing`` (``"double"``,
    ``"long"``, ``"none"``: summary only, ``"relstring"``, ``"runid"``), ``aggregate`` (``"mean"``,
    ``"sum"``, ``"gm"``, ``"num_q"``, ``"num_rel"``, ``"none"``, ``"runid"``), ``default`` (its
    default cutoffs or numbers), ``gained`` (reads the gain map: level -1 can count),
    ``empty_zeroed`` (trec_eval.c l. 419 sets it to 0 on a topic evaluated as an empty ranking, after
    computing it: ``"name"`` when its printed name is the bare name -- ``strcmp``, so
    ``utility_3,-2,1,0.5`` is not zeroed --, ``"prefix"`` every value -- ``strncmp``, ``unj_5``),
    ``bounded`` (values in [0, 1]), ``params`` (the registry's parameters of ``trec.NAME``:
    ``(name, default, type, help)``), ``func`` (the values of one bucket of rows)."""
    name: str
    kind: str
    printing: str
    aggregate: str
    default: tuple = ()
    gained: bool = False
    empty_zeroed: str = ""
    bounded: bool = True
    params: tuple = ()
    func: Callable | None = field(default=None, compare=False, repr=False)


#: every measure, in trec_eval's printing order (filled by :func:`measure`, ``measures.py``)
MEASURES: dict[str, MeasureInfo] = {}


def measure(name: str, kind: str = "s", printing: str = "double", aggregate: str = "mean",
            default: tuple = (), **props):
    """Register the decorated ``func(rows, spec) -> [values (m,)]`` as measure ``name`` with its
    table row (see :class:`MeasureInfo`)."""
    def deco(func):
        if name in MEASURES:
            raise ValueError(f"trec_eval measure {name!r} registered twice")
        MEASURES[name] = MeasureInfo(name, kind, printing, aggregate, tuple(default), func=func, **props)
        return func
    return deco


NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
                 "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
                 "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
}
PREFERENCE_SETS = ("all_prefs", "prefs", "qrels_jg")


def empty_zeroed() -> tuple:
    """The measures trec_eval zeroes on a topic evaluated as an empty ranking (-c)."""
    return tuple(n for n, m in MEASURES.items() if m.empty_zeroed)


def zeroed_when_empty(printed: str, info: MeasureInfo) -> bool:
    """Whether trec_eval zeroes the value printed as ``printed`` on an empty ranking (-c)."""
    return info.empty_zeroed == "prefix" or (info.empty_zeroed == "name" and printed == info.name)


@dataclass(frozen=True)
class Spec:
    """One requested measure with its parameters: ``values`` (cutoffs or numbers), ``pairs``
    (``name=value`` gain/parameter pairs), ``printable`` (the parameter text, or None)."""
    name: str
    values: tuple = ()
    pairs: tuple = ()
    printable: str | None = None

    @property
    def info(self) -> MeasureInfo:
        return MEASURES[self.name]

    def names(self) -> list[str]:
        """The printed names of the values (``meas_init.c``: ``append_long`` / ``append_double`` /
        ``append_string``)."""
        k = self.info.kind
        if k == "cut_long":
            return [f"{self.name}_{int(c)}" for c in self.values]
        if k == "cut_double":
            return [f"{self.name}_{c:3.2f}" for c in self.values]
        if k in ("p_double", "p_pair") and self.printable is not None:
            return [f"{self.name}_{self.printable}"]
        return [self.name]
