"""Stage ``bayes``: Bayesian inference on every collection -- the crossed topic x run model of Sakai
(2017) and Benham, Carterette, Culpepper & Moffat (2020) (:mod:`metaeval.meta.bayes`): per run the
posterior of its mean and the probability that it is the best, per ordered pair of runs the
posterior of the difference, ``P(a[s] > a[r])`` and the effect size, per metric the scales and the
convergence diagnostics.  An own job (kind ``other`` with a ``run``): ``metaeval stage bayes``,
``metaeval.run_stage("bayes", ...)`` and, when ``bayes: {enabled: true}``, the generic rule
``own_job_bayes`` per collection (``workflow/rules/own_job.smk``) run it; its own command
(``metaeval bayes``, :mod:`metaeval.cli.bayes`, also on qrels and runs) and API function
(:func:`metaeval.api.bayes`, returning the whole result) write through the same writer
(:func:`metaeval.pipeline.write_own_outputs`).  Its parameters, its config section, its tables and
figures are declared here (the computation: :mod:`metaeval.meta.bayes`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...argtypes import int_at_least
from ...stages import JobPlan, Output, PlanView, StageInfo, parameter
from .common import BAYES_CHAINS, BAYES_DRAWS, SEED

_B = "bayes"
_REF = "Sakai (2017); Benham, Carterette, Culpepper & Moffat (2020)"
_MODEL = ("the crossed model y[s,t] = mu + a[s] + b[t] + e[s,t] (a ~ N(0, sa^2), b ~ N(0, sb^2), e ~ N(0, se^2), "
          "mu ~ N(0, 10^2), sa, sb, se ~ half-Cauchy(0, 1))")
#: the sampler's defaults (metaeval.meta.bayes.DEFAULT_DRAWS, DEFAULT_CHAINS read them)
DEFAULT_DRAWS, DEFAULT_CHAINS = BAYES_DRAWS, BAYES_CHAINS


def plan(p: PlanView) -> JobPlan:
    """The metrics of the stage's job in the plan of a config: its own ``metrics`` or the config's
    (``reads``: its rule's matrices), computed by the metrics job when the stage is on."""
    cfg = p.config.get(_B) or {}
    metrics = tuple(p.measures(cfg["metrics"], "bayes.metrics") if cfg.get("metrics") else p.metrics)
    return JobPlan(values={"bayes_metrics": metrics}, reads=metrics,
                   matrices=metrics if p.switched_on(STAGE) else (), data=True, labels=True)


#: the name of the job's frame of the paired t test's p-values (no table: the layout of
#: ``bayes_pairs`` reads it from its context, :mod:`metaeval.report.bayes_layouts`)
T_PVALUES = "bayes_t_pvalues"


def frames(result) -> dict:
    """The job's frames of a :class:`metaeval.meta.bayes.BayesResult`: its three tables and the
    paired t test's p-values of the pairs (a frame ``metric, run, other, p``: no table of its own, the
    Markdown and LaTeX of ``bayes_pairs`` show it: :data:`T_PVALUES`)."""
    import pandas as pd

    pairs = result.tables["bayes_pairs"]
    tp = [pd.DataFrame({"metric": str(m), "run": [str(r) for r in g["run"]], "other": [str(o) for o in g["other"]],
                        "p": [float(v) for v in result.t_pvalues[m]]})
          for m, g in ((m, pairs[pairs["metric"] == m]) for m in result.t_pvalues)]
    t_pvalues = pd.concat(tp, ignore_index=True) if tp else pd.DataFrame(columns=["metric", "run", "other", "p"])
    return {**result.tables, T_PVALUES: t_pvalues}


def run(inputs, params: BayesParams) -> dict:
    """The stage on a collection's matrices (``inputs.matrices``: every run on every topic): the
    crossed model fitted per metric of ``params.bayes_metrics`` (None: every matrix given), as
    :func:`frames` gives them."""
    from ..bayes import bayes_tables, check_matrix

    names = list(params.bayes_metrics) if params.bayes_metrics else list(inputs.matrices)
    for m in names:
        check_matrix(inputs.matrices[m], m)
    return frames(bayes_tables(dict(inputs.matrices), names, draws=params.bayes_draws,
                               chains=params.bayes_chains, seed=params.bayes_seed))


@dataclass(frozen=True)
class BayesParams:
    """The stage's parameters: the options of its command (``metaeval bayes``, whose ``--metrics``
    is that of its measures) and the keywords of :func:`metaeval.api.bayes` (no MetaConfig fields)."""

    bayes_metrics: tuple[str, ...] | None = parameter(None, "metrics (default: every matrix)", flag="--metrics",
        nargs="+", config=(_B, "metrics"), field=False,
        schema={"type": ["array", "null"], "items": {"type": "string", "minLength": 1}},
        doc="The metrics fitted (null = the config's `metrics`).")
    bayes_draws: int = parameter(DEFAULT_DRAWS,
        f"kept draws per chain, after as many warm-up iterations (default {DEFAULT_DRAWS})", flag="--draws",
        config=(_B, "draws"), field=False, parse=int_at_least(100), schema={"type": "integer", "minimum": 100},
        doc="Kept draws per chain (as many warm-up iterations are dropped before them).")
    bayes_chains: int = parameter(DEFAULT_CHAINS, f"chains (default {DEFAULT_CHAINS})", flag="--chains",
        config=(_B, "chains"), field=False, parse=int_at_least(2), schema={"type": "integer", "minimum": 2},
        doc="Independent chains (split R-hat compares them).")
    bayes_seed: int = parameter(SEED, f"random seed (default {SEED})", flag="--seed", config=(_B, "seed"), field=False,
        schema={"type": "integer", "minimum": 0}, doc="Random seed of the chains.")



STAGE = StageInfo(
    _B, "other", run, tables=("bayes_runs", "bayes_pairs", "bayes_fit"),
    condition=_B, switch=(_B, "enabled"), switch_default=False, plan=plan,
    switch_doc="Run the stage (tables bayes_runs, bayes_pairs and bayes_fit).",
    title=f"Bayesian inference: P(run A better than run B), credible intervals, effect sizes ({_REF})",
    params=BayesParams,
    reads=("bayes_metrics", "bayes_draws", "bayes_chains", "bayes_seed"),
    sections=(((_B,),
               (f"Bayesian inference (stage bayes, one job per collection, `metaeval bayes`): {_MODEL} fitted per "
                f"metric on every run and topic by an exact Gibbs sampler, as {_REF} propose; the posterior of "
                "every run's mean, P(best), every pair's difference, P(a[s] > a[r]) and effect size, split R-hat "
                "and bulk ESS (Vehtari et al. 2021). See docs/meta.md.")),),
    outputs=(
        Output("bayes_runs", "table", "collection",
               f"Bayesian inference on {_MODEL}: per metric and run the posterior mean of "
               "the run's mean mu + a[s], its 95% credible interval (2.5% and 97.5% posterior quantiles) and the "
               "posterior probability that it is the best run (p_best)",
               f"the credible intervals of {_REF}",
               columns=("metric", "run", "mean", "ci_low", "ci_high", "p_best"), condition=_B),
        Output("bayes_pairs", "table", "collection",
               "Bayesian comparison of every ordered pair of runs: the posterior mean of "
               "a[s] - a[r] (diff) and its 95% credible interval, P(a[s] > a[r]) (p_greater) and the effect size "
               "(a[s] - a[r]) / se (posterior mean); the Markdown and LaTeX add the paired t test's two-sided "
               "p-value of the same pair, the comparison Sakai (2017) makes",
               f"the posterior probabilities and effect sizes of {_REF}",
               columns=("metric", "run", "other", "diff", "ci_low", "ci_high", "p_greater", "effect"), condition=_B),
        Output("bayes_fit", "table", "collection",
               "The fit of the crossed model per metric: the posterior means of the "
               "system, topic and residual scales, the largest rank-normalised split R-hat and the smallest "
               "bulk effective sample size over mu, the scales and every a[s] (Vehtari et al. 2021; R-hat above "
               "1.01 or an ESS under 400 is warned about), the divergent transitions (none: a Gibbs sampler has "
               "none), the chains and the kept draws per chain",
               f"the model fits of {_REF}",
               columns=("metric", "sigma_system", "sigma_topic", "sigma_residual", "rhat_max", "ess_min",
                        "divergences", "chains", "draws"), condition=_B),
        Output("bayes_intervals", "figure", "collection",
               "Every run's posterior mean mu + a[s] with its 95% credible interval, "
               "best first, one panel per metric", f"the credible-interval plots of {_REF}",
               source="bayes_runs", condition=_B, draw="metaeval.report.bayes:plot_bayes_intervals"),
        Output("bayes_p_greater", "figure", "collection",
               "P(row > column): the posterior probability that the row's run is better "
               "than the column's, runs ordered best first, one panel per metric",
               f"the pairwise posterior probabilities of {_REF}", source="bayes_pairs", condition=_B,
               draw="metaeval.report.bayes:plot_bayes_p_greater"),
    ),
    when="bayes enabled")
