"""The effective configuration of a pipeline results folder.

The Snakemake pipeline writes, at the start of every run, ``RESULTS/effective-config.yaml``: the
config file(s) given merged with the schema's defaults, headed by the lines that say what came
from the defaults (the Kishida tables, the gain sweep, ...) and how to switch it off; those lines
are also printed.  The next run reads it back, so that a results folder and its report always
describe one configuration:

* a run whose **collections** (names, qrels, runs, simulation parameters) differ from the
  recorded ones is refused with one line naming both sets and how to proceed (another
  ``results:`` folder, or delete this one) -- never two experiments mixed in one folder;
* any other change (metrics, B, alpha, ...) runs: Snakemake re-runs the jobs it affects (the
  profile's ``rerun-triggers``), and the record is replaced;
* ``--report`` of a config that differs in anything from the recorded one is refused: the report
  would describe files another configuration wrote.
"""

from __future__ import annotations

import os
from typing import Any
from pathlib import Path

__all__ = ["RECORD", "leaf_paths", "inherited_lines", "effective_config_text", "read_record",
           "collection_conflict", "changed_keys", "report_conflict", "write_record"]

#: the record's file name inside the results folder
RECORD = "effective-config.yaml"

#: how to switch off what a config inherits, shown with the inherited lines
SWITCH_OFF = ("switch a default off in your config, e.g. `kishida: {enabled: false}`, "
              "`sweeps: {gains: {enabled: false}}`, `summary: {enabled: false}`")

#: the keys of a collection that name its data (a change is another experiment, not a parameter)
_DATA_KEYS = ("qrels", "runs", "simulate", "qrels_form", "intent_probs")


def leaf_paths(cfg, prefix: tuple = ()) -> set[tuple]:
    """Every key path of a nested dict (a path to a non-dict value, or to an empty dict)."""
    out: set[tuple] = set()
    if isinstance(cfg, dict) and cfg:
        for k, v in cfg.items():
            out |= leaf_paths(v, prefix + (str(k),))
    else:
        out.add(prefix)
    return out


def _flow(value) -> str:
    import yaml

    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10 ** 6).strip()
    return text.removesuffix("\n...")


def _defaulted(value, path: tuple, given_paths: set[tuple], given_prefixes: set[tuple]):
    """The part of ``value`` (at ``path``) that the config files did not give, without empty
    defaults (null, ''); ``None`` if nothing is left."""
    if path in given_paths:
        return None
    if isinstance(value, dict) and value.get("enabled") is False:
        # a switched-off block: its other defaults (the gain sweep's metrics, ...) do nothing
        value = {"enabled": False}
    if path not in given_prefixes or not isinstance(value, dict):
        return None if value is None or value == "" else value
    out = {}
    for k, v in value.items():
        sub = _defaulted(v, path + (str(k),), given_paths, given_prefixes)
        if sub is not None and sub != {}:
            out[k] = sub
    return out or None


def inherited_lines(effective: dict, given_paths: set[tuple], limit: int = 110) -> list[str]:
    """What ``effective`` holds that the config files did not give (``given_paths`` from
    :func:`leaf_paths` of the config before the defaults were filled in): one line per top-level
    key (per collection for ``collections``), ``key: value`` in YAML flow style; empty defaults
    (null, '') left out."""
    given_prefixes = {p[:i] for p in given_paths for i in range(1, len(p) + 1)}
    items: list[tuple[tuple[str, ...], Any]] = []
    for k, v in effective.items():
        if k == "collections" and isinstance(v, dict) and ("collections",) in given_prefixes:
            items += [((k, str(c)), cv) for c, cv in v.items()]
        else:
            items.append(((str(k),), v))
    lines = []
    for path, value in items:
        part = _defaulted(value, path, given_paths, given_prefixes)
        if part is None:
            continue
        text = _flow(part)
        if len(text) > limit:
            text = text[:limit - 3] + "..."
        lines.append(f"{'.'.join(path)}: {text}")
    return lines


def effective_config_text(effective: dict, given_paths: set[tuple], sources: list[str]) -> str:
    """The record: a comment header (where it comes from, what was inherited, how to switch it
    off), then the effective config as YAML in the schema's key order."""
    import yaml

    head = ["# The effective configuration of this results folder, written by the metaeval pipeline at",
            f"# the start of every run: {', '.join(sources) or 'the config'} merged with the defaults of",
            "# workflow/schemas/config.schema.yaml (config/README.md). A run of other collections into",
            "# this folder, or a --report of another configuration, is refused."]
    inh = inherited_lines(effective, given_paths)
    if inh:
        head.append("# From the defaults (not in the config given):")
        head += [f"#   {ln}" for ln in inh]
        head.append(f"# ({SWITCH_OFF})")
    body = yaml.safe_dump(effective, default_flow_style=None, sort_keys=False, width=100)
    return "\n".join(head) + "\n" + body


