"""The layers import downward only (docs/architecture.md).

* Nothing under ``metaeval.io``, ``metaeval.metrics`` or ``metaeval.meta`` imports the output
  layer (``metaeval.outputs``, ``metaeval.report``, the ``tables``/``figures`` shims), the
  orchestration (``metaeval.pipeline``, ``metaeval.cli``), matplotlib or Snakemake -- checked
  statically (every ``import`` statement, also inside functions) and at run time (``sys.modules``
  after importing every module of those packages in a fresh interpreter).
* The package-level import graph of ``metaeval`` is acyclic and goes down the layers; the
  module-level graph (imports inside functions too) has no circle either.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PKG = SRC / "metaeval"

LOWER = ("metaeval.io", "metaeval.metrics", "metaeval.treceval", "metaeval.cwl", "metaeval.ndeval", "metaeval.ntcir",
         "metaeval.meta")
FORBIDDEN = ("metaeval.outputs", "metaeval.report", "metaeval.tables", "metaeval.figures",
             "metaeval.summary", "metaeval.pipeline", "metaeval.cli", "matplotlib", "snakemake")

#: the layer of each top-level module / subpackage of metaeval; an import must go to a lower one
RANK = {"errors": 0, "_lazy": 0, "argtypes": 0, "_plugins": 0, "cnum": 0, "memo": 0, "progress": 0, "treceval": 2.5, "cwl": 2.5,
        "ndeval": 2.5, "ntcir": 2.5, "util": 0.5, "workers": 0.5, "detmath": 0.5, "stages": 0.5, "collection": 1,
        "publish": 0.75, "io": 2, "metrics": 2, "meta": 3, "kishida": 2.75, "simulate": 3, "labels": 3.5, "outputs": 4, "report": 5,
        "forking": 5.5, "pipeline": 6, "api": 6.5, "checks": 6, "runconfig": 6, "frontpage": 6, "logsummary": 6,
        "dag": 6, "dagrun": 6, "cli": 7, "__main__": 8}

#: known exceptions to the layer rule, each to be removed by a planned move of code; each entry
#: must still exist, so the list shrinks with the code
PENDING: set = set()


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    is_pkg = parts[-1] == "__init__"
    if is_pkg:
        parts = parts[:-1]
    return ".".join(parts), is_pkg


def _exists(name: str) -> bool:
    p = SRC.joinpath(*name.split("."))
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def _from_target(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    """The absolute module of ``from X import ...`` in module ``mod`` (relative levels resolved)."""
    if not node.level:
        return node.module
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names; ``from X import Y`` gives X.Y when that is
    a module, else X), wherever the statement is."""
    mod, is_pkg = _module_name(path)
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            target = _from_target(mod, is_pkg, node)
            subs = [f"{target}.{a.name}" for a in node.names]
            found = [s for s in subs if s.startswith("metaeval.") and _exists(s)]
            out |= set(found) if found else {target}
            if node.module:
                out.add(target)
    return out


def _modules(prefix: str) -> list[Path]:
    base = SRC.joinpath(*prefix.split("."))
    return sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


def test_lower_layers_do_not_import_the_output_layer_statically():
    bad = set()
    for prefix in LOWER:
        for path in _modules(prefix):
            mod, _ = _module_name(path)
            bad |= {(mod, t) for t in imports_of(path) if _forbidden(t)}
    assert bad - PENDING == set(), sorted(bad - PENDING)
    assert PENDING <= bad, f"remove from PENDING (the import is gone): {sorted(PENDING - bad)}"


def test_lower_layers_do_not_load_the_output_layer_at_run_time():
    mods = [_module_name(p)[0] for prefix in LOWER for p in _modules(prefix)]
    code = (
        "import importlib, json, sys\n"
        f"for m in {mods!r}:\n"
        "    importlib.import_module(m)\n"
        "from metaeval.metrics import parse_measure\n"
        "parse_measure('AP')  # the registry loads its measure modules\n"
        "print(json.dumps(sorted(sys.modules)))\n")
    env = dict(os.environ, PYTHONPATH=str(SRC))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    loaded = json.loads(r.stdout.strip().splitlines()[-1])
    assert [m for m in loaded if _forbidden(m)] == []
    assert "metaeval.kishida.measures" in loaded                # registered by metaeval._measure_families


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PKG.rglob("*.py"):
        mod, _ = _module_name(path)
        if mod == "metaeval":
            continue
        src = mod.split(".")[1]
        for t in imports_of(path):
            parts = t.split(".")
            if parts[0] != "metaeval" or len(parts) < 2 or not _exists(".".join(parts[:2])):
                continue
            if parts[1] != src and (mod, t) not in PENDING:
                graph.setdefault(src, set()).add(parts[1])
    return graph


