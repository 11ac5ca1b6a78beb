"""``metaeval evaluate``: NTCIREVAL's per-topic form, line for line, plus the ALL mean lines."""

from __future__ import annotations

import re

import numpy as np
import pytest

from metaeval.cli import main

from conftest import DL19, WWW4


def run_cli(args, capsys):
    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.shared_data
def test_www4_run_reproduces_reference_nev(capsys):
    ref = (WWW4 / "reference" / "ntcireval" / "THUIR-CO-NEW-2.nev").read_text().splitlines()
    rc, out, err = run_cli(["evaluate", "--qrels", WWW4 / "qrels.txt", "--run",
                            WWW4 / "runs" / "THUIR-CO-NEW-2.run.gz", "--gains", "1:2", "--cutoffs", "1,10"],
                           capsys)
    assert rc == 0
    lines = out.splitlines()
    body = [ln for ln in lines if not ln.startswith("ALL ")]
    assert len(body) == len(ref)
    mism = [(a, b) for a, b in zip(body, ref) if a != b]
    assert not mism, mism[:5]
    # header lines and alignment are part of the comparison; spot-check the form anyway
    assert re.fullmatch(r"0201 # syslen=\d+ jrel=\d+ jnonrel=\d+", body[0])
    assert re.fullmatch(r"0201 # r1=\d+ rp=\d+", body[1])
    assert body[2] == "0201 RR=" + " " * 18 + body[2].split()[-1]


@pytest.mark.shared_data
def test_mean_lines(capsys):
    rc, out, _ = run_cli(["evaluate", "--qrels", WWW4 / "qrels.txt", "--run",
                          WWW4 / "runs" / "THUIR-CO-NEW-2.run.gz", "--cutoffs", "1,10"], capsys)
    lines = out.splitlines()
    body = [ln for ln in lines if not ln.startswith("ALL ")]
    means = [ln for ln in lines if ln.startswith("ALL ")]
    assert lines[-len(means):] == means                  # means come last
    names = list(dict.fromkeys(ln.split()[1] for ln in body if "#" not in ln))
    assert [m.split()[1] for m in means] == names         # one per measure, same order
    per_topic = [float(ln.split()[-1]) for ln in body if ln.split()[1] == "AP="]
    mean_ap = [ln for ln in means if ln.split()[1] == "AP="][0]
    assert mean_ap.startswith("ALL AP=" + " " * 18)       # same alignment as the topic lines
    # the mean of the unrounded values, printed %.4f, is within rounding of the printed values' mean
    assert abs(float(mean_ap.split()[-1]) - np.mean(per_topic)) < 1e-4


@pytest.mark.shared_data
def test_dl19_condensed_run(capsys):
    ref = (DL19 / "reference" / "ntcireval-condensed" / "ICT-BERT2.nev").read_text()
    rc, out, _ = run_cli(["evaluate", "--qrels", DL19 / "qrels.txt", "--run", DL19 / "runs" / "ICT-BERT2.run.gz",
                          "--cutoffs", "1,10,100,1000", "--condensed", "--no-means"], capsys)
    assert rc == 0 and out == ref


@pytest.mark.shared_data
def test_metrics_option_and_out_file(tmp_path, capsys):
    out = tmp_path / "x" / "r.nev"
    rc, stdout, _ = run_cli(["evaluate", "--qrels", WWW4 / "qrels.txt", "--run",
                             WWW4 / "runs" / "THUIR-CO-NEW-2.run.gz", "--metrics", "AP", "nDCG@10",
                             "Q-measure(beta=0.5)", "--out", out], capsys)
    assert rc == 0 and stdout == ""
    lines = out.read_text().splitlines()
    assert [ln.split()[1] for ln in lines[2:5]] == ["AP=", "nDCG@0010=", "Q-measure(beta=0.5)="]
    assert len(lines) == 50 * 5 + 3
    assert [p.name for p in out.parent.iterdir()] == ["r.nev"]


def test_order_score_and_depth(tmp_path, capsys):
    q = tmp_path / "q"
    q.write_text("1 a L1\n1 b L0\n1 c L1\n")
    r = tmp_path / "r.run"
    r.write_text("1 Q0 b 1 1 x\n1 Q0 a 2 3 x\n1 Q0 c 3 2 x\n")
    _, out, _ = run_cli(["evaluate", "--qrels", q, "--run", r, "--metrics", "RR", "--no-means"], capsys)
    assert out.splitlines()[-1] == "1 RR=                  0.5000"
    _, out, _ = run_cli(["evaluate", "--qrels", q, "--run", r, "--metrics", "RR", "--order", "score",
                         "--no-means"], capsys)
    assert out.splitlines()[-1] == "1 RR=                  1.0000"
    _, out, _ = run_cli(["evaluate", "--qrels", q, "--run", r, "--metrics", "RR", "--depth", "1",
                         "--no-means"], capsys)
    assert out.splitlines()[0] == "1 # syslen=1 jrel=2 jnonrel=1"
    assert out.splitlines()[-1] == "1 RR=                  0.0000"


def test_help(capsys):
    with pytest.raises(SystemExit) as e:
        main(["evaluate", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for opt in ("--qrels", "--run", "--gains", "--cutoffs", "--order", "--depth", "--condensed", "--metrics"):
        assert opt in out


@pytest.mark.shared_data
def test_too_few_gains_is_rejected(capsys):
    rc, _, err = run_cli(["evaluate", "--qrels", DL19 / "qrels.txt", "--run", DL19 / "runs" / "ICT-BERT2.run.gz",
                          "--gains", "1:2", "--metrics", "AP"], capsys)
    assert rc == 1 and "L1..L3" in err


@pytest.mark.shared_data
def test_cutoffs_are_parsed_alike_by_evaluate_and_ntcir_compute(tmp_path, capsys):
    """One parser for both commands: an empty item (``1,,10``) is rejected, not skipped."""
    with pytest.raises(SystemExit) as e:
        main(["evaluate", "--qrels", str(WWW4 / "qrels.txt"), "--run",
              str(WWW4 / "runs" / "THUIR-CO-NEW-2.run.gz"), "--cutoffs", "1,,10"])
    assert e.value.code == 2 and "cutoffs" in capsys.readouterr().err
    rel = tmp_path / "t.rel"
    rel.write_text("a L1\n")
    import io
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO("a L1\n")
    try:
        assert main(["ntcir", "compute", "-r", str(rel), "-g", "1", "-cutoffs", "1,,10"]) == 1
    finally:
        sys.stdin = old
    assert "cutoffs" in capsys.readouterr().err
