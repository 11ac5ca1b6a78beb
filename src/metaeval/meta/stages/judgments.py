"""Stage ``judgments``: judgments as a dimension (``metaeval judgments``, its own job per collection
with a ``judgments:`` block): who judged, and what it changes."""

from __future__ import annotations

from ...stages import JobPlan, Output, PlanView, Scope, StageInfo, format_args, quote
from .cite import SAKAI_14

_JUDG_LABEL_REGEN = ("the inter-assessor agreement of Voorhees (2000) with Cohen (1960)'s kappa and "
                     "Krippendorff (2004)'s alpha")
_JUDG_RANK_REGEN = ("the ranking correlations of Voorhees (2000) with tau_AP (Yilmaz et al. (2008)), "
                    "RBO (Webber et al. (2010)) and the top-k tau of Clarke & Dietz (2024)")

def plan(p: PlanView) -> JobPlan:
    """The collections with a ``judgments:`` block, one job each (``workflow/rules/judgments.smk``):
    each one's qrels files and command options."""
    cs = tuple(c for c in p.collections if p.collection(c).get("judgments"))
    return JobPlan(collections=cs, inputs={c: tuple(judgment_files(p, c)) for c in cs},
                   args={c: judgments_args(p, c) for c in cs})


def judgment_files(p: PlanView, c: str) -> list[str]:
    """Every qrels file of collection ``c``'s judgments job (its inputs: a changed file re-runs it)."""
    j = p.collection(c)["judgments"]
    out = [p.collection(c)["qrels"]]
    for v in j["qrels"].values():
        out += [v] if isinstance(v, str) else list(v)
    return out


def judgments_args(p: PlanView, c: str) -> str:
    """The ``metaeval judgments`` options of collection ``c``, from its ``judgments:`` block (its
    sets are named files and fills, which no stage parameter declares: the block is read here), the
    bootstrap settings and the collection's gains, order and depth."""
    cc = p.collection(c)
    j = cc["judgments"]
    ref = j.get("reference", "reference")
    sets = [f"{ref}={cc['qrels']}"] + [f"{n}={v if isinstance(v, str) else ','.join(v)}"
                                       for n, v in j["qrels"].items()]
    metrics = j.get("metrics") or p.metrics
    boot = p.config["bootstrap"]
    return " ".join(x for x in [
        format_args(qrels=sets, reference=ref, metrics=metrics, top_k=j.get("top_k", 10),
                    test=j.get("test", "paired-t"), correction=j.get("correction"),
                    topic_set=topic_set(j, c), on_conflict=j.get("on_conflict", "error"),
                    threshold=j.get("threshold"), B=boot["B"], alpha=boot["alpha"], seed=boot["seed"],
                    rbo_p=p.config["rank_correlation"]["rbo_p"],
                    gains=cc.get("gains"), order=cc.get("order", "file"), depth=cc.get("depth", 1000),
                    trec_eval_version=p.trec_eval_version()),
        " ".join(f"--fill {quote(f'{n}={v}')}" for n, v in (j.get("fill") or {}).items()),
        " ".join(f"--results {quote(f'{n}={v}')}" for n, v in (j.get("results") or {}).items())] if x)


def topic_set(j: dict, c: str) -> str:
    """The topics a ``judgments:`` block ranks each set over (``--topic-set``): its ``topic_set``, else
    ``topics`` (its deprecated name: ``--topics`` is a topic-set size in the other commands), else
    ``common``; the two given with different values: a ``ValueError``."""
    new, old = j.get("topic_set"), j.get("topics")
    if new is not None and old is not None and new != old:
        raise ValueError(f"config: collections.{c}.judgments: topic_set {new!r} and topics {old!r} (its deprecated "
                         f"name) disagree - give topic_set only")
    return new or old or "common"


def targets(p: PlanView) -> list[str]:
    """Its files, ``results/C/judgments/...``, for every collection with a ``judgments:`` block."""
    return [f"{p.results}/{c}/judgments/{f}" for c in p.job("judgments").collections
            for f in p.output_files("judgments")]


