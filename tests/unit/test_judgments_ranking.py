"""Ranking and decision agreement across qrels sets (issue 28, sections 3-4): tau, tau_b, tau_ap
and RBO equal the rank-correlation stage's functions on the same means, tau_top and the rank
changes a literal loop, the interval the rank-correlation stage's bootstrap; decision agreement a
literal loop of ``metaeval.compare`` per set on DL19."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.meta import rankcorr
from metaeval.meta.judgments_ranking import (competition_ranks, decision_agreement, discpower_by_set,
                                             ranking_tables)

FIRST = ["andrew-parry", "ferdinand-schlatt", "guglielmo-faggioli", "saber-zerhoudi"]
SECOND = ["eugene-yang", "froebe", "harry-scells", "sean-macavaney"]


def _random_scores(seed, n_sets=3, metrics=("m1", "m2"), R=9, T=12, drop=True):
    rng = np.random.default_rng(seed)
    runs = [f"r{i}" for i in range(R)]
    out = {}
    for s in range(n_sets):
        topics = [f"t{i}" for i in range(T)]
        if drop and s:
            topics = topics[s:]                        # sets judge different topics
        out[f"s{s}"] = {m: pd.DataFrame(np.round(rng.random((len(topics), R)), 2), index=topics, columns=runs)
                        for m in metrics}
    return out


def _mean(df):
    """Run means as rankcorr takes them: numpy's sums row after row (a C-ordered matrix)."""
    return np.ascontiguousarray(df.to_numpy(dtype=float)).mean(axis=0)


def _literal(scores, reference, metrics, topics, top_k, rbo_p=0.9):
    rows = []
    for m in metrics:
        R = scores[reference][m]
        for s, mats in scores.items():
            if s == reference:
                continue
            X = mats[m]
            if topics == "common":
                common = [t for t in R.index if t in set(X.index)]
                a, b = _mean(R.loc[common]), _mean(X.loc[common])
                nt = len(common)
            else:
                a, b = _mean(R), _mean(X)
                nt = len(X)
            ra, rb = competition_ranks(a), competition_ranks(b)
            top = np.flatnonzero(ra <= top_k)
            rows.append(dict(metric=m, qrels=s, topics=nt, tau=rankcorr.tau_a(a, b), tau_b=rankcorr.tau_b(a, b),
                             tau_ap=rankcorr.tau_ap(a, b), rbo=rankcorr.rbo(a, b, rbo_p),
                             tau_top=rankcorr.tau_a(a[top], b[top]) if len(top) >= 2 else np.nan,
                             max_rank_change=int(np.abs(ra - rb).max())))
    return pd.DataFrame(rows)


@pytest.mark.parametrize("topics", ["common", "own"])
@pytest.mark.parametrize("seed", [0, 1])
def test_coefficients_equal_rankcorr_functions(seed, topics):
    sc = _random_scores(seed)
    out = ranking_tables(sc, "s0", ["m1", "m2"], topics=topics, B=50, seed=3, top_k=4)
    ra = out["ranking_agreement"]
    lit = _literal(sc, "s0", ["m1", "m2"], topics, 4)
    assert len(ra) == len(lit) == 4
    for c in ("topics", "tau", "tau_b", "tau_ap", "rbo", "tau_top", "max_rank_change"):
        np.testing.assert_array_equal(ra[c].to_numpy(), lit[c].to_numpy(), err_msg=c)
    assert (ra["runs"] == 9).all() and (ra["top_k"] == 4).all() and (ra["reference"] == "s0").all()
    assert ((ra["tau_ci_low"] <= ra["tau"] + 1e-12) | ra["tau_ci_low"].isna()).all()


def _scipy_bca(sc, m, ref, other, B, seed, paired):
    """scipy.stats.bootstrap(method='BCa') of tau-a on the index draws of metaeval's samples
    (scipy's draw of the resample indices replaced by ours; its BCa computation untouched)."""
    import scipy.stats as ss
    import scipy.stats._resampling as R

    from metaeval.meta.judgments_ranking import _tau_a
    from metaeval.meta.samples import BootstrapSamples

    X, Y = sc[ref][m].to_numpy(float), sc[other][m].to_numpy(float)
    draws = [BootstrapSamples.from_seed(seed, len(X), B, "paired").indices,
             BootstrapSamples.from_seed(seed, len(Y), B, "paired").indices]

    def tau(ix, iy):
        return _tau_a(np.round(X[ix].mean(0), 12), np.round(Y[iy].mean(0), 12))

    def stat(*idx, axis=-1):
        lead = np.broadcast_shapes(*(i.shape[:-1] for i in idx))
        flat = [np.broadcast_to(i, lead + i.shape[-1:]).reshape(-1, i.shape[-1]) for i in idx]
        vals = [tau(a, a) if paired else tau(a, b) for a, b in zip(flat[0], flat[-1])]
        return np.array(vals).reshape(lead)

    calls = iter(draws)
    orig = R.rng_integers
    R.rng_integers = lambda *a, **k: next(calls)
    try:
        data = (np.arange(len(X)),) if paired else (np.arange(len(X)), np.arange(len(Y)))
        res = ss.bootstrap(data, stat, n_resamples=B, method="BCa", vectorized=True, paired=False,
                           rng=np.random.default_rng(0))
    finally:
        R.rng_integers = orig
    return res.confidence_interval


