"""The drop-in's run: the qrels (and z-scores) read, every run evaluated and its text handed on in
the runs' order (:func:`run`), the cyclic garbage collector paused meanwhile."""

from __future__ import annotations

import gc

import numpy as np

from .reader import read_trec_qrels
from .schedule import texts
from .zscores import read_zscores

__all__ = ["run"]


def run(o: dict, write) -> None:
    """Evaluate what the options ``o`` (:func:`metaeval.treceval.options.parse`) ask for, calling
    ``write(text)`` for each group of runs in order; an input error raises
    :class:`metaeval.errors.InputError` (a failed second process
    :class:`metaeval.treceval.schedule.WorkerFailed`).  The cyclic garbage collector is paused: the
    drop-in makes no cycles, and its many small lists and tuples would otherwise start a collection
    every few hundred allocations."""
    paused = gc.isenabled()
    gc.disable()
    try:
        qpath, runs = o["args"][0], o["args"][1:]
        q = read_trec_qrels(qpath)
        if o["Z"] is not None:
            o["zdata"] = read_zscores(o["Z"])
        o["neg"] = np.flatnonzero(q.rel_levels().sum(1) == 0)
        for text in texts(o, q, runs):
            write(text)
    finally:
        if paused:
            gc.enable()
