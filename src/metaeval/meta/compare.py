"""Comparing runs the way a paper reports it: significance tests, multiple-comparison control,
effect sizes and confidence intervals for every compared pair and metric (``metaeval compare``).

:func:`compare` returns the tidy table ``compare.csv`` (one row per metric and compared pair)::

    metric, run, other, test, correction, mean, other_mean, ci_low, ci_high, diff, diff_ci_low,
    diff_ci_high, effect_size, d_z, p_value, p_adjusted, significant, wins, ties, losses

* Pairs: with ``baseline``, every other run against it (``run`` = that run, ``other`` = the
  baseline, runs in matrix order); with several baselines (a list), every run against each
  baseline, baseline by baseline, two baselines compared once (the later against the earlier);
  otherwise every pair ``run < other`` in matrix order (the order and orientation of the ASL and
  ``pvalues`` tables).  ``diff = mean - other_mean``.
* ``ci_low``/``ci_high``: Sakai (2014)'s ``ci`` (default 95%) confidence interval of ``run``'s mean
  score from the two-way ANOVA over all runs given,
  ``mean +- t_{(1+ci)/2}(phi_E) sqrt(V_E / n)`` with ``phi_E = (m - 1)(n - 1)``.
* ``diff_ci_low``/``diff_ci_high``: the ``ci`` confidence interval of the difference ``diff``, the
  one of the test: the paired t interval ``diff +- t_{(1+ci)/2}(n - 1) sd(d) / sqrt(n)``
  (``scipy.stats.ttest_rel(...).confidence_interval``) for ``paired-t`` and, as the interval of the
  mean difference they test, for ``wilcoxon``, ``sign`` and ``permutation``; the bootstrap
  percentile interval of the mean difference over the test's samples ``Q*b`` for ``bootstrap``
  (Efron & Tibshirani 1993); Tukey's simultaneous interval
  ``diff +- q_{ci}(m, phi_E) sqrt(V_E / n)`` for ``tukey-hsd`` and ``rthsd`` (Sakai 2014).
* ``effect_size = diff / sqrt(V_E)`` with ``V_E`` the residual variance of the two-way ANOVA over
  all runs given; ``d_z = mean(d) / sd(d)`` over the per-topic differences (Cohen's d_z).
* ``wins, ties, losses``: topics with ``run`` above, equal to (within 1e-12), below ``other``.
* Tests: ``paired-t``, ``wilcoxon``, ``sign``, ``permutation`` (sign flips; exact when
  ``2^n <= B``), ``bootstrap`` (Sakai's paired bootstrap ASL, the paired stage's samples),
  ``rthsd`` (randomised Tukey HSD over all runs given) and ``tukey-hsd`` -- the functions of the
  discriminative-power stage, so for the same seed and B the bootstrap and rthsd p-values equal
  that stage's (tested).
* Corrections over the family of comparisons made per metric (the comparisons with the baseline
  -- with every baseline when there are several --, or all pairs): ``none``, ``bonferroni``, ``holm`` (default when the family has more than one
  comparison), ``bh``.  ``rthsd`` and ``tukey-hsd`` control the family-wise error themselves: their
  correction is ``none`` and another one is refused.  ``significant = p_adjusted < alpha``.
* Identical runs give ``p = 1`` (never NaN); see :mod:`.pairtests` for constant differences.
* ``conventions="urbano2019"``: the p-values of ``paired-t``, ``wilcoxon``, ``sign``, ``bootstrap``
  and ``permutation`` with the conventions of Urbano, Lima & Hanjalic (2019) (:mod:`.compare_urbano`);
  the other columns unchanged.
* ``risk_alpha`` (with ``baseline``): the risk-sensitive measures of :mod:`.risk` for every run
  against the baseline, appended as the columns ``RISK_COMPARE_COLUMNS`` -- ``risk_alpha``,
  ``urisk`` (Wang et al. 2012), ``trisk`` and its two-sided p-value ``trisk_p`` (Dinçer, Macdonald
  & Ounis 2014), ``zrisk`` and ``georisk`` (Dinçer, Macdonald & Ounis 2016; against all runs given).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validate import as_scores, check_alpha, check_B
from .anova import two_way_anova
from .bootstrap import paired_test_differences
from .compare_urbano import check_conventions, urbano_pvalues
from .pairtests import (CORRECTIONS, adjust, cohen_dz, effect_size, paired_t, permutation_test, sign_counts,
                        sign_test, tukey_hsd, wilcoxon)
from .rthsd import DEFAULT_RTHSD_B, rthsd, rthsd_many
from .samples import BootstrapSamples
from .matrices import matrices_for

__all__ = ["compare", "COMPARE_COLUMNS", "RISK_COMPARE_COLUMNS", "COMPARE_TESTS", "DEFAULT_B", "TEST_NAMES", "CORRECTION_NAMES",
           "paired_t_interval", "bootstrap_diff_interval"]

COMPARE_COLUMNS = ["metric", "run", "other", "test", "correction", "mean", "other_mean", "ci_low", "ci_high",
                   "diff", "diff_ci_low", "diff_ci_high", "effect_size", "d_z", "p_value", "p_adjusted",
                   "significant", "wins", "ties", "losses"]

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
        from .matrices import TIDY_COLUMNS, tidy_to_matrices

        if set(TIDY_COLUMNS) <= set(map(str, scores.columns)):
            mats = tidy_to_matrices(scores)
            # the measures in the order of the frame (evaluate's order), not by name
            return {m: mats[m] for m in dict.fromkeys(scores["measure"].astype(str))}
        return {"score": scores}
    if isinstance(scores, dict):
        if not scores:
            raise ValueError("no score matrices given")
        return scores
    raise TypeError("scores must be the tidy frame of metaeval.evaluate (run, topic, measure, value), a "
                    "topic x run DataFrame or a {metric: DataFrame} dict")


def compare(scores, *, baseline: str | list[str] | None = None, metrics: list[str] | None = None, test: str = "paired-t",
            correction: str | None = None, alpha: float = 0.05, B: int | None = None, seed: int = 0,
            ci: float = 0.95, batch: int | None = None, conventions: str = "metaeval",
            risk_alpha: float | None = None) -> pd.DataFrame:
    """The ``compare.csv`` table for ``scores``: the tidy frame of :func:`metaeval.evaluate`
    (``run, topic, measure, value``), ``{metric: topic x run DataFrame}``, or one topic x run
    DataFrame (named ``score``).  ``baseline``: a run name, or a list of run names (every run
    against each, one correction over all those comparisons).  ``metrics``: which (default all, in order).  ``B``: replicates
    of the resampling tests (default 10000 permutation, 1000 bootstrap, 5000 rthsd).
    ``conventions``: ``"metaeval"`` or ``"urbano2019"`` (:mod:`.compare_urbano`).  ``risk_alpha``
    (needs ``baseline``): append the risk columns (``RISK_COMPARE_COLUMNS``) for that alpha."""
    mats = _as_matrices(scores)
    baseline = _baselines(baseline)
    if risk_alpha is not None and isinstance(baseline, list):
        raise ValueError("risk_alpha needs one baseline (the risk measures compare every run with it), got "
                         f"{len(baseline)}")
    if risk_alpha is not None and baseline is None:
        raise ValueError("risk_alpha needs a baseline (the risk measures compare every run with it)")
    if test not in COMPARE_TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(COMPARE_TESTS)}")
    check_conventions(conventions, test)
    if correction is not None and correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; expected one of {', '.join(CORRECTIONS)}")
    if test in FAMILY_TESTS and correction not in (None, "none"):
        raise ValueError(f"{test} controls the family-wise error rate itself; use correction 'none' "
                         f"(got {correction!r})")
    alpha = check_alpha(alpha)
    if not 0 < float(ci) < 1:
        raise ValueError(f"ci must lie in (0, 1), got {ci}")
    B = check_B(DEFAULT_B.get(test, 1) if B is None else B)
    metrics = list(mats) if metrics is None else (matrices_for(metrics, mats) or [])
    missing = [m for m in metrics if m not in mats]
    if missing:
        raise ValueError(f"metric(s) {', '.join(map(repr, missing))} not available "
                         f"(have: {', '.join(map(str, mats))})")
    scores_ = [as_scores(mats[m], m) for m in metrics]
    shared: list = [None] * len(metrics)
    if test == "rthsd" and all(s.n_runs >= 3 for s in scores_):
        # one permutation pass for all metrics of the same shape (equal to separate calls)
        shared = rthsd_many(scores_, B=B, seed=seed, batch=batch)
    frames = [_compare_metric(s, m, baseline, test, correction, alpha, B, seed, ci, batch, r, conventions)
              for s, m, r in zip(scores_, metrics, shared)]
    out = pd.concat(frames, ignore_index=True)[COMPARE_COLUMNS]
    if risk_alpha is None:
        return out
    return _with_risk(out, scores_, metrics, baseline, risk_alpha)


#: the columns ``risk_alpha=`` appends to the compare table
RISK_COMPARE_COLUMNS = ["risk_alpha", "urisk", "trisk", "trisk_p", "zrisk", "georisk"]


def _with_risk(out: pd.DataFrame, scores_, metrics, baseline, risk_alpha) -> pd.DataFrame:
    from .risk import risk_table

    mats = {m: pd.DataFrame(s.values, index=list(s.topics), columns=list(s.runs)) for s, m in zip(scores_, metrics)}
    risk = risk_table(mats, str(baseline), [float(risk_alpha)], metrics)
    risk = risk.rename(columns={"alpha": "risk_alpha", "p": "trisk_p"})
    risk = risk[["metric", "run"] + RISK_COMPARE_COLUMNS]
    return out.merge(risk, on=["metric", "run"], how="left", validate="one_to_one")[COMPARE_COLUMNS
                                                                                      + RISK_COMPARE_COLUMNS]


def _baselines(baseline: str | list[str] | tuple[str, ...] | None) -> str | list[str] | None:
    """``None``, one run name (a ``str``), or a list of two or more distinct run names."""
    if baseline is None or isinstance(baseline, str):
        return baseline
    bl = [str(b) for b in baseline]
    if not bl:
        return None
    dup = sorted({b for b in bl if bl.count(b) > 1})
    if dup:
        raise ValueError(f"baseline {dup[0]!r} given twice")
    return bl[0] if len(bl) == 1 else bl


def _baseline_pairs(runs: list, baselines: list, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Every run against each baseline, baseline by baseline (runs in matrix order); two baselines
    are compared once, the later one against the earlier."""
    ia, ib, seen = [], [], set()
    for b in baselines:
        if b not in runs:
            raise ValueError(f"{metric}: baseline {b!r} is not among the runs "
                             f"({', '.join(runs[:10])}{', ...' if len(runs) > 10 else ''})")
        j = runs.index(b)
        for i in range(len(runs)):
            if i != j and frozenset((i, j)) not in seen:
                seen.add(frozenset((i, j)))
                ia.append(i)
                ib.append(j)
    return np.array(ia, dtype=np.intp), np.array(ib, dtype=np.intp)


