"""Stage ``rank_correlation``: rank correlations beyond Kendall's tau (tau_AP, RBO and their
tie-aware variants) of every ordered pair of metrics, with bootstrap intervals
(:mod:`metaeval.meta.rankcorr`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import StageInfo, parameter


def _check(v):
    from ..rankcorr import check_rbo_p

    check_rbo_p(v)


def run(inputs, params):
    from ..rankcorr import stage_rank_correlation

    return stage_rank_correlation(inputs.matrices, list(inputs.metrics), B=params.B, seed=params.seed,
                                  rbo_p=params.rbo_p, batch=params.batch, samples=inputs.samples[0])


@dataclass(frozen=True)
class RankCorrelationParams:
    """The stage's parameters (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    rbo_p: float = parameter(0.9,
        "persistence p of rank-biased overlap in the rank_correlation table (RBO, RBO^a, RBO^b; "
        "Webber et al. 2010, Corsi & Urbano 2024; default 0.9)", metavar="P", config=("rank_correlation", "rbo_p"),
        schema={"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        doc="Persistence p of rank-biased overlap (Webber et al. 2010 - 0.9).", check=_check)


STAGE = StageInfo(
    "rank_correlation", "matrices", run, tables=("rank_correlation",), metrics="plain", streams=("paired",),
    cost=1.5, title="rank correlations",
    params=RankCorrelationParams,
    reads=("B", "seed", "rbo_p", "metrics"),
    sections=((("rank_correlation",),
               "Rank correlation beyond Kendall's tau (tables/rank_correlation, docs/meta.md) - tau-a, tau-b, "
               "tau_AP (Yilmaz et al. 2008), tau_AP-a and tau_AP-b (Urbano & Marrero 2017), RBO (Webber et "
               "al. 2010), RBO^a and RBO^b (Corsi & Urbano 2024), with bootstrap intervals over the paired "
               "samples of `bootstrap` (its B and seed)."),))
