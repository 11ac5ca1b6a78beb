"""Numbers a user gets without asking are told: topics no run retrieved (TREC input), the order
warning only for scores that rise down a list, the console summary one line per kind."""

from __future__ import annotations

import warnings

import pytest

import metaeval
from metaeval.cli import main
from metaeval.errors import InputError, InputWarning

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
    shown = tally.lines()                   # what the command prints at its end: one line per kind
    assert len(shown) == 2, shown
    assert shown[0].startswith("metaeval: warning: runs/r0.run: run r0:") and "and 54 more (59 in all)" in shown[0]
    assert "run x: its file order" in shown[1] and "also" not in shown[1]


# ------------------------------------------------------------------ one trec_eval everywhere
def _near_tie_collection(d):
    """Three runs on six topics whose scores differ in double precision but tie in single precision
    (trec_eval 9 then orders them by DOCID descending): the two trec_evals rank them differently."""
    import numpy as np

    rng = np.random.default_rng(7)
    d.mkdir(parents=True, exist_ok=True)
    q = []
    for t in range(6):
        q += [f"q{t} 0 d{k:02d} {int(rng.choice(3, p=[0.5, 0.3, 0.2]))}" for k in range(20)]
        q.append(f"q{t} 0 d99 2")
    (d / "qrels.txt").write_text("\n".join(q) + "\n")
    runs = d / "runs"
    runs.mkdir()
    for r in range(3):
        lines = []
        for t in range(6):
            base = np.float32(rng.uniform(1, 2))
            sc = [float(base) + float(np.spacing(base)) * rng.uniform(0, 0.45) for _ in range(20)]
            sc = sorted(sc, reverse=True)
            lines += [f"q{t} Q0 d{k:02d} {i + 1} {s!r} r{r}" for i, (k, s) in enumerate(zip(rng.permutation(20), sc))]
        (runs / f"r{r}.run").write_text("\n".join(lines) + "\n")
    return d / "qrels.txt", sorted(runs.iterdir())


def _dropin_means(capsys, qrels, run, version):
    assert main(["trec_eval", "--trec-eval-version", str(version), "-m", "P.5", "-m", "ndcg_cut.10", "-m", "map",
                 "-m", "recip_rank", str(qrels), str(run)]) == 0
    return {k: float(v) for k, _, v in (ln.split() for ln in capsys.readouterr().out.splitlines())}


_DROPIN = {"Prec@5": "P_5", "trec.ndcg_cut@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank"}


def _check_means_equal_dropin(capsys, qrels, runs, version, tmp_path):
    got = metaeval.evaluate(qrels, runs, ["P@5", "nDCG@10", "AP", "RR"], trec_eval_version=version)
    means = got.groupby(["run", "measure"]).value.mean()
    for run in runs:
        te = _dropin_means(capsys, qrels, run, version)
        name = run.name.split(".")[0]
        for m, k in _DROPIN.items():
            assert f"{means[(name, m)]:.4f}" == f"{te[k]:.4f}", (version, name, m)
    # the command line: compare prints the same means under the same setting
    assert main(["compare", "--qrels", str(qrels), "--runs", *map(str, runs), "--metrics", "RR",
                 "--trec-eval-version", str(version), "--out", str(tmp_path / f"cmp{version}")]) == 0
    out = capsys.readouterr().out
    for run in runs:
        name = run.name.split(".")[0]
        assert f"{means[(name, 'RR')]:.4f}" in out
    return means


def test_compare_means_are_the_dropins_under_both_versions(tmp_path, capsys):
    qrels, runs = _near_tie_collection(tmp_path / "near")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        m10 = _check_means_equal_dropin(capsys, qrels, runs, 10, tmp_path)
        m9 = _check_means_equal_dropin(capsys, qrels, runs, 9, tmp_path)
    assert (m10.round(4) != m9.round(4)).any()               # the near ties do tell the versions apart
    with pytest.raises(ValueError, match="trec_eval_version"):
        metaeval.evaluate(qrels, runs, ["AP"], trec_eval_version=11)