STAGE = StageInfo(
    "judgments", "other", plan=plan, targets=targets, scopes=(Scope("judgments"),),
    outputs=(
        Output("label_agreement", "table", "judgments",
               "Label agreement between every two qrels sets on the (topic, document) pairs both judged: "
               "share of equal labels, Cohen's kappa unweighted, with linear and quadratic weights and on "
               "binary relevance (level >= threshold), Krippendorff's alpha (nominal, ordinal, interval), "
               "precision, recall, F1 and Jaccard of the relevant labels (level >= threshold; the reference, "
               "else the first set, as the truth) and the adjusted Rand index of Hubert & Arabie (1985); "
               "last row: Krippendorff's alpha over all sets at once", _JUDG_LABEL_REGEN,
               columns=("qrels_a", "qrels_b", "topics", "pairs", "agreement", "kappa", "kappa_linear",
                        "kappa_quadratic", "kappa_binary", "threshold", "alpha_nominal", "alpha_ordinal",
                        "alpha_interval", "precision", "recall", "f1", "jaccard", "ari")),
        Output("ranking_agreement", "table", "judgments",
               "Does the ranking of the runs survive another assessor? Per metric and qrels set against the "
               "reference: Kendall's tau-a with its 95% BCa bootstrap interval (Efron 1987: corrected for the "
               "bootstrap distribution's bias and skew, so it need not contain the estimate), tau-b, "
               "tau_AP (the reference as the truth), RBO, Kendall's tau among the reference's top k runs, "
               "the largest change of a run's rank, Pearson's r, Spearman's rho, tau_AP-b (Urbano & Marrero "
               "2017) and tau_GAP (Gao & Oard 2015) of the run means; topics: the set's topics compared, "
               "topics_reference the reference's", _JUDG_RANK_REGEN,
               columns=("metric", "qrels", "reference", "runs", "topics", "tau", "tau_b", "tau_ap", "rbo", "top_k",
                        "tau_top", "max_rank_change", "tau_ci_low", "tau_ci_high", "pearson", "spearman", "tau_ap_b",
                        "tau_gap", "topics_reference")),
        Output("topic_ranking_agreement", "table", "judgments",
               "Per metric, qrels set and topic: the correlation of the runs' scores on that topic under the "
               "reference and under the set (Kendall's tau-a and tau-b, Pearson's r, Spearman's rho)",
               "the run-ranking comparison of Voorhees (2000) topic by topic, as TREC's AutoJudge evaluation "
               "reports it: Kendall (1938)'s tau-a, Kendall (1945)'s tau-b, Pearson (1896)'s r and "
               "Spearman (1904)'s rho",
               columns=("metric", "qrels", "reference", "topic", "runs", "tau", "tau_b", "pearson", "spearman"),
               formats=("csv",)),
        Output("run_ranks", "table", "judgments",
               "Every run's mean and rank (1 = best) per metric under the reference and under each qrels set, "
               "and its change of rank (reference rank - rank under the set: positive = the run gains)",
               _JUDG_RANK_REGEN, columns=("metric", "run", "qrels", "mean", "rank", "rank_change")),
        Output("decision_agreement", "table", "judgments",
               "Do the significance decisions survive another assessor? Per metric and qrels set: run pairs "
               "significant at alpha = {alpha} ({test}) under the reference and under the set, pairs with the same "
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
               "Voorhees (2000) Fig. 1", source="run_ranks",
               draw="metaeval.report.judgment_figures:plot_judgment_run_means"),
        Output("ranking_agreement", "figure", "judgments",
               "Kendall's tau (with its BCa bootstrap interval, Efron 1987) and tau_AP between the reference's "
               "ranking of the runs and each qrels set's, by metric", _JUDG_RANK_REGEN, source="ranking_agreement",
               draw="metaeval.report.judgment_figures:plot_judgment_taus"),
        Output("judgments", "text", "judgments",
               "The label-agreement details: confusion counts of every two sets (confusion/A__B.csv, A's "
               "levels as rows), agreement and kappa per topic (topic_agreement.csv), coverage of every "
               "set and of every run's top k by every set (coverage.csv), and every filled (hybrid) set "
               "as TREC qrels (qrels/NAME.txt)", _JUDG_LABEL_REGEN,
               columns=("qrels_a", "qrels_b", "topic", "pairs", "agreement", "kappa"),
               formats=("confusion/A__B.csv", "topic_agreement.csv", "coverage.csv", "qrels/NAME.txt")),
    ))
