"""The C/W/L measures in the registry, as ``cwl.NAME`` (``cwl.INST(T=3)``, ``cwl.RBP(p=0.8)``,
``cwl.NDCG@10``, ...): a collection's rankings as cwl_eval sees them, one quantity of one metric
(EU by default, ``quantity=`` any other) computed in cwl_eval's exact order.  Loaded by the
registry (imported by ``metaeval._measure_families`` on the registry's first use)."""

from __future__ import annotations

import math

import numpy as np

from . import dot as cwl_dot
from .measures import QUANTITIES, SPECS, CwlMetric, CwlRankings, CwlSpec, _weights

__all__ = ["cwl_measure", "cwl_quantity"]


def _context_rankings(ctx, depth: int) -> CwlRankings:
    """The collection's rankings as cwl_eval sees them: gain = configured gain of the level / gain
    of the highest level, NaN (unjudged) for unjudged documents and past the end of a list, unit
    costs, depth ``depth``."""
    key = ("cwl-rankings", int(depth))

    def make():
        lv = ctx.levels
        R, T, D = lv.shape
        gmax = ctx.max_gain
        table = ctx.gain_of_level / gmax if gmax > 0 else np.zeros_like(ctx.gain_of_level)
        g = np.full((R * T, depth), np.nan)
        m = min(D, depth)
        part = lv[:, :, :m].reshape(R * T, m)
        judged = part >= 0
        g[:, :m][judged] = table[part[judged].astype(np.intp)]
        counts = ctx.collection.level_counts
        positive = (table > 0.0)[: counts.shape[1]]
        rels = (counts * positive[None, :]).sum(axis=1).astype(np.float64)      # (T,)
        return CwlRankings(g, None, np.tile(rels, R), max_gain=1.0, min_gain=0.0)
    return ctx.cached(key, make)


def cwl_quantity(rankings: CwlRankings, metric: CwlMetric, quantity: str = "EU") -> np.ndarray:
    """(B,) one quantity of one metric, in cwl_eval's exact order: only the dot product it needs
    (the value equals ``cwl_scores(...)[quantity]`` bit for bit)."""
    def make():
        q = QUANTITIES.index(quantity) % 5
        cases = [rankings.case(True)] + ([rankings.case(False)] if quantity.startswith("Res") else [])
        vals = []
        for case in cases:
            w, L = _weights(case, metric)
            if q == 4:
                with np.errstate(divide="ignore"):
                    vals.append(1.0 / w[:, 0])
            else:
                x, y = ((w, case.g), (L, case.cg), (w, case.k), (L, case.cc))[q]
                vals.append(cwl_dot.dots([(x, y)])[0])
        with np.errstate(invalid="ignore"):
            return vals[0] if len(vals) == 1 else vals[1] - vals[0]
    return rankings.cached(("quantity", metric, quantity), make)


def cwl_measure(ctx, spec: CwlSpec, values: tuple, quantity: str = "EU", depth: int = 1000) -> np.ndarray:
    """(runs, topics) matrix of one quantity of a C/W/L measure on an EvalContext."""
    R, T = len(ctx.collection.runs), len(ctx.collection.topics)
    rk = _context_rankings(ctx, depth)
    return cwl_quantity(rk, CwlMetric(spec, tuple(values)), quantity).reshape(R, T)


def _quantity(text: str) -> str:
    t = str(text).strip()
    for q in QUANTITIES:
        if t.lower() == q.lower():
            return q
    raise ValueError(f"{text!r}: expected one of {', '.join(QUANTITIES)}")


def _positive_int(text: str) -> int:
    v = int(text)
    if v < 1:
        raise ValueError(f"{text!r}: expected a positive integer")
    return v


def _number(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"{text!r}: expected a finite number")
    return v


#: registry parameter names where they differ from cwl_eval's (``RBP(p=...)`` as elsewhere here)
_REG_PARAM = {("RBP", "theta"): "p"}
#: defaults for the parameters cwl_eval requires (the values of cwl_eval's own test metrics file)
_REG_DEFAULT = {("IFT-C1", "T"): 2.0, ("IFT-C1", "b1"): 0.9, ("IFT-C1", "R1"): 10.0,
                ("IFT-C2", "A"): 0.2, ("IFT-C2", "b2"): 0.9, ("IFT-C2", "R2"): 10.0,
                ("IFT-C1-C2", "T"): 2.0, ("IFT-C1-C2", "b1"): 0.9, ("IFT-C1-C2", "R1"): 10.0,
                ("IFT-C1-C2", "A"): 0.2, ("IFT-C1-C2", "b2"): 0.9, ("IFT-C1-C2", "R2"): 10.0}


def _register_all() -> None:
    from ..metrics.registry import MeasureDef, Param, format_gains, parse_gains, register

    common = {
        "gains": Param(None, parse_gains, "gain values for L1..LH (overrides the collection default); "
                                          "cwl gain = gain / gain of LH", format_gains),
        "quantity": Param("EU", _quantity, "EU (default), ETU, EC, ETC, ED or a residual ResEU..ResED",
                          str),
        "depth": Param(1000, _positive_int, "ranks the user model runs over (cwl_eval --max_depth)"),
    }
    for spec in SPECS:
        params = {}
        for p, dflt in zip(spec.params, spec.defaults):
            if p == spec.cutoff:
                continue
            default = _REG_DEFAULT.get((spec.base, p), dflt)
            parse = _positive_int if p == "k" else _number
            params[_REG_PARAM.get((spec.base, p), p)] = Param(float(default) if p != "k" else int(default),
                                                               parse, f"cwl_eval's {p}")
        params.update(common)

        def func(ctx, cutoff=None, quantity="EU", depth=1000, _spec=spec, **kw):
            vals = []
            for p in _spec.params:
                if p == _spec.cutoff:
                    vals.append(int(cutoff))
                else:
                    vals.append(kw[_REG_PARAM.get((_spec.base, p), p)])
            return cwl_measure(ctx, _spec, tuple(vals), quantity, depth)

        cutoff = "required" if spec.cutoff else "forbidden"
        register(MeasureDef("cwl." + spec.base, func, cutoff, params, bounded=False,
                            doc=f"C/W/L {spec.base} as cwl_eval's {spec.cls} ({spec.paper}); value: EU"))


_register_all()
