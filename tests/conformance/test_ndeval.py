"""metaeval.metrics.ndeval against the official ndeval 4.5 output, hand cases and properties.

The loader below is deliberately small and self-contained (pandas): the project's own diversity
readers live elsewhere; this file only needs the arrays of ``ndeval_measures``' contract.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from metaeval.metrics.ndeval import (NDEVAL_CUTOFFS, greedy_ideal, ndeval_amean, ndeval_measures,
                                     ndeval_names)

ROOT = Path(__file__).resolve().parents[2]
from conftest import DATA as _DATA  # noqa: E402

DIV = _DATA / "trec-web2013-diversity"
NAMES = ndeval_names()


def _need_data() -> Path:
    from conftest import require_data

    return require_data(DIV)


# ----------------------------------------------------------------------------- tiny loader


def load_qrels(path: Path):
    """ndeval qrels `TOPIC SUBTOPIC DOCID REL` -> topics, docs per topic, the contract's arrays."""
    q = pd.read_csv(path, sep=r"\s+", header=None, names=["topic", "sub", "doc", "rel"],
                    dtype={"topic": np.int64, "sub": np.int64, "doc": str, "rel": np.int64})
    topics = np.sort(q["topic"].unique())
    n_i = int(q["sub"].max()) + 1                        # columns = subtopic ids, like ndeval
    docs = q[["topic", "doc"]].drop_duplicates().sort_values(["topic", "doc"])
    docs["j"] = docs.groupby("topic").cumcount()
    # descending docno order: rank 0 = largest docno
    docs["order"] = docs.groupby("topic")["j"].transform(lambda s: len(s) - 1 - s)
    n_j = int(docs["j"].max()) + 1
    t_index = pd.Series(np.arange(topics.size), index=topics)
    docs["t"] = t_index[docs["topic"]].to_numpy()
    ideal_rel = np.zeros((topics.size, n_j, n_i), dtype=bool)
    ideal_order = np.full((topics.size, n_j), 10**9, dtype=np.int64)
    ideal_order[docs["t"], docs["j"]] = docs["order"]
    qj = q.merge(docs, on=["topic", "doc"])
    pos = qj[qj["rel"] > 0]
    ideal_rel[pos["t"], pos["j"], pos["sub"]] = True
    n_intents = ideal_rel.any(axis=1).sum(axis=1)
    return topics, docs, ideal_rel, ideal_order, n_intents


def load_runs(paths, topics, docs, ideal_rel):
    """TREC runs (gzipped) ordered by the RANK column -> run_rel (R, T, D, I), lengths (R, T)."""
    frames = []
    for r, p in enumerate(paths):
        f = pd.read_csv(p, sep=r"\s+", header=None, names=["topic", "q0", "doc", "rank", "score",
                                                          "tag"],
                        dtype={"topic": np.int64, "doc": str, "rank": np.int64})
        f = f[f["topic"].isin(topics)].sort_values(["topic", "rank"], kind="stable")
        f["d"] = f.groupby("topic").cumcount()
        f["r"] = r
        frames.append(f[["r", "topic", "doc", "d"]])
    runs = pd.concat(frames, ignore_index=True)
    t_index = pd.Series(np.arange(topics.size), index=topics)
    runs["t"] = t_index[runs["topic"]].to_numpy()
    n_d = int(runs["d"].max()) + 1
    lengths = np.zeros((len(paths), topics.size), dtype=np.int64)
    cnt = runs.groupby(["r", "t"]).size()
    lengths[cnt.index.get_level_values(0), cnt.index.get_level_values(1)] = cnt.to_numpy()
    judged = runs.merge(docs[["topic", "doc", "j"]], on=["topic", "doc"])
    run_rel = np.zeros((len(paths), topics.size, n_d, ideal_rel.shape[2]), dtype=bool)
    run_rel[judged["r"], judged["t"], judged["d"]] = ideal_rel[judged["t"], judged["j"]]
    return run_rel, lengths


def load_reference(path: Path):
    ref = pd.read_csv(path, dtype=str)
    assert list(ref.columns) == ["runid", "topic"] + NAMES
    rows = ref[ref["topic"] != "amean"]
    return rows, ref[ref["topic"] == "amean"].iloc[0]


