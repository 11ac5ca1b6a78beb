"""The README's DL19 judgments numbers ("Who judged?") are what the command computes: its example
rerun (without nDCG@1000, which the README does not quote, and without discriminative power, which
it does not quote either), every quoted number formatted from the tables and found in the README."""

from __future__ import annotations

import warnings

import pytest

from conftest import ROOT

FIRST = ["andrew-parry", "ferdinand-schlatt", "guglielmo-faggioli", "saber-zerhoudi"]
SECOND = ["eugene-yang", "froebe", "harry-scells", "sean-macavaney"]


def _autojudge_module(name: str):
    """autojudge-evaluate 1.1.0's module ``name`` loaded from its file alone (the package's import
    reads NLTK data and costs seconds; these modules need numpy and scipy only)."""
    import importlib.util

    spec = importlib.util.find_spec("autojudge_evaluate")
    path = spec.submodule_search_locations[0] + f"/{name}.py"
    mod_spec = importlib.util.spec_from_file_location(f"_aje_{name}", path)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    return mod


@pytest.mark.shared_data
def test_readme_judgments_numbers_are_the_commands(shared_data, monkeypatch):
    """... and, on this real data, the correlations equal autojudge-evaluate 1.1.0's (its functions;
    ``correlation`` is pandas' ``DataFrame.corr``, as there) and the label overlap scikit-learn's."""
    import pandas as pd

    import metaeval.meta.judgments_ranking as JR
    from metaeval.meta.judgments_run import run_judgments

    monkeypatch.setattr(JR, "discpower_by_set", lambda *a, **k: pd.DataFrame())
    d = shared_data / "trec-dl19-passage"
    r = d / "reannotation"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run_judgments({"nist": [str(d / "qrels.txt")], "first": [str(r / f"{n}.txt") for n in FIRST],
                             "second": [str(r / f"{n}.txt") for n in SECOND]}, "nist", [str(d / "runs")],
                            fill={"hybrid": "first+nist"},
                            metrics=["nDCG@10", "AP(rel=2)", "RR(rel=2)", "bpref(rel=2)"], B=1000, seed=20190701)
    la = res.tables["label_agreement"].set_index(["qrels_a", "qrels_b"])
    ra = res.tables["ranking_agreement"].set_index(["metric", "qrels"])
    da = res.tables["decision_agreement"]
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    nd = "trec.ndcg_cut@10"

    def f(x):
        return f"{x:.3f}"

    def pair(m, c):
        return f"{f(ra.loc[(m, 'first'), c])} / {f(ra.loc[(m, 'second'), c])}"

    nf, ns, fs = la.loc[("nist", "first")], la.loc[("nist", "second")], la.loc[("first", "second")]
    want = [
        f"kappa is {f(nf.kappa)} for the first members ({f(nf.kappa_quadratic)} with quadratic weights, "
        f"{f(nf.kappa_binary)} on relevance at REL >= 2) and {f(ns.kappa)} for the second "
        f"({f(ns.kappa_quadratic)}, {f(ns.kappa_binary)})",
        f"(kappa {f(fs.kappa)}, quadratic {f(fs.kappa_quadratic)})",
        f"NIST agrees on {f(nf.precision)} (precision), and they find {f(nf.recall)} of NIST's (recall)",
        f"is {pair(nd, 'tau')} (first / second) for nDCG@10, {pair('AP(rel=2)', 'tau')} for AP(rel=2), "
        f"{pair('RR(rel=2)', 'tau')} for RR(rel=2) and {pair('bpref(rel=2)', 'tau')} for bpref(rel=2)",
        f"the largest rank change of a run is {ra.loc[(nd, 'first'), 'max_rank_change']} / "
        f"{ra.loc[(nd, 'second'), 'max_rank_change']} places under nDCG@10 and "
        f"{ra.loc[('RR(rel=2)', 'first'), 'max_rank_change']} / {ra.loc[('RR(rel=2)', 'second'), 'max_rank_change']} "
        f"under RR(rel=2)",
        f"(nDCG@10: {pair(nd, 'tau_top')})",
        f"gives {pair(nd, 'tau_gap')}",
        f"[{f(ra.loc[(nd, 'first'), 'tau_ci_low'])}, {f(ra.loc[(nd, 'first'), 'tau_ci_high'])}] / "
        f"[{f(ra.loc[(nd, 'second'), 'tau_ci_low'])}, {f(ra.loc[(nd, 'second'), 'tau_ci_high'])}] for nDCG@10",
        f"agree on {round(100 * da['agreement'].min())}-{round(100 * da['agreement'].max())}% of the "
        f"{da['pairs'].iloc[0]} run pairs",
        f"bpref (tau {f(ra.loc[('bpref(rel=2)', 'hybrid'), 'tau'])} against {f(ra.loc[('bpref(rel=2)', 'first'), 'tau'])})",
        f"labels ({int(la.loc[('nist', 'hybrid'), 'pairs'] - nf.pairs):,} pairs)",
    ]
    for w in want:
        assert w in text, w
    assert (da["reversed"] == 0).all()
    # real data against the oracles: autojudge-evaluate on the means compared, scikit-learn on the labels
    import numpy as np
    tau_gap = _autojudge_module("tau_gap").tau_gap
    tauap_b = _autojudge_module("pyircore").tauap_b

    def correlation(a, b, method):                  # autojudge_evaluate.evaluation.correlation
        df = pd.DataFrame([{"a": i, "b": j} for i, j in zip(a, b)])
        return float(df.corr(method).iloc[0]["b"])
    from sklearn.metrics import adjusted_rand_score, precision_score, recall_score

    for (m, s), row in ra.iterrows():
        R, X = res.scores["nist"][m], res.scores[s][m]
        common = [t for t in R.index if t in set(X.index)]
        a = np.round(np.ascontiguousarray(R.loc[common].to_numpy()).mean(axis=0), 12).tolist()
        b = np.round(np.ascontiguousarray(X.loc[common].to_numpy()).mean(axis=0), 12).tolist()
        order = np.argsort(np.array(R.columns, dtype=object), kind="stable")   # autojudge aligns by run name
        a, b = [a[i] for i in order], [b[i] for i in order]
        assert row["pearson"] == pytest.approx(correlation(a, b, "pearson"), abs=1e-9)
        assert row["spearman"] == pytest.approx(correlation(a, b, "spearman"), abs=1e-12)
        assert row["tau_b"] == pytest.approx(correlation(a, b, "kendall"), abs=1e-12)
        assert row["tau_ap_b"] == pytest.approx(tauap_b(a, b), abs=1e-12)
        assert row["tau_gap"] == pytest.approx(tau_gap(a, b), abs=1e-12)
    from metaeval.io.judgments import read_sets

    js = read_sets({"nist": str(d / "qrels.txt"), "first": [str(r / f"{n}.txt") for n in FIRST]})
    x, y = js.labels
    both = (x >= 0) & (y >= 0)
    assert nf.precision == pytest.approx(precision_score(x[both] >= 2, y[both] >= 2), abs=1e-15)
    assert nf.recall == pytest.approx(recall_score(x[both] >= 2, y[both] >= 2), abs=1e-15)
    assert nf.ari == pytest.approx(adjusted_rand_score(x[both], y[both]), abs=1e-15)
    hyb = ra.xs("hybrid", level="qrels").drop(index="bpref(rel=2)")
    first = ra.xs("first", level="qrels").drop(index="bpref(rel=2)")
    pd.testing.assert_frame_equal(hyb.drop(columns="reference"), first.drop(columns="reference"))
