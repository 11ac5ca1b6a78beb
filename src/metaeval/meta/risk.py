"""Risk-sensitive evaluation: how often and by how much a run does worse than a baseline.

On a topic x run matrix ``X`` (``x[q, j]``: run j's score on topic q, c topics) and a baseline
run b, for a risk sensitivity ``alpha >= 0``:

* ``RiskBased(r, b, alpha) = r - b`` if ``r >= b``, else ``(1 + alpha)(r - b)`` -- a loss weighs
  ``1 + alpha`` times a win of the same size (Wang, Bennett & Collins-Thompson 2012; the macro of
  TREC's ``ndeval`` and ``gdeval.pl`` of the Web track 2013-2014);
* ``URisk = (1/c) sum_q RiskBased(x[q, j], x[q, b], alpha)`` (Wang et al. 2012): the mean of the
  per-topic risk values (with ``alpha = 0`` the mean difference from the baseline);
* ``TRisk = URisk / (s / sqrt(c))`` with ``s`` the sample standard deviation (``c - 1``) of the
  per-topic risk values: the one-sample t statistic of the risk values (Dinçer, Macdonald & Ounis
  2014), with its two-sided p-value from Student's t with ``c - 1`` degrees of freedom
  (``scipy.stats.ttest_1samp``); ``TRisk < -2`` marks a run significantly riskier than the
  baseline, ``> 2`` a significantly safer one, as the paper reads it.  Risk values without
  variance give ``t = 0, p = 1`` when all are 0, ``t = +-inf, p = 0`` otherwise (as
  :func:`metaeval.meta.pairtests.paired_t`);
* ``ZRisk`` and ``GeoRisk`` (Dinçer, Macdonald & Ounis 2016), which compare a run with *all* runs
  of the matrix (the "multiple baselines") instead of one: with ``S_j = sum_q x[q, j]`` (run
  total), ``T_q = sum_j x[q, j]`` (topic total) and ``N = sum_q T_q``, the expected score of run j
  on topic q is ``e[q, j] = S_j T_q / N`` (a chi-square table's expectation) and
  ``z[q, j] = (x[q, j] - e[q, j]) / sqrt(e[q, j])``;
  ``ZRisk_j = sum_{q: z >= 0} z[q, j] + (1 + alpha) sum_{q: z < 0} z[q, j]``;
  ``GeoRisk_j = sqrt( (S_j / c) * Phi(ZRisk_j / c) )``, the geometric mean of the run's mean score
  and the standard normal CDF of its mean z-risk.

Choices (docs/meta.md): ZRisk and GeoRisk use every run of the matrix given (the baseline
included), so they do not depend on which run is the baseline; a cell with ``e = 0`` (a topic on
which every run scores 0, or a run scoring 0 everywhere) has ``z = 0``; they need non-negative
scores (a chi-square expectation of negative scores means nothing) and are NaN otherwise.  Sums run
along the topic axis in a fixed order (:func:`metaeval.detmath.fixed_sum`).
"""

from __future__ import annotations

import numpy as np

from ..detmath import fixed_sum

__all__ = ["risk_based", "risk_matrix", "urisk", "trisk", "zrisk", "georisk", "risk_measures", "risk_table", "RISK_COLUMNS"]

#: the columns of ``tables/risk.csv``
RISK_COLUMNS = ["metric", "run", "baseline", "alpha", "urisk", "trisk", "p", "zrisk", "georisk", "wins",
                "losses"]


def _alphas(alpha) -> np.ndarray:
    a = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    if a.ndim != 1 or not np.isfinite(a).all() or (a < 0).any():
        raise ValueError(f"risk alpha must be finite and >= 0, got {alpha!r}")
    return a