@pytest.fixture(scope="module")
def web2013():
    div = _need_data()
    topics, docs, ideal_rel, ideal_order, n_intents = load_qrels(div / "qrels.txt")
    paths = sorted((div / "runs").glob("div-run-*.run.gz"))
    assert len(paths) == 20
    run_rel, lengths = load_runs(paths, topics, docs, ideal_rel)
    return dict(topics=topics, ideal_rel=ideal_rel, ideal_order=ideal_order, n_intents=n_intents,
                run_rel=run_rel, lengths=lengths, names=[p.name.split(".")[0] for p in paths])


@pytest.fixture(scope="module")
def web2013_values(web2013):
    w = web2013
    return ndeval_measures(w["run_rel"], w["lengths"], w["ideal_rel"], w["ideal_order"],
                           w["n_intents"])


@pytest.mark.parametrize("rule", ["ndeval", "ndeval-c"])
def test_reproduces_ndeval_reference(web2013, web2013_values, rule):
    w, vals = web2013, web2013_values
    t_index = {int(t): k for k, t in enumerate(w["topics"])}
    retrieved = w["lengths"] > 0
    checked = mismatches = 0
    first = None
    for r, name in enumerate(w["names"]):
        rows, amean = load_reference(DIV / "reference" / rule / f"{name}.ndeval")
        # ndeval prints exactly the topics the run retrieves
        assert sorted(int(t) for t in rows["topic"]) == \
            sorted(int(t) for t in w["topics"][retrieved[r]])
        for _, row in rows.iterrows():
            t = t_index[int(row["topic"])]
            for m in NAMES:
                got = "%.6f" % vals[m][r, t]
                checked += 1
                if got != row[m]:
                    mismatches += 1
                    first = first or (name, row["topic"], m, got, row[m])
        complete = rule == "ndeval-c"
        for m in NAMES:
            got = "%.6f" % ndeval_amean(vals[m][r], retrieved[r], complete=complete)
            checked += 1
            if got != amean[m]:
                mismatches += 1
                first = first or (name, "amean", m, got, amean[m])
    assert mismatches == 0, f"{mismatches}/{checked} differ, first {first}"
    assert checked == 20874 + 20 * 21  # 994 run topics x 21 measures + the amean rows


def test_amean_rules_differ_only_for_missing_topics(web2013, web2013_values):
    w, vals = web2013, web2013_values
    full = w["lengths"].all(axis=1)
    a = ndeval_amean(vals["alpha-nDCG@10"], w["lengths"] > 0)
    c = ndeval_amean(vals["alpha-nDCG@10"], w["lengths"] > 0, complete=True)
    assert np.array_equal(a[full], c[full])
    assert (c[~full] < a[~full]).all() and (~full).sum() == 3   # runs 05, 11, 16 omit topics


# ----------------------------------------------------------------------------- a literal port


