"""Prediction-powered intervals for run scores judged by an LLM (or any second assessor), and the
judging budget they buy.

Units are topics (Oosterhuis, Jagerman, Qin, Wang & Bendersky 2024): for a run and a measure, ``Y``
are the per-topic scores under the human qrels on the labelled topics ``L``, ``Yh`` the scores under
the judge's qrels on ``L`` and ``Yu`` the judge's on the unlabelled topics ``U`` (the judge's topics
not in ``L``).  Four estimators of the run's mean score under the human qrels:

``human``  ``Y`` alone: the classical CLT interval (``ppi_py.classical_mean_ci``);
``judge``  the judge's scores on ``L`` and ``U``: its CLT interval (what papers report today);
``ppi``    prediction-powered inference with lambda = 1 (Angelopoulos, Bates, Fannjiang, Jordan &
           Zrnic 2023): ``mean(Yu) + mean(Y - Yh)``, variance ``var(Yu)/N + var(Y - Yh)/n``;
``ppi++``  the power-tuned estimate (Angelopoulos, Duchi & Zrnic 2023): ``lambda mean(Yu) +
           mean(Y - lambda Yh)``, lambda = ``cov(Y, Yh) / ((1 + n/N) var(Yh u Yu))`` clipped to
           [0, 1] -- as ``ppi_py`` 0.2.3 tunes it (``_calc_lam_glm``: the covariance over ``L``
           with ddof 0, the variance over ``L u U`` with ddof 1).

Every standard deviation is ddof 0 (``numpy.std``), every interval ``estimate +- z se`` with ``z``
the normal ``1 - alpha/2`` quantile, as ``ppi_py``'s ``_zconfint_generic``.  The computation is
written on sufficient statistics vectorised over runs (and over trials for the budget): the
labelled topics are gathered, the unlabelled topics' mean and sum of squares are the judge's over
all its topics minus the labelled ones' (an exact identity, no catastrophic cancellation).
Sums are numpy reductions along fixed axes (an order set by the shape, never by a BLAS kernel).

Computes; writes nothing (:mod:`metaeval.report.ppi` writes).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .samples import trial_rng
from .display import Result

__all__ = ["BUDGET_COLUMNS", "DEFAULT_SIZES", "DEFAULT_TRIALS", "ESTIMATORS", "MEANS_COLUMNS", "PAIRS_COLUMNS",
           "Intervals", "PPIResult", "budget_sets", "budget_table", "draw_labelled", "estimate", "estimate_split",
           "human_equivalent",
           "means_table", "pairs_table", "read_topic_list", "run_ppi", "z_quantile"]

ESTIMATORS = ("human", "judge", "ppi", "ppi++")
DEFAULT_SIZES = (5, 10, 20, 30, 40)
DEFAULT_TRIALS = 1000
MEANS_COLUMNS = ("metric", "run", "estimator", "labelled", "unlabelled", "mean", "ci_low", "ci_high", "lambda")
PAIRS_COLUMNS = ("metric", "run", "other", "estimator", "diff", "ci_low", "ci_high", "significant")
BUDGET_COLUMNS = ("metric", "estimator", "labelled", "trials", "coverage", "coverage_se", "mean_width",
                  "human_only_topics", "topics_saved")
#: elements of one gathered (trials, n, runs) block of the budget
_CHUNK = 1 << 21


def z_quantile(alpha: float) -> float:
    """The normal ``1 - alpha/2`` quantile (statsmodels' ``_zconfint_generic``)."""
    from scipy.stats import norm

    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    return float(norm.ppf(1 - float(alpha) / 2.0))


@dataclass
class Intervals:
    """Per estimator (axis 0, :data:`ESTIMATORS`) the point estimate, interval and lambda, over
    the leading axes of the input (trials) and runs (the last axis)."""
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    lam: np.ndarray


def _tsum(x: np.ndarray) -> np.ndarray:
    """The sum over the topics (axis -2), each run's topics contiguous: numpy's pairwise sum in an
    order set by the number of topics alone -- a run's numbers do not depend on the other runs or
    trials computed with it (nor on the CPU: no BLAS)."""
    return np.add.reduce(np.ascontiguousarray(np.swapaxes(x, -1, -2)), axis=-1)


def _tmean(x: np.ndarray) -> np.ndarray:
    return _tsum(x) / x.shape[-2]


def _centred_ms(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Mean of squares about ``m`` along axis -2 (``numpy.std``'s ddof-0 variance)."""
    d = x - m[..., None, :]
    return _tmean(d * d)


def estimate_split(Yl: np.ndarray, Yhl: np.ndarray, mu_u: np.ndarray, ss_u: np.ndarray, N: int,
                   m_all: np.ndarray, ss_all: np.ndarray, z: float) -> Intervals:
    """The four estimators from the labelled scores ``Yl``, ``Yhl`` ``(..., n, R)`` and the judge's
    unlabelled mean ``mu_u`` and sum of squares about it ``ss_u`` ``(..., R)`` over ``N`` topics,
    and its mean ``m_all`` and sum of squares ``ss_all`` over all ``n + N`` topics.  ``N = 0``:
    the ``ppi`` and ``ppi++`` rows are NaN (nothing unlabelled to carry the judge's information)."""
    n = Yl.shape[-2]
    K = n + N
    mY = _tmean(Yl)
    shape = (len(ESTIMATORS),) + mY.shape
    mean, se, lam = np.empty(shape), np.empty(shape), np.empty(shape)
    # human: the classical interval on Y
    mean[0] = mY
    se[0] = np.sqrt(_centred_ms(Yl, mY)) / math.sqrt(n)
    lam[0] = 0.0
    # judge: the classical interval on the judge's scores of every topic
    mean[1] = m_all
    se[1] = np.sqrt(ss_all / K) / math.sqrt(K)
    lam[1] = np.nan
    if N == 0:
        mean[2:] = se[2:] = lam[2:] = np.nan
    else:
        mYh = _tmean(Yhl)
        cov = _tmean((Yl - mY[..., None, :]) * (Yhl - mYh[..., None, :]))
        var1 = ss_all / (K - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            tuned = np.where(var1 > 0, cov / ((1.0 + n / N) * var1), 0.0)
        lam[2] = 1.0
        lam[3] = np.clip(tuned, 0.0, 1.0)
        sd_u = np.sqrt(np.maximum(ss_u, 0.0) / N)
        for e in (2, 3):
            lm = lam[e]
            rect = Yl - lm[..., None, :] * Yhl
            mr = _tmean(rect)
            mean[e] = lm * mu_u + mr
            imp = lm * sd_u / math.sqrt(N)
            rs = np.sqrt(_centred_ms(rect, mr)) / math.sqrt(n)
            se[e] = np.sqrt(imp * imp + rs * rs)
    return Intervals(mean, mean - z * se, mean + z * se, lam)


def estimate(Y: np.ndarray, Yh: np.ndarray, Yu: np.ndarray, alpha: float = 0.05) -> Intervals:
    """The four estimators for the labelled human scores ``Y``, the judge's ``Yh`` on the same
    topics and its ``Yu`` on the unlabelled ones: ``(..., topics, runs)`` arrays (a vector: one run)."""
    Y, Yh, Yu = (np.asarray(a, dtype=np.float64) for a in (Y, Yh, Yu))
    one = Y.ndim == 1
    if one:
        Y, Yh, Yu = Y[:, None], Yh[:, None], Yu[:, None]
    if Y.shape != Yh.shape or Y.shape[-2] < 2:
        raise ValueError("Y and Yh need the same shape and at least 2 labelled topics")
    N = Yu.shape[-2]
    mu_u = _tmean(Yu) if N else np.zeros(Y.shape[:-2] + Y.shape[-1:])
    ss_u = _centred_ms(Yu, mu_u) * N if N else np.zeros_like(mu_u)
    allj = np.concatenate([Yh, Yu], axis=-2)
    m_all = _tmean(allj)
    ss_all = _centred_ms(allj, m_all) * allj.shape[-2]
    out = estimate_split(Y, Yh, mu_u, ss_u, N, m_all, ss_all, z_quantile(alpha))
    if one:
        out = Intervals(*(a[..., 0] for a in (out.mean, out.low, out.high, out.lam)))
    return out


# ------------------------------------------------------------------------------------ the tables
def means_table(metric: str, runs: Sequence[str], Y: np.ndarray, Yh: np.ndarray, Yu: np.ndarray, alpha: float) -> pd.DataFrame:
    """``ppi_means`` rows of one metric: ``Y``, ``Yh`` ``(n, R)``, ``Yu`` ``(N, R)``."""
    iv = estimate(Y, Yh, Yu, alpha)
    n, N, R = Y.shape[0], Yu.shape[0], Y.shape[1]
    E = len(ESTIMATORS)
    unl = np.array([0, N, N, N])
    return pd.DataFrame({
        "metric": metric, "run": np.repeat(np.asarray(list(runs), dtype=object), E),
        "estimator": np.tile(np.asarray(ESTIMATORS, dtype=object), R),
        "labelled": n, "unlabelled": np.tile(unl, R),
        "mean": iv.mean.T.ravel(), "ci_low": iv.low.T.ravel(), "ci_high": iv.high.T.ravel(),
        "lambda": iv.lam.T.ravel()})


def pairs_table(metric: str, runs: Sequence[str], Y: np.ndarray, Yh: np.ndarray, Yu: np.ndarray, alpha: float) -> pd.DataFrame:
    """``ppi_pairs`` rows of one metric: the estimators on the per-topic differences ``run - other``
    of every unordered pair (``run`` before ``other`` in the runs' order)."""
    R = Y.shape[1]
    i, j = np.triu_indices(R, k=1)
    if not len(i):
        return pd.DataFrame({c: [] for c in PAIRS_COLUMNS})
    iv = estimate(Y[:, i] - Y[:, j], Yh[:, i] - Yh[:, j], Yu[:, i] - Yu[:, j], alpha)
    P, E = len(i), len(ESTIMATORS)
    names = np.asarray(list(runs), dtype=object)
    lo, hi = iv.low, iv.high
    sig = (lo > 0) | (hi < 0)
    df = pd.DataFrame({
        "metric": metric, "run": np.repeat(names[i], E), "other": np.repeat(names[j], E),
        "estimator": np.tile(np.asarray(ESTIMATORS, dtype=object), P),
        "diff": iv.mean.T.ravel(), "ci_low": lo.T.ravel(), "ci_high": hi.T.ravel(), "significant": sig.T.ravel()})
    return df


def draw_labelled(n_topics: int, size: int, seed: int) -> np.ndarray:
    """``size`` of ``n_topics`` positions drawn without replacement (``--labelled N``), sorted."""
    rng = trial_rng(seed, "ppi", 0, n_topics, size)
    return np.sort(np.argsort(rng.random(n_topics), kind="stable")[:size])


def budget_sets(n_topics: int, size: int, trials: int, seed: int) -> np.ndarray:
    """``(trials, size)`` random labelled sets of ``size`` of ``n_topics`` positions: row ``t`` is
    the first ``size`` positions of the ordering of ``n_topics`` uniform draws, all rows drawn at once
    from ``trial_rng(seed, "ppi", 1, n_topics, size)`` (the first ``k`` trials whatever the number)."""
    if not 2 <= size <= n_topics:
        raise ValueError(f"cannot draw {size} of {n_topics} topics")
    rng = trial_rng(seed, "ppi", 1, n_topics, size)
    return np.argsort(rng.random((int(trials), n_topics)), axis=1, kind="stable")[:, :size]


def human_equivalent(n: int, human_width: float, width: float) -> float:
    """The human-labelled topics a human-only interval would need to be as narrow as one of
    ``width``, given the human-only interval's ``human_width`` on ``n`` topics: a CLT interval's
    width falls as ``1 / sqrt(topics)``, so ``n * (human_width / width) ** 2`` (``n`` for the
    human estimator itself; NaN when a width is 0 or undefined)."""
    if not (math.isfinite(human_width) and math.isfinite(width)) or width <= 0.0:
        return math.nan
    r = human_width / width
    return float(n) * r * r


def budget_table(metric: str, Yd: np.ndarray, Yhd: np.ndarray, Yh_all: np.ndarray,
                 target: np.ndarray, sizes: Iterable[int], trials: int, seed: int, alpha: float) -> pd.DataFrame:
    """``ppi_budget`` rows of one metric.  ``Yd`` ``(A, R)``: the human scores on the topics a
    labelled set is drawn from (human-judged and judged by the judge), ``Yhd`` the judge's on them,
    ``Yh_all`` ``(J, R)`` the
    judge's scores on all its topics, ``target`` ``(R,)`` the human mean over every human topic.
    For each size, ``trials`` labelled sets (:func:`budget_sets`); ``U`` the judge's other topics.
    Coverage: the share of (trial, run) intervals holding the target; its standard error from the
    per-trial shares (runs of one trial are not independent); mean width over trials and runs;
    ``human_only_topics`` the human-labelled topics a human-only interval as narrow would need
    (:func:`human_equivalent`: size x the squared ratio of the human estimator's mean width to this
    one's) and ``topics_saved`` that minus the size: the human topics the judge saves."""
    z = z_quantile(alpha)
    A = Yd.shape[0]
    J, R = Yh_all.shape
    s1_all = _tsum(Yh_all)
    m_all = s1_all / J
    dev = Yh_all - m_all
    ss_all = _tsum(dev * dev)
    rows = []
    for size in sizes:
        n = int(size)
        N = J - n
        if N < 1:
            raise ValueError(f"a labelled set of {n} topics leaves none of the judge's {J} unlabelled")
        idx = budget_sets(A, n, trials, seed)
        cover = np.empty((len(ESTIMATORS), trials))
        width = np.empty((len(ESTIMATORS), trials))
        step = max(1, _CHUNK // max(1, n * R))
        for t0 in range(0, trials, step):
            ix = idx[t0:t0 + step]
            Yl, Yhl = Yd[ix], Yhd[ix]                       # (t, n, R)
            mu_u = (s1_all - _tsum(Yhl)) / N
            d = Yhl - mu_u[:, None, :]
            dm = m_all - mu_u
            ss_u = ss_all + J * dm * dm - _tsum(d * d)
            iv = estimate_split(Yl, Yhl, mu_u, ss_u, N, np.broadcast_to(m_all, mu_u.shape),
                                np.broadcast_to(ss_all, mu_u.shape), z)
            hit = (iv.low <= target) & (target <= iv.high)
            cover[:, t0:t0 + len(ix)] = hit.mean(axis=-1)
            width[:, t0:t0 + len(ix)] = (iv.high - iv.low).mean(axis=-1)
        cov = cover.mean(axis=1)
        se = cover.std(axis=1, ddof=1) / math.sqrt(trials) if trials > 1 else np.full(len(ESTIMATORS), np.nan)
        if trials > 1:                                  # the same share in every trial: exactly 0
            se = np.where(cover.max(axis=1) == cover.min(axis=1), 0.0, se)
        wid = width.mean(axis=1)
        for e, name in enumerate(ESTIMATORS):
            eq = human_equivalent(n, float(wid[0]), float(wid[e]))
            rows.append((metric, name, n, int(trials), float(cov[e]), float(se[e]), float(wid[e]), eq, eq - n))
    return pd.DataFrame(rows, columns=list(BUDGET_COLUMNS))


@dataclass
class PPIResult(Result):
    """What ``metaeval ppi`` computed: the tables ``ppi_means``, ``ppi_pairs``, ``ppi_budget``; the
    topic sets (``labelled``, ``unlabelled``, ``human_topics``), the runs, metrics, alpha and notes;
    ``scores`` ``{metric: (human, judge)}``: the per-topic scores (topic x run DataFrames) under each."""
    means: pd.DataFrame
    pairs: pd.DataFrame
    budget: pd.DataFrame
    labelled: list
    unlabelled: list
    human_topics: list
    runs: list
    metrics: list
    alpha: float
    notes: list = field(default_factory=list)
    scores: dict = field(default_factory=dict)

    @property
    def tables(self) -> dict:
        return {"ppi_means": self.means, "ppi_pairs": self.pairs, "ppi_budget": self.budget}


# ------------------------------------------------------------------------- from files to tables
def _files(spec: str | os.PathLike | Iterable[str | os.PathLike], what: str = "qrels") -> list[str]:
    from ..util import file_args

    out = [f for s in file_args(spec, what) for f in s.split(",") if f]
    if not out:
        raise ValueError("no qrels file given")
    return out


def _where(files: list[str]) -> str:
    return files[0] if len(files) == 1 else f"{files[0]} (and {len(files) - 1} more)"


def read_topic_list(path: str | os.PathLike) -> list[str]:
    """The labelled topics of ``--labelled-topics FILE``: the first word of every non-empty line
    not starting with ``#`` (a topic id per line, or TREC qrels), each once in file order; plain or
    gzip, a leading byte-order mark dropped, as every reader (:func:`metaeval.util.open_text`)."""
    import zlib

    from ..errors import InputError
    from ..util import open_text

    try:                                   # the one text reader: read once, gzip, a BOM, CRLF
        with open_text(path) as fh:
            text = fh.read()
    except (OSError, EOFError, zlib.error) as e:
        raise InputError(f"cannot read the labelled topics: {e.strerror or e if isinstance(e, OSError) else e}",
                         path) from None
    except UnicodeDecodeError as e:
        raise InputError(f"cannot read the labelled topics: not UTF-8 text (byte 0x{e.object[e.start]:02x})",
                         path) from None
    seen: dict = {}
    for line in text.splitlines():
        w = line.split()
        if w and not w[0].startswith("#"):
            seen.setdefault(w[0], None)
    return list(seen)


def run_ppi(qrels: str | os.PathLike | Iterable[str | os.PathLike], judge: str | os.PathLike | Iterable[str | os.PathLike],
            runs: str | Iterable[str], *, metrics: str | Iterable[str] = ("AP", "nDCG@10"),
            labelled_topics: str | os.PathLike | Iterable[str] | None = None, labelled: int | None = None,
            alpha: float = 0.05, seed: int = 0, sizes: Iterable[int] | None = None, trials: int = DEFAULT_TRIALS,
            gains: str | None = None,
            order: str | None = None, depth: int | None = 1000, on_conflict: str = "error",
            trec_eval_version: int = 10) -> PPIResult:
    """Every table of ``metaeval ppi``; see :func:`metaeval.ppi`."""
    import warnings

    from ..errors import InputError, InputWarning
    from ..io.judgments import label_sets, read_sets, set_collection
    from ..metrics import compute_matrices, parse_gains
    from ..metrics.registry import check_vocabulary, unique_measures

    from ..io.ingest import check_trec_eval_version

    trec_eval_version = check_trec_eval_version(trec_eval_version)
    hfiles, jfiles = _files(qrels), _files(judge, "judge")
    hwhere, jwhere = _where(hfiles), _where(jfiles)
    z_quantile(alpha)
    if labelled_topics is not None and labelled is not None:
        raise ValueError("give the labelled topics (a file) or their number, not both")
    if int(trials) < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    notes: list = []

    def note(msg: str) -> None:
        notes.append(msg)
        warnings.warn(InputWarning(msg), stacklevel=3)

    if order is None:
        from ..io.conventions import default_order

        order = default_order(None, hfiles[0], list(runs) if isinstance(runs, (list, tuple)) else [runs])
    js = read_sets({"human": hfiles, "judge": jfiles}, on_conflict=on_conflict)
    # what the qrels alone decide, before any run is read
    both = np.intersect1d(js.item_topic[js.labels[0] >= 0], js.item_topic[js.labels[1] >= 0])
    if not len(both):
        raise InputError(f"the judge's qrels ({jwhere}) and the human qrels ({hwhere}) judged no topic in common: "
                         f"no labelled topic to calibrate the judge on", jwhere)
    lr = label_sets(js, runs, order=order or "file", depth=depth, trec_eval_version=trec_eval_version)
    Hmax = js.max_level
    g = None if gains is None else parse_gains(gains)
    if g is not None and len(g) < Hmax:
        raise InputError(f"--gains gives {len(g)} values but the qrels use level {Hmax}", hwhere)
    if g is not None:
        Hmax = len(g)
    ms = unique_measures([metrics] if isinstance(metrics, str) else list(metrics), where="metrics",
                         vocabulary=check_vocabulary(None, order or "file"))
    names = [m.name for m in ms]
    pos = {t: i for i, t in enumerate(lr.topics)}
    judged = [np.unique(js.item_topic[js.labels[s] >= 0]) for s in (0, 1)]
    judged_topics = [{js.topics[i] for i in j.tolist()} for j in judged]
    # the human topics: those with a relevant document under the human qrels (as every measure here)
    hc = set_collection(js, 0, lr, Hmax)
    human = list(hc.topics)
    if not human:
        raise InputError("no topic of the runs has a relevant document under the human qrels", hwhere)
    no_rel = sorted(t for t in judged_topics[0] if t in pos and t not in set(human))
    if no_rel:
        note(f"{hwhere}: {len(no_rel)} human-judged topic(s) without a relevant document have no score and are "
             f"left out: {', '.join(no_rel[:5])}{' ...' if len(no_rel) > 5 else ''}")
    # the judge's topics: every topic it judged (a topic without a relevant document scores 0)
    judge_t = [t for t in lr.topics if t in judged_topics[1]]
    jset = set(judge_t)
    hset = set(human)
    drawable = [t for t in human if t in jset]
    if labelled_topics is not None:
        if isinstance(labelled_topics, (str, os.PathLike)):
            src = os.fspath(labelled_topics)
            L = read_topic_list(src)
        else:
            src, L = hwhere, [str(t) for t in labelled_topics]
        for t in L:
            if t not in hset:
                why = ("has no relevant document under" if t in judged_topics[0] else "is not judged in")
                raise InputError(f"labelled topic {t} {why} the human qrels {hwhere}", src, topic=t)
    elif labelled is not None:
        k = int(labelled)
        if k > len(drawable):
            raise InputError(f"--labelled {k}: only {len(drawable)} human topics are also judged by the judge "
                             f"({jwhere})", hwhere)
        if k < 2:
            raise InputError(f"--labelled {k}: at least 2 labelled topics are needed", hwhere)
        L = [drawable[i] for i in draw_labelled(len(drawable), k, seed).tolist()]
        src = hwhere
    else:
        L, src = list(human), hwhere
    for t in L:
        if t not in jset:
            raise InputError(f"labelled topic {t} is not judged by the judge", jwhere, topic=t)
    if len(L) < 2:
        raise InputError(f"{len(L)} labelled topic(s){': ' + L[0] if L else ''}; at least 2 are needed", src,
                         topic=L[0] if L else None)
    lset = set(L)
    U = [t for t in judge_t if t not in lset]
    if not U:
        note(f"every topic the judge ({jwhere}) scored is labelled: the ppi and ppi++ rows of ppi_means and "
             f"ppi_pairs are empty (NaN); --labelled N or --labelled-topics leaves topics to the judge")
    sizes_given = sizes is not None
    sizes = sorted({int(s) for s in (DEFAULT_SIZES if sizes is None else sizes)})
    ok = [s for s in sizes if 2 <= s <= len(drawable) and s < len(judge_t)]
    if sizes_given and ok != sizes:
        bad = next(s for s in sizes if s not in ok)
        raise InputError(f"--sizes {bad}: a labelled set needs 2 to {min(len(drawable), len(judge_t) - 1)} topics "
                         f"({len(drawable)} human topics judged by the judge, {len(judge_t)} judge topics)", hwhere)
    if not ok and len(drawable) >= 2 and len(judge_t) > 2:
        ok = [min(len(drawable), len(judge_t) - 1)]
    if ok != sizes and not sizes_given:
        note(f"budget sizes {', '.join(map(str, ok))} (the defaults that fit {len(drawable)} drawable topics)")
    if ok:                                 # the budget's labelled sets: (trials, topics) floats, then positions
        from ..util import check_memory

        check_memory(16 * int(trials) * len(drawable), f"the budget's {int(trials)} labelled sets per size", "--trials")
    jc = set_collection(js, 1, lr, Hmax)
    hv = compute_matrices(hc, ms, g)
    jv = compute_matrices(jc, ms, g)
    hpos = {t: i for i, t in enumerate(hc.topics)}
    jpos = {t: i for i, t in enumerate(jc.topics)}
    R = len(lr.runs)
    run_names = list(lr.runs)
    Li_h = np.array([hpos[t] for t in L])
    D_h = np.array([hpos[t] for t in drawable])
    means, pairs, budget = [], [], []
    scores: dict = {}
    for m in names:
        Hm = np.asarray(hv[m], dtype=np.float64).T                  # (human topics, R)
        Jm = np.zeros((len(judge_t), R))
        src_rows = [k for k, t in enumerate(judge_t) if t in jpos]
        Jm[src_rows] = np.asarray(jv[m], dtype=np.float64).T[[jpos[judge_t[k]] for k in src_rows]]
        jt = {t: i for i, t in enumerate(judge_t)}
        scores[m] = (pd.DataFrame(Hm, index=list(hc.topics), columns=run_names),
                     pd.DataFrame(Jm, index=judge_t, columns=run_names))
        Y = Hm[Li_h]
        Yh = Jm[[jt[t] for t in L]]
        Yu = Jm[[jt[t] for t in U]] if U else np.zeros((0, R))
        means.append(means_table(m, run_names, Y, Yh, Yu, alpha))
        pairs.append(pairs_table(m, run_names, Y, Yh, Yu, alpha))
        if ok:
            budget.append(budget_table(m, Hm[D_h], Jm[[jt[t] for t in drawable]], Jm, Hm.mean(axis=0), ok,
                                       int(trials), int(seed), alpha))

    def cat(parts: list, cols: tuple) -> pd.DataFrame:
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({c: [] for c in cols})
    return PPIResult(cat(means, MEANS_COLUMNS), cat(pairs, PAIRS_COLUMNS), cat(budget, BUDGET_COLUMNS), list(L), U,
                     human, run_names, names, float(alpha), notes, scores)
