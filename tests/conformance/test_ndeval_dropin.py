"""``metaeval ndeval``: line for line what ndeval 4.5 prints -- on the shared TREC 2013 Web
diversity runs (reference/ndeval, reference/ndeval-c) and on the risk-sensitive and other option
outputs recorded in tests/data/ndeval-risk (commands in its make.sh, ndeval's source in its README).
"""

from __future__ import annotations

import gzip
import re
import shlex
from pathlib import Path

import pytest

from metaeval.cli import main as cli_main
from metaeval.cli.ndeval import main as ndeval_main

HERE = Path(__file__).resolve().parents[1]
RISK = HERE / "data" / "ndeval-risk"


def _run(capsys, args):
    rc = ndeval_main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def _recorded():
    """(name, ndeval arguments) of every output make.sh records, in its order."""
    cases = []
    for line in (RISK / "make.sh").read_text().splitlines():
        m = re.match(r"\s*name=([^;]+);\s+out (.*)$", line)
        if m and "$r" not in m.group(1):
            cases.append((m.group(1), m.group(2)))
        m = re.match(r"\s*name=(div-run-\$r\.base05\.a\$a(\.c)?);\s+out (.*)$", line)
        if m:
            for r in ("01", "11", "16"):
                for a in ("0", "1", "5", "10"):
                    cases.append((m.group(1).replace("$r", r).replace("$a", a),
                                  m.group(3).replace("$r", r).replace("$a", a)))
    return cases


CASES = _recorded()


def _args(template: str, div: Path) -> list[str]:
    out = []
    for tok in shlex.split(template):
        tok = tok.replace("$D/", f"{div}/")
        if tok.startswith("$T/div-run-"):
            tok = f"{div}/runs/{tok[3:]}.run.gz"
        elif tok.startswith("$T/odd-"):
            tok = str(RISK / (tok[3:] + ".gz"))
        out.append(tok)
    return out


def test_every_recorded_output_has_a_case():
    names = {n for n, _ in CASES}
    files = {p.name[:-len(".ndeval.gz")] for p in RISK.glob("*.ndeval.gz")}
    assert names == files and len(CASES) == len(files) == 41


@pytest.mark.parametrize("name,template", CASES, ids=[n for n, _ in CASES])
def test_matches_recorded_ndeval(shared_data, capsys, name, template):
    div = shared_data / "trec-web2013-diversity"
    rc, out, err = _run(capsys, _args(template, div))
    assert rc == 0, err
    want = gzip.decompress((RISK / f"{name}.ndeval.gz").read_bytes()).decode()
    got_lines, want_lines = out.splitlines(), want.splitlines()
    diff = [(i, g, w) for i, (g, w) in enumerate(zip(got_lines, want_lines)) if g != w]
    assert not diff, f"{len(diff)} lines differ, first {diff[0]}"
    assert out == want


@pytest.mark.parametrize("rule", ["ndeval", "ndeval-c"])
def test_matches_shared_references(shared_data, capsys, rule):
    div = shared_data / "trec-web2013-diversity"
    runs = sorted((div / "runs").glob("div-run-*.run.gz"))
    assert len(runs) == 20
    opts = ["-c"] if rule == "ndeval-c" else []
    for path in runs:
        rc, out, err = _run(capsys, opts + [div / "qrels.txt", path])
        assert rc == 0, err
        want = (div / "reference" / rule / (path.name.split(".")[0] + ".ndeval")).read_text()
        assert out == want, path.name


def test_through_the_metaeval_command(shared_data, capsys):
    div = shared_data / "trec-web2013-diversity"
    rc = cli_main(["ndeval", "-c", "-baseline", str(div / "runs/div-run-05.run.gz"), "-riskAlpha", "1",
                   str(div / "qrels.txt"), str(div / "runs/div-run-16.run.gz")])
    out = capsys.readouterr().out
    assert rc == 0
    assert out == gzip.decompress((RISK / "div-run-16.base05.a1.c.ndeval.gz").read_bytes()).decode()