def _matrix(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.shape[0] < 1:
        raise ValueError(f"scores must be a (topics, runs) matrix, got shape {X.shape}")
    return X


def risk_based(r, b, alpha) -> np.ndarray:
    """``RiskBased(r, b, alpha)`` elementwise (broadcasting ``r``, ``b`` and ``alpha``)."""
    r = np.asarray(r, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    d = r - b
    return np.where(r >= b, d, (np.asarray(alpha, dtype=np.float64) + 1.0) * d)


def _risk_values(X, b, alphas) -> np.ndarray:
    """(A, c, R) per-topic risk values of every run of X (c, R) against b (c,)."""
    return risk_based(X[None, :, :], b[None, :, None], alphas[:, None, None])


def risk_matrix(df, baseline: str, alpha: float):
    """The per-topic ``RiskBased`` values of every run of a topic x run DataFrame ``df`` (any
    measure's matrix) against its run ``baseline``: a DataFrame of the same shape (the baseline's
    column all 0); its column means are URisk."""
    import pandas as pd

    runs = [str(r) for r in df.columns]
    if str(baseline) not in runs:
        raise ValueError(f"baseline {baseline!r} is not one of the runs ({', '.join(runs)})")
    X = df.to_numpy(dtype=np.float64)
    a = float(_alphas(alpha)[0])
    b = X[:, runs.index(str(baseline))]
    return pd.DataFrame(risk_based(X, b[:, None], a), index=df.index, columns=df.columns)


def urisk(X, baseline, alpha) -> np.ndarray:
    """URisk of every run (column) of ``X`` against the per-topic scores ``baseline``: (R,) for a
    scalar ``alpha``, (A, R) for a sequence of A alphas."""
    X = _matrix(X)
    b = np.asarray(baseline, dtype=np.float64).reshape(-1)
    if b.shape[0] != X.shape[0]:
        raise ValueError(f"baseline has {b.shape[0]} topics, scores {X.shape[0]}")
    a = _alphas(alpha)
    out = fixed_sum(_risk_values(X, b, a), axis=1) / X.shape[0]
    return out[0] if np.ndim(alpha) == 0 else out


def trisk(X, baseline, alpha) -> tuple[np.ndarray, np.ndarray]:
    """``(TRisk, p)`` of every run against ``baseline`` (shapes as :func:`urisk`)."""
    from .pairtests import paired_t

    X = _matrix(X)
    b = np.asarray(baseline, dtype=np.float64).reshape(-1)
    if b.shape[0] != X.shape[0]:
        raise ValueError(f"baseline has {b.shape[0]} topics, scores {X.shape[0]}")
    a = _alphas(alpha)
    rv = _risk_values(X, b, a)                                   # (A, c, R)
    A, c, R = rv.shape
    t, p = paired_t(np.moveaxis(rv, 1, 0).reshape(c, A * R))
    t, p = t.reshape(A, R), p.reshape(A, R)
    return (t[0], p[0]) if np.ndim(alpha) == 0 else (t, p)


def _z(X) -> np.ndarray:
    """z[q, j] = (x - e) / sqrt(e), e = S_j T_q / N; 0 where e = 0; NaN everywhere if X < 0."""
    if (X < 0).any():
        return np.full(X.shape, np.nan)
    S = fixed_sum(X, axis=0)                                     # run totals (R,)
    T = fixed_sum(X, axis=1)                                     # topic totals (c,)
    N = fixed_sum(T, axis=0)
    if N == 0:
        return np.zeros(X.shape)
    e = S[None, :] * (T[:, None] / N)
    pos = e > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pos, (X - e) / np.sqrt(np.where(pos, e, 1.0)), 0.0)


def zrisk(X, alpha) -> np.ndarray:
    """ZRisk of every run (column) of ``X`` against all of them: (R,) or (A, R)."""
    X = _matrix(X)
    a = _alphas(alpha)
    z = _z(X)
    weighted = np.where(z[None] < 0, (1.0 + a[:, None, None]) * z[None], z[None])
    out = fixed_sum(weighted, axis=1)
    return out[0] if np.ndim(alpha) == 0 else out


def georisk(X, alpha) -> np.ndarray:
    """GeoRisk of every run of ``X``: ``sqrt(mean score * Phi(ZRisk / c))``; (R,) or (A, R)."""
    from scipy.special import ndtr

    X = _matrix(X)
    c = X.shape[0]
    zr = np.atleast_2d(zrisk(X, _alphas(alpha)))
    mean = fixed_sum(X, axis=0) / c
    out = np.sqrt(mean[None, :] * ndtr(zr / c))
    return out[0] if np.ndim(alpha) == 0 else out


def risk_measures(X, baseline: int, alphas) -> dict:
    """Every column of ``tables/risk.csv`` but the names, for the runs of ``X`` (c, R) against its
    column ``baseline``: {name: (A, R) array} for ``urisk, trisk, p, zrisk, georisk``, and
    ``wins``/``losses`` (R,) (topics above / below the baseline by more than 1e-12, as
    :func:`metaeval.meta.pairtests.sign_counts`)."""
    from .pairtests import sign_counts

    X = _matrix(X)
    a = _alphas(alphas)
    b = X[:, int(baseline)]
    t, p = trisk(X, b, a)
    wins, _ties, losses = sign_counts(X - b[:, None])
    return {"urisk": urisk(X, b, a), "trisk": t, "p": p, "zrisk": zrisk(X, a), "georisk": georisk(X, a),
                "wins": np.asarray(wins), "losses": np.asarray(losses)}


def risk_table(mats: dict, baselines, alphas, metrics=None):
    """``tables/risk.csv`` as a DataFrame: for every metric (``{metric: topic x run DataFrame}``,
    in the order given or of ``metrics``), baseline (a run name or a list of them), alpha and run
    other than the baseline (matrix order), one row in :data:`RISK_COLUMNS`.  A baseline that is
    not a run of a matrix is a ``ValueError`` naming the runs."""
    import pandas as pd

    if isinstance(baselines, str):
        baselines = [baselines]
    baselines = list(baselines)
    a = _alphas(alphas)
    frames = []
    for metric in (list(mats) if metrics is None else list(metrics)):
        df = mats[metric]
        runs = np.array([str(r) for r in df.columns], dtype=object)
        X = df.to_numpy(dtype=np.float64)
        if not np.isfinite(X).all():
            raise ValueError(f"{metric}: non-finite scores; risk measures need a score for every topic")
        for base in baselines:
            if str(base) not in set(runs):
                raise ValueError(f"{metric}: baseline {base!r} is not one of the runs ({', '.join(runs)})")
            j = int(np.flatnonzero(runs == str(base))[0])
            m = risk_measures(X, j, a)
            k = np.flatnonzero(np.arange(len(runs)) != j)          # the other runs, matrix order
            n = len(k) * len(a)
            cols = {"metric": np.full(n, metric, dtype=object), "run": np.tile(runs[k], len(a)),
                    "baseline": np.full(n, str(base), dtype=object), "alpha": np.repeat(a, len(k))}
            cols.update({c: m[c][:, k].ravel() for c in ("urisk", "trisk", "p", "zrisk", "georisk")})
            cols.update({c: np.tile(m[c][k].astype(np.int64), len(a)) for c in ("wins", "losses")})
            frames.append(pd.DataFrame(cols, columns=RISK_COLUMNS))
    if not frames:
        return pd.DataFrame({c: np.zeros(0, dtype=object if c in ("metric", "run", "baseline") else
                                         np.int64 if c in ("wins", "losses") else np.float64)
                             for c in RISK_COLUMNS})
    return pd.concat(frames, ignore_index=True)