def test_package_import_graph_is_acyclic_and_downward():
    graph = _package_graph()
    names = set(graph) | {d for ds in graph.values() for d in ds}
    assert names <= set(RANK), f"give these a layer in RANK: {sorted(names - set(RANK))}"
    upward = sorted((a, b) for a, ds in graph.items() for b in ds if RANK[a] <= RANK[b])
    assert upward == [], f"imports that do not go down the layers: {upward}"
    # acyclic (implied by a strict rank, checked independently by a depth-first search)
    state: dict[str, int] = {}

    def visit(n: str, stack: list[str]) -> None:
        state[n] = 1
        for d in sorted(graph.get(n, ())):
            assert state.get(d) != 1, f"import cycle: {' -> '.join(stack + [n, d])}"
            if d not in state:
                visit(d, stack + [n])
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n, [])


def test_metrics_and_kishida_are_not_a_cycle():
    """The measure registry is passive: the package root names the measure modules (one explicit
    place, plain imports), the registry calls it on first use and imports none of them."""
    graph = _module_graph()
    root = graph["metaeval"]
    assert {"metaeval.kishida.measures", "metaeval.metrics.ranked", "metaeval.treceval.adapter"} <= root
    registry = graph["metaeval.metrics.registry"]
    assert "metaeval._plugins" in registry
    assert not any(m.startswith(("metaeval.kishida", "metaeval.treceval")) or m == "metaeval.metrics.ranked"
                   for m in registry), registry
    for path in _modules("metaeval.metrics"):
        assert not any(t.startswith("metaeval.kishida") for t in imports_of(path)), path.name


def test_the_declarations_are_dependency_free():
    """The output contract and the stage registry import the standard library only (and the
    contract, the registry)."""
    assert {t for t in imports_of(PKG / "outputs.py") if not t.startswith("metaeval")} <= {"__future__", "dataclasses"}
    assert {t for t in imports_of(PKG / "outputs.py") if t.startswith("metaeval")} <= {
        "metaeval", "metaeval.meta", "metaeval.meta.stages"}
    # the registry is passive: the catalogue metaeval.meta.stages registers the package's stages;
    # it imports a plug-in's module by name (importlib) only from METAEVAL_STAGES (os)
    assert {t.split(".")[0] for t in imports_of(PKG / "stages.py")} <= {"__future__", "collections", "dataclasses",
                                                                        "importlib", "os", "pathlib", "shlex", "types",
                                                                        "typing"}
    # the argparse value types a parameter may name as its option's parser (parse=)
    assert {t.split(".")[0] for t in imports_of(PKG / "argtypes.py")} <= {"__future__", "argparse", "collections",
                                                                          "math", "re", "typing"}
    # a stage module declares with the registry's classes (and the value types of metaeval.argtypes,
    # a file parameter's Path); numpy and pandas only inside its run()
    for path in (PKG / "meta" / "stages").glob("*.py"):
        top = [n for n in ast.parse(path.read_text(encoding="utf-8")).body
               if isinstance(n, (ast.Import, ast.ImportFrom))]
        names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {("." * n.level) + (n.module or "") for n in top if isinstance(n, ast.ImportFrom)}
        allowed = {"__future__", "argparse", "dataclasses", "pathlib", "...stages", "...argtypes", ".common", ".cite"}
        if path.name == "__init__.py":         # the catalogue: the registry and every stage module
            allowed |= {"...", ".", "typing"}
        assert names <= allowed, (path.name, names)


def test_no_command_is_used_as_a_library():
    """The per-topic matrices are computed below the CLI (metaeval.metrics.compute_matrices), where
    `metaeval compare`, `metaeval matrices` and the API all call them; no module imports the
    `metaeval matrices` command."""
    import metaeval.metrics

    assert metaeval.metrics.compute_matrices.__module__ == "metaeval.metrics.evaluate"
    users = [p.relative_to(SRC) for p in PKG.rglob("*.py") if p.name != "matrices.py" or p.parent.name != "cli"
             if "metaeval.cli.matrices" in imports_of(p)]
    assert users == []


# ------------------------------------------------------------ no import circle between modules (issue 27)

_GRAPHS: dict = {}


def _module_graph() -> dict[str, set[str]]:
    """:func:`module_graph` of the package, built once per run (a copy)."""
    key = (PKG, SRC)
    if key not in _GRAPHS:
        _GRAPHS[key] = module_graph()
    return {k: set(v) for k, v in _GRAPHS[key].items()}


