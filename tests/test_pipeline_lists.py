"""The output lists spelt out in workflow/rules/common.smk agree with the package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMON = (ROOT / "workflow/rules/common.smk").read_text()


def _list(name: str) -> list:
    m = re.search(rf"^{name} = (\[.*?\])\n", COMMON, re.S | re.M)
    assert m, name
    return ast.literal_eval(m.group(1))


def test_figure_and_summary_lists_match_the_package():
    from metaeval.figures import FIGURES
    from metaeval.summary import SUMMARY_FIGURES, SUMMARY_TABLES

    assert _list("FIGURES") == [f.stem for f in FIGURES]
    assert _list("SUMMARY_TABLES") == list(SUMMARY_TABLES)
    assert _list("SUMMARY_FIGURES") == list(SUMMARY_FIGURES)


def test_table_list_matches_the_contract_order():
    from metaeval.meta.run import TABLE_ORDER

    tables = _list("TABLES") + ["gain_kendall", "gain_bootstrap"]
    assert sorted(tables) == sorted(TABLE_ORDER)


def test_every_report_caption_exists():
    """Each report(...) caption names an existing workflow/report/*.rst."""
    from metaeval.figures import FIGURES
    from metaeval.summary import SUMMARY_FIGURES, SUMMARY_TABLES
    from metaeval.meta.run import TABLE_ORDER

    report = ROOT / "workflow/report"
    names = [f"table_{t}" for t in TABLE_ORDER] + [f"figure_{f.stem}" for f in FIGURES]
    names += [f"summary_table_{t}" for t in SUMMARY_TABLES]
    names += [f"summary_figure_{f}" for f in SUMMARY_FIGURES]
    names += [f"kishida_table{i}" for i in range(1, 6)] + ["kishida_patterns", "workflow"]
    for n in names:
        text = (report / f"{n}.rst").read_text()
        assert text.strip(), n
    for n in names:
        if n.startswith(("table_", "summary_table_", "kishida_table")):
            assert "paper" in (report / f"{n}.rst").read_text().lower(), n