def results_problem(results) -> str | None:
    """One line refusing the ``results`` folder of a config before any job runs -- a path through
    a file (``results: afile/res``) or naming a file -- or None when it is a folder or can be made."""
    p = Path(str(results))
    if str(results).strip() == "":
        return "config: results: an empty path; name the results folder"
    for q in [p, *p.parents]:
        if q.exists() or q.is_symlink():
            if q.is_dir():
                return None
            what = "is a file" if q.exists() else "is a symbolic link that leads nowhere"
            if q == p:
                return f"config: results: {results} {what}, not a folder"
            return f"config: results: {results} lies under {q}, which {what}, not a folder"
    return None


def duplicate_key(path) -> str | None:
    """One line naming the file and line of a key given twice in one mapping of the YAML config
    ``path`` (YAML loaders keep the last silently), or None (no such key, or a file that does not
    parse: Snakemake words that)."""
    import yaml

    class _Strict(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    found: list[str] = []

    def construct(loader, node):
        seen: dict = {}
        for k, _v in node.value:
            key = loader.construct_object(k, deep=True)
            try:
                first = seen.setdefault(key, k.start_mark.line + 1)
            except TypeError:                   # an unhashable key: the default constructor refuses it
                continue
            if first != k.start_mark.line + 1 and not found:
                found.append(f"{path}:{k.start_mark.line + 1}: config key {key!r} given twice in one mapping "
                             f"(first on line {first}); YAML would keep the last silently -- give it once")
        return loader.construct_mapping(node, deep=True)

    _Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct)
    try:
        with open(path, encoding="utf-8") as fh:
            yaml.load(fh, Loader=_Strict)      # a safe loader with one constructor more
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return found[0] if found else None


def read_record(results_dir) -> dict | None:
    """The recorded effective config of ``results_dir`` (``None``: no record, or unreadable)."""
    import yaml

    try:
        with open(Path(results_dir) / RECORD, encoding="utf-8") as fh:
            rec = yaml.safe_load(fh)
    except (OSError, yaml.YAMLError):
        return None
    return rec if isinstance(rec, dict) else None


def _data(collections) -> dict:
    return {str(name): {k: c.get(k) for k in _DATA_KEYS if c.get(k) is not None}
            for name, c in (collections or {}).items()}


def collection_conflict(recorded: dict | None, current: dict, results: str, sources: list[str]) -> str | None:
    """One line refusing a run whose collections differ from the recorded ones (``None`` if they
    agree, or nothing is recorded)."""
    if recorded is None:
        return None
    old, new = _data(recorded.get("collections")), _data(current.get("collections"))
    if old == new:
        return None
    if set(old) == set(new):
        diff = [n for n in new if old[n] != new[n]]
        what = f"the data of collection(s) {', '.join(diff)} differ"
    else:
        what = f"it holds {', '.join(old) or 'no collection'}, this config has {', '.join(new)}"
    cfg = " ".join(sources) or "this config"
    return (f"{results}/ holds the results of another configuration ({what}; see "
            f"{results}/{RECORD}): run {cfg} into its own folder (`results: OTHER` in the config, or "
            f"--config results=OTHER), or delete {results}/ first")


def changed_keys(recorded: dict | None, current: dict) -> list[str]:
    """Dotted key paths whose values differ between two effective configs."""
    if recorded is None:
        return []
    out = []

    def walk(a, b, path):
        if isinstance(a, dict) and isinstance(b, dict):
            for k in list(dict.fromkeys([*a, *b])):
                walk(a.get(k), b.get(k), path + (str(k),))
        elif a != b:
            out.append(".".join(path))

    walk(recorded, current, ())
    return out


def report_conflict(recorded: dict | None, current: dict, results: str) -> str | None:
    """One line refusing ``--report`` with a config other than the one that wrote ``results``."""
    diff = changed_keys(recorded, current)
    if not diff:
        return None
    shown = ", ".join(diff[:5]) + (f", ... ({len(diff)} in all)" if len(diff) > 5 else "")
    return (f"{results}/ was written by another configuration (differs in {shown}; see "
            f"{results}/{RECORD}): run this config first, or build the report with the config that "
            f"wrote {results}/")


def write_record(results_dir, text: str) -> Path:
    """Write the record atomically (mode by the umask)."""
    from .util import atomic_write

    path = Path(results_dir) / RECORD
    os.makedirs(path.parent, exist_ok=True)
    with atomic_write(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    return path
