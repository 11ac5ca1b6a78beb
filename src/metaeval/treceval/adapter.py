"""The trec_eval measures in the registry, as ``trec.NAME`` (every measure of the table but
``runid`` and ``relstring``): each measure's registry parameters, ``bounded`` and
``empty_zeroed`` come from its table row (:mod:`.measures`), ``rel=`` (trec_eval ``-l``) is common
to all.  Loaded by the registry (``metaeval.metrics.registry.MEASURE_MODULES``)."""

from __future__ import annotations

import numpy as np

from ..collection import PAD as _PAD
from ..metrics.registry import MeasureDef, Param, register
from .engine import PAD_REL, _Ctx, compute_ctx
from .table import ELEVEN, MEASURES, Spec

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


def _measure_func(name):
    def func(ctx, cutoff, rel=1, judged_only=False, **params):
        c, missing = _trec_ctx(ctx, rel, judged_only)
        info = MEASURES[name]
        if info.kind == "cut_long":
            spec = Spec(name, (int(cutoff),), (), str(cutoff))
        elif name == "iprec_at_recall":
            spec = Spec(name, (float(params["recall"]),), (), "x")
            c = c if params.get("version", 10) == 10 else _Ctx(c.rel, c.num_ret, c.rel_levels, c.rl, 0, 9)
        elif name == "11pt_avg":
            c = c if params.get("version", 10) == 10 else _Ctx(c.rel, c.num_ret, c.rel_levels, c.rl, 0, 9)
            spec = Spec(name, ELEVEN)
        elif name == "Rprec_mult":
            spec = Spec(name, (float(params["mult"]),), (), "x")
        elif name == "utility":
            spec = Spec(name, (params["a"], params["b"], params["c"], params["d"]), (), "x")
        elif name == "set_F":
            spec = Spec(name, (params["beta"],), (), "x")
        elif info.kind == "p_pair":
            pairs = _pairs(params.get("gain_map"))
            if name in ("rbp", "rbp_resid"):
                pairs = pairs + (("p", params["p"]),)
            spec = Spec(name, (), pairs, "x" if pairs else None)
        else:
            spec = Spec(name)
        vals = compute_ctx(c, [spec])
        out = vals[0][2]
        if name in ("gm_map", "gm_bpref"):
            out = compute_ctx(c, [Spec("map" if name == "gm_map" else "bpref")])[0][2]
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


_TYPES = {"float": float, "str": str, "version": _ver}


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
