"""The standardisation experiments (``metaeval standardisation``; Urbano, Lima & Hanjalic 2019):
vectorised within and between experiments equal literal loops on small cases (same seeds), and on
the DL19 AP matrix their means agree with a direct reimplementation of ``R/01-within.R`` within
Monte Carlo error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.cli import main
from metaeval.meta import standardisation as S
from metaeval.meta.matrices import read_matrix
from metaeval.meta.pairtests import paired_t
from metaeval.meta.rankcorr import tau_ap_b, tau_b
from metaeval.meta.samples import trial_rng

REF = Path(__file__).parents[1] / "data" / "std_r"


def _small(seed=5, T=14, R=7):
    rng = np.random.default_rng(seed)
    x = rng.random((T, R)) * np.linspace(0.2, 1.0, R)       # runs of different strength
    x[:, 3] = x[:, 2]                                        # two identical runs
    x[0] = 0.3                                               # a constant topic
    x[:, R - 1] = 0.0                                        # a run scoring 0 everywhere
    return x


def _subset(rng, T, size):
    return np.argsort(rng.random(T), kind="stable")[:size]


def _loop_within(x, y, n, trials, seed):
    """01-within.R's within_collection, trial by trial, on the module's topic subsets."""
    T, R = x.shape
    rng = trial_rng(seed, "standardisation", T, n, 1)
    out = []
    for _ in range(trials):
        i = _subset(rng, T, n)
        mx, my = x[i].mean(axis=0), y[i].mean(axis=0)
        p = np.array([paired_t(y[i, a] - y[i, b])[1][0] for a in range(R) for b in range(a + 1, R)])
        out.append((tau_b(mx, my), tau_ap_b(mx, my), stats.pearsonr(mx, my)[0],
                    [np.mean(p <= a) for a in S.ALPHAS]))
    return out


def _welch(a, b):
    if a.var() == 0 and b.var() == 0:
        return 1.0 if a.mean() == b.mean() else 0.0
    return stats.ttest_ind(a, b, equal_var=False).pvalue


def _loop_between(y, n, trials, seed):
    """02-between.R's between_collection, trial by trial."""
    T, R = y.shape
    rng = trial_rng(seed, "standardisation", T, 2 * n, 2)
    out = []
    for _ in range(trials):
        i = _subset(rng, T, 2 * n)
        y1, y2 = y[i[:n]], y[i[n:]]
        m1, m2 = y1.mean(axis=0), y2.mean(axis=0)
        t1 = np.array([_welch(y1[:, a], y2[:, a]) for a in range(R)])
        pw = np.array([_welch(y1[:, a], y2[:, b]) for a in range(R) for b in range(R) if b != a])
        out.append((tau_b(m1, m2), tau_ap_b(m1, m2), stats.pearsonr(m1, m2)[0],
                    [np.mean(t1 <= a) for a in S.ALPHAS], [np.mean(pw <= a) for a in S.ALPHAS]))
    return out


def _close(a, b):
    return (np.isnan(a) and np.isnan(b)) or abs(a - b) < 1e-12


@pytest.mark.parametrize("std", S.STD_ROWS)
def test_within_equals_loop(std):
    x = _small()
    y = S.standardised_matrices(x, "zNUE")[std]
    idx = S.topic_subsets(14, 6, 40, 3, "within")
    res = S.within(x, y, idx, chunk=7)
    for k, (ta, tap, r, pw) in enumerate(_loop_within(x, y, 6, 40, 3)):
        assert _close(res.tau[k], ta) and _close(res.tau_ap[k], tap) and _close(res.r[k], r), (k,)
        assert res.power[k].tolist() == pw, k
    assert res.power[:, S.ALPHAS.index(0.05)].mean() > 0.1             # the case has power to find


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("std", S.STD_ROWS)
def test_between_equals_loop(std):
    x = _small()
    y = S.standardised_matrices(x, "zNUE")[std]
    idx = S.topic_subsets(14, 12, 40, 3, "between")
    res = S.between(y, idx, chunk=7)
    for k, (ta, tap, r, t1, pw) in enumerate(_loop_between(y, 6, 40, 3)):
        assert _close(res.tau[k], ta) and _close(res.tau_ap[k], tap) and _close(res.r[k], r), (k,)
        assert res.type1[k].tolist() == t1 and res.power[k].tolist() == pw, k