def ndeval_topic(run, judged, subtopics, alpha=0.5, beta=0.5, depth=20):
    """One topic, written as ndeval's C loops (plain Python), for comparison.

    run: list of docnos in rank order; judged: {docno: set of relevant subtopic ids} for every
    judged docno (empty set = judged nonrelevant); subtopics: number of subtopic columns.
    """
    nrel_sub = [sum(1 for s in judged.values() if j in s) for j in range(subtopics)]
    a = sum(1 for n in nrel_sub if n)

    def disc(i):
        return math.log(2.0) / math.log(i + 2.0)

    def curves(rels):  # computeDCG + computeERR, i over 0..depth-1
        dcg, err = [0.0] * depth, [0.0] * depth
        if a == 0:
            return dcg, err
        gain = [1.0] * subtopics
        for i in range(min(depth, len(rels))):
            score = 0.0
            for j in range(subtopics):
                if j in rels[i]:
                    score += gain[j]
                    gain[j] *= 1.0 - alpha
            dcg[i] = score * disc(i)
            err[i] = score / (i + 1)
        ii_d, ii_e, g = [0.0] * depth, [0.0] * depth, float(a)
        for i in range(depth):
            ii_d[i] = g * disc(i)
            ii_e[i] = g / (i + 1)
            g *= 1.0 - alpha
        for i in range(1, depth):
            dcg[i] += dcg[i - 1]
            err[i] += err[i - 1]
            ii_d[i] += ii_d[i - 1]
            ii_e[i] += ii_e[i - 1]
        for i in range(depth):  # (ndeval starts this loop at 1; rank 1 is never printed)
            dcg[i] /= ii_d[i]
            err[i] /= ii_e[i]
        return dcg, err

    def nrbp(rels):
        if a == 0:
            return 0.0
        gain, decay, total = [1.0] * subtopics, 1.0, 0.0
        for rel in rels:
            score = 0.0
            for j in range(subtopics):
                if j in rel:
                    score += gain[j]
                    gain[j] *= 1.0 - alpha
            total += score * decay
            decay *= beta
        return total * ((1 - (1 - alpha) * beta) / a)

    # idealResult: greedy, ties to the larger docno
    left, ideal, gain = sorted(judged), [], [1.0] * subtopics
    while left:
        where, best = None, 0.0
        for d in left:
            cur = 0.0
            for j in range(subtopics):
                if j in judged[d]:
                    cur += gain[j]
            if where is None or cur > best or (cur == best and d > where):
                where, best = d, cur
        left.remove(where)
        ideal.append(where)
        for j in range(subtopics):
            if j in judged[where]:
                gain[j] *= 1.0 - alpha
    irels = [judged[d] for d in ideal]
    rels = [judged.get(d, set()) for d in run]
    dcg, err = curves(rels)
    idcg, ierr = curves(irels)
    out = {}
    ndcg = [dcg[i] / idcg[i] if dcg[i] else 0.0 for i in range(depth)]
    nerr = [err[i] / ierr[i] if dcg[i] else 0.0 for i in range(depth)]
    n1, n2 = nrbp(rels), nrbp(irels)
    out["NRBP"], out["nNRBP"] = n1, (n1 / n2 if n2 else 0.0)
    # computeMAP
    cnt, tot = [0] * subtopics, [0.0] * subtopics
    for i, rel in enumerate(rels):
        for j in range(subtopics):
            if j in rel:
                cnt[j] += 1
                tot[j] += cnt[j] / (i + 1)
    m = 0.0
    for j in range(subtopics):
        if nrel_sub[j]:
            m += tot[j] / nrel_sub[j]
    out["MAP-IA"] = m / a if a else 0.0
    prec, strec, count, seen = [], [], 0, set()
    for i in range(depth):
        if i < len(rels):
            count += len(rels[i])
            seen |= rels[i]
        prec.append(count / ((i + 1) * a) if a else 0.0)
        strec.append(len(seen) / a if a else 0.0)
    for name, curve in (("ERR-IA", err), ("nERR-IA", nerr), ("alpha-DCG", dcg),
                        ("alpha-nDCG", ndcg), ("P-IA", prec), ("strec", strec)):
        for k in range(1, depth + 1):
            out[f"{name}@{k}"] = curve[k - 1]
    return out


def arrays_from_lists(runs, judged_by_topic, subtopics):
    """Build the contract's arrays from lists: runs[r][t] docnos, judged_by_topic[t] dicts."""
    n_t = len(judged_by_topic)
    docs = [sorted(j) for j in judged_by_topic]
    n_j = max(1, max(len(d) for d in docs))
    ideal_rel = np.zeros((n_t, n_j, subtopics), dtype=bool)
    ideal_order = np.full((n_t, n_j), 10**9, dtype=np.int64)
    for t, ds in enumerate(docs):
        for j, d in enumerate(ds):
            ideal_order[t, j] = len(ds) - 1 - j
            for s in judged_by_topic[t][d]:
                ideal_rel[t, j, s] = True
    n_d = max([1] + [len(x) for run in runs for x in run])
    run_rel = np.zeros((len(runs), n_t, n_d, subtopics), dtype=bool)
    lengths = np.zeros((len(runs), n_t), dtype=np.int64)
    for r, run in enumerate(runs):
        for t, lst in enumerate(run):
            lengths[r, t] = len(lst)
            for d, doc in enumerate(lst):
                for s in judged_by_topic[t].get(doc, ()):
                    run_rel[r, t, d, s] = True
    return run_rel, lengths, ideal_rel, ideal_order, ideal_rel.any(axis=1).sum(axis=1)


# ----------------------------------------------------------------------------- hand cases

# two intents; a -> {0}, b -> {0, 1}, c -> {1}, n judged nonrelevant; run [a, b, c]
HAND_JUDGED = {"a": {0}, "b": {0, 1}, "c": {1}, "n": set()}
D2, D3 = math.log(2) / math.log(3), math.log(2) / math.log(4)


