"""Bayesian inference on a topic x run matrix: the crossed random-effects model of Sakai (2017) and
Benham, Carterette, Culpepper & Moffat (2020),

    y[s, t] = mu + a[s] + b[t] + e[s, t],   a ~ N(0, sa^2), b ~ N(0, sb^2), e ~ N(0, se^2),
    mu ~ N(0, 10^2),   sa, sb, se ~ half-Cauchy(0, 1),

sampled exactly by a blocked Gibbs sampler (docs/meta.md, "Bayesian inference"):

* ``(mu, a, b) | scales`` in one block, exactly: on a complete matrix the likelihood splits into
  orthogonal parts (the grand mean, the runs' and the topics' centred means, the double-centred
  residual), so the centred effects are independent normals and ``(mu, mean a, mean b)`` a
  three-dimensional normal observed through their sum (drawn by conditioning a prior draw,
  "perturb then condition");
* each scale by the inverse-gamma auxiliary representation of the half-Cauchy of Wand, Ormerod,
  Padoan & Fruhwirth (2011): ``sigma^2 | c ~ IG(1/2, 1/c)``, ``c ~ IG(1/2, 1/A^2)`` (``A = 1``), whose
  full conditionals are inverse-gamma.

All chains (and, for simulation-based calibration, all simulated collections) advance together as
arrays; a chain's random numbers are drawn up front from its own ``numpy.random.Generator``
(``SeedSequence([seed, stream, metric]).spawn(chains)``), so the draws depend on the seed, the
metric's name and the chain alone.  Convergence: split R-hat and bulk effective sample size,
rank-normalised (Vehtari, Gelman, Simpson, Carpenter & Burkner 2021), as ArviZ computes them.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..detmath import fixed_sum
from .display import Result
from .stages.common import BAYES_CHAINS, BAYES_DRAWS

__all__ = ["DEFAULT_DRAWS", "DEFAULT_CHAINS", "MU_SD", "RHAT_MAX", "ESS_MIN", "Posterior", "sufficient",
           "gibbs", "fit", "chain_seeds", "split_rhat", "ess_bulk", "run_summary", "pair_summary",
           "fit_summary", "bayes_tables", "BayesResult", "check_matrix"]

#: kept draws per chain and chains (the issue's minimum: 4 chains x 1,000 kept draws); warm-up
#: iterations are as many as the kept draws -- the stage's declared defaults (its command, its API)
DEFAULT_DRAWS, DEFAULT_CHAINS = BAYES_DRAWS, BAYES_CHAINS
#: the prior standard deviation of mu
MU_SD = 10.0
#: convergence thresholds of Vehtari et al. (2021): R-hat above, or a bulk ESS under, is a warning
RHAT_MAX, ESS_MIN = 1.01, 400.0
#: the stream id of the sampler's seeds (apart from metaeval.meta.samples.STREAMS, which keeps 1-9)
STREAM = 50


# ------------------------------------------------------------------------------ the statistics
@dataclass(frozen=True)
class Stats:
    """What the likelihood reads of a complete ``(..., S, T)`` array (runs x topics): the grand mean,
    the runs' and topics' centred means, the double-centred residual sum of squares."""

    ybar: np.ndarray     # (...)
    da: np.ndarray       # (..., S)  run means minus the grand mean
    db: np.ndarray       # (..., T)  topic means minus the grand mean
    sse0: np.ndarray     # (...)
    S: int
    T: int


def sufficient(Y) -> Stats:
    """:class:`Stats` of ``Y``: ``(..., S, T)``, runs x topics, every cell present."""
    Y = np.asarray(Y, dtype=np.float64)
    S, T = Y.shape[-2], Y.shape[-1]
    row = fixed_sum(Y, axis=-1) / T
    col = fixed_sum(Y, axis=-2) / S
    ybar = fixed_sum(row, axis=-1) / S
    da = row - ybar[..., None]
    db = col - ybar[..., None]
    r = Y - row[..., :, None] - col[..., None, :] + ybar[..., None, None]
    sse0 = fixed_sum((r * r).reshape(r.shape[:-2] + (S * T,)), axis=-1)
    return Stats(ybar, da, db, sse0, S, T)


# --------------------------------------------------------------------------------- the sampler
def chain_seeds(seed: int, metric: str, chains: int) -> list[np.random.SeedSequence]:
    """The chains' seed sequences: ``SeedSequence([seed, STREAM, crc32(metric)]).spawn(chains)`` (a
    metric's draws do not depend on the other metrics or their order)."""
    if isinstance(seed, bool) or int(seed) != seed or int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    root = np.random.SeedSequence([int(seed), STREAM, zlib.crc32(str(metric).encode("utf-8"))])
    return root.spawn(int(chains))


