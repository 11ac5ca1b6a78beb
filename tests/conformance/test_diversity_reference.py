"""Acceptance on the shared TREC 2013 Web diversity data: every value of NTCIREVAL's diversity
output (``reference/ntcireval-diversity``: gcompute D-measures, irec I-rec, D# lines) and of ndeval's
output (``reference/ndeval``: per-topic rows and the amean row) reproduced through
``metaeval matrices --qrels-form intents --intent-probs``."""

from __future__ import annotations

import csv
import re
import warnings

import numpy as np
import pytest

from metaeval.cli import main

from conftest import DATA as _DATA  # noqa: E402

DATA = _DATA / "trec-web2013-diversity"

_TOP = ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUrb,P", "NCUrb,BR",
        "NCUrb,IE", "RBP", "ERR", "EBR", "iRBU"]
_CUT = ["AP", "Q", "NCUrb,P", "NCUrb,BR", "NCUrb,IE", "nDCG", "MSnDCG", "Prec", "RBP", "nRBP",
        "ERR", "nERR", "EBR", "nEBR", "iRBU", "niRBU", "Hit"]


def _need_data():
    from conftest import require_data

    require_data(DATA)


def _nev_names() -> dict[str, str]:
    """our canonical name -> the name printed in the .nev files"""
    out = {f"D-{b}": b for b in _TOP}
    for l in (10, 20):
        out.update({f"D-{b}@{l}": f"{b}@{l:04d}" for b in _CUT})
        out[f"I-rec@{l}"] = f"I-rec@{l:04d}"
        out[f"D#-MSnDCG@{l}"] = f"D#-nDCG@{l:04d}"       # the README's D#-nDCG: MSnDCG-based
        out[f"D#-Q@{l}"] = f"D#-Q@{l:04d}"
    out["I-rec"] = "I-rec@n"
    return out


@pytest.fixture(scope="module")
def matrices(tmp_path_factory):
    _need_data()
    out = tmp_path_factory.mktemp("div")
    ndeval_names = open(DATA / "reference" / "ndeval" / "div-run-01.ndeval").readline().strip().split(",")[2:]
    names = list(_nev_names()) + ndeval_names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["matrices", "--qrels", str(DATA / "qrels.txt"), "--runs", str(DATA / "runs"),
                   "--qrels-form", "intents", "--intent-probs", str(DATA / "intents.txt"),
                   "--out", str(out), "--quiet", "--metrics", *names])
    assert rc == 0

    def read(name):
        with open(out / f"{name}.csv", newline="") as fh:
            rows = list(csv.reader(fh))
        runs = rows[0][1:]
        return {(run, r[0]): float(v) for r in rows[1:] for run, v in zip(runs, r[1:])}
    return {n: read(n) for n in names}, ndeval_names


def test_ntcireval_diversity_reference(matrices):
    vals, _ = matrices
    names = _nev_names()
    inv = {v: k for k, v in names.items()}
    checked = mismatches = 0
    runs = sorted(p.stem for p in (DATA / "reference" / "ntcireval-diversity").glob("*.nev"))
    assert len(runs) == 20
    for run in runs:
        for line in open(DATA / "reference" / "ntcireval-diversity" / f"{run}.nev"):
            m = re.match(r"^(\S+) (\S+)=\s+(\S+)$", line.rstrip("\n"))
            if not m:
                continue
            topic, printed, ref = m[1], m[2], float(m[3])
            ours = vals[inv[printed]][(run, topic)]
            tol = 1e-4 + 1e-9 if printed.startswith("D#") else 0.0
            checked += 1
            if abs(float("%.4f" % ours) - ref) > tol:
                mismatches += 1
    assert checked == 20 * 50 * len(names)
    assert mismatches == 0


def test_ndeval_reference(matrices):
    vals, names = matrices
    checked = mismatches = 0
    for path in sorted((DATA / "reference" / "ndeval").glob("*.ndeval")):
        run = path.stem
        rows = [r for r in csv.reader(open(path)) if r[0] != "runid"]
        topics = [r[1] for r in rows if r[1] != "amean"]
        for r in rows:
            for name, ref in zip(names, r[2:]):
                if r[1] == "amean":         # ndeval's default amean: over the run's topics
                    ours = float(np.mean([vals[name][(run, t)] for t in topics]))
                else:
                    ours = vals[name][(run, r[1])]
                checked += 1
                mismatches += "%.6f" % ours != ref
    assert checked == 20874 + 20 * len(names)
    assert mismatches == 0


def test_ndeval_complete_amean_reference(matrices):
    """``ndeval -c``: the same rows; amean = sum over the run's topics / all 50 qrels topics (a topic
    missing from the run scores 0 in the matrices)."""
    vals, names = matrices
    mismatches = 0
    for path in sorted((DATA / "reference" / "ndeval-c").glob("*.ndeval")):
        run = path.stem
        rows = [r for r in csv.reader(open(path)) if r[0] != "runid"]
        amean = [r for r in rows if r[1] == "amean"][0]
        topics = sorted({t for (rn, t) in vals[names[0]] if rn == run})
        assert len(topics) == 50
        for name, ref in zip(names, amean[2:]):
            total = 0.0
            for t in sorted(topics, key=int):
                total += vals[name][(run, t)]
            mismatches += "%.6f" % (total / 50) != ref
    assert mismatches == 0
