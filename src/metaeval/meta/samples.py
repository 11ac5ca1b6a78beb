"""Bootstrap topic samples shared by every method of a collection.

Sakai (2007b) Sec. 7 reuses the paired-test bootstrap samples ``Q*b`` for the stability and swap
methods; Sakai (2007a) uses the same ``Q*b`` for every metric.  Here a sample set is a ``(B, n)``
integer index matrix (row ``b`` = the topic positions of ``Q*b``) drawn from a
``numpy.random.Generator`` whose seed is derived from ``(seed, n, B, stream)`` **alone**
(:func:`sample_rng`).  Hence a per-metric job in another process, given the same configured seed,
draws exactly the same samples as every other metric of the collection, with no file to share.

Streams (independent, all seed-derived):

``"paired"``    ``Q*b`` -- the paired test, the stability method and the first side of the swap method;
``"swap"``      ``Q'*b`` -- the second, independent side of the swap method (Sakai 2007b, Sec. 7.2:
                "in addition to ... {Q*b}, we create another set ... {Q'*b}");
``"unpaired"``  ``(B, 2n)`` indices into the concatenation ``v = (x, y)`` (Sakai 2007b, Fig. 6);
``"rthsd"``     the per-topic permutations of the randomised Tukey HSD test (:mod:`.rthsd`);
``"permutation"`` the sign flips of the paired randomisation test (:mod:`.pairtests`).

Algorithms never need the ``(B, n)`` resampled scores themselves for arithmetic means: a ``(B, n)``
count matrix ``C`` (``C[b, i]`` = how often topic ``i`` occurs in ``Q*b``) times an ``(n, k)``
matrix gives all ``k`` bootstrap sums at once (:func:`counts_from_indices`).
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

import numpy as np

from ..detmath import int_product, sliced_products, split_rows
from ..util import check_memory
from ._validate import check_B

__all__ = ["BLOCK", "STREAMS", "single_threaded_blas", "sample_rng", "trial_rng", "bootstrap_indices", "bootstrap_counts",
           "counts_from_indices",
           "BootstrapSamples", "resolve_samples"]

STREAMS = {"paired": 1, "swap": 2, "unpaired": 3, "rthsd": 4, "permutation": 5, "incompleteness": 6,
           "standardisation": 7,          # the topic subsets of meta.standardisation
           "test_errors": 8,              # the simulations of meta.error_rates
           "ppi": 9}                      # the labelled topic sets of meta.ppi

#: batches of bootstrap samples start at multiples of this many samples; the count-matrix products
#: are exact (:func:`metaeval.detmath.int_product`), so results are bit-identical for every
#: ``batch=``, CPU, BLAS kernel and thread count.
BLOCK = 256


def single_threaded_blas(func):
    """Run ``func`` with BLAS limited to one thread (threadpoolctl).  The block products are many
    small GEMMs, for which OpenBLAS' threads cost far more than they gain -- 5-10x slower on a
    busy 2-core machine -- and the pipeline parallelises over jobs anyway."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            from threadpoolctl import threadpool_limits
            ctx = threadpool_limits(limits=1, user_api="blas")
        except ImportError:  # pragma: no cover - threadpoolctl is a dependency
            ctx = contextlib.nullcontext()
        with ctx:
            return func(*args, **kwargs)
    return wrapper


def sample_rng(seed: int, n: int, B: int, stream: str = "paired") -> np.random.Generator:
    """The generator for one sample set: ``SeedSequence([seed, n, B, stream id])``.

    Depending only on these four values makes the samples reproducible across processes and
    independent of which metric, or how many metrics, a job handles.
    """
    if stream not in STREAMS:
        raise ValueError(f"unknown sample stream {stream!r}; expected one of {sorted(STREAMS)}")
    if isinstance(seed, bool) or int(seed) != seed or int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(n), int(B), STREAMS[stream]]))


def trial_rng(seed: int, stream: str, *key: int) -> np.random.Generator:
    """The generator of one trial of a resampling experiment: ``SeedSequence([seed, stream id,
    *key])`` -- e.g. ``trial_rng(seed, "incompleteness", method, level, trial)``, so a trial's draw
    depends on its own key alone, never on how many trials are drawn together or in which job."""
    if stream not in STREAMS:
        raise ValueError(f"unknown sample stream {stream!r}; expected one of {sorted(STREAMS)}")
    return np.random.default_rng(np.random.SeedSequence([int(seed), STREAMS[stream]] + [int(k) for k in key]))