@dataclass
class Draws:
    """Kept draws, ``(..., draws)`` per scalar, ``(..., draws, S)`` for ``a``."""

    mu: np.ndarray
    a: np.ndarray
    sa: np.ndarray
    sb: np.ndarray
    se: np.ndarray


def _noise(rng: np.random.Generator, n_iter: int, S: int, T: int, shapes, lead: tuple[int, ...] = ()):
    """One chain's random numbers for ``n_iter`` iterations: normals ``(*lead, n_iter, S + T + 4)``
    and standard gammas ``(*lead, n_iter, 6)`` of the shapes of the six inverse-gamma draws."""
    z = rng.standard_normal(lead + (n_iter, S + T + 4))
    g = rng.standard_gamma(np.broadcast_to(np.asarray(shapes, dtype=np.float64), lead + (n_iter, 6)))
    return z, g


def gibbs(st: Stats, z: np.ndarray, g: np.ndarray, init: np.ndarray, warmup: int, thin: int = 1) -> Draws:
    """Run the blocked Gibbs sampler on statistics ``st`` (leading shape ``L``, broadcast against the
    chains' ``B``): ``z`` ``(*B, n_iter, S + T + 4)`` standard normals, ``g`` ``(*B, n_iter, 6)``
    standard gammas of shapes ``((S+1)/2, (T+1)/2, (ST+1)/2, 1, 1, 1)``, ``init`` ``(*B, 3)`` the
    initial ``(sa^2, sb^2, se^2)``; the first ``warmup`` iterations are dropped, then every
    ``thin``-th kept."""
    S, T = st.S, st.T
    n_iter = z.shape[-2]
    lead = z.shape[:-2]
    ybar = np.broadcast_to(st.ybar, lead)
    da = np.broadcast_to(st.da, lead + (S,))
    db = np.broadcast_to(st.db, lead + (T,))
    sse0 = np.broadcast_to(st.sse0, lead)
    sa2, sb2, se2 = (np.array(init[..., i], dtype=np.float64) for i in range(3))
    ca, cb, ce = np.ones(lead), np.ones(lead), np.ones(lead)
    n = S * T
    kept = range(warmup, n_iter, thin)
    k = len(kept)
    out = Draws(np.empty(lead + (k,)), np.empty(lead + (k, S)), np.empty(lead + (k,)), np.empty(lead + (k,)),
                np.empty(lead + (k,)))
    d_mu = MU_SD * MU_SD
    j = 0
    for it in range(n_iter):
        zi, gi = z[..., it, :], g[..., it, :]
        za, zb, z4 = zi[..., :S], zi[..., S:S + T], zi[..., S + T:]
        # (mu, a, b) | scales
        pa = T / se2 + 1.0 / sa2
        ac = ((T / se2) / pa)[..., None] * da + np.sqrt(1.0 / pa)[..., None] * (za - (fixed_sum(za) / S)[..., None])
        pb = S / se2 + 1.0 / sb2
        bc = ((S / se2) / pb)[..., None] * db + np.sqrt(1.0 / pb)[..., None] * (zb - (fixed_sum(zb) / T)[..., None])
        v_a, v_b, r = sa2 / S, sb2 / T, se2 / n
        x_mu, x_a, x_b = MU_SD * z4[..., 0], np.sqrt(v_a) * z4[..., 1], np.sqrt(v_b) * z4[..., 2]
        gap = (ybar - ((x_mu + x_a) + x_b) - np.sqrt(r) * z4[..., 3]) / (((d_mu + v_a) + v_b) + r)
        mu, abar, bbar = x_mu + d_mu * gap, x_a + v_a * gap, x_b + v_b * gap
        a = ac + abar[..., None]
        b = bc + bbar[..., None]
        # scales | effects, auxiliaries (Wand et al. 2011)
        m = (mu + abar) + bbar
        ssa = fixed_sum(a * a)
        ssb = fixed_sum(b * b)
        ea, eb = da - ac, db - bc
        sse = ((sse0 + n * (ybar - m) ** 2) + T * fixed_sum(ea * ea)) + S * fixed_sum(eb * eb)
        sa2 = (1.0 / ca + 0.5 * ssa) / gi[..., 0]
        sb2 = (1.0 / cb + 0.5 * ssb) / gi[..., 1]
        se2 = (1.0 / ce + 0.5 * sse) / gi[..., 2]
        ca = (1.0 + 1.0 / sa2) / gi[..., 3]
        cb = (1.0 + 1.0 / sb2) / gi[..., 4]
        ce = (1.0 + 1.0 / se2) / gi[..., 5]
        if it >= warmup and (it - warmup) % thin == 0:
            out.mu[..., j] = mu
            out.a[..., j, :] = a
            out.sa[..., j], out.sb[..., j], out.se[..., j] = np.sqrt(sa2), np.sqrt(sb2), np.sqrt(se2)
            j += 1
    return out


