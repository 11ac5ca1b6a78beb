"""metaeval reproducibility: the measures of Breuer et al. (2020) against repro_eval 0.5.0 (the
authors' implementation, a test-only oracle) on the shared DL19 runs, cut to a few topics and
documents so that the oracle's Python loops stay cheap; a campaign against single calls; the
natural KTU of lists of unequal length; bad input; the command's files."""

from __future__ import annotations

import gzip
import math
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval.meta.reproducibility import Reproduction, inversions, ktu, reproducibility

pytestmark = pytest.mark.shared_data

DEPTH = 60
N_TOPICS = 10
#: ir_measures' names of trec_eval measures repro_eval evaluates (its load_measures' families)
MEASURES = ["AP", "nDCG@10", "P@5", "P@10", "RR", "R@50", "Rprec", "Bpref", "nDCG", "AP@20"]
#: runs with >= DEPTH documents on every topic (repro_eval's KTU needs equal lengths); UNH_bm25
#: and runid5 have many tied scores
EQUAL = ["bm25base_p", "bm25base_rm3_p", "bm25tuned_p", "bm25tuned_rm3_p", "UNH_bm25", "p_bert",
         "idst_bert_p1", "runid5", "bm25base_ax_p", "p_exp_bert"]


@pytest.fixture(scope="module")
def dl19(shared_data, tmp_path_factory) -> dict:
    """The first N_TOPICS qrels topics of DL19 and each run's first DEPTH lines per topic (file
    order, ties as they are), as plain TREC files."""
    d = shared_data / "trec-dl19-passage"
    out = tmp_path_factory.mktemp("dl19")
    qrels = defaultdict(list)
    for line in (d / "qrels.txt").read_text().splitlines():
        qrels[line.split()[0]].append(line)
    topics = sorted(qrels)[:N_TOPICS]
    (out / "qrels.txt").write_text("".join(ln + "\n" for t in topics for ln in qrels[t]))
    runs = {}
    for name in EQUAL + ["runid2", "srchvrs_ps_run2"]:
        kept = defaultdict(list)
        with gzip.open(d / "runs" / f"{name}.run.gz", "rt") as fh:
            for line in fh:
                t = line.split(None, 1)[0]
                if t in topics and len(kept[t]) < DEPTH:
                    kept[t].append(line)
        p = out / f"{name}.txt"
        p.write_text("".join(ln for t in topics for ln in kept[t]))
        runs[name] = str(p)
    return {"qrels": str(out / "qrels.txt"), "runs": runs, "topics": topics, "dir": out}


def _oracle(qrels, ob, oa, rb, ra, *, replicate: bool = False, rep_qrels=None):
    """repro_eval's values for one reproduction, as its README's workflow computes them."""
    import ir_measures
    from repro_eval.Evaluator import RplEvaluator, RpdEvaluator

    cls = RplEvaluator if replicate else RpdEvaluator
    kw = dict(qrels_rpl_path=rep_qrels) if replicate else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = cls(qrels_orig_path=qrels, run_b_orig_path=ob, run_a_orig_path=oa, run_b_rep_path=rb, run_a_rep_path=ra,
                 **kw)
        ev.measures = [ir_measures.parse_measure(m) for m in MEASURES]
        ev.trim(DEPTH)
        ev.evaluate()
        out = dict(ttest=ev.ttest(), er=ev.er(), dri=ev.dri())
        if not replicate:
            out.update(ktu=ev.ktu(per_topic=True), rbo=ev.rbo(per_topic=True, depth=DEPTH), rmse=ev.rmse(),
                       nrmse=ev.nrmse())
    return out


def _close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9


def test_every_measure_per_topic_and_mean_equals_repro_eval(dl19):
    r = dl19["runs"]
    orig = (r["bm25base_p"], r["bm25base_rm3_p"])
    reps = [Reproduction("tuned", r["bm25tuned_p"], r["bm25tuned_rm3_p"]),
            Reproduction("ties", r["UNH_bm25"], r["runid5"]),
            Reproduction("same", r["bm25base_p"], r["bm25base_rm3_p"])]
    res = reproducibility(dl19["qrels"], orig, reps, MEASURES, depth=DEPTH)
    name = dict(zip(res.metrics, MEASURES))
    checked = 0
    for rep in reps:
        want = _oracle(dl19["qrels"], *orig, rep.baseline, rep.advanced)
        for run in ("baseline", "advanced"):
            top = res.topics[(res.topics.reproduction == rep.name) & (res.topics.run == run)]
            assert list(top.topic) == sorted(want["ktu"][run])
            for row in top.itertuples():
                assert _close(row.ktu, want["ktu"][run][row.topic]) and _close(row.rbo, want["rbo"][run][row.topic])
                checked += 2
            tab = res.reproducibility[(res.reproducibility.reproduction == rep.name) & (res.reproducibility.run == run)]
            assert list(tab.metric) == res.metrics
            for row in tab.itertuples():
                m = name[row.metric]
                assert _close(row.ktu, float(np.mean(list(want["ktu"][run].values()))))
                assert _close(row.rbo, float(np.mean(list(want["rbo"][run].values()))))
                assert _close(row.rmse, want["rmse"][run][m]) and _close(row.nrmse, want["nrmse"][run][m])
                assert _close(row.p_value, want["ttest"][run][m]), (rep.name, run, m)
                checked += 5
        for row in res.effects[res.effects.reproduction == rep.name].itertuples():
            assert _close(row.er, want["er"][name[row.metric]]) and _close(row.dri, want["dri"][name[row.metric]])
            checked += 2
    assert checked == 3 * (2 * (2 * N_TOPICS + 5 * len(MEASURES)) + 2 * len(MEASURES))
    same = res.reproducibility[res.reproducibility.reproduction == "same"]
    assert (same.ktu == 1).all() and (same.rbo == 1).all() and (same.rmse == 0).all() and (same.p_value == 1).all()


