"""Randomised Tukey HSD test (Carterette, ACM TOIS 2012; Sakai's Discpower tool, Sakai 2014/2018).

For one topic x run matrix ``X`` (``n`` topics, ``m`` systems), each of ``B`` replicates permutes
every topic's row of scores across the systems independently, computes the ``m`` permuted system
means and records ``R_b = max - min`` of them.  For every pair (X, Y)::

    p(X, Y) = #{b : R_b >= |mean(X) - mean(Y)|} / B

so one pass gives every pair's p-value, and the family-wise error rate over all pairs is
controlled (the largest observed difference is compared with the null distribution of the range).

Vectorised: the permutations of a batch are one ``Generator.permuted`` call on a
``(batch, n, m)`` array of ``0..m-1`` (Fisher-Yates per row, in C); the permuted sums are a gather
and a sum over topics in topic order (one C loop, ``gather_sums`` of the optional extension
``metaeval._reader``, else numpy's gather and ``add.reduce``: the same sums); the ``B`` ranges are
sorted once and every pair's count is a ``searchsorted``.  Reproducible: the permutations come from ``sample_rng(seed, n, B, "rthsd")``
(as the bootstrap samples, they depend on the seed, the number of topics, ``B`` and -- through the
array shape -- the number of systems only, so every metric of a collection, in any process, uses
the same permutations), drawn sequentially, so the result is byte-identical for every ``batch``.
Several metrics with the same shape share one set of permutations (:func:`rthsd_many`).

``R_b >= |d|`` treats values within ``1e-12 (1 + |d|)`` as equal (a permutation that reproduces
the observed means must count, whatever the summation order).  Identical systems get ``p = 1``.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_scores, check_B
from .samples import sample_rng
from .statistics import pair_indices

__all__ = ["rthsd", "rthsd_many", "rthsd_ranges", "DEFAULT_RTHSD_B"]

DEFAULT_RTHSD_B = 5000
#: permutation elements (replicates x topics x systems) per batch by default
BATCH_ELEMENTS = 2_000_000


def rthsd_ranges(stack, *, B: int = DEFAULT_RTHSD_B, seed: int = 0, batch: int | None = None) -> np.ndarray:
    """``(K, B)`` ranges ``max - min`` of the permuted system means for a ``(K, n, m)`` stack of
    matrices (all sharing the permutations of ``sample_rng(seed, n, B, "rthsd")``)."""
    A = np.asarray(stack, dtype=np.float64)
    if A.ndim == 2:
        A = A[None]
    K, n, m = A.shape
    B = check_B(B)
    if batch is None:
        batch = max(1, BATCH_ELEMENTS // (n * m))
    elif isinstance(batch, bool) or int(batch) != batch or int(batch) < 1:
        raise ValueError(f"batch must be a positive integer, got {batch}")
    batch = int(batch)
    rng = sample_rng(seed, n, B, "rthsd")
    ext = _c_gather() if m <= 32767 else None
    # the C loop reads int16 positions within each topic's row (a quarter of the memory: the
    # gather is bound by it); numpy gathers flat positions t * m + perm.  The permutations are the
    # same for any integer type (Generator.permuted draws by the axis length only).
    flat = np.ascontiguousarray(A.reshape(K, n * m))
    offsets = None if ext is not None else (np.arange(n, dtype=np.intp) * m)[:, None]
    base: np.ndarray = np.arange(m, dtype=np.int16) if ext is not None else np.arange(m, dtype=np.intp)
    out = np.empty((K, B))
    for s0 in range(0, B, batch):
        s1 = min(B, s0 + batch)
        perm: np.ndarray = np.broadcast_to(base, (s1 - s0, n, m)).copy()
        rng.permuted(perm, axis=2, out=perm)
        if offsets is not None:
            perm += offsets                                    # flat positions t * m + perm
        sums = np.empty((s1 - s0, m))
        for k in range(K):
            if ext is not None:
                ext.gather_sums(flat[k], perm, sums, n, m)      # (rows, m), summed over topics in order
            else:
                sums = flat[k][perm].sum(axis=1)                # the same sums
            out[k, s0:s1] = (sums.max(axis=1) - sums.min(axis=1)) * (1.0 / n)
    return out


def _c_gather():
    """The optional extension's ``gather_sums`` (``metaeval._reader``), or None: not built, built
    without it, or ``METAEVAL_NO_CEXT`` set."""
    from ..io._cext import c_reader

    ext = c_reader()
    return ext if ext is not None and hasattr(ext, "gather_sums") else None


def _pvalues(X: np.ndarray, ranges: np.ndarray):
    n, m = X.shape
    ia, ib = pair_indices(m)
    means = X.sum(axis=0) * (1.0 / n)
    d = means[ia] - means[ib]
    a = np.abs(d)
    thr = a - 1e-12 * (1.0 + a)
    srt = np.sort(ranges)
    count = srt.size - np.searchsorted(srt, thr, side="left")
    return ia, ib, d, count / srt.size


def rthsd(scores, *, B: int = DEFAULT_RTHSD_B, seed: int = 0, batch: int | None = None, metric: str = ""):
    """``(pair_x, pair_y, diff, p)`` of the randomised Tukey HSD test for every pair ``X < Y`` (run
    order, as the bootstrap ASLs); ``diff = mean(X) - mean(Y)``."""
    s = as_scores(scores, metric)
    ranges = rthsd_ranges(s.values[None], B=B, seed=seed, batch=batch)[0]
    return _pvalues(s.values, ranges)


def rthsd_many(matrices: list, *, B: int = DEFAULT_RTHSD_B, seed: int = 0, batch: int | None = None,
               names: list[str] | None = None) -> list[tuple]:
    """:func:`rthsd` for several matrices at once; matrices of the same shape share one set of
    permutations (identical results to separate calls, one permutation pass)."""
    scores = [as_scores(M, (names[i] if names else "")) for i, M in enumerate(matrices)]
    out: list = [None] * len(scores)
    groups: dict = {}
    for i, s in enumerate(scores):
        groups.setdefault(s.values.shape, []).append(i)
    for idx in groups.values():
        stack = np.stack([scores[i].values for i in idx])
        ranges = rthsd_ranges(stack, B=B, seed=seed, batch=batch)
        for r, i in zip(ranges, idx):
            out[i] = _pvalues(scores[i].values, r)
    return out
