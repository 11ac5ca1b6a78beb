"""The trec_eval family in the registry (``trec.*``): values equal to trec_eval's per-topic values.

* every registered ``trec.*`` measure (and ``rel=2``, ``judged_only=true`` variants) through
  ``metaeval.evaluate(order="score")`` equals what ``metaeval trec_eval -q`` prints (itself byte for
  byte trec_eval 10.0, tests/conformance/test_treceval_dropin.py) on DL19 runs, to the printed digits.  The
  collection ranks by scores compared in single precision (as trec_eval 9.0.x / pytrec_eval), the
  drop-in in double (10.0), so both read copies of the runs with scores rounded to float32;
* agreement with pytrec_eval (trec_eval 9.0.x) per topic for the measures where 9.0.x and 10.0
  agree (not iprec_at_recall / 11pt_avg, whose recall cutoffs 10.0 rounds; with
  ``--trec-eval-version 9`` those agree too);
* names: ``parse_measure('trec.ndcg_cut@10')``, the summary aggregation.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from metaeval.cli import main
from metaeval.metrics.registry import REGISTRY, parse_measure
from metaeval.treceval import aggregate

N_RUNS = 6


@pytest.fixture(scope="module")
def dl19_f32(shared_data, tmp_path_factory):
    """qrels path and float32-rounded copies of the first N_RUNS DL19 runs."""
    dl = shared_data / "trec-dl19-passage"
    out = tmp_path_factory.mktemp("dl19f32")
    paths = []
    for p in sorted((dl / "runs").glob("*.run.gz"))[:N_RUNS]:
        lines = []
        for line in gzip.open(p, "rt"):
            f = line.split()
            f[4] = repr(float(np.float32(float(f[4]))))
            lines.append(" ".join(f))
        q = out / p.name.replace(".run.gz", ".run")
        q.write_text("\n".join(lines) + "\n")
        paths.append(q)
    return dl / "qrels.txt", paths


def _dropin(args, capsys):
    assert main(["trec_eval", *args]) == 0
    return capsys.readouterr().out


def _printed(base, spec_name, v):
    return str(int(v)) if spec_name.startswith("num_") else "%6.4f" % v


CASES = [({}, []), ({"rel": 2}, ["-l2"]), ({"judged_only": True}, ["-J"])]


@pytest.mark.shared_data
@pytest.mark.parametrize("params,opts", CASES, ids=["default", "rel2", "judged_only"])
def test_registry_equals_dropin(dl19_f32, capsys, params, opts):
    from metaeval.io import load_collection
    from metaeval.metrics import evaluate

    qrels, runs = dl19_f32
    coll = load_collection(str(qrels), [str(p) for p in runs], order="score", depth=None)
    printed_name = {"iprec_at_recall(recall=0.3)": "iprec_at_recall_0.30", "Rprec_mult(mult=0.6)": "Rprec_mult_0.60",
                    "P@10": "P_10", "recall@100": "recall_100", "ndcg_cut@10": "ndcg_cut_10",
                    "map_cut@1000": "map_cut_1000", "relative_P@5": "relative_P_5", "success@1": "success_1",
                    "unj@10": "unj_10"}
    measures = {}
    for base in sorted(REGISTRY):
        if not base.startswith("trec.") or base[5:] in ("gm_map", "gm_bpref", "num_q", "dcg", "ideal_dcg"):
            continue
        short = base[5:]
        key = next((k for k in printed_name if k.split("(")[0].split("@")[0] == short), short)
        pr = printed_name.get(key, short)
        extra = ",".join(f"{k}={str(v).lower()}" for k, v in params.items())
        inner = key[len(short):]
        if "(" in inner:
            name = f"trec.{short}({inner[1:inner.index(')')]}{',' + extra if extra else ''}){inner[inner.index(')') + 1:]}"
        else:
            name = f"trec.{short}{'(' + extra + ')' if extra else ''}{inner}"
        measures[parse_measure(name).name] = pr
    vals = evaluate(coll, list(measures))
    out = _dropin(["-q", "-m", "all_trec", *opts, str(qrels), *map(str, runs)], capsys)
    # split the concatenated outputs run by run at each "runid" summary line
    blocks = out.split("runid                 \tall\t")
    blocks = [blocks[0]] + [b.split("\n", 1)[1] for b in blocks[1:-1]]
    assert len(blocks) == len(runs)
    n = 0
    for ri, block in enumerate(blocks):
        ref = {}
        for line in block.splitlines():
            m, q, v = line.split("\t")
            ref[(m.strip(), q)] = v
        for name, pr in measures.items():
            for ti, t in enumerate(coll.topics):
                assert _printed(name, pr, vals[name][ri, ti]) == ref[(pr, t)], (coll.runs[ri], t, name)
                n += 1
    assert n >= 30 * len(runs) * len(coll.topics)


def test_parse_and_aggregate():
    assert parse_measure("trec.ndcg_cut@10").name == "trec.ndcg_cut@10"
    assert parse_measure("trec.P(rel=1)@10").name == "trec.P@10"
    assert parse_measure("trec.map(rel=2,judged_only=true)").name == "trec.map(judged_only=True,rel=2)"
    with pytest.raises(ValueError):
        parse_measure("trec.ndcg_cut")                   # cutoff required
    v = np.array([[0.5, 0.0, 0.25]])
    assert aggregate("trec.map", v)[0] == pytest.approx(0.25)
    assert aggregate("trec.num_ret", v)[0] == 0.75
    assert aggregate("trec.gm_map", v)[0] == pytest.approx((0.5 * 0.00001 * 0.25) ** (1 / 3))


PYTREC = {"map": "map", "P_10": "P_10", "P_5": "P_5", "ndcg_cut_10": "ndcg_cut_10", "recip_rank": "recip_rank",
          "bpref": "bpref", "Rprec": "Rprec", "infAP": "infAP", "recall_100": "recall_100", "ndcg": "ndcg",
          "num_rel_ret": "num_rel_ret", "num_ret": "num_ret", "num_rel": "num_rel", "set_F": "set_F",
          "set_P": "set_P", "binG": "binG", "G": "G", "Rndcg": "Rndcg", "ndcg_rel": "ndcg_rel",
          "map_cut_100": "map_cut_100", "success_10": "success_10", "relative_P_10": "relative_P_10",
          "utility": "utility", "11pt_avg": "11pt_avg", "iprec_at_recall_0.30": "iprec_at_recall_0.30"}


@pytest.mark.shared_data
def test_pytrec_eval_agreement(dl19_f32):
    """Per topic |ours - pytrec_eval| < 1e-12 on the measures where trec_eval 9.0.x equals 10.0;
    iprec_at_recall / 11pt_avg compared with version=9 (truncated recall cutoffs)."""
    import pytrec_eval

    from metaeval.io.trec_ranking import rank_runs
    from metaeval.io.treceval import read_trec_qrels, read_trec_run
    from metaeval.treceval import compute, make_spec

    qrels, runs = dl19_f32
    q = read_trec_qrels(qrels)
    rk = rank_runs(q, [read_trec_run(p) for p in runs], version=9, complete=True)
    specs = [make_spec(n) for n in ("num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
                                    "iprec_at_recall", "P", "recall", "infAP", "utility", "11pt_avg", "binG",
                                    "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
                                    "success", "set_P", "set_F")]
    qd = {}
    for line in open(qrels):
        t, _, d, r = line.split()
        qd.setdefault(t, {})[d] = int(r)
    ev = pytrec_eval.RelevanceEvaluator(qd, {"num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref",
                                             "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "utility",
                                             "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
                                             "map_cut", "relative_P", "success", "set_P", "set_F"})
    checked = 0
    for r, p in enumerate(runs):
        rd = {}
        for line in open(p):
            f = line.split()
            rd.setdefault(f[0], {})[f[2]] = float(f[4])
        theirs = ev.evaluate(rd)
        ours = {name: vals for name, _, vals in compute(rk.rel[r], rk.num_ret[r], rk.rel_levels, specs, version=9)}
        for ti, t in enumerate(rk.topics):
            for k, pk in PYTREC.items():
                assert abs(ours[k][ti] - theirs[t][pk]) < 1e-12, (p.name, t, k, ours[k][ti], theirs[t][pk])
                checked += 1
    assert checked == len(runs) * len(rk.topics) * len(PYTREC)
