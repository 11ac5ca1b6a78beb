"""Drop-in ``metaeval ntcir glabel|gcompute|irec`` and ``label|compute -ec``: Sakai (2011)
Figs. 3, 4 and 5 line by line, NTCIREVAL's files of the shared diversity data, errors."""

from __future__ import annotations

import gzip
import io

import pytest

from metaeval.cli import main

from conftest import DATA as _DATA  # noqa: E402

DATA = _DATA / "trec-web2013-diversity"

# Figure texts as printed in the paper (the paper's column alignment is not NTCIREVAL's; values and
# names are compared line by line).  Fig. 4's second line reads "Q-measure=" in the paper: it is
# O-measure (the line after r1/rp is O-measure in every ntcir_eval output; BR(3) = 0.5833).
FIG3_LABEL = "c\nb L2 1\na\n"
FIG3 = """# syslen=3 jrel=1 jnonrel=0
# r1=2 rp=2
RR=                0.5000
O-measure=         0.7500
P-measure=         0.7500
P-plus=            0.7500
AP=                0.5000
Q-measure=         0.7500
NCUgu,P=           0.5000
NCUgu,BR=          0.7500
NCUrb,P=           0.5000
NCUrb,BR=          0.7500
RBP=               0.0475
ERR=               0.3333
AP@1000=           0.5000
Q@1000=            0.7500
nDCG@1000=         1.0000
MSnDCG@1000=       0.6309
P@1000=            0.0010
nERR@1000=         0.5000
Hit@1000=          1.0000
"""
FIG4_LABEL = "c\nb\na 1.8000\n"
FIG4 = """# syslen=3 jrel=1 jnonrel=0
# r1=3 rp=3
RR=          0.3333
Q-measure=   0.5833
P-measure=   0.5833
P-plus=      0.5833
AP=          0.3333
Q-measure=   0.5833
NCUrb,P=     0.3333
NCUrb,BR=    0.5833
RBP=         0.0451
ERR=         0.2143
AP@1000=     0.3333
Q@1000=      0.5833
nDCG@1000=   0.6309
MSnDCG@1000= 0.5000
P@1000=      0.0010
nERR@1000=   0.3333
Hit@1000=    1.0000
"""
FIG5 = """#intent_num=2
I-rec@n=      0.0000
I-rec@1000=   1.0000
"""


def _norm(text: str) -> list[str]:
    return [" ".join(l.split()) for l in text.strip().splitlines()]


