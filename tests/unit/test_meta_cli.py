"""``metaeval meta``: determinism, run selection, bad input, collection tables, gain sweep."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.cli import main
from metaeval.collection import Collection
from metaeval.meta import (MetaConfig, collection_stats, gain_sweep, paired_bootstrap, paper_to_gains,
                           preferred_rank_stats, select_top_runs, variant_name)
from metaeval.meta.sweep import gains_to_paper

RUNS = [f"run{j:02d}" for j in range(8)]
TOPICS = [f"{i:03d}" for i in range(14)]


def write_matrices(d, metrics=("AP", "RR", "nDCG@10"), seed=0, extra=None):
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 0.5, len(RUNS))
    for m in metrics:
        X = np.round(np.clip(base + rng.normal(0, 0.2, (len(TOPICS), len(RUNS))), 0, 1), 4)
        pd.DataFrame(X, index=pd.Index(TOPICS, name="topic"), columns=RUNS).to_csv(
            d / f"{m}.csv", lineterminator="\n")
    for name, df in (extra or {}).items():
        df.to_csv(d / f"{name}.csv", lineterminator="\n")
    return d


def test_cli_is_deterministic(tmp_path):
    mats = write_matrices(tmp_path / "m")
    args = ["meta", "--matrices", str(mats), "--B", "200", "--seed", "5", "--top-runs", "6",
            "--geometric", "AP", "--quiet"]
    assert main(args + ["--out", str(tmp_path / "o1")]) == 0
    assert main(args + ["--out", str(tmp_path / "o2"), "--no-figures"]) == 0
    names = sorted(p.name for p in (tmp_path / "o1" / "tables").glob("*.csv"))
    assert {"kendall.csv", "bootstrap_paired.csv", "bootstrap_unpaired.csv", "swap.csv", "swap_rates.csv",
            "stability.csv", "asl.csv", "run_means.csv", "tstar.csv"} <= set(names)
    for name in names:
        a = (tmp_path / "o1" / "tables" / name).read_bytes()
        assert a == (tmp_path / "o2" / "tables" / name).read_bytes(), name
        assert b"\r\n" not in a
    assert any((tmp_path / "o1" / "figures").glob("*.png"))
    assert not (tmp_path / "o2" / "figures").exists()
    paired = pd.read_csv(tmp_path / "o1" / "tables" / "bootstrap_paired.csv")
    assert list(paired.columns) == ["metric", "pairs", "significant", "sensitivity", "estimated_diff"]
    assert set(paired.metric) == {"AP", "RR", "nDCG@10", "AG_AP"}
    assert (paired.pairs == 15).all()
    s = paired.sensitivity.to_numpy()
    assert (s[:-1] >= s[1:]).all()
    assert not paired.isna().any().any()
    asl = pd.read_csv(tmp_path / "o1" / "tables" / "asl.csv")
    assert len(asl) == 15 * (4 + 4)            # paired (3 + AG_AP) and unpaired (3 + G_AP)


def test_top_runs_by_select_by_ties_by_name(tmp_path):
    ap = pd.DataFrame(np.tile([0.5, 0.2, 0.5, 0.9, 0.1, 0.2, 0.3, 0.5], (len(TOPICS), 1)),
                      index=pd.Index(TOPICS, name="topic"), columns=RUNS)
    assert select_top_runs(ap, 4) == ["run03", "run00", "run02", "run07"]
    mats = write_matrices(tmp_path / "m", metrics=("RR", "Q"), extra={"AP": ap})
    assert main(["meta", "--matrices", str(mats), "--out", str(tmp_path / "o"), "--B", "50",
                 "--top-runs", "4", "--no-figures", "--quiet"]) == 0
    means = pd.read_csv(tmp_path / "o" / "tables" / "run_means.csv")
    assert means[means.metric == "RR"].run.tolist() == ["run03", "run00", "run02", "run07"]
    assert main(["meta", "--matrices", str(mats), "--out", str(tmp_path / "o3"), "--B", "50",
                 "--top-runs", "4", "--select-by", "RR", "--metrics", "RR", "Q", "--no-figures",
                 "--quiet"]) == 0


def test_bad_input_names_file_and_line_and_writes_nothing(tmp_path, capsys):
    mats = write_matrices(tmp_path / "m")
    text = (mats / "RR.csv").read_text().splitlines()
    text[4] = text[4].rsplit(",", 1)[0] + ",nan"
    (mats / "RR.csv").write_text("\n".join(text) + "\n")
    out = tmp_path / "o"
    assert main(["meta", "--matrices", str(mats), "--out", str(out), "--B", "50", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "RR.csv:5" in err and "non-finite" in err
    assert not out.exists()
    mats2 = write_matrices(tmp_path / "m2", metrics=("RR", "nDCG@10"))
    assert main(["meta", "--matrices", str(mats2), "--out", str(out), "--B", "50", "--top-runs", "5",
                 "--quiet"]) == 1
    assert "ranks runs by 'AP'" in capsys.readouterr().err
    assert main(["meta", "--matrices", str(tmp_path / "nope"), "--out", str(out), "--quiet"]) == 1
    with pytest.raises(SystemExit) as e:          # out of its declared range: a usage error, at once
        main(["meta", "--matrices", str(mats2), "--out", str(out), "--B", "0", "--quiet"])
    assert e.value.code == 2
    assert main(["meta", "--matrices", str(mats2), "--out", str(out), "--metrics", "G_RR", "--B", "20",
                 "--no-figures", "--quiet"]) == 0      # G_ metrics skip the paired test, do the rest
    assert not out.joinpath("tables", "tstar.csv").exists()
    assert pd.read_csv(out / "tables" / "bootstrap_unpaired.csv").metric.tolist() == ["G_RR"]
    ragged = tmp_path / "m3"
    write_matrices(ragged, metrics=("AP",))
    (ragged / "AP.csv").write_text("topic,a,b\n001,0.1,0.2\n002,0.3\n")
    assert main(["meta", "--matrices", str(ragged), "--out", str(tmp_path / "o4"), "--quiet"]) == 1
    assert "AP.csv:3" in capsys.readouterr().err


def tiny_collection():
    P = -2
    levels = np.array([
        [[1, 0, 2, -1, 1], [0, 0, -1, P, P]],      # run A
        [[2, 1, P, P, P], [0, 1, P, P, P]],        # run B
    ], dtype=np.int8)
    lengths = (levels != P).sum(axis=2)
    level_counts = np.array([[3, 2, 1], [1, 1, 0]])
    return Collection(topics=("t0", "t1"), runs=("A", "B"), levels=levels, lengths=lengths,
                      level_counts=level_counts)


def test_preferred_rank_and_collection_stats(tmp_path):
    c = tiny_collection()
    pr = preferred_rank_stats(c)
    assert list(pr.columns) == ["topic", "run", "max_rp", "level", "count", "total"]
    assert pr.values.tolist() == [["t0", "A", 3, "L2", 1, 1], ["t0", "A", 3, "L1", 1, 2],
                                  ["t1", "B", 2, "L2", 0, 0], ["t1", "B", 2, "L1", 1, 1]]
    cs = collection_stats(c, ["A"])
    assert cs.values.tolist() == [["t0", 3, 2, 1, 1], ["t1", 1, 1, 0, 1]]
    assert list(cs.columns) == ["topic", "R", "R(L1)", "R(L2)", "runs"]
    # through the CLI with --collection
    c.save(tmp_path / "c.npz")
    d = tmp_path / "m"
    d.mkdir()
    for m in ("AP", "RR"):
        pd.DataFrame({"topic": ["t0", "t1", "t2"], "A": [0.1, 0.5, 0.2], "B": [0.3, 0.2, 0.4]}).to_csv(
            d / f"{m}.csv", index=False)
    assert main(["meta", "--matrices", str(d), "--out", str(tmp_path / "o"), "--B", "30",
                 "--collection", str(tmp_path / "c.npz"), "--no-figures", "--quiet"]) == 0
    got = pd.read_csv(tmp_path / "o" / "tables" / "preferred_rank.csv", dtype={"topic": str})
    assert got.max_rp.tolist() == [3, 3, 2, 2]
    assert (tmp_path / "o" / "tables" / "collection.md").exists()


def test_gain_conversion_and_sweep(tmp_path):
    assert paper_to_gains("30:20:10") == "10:20:30"
    assert paper_to_gains("0.3:0.2:0.1") == "0.1:0.2:0.3"
    assert paper_to_gains("10:5:1") == "1:5:10"
    assert gains_to_paper("1:2:3") == "3:2:1"
    assert variant_name("P-plus", "10:20:30") == "P-plus(gains=10:20:30)"
    rng = np.random.default_rng(3)
    base = pd.DataFrame(np.round(rng.random((14, 8)), 4), index=pd.Index(TOPICS, name="topic"), columns=RUNS)
    extra = {"P-plus": base}
    for g in ("10:20:30", "1:1:1"):
        extra[variant_name("P-plus", g)] = base if g == "10:20:30" else base.iloc[:, ::-1].set_axis(RUNS, axis=1)
    kdf, bdf = gain_sweep(extra, ["P-plus"], ["10:20:30", "1:1:1"], default_gains="1:2:3", B=100, seed=1)
    assert kdf.gains.tolist() == ["10:20:30", "1:1:1"]
    assert kdf.paper_gains.tolist() == ["30:20:10", "1:1:1"]
    assert kdf.tau.iloc[0] == 1.0
    assert bdf.metric.tolist() == ["P-plus", "P-plus(gains=10:20:30)", "P-plus(gains=1:1:1)"]
    assert bdf.default.tolist() == [True, False, False]
    ref = paired_bootstrap(base, B=100, seed=1)
    assert bdf.significant.iloc[0] == ref.significant == bdf.significant.iloc[1]
    mats = write_matrices(tmp_path / "m", metrics=("AP",), extra=extra)
    assert main(["meta", "--matrices", str(mats), "--out", str(tmp_path / "o"), "--B", "40",
                 "--sweep-metrics", "P-plus", "--sweep-gains", "10:20:30", "1:1:1",
                 "--default-gains", "1:2:3", "--no-figures", "--quiet"]) == 0
    t = tmp_path / "o" / "tables"
    assert (t / "gain_kendall.csv").exists() and (t / "gain_bootstrap.md").exists()
    # the variants are not meta-evaluated as metrics of their own
    assert set(pd.read_csv(t / "bootstrap_paired.csv").metric) == {"AP", "P-plus"}


def test_config_validation():
    with pytest.raises(ValueError):
        MetaConfig(alpha=0)
    with pytest.raises(ValueError):
        MetaConfig(kendall_variant="c")
