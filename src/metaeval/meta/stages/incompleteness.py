"""Stage ``incompleteness``: robustness to incomplete judgments and pool reuse
(:mod:`metaeval.meta.incompleteness`): every metric recomputed on reduced qrels, from the labelled
collection.  Its own job in the pipeline, its own command (``metaeval incompleteness``)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ...stages import JobPlan, Output, PlanView, StageInfo, parameter
from .common import commas as _commas

#: metaeval.meta.incompleteness's methods and defaults, declared here so that building the option
#: parsers and the config schema imports no numpy (tests/unit/test_incompleteness.py checks they agree)
METHODS = ("judged", "stratified", "depth", "leave-one-group-out")
DEFAULT_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
DEFAULT_DEPTHS = (10, 20, 50, 100)
DEFAULT_GROUPS, DEFAULT_POOL_DEPTH, DEFAULT_TRIALS = "auto", 100, 20


def _numbers(kind):
    def parse(text: str):
        try:
            return tuple(kind(x) for x in text.split(",") if x.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    return parse


def options(v: dict):
    """The :class:`~metaeval.meta.incompleteness.IncompletenessConfig` of the stage's parameters."""
    from ..incompleteness import IncompletenessConfig

    return IncompletenessConfig(methods=tuple(v["inc_methods"]), fractions=v["fractions"], depths=v["depths"],
                                trials=v["trials"], groups=v["groups"], pool_depth=v["pool_depth"],
                                condensed=v["condensed"], jobs=v["inc_jobs"],
                                pool_runs=tuple(v["pool_runs"]) if v["pool_runs"] else None,
                                write_qrels=bool(v["write_qrels"]))


def notes(collection, params) -> list[str]:
    """The lines saying which runs formed the pool (with ``--pool-runs``) and the groups of
    ``leave-one-group-out`` (a bad ``--pool-runs`` or ``--groups`` raises here, before anything
    is written); ``params``: the MetaConfig (its ``incompleteness`` options)."""
    from ..incompleteness import group_summary, pool_contributors, pool_groups

    icfg = params.incompleteness
    out: list[str] = []
    if icfg is None or not {"depth", "leave-one-group-out"} & set(icfg.methods):
        return out
    pool = pool_contributors(collection.runs, icfg.pool_runs)
    if icfg.pool_runs is not None:
        out.append(f"{len(pool)} of {len(collection.runs)} runs formed the pool; the others are evaluated on it")
    if "leave-one-group-out" in icfg.methods:
        out.append("leave-one-group-out: " + group_summary(pool_groups(collection, icfg)))
    return out


def plan(p: PlanView) -> JobPlan:
    """The stage in the plan of a config: on when switched on, unless a collection's qrels are per
    intent or equivalence classes (the stage resamples a collection's judged documents, a single
    list those forms do not have: a note says it is skipped); the processes of its job."""
    inc = p.config["incompleteness"]
    on = bool(inc["enabled"])
    notes: tuple[str, ...] = ()
    forms = sorted({c.get("qrels_form") for c in p.config["collections"].values()} & {"intents", "ec"})
    if on and forms:
        on = False
        notes = ((f"the incompleteness stage is skipped: it needs plain graded qrels, and this "
                  f"config has {'/'.join(forms)} qrels (set incompleteness: {{enabled: false}} to "
                  "silence this)"),)
    return JobPlan(on=on, notes=notes, threads=int(inc["jobs"]))


def _write_qrels(params) -> bool:
    icfg = getattr(params, "incompleteness", None)
    return bool(icfg is not None and icfg.write_qrels)


def run(inputs, params):
    """``incompleteness``, ``pool_reuse`` and ``incompleteness_trials``: the plain metrics on
    reduced qrels, from the labelled collection restricted to the runs in use (``inputs.runs``,
    else those of the matrices); when the stage's folder is written (``inputs.extra``) with
    ``write_qrels``, ``inputs.extra["masks"]`` collects the keep masks of the reduced qrels."""
    from ..incompleteness import stage_incompleteness

    runs: list[str] | None
    if inputs.runs is not None:
        runs = [str(r) for r in inputs.runs]
    else:
        runs = [str(r) for r in next(iter(inputs.matrices.values())).columns] if inputs.matrices else None
    masks = inputs.extra.setdefault("masks", {}) if inputs.extra is not None and _write_qrels(params) else None
    return stage_incompleteness(inputs.collection, list(inputs.metrics), params, gains=inputs.gains, runs=runs,
                                samples=inputs.samples[0] if inputs.samples else None, masks_out=masks)


