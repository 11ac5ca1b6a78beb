"""ir_measures' names: through ``metaeval.evaluate(..., order="score")`` every name gives per topic
what ``ir_measures.iter_calc`` (0.4.3, default providers) gives, on DL19 runs re-scored without
ties; the tie rule against trec_eval 10.0's own outputs on the original runs (with ties)."""

from __future__ import annotations

import gzip

import ir_measures  # a test dependency (the [test] extra), with its trec_eval provider pytrec_eval
import numpy as np
import pytest

import metaeval
from metaeval.metrics.registry import REGISTRY, parse_measure

from conftest import DL19

#: the ir_measures names of the acceptance list, plus the TREC DL official measures and rel=/judged_only
NAMES = ["AP", "AP(rel=2)@100", "P(rel=2)@10", "R@1000", "RR@10", "RR(rel=2)", "nDCG@10",
         "nDCG(dcg='exp-log2')@10", "Rprec", "Bpref", "infAP", "Judged@10", "Success@10", "NumRet",
         "NumRel", "NumRelRet", "NumQ", "IPrec@0.1", "SetP", "SetR", "SetF", "ERR@20",
         "RBP(p=0.8,rel=2)", "Compat(p=0.8)", "RR(rel=2)@10", "AP(rel=2)@1000", "R(rel=2)@1000",
         "AP(judged_only=True)", "P(judged_only=True)@10", "nDCG(judged_only=True)@10", "Rprec(rel=2)",
         "Bpref(rel=2)", "Success(rel=2)@10", "AP(rel=2)", "Judged"]

#: per provider: how ir_measures' value is compared (gdeval prints 5 decimals; cwl_eval sums with
#: a BLAS dot product)
GDEVAL = ("gdeval.",)
CWL = ("irm.RBP",)

RUNS = ["bm25base_p", "idst_bert_p1", "ms_duet_passage", "srchvrs_ps_run2"]


def _read_tie_free(path):
    """A run re-scored without ties: its file order, score = 10^6 - line number (first line of a
    repeated document kept, as metaeval does)."""
    out, seen = {}, set()
    with gzip.open(path, "rt") as fh:
        for i, line in enumerate(fh):
            t, _, d, *_ = line.split()
            if (t, d) in seen:
                continue
            seen.add((t, d))
            out.setdefault(t, {})[d] = float(10 ** 6 - i)
    return out


def _write_run(run: dict, path, name):
    with open(path, "w") as fh:
        for t, docs in run.items():
            for r, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1])):
                fh.write(f"{t} Q0 {d} {r + 1} {s:.1f} {name}\n")


def _qrels_dict(path):
    q = {}
    with open(path) as fh:
        for line in fh:
            t, _, d, r = line.split()
            q.setdefault(t, {})[d] = int(r)
    return q


@pytest.fixture(scope="module")
def dl19_tie_free(tmp_path_factory):
    from conftest import require

    require("shared_data")
    tmp = tmp_path_factory.mktemp("dl19_tie_free")
    runs = {}
    for name in RUNS:
        runs[name] = _read_tie_free(DL19 / "runs" / f"{name}.run.gz")
        _write_run(runs[name], tmp / f"{name}.run", name)
    return tmp, runs, _qrels_dict(DL19 / "qrels.txt")


@pytest.mark.shared_data
def test_ir_measures_names_equal_ir_measures_per_topic(dl19_tie_free):
    tmp, runs, qrels = dl19_tie_free
    names = list(NAMES)
    if not ir_measures.gdeval.is_available():              # gdeval is a Perl script: CI has perl
        names = [n for n in names if not parse_measure(n, "ir_measures").base.startswith(GDEVAL)]
    got = metaeval.evaluate(DL19 / "qrels.txt", sorted(str(p) for p in tmp.glob("*.run")), names,
                            order="score", depth=None)      # order="score": vocabulary ir_measures
    canon = {n: parse_measure(n, "ir_measures").name for n in names}
    ours = {(r.run, r.topic, r.measure): r.value for r in got.itertuples()}
    irm = {ir_measures.parse_measure(n): n for n in names}
    assert len(irm) == len(names)
    # one evaluator per measure: ir_measures' pytrec_eval provider shares one trec_eval evaluator
    # between measures and can apply one measure's judged_only (-J) to another (NumRet = 136 judged
    # documents instead of 1000 retrieved), depending on the order of a set of measures
    evaluators = [ir_measures.evaluator([m], qrels) for m in irm]
    checked = 0
    for run, data in runs.items():
        for met in (met for ev in evaluators for met in ev.iter_calc(data)):
            n = irm[met.measure]
            key = (run, met.query_id, canon[n])
            assert key in ours, key
            v, ref = ours[key], float(met.value)
            if canon[n].startswith(GDEVAL):
                ok = float(f"{v:.5f}") == ref
            elif canon[n].startswith(CWL):
                ok = abs(v - ref) <= 1e-12
            else:
                ok = v == ref                                  # exact: same operations
            assert ok, (run, met.query_id, n, canon[n], v, ref)
            checked += 1
    assert checked >= len(names) * len(runs) * 40
    assert len(names) >= 20


def test_every_name_of_the_list_is_available():
    """Every ir_measures name above resolves, in metaeval's registry and in ir_measures, and
    ir_measures' trec_eval provider (pytrec_eval, a test dependency) is installed: a missing
    dependency fails here instead of skipping."""
    assert ir_measures.pytrec_eval.is_available()
    for n in NAMES:
        assert parse_measure(n, "ir_measures").base in REGISTRY, n
        ir_measures.parse_measure(n)


