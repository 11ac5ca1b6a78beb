"""Every line of NTCIREVAL's reference output, reproduced exactly (0 mismatches).

For each run of the two real collections we print the ``.nev`` file NTCIREVAL's ``NTCIR-eval``
script would print (``-out TOPIC``; header lines, every measure, ``%.4f``) from the vectorised
array code, and compare it line by line with ``reference/ntcireval/RUN.nev`` (full lists, run-file
order, depth 1000) and ``reference/ntcireval-condensed/RUN.nev`` (condensed lists, with bpref and
its variants).
"""

from __future__ import annotations

import pytest

from conftest import DL19, WWW4
from metaeval.io import load_collection
from metaeval.metrics import EvalContext, evaluate, ntcir_measures, ntcir_report

CASES = [
    pytest.param(WWW4, (1.0, 2.0), (1, 10), id="ntcir-www4"),
    pytest.param(DL19, (1.0, 2.0, 3.0), (1, 10, 100, 1000), id="trec-dl19-passage"),
]

_cache: dict = {}


def _collection(root):
    if root not in _cache:
        _cache[root] = load_collection(root / "qrels.txt", sorted((root / "runs").glob("*.run.gz")),
                                       order="file", depth=1000)
    return _cache[root]


def _compare(root, coll, gains, cutoffs, sub, condensed):
    ms = ntcir_measures(cutoffs, condensed=condensed)
    ctx = EvalContext(coll, gains)
    vals = evaluate(ctx, ms)
    n_lines = 0
    mismatches = []
    for r, run in enumerate(coll.runs):
        ref = (root / "reference" / sub / f"{run}.nev").read_text().splitlines()
        got = list(ntcir_report(ctx, ms, run=r, values=vals))
        n_lines += len(ref)
        if len(got) != len(ref):
            mismatches.append((run, "line count", len(ref), len(got)))
        for i, (a, b) in enumerate(zip(ref, got)):
            if a != b:
                mismatches.append((run, i + 1, a, b))
    return n_lines, mismatches


@pytest.mark.shared_data
@pytest.mark.parametrize("root,gains,cutoffs", CASES)
@pytest.mark.parametrize("condensed", [False, True], ids=["full", "condensed"])
def test_reference_nev_files(shared, root, gains, cutoffs, condensed):
    coll = _collection(root)
    refdir = root / "reference" / ("ntcireval-condensed" if condensed else "ntcireval")
    assert sorted(p.stem for p in refdir.glob("*.nev")) == sorted(coll.runs)
    if condensed:
        coll = coll.condensed()
    n, bad = _compare(root, coll, gains, cutoffs, refdir.name, condensed)
    assert n > 9000
    assert not bad, (f"{len(bad)} mismatching lines out of {n}; first ones "
                     "(run, line, reference, ours):\n" + "\n".join(map(repr, bad[:15])))