def gamma_shapes(S: int, T: int) -> tuple[float, ...]:
    """The shapes of the six inverse-gamma draws of an iteration: the three scales, the three
    auxiliaries."""
    return ((S + 1) / 2.0, (T + 1) / 2.0, (S * T + 1) / 2.0, 1.0, 1.0, 1.0)


def _initial(st: Stats, rng: np.random.Generator) -> np.ndarray:
    """A chain's initial ``(sa^2, sb^2, se^2)``: the moment estimates, each times ``exp(N(0, 1))``
    (chains start apart, so that R-hat can see a chain that has not mixed)."""
    S, T = st.S, st.T
    base = np.array([fixed_sum(st.da * st.da) / max(S - 1, 1), fixed_sum(st.db * st.db) / max(T - 1, 1),
                     st.sse0 / max((S - 1) * (T - 1), 1)], dtype=np.float64)
    base = np.where(base > 0, base, 1e-4)
    return base * np.exp(rng.standard_normal(3))


# ------------------------------------------------------------------------------ the posterior
@dataclass
class Posterior:
    """One metric's posterior: ``(chains, draws)`` arrays (``a``: ``(chains, draws, S)``)."""

    metric: str
    runs: list[str]
    topics: list[str]
    mu: np.ndarray
    a: np.ndarray
    sa: np.ndarray
    sb: np.ndarray
    se: np.ndarray
    diagnostics: dict = field(default_factory=dict)

    @property
    def chains(self) -> int:
        return int(self.mu.shape[0])

    @property
    def draws(self) -> int:
        return int(self.mu.shape[1])


def check_matrix(matrix, metric: str):
    """The runs x topics array of a topic x run DataFrame; a missing cell, one run or one topic is
    an error naming the metric (and the topic)."""
    from ..errors import InputError

    topics = [str(t) for t in matrix.index]
    runs = [str(r) for r in matrix.columns]
    Y = np.asarray(matrix.to_numpy(dtype=np.float64, na_value=np.nan)).T
    if len(runs) < 2:
        raise InputError(f"bayes: {metric}: {len(runs)} run; the model needs at least two runs")
    if len(topics) < 2:
        raise InputError(f"bayes: {metric}: {len(topics)} topic; the model needs at least two topics")
    bad = ~np.isfinite(Y)
    if bad.any():
        s, t = np.argwhere(bad)[0]
        raise InputError(f"bayes: {metric}: run {runs[s]!r} has no score on topic {topics[t]!r} (the model "
                         f"needs every run on every topic)", topic=topics[t])
    return Y, runs, topics


def fit(matrix, metric: str = "", *, draws: int = DEFAULT_DRAWS, chains: int = DEFAULT_CHAINS, seed: int = 0,
        warmup: int | None = None) -> Posterior:
    """The posterior of the model on ``matrix`` (topic x run DataFrame, every cell a number)."""
    Y, runs, topics = check_matrix(matrix, metric)
    if int(draws) < 4 or int(chains) < 1:
        raise ValueError(f"need draws >= 4 and chains >= 1, got draws={draws}, chains={chains}")
    st = sufficient(Y)
    warm = int(draws) if warmup is None else int(warmup)
    n_iter = warm + int(draws)
    shapes = gamma_shapes(st.S, st.T)
    zs, gs, inits = [], [], []
    for ss in chain_seeds(seed, metric, chains):
        rng = np.random.default_rng(ss)
        inits.append(_initial(st, rng))
        z, g = _noise(rng, n_iter, st.S, st.T, shapes)
        zs.append(z)
        gs.append(g)
    d = gibbs(st, np.stack(zs), np.stack(gs), np.stack(inits), warm)
    post = Posterior(str(metric), runs, topics, d.mu, d.a, d.sa, d.sb, d.se)
    post.diagnostics = diagnostics(post)
    return post