def _compare_metric(s, metric, baseline, test, correction, alpha, B, seed, ci, batch,
                    rthsd_result=None, conventions="metaeval") -> pd.DataFrame:
    from scipy import stats

    X = s.values
    n, m = X.shape
    runs = list(s.runs)
    if isinstance(baseline, list):                # several baselines: one family of comparisons
        ia, ib = _baseline_pairs(runs, baseline, metric)
    elif baseline is not None:
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
    av = two_way_anova(s, metric)
    phi_E = (m - 1) * (n - 1)
    half = float(stats.t.ppf((1 + float(ci)) / 2, phi_E)) * np.sqrt(av.V_E / n)
    diff = means[ia] - means[ib]
    D = X[:, ia] - X[:, ib]
    if test == "bootstrap":
        dlo, dhi = bootstrap_diff_interval(D, BootstrapSamples.from_seed(seed, n, B), ci)
    elif test in FAMILY_TESTS:
        q = float(stats.studentized_range.ppf(float(ci), m, phi_E))
        dhalf = q * np.sqrt(av.V_E / n)
        dlo, dhi = diff - dhalf, diff + dhalf
    else:
        dlo, dhi = paired_t_interval(D, ci)
    if conventions == "urbano2019":
        p = urbano_pvalues(X[:, ib], X[:, ia], test, B=B, seed=seed)
    elif test == "paired-t":
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
        "correction": corr, "mean": means[ia], "other_mean": means[ib], "ci_low": means[ia] - half,
        "ci_high": means[ia] + half, "diff": diff, "diff_ci_low": dlo, "diff_ci_high": dhi,
        "effect_size": effect_size(diff, av.V_E),
        "d_z": cohen_dz(D), "p_value": p, "p_adjusted": padj, "significant": padj < alpha,
        "wins": wins.astype(np.int64), "ties": ties.astype(np.int64), "losses": losses.astype(np.int64)})


