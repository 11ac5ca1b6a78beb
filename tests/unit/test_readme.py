"""The README's promises: its Python example runs; its references are by author and year;
docs/references.md lists every work the docs cite."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import ROOT

README = ROOT / "README.md"


def _python_block(text: str, section: str) -> str:
    part = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", part, flags=re.S)
    assert len(blocks) == 1, f"expected one python block in section {section!r}"
    return blocks[0]


def test_readme_python_example_runs(tmp_path):
    code = _python_block(README.read_text(encoding="utf-8"), "Python API")
    (tmp_path / "example.py").write_text(code)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True,
                       env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "metric_a" in r.stdout and "estimated_diff" in r.stdout and "run5" in r.stdout
    out = tmp_path / "results" / "my-meta"
    assert (out / "tables" / "kendall.csv").is_file() and (out / "tables" / "kendall.tex").is_file()
    assert (out / "figures" / "asl_paired.png").stat().st_size > 1000


def test_readme_commands_and_test_requirements():
    text = README.read_text(encoding="utf-8")
    assert '.venv/bin/pip install -e ".[test]"' in text
    assert ".venv/bin/python -m pytest" in text
    for needed in ("METAEVAL_SHARED_DATA", "apt-get install chromium", "CI=true", "shared_data"):
        assert needed in text, needed


def test_readme_command_table_names_every_command():
    """Every command of ``metaeval`` (its parser's subcommands) has a row in the README's command
    table, but the deprecated aliases (their help says so)."""
    import argparse

    from metaeval.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    table = [ln for ln in README.read_text(encoding="utf-8").splitlines() if ln.startswith("| `metaeval ")]
    named = {ln.split()[2].rstrip("`") for ln in table}
    deprecated = {n for n, p in sub.choices.items() if (p.description or "").startswith("Deprecated")}
    assert sorted(set(sub.choices) - deprecated - named) == []


#: user-facing files cleared of the papers' file numbers in this change (the lead's final sweep
#: covers the rest: docs/meta.md, docs/metrics.md, ..., tables, figures, workflow/)
#: every file a user reads: the README, the docs, the configs and their schema, the workflow's rules
#: (messages, report categories) and the package's source (CLI help, docstrings, captions)
CLEAN = sorted({"README.md", "config.yaml", "Snakefile"}
               | {p.relative_to(ROOT).as_posix() for pat in ("docs/*.md", "config/**/*.*", "workflow/**/*.*",
                                                           "src/metaeval/**/*.py")
                  for p in ROOT.glob(pat) if p.is_file() and "__pycache__" not in p.parts})


def test_cited_by_author_and_year():
    for rel in CLEAN:
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert not re.search(r"[Pp]apers? 00\d", text), rel
        assert "../shared" not in text or rel.startswith("config/examples"), rel


def test_references_list_every_cited_work():
    refs = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    keys = set(re.findall(r"^\| \*\*([^*]+)\*\* \|", refs, flags=re.M))
    for key in ["Sakai (2007a)", "Sakai (2007b)", "Sakai (2011)", "Sakai (2006)", "Kishida (2005)",
                "Voorhees & Buckley (2002)", "Buckley & Voorhees (2000)", "Järvelin & Kekäläinen (2002)",
                "Moffat & Zobel (2008)", "Chapelle et al. (2009)", "Carterette (2012)", "Sakai (2016)",
                "Sakai (2014)", "Yilmaz et al. (2008)", "Urbano & Marrero (2017)", "Webber et al. (2010)",
                "Corsi & Urbano (2024)", "Clarke et al. (2008)", "Clarke et al. (2009)",
                "Agrawal et al. (2009)", "Zhai et al. (2003)", "Sakai & Song (2011)", "Holm (1979)",
                "Benjamini & Hochberg (1995)", "Efron & Tibshirani (1993)"]:
        assert key in keys, key
    # every "Author (YEAR)" cited in README and the docs this change wrote has an entry
    for rel in ["README.md", "docs/python.md", "docs/simulation.md", "docs/kishida.md"]:
        text = (ROOT / rel).read_text(encoding="utf-8")
        for m in re.finditer(r"\b(Sakai|Kishida) \((\d{4}[ab]?)", text):
            assert f"{m[1]} ({m[2]})" in keys, (rel, m[0])


def test_python_walkthrough_numbers_its_sections_in_order():
    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    numbers = [int(n) for n in re.findall(r"^## (\d+)\. ", text, flags=re.M)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 7
    assert "\n\n## " in text and not re.search(r"[^\n]\n## ", text)      # a blank line before every section


def test_cluster_extra_has_the_local_cluster_profiles_executor():
    import tomllib

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    profile = (ROOT / "workflow" / "profiles" / "local-cluster" / "config.yaml").read_text(encoding="utf-8")
    assert "executor: cluster-generic" in profile
    assert any(r.startswith("snakemake-executor-plugin-cluster-generic") for r in meta["project"]["optional-dependencies"]["cluster"])


def test_defaults_block_leaves_out_a_switched_off_blocks_parameters():
    """`sweeps: {gains: {enabled: false}}` given: its metrics and variants are not listed as
    inherited; switched on by default, they are."""
    from metaeval import runconfig

    eff = {"metrics": ["AP"], "sweeps": {"gains": {"enabled": False, "metrics": ["P-plus"], "variants": ["1:2"]}},
           "kishida": {"enabled": False, "tables": [1, 2]}}
    given = runconfig.leaf_paths({"metrics": ["AP"], "sweeps": {"gains": {"enabled": False}}})
    assert runconfig.inherited_lines(eff, given) == ["kishida: {enabled: false}"]
    on = {"metrics": ["AP"], "sweeps": {"gains": {"enabled": True, "metrics": ["P-plus"]}}}
    assert runconfig.inherited_lines(on, runconfig.leaf_paths({"metrics": ["AP"]})) == [
        "sweeps: {gains: {enabled: true, metrics: [P-plus]}}"]
