"""Gains declaring more levels than the qrels hold (``--gains 0:1:2:3`` on grades 0-3, as a
trec_eval user lists grade 0): one warning line saying so and that gains start at L1 (NTCIREVAL
``-g``), from every entry point; the values are those of H = 4 (legal), unchanged."""

from __future__ import annotations

import warnings

import pytest

from metaeval.cli import main
from metaeval.errors import InputWarning

QRELS = "T1 0 d1 1\nT1 0 d2 3\nT1 0 d3 0\nT2 0 d1 2\nT2 0 d4 3\n"        # TREC grades 0-3
RUN = "T1 Q0 d2 1 3 a\nT1 Q0 d1 2 2 a\nT2 Q0 d4 1 3 a\nT2 Q0 d1 2 2 a\n"
LINE = ("gains '0:1:2:3' declare 4 levels but the qrels hold L1..L3: gains start at L1 (NTCIREVAL -g), "
        "so L1..L3 get 0:1:2; to give L1..L3 the gains 1:2:3, write '1:2:3'")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    return tmp_path / "qrels.txt", tmp_path / "a.run"


def test_cli_evaluate_and_matrices_warn_in_one_line(files, tmp_path, capsys):
    q, r = files
    assert main(["evaluate", "--qrels", str(q), "--runs", str(r), "--gains", "0:1:2:3", "--metrics",
                 "nDCG@10"]) == 0
    err = capsys.readouterr().err
    assert err == f"metaeval: warning: {LINE}\n"
    assert main(["matrices", "--qrels", str(q), "--runs", str(r), "--gains", "0:1:2:3", "--metrics",
                 "nDCG@10", "--out", str(tmp_path / "m"), "--quiet"]) == 0
    assert capsys.readouterr().err == f"metaeval: warning: {LINE}\n"
    # as many gains as levels, or --max-level declaring the scale: no warning
    for extra in (["--gains", "1:2:3"], ["--gains", "0:1:2:3", "--max-level", "4"]):
        assert main(["evaluate", "--qrels", str(q), "--runs", str(r), "--metrics", "nDCG@10", *extra]) == 0
        assert capsys.readouterr().err == ""


def test_api_and_config_check_warn(files):
    import metaeval
    from metaeval.checks import check_collection

    q, r = files
    with pytest.warns(InputWarning) as rec:
        four = metaeval.evaluate(str(q), str(r), ["nDCG@10"], gains="0:1:2:3")
    assert [str(w.message) for w in rec] == [LINE]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metaeval.evaluate(str(q), str(r), ["nDCG@10"], gains="0:1:2")
        explicit = metaeval.evaluate(str(q), str(r), ["nDCG@10"], gains="0:1:2:3", max_level=4)
    # H = 4 with L1..L3 = 0:1:2 is legal and computed as such (the top gain only enters the scale)
    assert four["value"].tolist() == explicit["value"].tolist()
    with pytest.warns(InputWarning) as rec:
        check_collection("dl", q, str(r), gains="0:1:2:3")
    assert [str(w.message) for w in rec] == [f"collections.dl: {LINE}"]