@pytest.mark.shared_data
def test_dl19_compare_means_are_the_dropins(shared_data, tmp_path, capsys):
    dl19 = shared_data / "trec-dl19-passage"
    runs = [dl19 / "runs" / f"{r}.run.gz" for r in ("TUA1-1", "runid2", "bm25base_p")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        m10 = _check_means_equal_dropin(capsys, dl19 / "qrels.txt", runs, 10, tmp_path)
        m9 = _check_means_equal_dropin(capsys, dl19 / "qrels.txt", runs, 9, tmp_path)
    assert m10[("runid2", "AP")] != m9[("runid2", "AP")]      # topic 183378: a tie in float32 only


def test_pipeline_config_key_trec_eval_version():
    """``trec_eval_version: 9`` in the config reaches the metrics and judgments jobs; the default
    (10) adds nothing to their command lines (the commands' default)."""
    import yaml

    from metaeval import dag
    from test_dag import ROOT, _validated

    cfg = yaml.safe_load((ROOT / "config/examples/trec-dl19-official.yaml").read_text(encoding="utf-8"))
    plan = dag.Plan(_validated(cfg))
    c = plan.collections[0]
    assert plan.config["trec_eval_version"] == 10 and "--trec-eval-version" not in plan.parse_args(c)
    plan9 = dag.Plan(_validated({**cfg, "trec_eval_version": 9}))
    assert "--trec-eval-version 9" in plan9.parse_args(c)
    with pytest.raises(Exception, match="11"):
        _validated({**cfg, "trec_eval_version": 11})


# ------------------------------------------------------------- DataFrames as their owners write them
class _RanxLike:
    """The attributes of ranx's Qrels / Run that metaeval reads (ranx itself is not installed)."""

    def __init__(self, d: dict, name: str | None = None, kind: str = "run"):
        self._d, self.name = d, name
        setattr(self, kind, d)

    def to_dict(self) -> dict:
        return {q: dict(docs) for q, docs in self._d.items()}


def test_evaluate_reads_pyterrier_ranx_and_ir_measures_forms(tmp_path):
    from collections import namedtuple

    import pandas as pd

    qrels, runs = _near_tie_collection(tmp_path / "forms")
    ms = ["nDCG@10", "AP", "P@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        want = metaeval.evaluate(qrels, runs, ms)
        qf = pd.read_csv(qrels, sep=" ", header=None, names=["qid", "it", "docno", "label"], dtype=str)
        qf["label"] = qf["label"].astype(int)
        rf = {}
        for p in runs:
            df = pd.read_csv(p, sep=" ", header=None, names=["qid", "q0", "docno", "rank", "score", "tag"],
                             dtype={"qid": str, "docno": str, "score": float})
            rf[p.stem] = df
        pt_runs = pd.concat([df.assign(name=n)[["qid", "docno", "score", "rank", "name"]].rename(columns={"name": "run"})
                             for n, df in rf.items()], ignore_index=True)
        got = {"pyterrier": metaeval.evaluate(qf[["qid", "docno", "label"]], pt_runs, ms)}
        rx_q = qf.rename(columns={"qid": "q_id", "docno": "doc_id", "label": "score"})[["q_id", "doc_id", "score"]]
        got["ranx frames"] = metaeval.evaluate(rx_q, {n: df.rename(columns={"qid": "q_id", "docno": "doc_id"})
                                                      [["q_id", "doc_id", "score"]] for n, df in rf.items()}, ms)
        nested_q: dict = {}
        for r in qf.itertuples():
            nested_q.setdefault(r.qid, {})[r.docno] = r.label
        objs = []
        for n, df in rf.items():
            d: dict = {}
            for r in df.itertuples():
                d.setdefault(r.qid, {})[r.docno] = r.score
            objs.append(_RanxLike(d, n))
        got["ranx objects"] = metaeval.evaluate(_RanxLike(nested_q, kind="qrels"), objs, ms)
        Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance", "iteration"])
        ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
        first = next(iter(rf))
        nt = metaeval.evaluate([Qrel(r.qid, r.docno, r.label, "0") for r in qf.itertuples()],
                               [ScoredDoc(r.qid, r.docno, r.score) for r in rf[first].itertuples()], ms)
    for how, df in got.items():
        pd.testing.assert_frame_equal(df.reset_index(drop=True), want.reset_index(drop=True), obj=how)
    one = want[want.run == first].assign(run="run").reset_index(drop=True)
    pd.testing.assert_frame_equal(nt.reset_index(drop=True), one, obj="ir_measures")


# --------------------------------------------------------------------- every file option reads gzip
def test_file_options_read_gzip(tmp_path):
    import gzip

    from metaeval.labels import read_labels
    from metaeval.meta.pool_groups import pool_contributors, run_groups

    def gz(name: str, text: str):
        p = tmp_path / name
        p.write_bytes(gzip.compress(text.encode("utf-8")))
        return p

    assert read_labels(gz("labels.txt.gz", "r1 First\n# note\nr2 Second\n")) == {"r1": "First", "r2": "Second"}
    assert sorted(pool_contributors(["r1", "r2", "r3"], str(gz("pool.run.gz", "r1\nr3\n")))) == ["r1", "r3"]
    assert run_groups(["r1", "r2"], str(gz("groups.gz", "r1 A\nr2 B\n"))) == {"r1": "A", "r2": "B"}
    # a run's own file names that run (incompleteness --pool-runs runs/r2.run.gz)
    assert pool_contributors(["r1", "r2"], [str(gz("r2.run.gz", "1 Q0 d1 1 1 r2\n"))]) == ["r2"]
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("r1 caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="latin1.txt"):
        read_labels(bad)


# ------------------------------------------------------------------------------- small things
def test_readme_says_how_metaeval_is_run_without_activating_the_venv():
    from conftest import ROOT

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ".venv/bin/metaeval" in text and "source .venv/bin/activate" in text


def test_standardise_writes_the_files_its_help_names(tmp_path, capsys):
    import numpy as np

    m = tmp_path / "m"
    m.mkdir()
    rng = np.random.default_rng(1)
    for name in ("AP", "trec.ndcg_cut@10"):
        rows = "".join(f"t{t}," + ",".join(f"{v:.3f}" for v in rng.random(3)) + "\n" for t in range(4))
        (m / f"{name}.csv").write_text("topic,a,b,c\n" + rows)
    with pytest.raises(SystemExit):
        main(["standardise", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "AP(std=z).csv" in help_text and "trec.ndcg_cut(std=z)@10.csv" in help_text
    assert main(["standardise", "--matrices", str(m), "--out", str(tmp_path / "s"), "--std", "z"]) == 0
    assert {p.name for p in (tmp_path / "s").iterdir()} >= {"AP(std=z).csv", "trec.ndcg_cut(std=z)@10.csv"}


def test_short_run_labels_keep_the_systems_name():
    from metaeval.labels import default_run_labels

    got = default_run_labels(["Fast_ForwardP_2", "Fast_ForwardP_5", "bm25", "pash_f1"])
    assert got["Fast_ForwardP_2"] == "Fast_ForwardP_2" and got["Fast_ForwardP_5"] == "Fast_ForwardP_5"
    got = default_run_labels(["dl-20-official-input.pash_f1", "dl-20-official-input.pash_f2", "dl-20-official-input.bm25"])
    assert got == {"dl-20-official-input.pash_f1": "pash_f1", "dl-20-official-input.pash_f2": "pash_f2",
                   "dl-20-official-input.bm25": "bm25"}


# ------------------------------------------------------------------------------- progress bars
class _Tty:
    """A terminal-like stream that records what was written."""

    def __init__(self):
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


def test_progress_bar_on_a_terminal_only_and_not_under_quiet(tmp_path, monkeypatch):
    import io

    from metaeval import progress

    tty = _Tty()
    with progress.Progress(4, "work", file=tty) as bar:
        for _ in range(4):
            bar.update()
    assert "work  [" in tty.text and "4/4 (100%)" in tty.text and tty.text.endswith("\r\x1b[K")
    log = io.StringIO()                                   # a log file: nothing
    with progress.Progress(4, "work", file=log) as bar:
        bar.update(4)
    assert log.getvalue() == ""
    progress.set_quiet(True)
    try:
        quiet = _Tty()
        with progress.Progress(4, "work", file=quiet) as bar:
            bar.update(4)
        assert quiet.text == ""
    finally:
        progress.set_quiet(False)
    # a long command draws it on stderr when that is a terminal: standardisation
    import numpy as np
    import pandas as pd

    from metaeval.meta.standardisation import stage_standardisation

    tty = _Tty()
    monkeypatch.setattr("sys.stderr", tty)
    rng = np.random.default_rng(0)
    m = {"AP": pd.DataFrame(rng.random((8, 3)), index=[f"t{i}" for i in range(8)], columns=["a", "b", "c"])}
    stage_standardisation(m, methods=["z"], trials=5, n_topics=2, seed=1)
    assert "metaeval standardise --experiment  [" in tty.text and "2/2" in tty.text
