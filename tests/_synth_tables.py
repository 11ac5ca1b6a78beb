"""Synthetic frames in the output contract's columns, for the tables/figures/summary tests."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

METRICS = ["AP", "Q-measure", "nDCG@10", "P-plus(gains=1:2:3)"]


def frames(seed: int = 0, runs: int = 6, topics: int = 8, B: int = 50,
           metrics=METRICS, test_errors: bool = True) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    run_ids = [f"run{i:02d}" for i in range(runs)]
    pairs = list(combinations(run_ids, 2))
    out = {}
    out["run_means"] = pd.DataFrame([(m, r, float(rng.random())) for m in metrics for r in run_ids],
                                    columns=["metric", "run", "mean"])
    out["asl"] = pd.DataFrame([(m, t, x, y, float(rng.random() ** 2)) for m in metrics
                               for t in ("paired", "unpaired") for x, y in pairs],
                              columns=["metric", "test", "system_x", "system_y", "asl"])
    sig = rng.integers(0, len(pairs), len(metrics))
    boot = pd.DataFrame({"metric": metrics, "pairs": len(pairs), "significant": sig,
                         "sensitivity": sig / len(pairs), "estimated_diff": rng.random(len(metrics)) / 3})
    out["bootstrap_paired"] = boot
    out["bootstrap_unpaired"] = boot.assign(significant=sig // 2, sensitivity=(sig // 2) / len(pairs))
    out["kendall"] = pd.DataFrame([(a, b, float(rng.uniform(0.3, 1)), 3.0, 0.001)
                                   for a, b in combinations(metrics, 2)],
                                  columns=["metric_a", "metric_b", "tau", "z0", "p_value"])
    mx = rng.uniform(0.5, 1, len(metrics))
    dr = np.round(rng.uniform(0.05, 0.2, len(metrics)), 2)
    out["swap"] = pd.DataFrame({"metric": metrics, "diff_required": dr, "max_diff": mx,
                                "relative": dr / mx, "pct_satisfying": rng.uniform(0, 60, len(metrics))})
    bins = np.round(np.arange(21) * 0.01, 2)
    comp = rng.integers(0, 100, (len(metrics), 21))
    swaps = (comp * rng.uniform(0, 0.3, (len(metrics), 21))).astype(int)
    out["swap_rates"] = pd.DataFrame({
        "metric": np.repeat(metrics, 21), "bin": np.tile(bins, len(metrics)),
        "comparisons": comp.ravel(), "swaps": swaps.ravel(),
        "swap_rate": np.where(comp > 0, swaps / np.maximum(comp, 1), np.nan).ravel()})
    fs = np.round(np.arange(1, 21) * 0.01, 2)
    out["stability"] = pd.DataFrame({
        "metric": np.repeat(metrics, 20), "f": np.tile(fs, len(metrics)),
        "minority_rate": np.tile(np.linspace(0.1, 0.01, 20), len(metrics)),
        "proportion_ties": np.tile(np.linspace(0.02, 0.4, 20), len(metrics))})
    out["tstar"] = pd.DataFrame([(m, "run00", "run03", float(rng.normal(0, 3)), float(t))
                                 for m in metrics for t in rng.standard_normal(B)],
                                columns=["metric", "system_x", "system_y", "t_observed", "t_star"])
    out["rank_correlation"] = rank_correlation_frame(seed, runs=runs, topics=topics, metrics=metrics)
    out.update(discpower_frames(rng, metrics, run_ids, topics, out["asl"]))
    out.update(incompleteness_frames(rng, metrics, run_ids))
    out.update(standardisation_frames(rng, metrics))
    if test_errors:                    # an opt-in stage (issue 29), usually on a few metrics
        out.update(test_errors_frames(rng, metrics[:2]))
        out.update(bayes_frames(rng, metrics[:2], run_ids))       # opt-in too (issue 50)
    return out


def bayes_frames(rng, metrics, run_ids) -> dict[str, pd.DataFrame]:
    """``bayes_runs``, ``bayes_pairs`` and ``bayes_fit`` (random posteriors, the declared columns)."""
    runs, pairs, fit = [], [], []
    for m in metrics:
        mean = rng.uniform(0.2, 0.8, len(run_ids))
        p_best = rng.dirichlet(np.ones(len(run_ids)))
        runs += [(m, r, float(v), float(v) - 0.05, float(v) + 0.05, float(b)) for r, v, b in zip(run_ids, mean, p_best)]
        for i, r in enumerate(run_ids):
            for j, o in enumerate(run_ids):
                if i != j:
                    d = float(mean[i] - mean[j])
                    pairs.append((m, r, o, d, d - 0.07, d + 0.07, float(1 / (1 + np.exp(-40 * d))), d / 0.15))
        fit.append((m, 0.1, 0.2, 0.15, 1.002, 2500.0, 0, 4, 1000))
    return {"bayes_runs": pd.DataFrame(runs, columns=["metric", "run", "mean", "ci_low", "ci_high", "p_best"]),
            "bayes_pairs": pd.DataFrame(pairs, columns=["metric", "run", "other", "diff", "ci_low", "ci_high",
                                                        "p_greater", "effect"]),
            "bayes_fit": pd.DataFrame(fit, columns=["metric", "sigma_system", "sigma_topic", "sigma_residual",
                                                    "rhat_max", "ess_min", "divergences", "chains", "draws"])}


def test_errors_frames(rng, metrics) -> dict[str, pd.DataFrame]:
    """``test_errors_type1``, ``test_errors_power`` and ``test_errors_type3`` (random rates, the
    declared columns)."""
    tests, sizes, alphas, deltas, trials = ("paired-t", "wilcoxon"), (25, 50), (0.01, 0.05), (0.02, 0.05), 100

    def rate(lo, hi):
        r = float(rng.uniform(lo, hi))
        return r, (r * (1 - r) / trials) ** 0.5

    type1 = pd.DataFrame([(m, n, t, a, *rate(0, 2 * a), trials) for m in metrics for n in sizes for t in tests
                          for a in alphas], columns=["metric", "n_topics", "test", "alpha", "rate", "se", "trials"])
    cols = ["metric", "n_topics", "test", "delta", "alpha", "rate", "se", "trials"]
    power = pd.DataFrame([(m, n, t, d, a, *rate(0.2, 1), trials) for m in metrics for n in sizes for t in tests
                          for d in deltas for a in alphas], columns=cols)
    type3 = pd.DataFrame([(m, n, t, d, a, *rate(0, 0.01), trials) for m in metrics for n in sizes for t in tests
                          for d in deltas for a in alphas], columns=cols)
    return {"test_errors_type1": type1, "test_errors_power": power, "test_errors_type3": type3}


def standardisation_frames(rng, metrics) -> dict[str, pd.DataFrame]:
    """``standardisation_within`` and ``standardisation_between`` (random values, the declared columns)."""
    from metaeval.meta.standardisation import ALPHAS, BETWEEN_COLUMNS, WITHIN_COLUMNS

    stds = ("raw", "z", "N", "U", "E")
    within = pd.DataFrame([(m, s, 50, 100, *rng.uniform(0.6, 1, 2), *rng.uniform(0.5, 1, 2), *rng.uniform(0, 1, 2))
                           for m in metrics for s in stds], columns=WITHIN_COLUMNS)
    between = pd.DataFrame([(m, s, a, a * rng.uniform(0.8, 1.2), min(1.0, 0.3 + a), *rng.uniform(0.5, 1, 3))
                            for m in metrics for s in stds for a in ALPHAS], columns=BETWEEN_COLUMNS)
    return {"standardisation_within": within, "standardisation_between": between}


def incompleteness_frames(rng, metrics, run_ids) -> dict[str, pd.DataFrame]:
    """``incompleteness`` (summarised from random trials) and ``pool_reuse`` (random deltas)."""
    from metaeval.meta.incompleteness import POOL_REUSE_COLUMNS, POOL_SUMMARY, summarise

    rows = [(m, meth, lv, k, float(rng.uniform(0.5, 1)), float(rng.uniform(0.4, 1)), float(rng.random() / 5),
             int(rng.integers(0, 15))) for m in metrics for meth, levels in (("judged", ("0.3", "0.6")),
                                                                          ("depth", ("10", "20")))
            for lv in levels for k in range(1, (3 if meth == "judged" else 1) + 1)]
    trials = pd.DataFrame(rows, columns=["metric", "method", "level", "trial", "tau", "tau_ap", "rmse",
                                         "significant_pairs"])
    pool = []
    for m in metrics:
        for i, r in enumerate(run_ids):
            full, red = float(rng.random()), float(rng.random())
            pool.append((m, f"g{i // 2}", r, full, red, red - full, i + 1, int(rng.integers(1, len(run_ids) + 1))))
        pool += [(m, "all", s, np.nan, np.nan, float(rng.random()), np.nan, np.nan) for s in POOL_SUMMARY]
    return {"incompleteness": summarise(trials, len(run_ids)),
            "pool_reuse": pd.DataFrame(pool, columns=POOL_REUSE_COLUMNS)}


def rank_correlation_frame(seed: int = 0, runs: int = 6, topics: int = 8, B: int = 40,
                           metrics=METRICS) -> pd.DataFrame:
    """A ``rank_correlation`` table computed by metaeval.meta.rankcorr from random matrices; the
    first metric gives two systems the same scores, so that its ranking has ties (tau_ap and
    tau_ap_a undefined where it is the reference)."""
    from metaeval.meta.rankcorr import stage_rank_correlation

    rng = np.random.default_rng(seed + 1000)
    run_ids = [f"run{i:02d}" for i in range(runs)]
    topic_ids = [f"t{i}" for i in range(topics)]
    mats = {}
    for k, m in enumerate(metrics):
        x = rng.random((topics, runs))
        if k == 0:
            x[:, 1] = x[:, 0]                                  # two tied systems
        mats[m] = pd.DataFrame(x, index=topic_ids, columns=run_ids)
    return stage_rank_correlation(mats, metrics, B=B, seed=seed)["rank_correlation"]


def discpower_frames(rng, metrics, run_ids, topics, asl) -> dict[str, pd.DataFrame]:
    """``anova``, ``pvalues``, ``discriminative_power``, ``topic_set_size`` of random scores (the
    stage itself, B_r = 200), the bootstrap rows from ``asl``."""
    from metaeval.meta.discpower import stage_discpower

    skill = rng.uniform(0.2, 0.6, len(run_ids))
    mats = {m: pd.DataFrame(np.clip(skill + rng.normal(0, 0.15, (topics, len(run_ids))), 0, 1),
                            index=[f"t{i}" for i in range(topics)], columns=run_ids) for m in metrics}
    return stage_discpower(mats, alpha=0.05, seed=1, B_r=200, asl=asl)


def write_csvs(frames_: dict[str, pd.DataFrame], tables_dir: Path) -> None:
    tables_dir.mkdir(parents=True, exist_ok=True)
    for name, df in frames_.items():
        df.to_csv(tables_dir / f"{name}.csv", index=False, lineterminator="\n")
