"""Statistical sanity of the bootstrap tests and reproducibility of the shared samples."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pytest
import pandas as pd
import scipy.stats

from metaeval.meta import BootstrapSamples, MetaConfig, paired_bootstrap, run_meta, stage_paired, stage_swap
from metaeval.meta.bootstrap import paired_test_differences
from metaeval.meta.samples import bootstrap_counts, sample_rng


def test_paired_asl_agrees_with_paired_t_test_on_normal_data():
    rng = np.random.default_rng(0)
    n, R = 50, 6
    X = rng.normal(0.4, 0.15, (n, 1)) + rng.normal(0, 0.1, (n, R)) + np.linspace(0, 0.06, R)[None, :]
    res = paired_bootstrap(X, B=20000, seed=0)
    p = np.array([scipy.stats.ttest_rel(X[:, i], X[:, j]).pvalue for i, j in zip(res.pair_x, res.pair_y)])
    assert np.ptp(p) > 0.5                        # the pairs span significant and non-significant
    assert np.abs(res.asl - p).max() < 0.02


def test_null_simulation_rejection_rate():
    # 500 independent trials, two systems drawn from the same distribution: one column per trial
    rng = np.random.default_rng(1)
    Z = rng.normal(0, 1, (50, 500)) - rng.normal(0, 1, (50, 500))
    _, _, asl, _ = paired_test_differences(Z, B=1000, seed=1)
    rate = float((asl < 0.05).mean())
    assert 0.03 <= rate <= 0.07, rate


def test_samples_depend_only_on_seed_n_B_and_stream():
    a = BootstrapSamples.from_seed(7, 43, 500)
    b = BootstrapSamples.from_seed(7, 43, 500)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert not np.array_equal(a.indices, BootstrapSamples.from_seed(7, 43, 500, "swap").indices)
    assert not np.array_equal(a.indices, BootstrapSamples.from_seed(8, 43, 500).indices)
    assert BootstrapSamples.from_seed(7, 43, 500, "unpaired").indices.shape == (500, 86)
    counts = bootstrap_counts(43, 500, sample_rng(7, 43, 500))
    np.testing.assert_array_equal(counts, a.counts())
    assert (counts.sum(axis=1) == 43).all()
    # a per-metric job in another process draws exactly the same samples
    code = ("import hashlib; from metaeval.meta import BootstrapSamples as S; "
            "print(hashlib.sha256(S.from_seed(7, 43, 500).indices.tobytes()).hexdigest())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == hashlib.sha256(a.indices.tobytes()).hexdigest()


def test_per_metric_stages_equal_the_whole_run():
    rng = np.random.default_rng(2)
    idx = [f"{i:03d}" for i in range(15)]
    runs = [f"run{j}" for j in range(7)]
    mats = {m: pd.DataFrame(np.round(rng.random((15, 7)), 4), index=idx, columns=runs) for m in ("AP", "RR")}
    cfg = MetaConfig(B=300, seed=11)
    whole = run_meta(mats, cfg)
    for m in ("AP", "RR"):
        part = stage_paired(mats, m, cfg)            # derives its own samples from (seed, n, B)
        row = whole["bootstrap_paired"].set_index("metric").loc[m]
        assert part["bootstrap_paired"].iloc[0]["significant"] == row["significant"]
        assert part["bootstrap_paired"].iloc[0]["estimated_diff"] == row["estimated_diff"]
        sw = stage_swap(mats, m, cfg)["swap_rates"]
        pd.testing.assert_frame_equal(
            sw.reset_index(drop=True),
            whole["swap_rates"][whole["swap_rates"].metric == m].reset_index(drop=True))


@pytest.mark.shared_data
def test_real_dl19_matrices_run_clean():
    """TREC DL19 (37 runs, 43 topics, graded 0-3): realistic ties and zero-variance pairs."""
    from conftest import dl19_collection
    import metaeval.metrics  # noqa: F401
    from metaeval.metrics.evaluate import evaluate

    c = dl19_collection()
    metrics = ["AP", "RR", "Prec@1000", "nDCG@10"]
    res = evaluate(c, metrics, gains=(1, 2, 3))
    mats = {m: pd.DataFrame(v.T, index=list(c.topics), columns=list(c.runs)) for m, v in res.items()}
    cfg = MetaConfig(B=300, seed=3, top_runs=30, geometric=("AP",))
    tables = run_meta(mats, cfg, collection=c)
    for name, df in tables.items():
        num = df.select_dtypes("number")
        if name in ("swap", "swap_rates", "tstar"):      # NaN only where documented (no bin / no pair)
            continue
        if name == "rank_correlation":                   # tau_AP, tau_AP-a: undefined with tied means
            num = num[[c for c in num.columns
                       if c not in ("tau_ap", "tau_ap_a") and not c.startswith(("tau_ap_low", "tau_ap_high",
                                                                              "tau_ap_a_"))]]
        if name == "results":                            # diff, p: none on the best run's row (compared with none)
            num = num[df["against"].fillna("") != ""]
        assert not num.isna().any().any(), name
    paired = tables["bootstrap_paired"].set_index("metric")
    assert (paired.pairs == 435).all()
    # Sakai (2007b): PDoc@1000 (= Prec@1000) is the least sensitive, AP among the most
    assert paired.loc["AP", "significant"] > paired.loc["Prec@1000", "significant"]
    assert len(tables["preferred_rank"]) == 43 * 3 and len(tables["collection"]) == 43
    assert (tables["collection"].runs == 30).all()


def test_paired_chunks_give_the_whole_matrix_statistics():
    """The paired test takes the pairs chunk by chunk (a last chunk of one column joined to the
    one before): its means and t statistics are, to the bit, those of the whole matrix."""
    from metaeval.meta.bootstrap import PAIR_CHUNK_ELEMENTS, studentise

    rng = np.random.default_rng(5)
    pc = PAIR_CHUNK_ELEMENTS // 200
    Z = np.round(rng.uniform(-1, 1, (250, 2 * pc + 1)), 4) / 3.0
    zbar, t, asl, diff = paired_test_differences(Z, B=200, seed=2)
    W = Z - Z.mean(axis=0)
    assert np.array_equal(zbar, Z.mean(axis=0))
    assert np.array_equal(t, studentise(Z.mean(axis=0), (W * W).sum(axis=0) / 249, (Z * Z).mean(axis=0), 250))
    last = paired_test_differences(Z[:, -2:], B=200, seed=2)
    assert np.array_equal(asl[-2:], last[2]) and np.array_equal(diff[-2:], last[3])
