"""Campaign-scale changes give the same values (issue 27, item 10): the rank-correlation chunk
size is memory only, and ``metaeval meta`` in two processes writes the bytes of one process."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.meta import rankcorr


def _matrices(seed=3, n_topics=12, n_runs=9, metrics=("A", "B", "C")):
    rng = np.random.default_rng(seed)
    out = {}
    for m in metrics:                       # 2 decimals: ties inside rankings and bootstrap means
        v = np.round(rng.uniform(0, 1, (n_topics, n_runs)), 2)
        out[m] = pd.DataFrame(v, index=[f"t{i}" for i in range(n_topics)],
                              columns=[f"r{j}" for j in range(n_runs)])
    return out


def test_rank_correlation_chunks_are_memory_only(monkeypatch):
    mats = _matrices()
    monkeypatch.setattr(rankcorr, "CHUNK_ELEMENTS", 1 << 40)
    assert rankcorr._chunk(3, 9) == rankcorr.CHUNK
    whole = rankcorr.rank_correlation_table(mats, B=200, seed=5)
    monkeypatch.setattr(rankcorr, "CHUNK_ELEMENTS", 1)
    assert rankcorr._chunk(3, 9) == 1
    one = rankcorr.rank_correlation_table(mats, B=200, seed=5)
    pd.testing.assert_frame_equal(whole, one, check_exact=True)
    assert whole.to_csv() == one.to_csv()


def test_chunk_is_a_power_of_two_within_the_bound():
    assert rankcorr._chunk(20, 300) == 2                    # 20 metrics x 300 runs: 2 x 1.8 M elements
    assert rankcorr._chunk(5, 100) == rankcorr.CHUNK
    for m, n in ((1, 2), (20, 300), (40, 2000)):
        c = rankcorr._chunk(m, n)
        assert c >= 1 and rankcorr.CHUNK % c == 0
        assert c == 1 or c * m * n * n <= rankcorr.CHUNK_ELEMENTS


@pytest.mark.parametrize("jobs", [2, 3])
def test_meta_in_several_processes_writes_the_bytes_of_one(tmp_path, jobs):
    """The metrics sharded over processes (AG_/G_ variants with their metric), the tables put
    back in the one-process order: the same files, byte for byte."""
    from metaeval.meta.run import MetaConfig
    from metaeval.pipeline import run_meta_files

    mats = _matrices(metrics=("AP", "nDCG@10", "RR", "Q-measure", "ERR"))
    cfg = MetaConfig(B=100, rthsd_B=200, geometric=("AP", "RR"))
    run_meta_files(mats, cfg, tmp_path / "one", figures=False, jobs=1)
    run_meta_files(mats, cfg, tmp_path / "many", figures=False, jobs=jobs)
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    assert len(files) > 30
    assert files == sorted(p.relative_to(tmp_path / "many") for p in (tmp_path / "many").rglob("*") if p.is_file())
    for f in files:
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "many" / f).read_bytes(), f
    assert "AG_RR" in (tmp_path / "one" / "tables" / "bootstrap_paired.csv").read_text()