def paired_t_interval(D, ci: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The paired t confidence interval of the mean of every column of the differences ``D``
    (n, k): ``mean +- t_{(1+ci)/2}(n - 1) sd / sqrt(n)``, as
    ``scipy.stats.ttest_rel(x, y).confidence_interval(ci)``; a constant column gives the point."""
    from scipy import stats

    D = np.asarray(D, dtype=np.float64)
    n = D.shape[0]
    mean = D.mean(axis=0)
    half = float(stats.t.ppf((1 + float(ci)) / 2, n - 1)) * D.std(axis=0, ddof=1) / np.sqrt(n)
    return mean - half, mean + half


def bootstrap_diff_interval(D, samples: BootstrapSamples, ci: float = 0.95,
                            max_cells: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """The bootstrap percentile interval of the mean of every column of ``D`` (n, k) over the
    samples ``Q*b`` (Efron & Tibshirani 1993, Sec. 13.3): the ``(1 -+ ci) / 2`` quantiles
    (``numpy.quantile``, linear) of the ``B`` resampled means ``sum_{i in Q*b} d_i / n``, each sum
    taken in sample order (a reduction over the middle axis adds whole rows one after the other:
    the same bits on any machine, and those of a plain loop)."""
    D = np.asarray(D, dtype=np.float64)
    n, k = D.shape
    if k == 1:              # keep a second column: numpy sums a lone contiguous axis pairwise
        D = np.concatenate([D, D], axis=1)
    idx = samples.indices
    B = idx.shape[0]
    means = np.empty((B, D.shape[1]))
    step = max(1, max_cells // max(1, n * D.shape[1]))
    for b0 in range(0, B, step):
        block = D[idx[b0:b0 + step]]                          # (rows, n, k)
        means[b0:b0 + step] = np.add.reduce(block, axis=1) / n  # row by row, in sample order
    means = means[:, :k]
    # (1 - 0.95) / 2 is 0.025000000000000022 in binary: the quantile levels as written (0.025, 0.975)
    q = [float(f"{(1 - float(ci)) / 2:.15g}"), float(f"{(1 + float(ci)) / 2:.15g}")]
    lo, hi = np.quantile(means, q, axis=0)
    return lo, hi
