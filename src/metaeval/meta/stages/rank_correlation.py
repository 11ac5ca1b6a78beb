"""Stage ``rank_correlation``: rank correlations beyond Kendall's tau (tau_AP, RBO and their
tie-aware variants) of every ordered pair of metrics, with bootstrap intervals
(:mod:`metaeval.meta.rankcorr`)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import Output, StageInfo, parameter
from .cite import SAKAI_A, SAKAI_B


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


_RANKCORR_REFS = ("tau_AP (Yilmaz et al. (2008)), its tie-aware variants tau_AP-a and tau_AP-b "
                  "(Urbano & Marrero (2017)), rank-biased overlap RBO (Webber et al. (2010)) and its "
                  "tie-aware variants RBO^a and RBO^b (Corsi & Urbano (2024))")
_RANKCORR_REGEN = (f"Table 2 of {SAKAI_A} / Table 5 of {SAKAI_B}, extended with the coefficients "
                   "of Yilmaz et al. (2008), Urbano & Marrero (2017), Webber et al. (2010) and "
                   "Corsi & Urbano (2024)")
_RANKCORR_COEFS = ("tau_a", "tau_b", "tau_ap", "tau_ap_a", "tau_ap_b", "rbo", "rbo_a", "rbo_b")


STAGE = StageInfo(
    "rank_correlation", "matrices", run, tables=("rank_correlation",), metrics="plain", streams=("paired",),
    cost=1.5, title="rank correlations",
    params=RankCorrelationParams,
    reads=("B", "seed", "rbo_p", "metrics"),
    sections=((("rank_correlation",),
               ("Rank correlation beyond Kendall's tau (tables/rank_correlation, docs/meta.md) - tau-a, tau-b, "
               "tau_AP (Yilmaz et al. 2008), tau_AP-a and tau_AP-b (Urbano & Marrero 2017), RBO (Webber et "
               "al. 2010), RBO^a and RBO^b (Corsi & Urbano 2024), with bootstrap intervals over the paired "
               "samples of `bootstrap` (its B and seed).")),),
    outputs=(
        Output("rank_correlation", "table", "collection",
               "Rank correlations between the system rankings of every two metrics, one full matrix "
               "per coefficient (row = reference ranking a, column = estimate b): Kendall's tau-a and "
               f"tau-b, {_RANKCORR_REFS}; RBO with the configured persistence p; tau values above 0.8 "
               "in bold; '-' = undefined (or the diagonal); the CSV adds each coefficient's bootstrap "
               "interval (2.5th and 97.5th percentiles over the paired bootstrap samples)", _RANKCORR_REGEN,
               columns=("metric_a", "metric_b", *_RANKCORR_COEFS,
                        *(f"{c}_{s}" for c in _RANKCORR_COEFS for s in ("low", "high"))), paper_order=14),
        Output("rank_correlation", "figure", "collection",
               "Rank correlations between the system rankings of every two metrics: one heat map per "
               "coefficient (Kendall's tau-a and tau-b, " + _RANKCORR_REFS + "), row = reference "
               "ranking a, column = estimate b, values printed; undefined cells blank", _RANKCORR_REGEN,
               stages=("figures",), source="rank_correlation", draw_seconds=2.3,
               draw="metaeval.report.figures:plot_rank_correlation"),
        Output("rank_correlation", "table", "summary",
               "Tie-aware rank correlations of every metric pair per collection: tau_AP-b "
               "(Urbano & Marrero (2017)) and RBO^a (Corsi & Urbano (2024)) with the configured "
               "persistence p", f"{_RANKCORR_REGEN}, across collections", stages=("summary",),
               columns=("metric_a", "metric_b", "coefficient", "COLLECTION..."), source="rank_correlation",
               build="metaeval.report.summary:build_rank_correlation"),
    ))
