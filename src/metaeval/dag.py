"""The pipeline's jobs from its config: what ``workflow/rules/common.smk`` (a thin adapter) asks.

Everything here is derived from the stage declarations (:mod:`metaeval.stages`, one module per
stage): the config schema's stage sections (:func:`schema_sections`, the generated block of
``workflow/schemas/config.schema.yaml``), the command-line arguments of every stage's job
(:func:`stage_arguments`, :func:`job_arguments`).  Standard library only (and PyYAML to write
the schema block), so that parsing the workflow loads no numpy or pandas.

One job per collection runs every method on the matrices (``metaeval stage meta``,
``workflow/rules/meta.smk``) and one per method on the labelled collection (``incompleteness``):
a job's arguments are those of every method it runs, so changing one method's parameter re-runs
the collection's ``meta`` job (all its methods, tables and figures; not the matrices), and only
the incompleteness job when one of its own parameters changes.
"""

from __future__ import annotations

import re
import shlex

from . import stages as _stages

__all__ = ["config_value", "quote", "format_args", "stage_arguments", "job_arguments",
           "schema_sections", "schema_block", "SCHEMA_BEGIN", "SCHEMA_END"]

_MISSING = object()


def config_value(config: dict, path: tuple, default=_MISSING):
    """The value at key ``path`` of a (validated, defaults filled) config."""
    v = config
    for k in path:
        if not isinstance(v, dict) or k not in v:
            if default is _MISSING:
                raise KeyError(".".join(path))
            return default
        v = v[k]
    return v


def quote(s) -> str:
    return shlex.quote(str(s))


def format_args(**opts) -> str:
    """``--name value...`` shell arguments (each value quoted; lists spread; None/empty left out)."""
    out = []
    for k, v in opts.items():
        if v is None or v == []:
            continue
        vals = v if isinstance(v, (list, tuple)) else [v]
        out.append(" ".join([f"--{k.replace('_', '-')}"] + [quote(x) for x in vals]))
    return " ".join(out)


def _param_words(prm, value) -> str:
    """One parameter's option with the config's value, as a job's command line has it."""
    if prm.action == "store_true":
        return prm.option if value else ""
    if prm.action == "store_false":
        return "" if value else prm.option
    if value is None or value == [] or value == ():
        return ""
    if prm.render is not None:
        value = prm.render(value)
    vals = value if isinstance(value, (list, tuple)) else [value]
    return " ".join([prm.option] + [quote(x) for x in vals])


def stage_arguments(name: str, config: dict, values: dict | None = None) -> str:
    """The options of stage ``name``'s job that come from the config: every parameter the stage
    ``reads``, in that order, valued from its config key, or from ``values`` (the workflow's
    canonical measure names: ``metrics``, ``geometric``, ``sweep_metrics``, ...)."""
    values = values or {}
    words, switches = [], []
    for pname in _stages.get(name).reads:
        prm = _stages.param(pname)
        if pname in values:
            v = values[pname]
        elif prm.config is not None:
            v = config_value(config, prm.config)
        else:
            raise ValueError(f"stage {name} reads {pname!r}, which has no config key: give its value")
        w = _param_words(prm, v)
        if w:
            (switches if prm.action else words).append(w)
    return " ".join(words) + "".join(" " + w for w in switches)


def job_arguments(chunks: list[str]) -> str:
    """The options of one job running several stages: every option any of them reads, each once."""
    seen, out = set(), []
    for text in chunks:
        for chunk in re.split(r" (?=--)", text):
            if chunk.strip() and chunk not in seen:
                seen.add(chunk)
                out.append(chunk.strip())
    return " ".join(out)


# --------------------------------------------------------------------------- the config schema
SCHEMA_BEGIN = "  # BEGIN stage parameters: generated from metaeval.stages by `python -m metaeval.dag schema`"
SCHEMA_END = "  # END stage parameters"


def _prop(prm) -> dict:
    out = {"description": prm.doc or prm.help}
    out.update(prm.schema or {})
    out["default"] = prm.schema_default
    return out


def _section(root: dict, path: tuple, docs: dict) -> dict:
    node = root
    for i, k in enumerate(path):
        props = node.setdefault("properties", {})
        if k not in props:
            doc = docs.get(path[:i + 1])
            props[k] = {"description": doc, "type": "object", "additionalProperties": False,
                        "default": {}, "properties": {}}
        node = props[k]
    return node


def schema_sections() -> dict:
    """The config sections of the stages' parameters (``{key: JSON schema}``, in the order of the
    stages' ``schema_rank``, then the registry): each parameter with a ``config`` key and a
    ``schema``, each stage's ``switch`` first in its section."""
    common = __import__(_stages.COMMON_MODULE, fromlist=["SECTIONS"])
    owners = [(0, -1, common.SECTIONS, None, common.PARAMS)]
    methods = [s for s in _stages.REGISTRY if s.is_method]
    owners += [(s.schema_rank, i, s.sections, s, s.params) for i, s in enumerate(methods)]
    docs = {path: doc for _, _, secs, _, _ in owners for path, doc in secs}
    root: dict = {}
    for _, _, _, s, ps in sorted(owners, key=lambda o: (o[0], o[1])):
        if s is not None and s.switch is not None:
            node = _section(root, s.switch[:-1], docs)
            node["properties"][s.switch[-1]] = {"description": s.switch_doc, "type": "boolean", "default": True}
        for prm in ps:
            if prm.config is not None and prm.schema is not None:
                node = _section(root, prm.config[:-1], docs)
                node["properties"][prm.config[-1]] = _prop(prm)
    return root.get("properties", {})


def schema_block() -> str:
    """The generated block of ``workflow/schemas/config.schema.yaml``: :func:`schema_sections` as
    YAML under ``properties:``, between :data:`SCHEMA_BEGIN` and :data:`SCHEMA_END`."""
    import yaml

    body = yaml.safe_dump(schema_sections(), default_flow_style=False, sort_keys=False, width=100,
                          allow_unicode=True)
    lines = [SCHEMA_BEGIN] + ["  " + ln if ln else ln for ln in body.splitlines()] + [SCHEMA_END]
    return "\n".join(lines) + "\n"


def replace_schema_block(text: str) -> str:
    """``text`` (the schema file) with its generated block replaced by :func:`schema_block`."""
    head, sep, rest = text.partition(SCHEMA_BEGIN + "\n")
    if not sep or SCHEMA_END not in rest:
        raise ValueError("the schema has no generated block (lines SCHEMA_BEGIN ... SCHEMA_END)")
    tail = rest[rest.index(SCHEMA_END + "\n") + len(SCHEMA_END) + 1:]
    return head + schema_block() + tail


def main(argv=None) -> int:
    """``python -m metaeval.dag schema [FILE]``: rewrite the generated block of the schema file."""
    import sys
    from pathlib import Path

    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] != "schema":
        print("usage: python -m metaeval.dag schema [workflow/schemas/config.schema.yaml]", file=sys.stderr)
        return 2
    path = Path(argv[1] if len(argv) > 1 else "workflow/schemas/config.schema.yaml")
    path.write_text(replace_schema_block(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
