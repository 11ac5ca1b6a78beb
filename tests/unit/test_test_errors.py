"""Simulated error rates of the paired tests (metaeval.meta.error_rates; Urbano, Lima & Hanjalic 2019):
copula selection, calibration on a collection whose truth is known, the paper's published type I
rates, reproducibility and the command line."""

import math

import numpy as np
import pandas as pd
import pytest

from metaeval.cli import main
from metaeval.meta import copulas as C
from metaeval.meta.error_rates import RATE_COLUMNS, TYPE1_COLUMNS, test_errors

SEVEN = ("indep", "gaussian", "student", "clayton", "gumbel", "frank", "joe")


def test_copula_selection_recovers_family_and_parameter():
    """Simulated from a Gumbel (theta 1.8), a Frank (theta 5) and a 90-degree rotated Gumbel copula,
    n = 1000, selected among the seven families independence, Gaussian, Student t, Clayton, Gumbel,
    Frank and Joe (with rotations): the family is recovered every time (among VineCopula's whole
    set, the default, BB1, BB6, BB7 and Tawn nest or nearly match Gumbel and win some
    replications by AIC, as in VineCopula: tests/unit/test_paper_copulas.py); the parameter lies
    within one standard error in most replications (about 68% expected) and within four in all.  (A Clayton copula is told apart
    from the 180-degree rotated Joe only about two times in three at this n, with pyvinecopulib's
    own sampler as with ours, and a Gaussian from a Student t with many degrees of freedom: nearly
    the same models.)"""
    import pyvinecopulib as pv

    for fam, rot, theta in ((pv.BicopFamily.gumbel, 0, 1.8), (pv.BicopFamily.frank, 0, 5.0),
                            (pv.BicopFamily.gumbel, 90, 1.5)):
        true = pv.Bicop.from_family(fam, rotation=rot, parameters=np.array([[theta]]))
        within1 = 0
        for rep in range(12):
            rng = np.random.default_rng(1000 + rep)
            u1, u2 = C.simulate(true, 1000, 1, rng)
            fit = C.fit_copula(u1[0], u2[0], rng, families=SEVEN)
            assert fit.family == fam and fit.rotation == rot
            par = float(np.asarray(fit.parameters).ravel()[0])
            se = C.loglik_se(fit, C.pseudo_obs(np.column_stack([u1[0], u2[0]]), rng))
            assert abs(par - theta) <= 4 * se
            within1 += abs(par - theta) <= se
        assert within1 >= 5


def _known_truth(n_runs=12, n_topics=60, seed=5):
    """Runs whose scores are independent draws of one beta distribution per topic difficulty:
    every pair of runs has the same expected score."""
    rng = np.random.default_rng(seed)
    diff = rng.beta(2, 2, n_topics)
    X = np.clip(rng.beta(2 + 3 * diff[:, None], 5 - 3 * diff[:, None], (n_topics, n_runs)), 0, 1)
    X += np.arange(n_runs)[None, :] * 1e-4                   # no duplicate runs
    return pd.DataFrame(np.clip(X, 0, 1), columns=[f"r{i}" for i in range(n_runs)],
                        index=[f"t{i}" for i in range(n_topics)])


def test_type1_of_t_and_permutation_is_nominal_on_a_known_truth():
    """Both runs of every simulated pair share one margin, so every rejection is a type I error:
    at alpha = 0.05 the t and permutation tests reject within 3 Monte Carlo standard errors
    (sqrt(0.05 * 0.95 / trials) = 0.0034 with 4000 trials) of 5%."""
    res = test_errors({"AP": _known_truth()}, pairs=4, topics=(50,), trials=1000, deltas=(),
                      alphas=(0.05,), tests=("paired-t", "permutation"), B=1000, seed=3)
    assert list(res.type1.columns) == TYPE1_COLUMNS
    for _, r in res.type1.iterrows():
        se = math.sqrt(0.05 * 0.95 / r["trials"])
        assert r["trials"] == 4000
        assert abs(r["rate"] - 0.05) <= 3 * se, (r["test"], r["rate"])