def _hand():
    arrays = arrays_from_lists([[["a", "b", "c"]], [["x", "n", "c"]]], [HAND_JUDGED], 2)
    return ndeval_measures(*arrays, cutoffs=(1, 2, 3, 5))


def test_hand_alpha_dcg_and_ndcg():
    v = _hand()
    run = 1 + 1.5 * D2 + 0.5 * D3            # gains 1; 0.5 + 1; 0.5
    # greedy ideal: b (2), then a and c tie at 0.5 -> larger docno c, then a (0.5)
    ideal = 2 + 0.5 * D2 + 0.5 * D3
    ii = 2 + 1 * D2 + 0.5 * D3               # A (1-alpha)^(r-1)
    assert v["alpha-DCG@3"][0, 0] == pytest.approx(run / ii, abs=1e-15)
    assert v["alpha-nDCG@3"][0, 0] == pytest.approx(run / ideal, abs=1e-15)
    assert v["alpha-nDCG@1"][0, 0] == pytest.approx(1 / 2)
    assert v["alpha-DCG@1"][0, 0] == pytest.approx(1 / 2)      # normalised at rank 1 too
    assert v["alpha-nDCG@5"][0, 0] == pytest.approx(run / ideal)  # flat past the list
    assert v["alpha-DCG@5"][0, 0] == pytest.approx(
        run / (ii + 0.25 * math.log(2) / math.log(5) + 0.125 * math.log(2) / math.log(6)))
    # second run: unjudged x, nonrelevant n, then c at rank 3 with gain 1
    assert v["alpha-nDCG@2"][1, 0] == 0.0 and v["nERR-IA@2"][1, 0] == 0.0
    assert v["alpha-nDCG@3"][1, 0] == pytest.approx(D3 / ideal)


def test_hand_err_nrbp_map_precision_strec():
    v = _hand()
    assert v["ERR-IA@3"][0, 0] == pytest.approx((1 + 1.5 / 2 + 0.5 / 3) / (2 + 1 / 2 + 0.5 / 3))
    assert v["nERR-IA@3"][0, 0] == pytest.approx((1 + 1.5 / 2 + 0.5 / 3) / (2 + 0.5 / 2 + 0.5 / 3))
    nrbp = (1 + 1.5 * 0.5 + 0.5 * 0.25) * (1 - 0.25) / 2
    assert v["NRBP"][0, 0] == pytest.approx(nrbp)
    assert v["nNRBP"][0, 0] == pytest.approx(nrbp / ((2 + 0.5 * 0.5 + 0.5 * 0.25) * 0.75 / 2))
    # intent 0: a@1, b@2 of 2 relevant -> AP 1; intent 1: b@2, c@3 -> (1/2 + 2/3) / 2
    assert v["MAP-IA"][0, 0] == pytest.approx((1 + (0.5 + 2 / 3) / 2) / 2)
    assert v["P-IA@2"][0, 0] == pytest.approx(3 / 4)
    assert v["P-IA@5"][0, 0] == pytest.approx(4 / 10)         # past the list end
    assert v["strec@1"][0, 0] == 0.5 and v["strec@2"][0, 0] == 1.0
    assert v["strec@3"][1, 0] == 0.5 and v["P-IA@3"][1, 0] == pytest.approx(1 / 6)
    assert v["MAP-IA"][1, 0] == pytest.approx((1 / 3) / 2 / 2)


def test_hand_greedy_ties_go_to_larger_docno():
    judged = {"d1": {0}, "d2": {1}, "d3": {0, 1}, "d9": {1}, "z": set()}
    arrays = arrays_from_lists([[[]]], [judged], 2)
    ideal = greedy_ideal(arrays[2], arrays[3], arrays[4], None)
    docs = sorted(judged)
    ranked = [docs[j] for j in ideal.order[0] if j >= 0]
    # d3 (2); then d1 (0.5) vs d2, d9 (0.5) -> largest docno d9; then d1 (0.5) vs d2 (0.25) -> d1
    assert ranked == ["d3", "d9", "d1", "d2"]
    assert ideal.score[0, :4].tolist() == [2.0, 0.5, 0.5, 0.25]
    assert greedy_ideal(arrays[2], arrays[3], arrays[4], 2).order.shape == (1, 2)


