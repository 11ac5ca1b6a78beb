"""Does the ranking of systems, and do the significance decisions, survive another assessor?
(``metaeval judgments``, sections 3 and 4; docs/meta.md "Judgments").

Input: per qrels set (or ``--results`` set) ``{metric: topic x run DataFrame}``, the same runs under
every set; one set is the *reference*.  For every metric and every other set:

* ``ranking_agreement``: the runs ranked by their mean over the topics compared (``topics="common"``:
  the topics of both the reference and the set; ``"own"``: each over its own topics); ``tau``
  (Kendall's tau-a, the ``kendall`` table's), ``tau_b``, ``tau_ap`` (Yilmaz et al. 2008, the
  reference ranking as the truth) and ``rbo`` (Webber et al. 2010, persistence ``rbo_p``): the
  coefficients of :func:`metaeval.meta.rankcorr.coefficient_matrices` with the reference as ranking
  ``a``; ``tau_top`` Kendall's tau-a among the runs ranked ``<= top_k`` by the reference (Clarke &
  Dietz 2024; ties at the boundary all enter); ``max_rank_change`` the largest ``|rank_ref -
  rank_set|``; ``tau_ci_low``/``tau_ci_high`` the 2.5 and 97.5 percentiles of tau over the paired
  bootstrap samples of the rank-correlation stage (stream ``"paired"``, ``B`` samples of the topics
  compared; with ``"own"`` each set's own topics under the samples of its size).
* ``run_ranks``: each run's mean and rank (1 = best; tied runs share the best rank) under the
  reference over its topics, and under each set over the topics compared with ``rank_change =
  reference rank - rank under the set`` over those same topics (positive: the run moves up).
* ``decision_agreement``: :func:`metaeval.meta.compare.compare` (all run pairs, the test,
  correction and alpha given) under the reference and under the set, on the topics compared; a
  pair's decision is "significant, ``run`` better", "significant, ``other`` better" or "not
  significant"; ``same_decision`` counts pairs with equal decisions, ``reversed`` pairs significant
  under both in opposite directions, ``agreement = same_decision / pairs``.

Every coefficient is computed for all metrics and sets of one topic set at once: the rankings enter
:func:`~metaeval.meta.rankcorr.coefficient_matrices` as one ``(metrics x sets, 2, runs)`` array; the
bootstrap taus are integer sums of sign products over all samples, metrics and sets of a group.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .judgments_corr import bca_interval, pearson, spearman, tau_ab, tau_gap
from .kendall import TIE_DECIMALS
from .rankcorr import DEFAULT_RBO_P, PERCENTILES, check_rbo_p, coefficient_matrices
from .samples import BootstrapSamples, single_threaded_blas

__all__ = [
    "DECISION_AGREEMENT_COLUMNS",
    "RANKING_AGREEMENT_COLUMNS",
    "RUN_RANKS_COLUMNS",
    "TOPIC_MODES",
    "TOPIC_RANKING_COLUMNS",
    "competition_ranks",
    "decision_agreement",
    "drop_zero_topics",
    "ranking_tables",
]

RANKING_AGREEMENT_COLUMNS = ["metric", "qrels", "reference", "runs", "topics", "tau", "tau_b", "tau_ap", "rbo",
                             "top_k", "tau_top", "max_rank_change", "tau_ci_low", "tau_ci_high", "pearson",
                             "spearman", "tau_ap_b", "tau_gap", "topics_reference"]
TOPIC_RANKING_COLUMNS = ["metric", "qrels", "reference", "topic", "runs", "tau", "tau_b", "pearson", "spearman"]
RUN_RANKS_COLUMNS = ["metric", "run", "qrels", "mean", "rank", "rank_change"]
DECISION_AGREEMENT_COLUMNS = ["metric", "qrels", "reference", "pairs", "significant_reference",
                              "significant_qrels", "same_decision", "reversed", "agreement"]
TOPIC_MODES = ("common", "own")
#: cells (samples x rankings x runs x runs) of the bootstrap taus computed at once (memory only)
CHUNK_CELLS = 1 << 23


def competition_ranks(means) -> np.ndarray:
    """Ranks (..., runs), 1 = best, ``1 + (runs strictly above)`` on the means rounded to
    :data:`TIE_DECIMALS` (tied runs share the best rank)."""
    M = np.round(np.asarray(means, dtype=np.float64), TIE_DECIMALS)
    return 1 + (M[..., None, :] > M[..., :, None]).sum(axis=-1)


def drop_zero_topics(df: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """A topic x run matrix without the topics on which every run scores 0, and those topics."""
    zero = (df.to_numpy() == 0).all(axis=1)
    return df.loc[~zero], [str(t) for t in df.index[zero]]


MEANS = "(means)"


def _means_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A topic x run matrix as its one row of run means (numpy's sums row after row), or as given
    when it is already means only."""
    if list(df.index) == [MEANS]:
        return df
    m = np.ascontiguousarray(df.to_numpy(np.float64)).mean(axis=0)
    return pd.DataFrame(m[None], index=[MEANS], columns=df.columns)


