"""Kishida (2005) (Kishida 2005) Tables 1, 3, 4, 5 reproduced to every printed digit from the CSVs of
``metaeval reproduce kishida`` (Table 2 is statistical: tests/unit/test_kishida_simulation.py)."""

from __future__ import annotations

import csv
import math

import pytest

from metaeval.cli import main
from metaeval.kishida.patterns import characteristic_rows, enumerate_patterns

from conftest import PAPERS

# The numbers as printed in the report (Kishida (2005), Tables 1, 3, 4, 5).
TABLE1 = {10: ("0.00081", "-0.01737", "-0.03555"),
          50: ("0.00794", "0.00402", "0.00010"),
          100: ("0.00891", "0.00693", "0.00495")}
IND = ("vS'", "vD", "vQ", "vG")
TABLE3 = {"mean": (".488", ".443", ".503", ".410"), "std": (".245", ".250", ".240", ".228")}
TABLE4 = {  # lower triangle + the Ave. Pre. row
    "vS'": ("1.000",), "vD": ("0.969", "1.000"), "vQ": ("0.885", "0.840", "1.000"),
    "vG": ("0.963", "0.940", "0.961", "1.000"), "AP": ("0.857", "0.829", "0.928", "0.894"),
}
TABLE5 = [
    ("a", "32000", ("0.923", "0.933", "0.667", "0.733")),
    ("b", "00123", ("0.331", "0.184", "0.513", "0.304")),
    ("b/a", None, ("0.358", "0.197", "0.770", "0.415")),
    ("c", "03210", ("0.558", "0.610", "0.750", "0.622")),
    ("c/a", None, ("0.604", "0.654", "1.125", "0.848")),
    ("d", "30000", ("0.692", "0.640", "0.333", "0.400")),
    ("d/a", None, ("0.750", "0.686", "0.500", "0.545")),
    ("e", "00003", ("0.138", "0.046", "0.121", "0.080")),
    ("e/d", None, ("0.200", "0.072", "0.364", "0.200")),
]


def _printed(value: str, decimals: int) -> str:
    """The CSV value as the report prints it (``.488`` style when the report omits the 0)."""
    return f"{float(value):.{decimals}f}"


def _norm(s: str) -> str:
    return ("0" + s) if s.startswith(".") else s


def _read(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("kishida")
    assert main(["reproduce", "kishida", "--out", str(d)]) == 0
    return d


@pytest.mark.shared_papers
def test_printed_numbers_are_the_reports():
    """The constants above are copied from the report's text (guards against typos)."""
    text = (next(PAPERS.glob("004_*.txt"))).read_text(encoding="utf-8")
    for R, vals in TABLE1.items():
        assert "\t".join([str(R), *vals]) in text
    assert "average\t" + "\t".join(TABLE3["mean"]) in text
    assert "std. dev.\t" + "\t".join(TABLE3["std"]) in text
    assert "Ave. Pre.\t" + "\t".join(TABLE4["AP"]) in text
    for _, pat, vals in TABLE5:
        if pat:
            assert pat + "\t" + "\t".join(vals) in text


def test_outputs_exist(out):
    for k in range(1, 6):
        assert (out / f"table{k}.csv").is_file() and (out / f"table{k}.md").is_file()
    assert not list(out.glob(".*.tmp"))


def test_table1(out):
    rows = _read(out / "table1.csv")
    assert list(rows[0]) == ["R", "v", "delta"]
    got = {(int(r["R"]), float(r["v"])): r["delta"] for r in rows}
    assert len(got) == 9
    for R, vals in TABLE1.items():
        for v, printed in zip((0.1, 0.3, 0.5), vals):
            assert _printed(got[(R, v)], 5) == printed, (R, v)
    md = (out / "table1.md").read_text()
    assert "| 10 | 0.00081 | -0.01737 | -0.03555 |" in md


def test_table3(out):
    rows = _read(out / "table3.csv")
    assert [r["indicator"] for r in rows] == list(IND)
    for i, r in enumerate(rows):
        assert _printed(r["mean"], 3) == _norm(TABLE3["mean"][i])
        assert _printed(r["std"], 3) == _norm(TABLE3["std"][i])
    assert "| average | .488 | .443 | .503 | .410 |" in (out / "table3.md").read_text()


def test_table4(out):
    rows = {r["indicator"]: r for r in _read(out / "table4.csv")}
    assert list(rows) == [*IND, "AP"]
    for ind, vals in TABLE4.items():
        for col, printed in zip(IND, vals):
            assert _printed(rows[ind][col], 3) == printed, (ind, col)
            assert float(rows[ind][col]) == pytest.approx(float(rows[col][ind]))   # symmetric
    assert "| Ave. Pre. | 0.857 | 0.829 | 0.928 | 0.894 |" in (out / "table4.md").read_text()


def test_table5(out):
    rows = _read(out / "table5.csv")
    assert [r["row"] for r in rows] == [r for r, _, _ in TABLE5]
    assert list(rows[0]) == ["row", "pattern", *IND]
    for r, (key, pat, vals) in zip(rows, TABLE5):
        if pat:
            assert r["pattern"] == pat
        for col, printed in zip(IND, vals):
            assert _printed(r[col], 3) == printed, (key, col)
    # ratios are of the unrounded scores: from the printed .513/.667 one would get .769
    assert round(0.513 / 0.667, 3) == 0.769
    md = (out / "table5.md").read_text()
    assert "| a. | 32000 | 0.923 | 0.933 | 0.667 | 0.733 |" in md
    assert "|  | c/a | 0.604 | 0.654 | 1.125 | 0.848 |" in md


def test_136_patterns(out):
    pats = enumerate_patterns((3, 2, 1), 5)
    assert len(pats) == 136
    assert "".join(map(str, pats[0])) == "32100" and not pats[-1].any()
    rows = _read(out / "patterns.csv")
    assert len(rows) == 136 and rows[0]["pattern"] == "32100" and rows[-1]["pattern"] == "00000"
    # count formula sum_k C(m,k) k! C(n,k)
    assert len(enumerate_patterns((2, 1), 3)) == 1 + 2 * 3 + 2 * 3
    assert len(enumerate_patterns((1, 1), 3)) == 1 + 3 + 3     # repeated degrees deduplicated


def test_parameters_generalise(tmp_path):
    assert characteristic_rows((3, 2, 1), 5)[0] == ("a", "32000")
    rows = dict(characteristic_rows((4, 3, 2, 1), 6))
    assert rows["a"] == "430000" and rows["b"] == "001234" and rows["c"] == "043210"
    assert main(["reproduce", "kishida", "--out", str(tmp_path), "--degrees", "4,3,2,1", "--n", "6",
                 "--M", "50", "--L", "5", "--N", "4"]) == 0
    assert len(_read(tmp_path / "patterns.csv")) == sum(
        math.comb(4, k) * math.perm(6, k) for k in range(5))


def test_bad_parameters_write_nothing(tmp_path, capsys):
    d = tmp_path / "o"
    assert main(["reproduce", "kishida", "--out", str(d), "--thetas", "1.5"]) == 1
    assert "theta" in capsys.readouterr().err
    assert not d.exists() or not any(d.iterdir())