# ---------------------------------------------------------------------------- the diagnostics
def _split(x: np.ndarray) -> np.ndarray:
    """``(P, C, N)`` -> ``(P, 2C, N // 2)``: each chain's first and last halves (the middle draw of
    an odd chain dropped), as ArviZ's ``_split_chains``."""
    half = x.shape[-1] // 2
    return np.concatenate([x[..., :half], x[..., x.shape[-1] - half:]], axis=-2)


def _z_scale(x: np.ndarray) -> np.ndarray:
    """Rank-normalised draws of each parameter (``(P, C, N)``): average ranks over all its draws,
    ``Phi^-1((r - 3/8) / (n + 1/4))`` (Vehtari et al. 2021, eq. 14)."""
    from scipy import special, stats

    P = x.shape[0]
    flat = x.reshape(P, -1)
    r = stats.rankdata(flat, method="average", axis=-1)
    return special.ndtri((r - 0.375) / (flat.shape[-1] + 0.25)).reshape(x.shape)


def _rhat(x: np.ndarray) -> np.ndarray:
    """The (non-split) potential scale reduction of ``(P, C, N)`` chains."""
    n = x.shape[-1]
    means = fixed_sum(x) / n
    w = fixed_sum(fixed_sum((x - means[..., None]) ** 2) / (n - 1)) / x.shape[-2]
    m = fixed_sum(means) / x.shape[-2]
    between = n * fixed_sum((means - m[..., None]) ** 2) / (x.shape[-2] - 1)
    return np.sqrt((between / w + n - 1) / n)


def split_rhat(x) -> np.ndarray:
    """Rank-normalised split R-hat of each parameter of ``(P, chains, draws)``: the larger of the
    bulk (rank-normalised) and the tail (folded about the median) value (Vehtari et al. 2021;
    ArviZ's ``rhat(method="rank")``)."""
    sx = _split(np.asarray(x, dtype=np.float64))
    bulk = _rhat(_z_scale(sx))
    med = np.median(sx.reshape(sx.shape[0], -1), axis=-1)
    tail = _rhat(_z_scale(np.abs(sx - med[:, None, None])))
    return np.maximum(bulk, tail)


def _ess(x: np.ndarray) -> np.ndarray:
    """Effective sample size of ``(P, C, N)`` chains (Geyer's initial positive and monotone sequences,
    as Stan and ArviZ's ``_ess``), vectorised over the parameters."""
    P, C, N = x.shape
    xc = x - (fixed_sum(x) / N)[..., None]
    size = 1 << int(2 * N - 1).bit_length()
    f = np.fft.rfft(xc, n=size, axis=-1)
    acov = np.fft.irfft(f * np.conjugate(f), n=size, axis=-1)[..., :N] / N      # (P, C, N), biased
    chain_mean = fixed_sum(x) / N
    mean_var = fixed_sum(acov[..., 0]) / C * N / (N - 1.0)
    var_plus = mean_var * (N - 1.0) / N
    if C > 1:
        cm = fixed_sum(chain_mean) / C
        var_plus = var_plus + fixed_sum((chain_mean - cm[:, None]) ** 2) / (C - 1)
    rho = 1.0 - (mean_var[:, None] - fixed_sum(np.moveaxis(acov, 1, -1)) / C) / var_plus[:, None]   # (P, N)
    rho[:, 0] = 1.0
    K2 = N // 2
    pairs = rho[:, 0:2 * K2:2] + rho[:, 1:2 * K2:2]                        # P_k, k = 0 .. K2 - 1
    k = np.arange(1, K2)
    go = (pairs[:, :-1] > 0) & ((2 * k - 1) < N - 3)[None, :]                # iteration k runs
    K = np.cumprod(go, axis=1).sum(axis=1)                                   # iterations run
    mono = np.minimum.accumulate(pairs, axis=1)
    csum = np.concatenate([np.zeros((P, 1)), np.cumsum(mono, axis=1)], axis=1)
    head = csum[np.arange(P), K]                                             # sum of cummin P_0 .. P_(K-1)
    idx = np.minimum(2 * K, N - 1)
    r2k = rho[np.arange(P), idx]
    pk = pairs[np.arange(P), np.minimum(K, K2 - 1)]
    last = np.where(K == 0, 1.0, np.where((pk >= 0) | (r2k > 0), r2k, 0.0))
    tau = -1.0 + 2.0 * head + last
    total = C * N
    tau = np.maximum(tau, 1.0 / np.log10(total))
    return total / tau


