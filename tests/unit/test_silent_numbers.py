"""Numbers a user gets without asking are told: topics no run retrieved (TREC input), the order
warning only for scores that rise down a list, the console summary one line per kind."""

from __future__ import annotations

import warnings

import pytest

import metaeval
from metaeval.cli import main
from metaeval.errors import InputWarning

# four judged topics; the runs retrieved t1 and t2 only (t3, t4: the qrels of a larger set)
QRELS = "".join(f"{t} 0 d{k} {g}\n" for t in ("t1", "t2", "t3", "t4") for k, g in ((1, 2), (2, 0), (3, 1)))
RUN_A = "t1 Q0 d1 1 3 a\nt1 Q0 d2 2 2 a\nt2 Q0 d2 1 3 a\nt2 Q0 d3 2 2 a\n"
RUN_B = "t1 Q0 d2 1 3 b\nt1 Q0 d1 2 2 b\n"                      # misses t2: 0 there (trec_eval -c)


@pytest.fixture()
def larger_qrels(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.run").write_text(RUN_A)
    (runs / "b.run").write_text(RUN_B)
    return tmp_path / "qrels.txt", runs


def _caught(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(x.message) for x in w if issubclass(x.category, InputWarning)]


def test_topics_no_run_retrieved_are_left_out_for_trec_input(larger_qrels, tmp_path, capsys):
    q, runs = larger_qrels
    got, msgs = _caught(lambda: metaeval.evaluate(q, runs, ["AP"]))
    assert sorted(set(got.topic)) == ["t1", "t2"]
    left = [m for m in msgs if "no run retrieved" in m]
    assert len(left) == 1 and "2 topics" in left[0] and "t3, t4" in left[0], msgs
    missing = [m for m in msgs if "missing from the run" in m]
    assert len(missing) == 1 and "run b:" in missing[0]                 # one line per run
    means = got.groupby("run").value.mean()
    # AP (two relevant per topic): a = (1/2 + 1/4) / 2; b = (1/4 + 0) / 2 -- trec_eval -c on the runs' topics
    assert means["a"] == 0.375 and means["b"] == 0.125
    # the command line: compare's means and matrices' topics
    assert main(["compare", "--qrels", str(q), "--runs", str(runs), "--metrics", "AP"]) == 0
    out, err = capsys.readouterr()
    assert "over 2 topics" in out and "0.3750" in out and "0.1250" in out
    assert sum(ln.startswith("metaeval: warning:") and "no run retrieved" in ln for ln in err.splitlines()) == 1
    assert main(["matrices", "--qrels", str(q), "--runs", str(runs), "--metrics", "AP", "--quiet",
                 "--out", str(tmp_path / "m")]) == 0
    assert (tmp_path / "m" / "AP.csv").read_text().count("\n") == 3           # header + t1, t2
    # judgments: the sets' union on the runs' topics too
    from metaeval.io.judgments import label_sets, read_sets

    lr, msgs = _caught(lambda: label_sets(read_sets({"x": [str(q)]}), [str(runs)], order="score"))
    assert lr.topics == ("t1", "t2") and any("no run retrieved" in m for m in msgs)


def test_ntcir_input_keeps_every_qrels_topic(larger_qrels, tmp_path):
    q, runs = larger_qrels
    nq = tmp_path / "qrels.ntcir"
    nq.write_text("".join(f"{t} {d} L{g}\n" for t, _, d, g in (ln.split() for ln in QRELS.splitlines())))
    got, msgs = _caught(lambda: metaeval.evaluate(nq, runs, ["AP"]))
    assert sorted(set(got.topic)) == ["t1", "t2", "t3", "t4"]
    assert not any("no run retrieved" in m for m in msgs)


def test_console_summary_lists_each_kind_once(tmp_path):
    """59 runs missing topics and one run out of score order: two lines, each naming its runs
    (counted beyond a few), never one line per run."""
    from metaeval import logsummary as L

    logs = tmp_path / "logs"
    logs.mkdir()
    lines = [f"metaeval: warning: runs/r{k}.run: run r{k}: {k % 7 + 1} topics of the qrels missing from the run: "
             f"empty list, 0 on every metric" for k in range(59)]
    lines.append("metaeval: warning: runs/x.run: run x: its file order is not by decreasing score on 3 topics "
                 "of 43 (first: topic 1037798); ranked by score order (trec_eval's convention); ...")
    (logs / "metrics-AP.log").write_text("\n".join(lines) + "\n")
    (logs / "metrics-RR.log").write_text(lines[0] + "\n")
    text = L.log_summary(logs).splitlines()
    assert len(text) == 3 and text[0].startswith("metaeval: the jobs noticed 2 kinds of thing"), text
    assert text[1].startswith("  warning: runs/r0.run: run r0: 1 topics of the qrels missing")
    assert "also run r1, run r2, run r3, run r4 and 54 more (59 in all) [2 logs]" in text[1]
    assert "run x: its file order is not by decreasing score" in text[2] and "also" not in text[2]
    tally = L.WarningTally()
    for ln in lines:
        tally.add(ln[len("metaeval: warning: "):])
    summary = tally.summary().splitlines()
    assert summary[0] == "metaeval: 60 warnings (60 distinct, 2 kinds) above:" and len(summary) == 3
    assert summary[1].startswith("  (x59) runs/r0.run: run r0:") and "and 54 more (59 in all)" in summary[1]
