"""The one pool of forked worker processes (standard library only, below every layer that forks).

Every process metaeval forks for work is made here (:func:`process_pool`; :mod:`metaeval.forking`
builds on it and re-exports it): it ends when its parent ends (:func:`die_with_parent`), leaves
Ctrl-C and ``SIGTERM`` to its parent (which reports them in one line and removes its output), and is
killed -- not waited for -- when the block using the pool ends with an exception, so an interrupted
or failed command returns at once and leaves no process behind.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["die_with_parent", "pool_map", "process_pool"]


def die_with_parent() -> None:
    """In a forked worker: ask Linux to end it when the process that forked it dies (a command
    killed midway leaves no worker behind; elsewhere a no-op), and leave ``SIGINT`` (Ctrl-C reaches
    the whole process group) and ``SIGTERM`` to the parent: the worker ignores the first and dies of
    the second without running the parent's handlers."""
    import signal

    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))      # PR_SET_PDEATHSIG
        if os.getppid() == 1:                                                # already orphaned
            os._exit(1)
    except (OSError, AttributeError):
        pass


@contextlib.contextmanager
def process_pool(workers: int) -> Iterator[Any]:
    """A ``concurrent.futures.ProcessPoolExecutor`` of ``workers`` processes forked from this one
    (they inherit what it holds), each started with :func:`die_with_parent`.  The block ending
    normally waits for the pool; ending with an exception (an error, Ctrl-C, ``SIGTERM`` turned into
    an exception by the command line) cancels what is queued and kills the workers at once."""
    import concurrent.futures
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    pool = concurrent.futures.ProcessPoolExecutor(max(1, int(workers)), mp_context=ctx,
                                                  initializer=die_with_parent)
    try:
        yield pool
    except BaseException:
        # the pool's workers and any process forked but not yet registered with it (an interrupt
        # while the pool starts them): else the interpreter's exit would wait for them for ever
        procs = list((getattr(pool, "_processes", None) or {}).values())
        procs += [p for p in multiprocessing.active_children() if p not in procs]
        for p in procs:
            with contextlib.suppress(Exception):
                p.kill()
        with contextlib.suppress(Exception):
            pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            with contextlib.suppress(Exception):
                p.join(5)
        raise
    pool.shutdown(wait=True)


def pool_map(func: Callable, items: Iterable, jobs: int) -> list:
    """``[func(x) for x in items]`` in ``jobs`` forked processes (:func:`process_pool`); in this
    process when ``jobs <= 1``, with fewer than two items or where ``fork`` does not exist."""
    items = list(items)
    if jobs <= 1 or len(items) < 2 or not hasattr(os, "fork"):
        return [func(x) for x in items]
    with process_pool(min(jobs, len(items))) as pool:
        return list(pool.map(func, items))