def ess_bulk(x) -> np.ndarray:
    """Bulk effective sample size of each parameter of ``(P, chains, draws)``: the ESS of the
    rank-normalised split chains (Vehtari et al. 2021; ArviZ's ``ess(method="bulk")``)."""
    return _ess(_z_scale(_split(np.asarray(x, dtype=np.float64))))


def _parameters(post: Posterior) -> tuple[list[str], np.ndarray]:
    names = ["mu", "sigma_system", "sigma_topic", "sigma_residual"] + [f"a[{r}]" for r in post.runs]
    x = np.concatenate([np.stack([post.mu, post.sa, post.sb, post.se]), np.moveaxis(post.a, -1, 0)])
    return names, x


def diagnostics(post: Posterior) -> dict:
    """``{"rhat_max", "ess_min", "worst_rhat", "worst_ess"}`` over mu, the three scales and every
    ``a[s]``."""
    names, x = _parameters(post)
    if post.chains * post.draws < 8 or post.draws < 4:
        return {"rhat_max": float("nan"), "ess_min": float("nan"), "worst_rhat": "", "worst_ess": ""}
    rh = split_rhat(x)
    es = ess_bulk(x)
    return {"rhat_max": float(rh.max()), "ess_min": float(es.min()), "worst_rhat": names[int(rh.argmax())],
            "worst_ess": names[int(es.argmin())]}


# -------------------------------------------------------------------------------- the tables
_Q = (0.025, 0.975)


def _mean(x: np.ndarray) -> np.ndarray:
    return fixed_sum(x) / x.shape[-1]


def run_summary(post: Posterior) -> dict[str, np.ndarray]:
    """Per run: the posterior mean and 95% interval of ``mu + a[s]``, and ``P(s is the best run)``."""
    a = post.a.reshape(-1, len(post.runs))                   # (draws, S), chains pooled
    theta = (post.mu.reshape(-1)[:, None] + a).T             # (S, draws)
    lo, hi = np.quantile(theta, _Q, axis=-1)
    best = np.argmax(a, axis=1)
    p_best = np.bincount(best, minlength=len(post.runs)) / a.shape[0]
    return {"mean": _mean(theta), "ci_low": lo, "ci_high": hi, "p_best": p_best}