@pytest.mark.parametrize("topics", ["common", "own"])
def test_interval_is_scipys_bca(topics):
    """The tau interval is scipy's BCa (Efron 1987) on the same bootstrap draws, paired on common
    topics, two samples on each set's own topics."""
    sc = _random_scores(5, n_sets=2, drop=topics == "own", T=14)
    out = ranking_tables(sc, "s0", ["m1"], B=200, seed=11, topics=topics)["ranking_agreement"]
    ci = _scipy_bca(sc, "m1", "s0", "s1", 200, 11, paired=topics == "common")
    np.testing.assert_allclose([out["tau_ci_low"][0], out["tau_ci_high"][0]], [ci.low, ci.high], rtol=0, atol=1e-12)
    assert out["tau_ci_low"][0] <= out["tau"][0] <= out["tau_ci_high"][0]


def test_run_ranks_literal():
    sc = _random_scores(2)
    rr = ranking_tables(sc, "s0", ["m1", "m2"], B=10)["run_ranks"]
    ref = rr[(rr["qrels"] == "s0") & (rr["metric"] == "m1")]
    means = _mean(sc["s0"]["m1"])
    np.testing.assert_array_equal(ref["mean"], means)
    assert (ref["rank"].to_numpy() == [1 + (means > x).sum() for x in means]).all()
    s1 = rr[(rr["qrels"] == "s1") & (rr["metric"] == "m1")]
    common = sc["s1"]["m1"].index
    a = _mean(sc["s0"]["m1"].loc[common])
    b = _mean(sc["s1"]["m1"])
    np.testing.assert_array_equal(s1["mean"], b)
    np.testing.assert_array_equal(s1["rank_change"], competition_ranks(a) - competition_ranks(b))


def test_no_common_topic_is_an_error():
    sc = _random_scores(0, n_sets=2, drop=False)
    sc["s1"] = {m: df.set_axis([f"x{i}" for i in range(len(df))]) for m, df in sc["s1"].items()}
    with pytest.raises(ValueError, match="s0 and s1 have no topic in common"):
        ranking_tables(sc, "s0", ["m1"], B=10)
    ranking_tables(sc, "s0", ["m1"], B=10, topics="own")        # own topics: comparable


def _dl19_scores(shared_data):
    from metaeval.io.judgments import label_sets, read_sets, set_collection
    from metaeval.metrics import compute_matrices

    d = shared_data / "trec-dl19-passage"
    r = d / "reannotation"
    js = read_sets({"nist": str(d / "qrels.txt"), "first": [str(r / f"{n}.txt") for n in FIRST],
                    "second": [str(r / f"{n}.txt") for n in SECOND]})
    lr = label_sets(js, str(d / "runs"))
    scores = {}
    for s, name in enumerate(js.names):
        c = set_collection(js, s, lr)
        v = compute_matrices(c, ["nDCG@10", "AP"])
        scores[name] = {m: pd.DataFrame(x.T, index=list(c.topics), columns=list(c.runs)) for m, x in v.items()}
    return scores


@pytest.mark.shared_data
def test_dl19_decisions_equal_a_loop_of_compare(shared_data):
    import metaeval

    scores = _dl19_scores(shared_data)
    da = decision_agreement(scores, "nist", ["nDCG@10", "AP"])
    for rec in da.to_dict("records"):
        m, s = rec["metric"], rec["qrels"]
        common = [t for t in scores["nist"][m].index if t in set(scores[s][m].index)]
        ref = metaeval.compare({m: scores["nist"][m].loc[common]})
        oth = metaeval.compare({m: scores[s][m].loc[common]})
        dr = np.where(ref["significant"], np.sign(ref["diff"]), 0)
        dq = np.where(oth["significant"], np.sign(oth["diff"]), 0)
        assert rec["pairs"] == len(ref) == 37 * 36 // 2
        assert rec["significant_reference"] == (dr != 0).sum()
        assert rec["significant_qrels"] == (dq != 0).sum()
        assert rec["same_decision"] == (dr == dq).sum()
        assert rec["reversed"] == (dr * dq < 0).sum()
        assert rec["agreement"] == (dr == dq).sum() / len(dr)
    # and with another test and correction
    da2 = decision_agreement(scores, "nist", ["AP"], test="wilcoxon", correction="none")
    rec = da2.iloc[0]
    common = [t for t in scores["nist"]["AP"].index if t in set(scores[rec["qrels"]]["AP"].index)]
    ref = metaeval.compare({"AP": scores["nist"]["AP"].loc[common]}, test="wilcoxon", correction="none")
    assert rec["significant_reference"] == ref["significant"].sum()


@pytest.mark.shared_data
def test_dl19_ranking_equals_rankcorr(shared_data):
    scores = _dl19_scores(shared_data)
    out = ranking_tables(scores, "nist", ["nDCG@10", "AP"], B=100, top_k=10)
    lit = _literal(scores, "nist", ["nDCG@10", "AP"], "common", 10)
    for c in ("topics", "tau", "tau_b", "tau_ap", "rbo", "tau_top", "max_rank_change"):
        np.testing.assert_array_equal(out["ranking_agreement"][c].to_numpy(), lit[c].to_numpy(), err_msg=c)
    dp = discpower_by_set(scores, ["AP"], B=200)
    assert list(dp["qrels"].unique()) == ["nist", "first", "second"]


def test_rbo_persistence_is_passed():
    sc = _random_scores(4)
    ra = ranking_tables(sc, "s0", ["m1"], B=10, rbo_p=0.7)["ranking_agreement"]
    lit = _literal(sc, "s0", ["m1"], "common", 10, rbo_p=0.7)
    np.testing.assert_array_equal(ra["rbo"].to_numpy(), lit["rbo"].to_numpy())