def test_intents_without_relevant_documents_are_ignored():
    # column 1 of topic 0 has no relevant document: same values as without the column
    j2 = {"a": {0}, "b": {2}, "n": set()}
    j1 = {"a": {0}, "b": {1}, "n": set()}
    v2 = ndeval_measures(*arrays_from_lists([[["b", "n", "a"]]], [j2], 3))
    v1 = ndeval_measures(*arrays_from_lists([[["b", "n", "a"]]], [j1], 2))
    for m in NAMES:
        assert v1[m][0, 0] == v2[m][0, 0], m


def test_bad_arguments():
    arrays = arrays_from_lists([[["a"]]], [HAND_JUDGED], 2)
    with pytest.raises(ValueError, match="cutoffs"):
        ndeval_measures(*arrays, cutoffs=(30,))
    run_rel, lengths, ideal_rel, ideal_order, n_int = arrays
    with pytest.raises(ValueError, match="n_intents"):
        ndeval_measures(run_rel, lengths, ideal_rel, ideal_order, n_int + 1)


def test_missing_topic_and_topic_without_relevant_documents_give_zeros():
    arrays = arrays_from_lists([[["a", "b"], []], [["a"], ["m"]]],
                               [HAND_JUDGED, {"m": set()}], 2)
    v = ndeval_measures(*arrays)
    for m in NAMES:
        assert v[m][0, 1] == 0.0 and v[m][1, 1] == 0.0, m
    assert np.isfinite(np.stack(list(v.values()))).all()


# ----------------------------------------------------------------------------- properties

DOCS = [f"d{k:02d}" for k in range(12)]


@st.composite
def topic_case(draw, max_intents=4):
    n_sub = draw(st.integers(1, max_intents))
    judged_docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
    judged = {d: set(draw(st.sets(st.integers(0, n_sub - 1), max_size=n_sub)))
              for d in judged_docs}
    pool = DOCS + ["u1", "u2", "u3"]
    runs = draw(st.lists(st.lists(st.sampled_from(pool), max_size=14, unique=True),
                         min_size=1, max_size=3))
    return judged, runs, n_sub


@settings(max_examples=150, deadline=None)
@given(cases=st.lists(topic_case(), min_size=1, max_size=3),
       alpha=st.sampled_from([0.5, 0.0, 0.3, 0.75, 1.0]), beta=st.sampled_from([0.5, 0.2, 0.9]))
def test_matches_literal_port_of_the_c_loops(cases, alpha, beta):
    n_sub = max(c[2] for c in cases)
    n_runs = max(len(c[1]) for c in cases)
    runs = [[c[1][r] if r < len(c[1]) else [] for c in cases] for r in range(n_runs)]
    arrays = arrays_from_lists(runs, [c[0] for c in cases], n_sub)
    cutoffs = (1, 2, 3, 5, 10, 20)
    got = ndeval_measures(*arrays, alpha=alpha, beta=beta, cutoffs=cutoffs)
    assert set(got) == set(ndeval_names(cutoffs))
    for t, (judged, _, _) in enumerate(cases):
        for r in range(n_runs):
            want = ndeval_topic(runs[r][t], judged, n_sub, alpha, beta)
            for m in got:
                assert got[m][r, t] == want[m], (m, r, t)  # bit for bit


@settings(max_examples=150, deadline=None)
@given(cases=st.lists(topic_case(max_intents=6), min_size=1, max_size=4))
def test_ideal_ranking_scores_one_and_values_are_bounded(cases):
    judged_by_topic = [c[0] for c in cases]
    n_sub = max(c[2] for c in cases)
    base = arrays_from_lists([[c[1][0] for c in cases]], judged_by_topic, n_sub)
    _, _, ideal_rel, ideal_order, n_int = base
    ideal = greedy_ideal(ideal_rel, ideal_order, n_int, None)
    # a run that is ndeval's ideal ranking (relevant documents in greedy order)
    docs = [sorted(j) for j in judged_by_topic]
    ideal_runs = [[[docs[t][j] for j in ideal.order[t] if j >= 0] for t in range(len(cases))]]
    runs = ideal_runs + [[c[1][0] for c in cases]]
    v = ndeval_measures(*arrays_from_lists(runs, judged_by_topic, n_sub))
    has_rel = n_int > 0
    for k in NDEVAL_CUTOFFS:
        for m in (f"alpha-nDCG@{k}", f"nERR-IA@{k}"):
            assert np.all(v[m][0, has_rel] == 1.0), m
    assert np.all(v["nNRBP"][0, has_rel] == 1.0)
    assert np.all(v["strec@20"][0, has_rel] == np.minimum(1.0, v["strec@20"][0, has_rel]))
    for m in NAMES:
        assert np.all(v[m] >= 0.0), m
        if not m.startswith(("alpha-nDCG", "nERR-IA", "nNRBP")):  # greedy ideal is not optimal
            assert np.all(v[m] <= 1.0 + 1e-12), m


