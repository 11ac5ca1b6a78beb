"""The causes of broken promises under hostile input that the table-driven test
(tests/unit/test_hostile_input.py) cannot see from exit codes alone: silent wrong numbers, an
impossible p-value, names that are paths, degenerate input, and the borderline cases decided."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from metaeval.cli import main

T, D, R = 5, 8, 4


@pytest.fixture(scope="module")
def inp(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("causes")
    rng = np.random.default_rng(8)
    for name, shift in (("qrels.txt", 0), ("qrels2.txt", 1)):
        (d / name).write_text("".join(f"{t + 1} 0 d{t}-{k} {(int(rng.integers(0, 3)) + shift) % 3 if k else 2}\n"
                                      for t in range(T) for k in range(D)))
    (d / "runs").mkdir()
    for r in range(R):
        (d / "runs" / f"R{r}.run").write_text("".join(f"{t + 1} Q0 d{t}-{k} {i + 1} {20 - i}.5 R{r}\n"
                                                      for t in range(T) for i, k in enumerate(rng.permutation(D))))
    (d / "results").mkdir()
    for r in range(R):
        (d / "results" / f"R{r}").write_text("".join(f"map {t + 1} {rng.random():.4f}\n" for t in range(T)))
    return d


def _matrices(d: Path, topics: int, runs: int = 4, seed: int = 1, metrics=("AP",)) -> Path:
    rng = np.random.default_rng(seed)
    d.mkdir()
    for m in metrics:
        x = rng.random((topics, runs))
        (d / f"{m}.csv").write_text("topic," + ",".join(f"R{r}" for r in range(runs)) + "\n" + "".join(
            f"t{t}," + ",".join(repr(float(v)) for v in x[t]) + "\n" for t in range(topics)))
    return d


def _judgments(inp, out, *extra):
    return ["judgments", "--qrels", f"a={inp / 'qrels.txt'}", "--reference", "a", "--runs", str(inp / "runs"),
            "--B", "20", "--no-figures", "--quiet", "--out", str(out), *extra]


def _run(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code
    return rc, capsys.readouterr().err


# ------------------------------------------------------------------ --results: no silent numbers
@pytest.mark.parametrize("text, words", [
    ("", "R1: empty"),
    ("map 1 0.5\nmap 2 0.4\nmap 1 0.6\n", "R1:3: run R1 topic 1 measure map given twice"),
    ("map 1 0.5\nmap 2 nan\n", "R1:2: value 'nan' is not a finite number"),
])
def test_results_file_refused_naming_file_and_line(inp, tmp_path, capsys, text, words):
    import shutil

    res = tmp_path / "results"
    shutil.copytree(inp / "results", res)
    (res / "R1").write_text(text)
    out = tmp_path / "out"
    rc, err = _run(_judgments(inp, out, "--qrels", f"b={inp / 'qrels2.txt'}", "--results", f"c={res}",
                              "--metrics", "trec.map"), capsys)
    assert rc == 1 and words in err and "R1" in err and len(err.strip().splitlines()) == 1, err
    assert "invalid value" not in err and not out.exists()


def test_extra_files_in_a_results_folder_are_a_note(inp, tmp_path, capsys):
    import shutil

    res = tmp_path / "results"
    shutil.copytree(inp / "results", res)
    (res / "other-run").write_text("map 1 0.5\n")
    rc, err = _run(_judgments(inp, tmp_path / "out", "--qrels", f"b={inp / 'qrels2.txt'}", "--results",
                              f"c={res}", "--metrics", "trec.map"), capsys)
    assert rc == 0 and "1 run(s) not among the judged runs ignored (first: other-run)" in err, err


# ------------------------------------------------------------------ names that are paths
@pytest.mark.parametrize("option", [["--fill", "../../../X=a+b"], ["--qrels", "ä/b c=QRELS"],
                                    ["--qrels", "..=QRELS"], ["--qrels", "x\ty=QRELS"]])
def test_set_names_that_are_paths_are_refused(inp, tmp_path, capsys, option):
    option = [o.replace("QRELS", str(inp / "qrels2.txt")) for o in option]
    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    out = work / "out"
    rc, err = _run(_judgments(inp, out, "--qrels", f"b={inp / 'qrels2.txt'}", *option), capsys)
    assert rc == 2 and "names a file" in err.splitlines()[-1], err
    assert [p.name for p in tmp_path.rglob("*")] == ["a", "b", "c"]       # nothing anywhere


def test_file_name_helper():
    from metaeval.util import file_name

    assert file_name("ä b-c.d") == "ä b-c.d"
    for bad in ("a/b", "a\\b", "..", "x..y", "a\nb", "", "\x1b[31m"):
        with pytest.raises(ValueError):
            file_name(bad, "name")


# ------------------------------------------------------------------ degenerate input, numpy's warnings
def test_test_errors_on_one_topic_is_refused(tmp_path, capsys):
    mats = _matrices(tmp_path / "m", 1, metrics=("AP", "RR"))
    rc, err = _run(["test-errors", "--matrices", str(mats), "--out", str(tmp_path / "o"), "--trials", "5",
                    "--pairs", "1", "--B", "10", "--topics", "5", "--no-figures"], capsys)
    assert rc == 1 and "1 topic(s)" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()


def test_a_delta_no_margin_reaches_is_skipped():
    """A shift of 2 on scores in [0, 1]: no warp reaches it, the pair is skipped (docs/meta.md) --
    the beta warp's quadrature claimed means of 1.2 to 5.0."""
    from metaeval.meta import margins as M

    rng = np.random.default_rng(3)
    x = np.clip(rng.beta(2, 5, 40), 0.001, 0.999)
    m = M.fit_beta(x)
    assert M.transform(m, m.mean + 2.0) is None
    assert M.transform(m, 1.0) is None
    moved = M.transform(m, m.mean + 0.05)
    assert moved is not None and abs(moved.mean - (m.mean + 0.05)) <= 1e-4