def _run(capsys, monkeypatch, argv, stdin=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    rc = main(argv)
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


@pytest.fixture
def example(tmp_path):
    (tmp_path / "example.res").write_text("c\nb\na\n")
    (tmp_path / "example.ere1").write_text("a L1 1\nb L2 1\n")
    (tmp_path / "example.Grelv").write_text("a 1.8\n")
    (tmp_path / "example.Irelv1").write_text("a 2\n")
    (tmp_path / "example.Irelv2").write_text("a 1\n")
    return tmp_path


def test_figure3_equivalence_classes(example, capsys, monkeypatch):
    erel, res = str(example / "example.ere1"), str(example / "example.res")
    rc, lab, _ = _run(capsys, monkeypatch, ["ntcir", "label", "-ec", "-r", erel, res])
    assert rc == 0 and lab == FIG3_LABEL
    rc, out, _ = _run(capsys, monkeypatch, ["ntcir", "compute", "-ec", "-r", erel, "-g", "1:2",
                                            "-v2011"], stdin=lab)
    assert _norm(out) == _norm(FIG3)
    # without -ec the same items are two relevant documents (R = 2, a relevant at rank 3)
    (example / "p.rel").write_text("a L1\nb L2\n")
    rc, plain, _ = _run(capsys, monkeypatch, ["ntcir", "compute", "-r", str(example / "p.rel"),
                                              "-g", "1:2"], stdin="c\nb L2\na L1\n")
    assert " # syslen=3 jrel=2 jnonrel=0" in plain.splitlines()
    assert " AP=                  0.5833" in plain.splitlines()


def test_figure3_separator(tmp_path, capsys, monkeypatch):
    (tmp_path / "q.erel").write_text("Paul McCartney;L1;1\nMcCartney;L1;1\nGeorge Harrison;L0;2\n")
    (tmp_path / "q.res").write_text("John Lennon\nMcCartney\nPaul McCartney\nGeorge Harrison\n")
    rc, lab, _ = _run(capsys, monkeypatch, ["ntcir", "label", "-ec", "-sep", ";", "-r",
                                            str(tmp_path / "q.erel"), str(tmp_path / "q.res")])
    assert lab == "John Lennon\nMcCartney;L1;1\nPaul McCartney\nGeorge Harrison;L0;2\n"
    rc, out, _ = _run(capsys, monkeypatch, ["ntcir", "compute", "-ec", "-sep", ";", "-r",
                                            str(tmp_path / "q.erel"), "-g", "1"], stdin=lab)
    lines = out.splitlines()
    assert lines[0] == " # syslen=4 jrel=1 jnonrel=0" and lines[1] == " # r1=2 rp=2"     # EC: jnonrel=0
    assert " RR=                  0.5000" in lines


# Three topics of equivalence-class judgments (erel: ITEM Lk CLASS; L0 items have a class too)
# and their ranked lists.  Topic 0002: class numbers written "01" (C atol: 1) and an L0 item whose
# class a relevant item shares (NTCIREVAL marks a class seen whatever the first item's level, so
# the relevant item after it is printed bare).
EC_TOPICS = {
    "0001": ("a L1 1\nb L2 1\nc L0 2\nd L3 3\ne L1 4\nf L0 5\n", "c\nb\na\nx\nd\nf\ne\n",
             "c L0 2\nb L2 1\na\nx\nd L3 3\nf L0 5\ne L1 4\n"),
    "0002": ("g L0 7\nh L1 7\ni L2 01\nj L2 1\n", "y\ng\nh\nj\ni\n",
             "y\ng L0 7\nh\nj L2 1\ni\n"),
    "0003": ("k L1 1\nl L1 2\nm L3 2\n", "l\nm\nk\n", "l L1 2\nm\nk L1 1\n"),
}
# the same topics without classes, as NTCIREVAL's documentation defines the EC-measures: one
# relevant item per class at the class's best level (R = the number of classes), redundant items
# unlabelled; what plain `compute` prints for them, except that in EC mode the header says jnonrel=0
EC_AS_PLAIN = {
    "0001": ("b L2\nd L3\ne L1\n", "c L0\nb L2\na\nx\nd L3\nf L0\ne L1\n"),
    "0002": ("h L1\nj L2\n", "y\ng L0\nh\nj L2\ni\n"),
    "0003": ("k L1\nm L3\n", "l L1\nm\nk L1\n"),
}


def test_ec_drop_in_matches_ntcireval_line_for_line_on_three_topics(tmp_path, capsys, monkeypatch):
    """`label -ec | compute -ec -out TOPIC` per topic, concatenated (as NTCIREVAL's NTCIR-eval
    script does), comment lines included: the labels NTCIREVAL prints (class numbers as integers),
    `# syslen=.. jrel=<classes> jnonrel=0`, and every measure of the deduplicated list."""
    got, expected = [], []
    for topic, (erel, res, label) in EC_TOPICS.items():
        (tmp_path / f"{topic}.erel").write_text(erel)
        (tmp_path / f"{topic}.res").write_text(res)
        rc, lab, err = _run(capsys, monkeypatch, ["ntcir", "label", "-ec", "-r", str(tmp_path / f"{topic}.erel"),
                                                  str(tmp_path / f"{topic}.res")])
        assert rc == 0 and lab == label, (topic, err)
        rc, out, err = _run(capsys, monkeypatch, ["ntcir", "compute", "-ec", "-r", str(tmp_path / f"{topic}.erel"),
                                                  "-g", "1:2:3", "-cutoffs", "1,3,10", "-out", topic], stdin=lab)
        assert rc == 0, err
        got += out.splitlines()
        rel, labelled = EC_AS_PLAIN[topic]
        (tmp_path / f"{topic}.rel").write_text(rel)
        rc, plain, err = _run(capsys, monkeypatch, ["ntcir", "compute", "-r", str(tmp_path / f"{topic}.rel"),
                                                    "-g", "1:2:3", "-cutoffs", "1,3,10", "-out", topic],
                              stdin=labelled)
        assert rc == 0, err
        expected += plain.splitlines()
    assert got == expected
    assert [l for l in got if "#" in l] == [
        "0001 # syslen=7 jrel=3 jnonrel=0", "0001 # r1=2 rp=5",
        "0002 # syslen=5 jrel=2 jnonrel=0", "0002 # r1=4 rp=4",
        "0003 # syslen=3 jrel=2 jnonrel=0", "0003 # r1=1 rp=1"]
    assert len(got) > 3 * 20


def test_ec_bad_class_number_is_refused_as_ntcireval_does(tmp_path, capsys, monkeypatch):
    (tmp_path / "q.erel").write_text("a L1 1\nb L2 0\n")
    (tmp_path / "r.erel").write_text("a L1 1\nb L0\n")
    for cmd in (["label", "-ec"], ["compute", "-ec", "-g", "1:2"]):
        rc, out, err = _run(capsys, monkeypatch, ["ntcir", *cmd, "-r", str(tmp_path / "q.erel")], stdin="a\n")
        assert rc == 1 and out == ""
        assert err == f"metaeval: error: {tmp_path / 'q.erel'}:2: bad ec number: 0\n"
        rc, out, err = _run(capsys, monkeypatch, ["ntcir", *cmd, "-r", str(tmp_path / "r.erel")], stdin="a\n")
        assert rc == 1 and out == "" and err.count("\n") == 1
        assert f"{tmp_path / 'r.erel'}:2: expected 'ITEM Lk CLASS', got 2 fields" in err
    # -j: NTCIREVAL counts no judged nonrelevant item in EC mode, so bpref is not computable
    (tmp_path / "ok.erel").write_text("a L1 1\nb L0 2\n")
    rc, out, err = _run(capsys, monkeypatch, ["ntcir", "compute", "-ec", "-j", "-g", "1:2", "-r",
                                              str(tmp_path / "ok.erel")], stdin="a L1 1\nb L0 2\n")
    assert rc == 1 and out == "" and "bpref etc. are not computable" in err and err.count("\n") == 1


def test_figure4_glabel_gcompute(example, capsys, monkeypatch):
    grelv, res = str(example / "example.Grelv"), str(example / "example.res")
    rc, lab, _ = _run(capsys, monkeypatch, ["ntcir", "glabel", "-I", grelv], stdin="c\nb\na\n")
    assert rc == 0 and lab == FIG4_LABEL
    assert _run(capsys, monkeypatch, ["ntcir", "glabel", "-I", grelv, res])[1] == FIG4_LABEL
    rc, out, _ = _run(capsys, monkeypatch, ["ntcir", "gcompute", "-I", grelv, "-v2011"], stdin=lab)
    expected = _norm(FIG4)
    expected[3] = expected[3].replace("Q-measure=", "O-measure=")      # the paper's misprint
    assert _norm(out) == expected
    # the current list: same values under the newer names, plus the newer measures
    rc, cur, _ = _run(capsys, monkeypatch, ["ntcir", "gcompute", "-I", grelv, "-out", "T1"], stdin=lab)
    cur_vals = dict(l.split()[1:] for l in _norm(cur) if "#" not in l)
    for line in expected[2:]:
        name, value = line.split()
        assert cur_vals["Prec@" + name[2:] if name.startswith("P@") else name] == value


def test_figure5_irec(example, capsys, monkeypatch):
    files = [str(example / n) for n in ("example.res", "example.Irelv1", "example.Irelv2")]
    rc, out, _ = _run(capsys, monkeypatch, ["ntcir", "irec", *files])
    assert rc == 0 and _norm(out) == _norm(FIG5)
    assert out.splitlines()[1] == " I-rec@n=             0.0000"
    rc, out, _ = _run(capsys, monkeypatch, ["ntcir", "irec", "-cutoffs", "1,3", "-out", "42", *files])
    assert _norm(out) == ["42 #intent_num=2", "42 I-rec@0001= 0.0000", "42 I-rec@n= 0.0000",
                          "42 I-rec@0003= 1.0000"]


def test_irec_short_list_order(tmp_path, capsys, monkeypatch):
    # NTCIREVAL prints I-rec@n when rank n is reached; past the end of a shorter list the cutoffs
    # come first, then I-rec@n (as in the shared reference for an empty list)
    (tmp_path / "t.res").write_text("x\n")
    for i in range(3):
        (tmp_path / f"{i}.Irelv").write_text("x 1\n" if i == 0 else "y 1\n")
    rc, out, _ = _run(capsys, monkeypatch, ["ntcir", "irec", "-cutoffs", "1,10", str(tmp_path / "t.res"),
                                            *(str(tmp_path / f"{i}.Irelv") for i in range(3))])
    assert _norm(out) == ["#intent_num=3", "I-rec@0001= 0.3333", "I-rec@0010= 0.3333", "I-rec@n= 0.3333"]


@pytest.mark.parametrize("argv,stdin,msg", [
    (["gcompute", "-I", "{g}"], "a x\n", "not a number"),
    (["gcompute", "-I", "{z}"], "a\n", "no document with a positive gain"),
    (["gcompute", "-I", "{g}", "-cutoffs", "0"], "a\n", "cutoffs"),
    (["glabel", "-I", "{bad}"], "a\n", "fields"),
    (["compute", "-ec", "-r", "{e}", "-g", "1"], "a\n", "exceeds the highest level"),
])
def test_bad_input(tmp_path, capsys, monkeypatch, argv, stdin, msg):
    (tmp_path / "g").write_text("a 1.5\nb 0\n")
    (tmp_path / "z").write_text("a 0\n")
    (tmp_path / "bad").write_text("a 1 2\n")
    (tmp_path / "e").write_text("a L2 1\n")
    argv = [a.format(g=tmp_path / "g", z=tmp_path / "z", bad=tmp_path / "bad", e=tmp_path / "e") for a in argv]
    rc, out, err = _run(capsys, monkeypatch, ["ntcir", *argv], stdin=stdin)
    assert rc == 1 and out == "" and msg in err


def _nev_block(run: str, topic: str) -> list[str]:
    return [l.rstrip("\n") for l in open(DATA / "reference" / "ntcireval-diversity" / f"{run}.nev")
            if l.startswith(topic + " ")]


@pytest.mark.parametrize("run,topic", [("div-run-01", "201"), ("div-run-01", "203"),
                                       ("div-run-05", "218"), ("div-run-09", "226"),
                                       ("div-run-20", "207")])
def test_drop_in_on_ntcireval_files(tmp_path, capsys, monkeypatch, run, topic):
    from conftest import require_data

    require_data(DATA)
    with gzip.open(DATA / "runs" / f"{run}.run.gz", "rt") as fh:
        docs = [l.split()[2] for l in fh if l.split()[0] == topic][:1000]
    res = tmp_path / "T.res"
    res.write_text("".join(d + "\n" for d in docs))
    grelv = str(DATA / "ntcireval-input" / "grelv" / f"{topic}.Grelv")
    _, lab, _ = _run(capsys, monkeypatch, ["ntcir", "glabel", "-I", grelv, str(res)])
    _, out, _ = _run(capsys, monkeypatch, ["ntcir", "gcompute", "-I", grelv, "-cutoffs", "10,20",
                                           "-out", topic], stdin=lab)
    intents = [l.split()[1] for l in open(DATA / "intents.txt") if l.split()[0] == topic]
    irelv = [str(DATA / "ntcireval-input" / "irelv" / topic / f"{s}.Irelv") for s in intents]
    _, out2, _ = _run(capsys, monkeypatch, ["ntcir", "irec", "-cutoffs", "10,20", "-out", topic,
                                            str(res), *irelv])
    ref = [l for l in _nev_block(run, topic) if not l.startswith(f"{topic} D#")]
    assert (out + out2).splitlines() == ref
