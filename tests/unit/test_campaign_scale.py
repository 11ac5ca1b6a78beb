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


def test_long_csvs_in_parts_and_figures_from_memory_are_the_bytes_of_one_process(tmp_path, monkeypatch):
    """``metaeval meta`` deals the writing into processes: a long table's CSV in parts joined
    afterwards (here every table over 100 rows, blocks of 50), the figures drawn from the tables in
    memory beside them.  The same files as one process writing every CSV whole, and the figures
    the same bytes as those drawn from the written CSVs (the DAG's figures job)."""
    from metaeval import pipeline
    from metaeval.meta.run import MetaConfig
    from metaeval.report import csvio

    mats = _matrices(metrics=("AP", "nDCG@10", "RR"))
    cfg = MetaConfig(B=100, rthsd_B=200)
    pipeline.run_meta_files(mats, cfg, tmp_path / "one", jobs=1)
    monkeypatch.setattr(csvio, "CSV_BLOCK_ROWS", 50)
    monkeypatch.setattr(pipeline, "CSV_PART_ROWS", 100)
    pipeline.run_meta_files(mats, cfg, tmp_path / "many", jobs=2)
    long = [p.stem for p in (tmp_path / "one" / "tables").glob("*.csv") if len(p.read_text().splitlines()) > 101]
    assert "pvalues" in long and "asl" in long
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    assert any(f.suffix == ".png" for f in files)
    assert files == sorted(p.relative_to(tmp_path / "many") for p in (tmp_path / "many").rglob("*") if p.is_file())
    for f in files:
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "many" / f).read_bytes(), f
    drawn = pipeline.write_figures(tmp_path / "many" / "tables", tmp_path / "from_csv", jobs=1,
                                   **pipeline.caption_values(cfg), select_by=cfg.select_by)
    assert drawn
    for p in drawn:
        assert p.read_bytes() == (tmp_path / "many" / "figures" / p.name).read_bytes(), p.name


def test_a_failed_csv_part_leaves_no_part_behind(tmp_path, monkeypatch):
    from metaeval import pipeline
    from metaeval.report import csvio, tables

    monkeypatch.setattr(csvio, "CSV_BLOCK_ROWS", 10)
    monkeypatch.setattr(pipeline, "CSV_PART_ROWS", 20)
    df = pd.DataFrame({"metric": "AP", "test": "paired-t", "system_x": [f"r{i}" for i in range(100)],
                       "system_y": "s", "diff": np.arange(100) / 7, "effect_size": 0.5, "p_value": np.arange(100) / 99})
    real = tables.write_csv_part

    def failing(df, path, name, start, stop, **kw):
        if start == 40:
            raise OSError("disk full")
        return real(df, path, name, start, stop, **kw)

    monkeypatch.setattr(tables, "write_csv_part", failing)
    with pytest.raises(OSError, match="disk full"):
        pipeline.write_tables({"pvalues": df}, tmp_path / "t", jobs=2)
    assert not [p for p in (tmp_path / "t").iterdir() if ".part" in p.name]
    monkeypatch.setattr(tables, "write_csv_part", real)
    pipeline.write_tables({"pvalues": df}, tmp_path / "t", jobs=2)
    assert (tmp_path / "t" / "pvalues.csv").read_text() == csvio.csv_text(df)