def test_library_warnings_become_one_note(monkeypatch, capsys):
    """numpy's and scipy's warnings are not printed raw: one closing note of the command."""
    from metaeval.cli import measures

    def noisy(args):
        with np.errstate(all="warn"):
            np.log(np.zeros(3))
            np.zeros(2) / np.zeros(2)
        warnings.warn("Precision loss occurred in moment calculation", RuntimeWarning)
        return 0
    monkeypatch.setattr(measures, "run", noisy)
    rc, err = _run(["measures"], capsys)
    lines = err.strip().splitlines()
    assert rc == 0 and len(lines) == 1 and lines[0].startswith("metaeval: note: 3 numerical warnings"), err


# ------------------------------------------------------------------ the impossible p-value
def test_urbano_permutation_p_never_below_the_smallest_attainable(tmp_path, capsys):
    """Five topics on which one run beats the other on every topic: 2 of the 32 sign flips reach the
    observed mean, so p is about 2/32, never 0."""
    from metaeval.meta import urbano_tests as U

    rng = np.random.default_rng(3)
    b = rng.random((300, 5))
    e = np.clip(b + rng.uniform(0.01, 0.3, b.shape), 0, 1)
    _, p2 = U.permutation_test(b, e, 2000, np.random.default_rng(1))
    assert p2.min() > 0.03 and abs(p2.mean() - 2 / 32) < 0.003
    # the simulated type I rate at alpha .01 on five topics: no p-value reaches it
    b = rng.random((3000, 5))
    _, p2 = U.permutation_test(b, b + rng.normal(0, 0.1, b.shape), 500, np.random.default_rng(2))
    assert (p2 <= 0.01).mean() == 0.0
    # the command
    d = tmp_path / "m"
    d.mkdir()
    x = rng.random((5, 2)) * 0.5
    x[:, 1] = x[:, 0] + rng.uniform(0.05, 0.3, 5)
    (d / "AP.csv").write_text("topic,a,b\n" + "".join(f"t{t},{float(x[t, 0])!r},{float(x[t, 1])!r}\n"
                                                      for t in range(5)))
    rc = main(["compare", "--matrices", str(d), "--conventions", "urbano2019", "--test", "permutation",
               "--format", "csv", "--B", "4000"])
    row = capsys.readouterr().out.splitlines()[1].split(",")
    assert rc == 0 and 0.05 < float(row[14]) < 0.08 and row[16] == "False", row


# ------------------------------------------------------------------ borderline cases, as decided
def test_standardisation_topics_beyond_the_collection_is_a_note(tmp_path, capsys):
    mats = _matrices(tmp_path / "m", 5)
    rc, err = _run(["standardisation", "--matrices", str(mats), "--trials", "3", "--no-figures", "--quiet",
                    "--out", str(tmp_path / "o")], capsys)
    assert rc == 0 and "subsets of 2 topics used, not 50" in err, err


def test_judgments_with_only_the_reference_is_an_error(inp, tmp_path, capsys):
    rc, err = _run(_judgments(inp, tmp_path / "out"), capsys)
    assert rc == 1 and "only the reference a" in err and not (tmp_path / "out").exists(), err


def test_judgments_threshold_above_the_scale_is_an_error(inp, tmp_path, capsys):
    rc, err = _run(_judgments(inp, tmp_path / "out", "--qrels", f"b={inp / 'qrels2.txt'}", "--threshold", "9"),
                   capsys)
    assert rc == 1 and "--threshold 9" in err and "0..2" in err and not (tmp_path / "out").exists(), err


def test_pool_runs_without_a_pooling_method_is_a_usage_error(inp, tmp_path, capsys):
    rc, err = _run(["incompleteness", "--qrels", str(inp / "qrels.txt"), "--runs", str(inp / "runs"),
                    "--method", "judged", "--pool-runs", "R0", "--out", str(tmp_path / "o")], capsys)
    assert rc == 2 and "--pool-runs" in err.splitlines()[-1], err
