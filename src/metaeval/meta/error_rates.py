"""Which significance test to trust: simulated type I, II and III error rates (Urbano, Lima & Hanjalic 2019).

On a collection's per-topic score matrices, for each metric:

1. **Runs** -- duplicates (every score within ``1e-5`` of an earlier run's, removed or not) and
   then the bottom 10% of runs by mean score are removed, as the paper's ``removeDuplicates`` /
   ``removeBottom(p = .1)`` (``R/common.R``, applied in ``R/01-margins.R`` and ``R/03-bicops.R``).
2. **Margins** -- every run's scores get the margin of least AIC (:mod:`.margins`; discrete
   families on a known support for P@k and RR).
3. **Pairs and copulas** -- type I: ``pairs`` run pairs drawn at random; both simulated runs take
   the first run's margin (same expected value: every rejection is a type I error), joined by the
   copula of least AIC among VineCopula's whole family set fitted to the two runs' scores
   (:mod:`.copulas`: also BB1, BB6, BB7, BB8 and the asymmetric Tawn copulas, with rotations; an
   asymmetric copula skews the per-topic differences, which the Wilcoxon and sign tests read as
   a shift).  Type II and III, per ``delta``: ``pairs`` pairs whose baseline is drawn from the
   runs outside the top 25% by expected value and whose experimental run from the 10 runs closest
   in expected value to the baseline's plus ``delta``; the experimental margin is transformed to
   exactly the baseline's expected value plus ``delta`` (:func:`.margins.transform`), the two
   joined by their fitted copula (``R/02-margins_transform.R``, ``R/12-type_2.R``).
4. **Simulation** -- per pair and topic set size ``n``, ``trials`` topic sets of ``n`` topics;
   every test (:mod:`.urbano_tests`, the conventions of the paper's ``ir_tests.R``) on every
   simulated set, vectorised over the trials in batches.
5. **Rates** -- over all trials of a (metric, n) cell: type I = fraction of two-tailed p-values
   ``<= alpha`` under the null (R's ``ecdf(p)(alpha)``; the sign test's undefined p-values,
   all differences tied, are left out as R's ``ecdf`` leaves out ``NA``); power = the same
   fraction under each ``delta``; type III = the fraction of trials with a two-tailed p-value
   ``<= alpha`` *and* a negative observed mean difference (``R/13-type_3.R``).  ``se`` =
   ``sqrt(rate (1 - rate) / trials)``, the binomial standard error of the rate.

Every random draw comes from ``trial_rng(seed, "test_errors", metric, kind, delta, pair, size,
batch)``: a cell's numbers depend on the seed and its own key only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from . import copulas as C
from . import margins as M
from .samples import single_threaded_blas, trial_rng
from .display import Result
from .stages.common import TE_ALPHAS as DEFAULT_ALPHAS, TE_DELTAS as DEFAULT_DELTAS, TE_TESTS as TESTS
from .stages.common import TE_TOPICS as DEFAULT_TOPICS
from .urbano_tests import run_tests

__all__ = ["test_errors", "TestErrors", "DEFAULT_ALPHAS", "DEFAULT_DELTAS", "DEFAULT_TOPICS", "prepare_runs",
           "TYPE1_COLUMNS", "RATE_COLUMNS", "MARGIN_COLUMNS", "COPULA_COLUMNS"]

TYPE1_COLUMNS = ["metric", "n_topics", "test", "alpha", "rate", "se", "trials"]
RATE_COLUMNS = ["metric", "n_topics", "test", "delta", "alpha", "rate", "se", "trials"]
MARGIN_COLUMNS = ["metric", "run", "family", "df", "aic", "mean", "params"]
COPULA_COLUMNS = ["metric", "kind", "delta", "run_b", "run_e", "family", "rotation", "par", "par2", "tau"]
#: trials x resamples held at once by the bootstrap and permutation tests (memory bound, ~64 MB)
_CELLS = 8_000_000


class TestErrors(Result):
    """The result: ``type1``, ``power``, ``type3``, ``margins`` and ``copulas`` DataFrames."""

    __test__ = False                                 # not a pytest class

    def __init__(self, type1, power, type3, margins, copulas):
        self.type1, self.power, self.type3, self.margins, self.copulas = type1, power, type3, margins, copulas

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        return {"test_errors_type1": self.type1, "test_errors_power": self.power,
                "test_errors_type3": self.type3}

    def _parts(self) -> dict[str, pd.DataFrame]:
        return {"type1": self.type1, "power": self.power, "type3": self.type3, "margins": self.margins,
                "copulas": self.copulas}

    def __repr__(self) -> str:
        from .display import short_repr

        return short_repr("TestErrors", self._parts())

    def _repr_html_(self) -> str:
        from .display import html_view

        return html_view("TestErrors", self._parts(), "type1")


#: the fewest topics whose scores a margin is fitted to (one topic: degenerate fits, shapes near 1e13)
MIN_TOPICS = 3


def prepare_runs(X: np.ndarray, runs: list[str], bottom: float = 0.1, tol: float = 1e-5):
    """The runs the simulation models, as the paper's ``R/common.R``: ``removeDuplicates`` (a run
    goes when every score is within ``tol`` of an earlier run's, kept or itself removed), then
    ``removeBottom(p = bottom)`` (the runs whose mean is below the ``bottom`` quantile of the means,
    R's default type 7 = numpy's linear)."""
    keep = [j for j in range(X.shape[1])
            if j == 0 or not np.any(np.all(np.abs(X[:, :j] - X[:, j:j + 1]) <= tol, axis=0))]
    X, runs = X[:, keep], [runs[j] for j in keep]
    mu = X.mean(axis=0)
    sel = mu >= np.quantile(mu, bottom)
    return X[:, sel], [r for r, s in zip(runs, sel) if s]


def _simulate_cell(mb, me, cop, n, trials, tests, B, rngkey, seed):
    """p2 and the mean difference of every trial for one pair and size: ``({test: p2}, d)``."""
    batch = max(1, min(trials, _CELLS // max(B, 1)))
    p2: dict[str, list] = {t: [] for t in tests}
    dd = []
    for k, start in enumerate(range(0, trials, batch)):
        T = min(batch, trials - start)
        rng = trial_rng(seed, "test_errors", *rngkey, k)
        u1, u2 = C.simulate(cop, n, T, rng)
        b, e = mb.ppf(u1), me.ppf(u2)
        res = run_tests(b, e, tests, B=B, rng=rng)
        for t in tests:
            p2[t].append(res[t][1])
        dd.append(np.round((e - b).mean(axis=1), 6))
    return {t: np.concatenate(v) for t, v in p2.items()}, np.concatenate(dd)


def _rates(p, alphas, d=None):
    """``(rates, trials)`` at each alpha: fraction of defined p-values <= alpha (type III: with
    ``d < 0``, over all trials)."""
    ok = ~np.isnan(p)
    if d is None:
        m = int(ok.sum())
        r = np.array([(p[ok] <= a).sum() / m if m else np.nan for a in alphas])
        return r, m
    m = p.size
    r = np.array([((d < 0) & ok & (p <= a)).sum() / m for a in alphas])
    return r, m


@single_threaded_blas
def test_errors(matrices: dict, *, metrics=None, pairs: int = 20, topics=DEFAULT_TOPICS, trials: int = 1000,
                deltas=DEFAULT_DELTAS, alphas=DEFAULT_ALPHAS, tests=TESTS, B: int = 1000, seed: int = 0,
                bottom: float = 0.1) -> TestErrors:
    """Simulated error rates of ``tests`` on the collection of ``matrices`` (``{metric: topic x run
    DataFrame}``), as Urbano, Lima & Hanjalic (2019).  See the module docstring."""
    metrics = list(matrices) if metrics is None else list(metrics)
    tests = tuple(tests)
    for t in tests:
        if t not in TESTS:
            raise ValueError(f"unknown test {t!r}; known: {', '.join(TESTS)}")
    alphas = tuple(float(a) for a in alphas)
    type1_rows, power_rows, type3_rows, margin_rows, copula_rows = [], [], [], [], []
    from ..progress import Progress

    bar = Progress(len(metrics) * pairs * (1 + len(deltas)), "metaeval test-errors")
    for mi, metric in enumerate(metrics):
        df = matrices[metric]
        if df.shape[0] < MIN_TOPICS:
            raise ValueError(f"{metric}: {df.shape[0]} topic(s); fitting each run's score distribution needs at "
                             f"least {MIN_TOPICS}")
        X, runs = prepare_runs(df.to_numpy(dtype=np.float64), [str(c) for c in df.columns], bottom)
        if len(runs) < 3:
            raise ValueError(f"{metric}: fewer than 3 distinct runs left to model")
        support = M.support_for(metric, X)
        fit_rng = trial_rng(seed, "test_errors", mi, 0)
        margins = [M.fit_and_select(X[:, j], support) for j in range(len(runs))]
        for r, m in zip(runs, margins):
            margin_rows.append([metric, r, m.family, m.df, m.aic, m.mean,
                                ";".join(f"{k}={v:.6g}" for k, v in m.params.items())])
        mu = np.array([m.mean for m in margins])
        # ---- type I
        all_pairs = [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))]
        pick = fit_rng.choice(len(all_pairs), size=min(pairs, len(all_pairs)), replace=False)
        cells: dict[Any, Any] = {}
        for pi, q in enumerate(pick):
            i, j = all_pairs[q]
            if fit_rng.random() < 0.5:
                i, j = j, i
            cop = C.fit_copula(X[:, i], X[:, j], fit_rng)
            copula_rows.append([metric, "type1", 0.0, runs[i], runs[j], *C.describe(cop).values()])
            for si, n in enumerate(topics):
                p2, d = _simulate_cell(margins[i], margins[i], cop, n, trials, tests, B, (mi, 1, 0, pi, si), seed)
                for t in tests:
                    cells.setdefault((n, t), []).append(p2[t])
            bar.update()
        for (n, t), ps in cells.items():
            r, m = _rates(np.concatenate(ps), alphas)
            type1_rows += [[metric, n, t, a, x, np.sqrt(x * (1 - x) / m) if m else np.nan, m]
                           for a, x in zip(alphas, r)]
        # ---- type II and III
        order = np.argsort(-mu, kind="stable")
        baselines = order[round(len(mu) * 0.25):]
        for di, delta in enumerate(deltas):
            cells2: dict[Any, Any] = {}
            cells3: dict[Any, Any] = {}
            drng = trial_rng(seed, "test_errors", mi, 2, di)
            made = 0
            for attempt in range(pairs * 20):
                if made >= pairs:
                    break
                i = int(drng.choice(baselines))
                near = [j for j in np.argsort(np.abs(mu - mu[i] - delta), kind="stable") if j != i][:10]
                j = int(drng.choice(near))
                me = M.transform(margins[j], mu[i] + delta)
                if me is None:
                    continue
                cop = C.fit_copula(X[:, i], X[:, j], drng)
                copula_rows.append([metric, "shifted", delta, runs[i], runs[j], *C.describe(cop).values()])
                for si, n in enumerate(topics):
                    p2, d = _simulate_cell(margins[i], me, cop, n, trials, tests, B, (mi, 2, di, made, si), seed)
                    for t in tests:
                        cells2.setdefault((n, t), []).append(p2[t])
                        cells3.setdefault((n, t), []).append((p2[t], d))
                made += 1
                bar.update()
            for (n, t), ps in cells2.items():
                r, m = _rates(np.concatenate(ps), alphas)
                power_rows += [[metric, n, t, delta, a, x, np.sqrt(x * (1 - x) / m) if m else np.nan, m]
                               for a, x in zip(alphas, r)]
                p = np.concatenate([x[0] for x in cells3[(n, t)]])
                d = np.concatenate([x[1] for x in cells3[(n, t)]])
                r3, m3 = _rates(p, alphas, d)
                type3_rows += [[metric, n, t, delta, a, x, np.sqrt(x * (1 - x) / m3), m3]
                               for a, x in zip(alphas, r3)]

    bar.close()

    def frame(rows, cols, keys):
        f = pd.DataFrame(rows, columns=cols)
        if len(f):
            f["test"] = pd.Categorical(f["test"], categories=list(TESTS), ordered=True)
            f = f.sort_values(keys, kind="stable").reset_index(drop=True)
            f["test"] = f["test"].astype(str)
        return f

    return TestErrors(
        frame(type1_rows, TYPE1_COLUMNS, ["metric", "n_topics", "test", "alpha"]),
        frame(power_rows, RATE_COLUMNS, ["metric", "n_topics", "test", "delta", "alpha"]),
        frame(type3_rows, RATE_COLUMNS, ["metric", "n_topics", "test", "delta", "alpha"]),
        pd.DataFrame(margin_rows, columns=MARGIN_COLUMNS),
        pd.DataFrame(copula_rows, columns=COPULA_COLUMNS))


test_errors.__test__ = False                         # a function named test_*, not a pytest test