def _binary_ndcg(rels, n_rel, k):
    disc = [math.log(2) / math.log(i + 2) for i in range(k)]
    dcg = sum(disc[i] for i in range(min(k, len(rels))) if rels[i])
    idcg = sum(disc[i] for i in range(min(k, n_rel)))
    return dcg / idcg if idcg else 0.0


@settings(max_examples=150, deadline=None)
@given(judged=st.dictionaries(st.sampled_from(DOCS), st.booleans(), min_size=1),
       run=st.lists(st.sampled_from(DOCS + ["u1"]), max_size=25, unique=True),
       alpha=st.sampled_from([0.0, 0.5, 0.25]))
def test_single_intent_is_discounted_binary_ndcg(judged, run, alpha):
    sets = {d: ({0} if r else set()) for d, r in judged.items()}
    v = ndeval_measures(*arrays_from_lists([[run]], [sets], 1), alpha=alpha)
    rels = [judged.get(d, False) for d in run]
    n_rel = sum(judged.values())
    for k in NDEVAL_CUTOFFS:
        if alpha == 0.0:  # no redundancy penalty: exactly binary nDCG, discount log(2)/log(r+1)
            assert v[f"alpha-nDCG@{k}"][0, 0] == pytest.approx(_binary_ndcg(rels, n_rel, k))
        else:  # the m-th relevant document gains (1-alpha)^(m-1), in run and ideal alike
            disc = [math.log(2) / math.log(i + 2) for i in range(k)]
            pos = [i for i in range(min(k, len(rels))) if rels[i]]
            dcg = sum((1 - alpha) ** m * disc[i] for m, i in enumerate(pos))
            idcg = sum((1 - alpha) ** m * disc[m] for m in range(min(k, n_rel)))
            want = dcg / idcg if dcg else 0.0
            assert v[f"alpha-nDCG@{k}"][0, 0] == pytest.approx(want)
        assert v[f"alpha-nDCG@{k}"][0, 0] <= 1.0 + 1e-12


def test_greedy_ideal_is_not_optimal():
    # ndeval's greedy ideal (d4, d3, d1, d2) is beaten by d1, d3, d2, d0, d4 on nERR-IA and nNRBP
    judged = {"d0": set(), "d1": {1, 2}, "d2": {2}, "d3": {0, 3}, "d4": {2, 3}}
    run = ["d1", "d3", "d2", "d0", "d4"]
    v = ndeval_measures(*arrays_from_lists([[run]], [judged], 4))
    want = ndeval_topic(run, judged, 4)
    assert v["nERR-IA@5"][0, 0] == pytest.approx(want["nERR-IA@5"]) and want["nERR-IA@5"] > 1.001
    assert v["nNRBP"][0, 0] == pytest.approx(want["nNRBP"]) and want["nNRBP"] > 1.004
    assert v["ERR-IA@5"][0, 0] <= 1.0 and v["NRBP"][0, 0] <= 1.0


@pytest.mark.parametrize("beta", [0.5, 0.9, 0.1])
def test_ideal_nrbp_truncation_is_exact(web2013, beta):
    from metaeval.metrics.ndeval import _nrbp, _nrbp_ranks
    w = web2013
    args = (w["ideal_rel"], w["ideal_order"], w["n_intents"])
    full = greedy_ideal(*args, None).score
    k = max(20, _nrbp_ranks(int(w["n_intents"].max()), beta, full.shape[1]))
    part = greedy_ideal(*args, k).score
    assert np.array_equal(full[:, :k], part)
    if beta < 0.9:
        assert k < full.shape[1] // 4          # the point: far fewer greedy steps
    assert np.array_equal(_nrbp(full, w["n_intents"], 0.5, beta),
                          _nrbp(part, w["n_intents"], 0.5, beta))
