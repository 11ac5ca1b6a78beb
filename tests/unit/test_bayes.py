"""metaeval.meta.bayes: the Gibbs sampler of the crossed model (Sakai 2017; Benham et al. 2020)
against an independent sampler on DL19, simulation-based calibration (Talts et al. 2018), the
diagnostics against ArviZ (Vehtari et al. 2021), seeds and bytes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.meta import bayes as B


# ------------------------------------------------------------------ diagnostics against ArviZ
def _ar1(rng, rho: float, C: int, N: int, shift: float = 0.0) -> np.ndarray:
    e = rng.standard_normal((C, N))
    x = np.empty((C, N))
    x[:, 0] = e[:, 0]
    for i in range(1, N):
        x[:, i] = rho * x[:, i - 1] + e[:, i]
    x[1] += shift
    return x


@pytest.mark.parametrize("N", [101, 400])
def test_split_rhat_and_bulk_ess_are_arviz(N):
    az = pytest.importorskip("arviz")
    rng = np.random.default_rng(3)
    xs = np.stack([_ar1(rng, rho, 4, N, shift) for rho, shift in
                   ((0.0, 0.0), (0.5, 0.2), (0.9, 0.0), (0.99, 0.5), (-0.3, 0.0))])
    rh, es = B.split_rhat(xs), B.ess_bulk(xs)
    for i, x in enumerate(xs):
        assert rh[i] == pytest.approx(float(az.rhat(x, method="rank")), rel=1e-12, abs=1e-12)
        assert es[i] == pytest.approx(float(az.ess(x, method="bulk")), rel=1e-9)
    assert rh[3] > 1.05 and es[3] < es[0] / 10          # the slow chains are seen as such


# ------------------------------------------------------------- simulation-based calibration
def _sbc(R=512, S=4, T=6, L=99, thin=10, warmup=200, seed=7, A=1.0, mu_sd=10.0):
    """Ranks of the true mu, three scales and a[0] among L thinned posterior draws of R collections
    simulated from the prior (scales half-Cauchy(0, A)), all collections sampled at once."""
    rng = np.random.default_rng(seed)
    mu = mu_sd * rng.standard_normal(R)
    sa, sb, se = (A * np.abs(rng.standard_cauchy(R)) for _ in range(3))
    a = sa[:, None] * rng.standard_normal((R, S))
    b = sb[:, None] * rng.standard_normal((R, T))
    Y = mu[:, None, None] + a[:, :, None] + b[:, None, :] + se[:, None, None] * rng.standard_normal((R, S, T))
    n_iter = warmup + L * thin
    z = rng.standard_normal((R, n_iter, S + T + 4))
    g = rng.standard_gamma(np.broadcast_to(np.asarray(B.gamma_shapes(S, T)), (R, n_iter, 6)))
    init = np.exp(rng.standard_normal((R, 3)))
    d = B.gibbs(B.sufficient(Y), z, g, init, warmup, thin)
    truth = {"mu": mu, "sigma_system": sa, "sigma_topic": sb, "sigma_residual": se, "a[0]": a[:, 0]}
    draws = {"mu": d.mu, "sigma_system": d.sa, "sigma_topic": d.sb, "sigma_residual": d.se, "a[0]": d.a[..., 0]}
    pvalues = {}
    for k, v in truth.items():
        rank = np.count_nonzero(draws[k] < v[:, None], axis=1)            # 0 .. L
        counts = np.bincount(rank * 10 // (L + 1), minlength=10)
        pvalues[k] = float(stats.chisquare(counts).pvalue)
    return pvalues


def test_sbc_ranks_are_uniform():
    """Talts et al. (2018): over 512 collections drawn from the prior, the rank of the true value
    among the posterior draws is uniform for mu, the three scales and a[0] (chi-square over 10 bins)."""
    p = _sbc()
    assert min(p.values()) > 1e-3, p


def test_sbc_detects_a_wrong_prior():
    """The check can fail: data simulated with half-Cauchy(0, 5) scales (the sampler assumes A = 1)
    give non-uniform ranks."""
    p = _sbc(A=5.0, R=512)
    assert min(p.values()) < 1e-4, p


# --------------------------------------------------------------------------- tables and seeds
def _matrix(S=6, T=8, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    Y = 0.4 + rng.normal(0, 0.05, S)[:, None] + rng.normal(0, 0.2, T)[None, :] + rng.normal(0, 0.1, (S, T))
    return pd.DataFrame(Y.T, index=[f"t{i}" for i in range(T)], columns=[f"r{i}" for i in range(S)])


def test_tables_columns_and_pairs_by_literal_loop():
    from metaeval.errors import InputWarning

    M = _matrix()
    with pytest.warns(InputWarning, match="bulk ESS"):                # 2 x 200 draws: too few, said so
        res = B.bayes_tables({"AP": M}, draws=200, chains=2, seed=5)
    assert tuple(res.runs.columns) == B.RUN_COLUMNS and tuple(res.pairs.columns) == B.PAIR_COLUMNS
    assert tuple(res.fit.columns) == B.FIT_COLUMNS
    post = res.posteriors["AP"]
    a = post.a.reshape(-1, 6)
    se = post.se.reshape(-1)
    i = 0
    for s in range(6):
        for r in range(6):
            if s == r:
                continue
            row = res.pairs.iloc[i]
            assert (row["run"], row["other"]) == (f"r{s}", f"r{r}")
            d = a[:, s] - a[:, r]
            assert row["diff"] == pytest.approx(d.mean(), rel=1e-12, abs=1e-15)
            assert row["p_greater"] == np.mean(d > 0)
            assert row["effect"] == pytest.approx(np.mean(d / se), rel=1e-12, abs=1e-15)
            assert (row["ci_low"], row["ci_high"]) == tuple(np.quantile(d, [0.025, 0.975]))
            i += 1
    theta = post.mu.reshape(-1)[:, None] + a
    assert res.runs["mean"].to_numpy() == pytest.approx(theta.mean(axis=0), rel=1e-12)
    assert res.runs["p_best"].sum() == pytest.approx(1.0)
    assert res.runs["p_best"].to_numpy() == pytest.approx(np.bincount(a.argmax(1), minlength=6) / len(a))
    f = res.fit.iloc[0]
    assert (f["chains"], f["draws"], f["divergences"]) == (2, 200, 0)
    assert f["sigma_residual"] == pytest.approx(se.mean())
    assert len(res.t_pvalues["AP"]) == 30
    assert res.t_pvalues["AP"][0] == pytest.approx(stats.ttest_rel(M["r0"], M["r1"]).pvalue, rel=1e-12)


def test_same_seed_same_draws_other_seed_other_draws():
    M = _matrix()
    p1, p2 = (B.fit(M, "AP", draws=50, chains=3, seed=9) for _ in range(2))
    assert p1.a.tobytes() == p2.a.tobytes() and p1.se.tobytes() == p2.se.tobytes()
    p3 = B.fit(M, "AP", draws=50, chains=3, seed=10)
    assert p3.a.tobytes() != p1.a.tobytes()
    # a chain's draws depend on the seed, the metric and the chain only: 2 chains are the first 2 of 3
    p4 = B.fit(M, "AP", draws=50, chains=2, seed=9)
    assert p4.a.tobytes() == p1.a[:2].tobytes()


@pytest.mark.parametrize("case", ["missing", "one run", "one topic"])
def test_bad_matrix_is_one_line(case):
    from metaeval.errors import InputError

    M = _matrix()
    if case == "missing":
        M.iloc[3, 2] = np.nan
    elif case == "one run":
        M = M[["r0"]]
    else:
        M = M.iloc[:1]
    with pytest.raises(InputError) as e:
        B.fit(M, "AP")
    msg = str(e.value)
    assert "\n" not in msg and "AP" in msg
    assert {"missing": "'r2' has no score on topic 't3'", "one run": "1 run", "one topic": "1 topic"}[case] in msg


# ------------------------------------------------------ an independent sampler on real data
def _reference(M: pd.DataFrame, chains=8, steps=1000, burn=300, thin=2, seed=11):
    """The posterior by another algorithm: random-walk Metropolis on the three log scales with mu, a
    and b integrated out (the marginal likelihood of y ~ N(0, se^2 I + X Lambda X') through the
    (1 + S + T)-dimensional precision, determinant lemma and Woodbury), 8 chains at once; then
    (mu, a, b) | scales from the dense Gaussian conditional of the full design matrix."""
    Y = M.to_numpy(float).T
    S, T = Y.shape
    n = S * T
    X = np.zeros((n, 1 + S + T))
    X[:, 0] = 1
    X[np.arange(n), 1 + np.repeat(np.arange(S), T)] = 1
    X[np.arange(n), 1 + S + np.tile(np.arange(T), S)] = 1
    y = Y.reshape(-1)
    XtX, Xty, yty = X.T @ X, X.T @ y, y @ y
    P = 1 + S + T

    def parts(th):                                  # th: (k, 3) log scales
        v = np.exp(2 * th)
        lam = np.concatenate([np.full((len(th), 1), 100.0), np.repeat(v[:, :1], S, 1), np.repeat(v[:, 1:2], T, 1)], 1)
        Q = XtX[None] / v[:, 2, None, None]
        Q[:, np.arange(P), np.arange(P)] += 1 / lam
        L = np.linalg.cholesky(Q)
        h = Xty[None] / v[:, 2:3]
        w = np.linalg.solve(L, h[..., None])[..., 0]
        return lam, L, w, v

    def logpost(th):
        lam, L, w, v = parts(th)
        logdet = n * np.log(v[:, 2]) + np.log(lam).sum(1) + 2 * np.log(np.diagonal(L, axis1=1, axis2=2)).sum(1)
        quad = yty / v[:, 2] - (w * w).sum(1)
        sig = np.exp(th)
        return -0.5 * (logdet + quad) + np.sum(th - np.log1p(sig * sig), axis=1)   # half-Cauchy on log scale

    rng = np.random.default_rng(seed)
    th = np.log(np.array([0.05, 0.2, 0.15]))[None] + 0.1 * rng.standard_normal((chains, 3))
    lp = logpost(th)
    prop_l = np.diag([0.06, 0.06, 0.015])
    kept = []
    for i in range(steps):
        if i == burn // 2:                          # adapt once: the pilot's covariance
            c = np.concatenate(kept)
            prop_l = np.linalg.cholesky(np.cov(c.T) * 2.38 ** 2 / 3)
            kept = []
        prop = th + rng.standard_normal((chains, 3)) @ prop_l.T
        lq = logpost(prop)
        ok = np.log(rng.random(chains)) < lq - lp
        th, lp = np.where(ok[:, None], prop, th), np.where(ok, lq, lp)
        if i < burn // 2 or (i >= burn and (i - burn) % thin == 0):
            kept.append(th.copy())
    th = np.stack(kept).transpose(1, 0, 2).reshape(-1, 3)             # chain by chain
    _, L, w, v = parts(th)
    eff = np.linalg.solve(np.swapaxes(L, 1, 2), (w + rng.standard_normal(w.shape))[..., None])[..., 0]
    return np.sqrt(v), eff[:, 0], eff[:, 1:1 + S]


def _mcse(x: np.ndarray, stat, nb: int = 20) -> np.ndarray:
    """Batch-means Monte Carlo standard error of ``stat`` (over axis 0) of ``x``."""
    k = len(x) // nb
    b = np.stack([stat(x[i * k:(i + 1) * k]) for i in range(nb)])
    return b.std(axis=0, ddof=1) / np.sqrt(nb)


@pytest.mark.shared_data
def test_tables_equal_an_independent_sampler_on_dl19():
    """bayes_runs, bayes_pairs and bayes_fit on DL19's nDCG@10 (37 runs x 43 topics) agree with the
    independent sampler within Monte Carlo error (5 combined batch-means standard errors)."""
    from conftest import dl19_matrices

    M = dl19_matrices(["nDCG@10"])["nDCG@10"]
    res = B.bayes_tables({"nDCG@10": M}, seed=3)
    post = res.posteriors["nDCG@10"]
    sc, mu, a = _reference(M)
    S = a.shape[1]
    si, ri = np.nonzero(~np.eye(S, dtype=bool))
    ga = post.a.reshape(-1, S)                       # chain by chain: the batches lie within chains
    gsc = np.stack([post.sa, post.sb, post.se], -1).reshape(-1, 3)
    gth, rth = post.mu.reshape(-1)[:, None] + ga, mu[:, None] + a
    q = (lambda x: np.quantile(x, 0.025, axis=0), lambda x: np.quantile(x, 0.975, axis=0))

    def close(table_values, g, r, stat, name, floor=1e-3):
        se = np.sqrt(_mcse(g, stat) ** 2 + _mcse(r, stat) ** 2)
        z = np.abs(np.asarray(table_values, float) - stat(r)) / np.maximum(se, floor)
        assert z.max() < 5, (name, float(z.max()))
        return float(z.max())

    mean = lambda x: x.mean(axis=0)
    fit = res.fit.iloc[0]
    close([fit["sigma_system"], fit["sigma_topic"], fit["sigma_residual"]], gsc, sc, mean, "scales")
    runs = res.runs
    close(runs["mean"], gth, rth, mean, "mean")
    close(runs["ci_low"], gth, rth, q[0], "ci_low")
    close(runs["ci_high"], gth, rth, q[1], "ci_high")
    close(runs["p_best"], np.eye(S)[ga.argmax(1)], np.eye(S)[a.argmax(1)], mean, "p_best", floor=5e-3)
    pairs = res.pairs
    gd, rd = ga[:, si] - ga[:, ri], a[:, si] - a[:, ri]
    close(pairs["diff"], gd, rd, mean, "diff")
    close(pairs["ci_low"], gd, rd, q[0], "pair ci_low")
    close(pairs["ci_high"], gd, rd, q[1], "pair ci_high")
    close(pairs["p_greater"], (gd > 0) * 1.0, (rd > 0) * 1.0, mean, "p_greater", floor=5e-3)
    close(pairs["effect"], gd / gsc[:, 2:3], rd / sc[:, 2:3], mean, "effect")
    assert fit["rhat_max"] < B.RHAT_MAX and fit["ess_min"] > B.ESS_MIN and not res.warnings


# ------------------------------------------------------------------------------ the command
def _write_matrix(folder, M: pd.DataFrame, name: str = "AP") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    M.rename_axis("topic").to_csv(folder / f"{name}.csv")


def test_command_same_seed_same_bytes(tmp_path, capsys):
    from metaeval.cli import main
    from metaeval.report.formatting import fmt4

    _write_matrix(tmp_path / "m", _matrix())
    outs = []
    for k, seed in enumerate((4, 4, 5)):
        out = tmp_path / f"o{k}"
        assert main(["bayes", "--matrices", str(tmp_path / "m"), "--out", str(out), "--draws", "100", "--chains", "2",
                     "--seed", str(seed), "--no-figures"]) == 0
        outs.append({f.name: f.read_bytes() for f in sorted((out / "tables").iterdir())})
    assert outs[0] == outs[1] and outs[0]["bayes_pairs.csv"] != outs[2]["bayes_pairs.csv"]
    assert set(outs[0]) == {f"bayes_{t}.{x}" for t in ("runs", "pairs", "fit") for x in ("csv", "md", "tex")}
    head = outs[0]["bayes_pairs.csv"].decode().splitlines()[0]
    assert head == "metric,run,other,diff,ci_low,ci_high,p_greater,effect"
    md = outs[0]["bayes_pairs.md"].decode()
    p = stats.ttest_rel(_matrix()["r0"], _matrix()["r1"]).pvalue
    row = next(line for line in md.splitlines() if line.startswith("| AP | r0 | r1 |"))
    assert "| t-test p |" in md and row.endswith(f"| {fmt4(p)} |")      # the paired t test beside P(r0 > r1)
    assert "15 run pairs" in capsys.readouterr().err                      # the summary line per metric


@pytest.mark.parametrize("case", ["missing", "one run", "one topic"])
def test_command_bad_matrix_is_one_line_exit_1(tmp_path, capsys, case):
    from metaeval.cli import main

    M = _matrix()
    folder = tmp_path / "m"
    if case == "missing":
        folder.mkdir()
        text = M.rename_axis("topic").to_csv()
        lines = text.splitlines()
        cells = lines[3].split(",")
        cells[2] = ""
        lines[3] = ",".join(cells)
        (folder / "AP.csv").write_text("\n".join(lines) + "\n")
    else:
        _write_matrix(folder, M[["r0"]] if case == "one run" else M.iloc[:1])
    rc = main(["bayes", "--matrices", str(folder), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(folder / "AP.csv") in err
    assert {"missing": ":4, topic t2: run r1: '' is not a number", "one run": "1 run", "one topic": "1 topic"}[case] in err
    assert not (tmp_path / "o").exists()


def test_api_writes_and_warns_on_too_few_draws(tmp_path):
    """``metaeval.bayes``: the command's files; a fit whose bulk ESS is under 400 (Vehtari et al. 2021)
    is a warning naming the metric and what to raise."""
    import metaeval
    from metaeval.errors import InputWarning

    with pytest.warns(InputWarning, match=r"bayes: AP: .*bulk ESS \d+ < 400 .*raise --draws \(now 100\)"):
        res = metaeval.bayes({"AP": _matrix()}, draws=100, chains=2, seed=1, out=tmp_path / "o", figures=False)
    assert res.warnings and res.fit["ess_min"].iloc[0] < 400
    assert (tmp_path / "o" / "tables" / "bayes_runs.csv").is_file()
    assert B.convergence_warning("AP", 1.0, 5000.0, 1000) is None
    assert "R-hat 1.0200 > 1.01" in B.convergence_warning("AP", 1.02, 5000.0, 1000)
