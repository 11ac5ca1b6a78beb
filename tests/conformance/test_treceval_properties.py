"""``metaeval trec_eval`` against the real trec_eval 10.0, built from its C source (hypothesis).

The program is compiled once per session from ``shared/tools/trec_eval-10.0`` into pytest's cache
(skipped with a reason without a C compiler or the source; under CI both exist and it must run).
Generated qrels and runs have score ties (broken by DOCID), graded and negative judgments, qrels
topics missing from the run and run topics missing from the qrels, documents outside the pool, and
the options ``-q -c -J -l -M -N -n`` with parameterised measures; stdout must be identical.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, in_ci
from metaeval.cli import main

SRC = DATA.parent / "tools" / "trec_eval-10.0"


@pytest.fixture(scope="session")
def trec_eval_bin(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not SRC.is_dir() or cc is None or shutil.which("make") is None:
        reason = f"trec_eval 10.0 source ({SRC}) or a C compiler/make not available"
        if in_ci():
            pytest.fail(reason + " [required because CI is set]", pytrace=False)
        pytest.skip(reason)
    d = tmp_path_factory.mktemp("trec_eval_build")
    shutil.copytree(SRC, d / "src")
    r = subprocess.run(["make", "-s"], cwd=d / "src", capture_output=True, text=True)
    exe = d / "src" / "trec_eval"
    if r.returncode or not exe.exists():
        pytest.fail(f"building trec_eval failed: {r.stderr[-500:]}")
    return str(exe)


DOCS = [f"d{i:02d}" for i in range(14)] + ["D1", "d1x"]


@st.composite
def collections(draw):
    topics = draw(st.lists(st.sampled_from(["1", "2", "10", "q3"]), min_size=1, max_size=3, unique=True))
    qrels, run = [], []
    run_topics = list(topics)
    if draw(st.booleans()):
        run_topics.append("99")                       # run topic absent from the qrels
    for t in topics:
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        for i, d in enumerate(judged):
            # every topic has a level-3 judgment: trec_eval reads stale memory for a topic whose
            # judgments are all negative, and for bpref when -l exceeds its highest level + 1
            level = 3 if i == 0 else draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3]))
            qrels.append(f"{t} 0 {d} {level}")
    missing = draw(st.booleans()) and len(topics) > 1
    for t in run_topics:
        if missing and t == topics[-1]:
            continue                                  # qrels topic missing from the run
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=14, unique=True))
        for i, d in enumerate(docs):
            score = draw(st.sampled_from(["1", "1.0", "2.5", "0.25", "-3", "1e1", "7"]))
            run.append(f"{t} Q0 {d} {i + 1} {score} tag")
    opts = []
    if draw(st.booleans()):
        opts.append("-q")
    if missing or draw(st.booleans()):
        opts.append("-c")
    if draw(st.booleans()):
        opts.append("-J")
    opts.append(f"-l{draw(st.sampled_from([1, 1, 2, 0]))}")
    if draw(st.booleans()):
        opts.append(f"-M{draw(st.integers(1, 8))}")
    if draw(st.booleans()):
        opts.append(f"-N{draw(st.integers(0, 50))}")
    if draw(st.integers(0, 4)) == 0:
        opts.append("-n")
    opts += ["-m", "all_trec"]
    opts += draw(st.sampled_from([[], ["-m", "P.1,3,7"], ["-m", "ndcg.1=3,2=9,3=0.5"], ["-m", "rbp.p=0.5"],
                                  ["-m", "iprec_at_recall..15,.33,.5"], ["-m", "11pt_avg..9,.2,.5"],
                                  ["-m", "Rprec_mult.0.5,3"], ["-m", "utility.3,-2,1,0.5"],
                                  ["-m", "relstring.4"], ["-m", "set_F.0.25"]]))
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n", opts


@pytest.mark.shared_data
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collections())
def test_matches_trec_eval(trec_eval_bin, tmp_path, capsys, case):
    qrels, run, opts = case
    qp, rp = tmp_path / "qrels", tmp_path / "run"
    qp.write_text(qrels)
    rp.write_text(run)
    ref = subprocess.run([trec_eval_bin, *opts, str(qp), str(rp)], capture_output=True, text=True)
    rc = main(["trec_eval", *opts, str(qp), str(rp)])
    out = capsys.readouterr().out
    if ref.returncode != 0:
        assert rc != 0 and out == ""
    else:
        assert rc == 0
        assert out == ref.stdout
