"""Rank correlation wired in: ``metaeval meta`` (and so the pipeline's stage, the API) writes
tables/rank_correlation.{csv,md,tex} and figures/rank_correlation.{png,pdf} by default; tau_a is the
Kendall table's tau and every interval contains its point estimate (on DL19 when
the shared data are present, on simulated matrices always); ``--rbo-p`` reaches the RBO columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.cli import main
from metaeval.meta.rankcorr import COEFFICIENTS, RANK_CORRELATION_COLUMNS
from metaeval.report.csvio import read_table
from test_meta_cli import write_matrices

DL19_METRICS = ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "nDCG@1000", "nCG@1000",
                "PDoc@1000"]


def check_rank_correlation(tables, metrics) -> pd.DataFrame:
    """The rank-correlation checks on one ``metaeval meta`` output folder."""
    for x in ("csv", "md", "tex"):
        assert (tables / f"rank_correlation.{x}").stat().st_size > 0
    rc = read_table(tables / "rank_correlation.csv")
    assert list(rc.columns) == RANK_CORRELATION_COLUMNS
    m = len(metrics)
    assert len(rc) == m * (m - 1)
    assert set(rc["metric_a"]) == set(metrics)
    # tau_a is the Kendall table's tau (default --kendall a), as written
    k = read_table(tables / "kendall.csv")
    tau = {(a, b): t for a, b, t in zip(k["metric_a"], k["metric_b"], k["tau"])}
    for a, b, t in zip(rc["metric_a"], rc["metric_b"], rc["tau_a"]):
        assert t == tau.get((a, b), tau.get((b, a))), (a, b)
    # every defined coefficient has an interval containing it; undefined ones have none
    for c in COEFFICIENTS:
        v, lo, hi = (rc[x].to_numpy(dtype=float) for x in (c, f"{c}_low", f"{c}_high"))
        ok = np.isfinite(v)
        assert np.array_equal(ok, np.isfinite(lo)) and np.array_equal(ok, np.isfinite(hi)), c
        assert np.all(lo[ok] <= v[ok] + 1e-12) and np.all(v[ok] <= hi[ok] + 1e-12), c
    md = (tables / "rank_correlation.md").read_text()
    assert md.count("| tau-a |") == 1 and md.count("| RBO^b |") == 1
    return rc


def test_metaeval_meta_writes_the_rank_correlation_outputs(tmp_path):
    mats = write_matrices(tmp_path / "m", metrics=("AP", "RR", "nDCG@10", "Q-measure"))
    out = tmp_path / "o"
    assert main(["meta", "--matrices", str(mats), "--out", str(out), "--B", "200", "--seed", "5",
                 "--top-runs", "6", "--geometric", "AP", "--quiet"]) == 0
    rc = check_rank_correlation(out / "tables", ["AP", "RR", "nDCG@10", "Q-measure"])
    assert not rc["metric_a"].str.startswith(("AG_", "G_")).any()      # plain metrics, as Kendall
    for x in ("png", "pdf"):
        assert (out / "figures" / f"rank_correlation.{x}").stat().st_size > 1000
    # --rbo-p reaches the RBO coefficients only
    out2 = tmp_path / "o2"
    assert main(["meta", "--matrices", str(mats), "--out", str(out2), "--B", "200", "--seed", "5",
                 "--top-runs", "6", "--geometric", "AP", "--rbo-p", "0.5", "--no-figures",
                 "--quiet"]) == 0
    rc2 = read_table(out2 / "tables" / "rank_correlation.csv")
    pd.testing.assert_frame_equal(rc[["tau_a", "tau_ap_b", "tau_ap_b_low"]],
                                  rc2[["tau_a", "tau_ap_b", "tau_ap_b_low"]])
    assert not np.allclose(rc["rbo"], rc2["rbo"])
    for name in ("kendall", "bootstrap_paired", "swap"):                 # the rest is unchanged
        assert (out / "tables" / f"{name}.csv").read_bytes() == \
            (out2 / "tables" / f"{name}.csv").read_bytes()


def test_bad_rbo_p_is_one_line(tmp_path, capsys):
    mats = write_matrices(tmp_path / "m")
    # out of its declared range (0, 1): a usage error where argparse parses it (exit 2), one error line
    with pytest.raises(SystemExit) as e:
        main(["meta", "--matrices", str(mats), "--out", str(tmp_path / "o"), "--rbo-p", "1.5", "--quiet"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    errors = [ln for ln in err.splitlines() if ": error:" in ln]
    assert errors == ["metaeval meta: error: argument --rbo-p: must be a number in (0, 1), got '1.5'"], err
    assert "Traceback" not in err and not (tmp_path / "o").exists()


def test_api_meta_evaluate_has_the_table(tmp_path):
    import metaeval

    mats = write_matrices(tmp_path / "m", metrics=("AP", "RR", "nDCG@10"))
    from metaeval.meta.matrices import load_matrices

    res = metaeval.meta_evaluate(load_matrices(mats), B=100, seed=3, rbo_p=0.8)
    assert "rank_correlation" in res
    assert list(res.rank_correlation.columns) == RANK_CORRELATION_COLUMNS
    assert len(res.rank_correlation) == 6


@pytest.mark.shared_data
def test_dl19_metaeval_meta(tmp_path, shared_data):
    """DL19, the papers' metrics, the top 30 runs by AP."""
    import metaeval.metrics  # noqa: F401
    from metaeval.io.ingest import load_collection
    from metaeval.metrics.evaluate import evaluate

    dl19 = shared_data / "trec-dl19-passage"
    c = load_collection(dl19 / "qrels.txt", sorted((dl19 / "runs").glob("*.run.gz")))
    res = evaluate(c, DL19_METRICS, gains=(1, 2, 3))
    mats = tmp_path / "m"
    mats.mkdir()
    for m, v in res.items():
        pd.DataFrame(v.T, index=pd.Index(list(c.topics), name="topic"), columns=list(c.runs)).to_csv(
            mats / f"{m}.csv", lineterminator="\n")
    out = tmp_path / "o"
    assert main(["meta", "--matrices", str(mats), "--out", str(out), "--B", "1000",
                 "--seed", "20070101", "--top-runs", "30", "--no-figures", "--quiet"]) == 0
    rc = check_rank_correlation(out / "tables", list(res))
    # ties in the run means of RR, O-measure, nCG@1000 and PDoc@1000 leave tau_ap undefined there
    assert rc["tau_ap"].isna().any() and rc["tau_ap_b"].notna().all()
