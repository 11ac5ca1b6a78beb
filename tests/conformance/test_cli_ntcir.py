"""``metaeval ntcir label|compute``: NTCIREVAL-compatible options, output form and errors."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys

import pytest

from conftest import WWW4
from metaeval.cli import main


def _run(capsys, monkeypatch, argv, stdin=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    rc = main(argv)
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "t.rel").write_text("a L1\nb L0\nd L2\ne L2\n")
    (tmp_path / "t.res").write_text("c\nb\na\n\nd\nx\n")
    return tmp_path


def test_label_full_condensed_truncate(files, capsys, monkeypatch):
    rel, res = str(files / "t.rel"), str(files / "t.res")
    assert _run(capsys, monkeypatch, ["ntcir", "label", "-r", rel, res])[1] == "c\nb L0\na L1\nd L2\nx\n"
    assert _run(capsys, monkeypatch, ["ntcir", "label", "-j", "-r", rel, res])[1] == "b L0\na L1\nd L2\n"
    assert _run(capsys, monkeypatch, ["ntcir", "label", "-r", rel, "-truncate", "2"],
                stdin="c\nb\na\n")[1] == "c\nb L0\n"


def test_compute_output_form_and_options(files, capsys, monkeypatch):
    rel = str(files / "t.rel")
    lab = "c\nb L0\na L1\nd L2\nx\n"
    rc, out, _ = _run(capsys, monkeypatch, ["ntcir", "compute", "-r", rel, "-g", "1:2",
                                             "-cutoffs", "1,10", "-out", "0042"], stdin=lab)
    lines = out.splitlines()
    assert rc == 0
    assert lines[0] == "0042 # syslen=5 jrel=3 jnonrel=1"
    assert lines[1] == "0042 # r1=3 rp=4"
    assert lines[2] == "0042 RR=                  0.3333"
    assert any(l.startswith("0042 NCUrb,BR@0010=       ") for l in lines)
    assert len(lines) == 2 + 13 + 2 * 17
    # no -out: lines start with a space, as ntcir_eval prints them
    rc, out, _ = _run(capsys, monkeypatch, ["ntcir", "compute", "-r", rel, "-g", "1:2"], stdin=lab)
    assert out.splitlines()[0] == " # syslen=5 jrel=3 jnonrel=1"
    assert " Prec@1000=           0.0020" in out.splitlines()
    # parameters change the values they should
    base = dict(l.split("=") for l in out.splitlines()[2:])
    for opt, val, changed in [("-beta", "2", " Q-measure"), ("-gamma", "0.5", " NCUrb,P"),
                              ("-rbp", "0.5", " RBP"), ("-logb", "10", " nDCG@1000"),
                              ("-rbup", "0.5", " iRBU")]:
        rc, o2, _ = _run(capsys, monkeypatch, ["ntcir", "compute", "-r", rel, "-g", "1:2", opt, val],
                         stdin=lab)
        other = dict(l.split("=") for l in o2.splitlines()[2:])
        assert other[changed] != base[changed], opt
    # -j adds the bpref family (condensed input)
    rc, out, _ = _run(capsys, monkeypatch, ["ntcir", "compute", "-j", "-r", rel, "-g", "1:2"],
                      stdin="b L0\na L1\nd L2\n")
    assert out.splitlines()[-7].startswith(" bpref=")


@pytest.mark.parametrize("argv,stdin,msg", [
    (["-g", "2:1"], "a L1\n", "must not decrease"),
    (["-g", "1"], "a L1\n", "L2"),                                # rel file has L2 > H
    (["-g", "1:2"], "a L3\n", "exceeds the highest level"),
    (["-g", "1:2"], "a X1\n", "unknown relevance label"),
    (["-g", "1:2"], "a L1 extra\n", "fields"),
    (["-g", "1:2", "-cutoffs", "0"], "a L1\n", "cutoffs"),
    (["-g", "1:2", "-gamma", "2"], "a L1\n", "-gamma"),
    (["-g", "1:2", "-s", "1"], "a L1\n", "stop values"),
])
def test_compute_rejects_bad_input(files, capsys, monkeypatch, argv, stdin, msg):
    rc, out, err = _run(capsys, monkeypatch, ["ntcir", "compute", "-r", str(files / "t.rel")] + argv,
                        stdin=stdin)
    assert rc == 1 and out == ""
    assert msg in err


def test_compute_rejects_topics_without_relevant_or_l0(tmp_path, capsys, monkeypatch):
    (tmp_path / "n.rel").write_text("a L0\n")
    rc, out, err = _run(capsys, monkeypatch, ["ntcir", "compute", "-r", str(tmp_path / "n.rel"),
                                               "-g", "1"], stdin="a L0\n")
    assert rc == 1 and "no relevant document" in err and "n.rel" in err
    (tmp_path / "p.rel").write_text("a L1\n")
    rc, out, err = _run(capsys, monkeypatch, ["ntcir", "compute", "-j", "-r", str(tmp_path / "p.rel"),
                                               "-g", "1"], stdin="a L1\n")
    assert rc == 1 and "L0" in err


@pytest.mark.shared_data
def test_pipeline_reproduces_reference_topic(shared, tmp_path):
    """label | compute on one real topic, as NTCIREVAL's NTCIR-eval script runs it (subprocesses)."""
    topic, run = "0203", "baseline"
    rel = tmp_path / f"{topic}.rel"
    rel.write_text("".join(f"{d} {l}\n" for t, d, l in
                           (line.split() for line in (WWW4 / "qrels.txt").read_text().splitlines())
                           if t == topic))
    with gzip.open(WWW4 / "runs" / f"{run}.run.gz", "rt") as fh:
        res = "".join(line.split()[2] + "\n" for line in fh if line.split()[0] == topic)
    exe = [sys.executable, "-m", "metaeval"]
    lab = subprocess.run(exe + ["ntcir", "label", "-r", str(rel)], input=res, text=True,
                         capture_output=True, check=True).stdout
    out = subprocess.run(exe + ["ntcir", "compute", "-r", str(rel), "-g", "1:2", "-cutoffs", "1,10",
                                "-out", topic], input=lab, text=True, capture_output=True,
                         check=True).stdout
    ref = [l for l in (WWW4 / "reference" / "ntcireval" / f"{run}.nev").read_text().splitlines()
           if l.startswith(topic + " ")]
    assert out.splitlines() == ref