def test_subsets_are_uniform_prefix_stable_and_chunk_free():
    a = S.topic_subsets(20, 5, 300, 7, "within")
    assert (S.topic_subsets(20, 5, 100, 7, "within") == a[:100]).all()      # more trials: same first ones
    assert all(len(set(r)) == 5 for r in a)
    assert not (S.topic_subsets(20, 5, 100, 7, "between") == a[:100]).all()
    counts = np.bincount(a.ravel(), minlength=20)
    assert counts.min() > 50 and counts.max() < 100                          # 75 expected per topic
    x = _small()
    y = S.standardised_matrices(x, "E")["E"]
    idx = S.topic_subsets(14, 6, 50, 1, "within")
    one, many = S.within(x, y, idx, chunk=1), S.within(x, y, idx, chunk=256)
    assert np.array_equal(one.power, many.power) and np.array_equal(one.tau, many.tau, equal_nan=True)


def _reference_within(x, y, n, trials, rng):
    """A direct reimplementation of R/01-within.R (its within_collection on sample(1:n_t, n)),
    with its own random subsets (numpy's choice, not the module's stream)."""
    R = x.shape[1]
    iu, ju = np.triu_indices(R, 1)
    rows = []
    for _ in range(trials):
        i = rng.choice(x.shape[0], n, replace=False)
        mx, my = x[i].mean(axis=0), y[i].mean(axis=0)
        with np.errstate(all="ignore"):
            p = stats.ttest_rel(y[i][:, iu], y[i][:, ju], axis=0).pvalue
        p = p[~np.isnan(p)]                                   # R's ecdf drops NA p-values
        rows.append([stats.kendalltau(mx, my).statistic, tau_ap_b(mx, my), stats.pearsonr(mx, my)[0],
                     np.mean(p <= 0.05), np.mean(p <= 0.01)])
    return np.array(rows)


def test_dl19_means_agree_with_a_reimplementation_of_01_within():
    """The mean of every statistic over 400 trials agrees with the reimplementation's mean over 400
    other trials within 4 combined standard errors: both are Monte Carlo means of the same
    expectation over random topic subsets, with independent draws, so their difference is about
    normal with variance se1^2 + se2^2 (the trials' sample variances / 400); 4 standard errors
    leave a false alarm probability of 6e-5 per statistic.  Statistics that are constant (tau = 1
    for raw) must agree exactly."""
    df = read_matrix(REF / "dl19_AP.csv")
    x = df.to_numpy()
    n, K = 21, 400                                            # 43 topics: min(50, floor(43 / 2))
    from metaeval.errors import InputWarning

    with pytest.warns(InputWarning, match="subsets of 21 topics used, not 50"):
        frames = S.stage_standardisation({"AP": df}, trials=K, n_topics=50, seed=11)
    within = frames["standardisation_within"].set_index("std")
    trials = frames["standardisation_trials"]
    power = frames["standardisation_power"]
    assert (within["n_topics"] == n).all()
    rng = np.random.default_rng(2019)
    for std, y in S.standardised_matrices(x, "zNUE").items():
        ref = _reference_within(x, y, n, K, rng)
        mine = trials[(trials.experiment == "within") & (trials["std"] == std)][["tau", "tau_ap", "r"]].to_numpy()
        assert len(mine) == K
        pw = power[(power["std"] == std)].set_index("alpha")["power"]
        ours = [within.loc[std, "tau"], within.loc[std, "tau_ap"], within.loc[std, "r"], pw[0.05], pw[0.01]]
        assert ours[3] == within.loc[std, "power_at_0.05"] and ours[4] == within.loc[std, "power_at_0.01"]
        sd_ours = list(mine.std(axis=0, ddof=1)) + [None, None]
        for j, name in enumerate(["tau", "tau_ap", "r", "power_at_0.05", "power_at_0.01"]):
            a, b = ours[j], ref[:, j].mean()
            s2 = ref[:, j].std(ddof=1) ** 2 / K
            if sd_ours[j] is not None:
                s2 += sd_ours[j] ** 2 / K
            else:                                             # power: the same spread as the reference's
                s2 *= 2
            if s2 == 0:
                assert a == pytest.approx(b, abs=1e-12), (std, name)
            else:
                assert abs(a - b) <= 4 * np.sqrt(s2), (std, name, a, b, np.sqrt(s2))


