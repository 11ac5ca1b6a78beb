"""Stage ``judgments``: judgments as a dimension (``metaeval judgments``, its own job per collection
with a ``judgments:`` block): who judged, and what it changes."""

from __future__ import annotations

from ...stages import Output, StageInfo
from .cite import SAKAI_14

_JUDG_LABEL_REGEN = ("the inter-assessor agreement of Voorhees (2000) with Cohen (1960)'s kappa and "
                     "Krippendorff (2004)'s alpha")
_JUDG_RANK_REGEN = ("the ranking correlations of Voorhees (2000) with tau_AP (Yilmaz et al. (2008)), "
                    "RBO (Webber et al. (2010)) and the top-k tau of Clarke & Dietz (2024)")

STAGE = StageInfo(
    "judgments", "other",
    outputs=(
        Output("label_agreement", "table", "judgments",
               "Label agreement between every two qrels sets on the (topic, document) pairs both judged: "
               "share of equal labels, Cohen's kappa unweighted, with linear and quadratic weights and on "
               "binary relevance (level >= threshold), Krippendorff's alpha (nominal, ordinal, interval), "
               "precision, recall, F1 and Jaccard of the relevant labels (level >= threshold; the reference, "
               "else the first set, as the truth) and the adjusted Rand index of Hubert & Arabie (1985); "
               "last row: Krippendorff's alpha over all sets at once", _JUDG_LABEL_REGEN,
               columns=("qrels_a", "qrels_b", "topics", "pairs", "agreement", "kappa", "kappa_linear", "kappa_quadratic",
                        "kappa_binary", "threshold", "alpha_nominal", "alpha_ordinal", "alpha_interval", "precision", "recall",
                        "f1", "jaccard", "ari")),
        Output("ranking_agreement", "table", "judgments",
               "Does the ranking of the runs survive another assessor? Per metric and qrels set against the "
               "reference: Kendall's tau-a with its 95% BCa bootstrap interval (Efron 1987), tau-b, "
               "tau_AP (the reference as the truth), RBO, Kendall's tau among the reference's top k runs, "
               "the largest change of a run's rank, Pearson's r, Spearman's rho, tau_AP-b (Urbano & Marrero "
               "2017) and tau_GAP (Gao & Oard 2015) of the run means", _JUDG_RANK_REGEN,
               columns=("metric", "qrels", "reference", "runs", "topics", "tau", "tau_b", "tau_ap", "rbo", "top_k",
                        "tau_top", "max_rank_change", "tau_ci_low", "tau_ci_high", "pearson", "spearman", "tau_ap_b",
                        "tau_gap")),
        Output("topic_ranking_agreement", "table", "judgments",
               "Per metric, qrels set and topic: the correlation of the runs' scores on that topic under the "
               "reference and under the set (Kendall's tau-a and tau-b, Pearson's r, Spearman's rho)",
               "the per-topic correlations of TREC's AutoJudge evaluation, with Kendall (1945)'s tau",
               columns=("metric", "qrels", "reference", "topic", "runs", "tau", "tau_b", "pearson", "spearman"),
               formats=("csv",)),
        Output("run_ranks", "table", "judgments",
               "Every run's mean and rank (1 = best) per metric under the reference and under each qrels set, "
               "and its change of rank (reference rank - rank under the set: positive = the run gains)",
               _JUDG_RANK_REGEN, columns=("metric", "run", "qrels", "mean", "rank", "rank_change")),
        Output("decision_agreement", "table", "judgments",
               "Do the significance decisions survive another assessor? Per metric and qrels set: run pairs "
               "significant at alpha = {alpha} under the reference and under the set, pairs with the same "
               "decision, pairs reversed (significant under both in opposite directions) and the share of "
               "pairs with the same decision",
               "the significance decisions of Voorhees (2000) under the tests of metaeval compare",
               columns=("metric", "qrels", "reference", "pairs", "significant_reference", "significant_qrels",
                        "same_decision", "reversed", "agreement")),
        Output("qrels_discriminative_power", "table", "judgments",
               "Discriminative power under each qrels set: system pairs with p < alpha = {alpha} under every "
               "test, each set over its own topics", f"the discriminative power of {SAKAI_14} per assessor",
               columns=("qrels", "metric", "test", "alpha", "pairs", "significant", "share")),
        Output("run_means", "figure", "judgments",
               "Mean score of every run under the reference (x) and under each qrels set (y, a colour per "
               "set), one panel per metric with its tau in the title, the diagonal dotted",
               "Voorhees (2000) Fig. 1", source="run_ranks"),
        Output("ranking_agreement", "figure", "judgments",
               "Kendall's tau (with its BCa bootstrap interval, Efron 1987) and tau_AP between the reference's ranking of "
               "the runs and each qrels set's, by metric", _JUDG_RANK_REGEN, source="ranking_agreement"),
        Output("judgments", "text", "judgments",
               "The label-agreement details: confusion counts of every two sets (confusion/A__B.csv, A's "
               "levels as rows), agreement and kappa per topic (topic_agreement.csv), coverage of every "
               "set and of every run's top k by every set (coverage.csv), and every filled (hybrid) set "
               "as TREC qrels (qrels/NAME.txt)", _JUDG_LABEL_REGEN,
               columns=("qrels_a", "qrels_b", "topic", "pairs", "agreement", "kappa"),
               formats=("confusion/A__B.csv", "topic_agreement.csv", "coverage.csv", "qrels/NAME.txt")),
    ))
