"""Comparing runs the way a paper reports it: significance tests, multiple-comparison control,
effect sizes and confidence intervals for every compared pair and metric (``metaeval compare``).

:func:`compare` returns the tidy table ``compare.csv`` (one row per metric and compared pair)::

    metric, run, other, test, correction, mean, other_mean, ci_low, ci_high, diff, effect_size,
    d_z, p_value, p_adjusted, significant, wins, ties, losses

* Pairs: with ``baseline``, every other run against it (``run`` = that run, ``other`` = the
  baseline, runs in matrix order); otherwise every pair ``run < other`` in matrix order (the
  order and orientation of the ASL and ``pvalues`` tables).  ``diff = mean - other_mean``.
* ``ci_low``/``ci_high``: the t-based ``ci`` (default 95%) confidence interval of ``run``'s mean
  score, ``mean +- t_{(1+ci)/2, n-1} sd / sqrt(n)``.
* ``effect_size = diff / sqrt(V_E)`` with ``V_E`` the residual variance of the two-way ANOVA over
  all runs given; ``d_z = mean(d) / sd(d)`` over the per-topic differences (Cohen's d_z).
* ``wins, ties, losses``: topics with ``run`` above, equal to (within 1e-12), below ``other``.
* Tests: ``paired-t``, ``wilcoxon``, ``sign``, ``permutation`` (sign flips; exact when
  ``2^n <= B``), ``bootstrap`` (Sakai's paired bootstrap ASL, the paired stage's samples),
  ``rthsd`` (randomised Tukey HSD over all runs given) and ``tukey-hsd`` -- the functions of the
  discriminative-power stage, so for the same seed and B the bootstrap and rthsd p-values equal
  that stage's (tested).
* Corrections over the family of comparisons made per metric (the comparisons with the baseline,
  or all pairs): ``none``, ``bonferroni``, ``holm`` (default when the family has more than one
  comparison), ``bh``.  ``rthsd`` and ``tukey-hsd`` control the family-wise error themselves: their
  correction is ``none`` and another one is refused.  ``significant = p_adjusted < alpha``.
* Identical runs give ``p = 1`` (never NaN); see :mod:`.pairtests` for constant differences.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validate import as_scores, check_alpha, check_B
from .anova import two_way_anova
from .bootstrap import paired_test_differences
from .pairtests import (CORRECTIONS, adjust, cohen_dz, effect_size, paired_t, permutation_test, sign_counts,
                        sign_test, tukey_hsd, wilcoxon)
from .rthsd import DEFAULT_RTHSD_B, rthsd, rthsd_many
from .samples import BootstrapSamples
from .matrices import matrices_for

__all__ = ["compare", "COMPARE_COLUMNS", "COMPARE_TESTS", "DEFAULT_B", "TEST_NAMES", "CORRECTION_NAMES"]

COMPARE_COLUMNS = ["metric", "run", "other", "test", "correction", "mean", "other_mean", "ci_low", "ci_high",
                   "diff", "effect_size", "d_z", "p_value", "p_adjusted", "significant", "wins", "ties",
                   "losses"]
COMPARE_TESTS = ("paired-t", "wilcoxon", "sign", "permutation", "bootstrap", "rthsd", "tukey-hsd")
#: default number of replicates per resampling test (bootstrap: the papers' B = 1000, as ``metaeval meta``)
DEFAULT_B = {"permutation": 10000, "bootstrap": 1000, "rthsd": DEFAULT_RTHSD_B}
FAMILY_TESTS = ("rthsd", "tukey-hsd")
TEST_NAMES = {"paired-t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
              "permutation": "paired randomisation test", "bootstrap": "paired bootstrap test",
              "rthsd": "randomised Tukey HSD test", "tukey-hsd": "Tukey HSD test"}
CORRECTION_NAMES = {"none": "no correction", "bonferroni": "Bonferroni", "holm": "Holm",
                    "bh": "Benjamini-Hochberg"}


def _as_matrices(scores) -> dict:
    if isinstance(scores, pd.DataFrame):
        return {"score": scores}
    if isinstance(scores, dict):
        if not scores:
            raise ValueError("no score matrices given")
        return scores
    raise TypeError("scores must be a topic x run DataFrame or a {metric: DataFrame} dict")


def compare(scores, *, baseline: str | None = None, metrics: list[str] | None = None, test: str = "paired-t",
            correction: str | None = None, alpha: float = 0.05, B: int | None = None, seed: int = 0,
            ci: float = 0.95, batch: int | None = None) -> pd.DataFrame:
    """The ``compare.csv`` table for ``scores`` (``{metric: topic x run DataFrame}``, or one
    DataFrame, named ``score``).  ``metrics``: which (default all, in order).  ``B``: replicates
    of the resampling tests (default 10000 permutation, 1000 bootstrap, 5000 rthsd)."""
    mats = _as_matrices(scores)
    if test not in COMPARE_TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(COMPARE_TESTS)}")
    if correction is not None and correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; expected one of {', '.join(CORRECTIONS)}")
    if test in FAMILY_TESTS and correction not in (None, "none"):
        raise ValueError(f"{test} controls the family-wise error rate itself; use correction 'none' "
                         f"(got {correction!r})")
    alpha = check_alpha(alpha)
    if not 0 < float(ci) < 1:
        raise ValueError(f"ci must lie in (0, 1), got {ci}")
    B = check_B(DEFAULT_B.get(test, 1) if B is None else B)
    metrics = list(mats) if metrics is None else matrices_for(metrics, mats)
    missing = [m for m in metrics if m not in mats]
    if missing:
        raise ValueError(f"metric(s) {', '.join(map(repr, missing))} not available "
                         f"(have: {', '.join(map(str, mats))})")
    scores_ = [as_scores(mats[m], m) for m in metrics]
    shared = [None] * len(metrics)
    if test == "rthsd" and all(s.n_runs >= 3 for s in scores_):
        # one permutation pass for all metrics of the same shape (equal to separate calls)
        shared = rthsd_many(scores_, B=B, seed=seed, batch=batch)
    frames = [_compare_metric(s, m, baseline, test, correction, alpha, B, seed, ci, batch, r)
              for s, m, r in zip(scores_, metrics, shared)]
    return pd.concat(frames, ignore_index=True)[COMPARE_COLUMNS]


def _compare_metric(s, metric, baseline, test, correction, alpha, B, seed, ci, batch,
                    rthsd_result=None) -> pd.DataFrame:
    from scipy import stats

    X = s.values
    n, m = X.shape
    runs = list(s.runs)
    if baseline is not None:
        if str(baseline) not in runs:
            raise ValueError(f"{metric}: baseline {baseline!r} is not among the runs "
                             f"({', '.join(runs[:10])}{', ...' if m > 10 else ''})")
        b = runs.index(str(baseline))
        ia = np.array([i for i in range(m) if i != b], dtype=np.intp)
        ib = np.full(ia.size, b, dtype=np.intp)
    else:
        ia, ib = np.triu_indices(m, 1)
    if test == "rthsd" and m < 3:
        raise ValueError(f"{metric}: rthsd compares all runs given and needs at least 3; with two runs "
                         "use --test permutation (the same randomisation test for one pair)")
    k = ia.size
    corr = correction if correction is not None else ("holm" if k > 1 and test not in FAMILY_TESTS else "none")
    means = X.mean(axis=0)
    sd = X.std(axis=0, ddof=1)
    half = stats.t.ppf((1 + float(ci)) / 2, n - 1) * sd / np.sqrt(n)
    av = two_way_anova(s, metric)
    diff = means[ia] - means[ib]
    D = X[:, ia] - X[:, ib]
    if test == "paired-t":
        p = paired_t(D)[1]
    elif test == "wilcoxon":
        p = wilcoxon(D)
    elif test == "sign":
        p = sign_test(D)
    elif test == "permutation":
        p = permutation_test(D, B=B, seed=seed, batch=batch)[0]
    elif test == "bootstrap":
        p = paired_test_differences(D, BootstrapSamples.from_seed(seed, n, B), batch=batch)[2]
    elif test == "rthsd":
        xa, xb, _, pall = rthsd_result or rthsd(X, B=B, seed=seed, batch=batch, metric=metric)
        pos = {(int(i), int(j)): q for i, j, q in zip(xa, xb, pall)}
        p = np.array([pos[(min(i, j), max(i, j))] for i, j in zip(ia, ib)])
    else:
        p = tukey_hsd(diff, av.V_E, n, m)
    p = np.asarray(p, dtype=np.float64)
    padj = adjust(p, corr)
    wins, ties, losses = sign_counts(D)
    return pd.DataFrame({
        "metric": metric, "run": [runs[i] for i in ia], "other": [runs[j] for j in ib], "test": test,
        "correction": corr, "mean": means[ia], "other_mean": means[ib], "ci_low": means[ia] - half[ia],
        "ci_high": means[ia] + half[ia], "diff": diff, "effect_size": effect_size(diff, av.V_E),
        "d_z": cohen_dz(D), "p_value": p, "p_adjusted": padj, "significant": padj < alpha,
        "wins": wins.astype(np.int64), "ties": ties.astype(np.int64), "losses": losses.astype(np.int64)})
