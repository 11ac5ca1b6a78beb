"""Running work on every core by forking: the one home of metaeval's process parallelism.

``metaeval meta`` shards its metrics over the cores (:func:`sharded_stage_runner`), writes its
tables (:func:`fork_map`) and draws its figures (``metaeval.pipeline.write_figures``) in forked
processes; ``metaeval stage`` runs stage groups side by side (:func:`stage_groups`).  Forked
workers inherit what they read (tables of millions of rows are not pickled; only results come
back), hold no garbage-collector references to the parent's pages (:func:`frozen_gc`) and end with
their parent (:func:`die_with_parent`; every pool is :func:`metaeval.workers.process_pool`).  Every row of every table depends on its own metric and the
seed-derived samples only, so the results are the same bytes as in one process.

Importing this module is cheap (no numpy or pandas until a function needs them).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence

from .workers import die_with_parent, pool_map, process_pool

__all__ = ["available_cores", "frozen_gc", "fork_map", "die_with_parent", "process_pool", "pool_map", "deal",
           "stage_groups", "sharded_stage_runner", "concat_parts", "reuse_freed_memory", "release_freed_memory"]


def available_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):          # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: the function :func:`fork_map` runs, set before the fork (inherited with what it reads: not pickled)
_FORKED: Callable | None = None


def _call_forked(i: int):
    assert _FORKED is not None                 # set by fork_map before the fork
    return _FORKED(i)


def fork_map(func: Callable[[int], object], n: int) -> list:
    """``[func(0), ..., func(n - 1)]``: ``func(0)`` in this process, the others in processes forked
    from it, which inherit ``func`` and everything it reads (tables of millions of rows are not
    pickled; only the results come back)."""
    global _FORKED
    if n <= 1 or not hasattr(os, "fork"):
        return [func(i) for i in range(n)]
    _FORKED = func
    try:
        with frozen_gc(), process_pool(n - 1) as pool:
            futures = [pool.submit(_call_forked, i) for i in range(1, n)]
            first = func(0)
            return [first] + [f.result() for f in futures]
    finally:
        _FORKED = None


def deal(costs: Mapping[str, float], jobs: int) -> list[list[str]]:
    """The keys of ``costs`` dealt into at most ``jobs`` groups, the costliest to the least loaded."""
    groups: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(costs))))]
    load = [0.0] * len(groups)
    for k in sorted(costs, key=lambda k: -costs[k]):
        i = load.index(min(load))
        groups[i].append(k)
        load[i] += costs[k]
    return [g for g in groups if g]


def sharded_stage_runner(jobs: int):
    """A ``stage_runner`` for :func:`metaeval.meta.run.run_meta` on ``jobs`` processes
    (:func:`fork_map`): the metrics are cut into ``jobs`` contiguous shards and each process runs
    every per-metric stage and the discriminative-power stage on its shard (with the ``AG_``/``G_``
    variants of its metrics), the cross-metric stages (Kendall, rank correlations, gain sweep) whole
    in one of them; each table's rows are then put back in the one-process order (by metric, the
    bootstrap tables sorted by sensitivity).  Every row depends on its own metric only (and the
    seed-derived samples), so the tables are the same bytes as in one process."""
    def runner(names, mats, metrics, cfg, samples, progress):
        from dataclasses import replace

        import numpy as np
        import pandas as pd

        from .meta.run import STAGES, run_stages, sort_table, stage_metric_lists, stage_metrics

        plain = stage_metric_lists(list(metrics), cfg.geometric)["plain"]
        k = max(1, min(jobs, len(plain)))
        if k <= 1:
            return run_stages(names, mats, metrics, cfg, samples, progress)
        whole = [n for n in names if (STAGES[n].metrics == "plain" or STAGES[n].metric_list is not None)
                 and not STAGES[n].needs]
        split = [n for n in names if n not in whole]
        shards = _metric_shards(plain, k, _whole_share(whole, len(plain), next(iter(mats.values())).shape[0]))

        def base(m):
            return m[3:] if m.startswith("AG_") else m.removeprefix("G_")

        def work(i):
            # this process (i = 0) runs the last shard, which has the cross-metric stages and
            # usually ends last: the others' results come back (unpickled by the pool's thread)
            # while it works, not after it
            j = (i - 1) % k
            own = set(shards[j])
            sub = [m for m in metrics if base(m) in own]
            sub_cfg = replace(cfg, geometric=tuple(g for g in cfg.geometric if g in own))
            done = run_stages(split, mats, sub, sub_cfg, samples, progress)
            if j == k - 1:                              # the cross-metric stages: all metrics
                done.update(run_stages(whole, mats, metrics, cfg, samples, progress))
            return done

        ran = fork_map(work, k)
        results = ran[1:] + ran[:1]                     # in shard order
        done = {n: next(r[n] for r in results if n in r) for n in whole}
        for n in split:
            order = {m: j for j, m in enumerate(stage_metrics(n, list(metrics), cfg))}
            tables = {}
            for t in results[0][n]:
                df = concat_parts([r[n][t] for r in results])
                if "metric" in df.columns:        # each distinct metric looked up once (millions of p-values)
                    codes, distinct = pd.factorize(df["metric"].to_numpy(dtype=object))
                    last = len(order)             # (a row of no listed metric last, as NaN sorts)
                    pos = np.array([order.get(m, last) for m in distinct] + [last], dtype=np.intp)[codes]
                    if (pos[1:] < pos[:-1]).any():
                        df = df.iloc[np.argsort(pos, kind="stable")].reset_index(drop=True)
                tables[t] = sort_table(t, df)
            done[n] = tables
        return done
    return runner


def concat_parts(frames):
    """Row-wise concatenation as :func:`metaeval.meta.run.combine` does it (empty parts dropped)."""
    from .meta.run import _concat

    return _concat(frames, list(frames[0].columns))


@contextlib.contextmanager
def frozen_gc():
    """Around forking worker processes: the objects of this process moved out of the garbage
    collector's reach (``gc.freeze``), so that a collection in a forked process does not touch --
    and so copy -- every page it shares with this one."""
    import gc

    release_freed_memory()             # the forked processes start from (and are measured with) less
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def stage_groups(stages: Sequence[str], jobs: int) -> list[list[str]]:
    """``stages`` dealt into at most ``jobs`` groups that can run side by side: a stage and the stages
    it reads (:attr:`metaeval.meta.run.Stage.needs`) stay in one group, each group in the order given;
    the costliest chain to the least loaded group."""
    from .meta.run import STAGES

    order = {s: i for i, s in enumerate(stages)}
    chains: list[list[str]] = []
    for s in stages:                                 # connected by `needs`, within the stages given
        linked = {s} | {n for n in STAGES[s].needs if n in order} if s in STAGES else {s}
        hit = [c for c in chains if linked & set(c)]
        merged = sorted(set().union(linked, *hit), key=order.__getitem__)
        chains = [c for c in chains if c not in hit] + [merged]
    # each stage's rough computing time (its declared cost, seconds on DL19)
    cost = {s: STAGES[s].cost if s in STAGES else 1.0 for s in stages}
    chains.sort(key=lambda c: (-sum(cost[s] for s in c), order[c[0]]))
    groups: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(chains))))]
    load = [0.0] * len(groups)
    for c in chains:
        i = load.index(min(load))
        groups[i] += c
        load[i] += sum(cost[s] for s in c)
    return [sorted(g, key=order.__getitem__) for g in groups if g]


def _whole_share(whole, n_metrics: int, n_topics: int) -> float:
    """The cost of the cross-metric stages ``whole`` in units of one metric's per-metric stages
    (a rough model, for balancing only: the rank correlations cost about 25 K / topics metrics'
    worth for K metrics -- 2 at 20 metrics x 250 topics x 300 runs, measured on the 2-core VM)."""
    return 25.0 * n_metrics / max(1, n_topics) if "rank_correlation" in whole else 0.0


def _metric_shards(plain, k: int, whole: float) -> list[list]:
    """``plain`` cut into ``k`` contiguous shards, the last (which also runs the cross-metric
    stages, ``whole`` metrics' worth of work) smaller by that much, at least one metric each."""
    n = len(plain)
    last = min(n - (k - 1), max(1, round((n - (k - 1) * whole) / k)))
    cuts = [i * (n - last) // (k - 1) for i in range(k)] + [n]
    return [plain[cuts[i]:cuts[i + 1]] for i in range(k)]


def reuse_freed_memory() -> None:
    """glibc: keep freed memory in the process for the next allocation (no ``mmap`` per large
    array, up to 256 MiB kept at the top of the heap), so the many large temporaries of the
    stages are not page-faulted in again each time (system time: 48 of 141 CPU s at 300 runs x
    250 topics x 6 measures before, 6 of 70 after).  Inherited by the forked processes; a no-op
    elsewhere."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 30)                # M_MMAP_THRESHOLD: mmap only above 1 GiB
        libc.mallopt(-1, 1 << 28)                # M_TRIM_THRESHOLD: keep up to 256 MiB free
    except (OSError, AttributeError):            # pragma: no cover - not glibc
        pass


def release_freed_memory() -> None:
    """glibc: give the free memory of this process back to the system (``malloc_trim``), e.g.
    before forking, so that the forked processes do not inherit (and count) it; a no-op elsewhere."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):            # pragma: no cover - not glibc
        pass