def pair_summary(post: Posterior) -> dict[str, np.ndarray]:
    """Every ordered pair ``(s, r)``, ``s != r`` (row-major): the posterior mean and 95% interval of
    ``a[s] - a[r]``, ``P(a[s] > a[r])`` and the effect size ``(a[s] - a[r]) / se`` (posterior mean)."""
    S = len(post.runs)
    a = post.a.reshape(-1, S).T                              # (S, draws)
    se = post.se.reshape(-1)
    s_idx, r_idx = np.nonzero(~np.eye(S, dtype=bool))
    out = {k: np.empty(len(s_idx)) for k in ("diff", "ci_low", "ci_high", "p_greater", "effect")}
    step = max(1, 2_000_000 // max(a.shape[1], 1))           # pairs per block: bounded memory
    for i in range(0, len(s_idx), step):
        sl = slice(i, i + step)
        d = a[s_idx[sl]] - a[r_idx[sl]]
        out["diff"][sl] = _mean(d)
        out["ci_low"][sl], out["ci_high"][sl] = np.quantile(d, _Q, axis=-1)
        out["p_greater"][sl] = np.count_nonzero(d > 0, axis=-1) / d.shape[-1]
        out["effect"][sl] = _mean(d / se)
    return {"run": s_idx, "other": r_idx, **out}


@dataclass(repr=False)
class BayesResult(Result):
    """What :func:`bayes_tables` computed: the three tables (``runs``, ``pairs``, ``fit``), the
    posteriors, the paired t test's p-values of the pairs in ``pairs``' row order per metric (the
    Markdown view's column) and the convergence warnings."""

    runs: Any
    pairs: Any
    fit: Any
    posteriors: dict
    t_pvalues: dict
    warnings: list[str]

    @property
    def tables(self) -> dict:
        return {"bayes_runs": self.runs, "bayes_pairs": self.pairs, "bayes_fit": self.fit}

    def __repr__(self) -> str:
        from .display import short_repr

        return short_repr("BayesResult", self.tables)

    def _repr_html_(self) -> str:
        from .display import html_view

        return html_view("BayesResult", self.tables, "bayes_runs")


def convergence_warning(metric: str, rhat: float, ess: float, draws: int) -> str | None:
    """The warning of a fit whose R-hat exceeds :data:`RHAT_MAX` or whose bulk ESS is under
    :data:`ESS_MIN` (Vehtari et al. 2021), naming what to raise."""
    parts = []
    if not rhat <= RHAT_MAX:
        parts.append(f"R-hat {rhat:.4f} > {RHAT_MAX}")
    if not ess >= ESS_MIN:
        parts.append(f"bulk ESS {ess:.0f} < {ESS_MIN:.0f}")
    if not parts:
        return None
    return (f"bayes: {metric}: {' and '.join(parts)} (Vehtari et al. 2021); raise --draws (now {draws}) or "
            f"--chains")


def bayes_tables(matrices: dict, metrics=None, *, draws: int = DEFAULT_DRAWS, chains: int = DEFAULT_CHAINS,
                 seed: int = 0) -> BayesResult:
    """The tables ``bayes_runs``, ``bayes_pairs`` and ``bayes_fit`` of every metric of ``matrices``
    (``{metric: topic x run DataFrame}``)."""
    import pandas as pd

    from ..errors import warn_input
    from .pairtests import paired_t

    names = list(matrices) if metrics is None else [str(m) for m in metrics]
    runs_rows, pair_frames, fit_rows, posts, tp, warns = [], [], [], {}, {}, []
    for m in names:
        post = fit(matrices[m], m, draws=draws, chains=chains, seed=seed)
        posts[m] = post
        rs = run_summary(post)
        runs_rows.append(pd.DataFrame({"metric": m, "run": post.runs, **rs}))
        ps = pair_summary(post)
        run_names = np.asarray(post.runs, dtype=object)
        pair_frames.append(pd.DataFrame({"metric": m, "run": run_names[ps["run"]], "other": run_names[ps["other"]],
                                         **{k: ps[k] for k in ("diff", "ci_low", "ci_high", "p_greater", "effect")}}))
        X = np.asarray(matrices[m].to_numpy(dtype=np.float64))          # topics x runs
        _, p = paired_t(X[:, ps["run"]] - X[:, ps["other"]])
        tp[m] = p
        dg = post.diagnostics
        fit_rows.append({"metric": m, "sigma_system": float(_mean(post.sa.reshape(-1))),
                         "sigma_topic": float(_mean(post.sb.reshape(-1))),
                         "sigma_residual": float(_mean(post.se.reshape(-1))),
                         "rhat_max": dg["rhat_max"], "ess_min": dg["ess_min"], "divergences": 0,
                         "chains": post.chains, "draws": post.draws})
        w = convergence_warning(m, dg["rhat_max"], dg["ess_min"], post.draws)
        if w:
            warns.append(w)
            warn_input(w)
    runs = pd.concat(runs_rows, ignore_index=True) if runs_rows else pd.DataFrame(columns=RUN_COLUMNS)
    pairs = pd.concat(pair_frames, ignore_index=True) if pair_frames else pd.DataFrame(columns=PAIR_COLUMNS)
    fitf = pd.DataFrame(fit_rows, columns=list(FIT_COLUMNS))
    return BayesResult(runs[list(RUN_COLUMNS)], pairs[list(PAIR_COLUMNS)], fitf, posts, tp, warns)


RUN_COLUMNS = ("metric", "run", "mean", "ci_low", "ci_high", "p_best")
PAIR_COLUMNS = ("metric", "run", "other", "diff", "ci_low", "ci_high", "p_greater", "effect")
FIT_COLUMNS = ("metric", "sigma_system", "sigma_topic", "sigma_residual", "rhat_max", "ess_min", "divergences",
               "chains", "draws")


def fit_summary(post: Posterior) -> dict:
    """The posterior means of the three scales of ``post``."""
    return {"sigma_system": float(_mean(post.sa.reshape(-1))), "sigma_topic": float(_mean(post.sb.reshape(-1))),
            "sigma_residual": float(_mean(post.se.reshape(-1)))}
