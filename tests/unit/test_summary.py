"""metaeval.report.summary: metric x collection tables and figures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _synth_tables import frames, write_csvs
from metaeval.report import summary as S

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def summary_dir(tmp_path_factory):
    base = tmp_path_factory.mktemp("results")
    for i, name in enumerate(["NTCIR-A", "TREC-B"]):
        fr = frames(seed=10 + i)
        if name == "TREC-B":                         # a metric only one collection has
            fr["bootstrap_paired"] = fr["bootstrap_paired"].iloc[:-1]
        fr["collection"] = pd.DataFrame({"topic": ["1", "2", "3"], "R": [3, 5, 10],
                                         "R(L1)": [2, 3, 6], "R(L2)": [1, 2, 4], "runs": 6})
        write_csvs(fr, base / name / "tables")
    out = base / "summary"
    written = S.write_summary({"NTCIR-A": base / "NTCIR-A", "TREC-B": base / "TREC-B" / "tables"},
                              out)
    return base, out, written


def test_writes_exactly_the_declared_outputs(summary_dir):
    _, out, written = summary_dir
    assert sorted(written) == sorted(S.summary_outputs(out))
    assert all(p.stat().st_size > 0 for p in written)


def test_sensitivity_is_percent_per_collection(summary_dir):
    base, out, _ = summary_dir
    tab = pd.read_csv(out / "sensitivity_paired.csv")
    assert list(tab.columns) == ["metric", "NTCIR-A", "TREC-B"]
    a = pd.read_csv(base / "NTCIR-A" / "tables" / "bootstrap_paired.csv").set_index("metric")
    for m, v in zip(tab["metric"], tab["NTCIR-A"]):
        assert v == 100.0 * a.loc[m, "significant"] / a.loc[m, "pairs"]
    # metric order follows run_means.csv (the configured order)
    rm = pd.read_csv(base / "NTCIR-A" / "tables" / "run_means.csv")
    assert list(tab["metric"]) == list(dict.fromkeys(rm["metric"]))
    missing = tab.set_index("metric")["TREC-B"]
    assert missing.isna().sum() == 1
    md = (out / "sensitivity_paired.md").read_text()
    assert " - |" in md                                   # the missing cell


def test_swap_and_kendall_summaries(summary_dir):
    base, out, _ = summary_dir
    rel = pd.read_csv(out / "swap_relative.csv").set_index("metric")
    sw = pd.read_csv(base / "TREC-B" / "tables" / "swap.csv").set_index("metric")
    np.testing.assert_array_equal(rel.loc[sw.index, "TREC-B"].to_numpy(), 100.0 * sw["relative"].to_numpy())
    pct = pd.read_csv(out / "swap_pct_satisfying.csv").set_index("metric")
    np.testing.assert_array_equal(pct.loc[sw.index, "TREC-B"].to_numpy(),
                                  sw["pct_satisfying"].to_numpy())
    kd = pd.read_csv(out / "kendall.csv")
    assert list(kd.columns[:2]) == ["metric_a", "metric_b"] and len(kd) == 6
    md = (out / "kendall.md").read_text()
    from metaeval.report.formatting import format_tau
    for v in kd.iloc[:, 2:].to_numpy().ravel():
        assert (f"**{format_tau(v)}**" in md) == (v > 0.8)


def test_collection_summary_like_table_1(summary_dir):
    _, out, _ = summary_dir
    tab = pd.read_csv(out / "collection.csv")
    assert list(tab["collection"]) == ["NTCIR-A", "TREC-B"]
    assert tab.loc[0, "topics"] == 3 and tab.loc[0, "R"] == 6.0
    md = (out / "collection.md").read_text()
    assert "| NTCIR-A | 3 | 6.0 | 2.3 | 3.7 | 6 |" in md


def test_rerun_is_byte_identical(summary_dir, tmp_path):
    base, out, written = summary_dir
    again = S.write_summary({"NTCIR-A": base / "NTCIR-A", "TREC-B": base / "TREC-B"}, tmp_path)
    assert sorted(p.name for p in again) == sorted(p.name for p in written)
    for p in written:
        assert p.read_bytes() == (tmp_path / p.name).read_bytes(), p.name


def test_no_collections_have_tables(tmp_path):
    (tmp_path / "C" / "tables").mkdir(parents=True)
    written = S.write_summary({"C": tmp_path / "C"}, tmp_path / "summary")
    assert sorted(written) == sorted(S.summary_outputs(tmp_path / "summary"))
