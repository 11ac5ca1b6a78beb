"""Habits of a maintained package: ``py.typed`` shipped, no product module named like a test, code
comments that say what, not which ticket, and the checkers configured where ``.ci/run`` runs them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "src" / "metaeval"

#: a ticket named in a comment or docstring ("issue 31", "issue #31", "issues 28")
TICKET = re.compile(r"\b[Ii]ssues? ?#?\d+")


def test_py_typed_is_shipped():
    assert (PKG / "py.typed").is_file()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["metaeval"]


def test_no_product_module_is_named_like_a_test():
    """pytest would collect it; a module says what it holds (``error_rates``, not ``test_errors``)."""
    assert sorted(p.relative_to(PKG) for p in PKG.rglob("test_*.py")) == []


def test_no_ticket_numbers_in_the_code():
    files = [p for pat in ("src/**/*.py", "src/**/*.c", "src/**/*.h", "workflow/**/*", "Snakefile", "setup.py")
             for p in ROOT.glob(pat) if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".so"]
    assert len(files) > 100
    hits = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in files
            for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if TICKET.search(line)]
    assert hits == []


def test_ruff_and_mypy_are_configured_and_run_by_ci():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "ruff" in pyproject["tool"] and "mypy" in pyproject["tool"]
    pins = {ln.split("==")[0].lower() for ln in (ROOT / "constraints.txt").read_text().splitlines() if "==" in ln}
    test_extra = pyproject["project"]["optional-dependencies"]["test"]
    for tool in ("ruff", "mypy"):                                  # pinned: a new release's new rules fail no build
        assert tool in pins and any(d.replace(" ", "").startswith(f"{tool}==") for d in test_extra), tool
    ci = (ROOT / ".ci" / "run").read_text()
    assert "ruff check" in ci and "mypy" in ci
    assert ci.index("ruff check") < ci.index("-m pytest")          # before the tests, outside them
