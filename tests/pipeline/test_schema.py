"""The pipeline's config schema: documented, defaulted, strict; shipped configs validate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())


def _validate(cfg):
    """Validate exactly as the workflow does (snakemake.utils.validate fills in the defaults)."""
    from snakemake.utils import validate

    validate(cfg, str(ROOT / "workflow/schemas/config.schema.yaml"))
    return cfg


def _walk(schema, path="config"):
    """Every object property schema with its dotted path."""
    for name, sub in schema.get("properties", {}).items():
        yield f"{path}.{name}", sub
        yield from _walk(sub, f"{path}.{name}")
    ap = schema.get("additionalProperties")
    if isinstance(ap, dict):
        yield from _walk(ap, f"{path}.*")


def test_schema_is_valid_and_every_property_documented():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["additionalProperties"] is False
    for path, sub in _walk(SCHEMA):
        assert sub.get("description"), f"{path} has no description"
        if sub.get("type") == "object" or "properties" in sub:
            ap = sub.get("additionalProperties")
            # a plain object, a map (collections) whose values are strict objects, or a map of
            # user-chosen names (judgments.qrels) whose names are constrained and whose values are
            # not objects
            named_map = (isinstance(ap, dict) and "propertyNames" in sub
                         and "properties" not in ap and ap.get("type") != "object")
            assert ap is False or named_map or (isinstance(ap, dict) and ap.get("additionalProperties") is False), \
                f"{path} accepts unknown keys"
    # defaults everywhere except the per-collection data/simulation parameters, whose defaults
    # are the simulation preset's or have no sensible value (qrels, runs)
    no_default = {"qrels", "runs", "simulate", "judgments",     # judgments: an optional block whose qrels are required
                  "ppi", "judge"}                              # ppi: an optional block whose judge is required
    for path, sub in _walk(SCHEMA):
        parts = path.split(".")
        if "simulate" in parts[:-1] or parts[-1] in no_default:
            continue
        assert "default" in sub, f"{path} has no default"


@pytest.mark.parametrize("name", ["config.yaml", "config/examples/trec-dl19.yaml",
                                  "config/examples/trec-dl19-official.yaml"])
def test_shipped_configs_validate(name):
    cfg = _validate(yaml.safe_load((ROOT / name).read_text()))
    assert cfg["bootstrap"]["B"] == 1000 and cfg["bootstrap"]["alpha"] == 0.05
    assert "seed" in yaml.safe_load((ROOT / name).read_text())["bootstrap"]


def test_default_config_has_the_four_simulated_collections():
    cfg = _validate(yaml.safe_load((ROOT / "config.yaml").read_text()))
    assert list(cfg["collections"]) == ["ntcir3-chinese", "ntcir3-japanese", "ntcir5-chinese",
                                        "ntcir5-japanese"]
    assert all("simulate" in c and c["top_runs"] == 30 for c in cfg["collections"].values())
    for m in ["RR", "NWRR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "Prec@1000",
              "nCG@1000", "nDCG@1000"]:
        assert m in cfg["metrics"]


def test_defaults_are_filled():
    cfg = _validate({"collections": {"x": {"qrels": "q", "runs": "r"}}})
    assert cfg["collections"]["x"]["gains"] == "1:2:3"
    assert cfg["collections"]["x"]["top_runs"] == 30
    assert cfg["bootstrap"] == {"B": 1000, "alpha": 0.05, "seed": 0}
    assert cfg["sweeps"]["gains"]["variants"] == ["10:20:30", "0.1:0.2:0.3", "1:1:1", "1:5:10"]
    assert len(cfg["stability"]["fuzziness"]) == 20


@pytest.mark.parametrize("bad", [
    {"collections": {"x": {"qrels": "q", "runs": "r"}}, "bootstrp": {"B": 10}},
    {"collections": {"x": {"qrels": "q", "runs": "r", "gain": "1:2"}}},
    {"collections": {"x": {"qrels": "q"}}},                                  # runs missing
    {"collections": {"x": {"qrels": "q", "runs": "r", "simulate": {}}}},    # both forms
    {"collections": {"x": {"simulate": {"preset": "ntcir9"}}}},
    {"collections": {"x": {"simulate": {"topicz": 3}}}},
    {"collections": {"x": {"qrels": "q", "runs": "r"}}, "bootstrap": {"alpha": 1.5}},
    {"collections": {"x": {"qrels": "q", "runs": "r", "gains": "1,2,3"}}},
    {"collections": {"bad/name": {"qrels": "q", "runs": "r"}}},
])
def test_bad_configs_rejected(bad):
    from snakemake.exceptions import WorkflowError

    with pytest.raises(WorkflowError, match="ValidationError"):
        _validate(bad)


def test_snakemake_rejects_a_misspelt_key_before_any_job(tmp_path):
    """A misspelt key: the clear line and the keys allowed there, at most 5 lines in all (no schema)."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text("collections:\n  x: {simulate: {preset: ntcir5-chinese}}\nbootstrap: {B: 10, alpah: 0.1}\n")
    r = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-n",
                        "--configfile", str(cfg), "--directory", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "config: bootstrap: unknown key 'alpah' (did you mean 'alpha'?)" in out
    assert "allowed keys of bootstrap: B, alpha, seed" in out
    assert len(out.strip().splitlines()) <= 5, out
    assert "description" not in out and "additionalProperties" not in out
    assert not (tmp_path / "results").exists() and not (tmp_path / "data").exists()


@pytest.mark.parametrize("bad, line", [
    ({"collections": {"x": {"qrels": "q", "runs": "r"}}, "bootstrp": {"B": 10}},
     "config: top level: unknown key 'bootstrp' (did you mean 'bootstrap'?)"),
    ({"collections": {"x": {"qrels": "q", "runs": "r", "gain": "1:2"}}},
     "config: collections.x: unknown key 'gain' (did you mean 'gains'?)"),
    ({"collections": {"x": {"qrels": "q"}}}, "config: collections.x: `runs:` missing"),
    ({"collections": {"x": {"qrels": "q", "runs": "r", "simulate": {}}}}, "not both"),
    ({"collections": {"x": {"simulate": {"preset": "ntcir9"}}}},
     "config: collections.x.simulate.preset: 'ntcir9' is not one of"),
    ({"collections": {"x": {"qrels": "q", "runs": "r"}}, "bootstrap": {"alpha": 1.5}},
     "config: bootstrap.alpha: 1.5 is greater than or equal to the maximum of 1"),
    ({"collections": {"x": {"qrels": "q", "runs": "r"}}, "sweeps": {"gains": {"enabeld": True}}},
     "config: sweeps.gains: unknown key 'enabeld' (did you mean 'enabled'?)"),
])
def test_schema_error_is_one_clear_line(bad, line):
    from metaeval.checks import schema_error

    msg = schema_error(bad, SCHEMA)
    assert msg.startswith("config: collections.x: give either" if line == "not both" else line), msg
    assert msg.count("\n") <= 1, msg
    assert schema_error(yaml.safe_load((ROOT / "config.yaml").read_text()), SCHEMA) is None
