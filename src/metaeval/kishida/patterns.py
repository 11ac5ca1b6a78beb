"""The numerical comparison of Kishida (2005) Sec. 4.3 (Tables 3, 4, 5).

A database holds one relevant document per degree in ``degrees`` (the report: 3, 2, 1) and any
number of irrelevant ones; a system outputs ``n`` documents (the report: n = 5).  An *output
pattern* is the sequence of degrees ``x_1..x_n`` (0 = irrelevant); each relevant document appears at
most once, so there are ``sum_k C(m, k) k! C(n, k)`` patterns (136 for the report).

Readings the printed numbers require (checked digit by digit in ``tests/conformance/test_kishida_tables.py``):

* the ideal list is fixed by the database -- ``y = sorted(degrees, descending)`` -- for every
  pattern, also for patterns that do not contain all relevant documents;
* ``v_D`` uses log base 2 and averages ``d(i)/d_I(i)`` over all ranks i = 1..n;
* binary AP ("Ave. Pre.") counts every degree > 0 as relevant, with ``R`` = number of relevant
  documents in the database (3);
* Table 3's standard deviation is the *sample* one (divisor 136 - 1; the population divisor gives
  .244/.250/.239/.227 instead of the printed .245/.250/.240/.228);
* Table 4 is Pearson's product-moment correlation over the 136 patterns;
* Table 5's ratios are taken between the *unrounded* scores (e.g. ``b/a`` for ``v_Q`` is
  .5135/.6667 = .770, while the ratio of the printed .513/.667 would be .769).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from .indicators import (average_precision, averaged_ndcg, generalized_average_precision,
                         modified_sliding_ratio, q_measure)

__all__ = ["INDICATORS", "enumerate_patterns", "pattern_label", "indicator_scores",
           "characteristic_rows", "table3", "table4", "table5", "comparison"]

#: column names of Tables 3-5 (and the binary AP of Table 4)
INDICATORS = ("vS'", "vD", "vQ", "vG", "AP")


def enumerate_patterns(degrees=(3, 2, 1), n: int = 5) -> np.ndarray:
    """All distinct output patterns (P, n) in decreasing lexicographic order (the report's "from
    32100 to 00000")."""
    degrees = [int(d) for d in degrees]
    if n < 1 or not degrees or any(d <= 0 for d in degrees):
        raise ValueError("need n >= 1 and positive relevance degrees")
    m = len(degrees)
    rows = []
    for k in range(min(m, n) + 1):
        for pos in itertools.combinations(range(n), k):
            for perm in itertools.permutations(degrees, k):
                row = [0] * n
                for p, d in zip(pos, perm):
                    row[p] = d
                rows.append(row)
    pats = np.unique(np.array(rows, dtype=np.int64), axis=0)    # dedupe repeated degrees
    order = np.lexsort(pats.T[::-1])[::-1]                       # descending lexicographic
    return pats[order]


def pattern_label(pattern) -> str:
    """``[3, 2, 1, 0, 0]`` -> ``"32100"`` (degrees joined by ``-`` if any exceeds 9)."""
    p = [int(v) for v in pattern]
    return "".join(map(str, p)) if max(p, default=0) <= 9 else "-".join(map(str, p))


def indicator_scores(patterns, degrees=(3, 2, 1), b: float = 2.0) -> pd.DataFrame:
    """Every indicator for every pattern: index = pattern label, columns :data:`INDICATORS`."""
    x = np.asarray(patterns, dtype=np.float64)
    y = np.sort(np.asarray(degrees, dtype=np.float64))[::-1]
    R = np.count_nonzero(y)
    data = {
        "vS'": modified_sliding_ratio(x, y),
        "vD": averaged_ndcg(x, y, b=b),
        "vQ": q_measure(x, y),
        "vG": generalized_average_precision(x, y),
        "AP": average_precision(x, R),
    }
    return pd.DataFrame(data, index=pd.Index([pattern_label(p) for p in patterns], name="pattern"))


def table3(scores: pd.DataFrame, indicators=INDICATORS[:4]) -> pd.DataFrame:
    """Table 3: columns ``indicator, mean, std`` (sample standard deviation, divisor P - 1)."""
    s = scores[list(indicators)]
    return pd.DataFrame({"indicator": list(indicators), "mean": s.mean(axis=0).to_numpy(),
                         "std": s.std(axis=0, ddof=1).to_numpy()})


def _pearson_matrix(X: np.ndarray) -> np.ndarray:
    """Pearson correlations between the columns of ``X`` (``numpy.corrcoef``'s value), with the
    sums over rows in a fixed order (numpy.add.reduce), not a BLAS product."""
    Xc = (X - X.mean(axis=0)).T                                     # (variables, observations)
    c = np.add.reduce(Xc[:, None, :] * Xc[None, :, :], axis=2) * (1.0 / (X.shape[0] - 1))
    sd = np.sqrt(np.diagonal(c))
    c = c / sd[:, None]
    c /= sd[None, :]
    return np.clip(c, -1.0, 1.0)


def table4(scores: pd.DataFrame, indicators=INDICATORS) -> pd.DataFrame:
    """Table 4: the Pearson correlation matrix, first column ``indicator``."""
    c = _pearson_matrix(scores[list(indicators)].to_numpy(dtype=np.float64))
    df = pd.DataFrame(c, columns=list(indicators))
    df.insert(0, "indicator", list(indicators))
    return df


def characteristic_rows(degrees=(3, 2, 1), n: int = 5) -> list[tuple[str, str | tuple[str, str]]]:
    """The characteristic patterns of Table 5, generalised to any degrees and n.

    With ``g1 >= g2 >= ... >= gm`` the degrees: a = ``g1 g2 0..`` (the two best on top),
    b = ``0.. gm .. g2 g1`` (all, reversed, at the bottom), c = ``0 g1 g2 .. gm 0..`` (ideal order
    from rank 2), d = ``g1 0..`` (only the best, on top), e = ``0.. g1`` (only the best, at the
    bottom); ratios b/a, c/a, d/a, e/d.  For (3, 2, 1), n = 5 these are the report's 32000, 00123,
    03210, 30000, 00003.  Rows whose pattern does not fit (or whose base is missing) are dropped.
    Returns ``[(row, pattern label) | (row, (numerator row, denominator row))]``.
    """
    g = sorted((int(d) for d in degrees), reverse=True)
    m = len(g)

    def lab(seq):
        return pattern_label(seq) if len(seq) == n else None

    pats = {
        "a": lab(g[:2] + [0] * (n - min(2, m))) if m >= 2 and n >= 2 else None,
        "b": lab([0] * (n - m) + g[::-1]) if m <= n else None,
        "c": lab([0] + g + [0] * (n - m - 1)) if m + 1 <= n else None,
        "d": lab(g[:1] + [0] * (n - 1)),
        "e": lab([0] * (n - 1) + g[:1]),
    }
    rows: list = []
    for key, ratio in (("a", None), ("b", "a"), ("c", "a"), ("d", "a"), ("e", "d")):
        if pats[key] is None:
            continue
        rows.append((key, pats[key]))
        if ratio is not None and pats[ratio] is not None:
            rows.append((f"{key}/{ratio}", (key, ratio)))
    return rows


def table5(scores: pd.DataFrame, rows=None, indicators=INDICATORS[:4]) -> pd.DataFrame:
    """Table 5: columns ``row, pattern`` then one per indicator.  Pattern rows carry the scores
    (``pattern`` = the label); ratio rows (``row`` like ``b/a``, ``pattern`` like ``00123/32000``)
    the quotient of the unrounded scores."""
    if rows is None:
        rows = characteristic_rows()
    cols = list(indicators)
    values: dict[str, np.ndarray] = {}
    labels: dict[str, str] = {}
    out = []
    for key, what in rows:
        if isinstance(what, tuple):
            num, den = what
            vals = values[num] / values[den]
            label = f"{labels[num]}/{labels[den]}"
        else:
            if what not in scores.index:
                raise ValueError(f"pattern {what!r} is not among the enumerated patterns")
            vals = scores.loc[what, cols].to_numpy(dtype=float)
            values[key], labels[key] = vals, what
            label = what
        out.append([key, label, *vals])
    return pd.DataFrame(out, columns=["row", "pattern", *cols])


def comparison(degrees=(3, 2, 1), n: int = 5, b: float = 2.0) -> dict[str, pd.DataFrame]:
    """Sec. 4.3 end to end: ``{"scores", "table3", "table4", "table5"}``."""
    pats = enumerate_patterns(degrees, n)
    scores = indicator_scores(pats, degrees, b=b)
    return {"scores": scores, "table3": table3(scores), "table4": table4(scores),
            "table5": table5(scores, characteristic_rows(degrees, n))}
