"""Stage ``judgments``: judgments as a dimension -- who judged, and what it changes: another
assessor's, an LLM judge's or a hybrid (filled) qrels set of a collection against its qrels, the
reference (Voorhees 2000; docs/meta.md "Judgments").  An own job on the collection's data (kind
``other`` with a ``run``, ``data=True``): ``metaeval stage judgments --qrels --runs
--judgments-qrels NAME=FILE ...``, ``metaeval.run_stage("judgments", qrels=..., runs=...,
judgments_qrels=...)`` and, per collection with a ``judgments:`` block, the generic rule
``own_job_judgments`` (``workflow/rules/own_job.smk``: the collection's qrels named
``judgments_reference``, the block's sets, fills and leaderboards; their files the job's inputs) run
it; its own command (``metaeval judgments``, :mod:`metaeval.cli.judgments`, any named sets) and API
function (:func:`metaeval.api.judgments`, returning the whole
:class:`~metaeval.meta.judgments_run.JudgmentsResult`) run and write it the same way
(:func:`metaeval.pipeline.write_own_outputs`).  Its parameters, tables, figures and folder
(``judgments/``: confusion matrices, per-topic agreement, coverage, the filled sets) are declared
here, in the scope ``judgments``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...argtypes import int_at_least
from ...stages import JobPlan, NamedFiles, Output, PlanView, Scope, StageInfo, parameter
from .cite import SAKAI_14
from .common import SEED, B_SCHEMA, check_B

_JUDG_LABEL_REGEN = ("the inter-assessor agreement of Voorhees (2000) with Cohen (1960)'s kappa and "
                     "Krippendorff (2004)'s alpha")
_JUDG_RANK_REGEN = ("the ranking correlations of Voorhees (2000) with tau_AP (Yilmaz et al. (2008)), "
                    "RBO (Webber et al. (2010)) and the top-k tau of Clarke & Dietz (2024)")
_J = ("collections", "*", "judgments")
#: metaeval.meta.compare.COMPARE_TESTS and pairtests.CORRECTIONS (spelled out: no pandas import to parse)
TESTS = ("paired-t", "wilcoxon", "sign", "permutation", "bootstrap", "rthsd", "tukey-hsd")
CORRECTIONS = ("none", "bonferroni", "holm", "bh")
#: the layouts of metaeval judgments --results (metaeval.io.results)
RESULTS_FORMATS = ("auto", "trec_eval", "ir_measures_q", "ir_measures", "tot", "rag4reports", "ranking", "jsonl",
                   "csv")


def _check_alpha(v) -> None:
    if not 0.0 < float(v) < 1.0:
        raise ValueError(f"judgments_alpha must lie in (0, 1), got {v}")


def _check_rbo_p(v) -> None:
    if not 0.0 < float(v) < 1.0:
        raise ValueError(f"judgments_rbo_p must lie in (0, 1), got {v}")


@dataclass(frozen=True)
class JudgmentsParams:
    """The stage's parameters (``metaeval stage judgments --judgments-...``, the keywords of
    ``metaeval.run_stage("judgments", ...)``), each the option of ``metaeval judgments`` without its
    prefix; the collection's qrels (the data) are the set named ``judgments_reference``.  Per
    collection, a ``judgments:`` block (its keys: :func:`values`)."""

    judgments_reference: str = parameter("reference", "the name of the collection's qrels (--qrels), the set the "
        "others are compared with (default reference)", metavar="NAME", config=(*_J, "reference"), field=False)
    judgments_qrels: tuple[NamedFiles, ...] = parameter((), "the other qrels sets: each its name and file(s) "
        "(several files: their union)", nargs="+", config=(*_J, "qrels"), field=False)
    judgments_fill: tuple[str, ...] = parameter((), "hybrid sets: BASE's judgments, FROM's for the pairs BASE did "
        "not judge", nargs="+", metavar="NAME=BASE+FROM", config=(*_J, "fill"), field=False)
    judgments_results: tuple[NamedFiles, ...] = parameter((), "leaderboards in place of qrels sets: a folder or "
        "file of trec_eval -q or ir_measures -q output (one file per run), or any layout of --judgments-results-format",
        nargs="+", metavar="NAME=PATH", config=(*_J, "results"), field=False)
    judgments_results_format: str = parameter("auto", "the layout of the leaderboards (default auto)",
        choices=RESULTS_FORMATS, field=False)
    judgments_metrics: tuple[str, ...] | None = parameter(None, "metrics (default AP nDCG@10); with leaderboards, "
        "trec_eval's measures as trec.NAME", nargs="+", metavar="M", config=(*_J, "metrics"), field=False)
    judgments_threshold: int | None = parameter(None, "kappa_binary's relevance threshold (default 2 on a scale up "
        "to 3 or more, else 1)", config=(*_J, "threshold"), field=False)
    judgments_top_k: int = parameter(10, "tau among the reference's top K runs; coverage of each run's top K "
        "documents (default 10)", config=(*_J, "top_k"), field=False, parse=int_at_least(2),
        schema={"type": "integer", "minimum": 2})
    judgments_test: str = parameter("paired-t", "paired test of the decisions (default paired-t)", choices=TESTS,
        config=(*_J, "test"), field=False)
    judgments_correction: str | None = parameter(None, "multiple-comparison correction of the decisions (default: "
        "metaeval compare's, holm)", choices=CORRECTIONS, config=(*_J, "correction"), field=False)
    judgments_B: int = parameter(1000, "bootstrap samples of the tau intervals and replicates of a resampling test "
        "(default 1000)", config=("bootstrap", "B"), field=False, schema=B_SCHEMA, check=check_B)
    judgments_alpha: float = parameter(0.05, "significance level (default 0.05)", config=("bootstrap", "alpha"),
        field=False, schema={"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}, check=_check_alpha)
    judgments_rbo_p: float = parameter(0.9, "persistence p of rank-biased overlap (default 0.9, the "
        "rank_correlation stage's)", metavar="P", config=("rank_correlation", "rbo_p"), field=False,
        schema={"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}, check=_check_rbo_p)
    judgments_seed: int = parameter(SEED, f"seed of the bootstrap samples (default {SEED})",
        config=("bootstrap", "seed"), field=False, schema={"type": "integer", "minimum": 0})
    judgments_on_conflict: str = parameter("error", "a pair judged twice with different labels within a set: an "
        "error (default), or keep the highest, lowest or first file's label", choices=("error", "max", "min", "first"),
        config=(*_J, "on_conflict"), field=False)
    judgments_topic_set: str = parameter("common", "the topics each set is ranked over: the topics both judged "
        "(common, default) or each set's own (own)", choices=("common", "own"), config=(*_J, "topic_set"),
        field=False)
    judgments_skip_bad: bool = parameter(False, "a leaderboard file that is no leaderboard: named in one warning and "
        "left out, with its run (default: an error naming it)", action="store_true", field=False)
    judgments_clip: bool = parameter(False, "map labels above the reference's highest level to that level "
        "(default: a warning)", action="store_true", field=False)


def _named(items, what: str) -> dict:
    """``NAME=VALUE`` words as ``{NAME: VALUE}`` (a name given twice, a word without ``=``: a ``ValueError``)."""
    out: dict = {}
    for item in items:
        name, sep, value = str(item).partition("=")
        if not sep or not name or not value:
            raise ValueError(f"{what} {item!r}: expected NAME=VALUE")
        if name in out:
            raise ValueError(f"{what}: the name {name} is given twice")
        out[name] = value
    return out


def run(inputs, params: JudgmentsParams) -> dict:
    """The stage on a collection's data (``inputs.data``: its qrels the set ``judgments_reference``,
    none: the reference is one of the sets; its runs, none: label agreement and leaderboards only)
    against the sets, fills and leaderboards of ``params``: the tables of
    :func:`metaeval.meta.judgments_run.run_judgments` (a table nothing fills, None); the whole result
    left in ``inputs.extra["result"]`` (its folder and display read it)."""
    from ...util import file_name
    from ..judgments_run import run_judgments

    d = inputs.data
    qrels: dict = {params.judgments_reference: list(d.qrels)} if d.qrels else {}
    for nf in params.judgments_qrels:
        if nf.name in qrels:
            raise ValueError(f"judgments_qrels: the name {nf.name} is given twice")
        qrels[nf.name] = [str(f) for f in nf.files]
    for name in qrels:
        file_name(name, "a qrels set's name")            # it names files under OUT/judgments
    fill = _named(params.judgments_fill, "judgments_fill")
    for name, spec in fill.items():
        base, plus, frm = spec.partition("+")
        if not plus or not base or not frm:
            raise ValueError(f"judgments_fill {name}={spec}: expected NAME=BASE+FROM")
    results = {nf.name: [str(f) for f in nf.files] for nf in params.judgments_results}
    res = run_judgments(qrels, params.judgments_reference, list(d.runs) or None,
                        metrics=None if params.judgments_metrics is None else list(params.judgments_metrics),
                        gains=d.gains, threshold=params.judgments_threshold, top_k=params.judgments_top_k,
                        test=params.judgments_test, B=params.judgments_B, alpha=params.judgments_alpha,
                        seed=params.judgments_seed, fill=fill, on_conflict=params.judgments_on_conflict,
                        topics=params.judgments_topic_set, correction=params.judgments_correction, order=d.order,
                        results=results, depth=d.depth, rbo_p=params.judgments_rbo_p, clip=params.judgments_clip,
                        results_format=params.judgments_results_format, trec_eval_version=d.trec_eval_version,
                        skip_bad=params.judgments_skip_bad)
    if inputs.extra is not None:
        inputs.extra["result"] = res
    omitted = set(res.omitted)
    return {o.name: None if o.name in omitted else res.tables[o.name]
            for o in STAGE.outputs if o.kind == "table"}


def confusion_name(a: str, b: str) -> str:
    """``confusion/A__B.csv`` (each a plain name: :func:`metaeval.util.file_name`)."""
    from ...util import file_name

    return f"confusion/{file_name(a, 'qrels set')}__{file_name(b, 'qrels set')}.csv"


def folder_files(inputs, frames, params):
    """The files of its folder ``judgments/`` from its run's result (``inputs.extra["result"]``): the
    per-topic agreement and the coverage (unless nothing fills them), the confusion counts of every
    two sets (``confusion/A__B.csv``) and every filled set as TREC qrels (``qrels/NAME.txt``)."""
    from ...util import file_name

    res = inputs.extra["result"]
    omitted = set(res.omitted)
    for name, df in (("topic_agreement", res.topic_agreement), ("coverage", res.coverage)):
        if name not in omitted:
            yield f"{name}.csv", df
    for (a, b), df in res.confusion.items():
        yield confusion_name(a, b), df
    for name, text in res.qrels.items():
        yield f"qrels/{file_name(name, 'qrels set')}.txt", text


def topic_set(j: dict, c: str) -> str:
    """The topics a ``judgments:`` block ranks each set over (``--topic-set``): its ``topic_set``, else
    ``topics`` (its deprecated name: ``--topics`` is a topic-set size in the other commands), else
    ``common``; the two given with different values: a ``ValueError``."""
    new, old = j.get("topic_set"), j.get("topics")
    if new is not None and old is not None and new != old:
        raise ValueError(f"config: collections.{c}.judgments: topic_set {new!r} and topics {old!r} (its deprecated "
                         f"name) disagree - give topic_set only")
    return new or old or "common"


def values(p: PlanView, c: str) -> dict:
    """The parameters of collection ``c``'s job from its ``judgments:`` block -- ``reference`` (the
    collection's qrels' name), ``qrels`` (``{NAME: file or [files]}``), ``fill``, ``results``,
    ``metrics`` (else the config's), ``top_k``, ``test``, ``correction``, ``topic_set``,
    ``on_conflict``, ``threshold`` -- and the bootstrap settings and RBO's persistence of the config."""
    j = p.collection(c)["judgments"]
    boot = p.config["bootstrap"]
    return {"judgments_reference": j.get("reference", "reference"),
            "judgments_qrels": NamedFiles.of(j["qrels"]),
            "judgments_fill": tuple(f"{n}={v}" for n, v in (j.get("fill") or {}).items()),
            "judgments_results": tuple(NamedFiles(str(n), (Path(v),)) for n, v in (j.get("results") or {}).items()),
            "judgments_metrics": tuple(j.get("metrics") or p.metrics), "judgments_threshold": j.get("threshold"),
            "judgments_top_k": j.get("top_k", 10), "judgments_test": j.get("test", "paired-t"),
            "judgments_correction": j.get("correction"), "judgments_B": boot["B"], "judgments_alpha": boot["alpha"],
            "judgments_rbo_p": p.config["rank_correlation"]["rbo_p"], "judgments_seed": boot["seed"],
            "judgments_on_conflict": j.get("on_conflict", "error"), "judgments_topic_set": topic_set(j, c)}


def plan(p: PlanView) -> JobPlan:
    """The collections with a ``judgments:`` block, one job each (the generic rule
    ``own_job_judgments``): each one's parameters (:func:`values`: the sets' files and the
    leaderboards its inputs); ``labels:`` an input too (a changed mapping re-runs it, its tables and
    figures relabelled)."""
    cs = tuple(c for c in p.collections if p.collection(c).get("judgments"))
    return JobPlan(on=bool(cs), collections=cs, params={c: values(p, c) for c in cs}, labels=True)


STAGE = StageInfo(
    "judgments", "other", run, params=JudgmentsParams, plan=plan, data=True, folder="judgments",
    folder_files=folder_files, shown="metaeval.report.judgments:judgments_shown",
    caption_notes=(("ranking_agreement", "metaeval.report.judgments:ranking_agreement_note"),),
    scopes=(Scope("judgments", title="Judgments"),),
    title="who judged? label, ranking and decision agreement of the qrels sets (Voorhees 2000)",
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
               "Voorhees (2000) Fig. 1", source="run_ranks", plot_params=(("reference", "reference"),
                                                                          ("taus", "ranking_agreement")),
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
