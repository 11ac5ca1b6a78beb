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


# ------------------------------------------------------------------ the central modules name no stage
#: the modules that loop over the stages (docs/architecture.md)
CENTRAL = ("outputs.py", "dag.py", "pipeline.py", "cli/stage.py", "report/layouts.py")
#: the stage names each may still spell in its code: none -- what a stage adds to the pipeline's
#: files is a hook it declares (StageInfo.caption_notes, texts, folder_files), the parameters a job
#: passes come from the declarations, a scope's report caption keys from its declared style, and the
#: report layer's layouts (keyed by table names, which the layer rule keeps out of metaeval.meta)
#: are registered by their own modules (report/layout_catalogue.py imports them)
STILL_NAMED = {"outputs.py": 0, "dag.py": 0, "pipeline.py": 0, "cli/stage.py": 0, "report/layouts.py": 0}


def _code(path: Path) -> str:
    """The source's tokens without comments and docstrings."""
    import ast
    import io
    import tokenize

    src = path.read_text(encoding="utf-8")
    docs = {(b[0].lineno, b[0].col_offset) for n in ast.walk(ast.parse(src))
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            for b in [n.body] if b and isinstance(b[0], ast.Expr) and isinstance(b[0].value, ast.Constant)
            and isinstance(b[0].value.value, str)}
    return " ".join(tok.string for tok in tokenize.generate_tokens(io.StringIO(src).readline)
                    if tok.type != tokenize.COMMENT and not (tok.type == tokenize.STRING and tok.start in docs))


def stage_mentions(path: Path) -> dict[str, int]:
    """How often the code of ``path`` spells the name of a stage of the plug-in kinds (a method
    or a stage with a job of its own), as a word."""
    names = [s.name for s in stages.REGISTRY if s.kind in ("matrices", "labelled", "other")]
    code = _code(path)
    found = {n: len(re.findall(r"\b" + re.escape(n) + r"\b", code)) for n in names}
    return {n: k for n, k in found.items() if k}


def test_central_modules_name_no_stage():
    """outputs, dag, pipeline, cli/stage and report/layouts loop over the stages: before the stages
    became plug-ins they spelled stage names 239 times (outputs.py 154, dag.py 41, report/layouts.py
    17, cli/stage.py 15, pipeline.py 12); what is left is listed in STILL_NAMED."""
    src = ROOT / "src" / "metaeval"
    counts = {f: sum(stage_mentions(src / f).values()) for f in CENTRAL}
    assert counts == STILL_NAMED, {f: stage_mentions(src / f) for f in CENTRAL}
    # the count sees a name: in a layout module, which registers the layouts of a stage's tables
    assert "kendall" in stage_mentions(src / "report" / "sakai_layouts.py")


def test_no_make_dataclass():
    """MetaConfig is composed from the stages' parameter classes, its fields typed."""
    import dataclasses
    import typing

    from metaeval.meta.run import MetaConfig

    for path in (ROOT / "src").rglob("*.py"):
        assert "make_dataclass" not in path.read_text(encoding="utf-8"), path
    hints = typing.get_type_hints(MetaConfig, localns={"IncompletenessConfig": object})
    assert all(hints[f.name] is not object for f in dataclasses.fields(MetaConfig)), hints
    assert MetaConfig().B == 1000 and MetaConfig().swap_threshold == 0.05