# ----------------------------------------------------------------------------- small files


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_zero_over_zero_prints_minus_nan(tmp_path, capsys):
    # topic 1 has no relevant document: ndeval's nNRBP is 0/0; run r1 has no qrels topic: 0/0 means
    q = _write(tmp_path, "q", "1 0 d1 0\n1 1 d2 0\n2 0 d1 1\n2 0 d3 0\n")
    r0 = _write(tmp_path, "r0", "1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n2 Q0 d3 1 1 r\n")
    rc, out, _ = _run(capsys, [q, r0])
    lines = out.splitlines()
    assert rc == 0 and lines[1].split(",")[15] == "-nan" and lines[3].split(",")[15] == "-nan"
    assert lines[2] == "r,2," + ",".join(["0.000000"] * 21)
    r1 = _write(tmp_path, "r1", "7 Q0 d1 1 3 r\n")
    rc, out, _ = _run(capsys, [q, r1])
    assert out.splitlines()[-1] == "r,amean," + ",".join(["-nan"] * 21)
    rc, out, _ = _run(capsys, ["-c", q, r1])
    assert out.splitlines()[-1] == "r,amean," + ",".join(["0.000000"] * 21)


@pytest.mark.parametrize("qrels,run,message", [
    ("1 0 d1 1\n\n", "1 Q0 d1 1 1 r\n", "q:2: syntax error"),
    ("1 0 d1 -1\n", "1 Q0 d1 1 1 r\n", "q:1: syntax error (JUDGMENT"),
    ("1 0 d1 1\n1 0 d1 0\n", "1 Q0 d1 1 1 r\n", "q:2: topic 1, subtopic 0, document d1 judged twice (also at line 1)"),
    ("1 0 d1 1\n", "1 Q0 d1 1 1\n", "r:1: syntax error (expected TOPIC"),
    ("1 0 d1 1\n", "1 Q0 d1 1 1 r\n1 Q0 d2 x 1 r\n", "r:2: syntax error (RANK"),
    ("1 0 d1 1\n", "1 Q0 d1 1 1 r\n1 Q0 d2 1 1 r\n", "r:2: duplicate rank (1) for topic 1 (also at line 1)"),
    ("1 0 d1 1\n", "1 Q0 d1 1 1 r\n1 Q0 d1 2 1 r\n", "r:2: duplicate docno (d1) for topic 1 (also at line 1)"),
    ("", "1 Q0 d1 1 1 r\n", "q: qrels file is empty"),
])
def test_bad_input_one_line_exit_1(tmp_path, capsys, monkeypatch, qrels, run, message):
    _write(tmp_path, "q", qrels), _write(tmp_path, "r", run)
    monkeypatch.chdir(tmp_path)
    rc, out, err = _run(capsys, ["q", "r"])
    assert rc == 1 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_missing_file_exit_1(tmp_path, capsys):
    q = _write(tmp_path, "q", "1 0 d1 1\n")
    rc, out, err = _run(capsys, [q, tmp_path / "nope"])
    assert rc == 1 and out == "" and err.count("\n") == 1 and "nope" in err


@pytest.mark.parametrize("args", [[], ["q"], ["-x", "q", "r"], ["-alpha", "2", "q", "r"], ["-M", "0", "q", "r"],
                                  ["-riskAlpha", "-1", "q", "r"], ["-beta", "zz", "q", "r"], ["q", "r", "s"]])
def test_bad_usage_exit_2(capsys, args):
    rc, out, err = _run(capsys, args)
    assert rc == 2 and out == "" and "Usage" in err


def test_version_and_help(capsys):
    assert _run(capsys, ["-version"])[1].startswith("ndeval version 4.5")
    assert "-riskAlpha" in _run(capsys, ["-help"])[1]


def test_risk_amean_is_urisk_of_meta_risk(shared_data, capsys):
    """With run and baseline on the same 50 topics, ndeval's risk-mode amean of every measure is
    URisk (metaeval.meta.risk) of that measure's per-topic values, to the printed digit."""
    from metaeval.io.ndeval_files import read_ndeval_qrels, read_ndeval_run
    from metaeval.meta.risk import urisk
    from metaeval.metrics.ndeval_dropin import ndeval_run_values

    div = shared_data / "trec-web2013-diversity"
    q, r1, r2 = div / "qrels.txt", div / "runs/div-run-01.run.gz", div / "runs/div-run-02.run.gz"
    X, B = ndeval_run_values(read_ndeval_qrels(q), [read_ndeval_run(r1), read_ndeval_run(r2)])
    assert X.shape == B.shape == (50, 21)
    for a in ("1", "5"):
        rc, out, _ = _run(capsys, ["-baseline", r2, "-riskAlpha", a, q, r1])
        amean = out.splitlines()[-1].rsplit(",", 21)
        assert rc == 0 and amean[0].endswith(",amean")
        want = ["%.6f" % urisk(X[:, [k]], B[:, k], float(a))[0] for k in range(21)]
        assert amean[1:] == want
