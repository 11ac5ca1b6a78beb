"""The trec_eval measures in the registry, as ``trec.NAME`` (every measure of the table but
``runid`` and ``relstring``): each measure's registry parameters, ``bounded`` and
``empty_zeroed`` come from its table row (:mod:`.measures`), ``rel=`` (trec_eval ``-l``) is common
to all.  Imported by ``metaeval._measure_families`` on the registry's first use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..collection import PAD as _PAD
from ..metrics.registry import MeasureDef, Param, register
from .engine import PAD_REL, _Ctx, compute_ctx
from .table import MEASURES, Spec

__all__: list[str] = []


def _trec_ctx(ectx, rel, judged_only):
    """The trec_eval arrays of an :class:`EvalContext`'s collection (cached on it)."""
    key = ("trec_eval", int(rel), bool(judged_only))

    def make():
        c = ectx.collection
        if judged_only:
            c = c.condensed()
        lv = c.levels.astype(np.int32)
        lv = np.where(lv == _PAD, PAD_REL, lv)           # UNJUDGED (-1) is trec_eval's NONPOOL
        n = c.lengths.astype(np.int64)
        # an empty list is evaluated as trec_eval -c evaluates a topic missing from the run: one
        # document outside the pool (trec_eval.c's bogus ranking); counts are zeroed afterwards
        missing = ectx.collection.lengths == 0
        if missing.any():
            lv = lv.copy()
            lv[..., 0] = np.where(missing, -1, lv[..., 0])
            n = np.where(missing, 1, n)
        return _Ctx(lv, n, c.level_counts.astype(np.int64), rel, 0, 10), missing
    return ectx.cached(key, make)


def _pairs(text) -> tuple:
    if not text:
        return ()
    out = []
    for item in str(text).split(":"):
        k, _, v = item.partition("=")
        out.append((k, float(v)))
    return tuple(out)


def _spec(info, cutoff, params) -> Spec:
    """The :class:`Spec` of a registry call, from the row: a cutoff (``cut_long``), the row's float
    parameters in order as the values (``cut_double``, ``p_double``; the defaults without any) or
    after ``gain_map``'s pairs (``p_pair``)."""
    name = info.name
    if info.kind == "cut_long":
        return Spec(name, (int(cutoff),), (), str(cutoff))
    floats = tuple((p, float(params[p])) for p, _, t, _ in info.params if t == "float")
    if info.kind == "p_pair":
        pairs = _pairs(params.get("gain_map")) + floats
        return Spec(name, (), pairs, "x" if pairs else None)
    if info.kind in ("cut_double", "p_double"):
        vals = tuple(v for _, v in floats)
        return Spec(name, vals, (), "x") if vals else Spec(name, info.default)
    return Spec(name)


def _measure_func(name):
    info = MEASURES[name]
    # the registry's per-topic values of a geometric mean are its base measure's (AP, bpref):
    # aggregate() takes the logarithms
    base = MEASURES[name[len("gm_"):]] if info.aggregate == "gm" else info

    def func(ctx, cutoff, rel=1, judged_only=False, **params):
        c, missing = _trec_ctx(ctx, rel, judged_only)
        if params.get("version", 10) != 10:                # trec_eval 9.0.x's recall cutoffs
            c = _Ctx(c.rel, c.num_ret, c.rel_levels, c.rl, 0, 9)
        out = compute_ctx(c, [_spec(base, cutoff, params)])[0][2]
        if info.empty_zeroed:
            out = np.where(missing, 0.0, out)
        # trec_eval's 0/0 on an empty ranking (-J with no judged document) prints nan; 0 here
        return np.where(np.isnan(out), 0.0, out)
    return func


def _ver(s):
    v = int(s)
    if v not in (9, 10):
        raise ValueError("trec_eval version 9 or 10")
    return v


_TYPES: dict[str, Callable[[str], Any]] = {"float": float, "str": str, "version": _ver}


def _register():
    # rel= (trec_eval -l) is applied by func itself (the graded measures keep their gains); the
    # generic judged_only=True (-J) by metrics.evaluate (EvalContext.view: the condensed lists)
    common = {"rel": Param(1, int, "relevance threshold: levels >= rel are relevant (trec_eval -l)")}
    for name, info in MEASURES.items():
        if name in ("runid", "relstring"):
            continue
        params = {**common, **{p: Param(d, _TYPES[t], h) for p, d, t, h in info.params}}
        register(MeasureDef(f"trec.{name}", _measure_func(name),
                            cutoff="required" if info.kind == "cut_long" else "forbidden",
                            params=params, bounded=info.bounded,
                            doc=f"trec_eval 10.0's {name} (m_{name}.c); summary: {info.aggregate}"))


_register()
