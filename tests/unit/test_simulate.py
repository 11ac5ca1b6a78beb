"""metaeval.simulate / `metaeval simulate`: file forms, determinism, Table 1 shape, discriminative
power."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from metaeval.cli import main
from metaeval.collection import PAD
from metaeval.simulate import PRESETS, SimParams, preset, simulate, to_collection, write_collection

SMALL = dict(topics=12, runs=6, depth=300, candidates=900, pool_depth=40)

# Sakai (2007a) Table 1: |Q|, R/topic, R(S), R(A), R(B) per topic
TABLE1 = {
    "ntcir3-chinese": (42, 78.2, 21.0, 24.9, 32.3),
    "ntcir3-japanese": (42, 60.4, 7.9, 31.5, 21.0),
    "ntcir5-chinese": (50, 61.0, 7.0, 30.7, 23.3),
    "ntcir5-japanese": (47, 89.1, 3.2, 41.8, 44.2),
}


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_files_are_deterministic_and_in_the_real_forms(tmp_path):
    p = preset("ntcir3-chinese", **SMALL)
    a, b = write_collection(p, tmp_path / "a"), write_collection(p, tmp_path / "b")
    assert _digest(a) == _digest(b)
    assert len(list((a / "runs").glob("*.run"))) == 6
    qrels = (a / "qrels.txt").read_text().splitlines()
    assert all(re.fullmatch(r"C\d{4} N3C-\d{8} L[0-3]", line) for line in qrels)
    levels = {line.split()[2] for line in qrels}
    assert levels == {"L0", "L1", "L2", "L3"}                # judged nonrelevant ones included
    judged = {tuple(line.split()[:2]) for line in qrels}
    run = (a / "runs" / "RUN01.run").read_text().splitlines()
    cols = [line.split() for line in run]
    assert all(len(c) == 6 and c[1] == "Q0" and c[5] == "RUN01" for c in cols)
    by_topic: dict[str, list] = {}
    for c in cols:
        by_topic.setdefault(c[0], []).append(c)
    for rows in by_topic.values():
        assert [int(c[3]) for c in rows] == list(range(1, len(rows) + 1))
        scores = [float(c[4]) for c in rows]
        assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
        assert len(rows) <= 300
    unjudged = sum((c[0], c[2]) not in judged for c in cols)
    assert unjudged > 0                                         # pooling leaves deep documents unjudged
    # a different seed gives different data
    c = write_collection(preset("ntcir3-chinese", **{**SMALL, "seed": 99}), tmp_path / "c")
    assert _digest(c)["qrels.txt"] != _digest(a)["qrels.txt"]


def test_rewrite_is_atomic_and_replaces(tmp_path):
    """A rerun replaces the simulation's own files and removes those it no longer writes (the runs of
    a larger simulation); the user's other files stay (README; issue 48, cause 1)."""
    p = preset("ntcir5-chinese", **SMALL)
    out = write_collection(p, tmp_path / "x")
    (out / "notes.txt").write_text("mine")
    runs = sorted(q.name for q in (out / "runs").iterdir())
    fewer = preset("ntcir5-chinese", **{**SMALL, "runs": len(runs) - 1})
    write_collection(fewer, tmp_path / "x")
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(q.name for q in (out / "runs").iterdir()) == runs[:-1]
    assert json.loads((out / "params.json").read_text())["runs"] == len(runs) - 1
    assert sorted(q.name for q in tmp_path.iterdir()) == ["x"]  # no temporary folders left


def test_ingested_files_equal_the_arrays(tmp_path):
    from metaeval.io import load_collection

    p = preset("ntcir5-japanese", **SMALL)
    out = write_collection(p, tmp_path / "c")
    got = load_collection(out / "qrels.txt", [out / "runs"])
    want = to_collection(simulate(p))
    assert got.topics == want.topics and got.runs == want.runs
    D = want.depth
    assert np.array_equal(got.levels[:, :, :D], want.levels)
    assert (got.levels[:, :, D:] == PAD).all()
    assert np.array_equal(got.lengths, want.lengths)
    assert np.array_equal(got.level_counts, want.level_counts)