def bootstrap_indices(n_topics: int, B: int, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
    """``(B, size)`` topic positions drawn uniformly with replacement from ``range(n_topics)``.

    ``size`` defaults to ``n_topics`` (``|Q*b| = |Q|``); the unpaired test uses ``size = n_topics``
    over the ``2n`` concatenated values.  int32, read-only.
    """
    B = check_B(B)
    if n_topics < 1:
        raise ValueError(f"n_topics must be >= 1, got {n_topics}")
    size = n_topics if size is None else int(size)
    check_memory(12 * B * size, f"{B} bootstrap samples of {size} topics", "--B")   # int64 drawn, int32 kept
    idx = rng.integers(0, n_topics, size=(B, size), dtype=np.int64).astype(np.int32)
    idx.setflags(write=False)
    return idx


def counts_from_indices(indices: np.ndarray, n: int, dtype=np.float64) -> np.ndarray:
    """``(B, n)`` occurrence counts of each position in each row of ``indices`` (vectorised)."""
    indices = np.asarray(indices)
    Bb = indices.shape[0]
    flat = (np.arange(Bb, dtype=np.int64)[:, None] * n + indices).ravel()
    return np.bincount(flat, minlength=Bb * n).reshape(Bb, n).astype(dtype, copy=False)


def bootstrap_counts(n_topics: int, B: int, rng: np.random.Generator) -> np.ndarray:
    """``(B, n_topics)`` count matrix of ``B`` bootstrap samples (``Q*b`` as multiplicities)."""
    return counts_from_indices(bootstrap_indices(n_topics, B, rng), n_topics)


@dataclass(frozen=True, eq=False)
class BootstrapSamples:
    """A ``(B, size)`` index matrix over ``n`` positions, iterated in batches of counts."""

    indices: np.ndarray
    n: int

    @property
    def B(self) -> int:
        return self.indices.shape[0]

    @classmethod
    def from_seed(cls, seed: int, n: int, B: int, stream: str = "paired") -> BootstrapSamples:
        """The seed-derived samples: ``(B, n)`` for paired/swap, ``(B, 2n)`` over ``2n`` for unpaired."""
        rng = sample_rng(seed, n, B, stream)
        if stream == "unpaired":
            return cls(bootstrap_indices(2 * n, B, rng), 2 * n)
        return cls(bootstrap_indices(n, B, rng), n)

    @classmethod
    def from_indices(cls, indices, n: int) -> BootstrapSamples:
        idx = np.array(indices, dtype=np.int64, copy=True)
        if idx.ndim != 2 or idx.shape[0] < 1:
            raise ValueError(f"bootstrap indices must be a (B, size) matrix, got shape {idx.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"bootstrap indices must lie in [0, {n}), got [{idx.min()}, {idx.max()}]")
        idx = idx.astype(np.int32)
        idx.setflags(write=False)
        return cls(idx, int(n))

    def counts(self, start: int = 0, stop: int | None = None, cols: slice | None = None) -> np.ndarray:
        """Count matrix of rows ``start:stop`` (optionally of the index columns ``cols``)."""
        idx = self.indices[start:stop]
        if cols is not None:
            idx = idx[:, cols]
        return counts_from_indices(idx, self.n)

    def batches(self, batch: int):
        """Yield ``(start, stop)`` row ranges of at most ``batch`` rows, ``batch`` rounded up to a
        multiple of :data:`BLOCK` (so batches start on block boundaries)."""
        batch = -(-int(batch) // BLOCK) * BLOCK
        for s in range(0, self.B, batch):
            yield s, min(s + batch, self.B)

    def dot_t(self, start: int, stop: int, mats_t, cols: slice | None = None) -> list[np.ndarray]:
        """``M_t @ counts(start, stop, cols).T`` -> ``(k, stop - start)`` for each ``(k, n)`` matrix
        in ``mats_t``, identical on every CPU, BLAS kernel and thread count and for every
        ``start``/``stop`` split: each matrix is split into two slices whose products with a count
        matrix BLAS computes exactly (:func:`metaeval.detmath.split_rows`; all slices of all
        matrices go through one product), and the two exact products are added once."""
        draws = self.draws(cols)
        CT = self.counts(start, stop, cols).T
        splits = [split_rows(M, draws) for M in mats_t]        # every count row sums to `draws`
        if any(sl is None for sl in splits):                   # non-finite values: ordered sums
            return [int_product(M, CT, draws) for M in mats_t]
        return sliced_products(splits, CT)

    def draws(self, cols: slice | None = None) -> int:
        """Indices per sample (of the index columns ``cols``): the sum of every count row, the
        bound of :func:`metaeval.detmath.split_rows` for the count-matrix products."""
        return self.indices.shape[1] if cols is None else len(range(*cols.indices(self.indices.shape[1])))


def resolve_samples(samples, n: int, B: int | None, seed: int | None, stream: str,
                    what: str = "samples") -> BootstrapSamples:
    """Accept a :class:`BootstrapSamples`, a ``(B, size)`` index array, or ``None`` (derive from seed)."""
    size_n = 2 * n if stream == "unpaired" else n
    if samples is None:
        if B is None or seed is None:
            raise ValueError(f"{what}: give either the bootstrap samples or both B and seed")
        return BootstrapSamples.from_seed(seed, n, check_B(B), stream)
    if not isinstance(samples, BootstrapSamples):
        samples = BootstrapSamples.from_indices(samples, size_n)
    if samples.n != size_n:
        raise ValueError(f"{what}: samples index {samples.n} positions, the scores need {size_n}")
    if stream != "unpaired" and samples.indices.shape[1] != n:
        raise ValueError(f"{what}: samples have {samples.indices.shape[1]} topics per row, expected {n}")
    if stream == "unpaired" and samples.indices.shape[1] != size_n:
        raise ValueError(f"{what}: unpaired samples need {size_n} indices per row, got {samples.indices.shape[1]}")
    return samples
