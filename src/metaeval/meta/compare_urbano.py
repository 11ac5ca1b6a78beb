"""``metaeval compare --conventions urbano2019``: compare's p-values with the tests of Urbano, Lima &
Hanjalic (2019).

:func:`metaeval.meta.compare.compare` tests every comparison as a column of the per-topic
difference matrix ``D = X[:, run] - X[:, other]``.  Under ``conventions="urbano2019"`` the tests
``paired-t``, ``wilcoxon``, ``sign``, ``bootstrap`` and ``permutation`` take their two-tailed
p-value from :mod:`metaeval.meta.urbano_tests` (the paper's ``R/ir_tests.R`` and ``R/test.cpp``)
instead: each comparison is one "trial" of those functions, with ``b = other`` (the baseline) and
``e = run``, so ``d = e - b`` is compare's column.  Everything else in ``compare.csv`` (means,
intervals, effect sizes, corrections, wins/ties/losses) is unchanged.

* The p-values are not rounded (the paper's scripts store ``round(p, 6)`` for the simulation; its
  README prints them unrounded).
* Resamples (``B`` and ``seed`` as compare's): the bootstrap's ``B`` resamples come from
  ``sample_rng(seed, n, B, "paired")``, the same topic samples ``Q*b`` as compare's own
  bootstrap test and percentile interval; the permutation's ``B`` random sign flips from
  ``sample_rng(seed, n, B, "permutation")`` (never the exact enumeration).  Every comparison of a
  metric shares them, whatever the batch of comparisons, as compare's tests do.
* Where R gives no p-value, compare's rule "never NaN" stays: a comparison whose differences are
  all equal (R's ``t.test`` stops: "data are essentially constant") gets the metaeval t-test's
  value (``p = 1`` for identical runs, ``0`` for a constant non-zero difference); a sign test
  without a difference beyond ``0.01`` (R's ``NA``) gets ``p = 1``.
* ``rthsd`` and ``tukey-hsd`` have no counterpart in the paper and are refused.
"""

from __future__ import annotations

import numpy as np

from . import urbano_tests as U
from .samples import sample_rng

__all__ = ["CONVENTIONS", "URBANO_TESTS", "check_conventions", "urbano_pvalues"]

CONVENTIONS = ("metaeval", "urbano2019")
#: compare's tests that have an urbano2019 version
URBANO_TESTS = U.TESTS
#: about this many (comparison x resample) means per temporary array of the resampling tests
_BATCH_ELEMENTS = 4_000_000


def check_conventions(conventions: str, test: str) -> str:
    """``conventions`` if known and applicable to ``test``, else a one-line ``ValueError``."""
    if conventions not in CONVENTIONS:
        raise ValueError(f"unknown conventions {conventions!r}; expected one of {', '.join(CONVENTIONS)}")
    if conventions == "urbano2019" and test not in URBANO_TESTS:
        raise ValueError(f"--conventions urbano2019 covers the tests {', '.join(URBANO_TESTS)}; "
                         f"{test} has no counterpart in Urbano, Lima & Hanjalic (2019)")
    return conventions


def urbano_pvalues(Xb, Xe, test: str, *, B: int, seed: int, batch: int | None = None) -> np.ndarray:
    """Two-tailed p-values of ``test`` (urbano2019 conventions) for every comparison: ``Xb`` and
    ``Xe`` are ``(n, k)`` topic x comparison matrices of the baseline (``other``) and the run's
    scores.  ``batch``: comparisons per pass of the resampling tests (the result does not depend on it)."""
    b = np.ascontiguousarray(np.asarray(Xb, dtype=np.float64).T)      # (k, n): one trial per comparison
    e = np.ascontiguousarray(np.asarray(Xe, dtype=np.float64).T)
    k, n = b.shape
    if test == "paired-t":
        p = U.t_test(b, e)[1]
        bad = np.isnan(p)
        if bad.any():
            from .pairtests import paired_t

            p[bad] = paired_t((e - b)[bad].T)[1]
        return p
    if test == "wilcoxon":
        p = U.wilcoxon_test(b, e)[1]
        return np.where(np.isnan(p), 1.0, p)       # no non-zero difference (R stops): p = 1 as metaeval's
    if test == "sign":
        p = U.sign_test(b, e)[1]
        return np.where(np.isnan(p), 1.0, p)
    if test in ("bootstrap", "permutation"):
        fn = U.bootstrap_test if test == "bootstrap" else U.permutation_test
        stream = "paired" if test == "bootstrap" else "permutation"
        step = int(batch) if batch else max(1, _BATCH_ELEMENTS // max(1, int(B)))
        out = np.empty(k)
        for s0 in range(0, k, step):
            # the same generator state for every batch: all comparisons share the B resamples
            out[s0:s0 + step] = fn(b[s0:s0 + step], e[s0:s0 + step], int(B), sample_rng(seed, n, B, stream))[1]
        return out
    raise ValueError(f"--conventions urbano2019 covers the tests {', '.join(URBANO_TESTS)}; got {test!r}")