def test_cli_writes_the_declared_files(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "AP.csv").write_bytes((REF / "dl19_AP.csv").read_bytes())
    (d / "AP(std=z).csv").write_bytes((REF / "dl19_AP.z.csv").read_bytes())       # skipped: std= already
    out = tmp_path / "o"
    assert main(["standardisation", "--matrices", str(d), "--out", str(out), "--trials", "30", "--topics", "10",
                 "--std", "z", "E", "--quiet"]) == 0
    w = pd.read_csv(out / "tables" / "standardisation_within.csv")
    assert list(w.columns) == ["metric", "std", "n_topics", "trials", "tau", "tau_sd", "tau_ap", "r",
                               "power_at_0.05", "power_at_0.01"]
    assert w["std"].tolist() == ["raw", "z", "E"] and set(w["metric"]) == {"AP"}
    b = pd.read_csv(out / "tables" / "standardisation_between.csv")
    assert list(b.columns) == ["metric", "std", "alpha", "type1", "power", "tau", "tau_ap", "r"]
    assert len(b) == 3 * len(S.ALPHAS)
    p = pd.read_csv(out / "standardisation" / "power.csv")
    assert list(p.columns) == ["metric", "std", "alpha", "power"] and len(p) == 3 * len(S.ALPHAS)
    t = pd.read_csv(out / "standardisation" / "trials.csv")
    assert len(t) == 2 * 3 * 30
    assert {f.name for f in (out / "figures").iterdir()} == {"standardisation_power.png", "standardisation_power.pdf",
                                                             "standardisation_tau.png", "standardisation_tau.pdf"}
    # the API gives the same values
    import metaeval

    frames = metaeval.standardisation(str(d), metrics=["AP"], std=["z", "E"], topics=10, trials=30)
    pd.testing.assert_frame_equal(frames["standardisation_within"], w, check_exact=False, rtol=1e-15)


@pytest.mark.parametrize("argv, rc, msg", [
    (["--std", "q"], 2, "--std"),
    (["--topics", "1"], 2, "--topics"),
    (["--trials", "0"], 2, "--trials"),
    (["--metrics", "nope"], 1, "no matrix for metric 'nope'"),
])
def test_cli_rejects(tmp_path, capsys, argv, rc, msg):
    d = tmp_path / "m"
    d.mkdir()
    (d / "AP.csv").write_bytes((REF / "synthetic.csv").read_bytes())
    if rc == 2:
        with pytest.raises(SystemExit) as e:
            main(["standardisation", "--matrices", str(d), "--out", str(tmp_path / "o"), *argv])
        assert e.value.code == 2
    else:
        assert main(["standardisation", "--matrices", str(d), "--out", str(tmp_path / "o"), *argv]) == rc
    assert msg in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_the_stage_declares_the_modules_defaults():
    from metaeval.meta.stages.standardisation import StandardisationParams as P

    assert (P.std_topics, P.std_trials) == (S.DEFAULT_TOPICS, S.DEFAULT_TRIALS)


def test_too_few_topics_is_one_line(tmp_path, capsys):
    d = tmp_path / "m"
    d.mkdir()
    (d / "AP.csv").write_text("topic,a,b\nt1,0.1,0.2\nt2,0.3,0.1\nt3,0.5,0.5\n")
    assert main(["standardisation", "--matrices", str(d), "--out", str(tmp_path / "o")]) == 1
    assert "need at least 4 topics" in capsys.readouterr().err
