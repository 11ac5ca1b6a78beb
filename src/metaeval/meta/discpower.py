"""Discriminative power as practised since 2012: randomised Tukey HSD, two-way ANOVA, effect sizes,
classical paired tests with multiple-comparison control, and topic set size design.

:func:`stage_discpower` is the stage entry point (pure computation, ``{table: DataFrame}`` in the
output contract's columns): ``anova``, ``pvalues``, ``discriminative_power`` and
``topic_set_size``.  :func:`discpower_text` renders the Discpower-compatible text form of one
metric.  The methods live in :mod:`.anova`, :mod:`.rthsd`, :mod:`.pairtests` and
:mod:`.topicset`; docs/meta.md describes each with its reference and conventions.

Pairs: ``X < Y`` in run order (row-major upper triangle), exactly the order and orientation of the
bootstrap ASL table; ``diff = mean(X) - mean(Y)``, ``effect_size = diff / sqrt(V_E)``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ._validate import as_scores, check_alpha, check_B
from .anova import ANOVA_COLUMNS, two_way_anova
from .pairtests import adjust, effect_size, paired_t, sign_test, tukey_hsd, wilcoxon
from .rthsd import DEFAULT_RTHSD_B, rthsd_many
from .statistics import pair_indices
from .topicset import TSS_COLUMNS, topic_set_size

__all__ = ["stage_discpower", "discpower_text", "discpower_texts", "discpower_pvalues", "discriminative_power",
           "discriminative_power_wide", "pvalue_summary", "PVALUE_LEVELS", "TESTS", "PVALUE_COLUMNS",
           "DISCPOWER_COLUMNS", "ANOVA_COLUMNS", "TSS_COLUMNS", "ASL_TESTS", "DEFAULT_TSS_BETA",
           "DEFAULT_TSS_MIN_DIFF", "DEFAULT_TSS_SYSTEMS"]

TESTS = ("rthsd", "tukey-hsd", "paired-t", "paired-t-holm", "paired-t-bh", "wilcoxon", "sign",
         "paired-bootstrap", "unpaired-bootstrap")
#: the ``test`` values of the bootstrap ASL table and their names here
ASL_TESTS = {"paired": "paired-bootstrap", "unpaired": "unpaired-bootstrap"}
PVALUE_COLUMNS = ["metric", "test", "system_x", "system_y", "diff", "effect_size", "p_value"]
DISCPOWER_COLUMNS = ["metric", "test", "alpha", "pairs", "significant", "share"]
DEFAULT_TSS_BETA = 0.20
DEFAULT_TSS_MIN_DIFF = (0.05, 0.10)
#: "runs" stands for the number of runs of the collection
DEFAULT_TSS_SYSTEMS = (2, 10, "runs")


def discpower_pvalues(scores, *, metric: str = "", B: int = DEFAULT_RTHSD_B, seed: int = 0,
                      batch: int | None = None, rthsd_result=None) -> tuple[dict, pd.DataFrame]:
    """``(anova row dict, pvalues DataFrame)`` of one metric without the bootstrap rows.

    ``rthsd_result``: a precomputed :func:`metaeval.meta.rthsd.rthsd` tuple (shared permutations);
    computed here when ``None``.
    """
    s = as_scores(scores, metric)
    X = s.values
    n, m = X.shape
    av = two_way_anova(s, metric)
    ia, ib = pair_indices(m)
    means = X.mean(axis=0)
    diff = means[ia] - means[ib]
    es = effect_size(diff, av.V_E)
    D = X[:, ia] - X[:, ib]
    if rthsd_result is None:
        rthsd_result = rthsd_many([s], B=B, seed=seed, batch=batch)[0]
    p_rthsd = rthsd_result[3]
    _, p_t = paired_t(D)
    tests = {
        "rthsd": p_rthsd,
        "tukey-hsd": tukey_hsd(diff, av.V_E, n, m),
        "paired-t": p_t,
        "paired-t-holm": adjust(p_t, "holm"),
        "paired-t-bh": adjust(p_t, "bh"),
        "wilcoxon": wilcoxon(D),
        "sign": sign_test(D),
    }
    sx = [s.runs[i] for i in ia]
    sy = [s.runs[j] for j in ib]
    frames = [pd.DataFrame({"metric": metric, "test": t, "system_x": sx, "system_y": sy, "diff": diff,
                            "effect_size": es, "p_value": np.asarray(p, dtype=np.float64)})
              for t, p in tests.items()]
    return dict(zip(ANOVA_COLUMNS, av.row(metric))), pd.concat(frames, ignore_index=True)


def _asl_rows(asl: pd.DataFrame, metric: str, base: pd.DataFrame) -> list[pd.DataFrame]:
    """The bootstrap rows of one metric, in ``base``'s pair order (``base`` = one test's rows)."""
    out = []
    sub = asl[asl["metric"] == metric]
    for test, name in ASL_TESTS.items():
        t = sub[sub["test"] == test]
        if not len(t):
            continue
        vals = _pair_lookup(t, base, metric, test)
        if len(t) != len(base):
            raise ValueError(f"{metric}: the {test} ASL table has {len(t)} pairs, expected {len(base)}")
        out.append(base.assign(test=name, p_value=np.asarray(vals, dtype=np.float64)))
    return out


def _pair_lookup(t: pd.DataFrame, base: pd.DataFrame, metric: str, test: str) -> np.ndarray:
    """The ``asl`` of ``t`` at every pair of ``base`` (found as X/Y or as Y/X: ASLs are symmetric
    in the pair; a repeated pair: its last row), by one hash join over all pairs."""
    tx, ty = (t[c].astype(str).to_numpy(dtype=object) for c in ("system_x", "system_y"))
    bx, by = (base[c].to_numpy(dtype=object) for c in ("system_x", "system_y"))
    keys = pd.MultiIndex.from_arrays([tx, ty])
    last = ~keys.duplicated(keep="last")
    keys, asl = keys[last], t["asl"].astype(float).to_numpy()[last]
    i = keys.get_indexer(pd.MultiIndex.from_arrays([bx, by])) if len(bx) else np.zeros(0, np.intp)
    j = keys.get_indexer(pd.MultiIndex.from_arrays([by, bx])) if len(bx) else np.zeros(0, np.intp)
    k = np.where(i >= 0, i, j)
    if (k < 0).any():
        x, y = bx[int(np.flatnonzero(k < 0)[0])], by[int(np.flatnonzero(k < 0)[0])]
        raise ValueError(f"{metric}: the {test} ASL table has no row for the pair {x} / {y}")
    return asl[k]


def _systems_list(tss_systems: Iterable, m: int) -> list[int]:
    out = []
    for v in tss_systems:
        k = m if v in ("runs", None) else int(v)
        if k < 2:
            raise ValueError(f"topic set size: systems must be >= 2, got {v}")
        if k not in out:
            out.append(k)
    return out


def stage_discpower(matrices: dict, metrics: list[str] | None = None, *, alpha: float = 0.05, seed: int = 0,
                    B_r: int = DEFAULT_RTHSD_B, tss_beta: float = DEFAULT_TSS_BETA,
                    tss_min_diff: Iterable[float] = DEFAULT_TSS_MIN_DIFF,
                    tss_systems: Iterable = DEFAULT_TSS_SYSTEMS, batch: int | None = None,
                    asl: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """The four discriminative-power tables for ``metrics`` (default: every matrix, in order).

    ``matrices``: ``{metric: topic x run DataFrame}`` (the same runs, in the order the ASL table
    used).  ``asl``: the bootstrap ASL table (``metric, test, system_x, system_y, asl`` with
    ``test`` in ``paired``/``unpaired``) whose rows become the ``paired-bootstrap`` and
    ``unpaired-bootstrap`` tests; metrics or tests missing from it are simply absent.
    ``tss_systems``: integers and/or ``"runs"`` (the number of runs).  Returns ``{"anova",
    "pvalues", "discriminative_power", "topic_set_size"}``.
    """
    alpha = check_alpha(alpha)
    B_r = check_B(B_r)
    if not 0 < float(tss_beta) < 1:
        raise ValueError(f"tss_beta must lie in (0, 1), got {tss_beta}")
    min_diffs = [float(d) for d in tss_min_diff]
    if any(not d > 0 for d in min_diffs):
        raise ValueError(f"tss_min_diff values must be positive, got {min_diffs}")
    metrics = list(matrices) if metrics is None else list(metrics)
    missing = [m for m in metrics if m not in matrices]
    if missing:
        raise ValueError(f"no matrix for metric(s) {', '.join(map(repr, missing))} "
                         f"(have: {', '.join(sorted(matrices))})")
    scores = [as_scores(matrices[m], m) for m in metrics]
    rt = rthsd_many(scores, B=B_r, seed=seed, batch=batch)
    anova_rows, pv, tss = [], [], []
    for m, s, r in zip(metrics, scores, rt):
        row, p = discpower_pvalues(s, metric=m, B=B_r, seed=seed, rthsd_result=r)
        if asl is not None and len(asl):
            p = pd.concat([p, *_asl_rows(asl, m, p[p["test"] == "rthsd"])], ignore_index=True)
        anova_rows.append(row)
        pv.append(p)
        VE = row["V_E"]
        for d in min_diffs:
            tss.append([m, "paired-t", alpha, float(tss_beta), d, 2, VE,
                        topic_set_size("paired-t", variance=VE, min_diff=d, alpha=alpha, beta=tss_beta)])
            for k in _systems_list(tss_systems, s.n_runs):
                tss.append([m, "anova", alpha, float(tss_beta), d, k, VE,
                            topic_set_size("anova", variance=VE, min_diff=d, alpha=alpha, beta=tss_beta,
                                           systems=k)])
    pvalues = (pd.concat(pv, ignore_index=True) if pv else pd.DataFrame(columns=PVALUE_COLUMNS))[PVALUE_COLUMNS]
    return {"anova": pd.DataFrame(anova_rows, columns=ANOVA_COLUMNS),
            "pvalues": pvalues,
            "discriminative_power": discriminative_power(pvalues, alpha),
            "topic_set_size": pd.DataFrame(tss, columns=TSS_COLUMNS)}


_NONE = np.zeros(0, np.float64)


def _pvalue_groups(pvalues: pd.DataFrame) -> tuple[list, dict]:
    """The metrics of the long ``pvalues`` table in first-appearance order, and ``{(metric, test):
    its p-values in table order}``: one sort of the table instead of a scan per metric and test."""
    mc, mu = pd.factorize(pvalues["metric"], sort=False)
    tc, tu = pd.factorize(pvalues["test"], sort=False)
    p = pvalues["p_value"].to_numpy(dtype=np.float64)
    order = np.lexsort((tc, mc))                    # stable: table order within a group
    key = mc[order].astype(np.int64) * max(1, len(tu)) + tc[order]
    cut = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.intp)
    ends = np.r_[cut[1:], len(key)]
    mu, tu = list(mu), list(tu)
    groups = {(mu[mc[order[a]]], tu[tc[order[a]]]): p[order[a:b]] for a, b in zip(cut.tolist(), ends.tolist())}
    return mu, groups


def discriminative_power(pvalues: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """``metric, test, alpha, pairs, significant, share`` (significant: ``p < alpha`` strictly),
    metrics in first-appearance order, tests in :data:`TESTS` order."""
    rows = []
    metrics, groups = _pvalue_groups(pvalues)
    for m in metrics:
        for t in TESTS:
            p = groups.get((m, t), _NONE)
            if p.size:
                k = int((p < alpha).sum())
                rows.append([m, t, float(alpha), int(p.size), k, k / p.size])
    return pd.DataFrame(rows, columns=DISCPOWER_COLUMNS)


def discpower_text(pvalues: pd.DataFrame, metric: str, test: str = "rthsd") -> str:
    """The Discpower-compatible text of one metric: one line ``RUN_X RUN_Y ABSDIFF PVALUE`` per pair
    (pairs in table order, values in Python's shortest round-trip form), what ``pvalues/METRIC.rthsd.B``
    holds."""
    sub = pvalues[(pvalues["metric"] == metric) & (pvalues["test"] == test)]
    if not len(sub):
        raise ValueError(f"no {test} p-values for metric {metric!r}")
    return _pair_lines(sub, np.arange(len(sub)))


def _pair_lines(sub: pd.DataFrame, rows: np.ndarray) -> str:
    """The lines ``RUN_X RUN_Y ABSDIFF PVALUE`` of the rows ``rows`` (positions) of ``sub``."""
    xs, ys = sub["system_x"].to_numpy(dtype=object)[rows], sub["system_y"].to_numpy(dtype=object)[rows]
    ds = np.abs(sub["diff"].to_numpy(dtype=np.float64)[rows]).tolist()
    ps = sub["p_value"].to_numpy(dtype=np.float64)[rows].tolist()
    return "\n".join([f"{x} {y} {d!r} {p!r}" for x, y, d, p in zip(xs.tolist(), ys.tolist(), ds, ps)]) + "\n"


def discpower_texts(pvalues: pd.DataFrame, test: str = "rthsd") -> dict[str, str]:
    """``{metric: discpower_text(...)}`` for every metric with ``test`` rows (metrics in table order);
    the table is split by metric once (one comparison of its columns, not one per metric)."""
    sub = pvalues[(pvalues["test"] == test).to_numpy()]
    codes, metrics = pd.factorize(sub["metric"].to_numpy(dtype=object))      # first-appearance order
    order = np.argsort(codes, kind="stable")
    cuts = np.searchsorted(codes[order], np.arange(len(metrics) + 1))
    return {str(m): _pair_lines(sub, order[cuts[i]:cuts[i + 1]]) for i, m in enumerate(metrics)}


def discriminative_power_wide(dp: pd.DataFrame) -> pd.DataFrame:
    """The Markdown layout's content: metrics x tests, each cell ``significant/pairs = N%`` (share
    rounded to a whole percent), tests in :data:`TESTS` order, metrics in table order."""
    tests = [t for t in TESTS if t in set(dp["test"])]
    metrics = list(dict.fromkeys(dp["metric"]))
    out = pd.DataFrame("", index=pd.Index(metrics, name="metric"), columns=tests)
    for r in dp.itertuples(index=False):
        out.loc[r.metric, r.test] = f"{r.significant}/{r.pairs} = {100 * r.share:.0f}%"
    return out


#: the significance levels of :func:`pvalue_summary` (the Markdown/LaTeX form of ``pvalues``)
PVALUE_LEVELS = (0.01, 0.05, 0.10)


def pvalue_summary(pvalues: pd.DataFrame, levels: Iterable[float] = PVALUE_LEVELS) -> pd.DataFrame:
    """One row per metric and test of the long ``pvalues`` table: ``metric, test, pairs``, the
    number of pairs with ``p < level`` for every level (columns ``p<0.01`` ...), and the median
    p-value.  Metrics in table order, tests in :data:`TESTS` order (unknown tests after them)."""
    levels = [float(v) for v in levels]
    cols = ["metric", "test", "pairs"] + [f"p<{v:g}" for v in levels] + ["median_p"]
    rows = []
    present = list(pd.unique(pvalues["test"]))                 # first-appearance order
    known = [t for t in TESTS if t in present]
    tests = known + [t for t in present if t not in known]
    metrics, groups = _pvalue_groups(pvalues)
    for m in metrics:
        for t in tests:
            p = groups.get((m, t), _NONE)
            if p.size:
                rows.append([m, t, int(p.size)] + [int((p < v).sum()) for v in levels]
                            + [float(np.median(p))])
    return pd.DataFrame(rows, columns=cols)
