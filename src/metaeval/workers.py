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
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

__all__ = ["MISSING", "die_with_parent", "pool_map", "process_pool", "split_map"]


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


def split_map(func: Callable, items: Sequence, k: int) -> list:
    """``[func(x) for x in items]`` on two cores: ``items[k:]`` in a process forked from this one
    (which inherits ``func`` and what it reads; only the results come back, pickled through a pipe)
    while this one does ``items[:k]``.  Where the forked process ends without its results (killed,
    a result that does not pickle, an exception of ``func``), its items' places hold
    :data:`MISSING`, for the caller to compute here, where an error or a warning is reported as
    one process reports it.  In this process alone when other threads run."""
    import pickle
    import signal

    import sys

    items = list(items)
    threads = sys.modules.get("threading")
    if not 0 < k < len(items) or not hasattr(os, "fork") or (threads is not None and threads.active_count() > 1):
        return [func(x) for x in items]            # (a fork beside other threads may copy a lock they hold)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # pragma: no cover - runs in the child
        code = 0
        try:
            os.close(r)
            die_with_parent()
            data = pickle.dumps([func(x) for x in items[k:]], protocol=pickle.HIGHEST_PROTOCOL)
            with open(w, "wb") as f:
                f.write(data)
        except BaseException:                       # noqa: BLE001 - the parent reads an empty pipe
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    done = False
    try:
        with open(r, "rb") as pipe:
            first = [func(x) for x in items[:k]]
            data = pipe.read()
        done = True
    finally:
        if not done:                                # an error or a signal here: the child goes too
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    try:
        rest = pickle.loads(data) if data else None
    except Exception:                               # noqa: BLE001 - computed here instead
        rest = None
    if not isinstance(rest, list) or len(rest) != len(items) - k:
        rest = [MISSING] * (len(items) - k)
    return first + rest


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: the place of an item :func:`split_map`'s forked process did not compute
MISSING: Any = _Missing()