def test_same_seed_same_tables_and_power_increases_with_delta():
    X = _known_truth(seed=6)
    kw = dict(pairs=2, topics=(25,), trials=300, deltas=(0.02, 0.08), alphas=(0.01, 0.05), B=200, seed=9)
    a = test_errors({"AP": X}, **kw)
    b = test_errors({"AP": X}, **kw)
    for x, y in zip(a.tables.values(), b.tables.values()):
        pd.testing.assert_frame_equal(x, y)
    assert list(a.power.columns) == RATE_COLUMNS and list(a.type3.columns) == RATE_COLUMNS
    p = a.power[(a.power["alpha"] == 0.05)].pivot(index="test", columns="delta", values="rate")
    assert (p[0.08] > p[0.02]).all()
    assert (a.type3["rate"] <= a.power["rate"] + 1e-12).all()


# the published two-tailed type I rates at alpha = 0.05, n = 50, AP (output/type_1/type_1_ap_50.csv
# of julian-urbano/sigir2019-statistical; 1.667 million trials over eight TREC collections)
PUBLISHED_AP_50 = {"paired-t": 0.0511661667666467, "permutation": 0.0522423515296941}


@pytest.mark.shared_data
def test_type1_on_dl19_within_monte_carlo_error_of_the_published_rates(shared_data, tmp_path):
    """DL19 AP (the shared collection; the paper's data are TREC ad hoc and Web tracks): at
    alpha = 0.05 and 50 topics the t and permutation tests' simulated type I rates lie within 3
    Monte Carlo standard errors of the published rates."""
    import metaeval

    d = shared_data / "trec-dl19-passage"
    s = metaeval.evaluate(d / "qrels.txt", d / "runs", ["AP"], order="file")
    X = s.pivot(index="topic", columns="run", values="value")
    res = test_errors({"AP": X}, pairs=12, topics=(50,), trials=1000, deltas=(), alphas=(0.05,),
                      tests=("paired-t", "permutation"), B=1000, seed=2019)
    for _, r in res.type1.iterrows():
        se = math.sqrt(r["rate"] * (1 - r["rate"]) / r["trials"])
        assert abs(r["rate"] - PUBLISHED_AP_50[r["test"]]) <= 3 * se, (r["test"], r["rate"], se)


def test_command_line_writes_the_tables_and_refuses_bad_usage(tmp_path, capsys):
    mdir = tmp_path / "m"
    mdir.mkdir()
    X = _known_truth(n_runs=6, seed=8)
    X.index.name = "topic"
    X.to_csv(mdir / "AP.csv")
    out = tmp_path / "out"
    assert main(["test-errors", "--matrices", str(mdir), "--out", str(out), "--pairs", "2", "--topics", "20",
                 "--trials", "50", "--deltas", "0.05", "--alphas", "0.05", "--B", "100", "--quiet"]) == 0
    for name in ("test_errors_type1", "test_errors_power", "test_errors_type3"):
        for ext in ("csv", "md", "tex"):
            assert (out / "tables" / f"{name}.{ext}").is_file()
    t1 = pd.read_csv(out / "tables" / "test_errors_type1.csv")
    assert list(t1.columns) == TYPE1_COLUMNS and set(t1["test"]) == {"paired-t", "wilcoxon", "sign",
                                                                     "bootstrap", "permutation"}
    assert (out / "test_errors" / "margins.csv").is_file() and (out / "test_errors" / "copulas.csv").is_file()
    assert (out / "figures" / "test_errors_type1.png").is_file()
    with pytest.raises(SystemExit) as e:
        main(["test-errors", "--matrices", str(mdir), "--out", str(out), "--alphas", "1.5"])
    assert e.value.code == 2


def test_frank_closed_form_inverse_equals_pyvinecopulibs():
    """The Frank copula's conditional inverse in closed form (copulas._frank_hinv1) agrees with
    pyvinecopulib's numerical hinv1 and satisfies h1(u1, u2) = w."""
    import pyvinecopulib as pv

    rng = np.random.default_rng(1)
    u1, w = rng.random((200, 30)), rng.random((200, 30))
    for t in (5.0, -3.0, 0.5):
        cop = pv.Bicop.from_family(pv.BicopFamily.frank, parameters=np.array([[t]]))
        u2 = C._frank_hinv1(cop, u1, w)
        ref = cop.hinv1(np.column_stack([u1.ravel(), w.ravel()])).reshape(u2.shape)
        np.testing.assert_allclose(u2, ref, atol=1e-9)
        h = cop.hfunc1(np.column_stack([u1.ravel(), u2.ravel()])).reshape(u2.shape)
        np.testing.assert_allclose(h, w, atol=1e-12)