def _jobs(scores: dict, reference: str, metrics, topics: str, means_only=frozenset()):
    """One job per (metric, set): its reference and set matrices on the topics compared (a set or
    reference of ``means_only``: both as their run means, one row ``(means)``)."""
    if topics not in TOPIC_MODES:
        raise ValueError(f"topics must be one of {', '.join(TOPIC_MODES)}, got {topics!r}")
    ref = scores[reference]
    jobs = []
    for m in metrics:
        if m not in ref:
            continue
        R = ref[m]
        runs = list(R.columns)
        for s, mats in scores.items():
            if s == reference or m not in mats:
                continue
            missing = [r for r in runs if r not in set(mats[m].columns)]
            if missing:
                raise ValueError(f"{s} gives no {m} value for run {missing[0]}"
                                 + (f" (and {len(missing) - 1} more runs)" if len(missing) > 1 else "")
                                 + f" of the reference {reference}")
            X = mats[m][runs]
            if reference in means_only or s in means_only:
                a, b = _means_frame(R), _means_frame(X)
            elif topics == "common":
                have = set(map(str, X.index))
                common = [t for t in R.index if str(t) in have]
                if not common:
                    raise ValueError(f"qrels sets {reference} and {s} have no topic in common for {m}: "
                                     f"nothing to compare")
                a, b = R.loc[common], X.loc[common]
            else:
                a, b = R, X
            jobs.append((m, s, a, b))
    return jobs


def _group(jobs):
    groups: dict = {}
    for j, (_m, _s, a, b) in enumerate(jobs):
        key = (tuple(map(str, a.index)), tuple(map(str, b.index)))
        groups.setdefault(key, []).append(j)
    return groups


def _boot_means(X: np.ndarray, smp: BootstrapSamples, s0: int, s1: int) -> np.ndarray:
    """(n, J, runs) -> (s1 - s0, J, runs) bootstrap means, rounded (the rank-correlation stage's
    sums: exact count-matrix products)."""
    n, J, r = X.shape
    flat = np.ascontiguousarray(X.reshape(n, J * r).T)
    (S,) = smp.dot_t(s0, s1, [flat])
    return np.round((S * (1.0 / n)).T.reshape(s1 - s0, J, r), TIE_DECIMALS)