# ------------------------------------------------------------------- the tie rule: trec_eval's outputs

def _trec_eval_ref(sub, run):
    """{(measure, topic): value} from reference/trec_eval/SUB/RUN.txt.gz (trec_eval -q output)."""
    out = {}
    with gzip.open(DL19 / "reference" / "trec_eval" / sub / f"{run}.txt.gz", "rt") as fh:
        for line in fh:
            m, t, v = line.split()
            out[(m, t)] = v
    return out


#: (trec_eval measure, metaeval name read in vocabulary ir_measures, reference folder, depth)
TIE_CASES = [
    ("map", "AP(rel=2,judged_only=True)", "aqJl2", None),
    ("P_10", "P(rel=2,judged_only=True)@10", "aqJl2", None),
    ("recip_rank", "RR(rel=2,judged_only=True)", "aqJl2", None),
    ("Rprec", "Rprec(rel=2,judged_only=True)", "aqJl2", None),
    ("bpref", "Bpref(rel=2)", "aqJl2", None),
    ("success_10", "Success(rel=2,judged_only=True)@10", "aqJl2", None),
    ("map", "AP(rel=2)", "aqcl2M100", 100),
    ("P_10", "P(rel=2)@10", "aqcl2M100", 100),
    ("recip_rank", "RR(rel=2)", "aqcl2M100", 100),
    ("Rprec", "Rprec(rel=2)", "aqcl2M100", 100),
    ("bpref", "Bpref(rel=2)", "aqcl2M100", 100),
    ("map", "AP", "aqc", None),
    ("recip_rank", "RR", "aqc", None),
    ("P_5", "P@5", "aqc", None),
    ("ndcg_cut_10", "nDCG@10", "aqc", None),
    ("recall_1000", "R@1000", "aqc", None),
    ("map_cut_100", "AP@100", "aqc", None),
]


@pytest.mark.shared_data
def test_tie_rule_matches_trec_eval_on_runs_with_ties():
    """On the original DL19 runs (with score ties), order="score" ranks as trec_eval 10.0 does: the
    values equal its printed 4 decimals for every topic."""
    runs = ["bm25base_p", "ICT-BERT2", "p_bert", "UNH_bm25", "srchvrs_ps_run1"]
    for sub, depth in {(c[2], c[3]) for c in TIE_CASES}:
        cases = [c for c in TIE_CASES if c[2] == sub]
        names = [c[1] for c in cases]
        got = metaeval.evaluate(DL19 / "qrels.txt", [str(DL19 / "runs" / f"{r}.run.gz") for r in runs],
                                names, order="score", depth=depth, vocabulary="ir_measures")
        ours = {(r.run, r.topic, r.measure): r.value for r in got.itertuples()}
        for run in runs:
            ref = _trec_eval_ref(sub, run)
            for te, name, _, _ in cases:
                canon = parse_measure(name, "ir_measures").name
                topics = [t for (m, t) in ref if m == te and t != "all"]
                assert len(topics) >= 40
                for t in topics:
                    assert f"{ours[(run, t, canon)]:.4f}" == ref[(te, t)], (sub, run, t, te, name)


def test_runs_with_ties_do_exist_in_the_tie_rule_test():
    """The tie-rule test is meaningful: some of its runs have tied scores within a topic."""
    from conftest import require

    require("shared_data")
    ties = 0
    for r in ["bm25base_p", "UNH_bm25"]:
        seen = set()
        with gzip.open(DL19 / "runs" / f"{r}.run.gz", "rt") as fh:
            for line in fh:
                t, _, d, _, s, _ = line.split()
                ties += (t, np.float32(s)) in seen
                seen.add((t, np.float32(s)))
    assert ties > 100


def test_every_irm_measure_is_registered():
    for base in ("Judged", "gdeval.nDCG", "gdeval.ERR", "irm.RBP", "Compat"):
        assert base in REGISTRY
        assert REGISTRY[base].func.__module__ == "metaeval.metrics.irm"


PAIRS = [("AP", "trec.map"), ("AP(rel=2)", "trec.map(rel=2)"), ("Prec@10", "trec.P@10"),
         ("RR", "trec.recip_rank"), ("R-prec", "trec.Rprec"), ("Hit@10", "trec.success@10"),
         ("bpref(judged_only=True)", "trec.bpref"), ("AP(judged_only=True)", "trec.map(judged_only=True)"),
         ("MSnDCG@10", "trec.ndcg_cut@10"), ("MSnDCG@1000", "trec.ndcg_cut@1000")]


@pytest.mark.shared_data
def test_ntcireval_and_trec_eval_agree_on_score_ordered_runs_without_ties(dl19_tie_free):
    """Where NTCIREVAL's and trec_eval's definitions coincide, the two families give the same
    values on the DL19 runs ranked by score (no ties): bit for bit, but for MSnDCG (natural log)
    vs ndcg_cut (log2), whose quotient differs in the last bits."""
    tmp, _, _ = dl19_tie_free
    got = metaeval.evaluate(DL19 / "qrels.txt", sorted(str(p) for p in tmp.glob("*.run")),
                            [n for p in PAIRS for n in p], order="score", vocabulary="ntcireval")
    wide = got.pivot_table(index=["run", "topic"], columns="measure", values="value")
    for a, b in PAIRS:
        va, vb = wide[parse_measure(a).name].to_numpy(), wide[parse_measure(b).name].to_numpy()
        if a.startswith("MSnDCG"):
            np.testing.assert_allclose(va, vb, rtol=1e-13, atol=0, err_msg=f"{a} vs {b}")
        else:
            assert np.array_equal(va, vb), (a, b)
