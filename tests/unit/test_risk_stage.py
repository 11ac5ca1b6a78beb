"""The ``risk`` stage (tables/risk.csv): run_meta / run_stage with a configured baseline equal
metaeval.meta.risk.risk_table on the runs in use; no baseline, no table; the per-stage command
writes the part; the config schema takes a collection's ``risk:`` block."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval import outputs
from metaeval.meta.risk import RISK_COLUMNS, risk_table
from metaeval.meta.run import MetaConfig, run_stage, STAGES


@pytest.fixture
def mats():
    rng = np.random.default_rng(3)
    runs = [f"run{i}" for i in range(6)]
    topics = [str(t) for t in range(401, 426)]
    X = rng.uniform(0, 1, size=(25, 6))
    return {"AP": pd.DataFrame(X, index=topics, columns=runs),
            "nDCG@10": pd.DataFrame(X ** 0.5, index=topics, columns=runs)}


def test_declared():
    o = outputs.get("risk", "collection", "table")
    names = [t.name for t in outputs.tables("collection", risk=True)]
    assert "risk" in names and "risk" not in [t.name for t in outputs.tables("collection", risk=False)]
    assert STAGES["risk"].tables == ("risk",)
    assert list(o.columns) == RISK_COLUMNS and o.condition == "risk"


def test_stage_equals_risk_table(mats):
    cfg = MetaConfig(risk_baseline=("run2",), risk_alpha=(1.0, 5.0))
    got = run_stage("risk", mats, ["AP", "nDCG@10"], cfg)["risk"]
    want = risk_table(mats, ["run2"], [1.0, 5.0], ["AP", "nDCG@10"])
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want)
    assert len(got) == 2 * 2 * 5 and list(got.columns) == RISK_COLUMNS


def test_no_baseline_empty_table(mats):
    got = run_stage("risk", mats, ["AP"], MetaConfig())["risk"]
    assert got.empty and list(got.columns) == RISK_COLUMNS


def test_unknown_baseline_is_an_error(mats):
    with pytest.raises(ValueError, match="risk: AP: baseline 'nope'"):
        run_stage("risk", mats, ["AP"], MetaConfig(risk_baseline=("nope",)))


def test_bad_alpha():
    with pytest.raises(ValueError, match="risk_alpha"):
        MetaConfig(risk_alpha=(-1.0,))


def test_meta_command_writes_the_table(mats, tmp_path):
    from metaeval.cli import main

    d = tmp_path / "m"
    d.mkdir()
    for m, df in mats.items():
        df.rename_axis("topic").to_csv(d / f"{m}.csv")
    out = tmp_path / "o"
    assert main(["meta", "--matrices", str(d), "--out", str(out), "--B", "50", "--rthsd-B", "50", "--no-figures",
                 "--quiet", "--metrics", "AP", "--risk-baseline", "run0", "--risk-alpha", "0", "10"]) == 0
    csv = pd.read_csv(out / "tables" / "risk.csv")
    assert list(csv.columns) == RISK_COLUMNS and sorted(set(csv["alpha"])) == [0.0, 10.0]
    want = risk_table({"AP": mats["AP"]}, "run0", [0.0, 10.0])
    np.testing.assert_allclose(csv["urisk"], want["urisk"], rtol=1e-12)
    md = (out / "tables" / "risk.md").read_text()
    row = want.iloc[-1]
    assert "URisk" in md and "GeoRisk" in md and f"{row.urisk:.4f}" in md and f"{row.trisk:.2f}" in md
    out2 = tmp_path / "o2"
    assert main(["meta", "--matrices", str(d), "--out", str(out2), "--B", "50", "--rthsd-B", "50", "--no-figures",
                 "--quiet", "--metrics", "AP"]) == 0
    assert not (out2 / "tables" / "risk.csv").exists()


def test_schema_takes_the_risk_block():
    import yaml
    from pathlib import Path

    import jsonschema

    schema = yaml.safe_load((Path(__file__).resolve().parents[2] / "workflow/schemas/config.schema.yaml").read_text())
    sub = schema["properties"]["collections"]["additionalProperties"]["properties"]["risk"]
    jsonschema.validate({"baseline": "bm25", "alpha": [1, 5]}, sub)
    jsonschema.validate({"baseline": ["a", "b"]}, sub)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"baseline": "a", "alpha": [-1]}, sub)


@pytest.mark.slow
def test_dag_has_the_risk_table_once_a_baseline_is_configured(tmp_path):
    """A config whose collection simA names a baseline: tables/risk.* are targets of both
    collections, and simA's meta job gets --risk-baseline and --risk-alpha."""
    import subprocess
    import sys

    from _pipeline_run import REDUCED, SNAKEFILE

    text = REDUCED.replace("    top_runs: 6\n", "    top_runs: 6\n    risk: {baseline: run01, alpha: [0, 5]}\n", 1)
    assert text != REDUCED
    cfg = tmp_path / "config.yaml"
    cfg.write_text(text)
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(tmp_path),
           "--configfile", str(cfg), "-n", "--summary"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    outs = {ln.split("\t")[0] for ln in r.stdout.splitlines() if "\t" in ln}
    for c in ("simA", "simB"):
        assert {f"results/{c}/tables/risk.{x}" for x in ("csv", "md", "tex")} <= outs
    r = subprocess.run(cmd[:-1] + ["-p", "results/simA/tables/risk.csv"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    assert "--risk-baseline run01 --risk-alpha 0 5" in r.stdout
