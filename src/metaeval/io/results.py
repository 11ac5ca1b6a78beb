"""Per-topic results from another tool in place of a qrels set (``metaeval judgments --results
NAME=DIR``): one ``trec_eval -q`` output per run in ``DIR``.

* A file's run is its name without the run suffixes (:func:`metaeval.io.runs.run_name`); every run
  of the judgments must have one (a missing run is an :class:`InputError` naming the folder and
  the run); files of other runs are ignored.
* Lines ``MEASURE TOPIC VALUE`` (whitespace-separated, as trec_eval prints them); the ``all``
  summary lines and the ``runid`` line are skipped; a value that is not a number is an error naming
  file and line.
* Measures keep trec_eval's printed names (``map``, ``P_10``); ``names=`` (a function, e.g.
  :func:`metaeval.treceval.names.registry_name`) maps them to other names.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError
from ._text import tokenize
from .runs import run_name

__all__ = ["read_results"]

def _read_file(path: Path):
    t = tokenize(path, 3, "trec_eval -q results")
    meas, top = t.ids(0), t.ids(1)
    vals_b = t.ids(2)
    keep = (top != b"all") & (meas != b"runid")
    rows = np.flatnonzero(keep)
    try:
        vals = vals_b[rows].astype(np.float64)
    except ValueError:
        for r in rows.tolist():
            try:
                float(vals_b[r])
            except ValueError:
                raise t.error(r, f"value {vals_b[r].decode('utf-8', 'replace')!r} is not a number") from None
        raise
    return meas[rows], top[rows], vals


def read_results(folder, runs, names=None) -> dict:
    """``{registry measure name: topic x run DataFrame}`` of the ``trec_eval -q`` files in
    ``folder`` for the runs ``runs`` (in that order); topics in string order; a topic a run's file
    lacks for a measure another run has: 0 (trec_eval's value of a topic without results)."""
    import pandas as pd

    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("results folder not found (expected one trec_eval -q output per run)", folder)
    files = {}
    for f in sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")):
        files.setdefault(run_name(f), f)
    missing = [r for r in runs if r not in files]
    if missing:
        raise InputError(f"no trec_eval -q output for run {missing[0]}"
                         + (f" (and {len(missing) - 1} more runs)" if len(missing) > 1 else "")
                         + f": expected a file named {missing[0]}[.txt] in the folder", folder)
    parts = []
    for j, r in enumerate(runs):
        m, t, v = _read_file(files[r])
        parts.append((np.full(len(v), j), m, t, v))
    ri = np.concatenate([p[0] for p in parts])
    mb = np.concatenate([p[1].astype(object) for p in parts])
    tb = np.concatenate([p[2].astype(object) for p in parts])
    vals = np.concatenate([p[3] for p in parts])
    mu, mi = np.unique(mb, return_inverse=True)
    tu, ti = np.unique(tb, return_inverse=True)
    topics = [b.decode("utf-8") for b in tu.tolist()]
    out = {}
    for k, mname in enumerate(mu.tolist()):                   # a loop over measures, not lines
        sel = mi == k
        M = np.zeros((len(topics), len(runs)))
        present = np.zeros(len(topics), bool)
        M[ti[sel], ri[sel]] = vals[sel]
        present[ti[sel]] = True
        name = mname.decode("utf-8")
        name = names(name) if names is not None else name
        out[name] = pd.DataFrame(M[present], index=[t for t, p in zip(topics, present) if p], columns=list(runs))
    return out