def folder_files(inputs, frames, params):
    """What goes in the stage's folder (``C/incompleteness/``): ``trials.csv`` (the
    ``incompleteness_trials`` frame) and, with ``write_qrels``, every reduced qrels as
    ``qrels/METHOD-LEVEL-TRIAL.txt`` in the input's qrels form -- one text at a time."""
    yield "trials.csv", frames["incompleteness_trials"]
    masks = (inputs.extra or {}).get("masks")
    if not masks:
        return
    from ...io.qrels import format_qrels
    from ..incompleteness import qrels_file_name, reduced_judgments

    c = inputs.collection
    form = "trec" if c.info.get("qrels_form") == "trec" else "ntcir"
    for (method, level, trial), keep in masks.items():
        yield f"qrels/{qrels_file_name(method, level, trial)}", format_qrels(*reduced_judgments(c, keep), form=form)


_I = "incompleteness"


@dataclass(frozen=True)
class IncompletenessParams:
    """The stage's parameters (no MetaConfig fields: its ``options`` build ``MetaConfig.incompleteness``)."""

    inc_methods: tuple[str, ...] = parameter(("judged",),
        "how the qrels are reduced: " + ", ".join(METHODS) + " (default judged)", flag="--method", nargs="+",
        choices=METHODS, metavar="M", config=(_I, "methods"), field=False,
        schema={"type": "array", "items": {"enum": list(METHODS)}, "minItems": 1}, doc="How the qrels are reduced.")
    fractions: tuple[float, ...] = parameter(DEFAULT_FRACTIONS,
        "judged/stratified: fractions of the judgments kept (default 0.1,0.2,...,0.9)", type=_numbers(float),
        metavar="F,F,...", config=(_I, "fractions"), render=_commas, field=False,
        schema={"type": "array", "items": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}, "minItems": 1},
        doc="judged / stratified - the fractions of the judgments kept.")
    depths: tuple[int, ...] = parameter(DEFAULT_DEPTHS, "depth: pool depths (default 10,20,50,100)", type=_numbers(int),
        metavar="D,D,...", config=(_I, "depths"), render=_commas, field=False,
        schema={"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1},
        doc="depth - the pool depths.")
    trials: int = parameter(DEFAULT_TRIALS,
        f"judged/stratified: random trials per fraction (default {DEFAULT_TRIALS})", metavar="N",
        config=(_I, "trials"), field=False, schema={"type": "integer", "minimum": 1},
        doc="judged / stratified - random trials per fraction.")
    groups: str = parameter(DEFAULT_GROUPS,
        "leave-one-group-out: a regular expression on run names whose first "
        "group is the group, or a two-column file RUN GROUP (default auto: the submitting team, the leading "
        "letters of each name without TREC's 'input.' prefix and without a prefix every run shares: "
        "dl-20-official-input.pash_f1 -> pash)", metavar="auto|REGEX|FILE", config=(_I, "groups"), field=False,
        schema={"type": "string"},
        doc="leave-one-group-out - auto (the submitting team - the leading letters of each run name without "
        "TREC's input. prefix and without a prefix every run shares, dl-20-official-input.pash_f1 -> "
        "pash), a regular expression on run names whose first group is the group, or a two-column "
        "file RUN GROUP.")
    # the pool contributors
    pool_runs: tuple[str, ...] | None = parameter(None,
        "depth, leave-one-group-out: the runs that formed the pool (names, globs or a "
        "file of names; default every run); the others are evaluated on their pool", nargs="+", action="extend",
        metavar="RUN|GLOB|FILE", config=(_I, "pool_runs"), field=False,
        schema={"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1},
                          {"type": "null"}]},
        doc="depth / leave-one-group-out - the runs that formed the pool: a list of run names or globs, "
        "one glob or a file of run names (one a line); the other runs are evaluated on the pool they "
        "form. Default every run.")
    pool_depth: int = parameter(DEFAULT_POOL_DEPTH,
        f"leave-one-group-out: the pool depth (default {DEFAULT_POOL_DEPTH})", metavar="D",
        config=(_I, "pool_depth"), field=False, schema={"type": "integer", "minimum": 1},
        doc="leave-one-group-out - the depth of the pool each group contributes to.")
    condensed: bool = parameter(True, "leave out the condensed-list variants M(judged_only=True)",
        flag="--no-condensed", action="store_false", config=(_I, "condensed"), field=False,
        schema={"type": "boolean"},
        doc="Also every metric on condensed lists (judged_only=True: NTCIREVAL -j, trec_eval -J).")
    write_qrels: bool = parameter(False,
        "also write every reduced qrels as incompleteness/qrels/METHOD-LEVEL-TRIAL.txt", action="store_true",
        config=(_I, "write_qrels"), field=False, schema={"type": "boolean"},
        doc="Also write every reduced qrels under C/incompleteness/qrels/.")
    # the job's threads (the rule passes them)
    inc_jobs: int = parameter(1, "compute the levels in N processes (the results do not change)", metavar="N",
        config=(_I, "jobs"), field=False, schema={"type": "integer", "minimum": 1},
        doc="Processes (threads) of the job; the levels are dealt to them (results unchanged).")