def test_replicability_equals_repro_eval_and_leaves_the_paired_measures_empty(dl19, tmp_path):
    """Reproductions on other topics (their own qrels): the unpaired t test, ER and Delta RI."""
    r, topics = dl19["runs"], dl19["topics"]
    other = set(topics[N_TOPICS // 2:])
    files = {}
    for name in ("bm25tuned_p", "bm25tuned_rm3_p", "p_bert", "idst_bert_p1"):
        lines = Path(r[name]).read_text().splitlines(keepends=True)
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("".join(ln for ln in lines if ln.split()[0] in other))
    q2 = tmp_path / "qrels2.txt"
    q2.write_text("".join(ln for ln in Path(dl19["qrels"]).read_text().splitlines(keepends=True)
                          if ln.split()[0] in other))
    orig = (r["bm25base_p"], r["bm25base_rm3_p"])
    reps = {"tuned": (str(files["bm25tuned_p"]), str(files["bm25tuned_rm3_p"])),
            "bert": (str(files["p_bert"]), str(files["idst_bert_p1"]))}
    from metaeval import reproducibility as api_reproducibility

    res = api_reproducibility(dl19["qrels"], orig, reps, metrics=MEASURES, rep_qrels=str(q2), depth=DEPTH)
    assert res.mode == "replicability" and res.topics.empty
    assert res.reproducibility[["ktu", "rbo", "rmse", "nrmse"]].isna().all().all()
    name = dict(zip(res.metrics, MEASURES))
    for rep, (b, a) in reps.items():
        want = _oracle(dl19["qrels"], *orig, b, a, replicate=True, rep_qrels=str(q2))
        for row in res.reproducibility[res.reproducibility.reproduction == rep].itertuples():
            assert _close(row.p_value, want["ttest"][row.run][name[row.metric]])
        for row in res.effects[res.effects.reproduction == rep].itertuples():
            assert _close(row.er, want["er"][name[row.metric]]) and _close(row.dri, want["dri"][name[row.metric]])


def test_a_campaign_of_20_reproductions_equals_20_single_calls(dl19):
    r = dl19["runs"]
    orig = (r["bm25base_p"], r["bm25base_rm3_p"])
    pool = EQUAL + ["runid2", "srchvrs_ps_run2"]            # also lists of unequal length
    reps = [Reproduction(f"team{i:02d}", r[pool[i % len(pool)]], r[pool[(3 * i + 1) % len(pool)]])
            for i in range(20)]
    ms = ["AP", "nDCG@10", "P@10"]
    whole = reproducibility(dl19["qrels"], orig, reps, ms, depth=DEPTH)
    for name, df in whole.tables.items():
        single = pd.concat([reproducibility(dl19["qrels"], orig, [rep], ms, depth=DEPTH).tables[name] for rep in reps],
                           ignore_index=True)
        pd.testing.assert_frame_equal(df, single, check_exact=True)


def _natural_ktu(a, b) -> float:
    """The literal definition: tau_b over the union, each list's missing documents tied last."""
    from scipy.stats import kendalltau

    union = sorted(set(a) | set(b))
    ra = [a.index(d) if d in a else len(a) for d in union]
    rb = [b.index(d) if d in b else len(b) for d in union]
    return float(kendalltau(ra, rb).correlation)


def test_ktu_of_lists_of_unequal_length_is_the_natural_definition():
    """repro_eval raises on lists of unequal length (scipy's kendalltau of unequal sizes)."""
    from repro_eval.measure.document_order import KTU

    with pytest.raises(ValueError):
        KTU({"1": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"1": {"a": 3.0, "c": 2.0}})
    rng = np.random.default_rng(5)
    orig = np.full((4, 12), -1)
    rep = np.full((3, 4, 12), -1)
    on = np.array([12, 7, 1, 9])
    rn = rng.integers(1, 13, size=(3, 4))
    rn[0, 0] = 12
    for t in range(4):
        orig[t, :on[t]] = rng.permutation(30)[:on[t]]
        for r in range(3):
            rep[r, t, :rn[r, t]] = rng.permutation(30)[:rn[r, t]]
    got = ktu(orig, on, rep, rn)
    for r in range(3):
        for t in range(4):
            a, b = orig[t, :on[t]].tolist(), rep[r, t, :rn[r, t]].tolist()
            if len(a) == len(b):
                continue
            assert got[r, t] == pytest.approx(_natural_ktu(a, b), abs=1e-12)


def test_inversions_counts_every_discordant_pair():
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 64, 100):
        Y = np.stack([rng.permutation(1000)[:n] for _ in range(6)])
        brute = [(y[:, None] > y[None, :])[np.triu_indices(n, 1)].sum() for y in Y]
        assert inversions(Y).tolist() == brute


def _cli(argv) -> int:
    from metaeval.cli import main

    try:
        return main(argv)
    except SystemExit as e:
        return int(e.code)


def test_bad_input_names_the_run_and_topic_and_writes_nothing(dl19, tmp_path, capsys):
    r, topics = dl19["runs"], dl19["topics"]
    lacking = tmp_path / "lacking.txt"
    lacking.write_text("".join(ln for ln in Path(r["bm25tuned_p"]).read_text().splitlines(keepends=True)
                               if ln.split()[0] != topics[3]))
    base = ["reproducibility", "--qrels", dl19["qrels"], "--orig", r["bm25base_p"], r["bm25base_rm3_p"],
            "--metrics", "AP", "--depth", str(DEPTH)]
    cases = [(f"x={lacking},{r['bm25tuned_rm3_p']}", "baseline run"),      # a reproduced run lacks a topic
             (f"x={r['bm25tuned_p']},{lacking}", "advanced run")]          # its advanced run lacks one
    for rep, which in cases:
        out = tmp_path / "out"
        assert _cli(base + ["--rep", rep, "--out", str(out)]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and str(lacking) in err[0] and f"topic {topics[3]}" in err[0] and which in err[0]
        assert not out.exists()
    kept = tmp_path / "kept"                      # an existing folder stays as it was
    kept.mkdir()
    (kept / "old.txt").write_text("old")
    assert _cli(base + ["--rep", cases[0][0], "--out", str(kept)]) == 1
    assert [p.name for p in kept.iterdir()] == ["old.txt"] and len(capsys.readouterr().err.splitlines()) == 1
    assert _cli(base + ["--rep", "x=only-one-file", "--out", str(tmp_path / "o")]) == 2
    assert "NAME=BASELINE,ADVANCED" in capsys.readouterr().err


def test_the_config_block_is_one_job_whose_command_writes_the_declared_files(dl19, tmp_path):
    """`reproducibility:` in the config: one job for the run (metaeval.dag.Plan; the generic rule
    own_job_reproducibility), its command line, `metaeval stage reproducibility`, from the stage's
    declared parameters; that command writes every declared table and figure."""
    import shlex
    from pathlib import Path as P

    from snakemake.utils import validate

    from metaeval import dag, outputs

    r = dl19["runs"]
    cfg = {"collections": {"x": {"qrels": "q", "runs": "r"}},
           "reproducibility": {"enabled": True, "qrels": dl19["qrels"], "orig": [r["bm25base_p"], r["bm25base_rm3_p"]],
                               "reproductions": {"a": [r["bm25tuned_p"], r["bm25tuned_rm3_p"]],
                                                 "b": [r["p_bert"], r["runid2"]]},
                               "metrics": ["P@5", "P@10", "AP"], "depth": DEPTH}}
    validate(cfg, str(P(__file__).resolve().parents[2] / "workflow/schemas/config.schema.yaml"))
    plan = dag.Plan(cfg)
    files = plan.run_wide_files("reproducibility")
    assert files == [f"results/reproducibility/{f}" for f in outputs.files("reproducibility")]
    assert set(files) <= set(plan.targets())
    assert set(plan.job_inputs("reproducibility")) == {dl19["qrels"], *[r[n] for n in ("bm25base_p", "bm25base_rm3_p",
                                                  "bm25tuned_p", "bm25tuned_rm3_p", "p_bert", "runid2")]}
    args = shlex.split(plan.own_job_args("reproducibility", None))
    out = tmp_path / "out"
    assert args[:2] == ["--rp-qrels", dl19["qrels"]]
    assert _cli(["stage", "reproducibility", *args, "--out", str(out), "--quiet"]) == 0
    for o in outputs.outputs("reproducibility"):
        for f in o.files():
            assert (out / f).is_file(), f
        if o.kind == "table":
            assert tuple(pd.read_csv(out / f"tables/{o.name}.csv", dtype=str).columns) == o.columns
    rep = pd.read_csv(out / "tables/reproducibility.csv")
    assert len(rep) == 2 * 2 * 3 and list(rep.reproduction.unique()) == ["a", "b"]
    assert "Breuer et al. (2020)" in (out / "tables/effects.md").read_text()
    cfg["reproducibility"]["enabled"] = False
    assert not any("reproducibility" in f for f in dag.Plan(cfg).targets())