def _tau_a(ma: np.ndarray, mb: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Kendall's tau-a of rounded means (..., runs), as ``coefficient_matrices``: an exact integer
    sum of sign products, halved, over n0; ``mask`` (..., runs) restricts to some runs."""
    sa = np.sign(ma[..., None, :] - ma[..., :, None]).astype(np.int8)
    sb = np.sign(mb[..., None, :] - mb[..., :, None]).astype(np.int8)
    prod = sa * sb
    if mask is None:
        n = ma.shape[-1]
        k2 = prod.sum(axis=(-2, -1), dtype=np.int64)
        n0 = n * (n - 1) // 2
        return np.clip(k2 * 0.5 / n0, -1.0, 1.0)
    mm = mask[..., None, :] & mask[..., :, None]
    k2 = (prod * mm).sum(axis=(-2, -1), dtype=np.int64)
    n = mask.sum(axis=-1)
    n0 = n * (n - 1) // 2
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n0 > 0, np.clip(k2 * 0.5 / np.maximum(n0, 1), -1.0, 1.0), np.nan)


@single_threaded_blas
def ranking_tables(scores: dict, reference: str, metrics, *, topics: str = "common", B: int = 1000,
                   seed: int = 0, rbo_p: float = DEFAULT_RBO_P, top_k: int = 10,
                   means_only=frozenset()) -> dict[str, pd.DataFrame]:
    """``{"ranking_agreement", "run_ranks"}`` (see the module docstring).  ``scores``: ``{set:
    {metric: topic x run DataFrame}}``; ``metrics`` in table order; sets in the order of ``scores``."""
    p = check_rbo_p(rbo_p)
    metrics = list(metrics)
    jobs = _jobs(scores, reference, metrics, topics, means_only)
    n_jobs = len(jobs)
    cols = {c: np.full(n_jobs, np.nan) for c in ("tau", "tau_b", "tau_ap", "rbo", "tau_top", "tau_ci_low",
                                                 "tau_ci_high", "pearson", "spearman", "tau_ap_b", "tau_gap")}
    max_change = np.zeros(n_jobs, np.int64)
    n_topics = np.zeros(n_jobs, np.int64)
    n_ref_topics = np.zeros(n_jobs, np.int64)
    rank_rows = []
    per_job_ranks: dict[int, tuple] = {}
    from ..progress import Progress

    groups = _group(jobs)
    bar = Progress(len(groups) * B, "metaeval judgments: bootstrap")
    for (ta, tb), idx in groups.items():
        A = np.stack([jobs[j][2].to_numpy(np.float64) for j in idx], axis=1)     # (na, J, runs)
        Bm = np.stack([jobs[j][3].to_numpy(np.float64) for j in idx], axis=1)    # (nb, J, runs)
        ma, mb = A.mean(axis=0), Bm.mean(axis=0)
        co = coefficient_matrices(np.stack([ma, mb], axis=1), p)                  # (J, 2, 2)
        ra, rb = competition_ranks(ma), competition_ranks(mb)
        top = ra <= int(top_k)
        rma, rmb = np.round(ma, TIE_DECIMALS), np.round(mb, TIE_DECIMALS)
        ttop = _tau_a(rma, rmb, top)
        runs_of = [str(r) for r in jobs[idx[0]][2].columns]
        r_pearson, r_spearman = pearson(ma, mb), spearman(rma, rmb)
        r_gap = tau_gap(rma, rmb, runs_of)
        smp_a = BootstrapSamples.from_seed(seed, len(ta), B, "paired")
        smp_b = smp_a if tb == ta else BootstrapSamples.from_seed(seed, len(tb), B, "paired")
        taus = np.empty((B, len(idx)))
        step = max(1, CHUNK_CELLS // (len(idx) * A.shape[2] ** 2))
        for s0 in range(0, B, step):
            s1 = min(B, s0 + step)
            taus[s0:s1] = _tau_a(_boot_means(A, smp_a, s0, s1), _boot_means(Bm, smp_b, s0, s1))
            bar.update(s1 - s0)
        theta = _tau_a(rma, rmb)
        if tb == ta:                                  # one sample of topics: both sides leave it out
            jack = [_jackknife_taus(A, Bm, "both")]
        else:                                         # two samples (own topics): each left out in turn
            jack = [_jackknife_taus(A, rmb, "a"), _jackknife_taus(Bm, rma, "b")]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            q = np.stack(bca_interval(theta, taus, jack, PERCENTILES[1] / 100.0 - PERCENTILES[0] / 100.0))
        for k, j in enumerate(idx):
            cols["tau"][j] = co["tau_a"][k, 0, 1]
            cols["tau_b"][j] = co["tau_b"][k, 0, 1]
            cols["tau_ap"][j] = co["tau_ap"][k, 0, 1]
            cols["rbo"][j] = co["rbo"][k, 0, 1]
            cols["tau_top"][j] = ttop[k]
            cols["pearson"][j] = r_pearson[k]
            cols["spearman"][j] = r_spearman[k]
            cols["tau_ap_b"][j] = co["tau_ap_b"][k, 0, 1]
            cols["tau_gap"][j] = r_gap[k]
            defined = np.isfinite(co["tau_a"][k, 0, 1]) and ta != (MEANS,)
            cols["tau_ci_low"][j] = q[0, k] if defined else np.nan
            cols["tau_ci_high"][j] = q[1, k] if defined else np.nan
            max_change[j] = int(np.abs(ra[k] - rb[k]).max())
            n_topics[j] = -1 if ta == (MEANS,) else len(tb) if topics == "own" else len(ta)
            n_ref_topics[j] = -1 if ta == (MEANS,) else len(ta)
            per_job_ranks[j] = (mb[k], rb[k], ra[k])
    ra_table = pd.DataFrame({
        "metric": pd.Series([j[0] for j in jobs], dtype=object),
        "qrels": pd.Series([j[1] for j in jobs], dtype=object),
        "reference": pd.Series([reference] * n_jobs, dtype=object),
        "runs": np.array([j[2].shape[1] for j in jobs], np.int64),
        "topics": n_topics if (n_topics >= 0).all() else pd.Series(n_topics, dtype="Int64").mask(n_topics < 0),
        "tau": cols["tau"], "tau_b": cols["tau_b"], "tau_ap": cols["tau_ap"], "rbo": cols["rbo"],
        "top_k": np.int64(top_k), "tau_top": cols["tau_top"], "max_rank_change": max_change,
        "tau_ci_low": cols["tau_ci_low"], "tau_ci_high": cols["tau_ci_high"], "pearson": cols["pearson"],
        "spearman": cols["spearman"], "tau_ap_b": cols["tau_ap_b"], "tau_gap": cols["tau_gap"],
        "topics_reference": n_ref_topics if (n_ref_topics >= 0).all()
        else pd.Series(n_ref_topics, dtype="Int64").mask(n_ref_topics < 0)},
        columns=RANKING_AGREEMENT_COLUMNS)
    # run ranks: per metric the reference over its own topics, then each set
    for m in metrics:
        if m not in scores[reference]:
            continue
        R = scores[reference][m]
        runs = list(R.columns)
        mr = _means_frame(R).to_numpy(np.float64)[0]                      # row after row: a fixed order
        rank_rows.append(pd.DataFrame({"metric": m, "run": runs, "qrels": reference, "mean": mr,
                                       "rank": competition_ranks(mr), "rank_change": 0}))
        for j, job in enumerate(jobs):
            if job[0] != m:
                continue
            mean, rk, rref = per_job_ranks[j]
            rank_rows.append(pd.DataFrame({"metric": m, "run": runs, "qrels": job[1], "mean": mean,
                                           "rank": rk, "rank_change": rref - rk}))
    rr = (pd.concat(rank_rows, ignore_index=True) if rank_rows
          else pd.DataFrame(columns=RUN_RANKS_COLUMNS))[RUN_RANKS_COLUMNS]
    for c in ("rank", "rank_change"):
        rr[c] = rr[c].astype(np.int64)
    bar.close()
    return {"ranking_agreement": ra_table, "run_ranks": rr, "topic_ranking_agreement": topic_ranking(jobs, reference)}


def topic_ranking(jobs: list, reference: str) -> pd.DataFrame:
    """``topic_ranking_agreement``: per metric, set and topic both scored, the correlation of the
    runs' scores on that topic (tau-a, tau-b, Pearson, Spearman; scores rounded to
    :data:`TIE_DECIMALS` for the rank coefficients)."""
    frames = []
    for m, s, a, b in jobs:
        if list(a.index) == [MEANS]:
            continue
        have = set(map(str, b.index))
        common = [t for t in a.index if str(t) in have]
        if not common:
            continue
        X = a.loc[common].to_numpy(np.float64)
        Y = b.loc[common].to_numpy(np.float64)
        rx, ry = np.round(X, TIE_DECIMALS), np.round(Y, TIE_DECIMALS)
        ta, tb = tau_ab(rx, ry)
        frames.append(pd.DataFrame({"metric": m, "qrels": s, "reference": reference,
                                    "topic": pd.Series([str(t) for t in common], dtype=object),
                                    "runs": np.int64(X.shape[1]), "tau": ta, "tau_b": tb, "pearson": pearson(X, Y),
                                    "spearman": spearman(rx, ry)}))
    out = (pd.concat(frames, ignore_index=True) if frames
           else pd.DataFrame(columns=TOPIC_RANKING_COLUMNS))[TOPIC_RANKING_COLUMNS]
    for c in ("metric", "qrels", "reference", "topic"):
        out[c] = out[c].astype(object)
    out["runs"] = out["runs"].astype(np.int64)
    return out


def _jackknife_taus(X: np.ndarray, other: np.ndarray, side: str) -> np.ndarray:
    """(n, J) tau-a with each topic of ``X`` (n, J, runs) left out in turn: the leave-one-out means
    ``(sum - x_i) / (n - 1)``, rounded.  ``side`` "both": ``other`` (n, J, runs) the other side's
    scores on the same topics, left out alike; "a" / "b": ``other`` (J, runs) the other side's
    rounded means, ``X`` the reference's / the set's scores."""
    n, J, r = X.shape
    if n < 2:
        return np.full((1, J), np.nan)
    out = np.empty((n, J))
    sx: np.ndarray = X.sum(axis=0)
    so: np.ndarray = other.sum(axis=0) if side == "both" else np.zeros(0)
    step = max(1, CHUNK_CELLS // (J * r * r))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        loo: np.ndarray = np.round((sx[None] - X[lo:hi]) * (1.0 / (n - 1)), TIE_DECIMALS)
        oth: np.ndarray
        if side == "both":
            oth = np.round((so[None] - other[lo:hi]) * (1.0 / (n - 1)), TIE_DECIMALS)
        else:
            oth = np.broadcast_to(other, loo.shape)
        out[lo:hi] = _tau_a(oth, loo) if side == "b" else _tau_a(loo, oth)
    return out


def _decisions(df: pd.DataFrame) -> np.ndarray:
    """+1 / -1 significant with ``run`` / ``other`` better, 0 not significant."""
    sig = df["significant"].to_numpy(bool)
    return np.where(sig, np.sign(df["diff"].to_numpy(np.float64)), 0.0).astype(np.int8)


def decision_agreement(scores: dict, reference: str, metrics, *, topics: str = "common", test: str = "paired-t",
                       correction: str | None = None, alpha: float = 0.05, B: int | None = None,
                       seed: int = 0, means_only=frozenset()) -> pd.DataFrame:
    """The ``decision_agreement`` table (module docstring): one :func:`~metaeval.meta.compare.compare`
    per set and topic set, all metrics of it at once."""
    from .compare import compare

    metrics = list(metrics)
    jobs = [j for j in _jobs(scores, reference, metrics, topics, means_only) if list(j[2].index) != [MEANS]]
    cache: dict = {}

    def run(name, key, mats):
        # keyed by the metrics too: under --topic-set own two sets' groups may share the reference's
        # topics with different metrics (a measure one set does not give)
        ck = (name, key, tuple(mats))
        if ck not in cache:
            df = compare(mats, test=test, correction=correction, alpha=alpha, B=B, seed=seed)
            cache[ck] = {m: _decisions(g) for m, g in df.groupby("metric", sort=False)}
        return cache[ck]

    # group jobs: per (set, topics of the set) one compare call over all its metrics; the reference's
    # decisions per topic set likewise
    by_set: dict = {}
    for m, s, a, b in jobs:
        by_set.setdefault((s, tuple(map(str, b.index)), tuple(map(str, a.index))), []).append((m, a, b))
    dec: dict = {}
    for (s, kb, ka), items in by_set.items():
        ds = run(s, kb, {m: b for m, _a, b in items})
        dr = run(reference, ka, {m: a for m, a, _b in items})
        for m, _a, _b in items:
            dec[(m, s)] = (dr[m], ds[m])
    rows = []
    for m, s, _a, _b in jobs:
        r, q = dec[(m, s)]
        same = int((r == q).sum())
        rows.append([m, s, reference, len(r), int((r != 0).sum()), int((q != 0).sum()), same,
                     int(((r * q) < 0).sum()), same / len(r) if len(r) else np.nan])
    out = pd.DataFrame(rows, columns=DECISION_AGREEMENT_COLUMNS)
    for c in ("metric", "qrels", "reference"):
        out[c] = out[c].astype(object)
    return out


def discpower_by_set(scores: dict, metrics, *, alpha: float = 0.05, seed: int = 0, B: int = 1000,
                     means_only=frozenset()) -> pd.DataFrame:
    """The discriminative-power table (:func:`metaeval.meta.discpower.stage_discpower`, randomised
    Tukey HSD and the other tests of the collection's method) per set, over each set's own topics,
    with a first column ``qrels``."""
    from .discpower import DISCPOWER_COLUMNS, stage_discpower

    frames = []
    for s, mats in scores.items():
        ms = [m for m in metrics if m in mats and s not in means_only]
        if not ms:
            continue
        dp = stage_discpower({m: mats[m] for m in ms}, ms, alpha=alpha, seed=seed, B_r=B)["discriminative_power"]
        dp.insert(0, "qrels", s)
        frames.append(dp)
    cols = ["qrels", *DISCPOWER_COLUMNS]
    out = (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols))[cols]
    out["qrels"] = out["qrels"].astype(object)
    return out
