"""One place for a stage: every list of stages is derived from metaeval.stages.REGISTRY and agrees."""

from __future__ import annotations

import re
from pathlib import Path

from metaeval import outputs, stages
from metaeval.cli.stage import FILE_STAGES
from metaeval.meta.run import STAGES

ROOT = Path(__file__).resolve().parents[2]


def test_meta_run_stages_are_the_registry_methods():
    methods = [s for s in stages.REGISTRY if s.kind in ("matrices", "labelled")]
    assert list(STAGES) == [s.name for s in methods]
    for s in methods:
        # the declaration itself, from its module metaeval.meta.stages.NAME
        assert STAGES[s.name] is s and s.run.__module__ == f"metaeval.meta.stages.{s.name}"
    assert STAGES["incompleteness"].labelled and not STAGES["paired"].labelled


def test_output_stages_and_conditions_come_from_the_registry():
    assert outputs.STAGES == stages.names()
    assert set(outputs.CONDITIONS) == {s.condition for s in stages.REGISTRY if s.condition}
    for o in outputs.OUTPUTS:
        assert set(o.stages) <= set(stages.names()), o.name
    # every table a method writes is declared, naming that method as (one of) its stage(s)
    for s in stages.REGISTRY:
        for t in s.tables:
            assert s.name in outputs.get(t).stages, (s.name, t)


def test_cli_file_stages_are_the_registry_file_stages():
    assert FILE_STAGES == stages.file_stages() == ("select_runs", "tables", "meta", "figures", "summary")


def test_workflow_method_stages_are_derived_not_listed():
    text = (ROOT / "workflow" / "rules" / "common.smk").read_text(encoding="utf-8")
    assigned = re.findall(r"^METHOD_STAGES\s*[+]?=\s*(.*)$", text, re.M)
    assert assigned == ["PLAN.method_stages"]          # metaeval.dag.Plan: from the registry
    import inspect

    from metaeval import dag

    assert "_stages.method_stages(**self.conditions)" in inspect.getsource(dag.Plan)
    # every method stage is run by a rule: a stage on the labelled collection by its own
    # (`metaeval stage NAME`), those on the matrices by the collection's meta job (`metaeval stage
    # meta`, given every stage of METHOD_STAGES, it runs those on the matrices itself)
    rules = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    meta = (ROOT / "workflow" / "rules" / "meta.smk").read_text(encoding="utf-8")
    assert "stage meta " in meta and "group_args(META_STAGES" in meta
    for name in stages.method_stages():
        if stages.get(name).kind != "matrices":
            assert f"stage {name} " in rules, name


def test_method_stages_follow_the_conditions():
    all_on = stages.method_stages()
    assert all_on == [s.name for s in stages.REGISTRY if s.is_method]
    off = stages.method_stages(gain_sweep=False, incompleteness=False)
    assert off == [n for n in all_on if n not in ("gain_sweep", "incompleteness")]
