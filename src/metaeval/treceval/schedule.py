"""The drop-in's scheduling: runs evaluated in groups of bounded bytes (:func:`_groups`), and, on a
machine with two cores and many runs, in two halves, the second by a forked process
(:func:`texts`); the outputs come in the runs' order either way, and an input error is the first
rejected run in that order, as one process reports it."""

from __future__ import annotations

from typing import Any

import os
import pickle
import signal

from ..errors import InputError
from .evaluate import group_text as _group_text

__all__ = ["WorkerFailed", "texts"]


class WorkerFailed(Exception):
    """The forked process ended without its result (anything but an input error: reported in one
    line, as an input error is)."""


#: a group of runs computed together holds at most about this many bytes of run files (its
#: rankings, about a tenth of that, are stacked; the measures' temporaries are bounded apart)
_GROUP_BYTES = 64 << 20
#: a run file larger than this is evaluated in this process, with no second process: its scan
#: holds about three times its bytes, and two such scans at once would double the peak memory
_FORK_MAX_RUN = 16 << 20
#: below this many bytes of run files in all, the runs are evaluated in this process only
_PARALLEL_BYTES = 8 << 20


def _size(path) -> int:
    """The bytes of a run file (0 for standard input, or a file the reader will report)."""
    try:
        return os.path.getsize(path) if path != "-" else 0
    except OSError:
        return 0


def _groups(paths) -> list[list[str]]:
    """Consecutive runs in groups of at most :data:`_GROUP_BYTES` (a larger run alone)."""
    groups: list[Any] = []
    cur: list[Any] = []
    size: int = 0
    for p in paths:
        n = _size(p)
        if cur and size + n > _GROUP_BYTES:
            groups.append(cur)
            cur, size = [], 0
        cur.append(p)
        size += n
    if cur:
        groups.append(cur)
    return groups


def _halves(paths, sizes) -> int:
    """Where to split the runs in two of about equal bytes (1 <= k < len(paths))."""
    total, acc = sum(sizes), 0
    for k, n in enumerate(sizes[:-1], 1):
        acc += n
        if 2 * acc >= total:
            return k
    return len(paths) - 1


def _child(o, q, paths, fd) -> None:
    """The forked process's half: its text, or its input error, pickled into ``fd``; then exit
    without running the parent's exit handlers."""
    from ..workers import die_with_parent

    die_with_parent()                   # as every forked worker: ends with its parent, leaves signals to it
    code = 0
    payload: tuple[str, Any]
    try:
        try:
            payload = ("ok", "".join(_group_text(o, q, g) for g in _groups(paths)))
        except InputError as e:
            payload = ("input", ((e.message, e.path, e.line, e.topic), getattr(e, "trec_eval_status", 2)))
        except BaseException as e:      # noqa: BLE001 - reported by the parent
            payload = ("failed", f"{type(e).__name__}: {e}")
        with open(fd, "wb") as f:
            f.write(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    except BaseException:               # noqa: BLE001 - the parent reads an empty pipe
        code = 1
    finally:
        os._exit(code)


def texts(o, q, paths):
    """The runs' outputs in order.  When the machine has two cores and the runs are many (at least
    :data:`_PARALLEL_BYTES` in all, none over :data:`_FORK_MAX_RUN`), the runs are split in two
    halves of about equal bytes: a forked process evaluates the second while this one evaluates
    the first; else everything is evaluated here.  Either way the groups' texts come in the runs'
    order, and an input error is the first rejected run in that order, as one process reports it."""
    sizes = [_size(p) for p in paths]
    if (os.cpu_count() or 1) < 2 or len(paths) < 2 or sum(sizes) < _PARALLEL_BYTES \
            or max(sizes) > _FORK_MAX_RUN or "-" in paths or os.environ.get("METAEVAL_SERIAL"):
        for g in _groups(paths):
            yield _group_text(o, q, g)
        return
    k = _halves(paths, sizes)
    r: int | None
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                        # pragma: no cover - runs in the child
        os.close(r)
        _child(o, q, paths[k:], w)
    os.close(w)
    finished = False
    try:
        for g in _groups(paths[:k]):
            yield _group_text(o, q, g)
        with open(r, "rb") as f:
            r = None
            data = f.read()
        payload: Any
        kind, payload = pickle.loads(data) if data else ("failed", "it ended without a result")
        finished = True
        if kind == "input":
            err = InputError(*payload[0])
            err.trec_eval_status = payload[1]
            raise err
        if kind != "ok":
            raise WorkerFailed(f"the process evaluating {paths[k]} and the runs after it failed ({payload})")
        yield payload
    finally:
        if r is not None:
            os.close(r)
        if not finished:                # an error here, or the caller stopped early
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already gone
                pass
        os.waitpid(pid, 0)