_INC_REFS = ("Buckley & Voorhees (2004) and Sakai (SIGIR 2007) (reduced qrels), "
             "Zobel (1998) and Sakai & Kando (2008) (reduced pool depth)")
_POOL_REFS = "Zobel (1998) and Büttcher et al. (2007)"


STAGE = StageInfo(
    "incompleteness", "labelled", run, tables=("incompleteness", "pool_reuse"), metrics="plain",
    streams=("paired",), condition="incompleteness", folder="incompleteness", folder_files=folder_files, cost=3.0,
    options=options, notes=notes, plan=plan,
    title="incompleteness (robustness to incomplete judgments and pool reuse)",
    params=IncompletenessParams,
    reads=("B", "alpha", "seed", "metrics", "inc_methods", "fractions", "depths", "trials", "groups",
           "pool_depth", "pool_runs", "write_qrels", "condensed"),
    switch=(_I, "enabled"), switch_doc="Run the stage (tables incompleteness and pool_reuse).",
    sections=(((_I,),
               ("Robustness to incomplete judgments and pool reuse (stage incompleteness, one job per "
               "collection): every metric recomputed on reduced qrels, as given and on condensed lists - "
               "reduced by random sampling of each topic's judged documents (Buckley & Voorhees 2004; Sakai "
               "SIGIR 2007, \"Alternatives to bpref\"), by pool depth (Zobel 1998; Sakai & Kando 2008) or by "
               "leaving one group of runs out of the pool (Zobel 1998; Büttcher et al. 2007). B, alpha and "
               "seed are those of `bootstrap`. See docs/meta.md.")),),
    outputs=(
        Output("incompleteness", "table", "collection",
               "Robustness to incomplete judgments: every metric, as given (unjudged = nonrelevant) and on "
               "condensed lists (judged_only=True), on reduced qrels -- a fraction of each topic's judged "
               "documents (judged), of its relevant and nonrelevant ones (stratified) or the pool of the "
               "runs' top d (depth); per level the mean and s.d. over trials of Kendall's tau-a and the "
               "mean tau_AP between the runs' rankings on the full and the reduced qrels, the RMSE of the "
               "runs' mean scores, and the mean number of run pairs significant at alpha = {alpha} (paired "
               "bootstrap)", f"the reduced-qrels experiments of {_INC_REFS}",
               columns=("metric", "method", "level", "trials", "tau", "tau_sd", "tau_ap", "rmse",
                        "significant_pairs", "pairs"), condition="incompleteness"),
        Output("pool_reuse", "table", "collection",
               "Pool reuse (leave one group out): each group's runs scored on the qrels without the "
               "documents only that group contributed to the pool, against the other runs on the full "
               "qrels: full and reduced mean, their difference and the run's rank (1 = best) before and "
               "after; per metric the summary rows (group all) mean_abs_delta, max_abs_delta and "
               "max_rank_drop, the value in delta; the Markdown and LaTeX show the difference, one column per "
               "metric (the means and ranks: the CSV)", f"the leave-one-group-out experiment of {_POOL_REFS}",
               columns=("metric", "group", "run", "full", "reduced", "delta", "full_rank", "reduced_rank"),
               condition="incompleteness"),
        Output("incompleteness", "text", "collection",
               "The trials of the incompleteness stage (trials.csv: one row per metric, method, level and "
               "trial with tau, tau_ap, rmse and significant_pairs) and, with --write-qrels, every reduced "
               "qrels in the input's form (qrels/METHOD-LEVEL-TRIAL.txt; leave-one-group-out-GROUP.txt)",
               f"the trials behind {_INC_REFS}",
               columns=("metric", "method", "level", "trial", "tau", "tau_ap", "rmse", "significant_pairs"),
               formats=("trials.csv", "qrels/METHOD-LEVEL-TRIAL.txt"), condition="incompleteness"),
        Output("incompleteness", "figure", "collection",
               "Kendall's tau-a (top) and tau_AP (bottom) between the rankings on the full and on the "
               "reduced qrels against the fraction of judgments kept or the pool depth, one panel per "
               "method, one line per metric with its s.d. band over trials", f"the curves of {_INC_REFS}",
               stages=("figures",), source="incompleteness", condition="incompleteness",
               draw="metaeval.report.figures:plot_incompleteness"),
        Output("pool_reuse", "figure", "collection",
               "Pool reuse: the change of each left-out run's mean score (reduced - full) per metric, "
               "runs in group order", f"the leave-one-group-out experiment of {_POOL_REFS}", stages=("figures",),
               source="pool_reuse", condition="incompleteness", draw="metaeval.report.figures:plot_pool_reuse"),
    ))
