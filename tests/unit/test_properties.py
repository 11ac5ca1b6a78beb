"""Properties of the measures on random rankings and qrels (hypothesis).

Each example is a small collection (1-3 runs x 1-3 topics, lists of 0-14 documents drawn without
replacement from the topic's judged documents plus unjudged ones), so the vectorised code is
exercised across runs/topics of different lengths.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metaeval.metrics import REGISTRY, evaluate, parse_measure
from metaeval.metrics.registry import ALIASES
from metric_helpers import make_collection

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CUTS = (1, 3, 10)


@st.composite
def collections(draw, H=None, min_rel=1, n_runs=(1, 3), n_topics=(1, 3), unjudged=True):
    H = H or draw(st.integers(1, 3))
    T = draw(st.integers(*n_topics))
    R = draw(st.integers(*n_runs))
    counts = []
    for _ in range(T):
        c = [draw(st.integers(0, 4))] + [draw(st.integers(0, 3)) for _ in range(H)]
        if sum(c[1:]) < min_rel:
            c[draw(st.integers(1, H))] += min_rel
        counts.append(c)
    lists = []
    for _ in range(R):
        run = []
        for c in counts:
            pool = [lv for lv, n in enumerate(c) for _ in range(n)]
            pool += [-1] * (draw(st.integers(0, 5)) if unjudged else 0)
            perm = draw(st.permutations(pool))
            run.append(perm[:draw(st.integers(0, len(perm)))])
        lists.append(run)
    gains = tuple(sorted(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0, 10.0]),
                                       min_size=H, max_size=H))))
    return make_collection(lists, counts), gains


def _all_measures(condensed=False):
    out = []
    for base, d in REGISTRY.items():
        if base.startswith(("kishida", "cwl.")):   # C/W/L: depth 1000 always; tests/conformance/test_cwl.py
            continue
        if ALIASES.get(base, (None, ""))[1] == "any":       # PDoc: another name of Prec
            continue
        if base.startswith(("bpref", "rpref")) and not condensed:
            continue
        if d.cutoff == "forbidden":
            out.append(base)
        elif d.cutoff == "optional":
            out += [base] + [f"{base}@{l}" for l in CUTS]
        else:
            out += [f"{base}@{l}" for l in CUTS]
    return out


@SETTINGS
@given(collections())
def test_bounded_and_finite(cg):
    coll, gains = cg
    for condensed in (False, True):
        c = coll.condensed() if condensed else coll
        vals = evaluate(c, _all_measures(condensed), gains)
        for name, v in vals.items():
            assert np.isfinite(v).all(), name
            if parse_measure(name).definition.bounded:
                assert (v >= -1e-12).all() and (v <= 1 + 1e-12).all(), (name, v)
            else:
                assert (v >= -1e-12).all() or name.startswith(("bpref_N", "rpref_N", "trec.utility")), (name, v)


@SETTINGS
@given(collections())
def test_vectorised_equals_per_list(cg):
    """Evaluating all runs/topics at once equals evaluating each list as its own collection."""
    coll, gains = cg
    ms = _all_measures()
    whole = evaluate(coll, ms, gains)
    for r in range(len(coll.runs)):
        for t in range(len(coll.topics)):
            n = int(coll.lengths[r, t])
            single = make_collection([[coll.levels[r, t, :n].tolist()]], [coll.level_counts[t]])
            one = evaluate(single, ms, gains)
            for m in ms:
                assert one[m][0, 0] == pytest.approx(whole[m][r, t], abs=1e-12), m


@SETTINGS
@given(collections())
def test_p_plus_equals_p_equals_o_when_rp_is_r1(cg):
    from metaeval.metrics import ntcir_header
    coll, gains = cg
    h = ntcir_header(coll)
    v = evaluate(coll, ["P-plus", "P-measure", "O-measure"], gains)
    same = h["r1"] == h["rp"]
    assert np.array_equal(v["P-plus"][same], v["P-measure"][same])
    assert np.array_equal(v["P-measure"][same], v["O-measure"][same])
    # P-measure >= O-measure is not guaranteed, but rp >= r1 always holds
    assert (h["rp"] >= h["r1"]).all()


@SETTINGS
@given(collections())
def test_q_measure_with_beta_0_is_ap(cg):
    """Sakai (2007b): Q-measure reduces to AP when the gains vanish from the blended ratio (beta = 0)."""
    coll, gains = cg
    v = evaluate(coll, ["AP", "Q-measure(beta=0)", "AP@3", "Q(beta=0)@3", "NCUrb,P",
                        "NCUrb,BR(beta=0)", "NCUgu,P", "NCUgu,BR(beta=0)"], gains)
    assert np.array_equal(v["AP"], v["Q-measure(beta=0)"])
    assert np.array_equal(v["AP@3"], v["Q(beta=0)@3"])
    assert np.array_equal(v["NCUrb,P"], v["NCUrb,BR(beta=0)"])
    assert np.array_equal(v["NCUgu,P"], v["NCUgu,BR(beta=0)"])


@SETTINGS
@given(collections(H=1))
def test_binary_relevance_identities(cg):
    """Binary relevance (Sakai 2007a, Sec. 3.2; Sakai 2007b, Sec. 3): O-measure = RR iff r1 <= R (else >);
    Q-measure = AP iff no relevant document is retrieved below rank R (else >)."""
    coll, _ = cg
    v = evaluate(coll, ["RR", "O-measure", "AP", "Q-measure"], (1.0,))
    from metaeval.metrics import ntcir_header
    r1 = ntcir_header(coll)["r1"]
    R = coll.n_relevant[None, :]
    found = r1 > 0
    eq = found & (r1 <= R)
    assert np.allclose(v["O-measure"][eq], v["RR"][eq], rtol=0, atol=1e-15)
    assert (v["O-measure"][found & ~eq] > v["RR"][found & ~eq]).all()
    rel = coll.levels >= 1
    ranks = np.arange(1, coll.depth + 1)
    below = (rel & (ranks[None, None, :] > R[..., None])).any(axis=2)
    assert np.allclose(v["Q-measure"][~below], v["AP"][~below], rtol=0, atol=1e-12)
    assert (v["Q-measure"][below] > v["AP"][below]).all()


PERFECT_ONE = ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUgu,P", "NCUgu,BR",
               "NCUrb,P", "NCUrb,BR", "NWRR", "R-prec"] + [
    f"{b}@{l}" for l in CUTS for b in ("AP", "Q", "nDCG", "MSnDCG", "nRBP", "nERR", "nEBR",
                                       "niRBU", "Hit", "nCG")]


@SETTINGS
@given(collections(n_runs=(1, 1)), st.integers(0, 4))
def test_perfect_ranking_scores_one(cg, tail):
    """The ideal list (all relevant documents, highest level first; then anything) scores 1.
    Not on RBP/ERR/EBR/iRBU (not normalised), NCUrb,IE, nor NTCIREVAL's NCUrb,*@l (divided by
    min(l, R), not by the sum of the stopping probabilities)."""
    coll, gains = cg
    lists = []
    for t in range(len(coll.topics)):
        c = coll.level_counts[t]
        ideal = [lv for lv in range(len(c) - 1, 0, -1) for _ in range(c[lv])]
        lists.append(ideal + [0] * min(tail, c[0]) + [-1] * tail)
    perfect = make_collection([lists], coll.level_counts)
    v = evaluate(perfect, PERFECT_ONE + ["bpref", "bpref_R", "bpref_relative"], gains)
    for name, x in v.items():
        if name.startswith("bpref"):
            continue
        assert np.allclose(x, 1.0, rtol=0, atol=1e-12), (name, x)
    vc = evaluate(perfect.condensed(), ["bpref", "bpref_R"], gains)
    assert np.allclose(vc["bpref"], 1.0) and np.allclose(vc["bpref_R"], 1.0)


def test_no_relevant_document_gives_finite_zeros():
    """R = 0 (excluded upstream) and empty lists: finite values, never NaN (all 0)."""
    coll = make_collection([[[0, -1, 0], []], [[], [1, 0]]], [[2, 0, 0], [1, 1, 0]])
    vals = evaluate(coll, _all_measures(condensed=True), (1.0, 2.0))
    for name, v in vals.items():
        assert np.isfinite(v).all(), name
        if name.startswith("Judged"):              # judged documents, relevant or not
            continue
        if name.startswith("trec."):
            continue        # trec_eval's values: counts (num_ret, num_rel, utility, unj...) need not be 0
        assert (v[:, 0] == 0).all(), name          # topic with R = 0
        assert v[0, 1] == 0 or name.startswith(("bpref_N", "rpref_N")), name   # empty list