@pytest.fixture(scope="module")
def defaults():
    return {name: to_collection(simulate(p)) for name, p in PRESETS.items()}


def test_table1_means_within_10_percent(defaults):
    """tables/collection.csv (metaeval.meta.collection_stats) matches Table 1."""
    from metaeval.meta.run import stage_collection

    for name, coll in defaults.items():
        q, r, rs, ra, rb = TABLE1[name]
        df = stage_collection(coll)["collection"]
        assert len(df) == q == len(coll.topics)
        for col, want in (("R", r), ("R(L3)", rs), ("R(L2)", ra), ("R(L1)", rb)):
            got = df[col].astype(float).mean()
            assert abs(got - want) <= 0.1 * want, (name, col, got, want)
        assert (df["R"] >= 1).all()
        assert df["R"].std() > 0.3 * df["R"].mean()              # a realistic spread over topics
        assert len(coll.runs) == 30 and coll.lengths.max() == 1000


def test_discriminative_power_differs_and_bunched_is_lowest(defaults):
    """The four collections differ in paired-bootstrap sensitivity of AP, NTCIR-5
    Japanese (closely bunched runs, Sakai (2007a) Fig. 8) the lowest; mean AP spread like Fig. 8."""
    from metaeval.meta.bootstrap import paired_bootstrap
    from metaeval.metrics import evaluate

    sens, spread = {}, {}
    for name, coll in defaults.items():
        ap = evaluate(coll, ["AP", "RR"], gains=(1, 2, 3))
        means = ap["AP"].mean(axis=1)
        assert 0.05 < means.min() and means.max() < 0.75, (name, means.min(), means.max())
        spread[name] = means.max() - means.min()
        res = paired_bootstrap(ap["AP"].T, B=1000, seed=1, alpha=0.05)
        sens[name] = res.significant
        rr = paired_bootstrap(ap["RR"].T, B=1000, seed=1, alpha=0.05)
        assert rr.significant < res.significant                 # RR less discriminative than AP
    assert len(set(sens.values())) == 4
    assert min(sens, key=sens.get) == "ntcir5-japanese"
    assert max(sens, key=sens.get) == "ntcir3-japanese"
    assert min(spread, key=spread.get) == "ntcir5-japanese"


def test_all_four_fast_enough(tmp_path):
    import time

    t0 = time.perf_counter()
    assert main(["simulate", "--out-root", str(tmp_path), "--quiet"]) == 0
    elapsed = time.perf_counter() - t0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(PRESETS)
    assert elapsed < 30        # about 3 s on the reference 2-core machine; generous for CI


def test_cli_params_and_errors(tmp_path, capsys):
    out = tmp_path / "one"
    params = json.dumps({"preset": "ntcir3-japanese", **SMALL, "seed": 5})
    assert main(["simulate", "--out", str(out), "--params", params, "--quiet"]) == 0
    saved = json.loads((out / "params.json").read_text())
    assert saved["seed"] == 5 and saved["topics"] == 12
    assert SimParams.from_dict(saved) == preset("ntcir3-japanese", **SMALL, seed=5)
    assert main(["simulate", "--out", str(tmp_path / "bad"), "--params", '{"topicz": 3}']) == 1
    assert "topicz" in capsys.readouterr().err
    assert main(["simulate", "nope", "--out-root", str(tmp_path)]) == 1
    # parameters that validate but cannot be simulated: one line, exit 1, not a traceback
    small = json.dumps({"preset": "ntcir3-japanese", "topics": 8, "runs": 5, "depth": 50, "candidates": 150,
                        "pool_depth": 10})
    capsys.readouterr()
    assert main(["simulate", "--out", str(tmp_path / "bad"), "--params", small]) == 1
    err = capsys.readouterr().err
    assert err.startswith("metaeval: error: simulation parameters of ntcir3-japanese: ") and "raise candidates" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "bad").exists() and not (tmp_path / "nope").exists()
    with pytest.raises(ValueError):
        SimParams(rel_means=(1.0, 2.0), level_bonus=(0.0,))
