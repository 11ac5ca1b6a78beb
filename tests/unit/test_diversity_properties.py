"""Properties of the diversity measures (hypothesis): single intent => D-measure = plain
measure; one item per class => EC-measure = plain measure; I-rec monotone in the cutoff; D#
between its parts; alpha-nDCG of ndeval's greedy ideal ranking = 1."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metaeval.collection import PAD, Collection
from metaeval.collection import DiversityCollection
from metaeval.metrics import EvalContext, evaluate
from metaeval.metrics.diversity import D_BASES, DSHARP_BASES
from metaeval.metrics.ndeval import greedy_ideal
from metaeval.metrics.registry import REGISTRY

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CUTOFFS = (1, 3, 10)


def _names(prefix: str, bases) -> list[str]:
    out = []
    for b in bases:
        cut = REGISTRY[b].cutoff
        if cut != "required":
            out.append(prefix + b)
        if cut != "forbidden":
            out += [f"{prefix}{b}@{l}" for l in CUTOFFS]
    return out


def build(judged, probs, lists, H, depth=None) -> DiversityCollection:
    """judged[t]: (J_t, I) int levels; probs[t]: (I,); lists[r][t]: doc indices (-1 unjudged)."""
    T, I = len(judged), judged[0].shape[1]
    R = len(lists)
    J = max(j.shape[0] for j in judged)
    D = depth or max(1, max(len(l) for run in lists for l in run))
    jl = np.full((T, J, I), PAD, np.int8)
    for t, j in enumerate(judged):
        jl[t, :len(j)] = j
    di = np.full((R, T, D), PAD, np.int32)
    for r, run in enumerate(lists):
        for t, l in enumerate(run):
            di[r, t, :len(l)] = l
    lengths = (di != PAD).sum(axis=2).astype(np.int64)
    plain = jl.max(axis=2)
    lv = np.where(di >= 0, plain[np.arange(T)[None, :, None], np.maximum(di, 0)], di).astype(np.int8)
    counts = np.stack([np.bincount(j.max(axis=1), minlength=H + 1) for j in judged])
    n_judged = np.array([len(j) for j in judged], np.int64)
    order = np.where(np.arange(J)[None, :] < n_judged[:, None],
                     n_judged[:, None] - 1 - np.arange(J)[None, :], 10 ** 6).astype(np.int32)
    return DiversityCollection(
        topics=tuple(f"t{t}" for t in range(T)), runs=tuple(f"r{r}" for r in range(R)), levels=lv,
        lengths=lengths, level_counts=counts, doc_index=di, judged_levels=jl, judged_order=order,
        n_judged=n_judged, n_intents=np.array([(j > 0).any(axis=0).sum() for j in judged], np.int64),
        probs=np.array(probs, np.float64), intent_ids=tuple(tuple(map(str, range(I))) for _ in judged))


@st.composite
def diversity(draw, I=None, top_level=False):
    H = draw(st.integers(1, 3))
    I = I or draw(st.integers(1, 4))
    T = draw(st.integers(1, 3))
    R = draw(st.integers(1, 3))
    judged, probs, lists = [], [], [[] for _ in range(R)]
    for _ in range(T):
        J = draw(st.integers(1, 10))
        lv = np.array(draw(st.lists(st.lists(st.integers(0, H), min_size=I, max_size=I),
                                    min_size=J, max_size=J)), np.int64)
        lv[0, 0] = H if top_level else max(lv[0, 0], 1)            # a relevant document
        judged.append(lv)
        w = np.array(draw(st.lists(st.integers(1, 5), min_size=I, max_size=I)), float)
        probs.append(w / w.sum())
        for r in range(R):
            docs = draw(st.lists(st.integers(-1, J - 1), max_size=14))
            seen, l = set(), []
            for d in docs:                                          # judged docs never repeat
                if d < 0 or d not in seen:
                    l.append(d)
                    seen.add(d)
            lists[r].append(l)
    return judged, probs, lists, H


@SETTINGS
@given(diversity(I=1, top_level=True))
def test_single_intent_d_measures_equal_plain(data):
    judged, probs, lists, H = data
    c = build(judged, [[1.0]] * len(judged), lists, H)
    gains = tuple(float(g) for g in range(1, H + 1))
    d = evaluate(EvalContext(c, gains), _names("D-", D_BASES))
    plain = Collection(c.topics, c.runs, c.levels, c.lengths, c.level_counts)
    p = evaluate(EvalContext(plain, gains), _names("", D_BASES))
    dp = evaluate(EvalContext(plain, gains), _names("D-", D_BASES))      # a plain collection: one intent
    for name, v in p.items():
        assert np.array_equal(d["D-" + name], v), name
        assert np.array_equal(dp["D-" + name], v), name
    # the intent-aware measures agree on the two forms as well
    nd = [f"{b}@{k}" for b in ("alpha-nDCG", "ERR-IA", "strec") for k in (5, 10)] + ["NRBP", "MAP-IA"]
    a, b = evaluate(c, nd + ["I-rec@3"]), evaluate(plain, nd + ["I-rec@3", "Hit@3"])
    for name in nd:
        assert np.allclose(a[name], b[name], rtol=0, atol=1e-15), name
    assert np.array_equal(a["I-rec@3"], b["Hit@3"]) and np.array_equal(b["I-rec@3"], b["Hit@3"])


@SETTINGS
@given(diversity())
def test_irec_monotone_and_dsharp_between_parts(data):
    judged, probs, lists, H = data
    c = build(judged, probs, lists, H)
    ctx = EvalContext(c)
    ls = list(range(1, 16))
    ir = evaluate(ctx, [f"I-rec@{l}" for l in ls])
    seq = np.stack([ir[f"I-rec@{l}"] for l in ls])
    assert (np.diff(seq, axis=0) >= 0).all() and (seq >= 0).all() and (seq <= 1).all()
    names = [f"D#-{b}@{l}" for b in DSHARP_BASES for l in CUTOFFS]
    v = evaluate(ctx, names + [f"D-{b}@{l}" for b in DSHARP_BASES for l in CUTOFFS]
                 + [f"D#-MSnDCG(gamma=0.8)@{l}" for l in CUTOFFS])
    for n in names:
        base, l = n[3:].rsplit("@", 1)
        i, d = ir[f"I-rec@{l}"], v[f"D-{base}@{l}"]
        lo, hi = np.minimum(i, d), np.maximum(i, d)
        assert (v[n] >= lo - 1e-15).all() and (v[n] <= hi + 1e-15).all(), n
    for l in CUTOFFS:
        assert np.allclose(v[f"D#-MSnDCG(gamma=0.8)@{l}"], 0.8 * ir[f"I-rec@{l}"] + 0.2 * v[f"D-MSnDCG@{l}"])


@SETTINGS
@given(diversity())
def test_alpha_ndcg_of_the_greedy_ideal_is_one(data):
    judged, probs, lists, H = data
    c0 = build(judged, probs, lists, H)
    ideal = greedy_ideal(c0.judged_levels > 0, c0.judged_order, c0.n_intents, None)
    ideal_lists = [[[int(j) for j in row if j >= 0] for row in ideal.order]]
    c = build(judged, probs, ideal_lists, H, depth=20)
    v = evaluate(EvalContext(c), [f"alpha-nDCG@{k}" for k in (5, 10, 20)] + ["nERR-IA@20", "strec@20"])
    for k in (5, 10, 20):
        assert np.allclose(v[f"alpha-nDCG@{k}"], 1.0, rtol=0, atol=1e-12)
    assert np.allclose(v["nERR-IA@20"], 1.0, atol=1e-12)
    # the greedy ideal lists every relevant document: every intent is covered
    assert np.allclose(v["strec@20"], 1.0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=diversity(I=1))
def test_one_item_per_class_ec_equals_plain(tmp_path_factory, data):
    from metaeval.io import load_collection
    from metaeval.io.ec import load_ec_collection
    from metaeval.metrics import ntcir_measures

    judged, _, lists, H = data
    d = tmp_path_factory.mktemp("ec")
    q, e, run = [], [], []
    for t, lv in enumerate(judged):
        for j, l in enumerate(lv[:, 0]):
            q.append(f"t{t} d{j} L{l}\n")
            e.append(f"t{t} d{j} L{l} class{j}\n")
    for t, l in enumerate(lists[0]):
        for k, doc in enumerate(l):
            run.append(f"t{t} Q0 {'u' + str(k) if doc < 0 else 'd' + str(doc)} {k + 1} {100 - k} x\n")
    (d / "q").write_text("".join(q))
    (d / "ec").write_text("".join(e))
    (d / "run").write_text("".join(run) or "t0 Q0 zz 1 1 x\n")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = load_collection(str(d / "q"), [str(d / "run")])
        ec = load_ec_collection(str(d / "ec"), [str(d / "run")])
    assert np.array_equal(plain.levels, ec.levels) and np.array_equal(plain.level_counts, ec.level_counts)
    ms = ntcir_measures((1, 5, 10))
    a, b = evaluate(plain, ms), evaluate(ec, ms)
    for k in a:
        assert np.array_equal(a[k], b[k]), k
