"""trec_eval's z-scores (``-Z FILE``): the file of per-topic means and deviations, and the
z-scores of one measure's per-topic values."""

from __future__ import annotations

import numpy as np

from ..cnum import c_atof
from ..errors import InputError
from ..io._text import tokenize
from .table import MISSING_ZSCORE_VALUE

__all__ = ["read_zscores", "to_z"]


def read_zscores(path):
    """``{(topic, measure): (mean, deviation)}`` of a z-score file (QID MEASURE MEAN STDDEV; the
    first line of a key wins)."""
    t = tokenize(path, 4, "z-score (QID MEASURE MEAN STDDEV)")
    z: dict[tuple[str, str], tuple[float, float]] = {}
    for i in range(t.n):
        key = (t.token(i, 0), t.token(i, 1))
        z.setdefault(key, (c_atof(t.token(i, 2).encode()), c_atof(t.token(i, 3).encode())))
    if not z:
        raise InputError("empty z-score file", path)
    return z


def to_z(values, name: str, topics, z):
    """trec_eval's z-scores of one measure's per-topic values (``MISSING_ZSCORE_VALUE`` where the
    z-score file has no mean for the topic and measure, or a zero deviation and another value)."""
    out = np.empty(len(values))
    for t, q in enumerate(topics):
        mean, sd = z.get((q, name), (None, None))
        v = values[t]
        if mean is None:
            out[t] = MISSING_ZSCORE_VALUE
        elif sd:
            out[t] = (v - mean) / sd
        else:
            out[t] = 0.0 if v == mean else MISSING_ZSCORE_VALUE
    return out