def module_graph() -> dict[str, set[str]]:
    """``module -> the metaeval modules it imports``, from the source: every ``import`` statement,
    at module level or inside a function (a function-level import closes a circle at run time just
    as well).  ``from P import name`` counts as importing the module ``P.name`` when that is a
    module, and the package ``P`` (its ``__init__`` runs) when it is not; the implicit import of
    the parent packages is not an edge (a package's ``__init__`` naming its own submodules lazily
    is the pattern of :mod:`metaeval._lazy`).  A module that imports by name (``import_module``,
    ``__import__``) has an edge to every module of the package a string of its source names in
    full (``"metaeval.kishida.measures"``): a registry loading its plug-ins by name closes a
    circle as well as an import statement does."""
    graph: dict[str, set[str]] = {}
    for path in PKG.rglob("*.py"):
        mod, is_pkg = _module_name(path)
        deps = set()
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        if "import_module" in text or "__import__" in text:
            deps |= {t for t in _string_imports(tree) if t != mod}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                pkg = _from_target(mod, is_pkg, node)
                subs = [f"{pkg}.{a.name}" for a in node.names]
                targets = [s for s in subs if _exists(s)]
                if len(targets) < len(subs):
                    targets.append(pkg)                      # names defined in the package itself
            else:
                continue
            deps |= {t for t in targets if t.startswith("metaeval") and _exists(t) and t != mod}
        graph[mod] = deps
    return graph


def _string_imports(tree: ast.AST) -> set[str]:
    """The modules of the package named in full by a string of a module that imports by name."""
    names = {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
             for n in ast.walk(tree) if isinstance(n, ast.Call)}
    if not names & {"import_module", "__import__"}:
        return set()
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and n.value.startswith("metaeval.") and _exists(n.value)}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as ``[a, b, ..., a]``, or None when it is acyclic (iterative
    depth-first search, nodes and edges visited in sorted order, so the answer is deterministic)."""
    state: dict[str, int] = {}                                # 1: on the current path, 2: done
    for root in sorted(graph):
        if root in state:
            continue
        path, iters = [root], [iter(sorted(graph.get(root, ())))]
        state[root] = 1
        while path:
            nxt = next(iters[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iters.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(sorted(graph.get(nxt, ()))))
    return None


def test_find_cycle_finds_a_planted_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a"}}) is None   # a diamond
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"x": {"y"}, "y": {"y"}}) == ["y", "y"]
    assert find_cycle({"r": {"a"}, "a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]


def test_module_graph_sees_function_level_imports(tmp_path, monkeypatch):
    """A circle closed by an import inside a function is found: plant one in a copy of two modules."""
    root = tmp_path / "metaeval"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "a.py").write_text("from .b import g\n")
    (root / "sub" / "b.py").write_text("def g():\n    from . import a\n    return a\n")
    monkeypatch.setattr(sys.modules[__name__], "PKG", root)
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    g = module_graph()
    assert g["metaeval.sub.b"] == {"metaeval.sub.a"} and g["metaeval.sub.a"] == {"metaeval.sub.b"}
    assert find_cycle(g) == ["metaeval.sub.a", "metaeval.sub.b", "metaeval.sub.a"]


def test_module_graph_sees_imports_by_name(tmp_path, monkeypatch):
    """A registry that loads its plug-ins by name (``importlib.import_module("metaeval.sub.a")``)
    has an edge to them: a plug-in importing the registry back is a circle."""
    root = tmp_path / "metaeval"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "a.py").write_text("from .registry import register\n")
    (root / "sub" / "registry.py").write_text(
        "import importlib\nPLUGINS = ('metaeval.sub.a',)\n"
        "def register():\n    pass\n"
        "def load():\n    for m in PLUGINS:\n        importlib.import_module(m)\n")
    monkeypatch.setattr(sys.modules[__name__], "PKG", root)
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    g = module_graph()
    assert g["metaeval.sub.registry"] == {"metaeval.sub.a"}
    assert find_cycle(g) == ["metaeval.sub.a", "metaeval.sub.registry", "metaeval.sub.a"]


def test_no_import_circle_between_modules():
    graph = _module_graph()
    assert len(graph) > 80 and "metaeval.io.forms" in graph["metaeval.cli.matrices"]
    cycle = find_cycle(graph)
    assert cycle is None, f"import circle: {' -> '.join(cycle)}"


def test_each_drop_in_is_one_package():
    """trec_eval, cwl_eval, ndeval and ntcir_eval's drop-ins: each command's module is in its own
    package beside its reader and engine; ``metaeval --help`` lists them with the one-line help their
    parsers give, without importing them; the old module paths are the new modules themselves."""
    import argparse
    import importlib
    import warnings

    from metaeval.cli import DROPINS

    layout = {"treceval": ("reader", "ranking", "engine", "cli", "_trecscan.c", "_trecfmt.c"),
              "cwl": ("reader", "measures", "adapter", "cli"), "ndeval": ("reader", "dropin", "cli"),
              "ntcir": ("cli", "diversity")}
    for pkg, parts in layout.items():
        for part in parts:
            assert (PKG / pkg / (part if part.endswith(".c") else part + ".py")).is_file(), (pkg, part)
    for name, (module, help_) in DROPINS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).add_parser(sub)
        assert [a.help for a in sub._choices_actions] == [help_], name
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = importlib.import_module("metaeval.metrics.cwl")
    assert old is importlib.import_module("metaeval.cwl.measures")
    assert any(issubclass(w.category, DeprecationWarning) for w in caught) or "metaeval.metrics.cwl" in sys.modules
