"""The shipped Snakemake profiles (workflow/profiles/*/config.yaml) name only rules that exist:
Snakemake ignores a per-rule setting of an unknown rule silently, so a renamed rule would leave
the example (or a user's copy of it) doing nothing.  Commented examples count: they are what
users uncomment.  And the local profiles keep going past a failed job."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROFILES = sorted((ROOT / "workflow" / "profiles").glob("*/config.yaml"))
#: the profile settings keyed by rule name
PER_RULE = ("set-resources", "set-threads", "set-resource-scopes", "set-scatter")


def workflow_rules() -> set[str]:
    """Every rule (and checkpoint) the Snakefile and workflow/rules/*.smk define: those named in
    their files, and the generic rule ``own_job_NAME`` of every own job without a rule of its own
    (workflow/rules/own_job.smk)."""
    from metaeval.meta.stages import own_job_stages

    names: set[str] = set()
    for path in [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]:
        names |= set(re.findall(r"^\s*(?:rule|checkpoint)\s+(\w+)\s*:", path.read_text(), re.M))
    return names | {f"own_job_{s}" for s in own_job_stages() if s not in names}


def rules_named(text: str) -> list[str]:
    """The rule names a profile's per-rule sections hold (the keys two spaces in), commented or not."""
    names, section = [], False
    for line in text.splitlines():
        body = re.sub(r"^#\s?", "", line)              # a commented example counts too
        body = re.sub(r"\s+#.*$", "", body).rstrip()   # without its trailing comment
        if re.match(rf"^(?:{'|'.join(PER_RULE)}):", body):
            section = True
            continue
        m = re.match(r"^ {2}([A-Za-z_]\w*):", body)
        if section and m:
            names.append(m[1])
        elif body and not body.startswith(" "):
            section = False
    return names


def test_the_reader_finds_rule_names_commented_or_not():
    text = ("jobs: 4\n# set-resources:   # e.g.\n#   bootstrap_paired:\n#     mem_mb: 4000\n#   metrics:\n"
            "#     runtime: 60\n# a comment\n#   not_a_rule:\nset-threads:\n  meta: 2\n  writers: 1\n"
            "default-resources:\n  mem_mb: 2000\n")
    assert rules_named(text) == ["bootstrap_paired", "metrics", "meta", "writers"]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.parent.name)
def test_every_rule_a_profile_names_exists(profile):
    rules = workflow_rules()
    assert {"simulate", "metrics", "meta", "writers", "summary", "own_job_judgments", "own_job_ppi"} <= rules
    unknown = sorted(set(rules_named(profile.read_text())) - rules)
    assert not unknown, f"{profile.relative_to(ROOT)} names rules the workflow does not have: {unknown}"


def test_the_slurm_profile_shows_per_rule_settings_of_real_rules():
    named = rules_named((ROOT / "workflow/profiles/slurm/config.yaml").read_text())
    assert named and set(named) <= workflow_rules()


@pytest.mark.parametrize("name", ["default", "slurm"])
def test_the_profile_keeps_going_past_a_failed_job(name):
    settings = yaml.safe_load((ROOT / "workflow/profiles" / name / "config.yaml").read_text())
    assert settings["keep-going"] is True
