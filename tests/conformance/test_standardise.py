"""Score standardisation (``std=z|N|U|E``, ``metaeval standardise``): values equal std.R's
(Urbano, Lima & Hanjalic 2019; the reference outputs in tests/data/std_r/, made by
tests/data/std_r/make_reference.R), leave-one-out equals a literal loop, factors round-trip and
trec_eval's ``-Z`` file reads as trec_eval 10.0 applies it."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from metaeval.cli import main
from metaeval.meta.matrices import read_matrix
from metaeval.metrics.registry import parse_measure
from metaeval.metrics.standardise import (METHODS, StdSettings, compute_factors, leave_one_out, read_factors,
                                          standardise, standardise_matrix, trec_measure_name, with_std,
                                          without_std, write_factors)

REF = Path(__file__).parents[1] / "data" / "std_r"


def _load(name):
    df = read_matrix(REF / f"{name}.csv")
    return df, df.to_numpy().T, [str(t) for t in df.index], [str(r) for r in df.columns]


@pytest.mark.parametrize("name", ["dl19_AP", "synthetic"])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("subset", [False, True])
def test_equals_std_R(name, method, subset):
    """std.R's standardize(factors(x), x) -- and with the factors of the first 3 runs only
    (--std-runs) -- to 1e-12 (E exactly: a count over n)."""
    df, x, topics, runs = _load(name)
    ref = read_matrix(REF / f"{name}{'.sub' if subset else ''}.{method}.csv")
    assert list(ref.index) == topics and list(ref.columns) == runs
    s = StdSettings(runs=tuple(runs[:3])) if subset else StdSettings()
    got, _ = standardise_matrix(x, topics, runs, method, s)
    want = ref.to_numpy().T
    if method == "E":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.shared_data
def test_reference_input_is_metaeval_dl19_ap(shared_data, tmp_path):
    """The reference input is `metaeval matrices --order file --metrics AP` on the DL19 passage runs
    (recorded in file order, NTCIREVAL's), exactly."""
    d = shared_data / "trec-dl19-passage"
    out = tmp_path / "m"
    assert main(["matrices", "--qrels", str(d / "qrels.txt"), "--runs", str(d / "runs" / "*.run.gz"),
                 "--order", "file", "--metrics", "AP", "AP(std=z)", "--out", str(out), "--quiet"]) == 0
    assert (out / "AP.csv").read_bytes() == (REF / "dl19_AP.csv").read_bytes()
    z = read_matrix(out / "AP(std=z).csv").to_numpy()
    np.testing.assert_allclose(z, read_matrix(REF / "dl19_AP.z.csv").to_numpy(), rtol=0, atol=1e-12)
    f = read_factors(out / "std_factors.csv")
    assert list(f) == ["AP"] and len(f["AP"].topics) == 43


def _loop_loo(x, in_set, method):
    """Literal loop: each run of the set standardised by compute_factors of the others."""
    topics = [str(i) for i in range(x.shape[1])]
    out = np.empty_like(x)
    for r in range(x.shape[0]):
        keep = in_set.copy()
        keep[r] = False if in_set[r] else keep[r]
        f = compute_factors(x[keep], topics)
        out[r] = standardise(x[r:r + 1], f, method)[0]
    return out


@pytest.mark.parametrize("name", ["dl19_AP", "synthetic"])
@pytest.mark.parametrize("method", METHODS)
def test_leave_one_out_equals_loop(name, method):
    _, x, _, runs = _load(name)
    for in_set in (np.ones(len(runs), bool), np.arange(len(runs)) % 2 == 0 if len(runs) > 5 else
                   np.array([True, True, True, False, True])):
        got = leave_one_out(x, in_set, method, chunk=3)
        want = _loop_loo(x, in_set, method)
        if method == "E":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_sigma_zero_left_unstandardised():
    x = np.array([[0.3, 0.2], [0.3, 0.4], [0.3, 0.9]])        # topic 0: every run 0.3
    f = compute_factors(x, ["a", "b"])
    assert f.sigma[0] == 0.0 and f.mu[0] == 0.3
    np.testing.assert_array_equal(standardise(x, f, "z")[:, 0], x[:, 0])   # std.R: mu 0, sigma 1
    np.testing.assert_array_equal(standardise(x, f, "E")[:, 0], [1.0, 1.0, 1.0])


def test_factors_round_trip(tmp_path):
    _, x, topics, runs = _load("dl19_AP")
    s = StdSettings(runs=tuple(runs[:10]))
    vals = {m: standardise_matrix(x, topics, runs, m, s, key="AP")[0] for m in METHODS}
    write_factors({"AP": standardise_matrix(x, topics, runs, "z", s)[1]}, tmp_path / "f.csv")
    back = read_factors(tmp_path / "f.csv")
    fixed = StdSettings(factors=back)
    for m in METHODS:
        np.testing.assert_array_equal(standardise_matrix(x, topics, runs, m, fixed, key="AP")[0], vals[m])


def test_cli_standardise_and_factors_round_trip(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "AP.csv").write_bytes((REF / "dl19_AP.csv").read_bytes())
    (d / "topics.csv").write_text("topic,status,reason\n")
    assert main(["standardise", "--matrices", str(d), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    names = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert names == [".metaeval-manifest.json", "AP(std=E).csv", "AP(std=N).csv", "AP(std=U).csv", "AP(std=z).csv",
                     "std_factors.csv"]
    with open(tmp_path / "o" / "std_factors.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["metric", "topic", "mu", "sigma", "support"] and len(rows) == 44
    assert len(rows[1][4].split()) == 37
    for m in METHODS:
        got = read_matrix(tmp_path / "o" / f"AP(std={m}).csv")
        ref = read_matrix(REF / f"dl19_AP.{m}.csv")
        assert list(got.index) == list(ref.index) and list(got.columns) == list(ref.columns)
        np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12)
    # the written factors read back give the same bytes
    assert main(["standardise", "--matrices", str(d), "--out", str(tmp_path / "o2"), "--quiet",
                 "--std-factors", str(tmp_path / "o" / "std_factors.csv")]) == 0
    for m in METHODS:
        assert (tmp_path / "o2" / f"AP(std={m}).csv").read_bytes() == (tmp_path / "o" / f"AP(std={m}).csv").read_bytes()
    # OUT may be the input folder; the standardised matrices are not standardised again
    assert main(["standardise", "--matrices", str(d), "--out", str(d), "--quiet", "--std", "z"]) == 0
    assert main(["standardise", "--matrices", str(d), "--out", str(d), "--quiet", "--std", "E"]) == 0
    assert sorted(p.name for p in d.iterdir()) == [".metaeval-manifest.json", "AP(std=E).csv", "AP(std=z).csv",
                                                   "AP.csv", "std_factors.csv", "topics.csv"]   # accumulated


def test_cli_leave_one_out_and_std_runs(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "X.csv").write_bytes((REF / "synthetic.csv").read_bytes())
    assert main(["standardise", "--matrices", str(d), "--out", str(tmp_path / "o"), "--quiet",
                 "--leave-one-out", "--std-runs", "a", "b", "c", "e", "--std", "z"]) == 0
    _, x, _, runs = _load("synthetic")
    want = _loop_loo(x, np.array([True, True, True, False, True]), "z")
    got = read_matrix(tmp_path / "o" / "X(std=z).csv").to_numpy().T
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("argv, rc, msg", [
    (["--std-runs", "nope"], 1, "standardising run(s) nope not among the runs"),
    (["--std", "Q"], 2, "--std"),
    (["--std-factors", "F", "--leave-one-out"], 2, "--std-factors replaces"),
    (["--std-factors", "BAD"], 1, "BAD:2: mu 'x' is not a finite number"),
    (["--std-factors", "ZMISS"], 1, "no standardisation factors for 'X'"),
])
def test_cli_rejects(tmp_path, capsys, argv, rc, msg):
    d = tmp_path / "m"
    d.mkdir()
    (d / "X.csv").write_bytes((REF / "synthetic.csv").read_bytes())
    (tmp_path / "BAD").write_text("metric,topic,mu,sigma,support\nX,t1,x,1,\n")
    (tmp_path / "ZMISS").write_text("t1 map 0.1 0.2\n")
    argv = [a if a not in ("BAD", "ZMISS", "F") else str(tmp_path / a) for a in argv]
    with pytest.raises(SystemExit) if rc == 2 else _nothing():
        got = main(["standardise", "--matrices", str(d), "--out", str(tmp_path / "o"), "--quiet", *argv])
        assert got == rc
    assert msg in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@pytest.mark.shared_data
def test_trec_eval_Z_file(shared_data, tmp_path):
    """Every measure of trec_eval's -Z example: z per topic as `trec_eval -q -m all_trec -Z
    zscores_file qrels.test results.test` prints it (out.test.aqZ, 4 decimals), where the file's
    stddev is not 0 (there trec_eval prints 0 or its missing value; std.R's rule leaves x)."""
    T = shared_data / "trec-eval-tests"
    f = read_factors(T / "zscores_file")
    want = {}
    for line in (T / "out.test.aqZ").read_text().splitlines():
        name, topic, val = line.split()
        if name.startswith("Z") and topic != "all":
            want[(trec_measure_name(name[1:]), topic)] = val
    names = [m for m in f if m.startswith("trec.") and (m, "301") in want]
    assert len(names) >= 80
    out = tmp_path / "z"
    assert main(["matrices", "--qrels", str(T / "qrels.test"), "--runs", str(T / "results.test"), "--order", "score",
                 "--metrics", *[with_std(m, "z") for m in names], "--std-factors", str(T / "zscores_file"),
                 "--out", str(out), "--quiet"]) == 0
    checked = 0
    for m in names:
        df = read_matrix(out / f"{with_std(m, 'z')}.csv")
        for t in df.index:
            i = f[m].topics.index(t)
            if f[m].sigma[i] == 0:
                continue
            assert f"{df.loc[t].iloc[0]:.4f}" == want[(m, t)], (m, t)
            checked += 1
    assert checked >= 200


def test_names():
    assert parse_measure("AP(std=z)").name == "AP(std=z)"
    assert parse_measure("nDCG@10(std=N)").name == "nDCG(std=N)@10"
    assert parse_measure("Q-measure(std=u)").name == "Q-measure(std=U)"
    assert parse_measure("trec.map(std=E)").name == "trec.map(std=E)"
    assert parse_measure("AP(rel=2,std=z)") == parse_measure("AP(std=z, rel=2)")
    with pytest.raises(ValueError, match="expected one of z, N, U, E"):
        parse_measure("AP(std=q)")
    assert with_std("nDCG@10", "E") == "nDCG(std=E)@10"
    assert with_std("my_tool_metric", "z") == "my_tool_metric(std=z)"
    assert without_std("nDCG(std=E)@10") == ("nDCG@10", "E")
    assert without_std("my_tool_metric(std=z)") == ("my_tool_metric", "z")
    assert trec_measure_name("P_5") == "trec.P@5" and trec_measure_name("map") == "trec.map"
    assert trec_measure_name("iprec_at_recall_0.10") == "trec.iprec_at_recall(recall=0.1)"
    assert re.match(r"^trec\.", trec_measure_name("ndcg_cut_10"))


def test_every_stage_takes_a_standardised_measure(tmp_path):
    """`metaeval matrices --metrics "AP(std=z)"` then `metaeval meta` on its folder: the
    standardised matrix is a matrix like any other (std_factors.csv is not read as one)."""
    import pandas as pd

    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"T{t} d{d} L{(t + d) % 3}\n" for t in range(6) for d in range(8)))
    runs = tmp_path / "runs"
    runs.mkdir()
    rng = np.random.default_rng(0)
    for r in range(5):
        lines = [f"T{t} Q0 d{d} {i + 1} {10 - i} r{r}\n" for t in range(6)
                 for i, d in enumerate(rng.permutation(8)[:6])]
        (runs / f"r{r}.run").write_text("".join(lines))
    m = tmp_path / "m"
    assert main(["matrices", "--qrels", str(q), "--runs", str(runs), "--metrics", "AP", "AP(std=z)", "nDCG@10(std=E)",
                 "--out", str(m), "--quiet"]) == 0
    assert (m / "std_factors.csv").exists()
    out = tmp_path / "meta"
    assert main(["meta", "--matrices", str(m), "--out", str(out), "--B", "50", "--no-figures", "--quiet"]) == 0
    k = pd.read_csv(out / "tables" / "kendall.csv")
    assert {"AP(std=z)", "nDCG(std=E)@10"} <= set(k["metric_a"]) | set(k["metric_b"])
    b = pd.read_csv(out / "tables" / "bootstrap_paired.csv")
    assert "AP(std=z)" in set(b["metric"])


def test_matrices_rejects_unknown_standardising_runs_and_E_without_support(tmp_path, capsys):
    q = tmp_path / "qrels.txt"
    q.write_text("T1 d1 L1\nT1 d2 L2\nT2 d1 L1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    for r, order in (("a", "d1 d2"), ("b", "d2 d1"), ("c", "d3 d1")):
        (runs / r).write_text("".join(f"T{t} Q0 {d} {i + 1} 1 {r}\n" for t in (1, 2) for i, d in enumerate(order.split())))
    base = ["matrices", "--qrels", str(q), "--runs", str(runs), "--quiet", "--out"]
    assert main(base + [str(tmp_path / "o1"), "--metrics", "AP(std=z)", "--std-runs", "a", "zz"]) == 1
    assert "standardising run(s) zz not among the runs" in capsys.readouterr().err
    z = tmp_path / "z.txt"
    z.write_text("T1 map 0.5 0.1\nT2 map 0.4 0.2\n")
    assert main(base + [str(tmp_path / "o2"), "--metrics", "trec.map(std=E)", "--std-factors", str(z)]) == 1
    assert "needs the ECDF support" in capsys.readouterr().err
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()
    assert main(base + [str(tmp_path / "o3"), "--metrics", "trec.map", "trec.map(std=z)", "--std-factors", str(z)]) == 0
    got = read_matrix(tmp_path / "o3" / "trec.map(std=z).csv")
    raw = read_matrix(tmp_path / "o3" / "trec.map.csv")
    want = (raw.to_numpy() - np.array([[0.5], [0.4]])) / np.array([[0.1], [0.2]])   # the -Z file's mean, stddev
    np.testing.assert_allclose(got.to_numpy(), want, rtol=0, atol=1e-15)
