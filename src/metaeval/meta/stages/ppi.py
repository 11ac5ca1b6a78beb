"""Stage ``ppi``: how much human judging an LLM judge saves -- prediction-powered intervals of every
run's mean score (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023; PPI++, Angelopoulos, Duchi &
Zrnic 2023) at the topic level (Oosterhuis, Jagerman, Qin, Wang & Bendersky 2024), and the judging
budget: interval width and coverage against the number of human-labelled topics
(:mod:`metaeval.meta.ppi`).  An own job on the collection's data (kind ``other`` with a ``run``,
``data=True``): ``metaeval stage ppi --qrels --runs --ppi-judge ...``, ``metaeval.run_stage("ppi",
qrels=..., runs=..., ppi_judge=...)`` and, per collection with a ``ppi:`` block, the generic rule
``own_job_ppi`` (``workflow/rules/own_job.smk``: the collection's qrels are the human labels, the
block's files -- the judge's qrels, the labelled topics -- file parameters, its inputs) run it; its
own command (``metaeval ppi``, :mod:`metaeval.cli.ppi`) and API function (:func:`metaeval.api.ppi`,
returning the whole :class:`~metaeval.meta.ppi.PPIResult`) write through the same writer
(:func:`metaeval.pipeline.write_own_outputs`).  Its parameters, tables and figures are declared here
(``outputs``, in the scope ``ppi``: ``DIR/tables``, ``DIR/figures``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...argtypes import int_at_least, ints_at_least
from ...stages import JobPlan, PlanView, Scope, StageInfo, parameter
from .common import SEED

_ANGELOPOULOS = "Angelopoulos et al. (2023)"
_PPIPP = "Angelopoulos, Duchi & Zrnic (2023)"
_OOSTERHUIS = "Oosterhuis et al. (2024)"
_REGEN = (f"prediction-powered inference ({_ANGELOPOULOS}; PPI++, {_PPIPP}) on per-topic scores as "
          f"{_OOSTERHUIS}")
_EST = ("human (the labelled topics' human scores alone, CLT interval), judge (the judge's scores on every "
        "topic it judged, CLT interval: what is reported today), ppi (lambda = 1) and ppi++ (lambda tuned "
        "as ppi_py 0.2.3 tunes it)")

OUTPUTS = (
    {"name": "ppi_means", "kind": "table", "scope": "ppi",
         "caption": f"Each run's mean score under the human qrels with its interval at alpha = {{alpha}} from four estimators: "
                 f"{_EST}; labelled / unlabelled the topics each uses, lambda the weight of the judge's scores "
                 f"({_ANGELOPOULOS}; {_PPIPP}; topic-level units as {_OOSTERHUIS})",
         "regenerates": _REGEN,
         "columns": ("metric", "run", "estimator", "labelled", "unlabelled", "mean", "ci_low", "ci_high", "lambda")},
    {"name": "ppi_pairs", "kind": "table", "scope": "ppi",
         "caption": f"Every unordered pair of runs: the four estimators applied to the per-topic differences run - "
                 f"other, the interval and whether it excludes 0 ({_ANGELOPOULOS}; {_PPIPP}; {_OOSTERHUIS})",
         "regenerates": _REGEN,
         "columns": ("metric", "run", "other", "estimator", "diff", "ci_low", "ci_high", "significant")},
    {"name": "ppi_budget", "kind": "table", "scope": "ppi",
         "caption": f"The judging budget: for each number of human-labelled topics, random labelled sets (trials, "
                 f"seeded); how often each estimator's interval covers the run's human mean over every human-judged "
                 f"topic (coverage, its standard error over trials) and its mean width over trials and runs; "
                 f"human_only_topics: the human-labelled topics a human-only interval as narrow would need (size x "
                 f"the squared ratio of the human and this estimator's mean widths), topics_saved: that minus the "
                 f"size, the human topics the judge saves ({_ANGELOPOULOS}; {_PPIPP}; {_OOSTERHUIS})",
         "regenerates": f"the coverage and width experiments of {_OOSTERHUIS}",
         "columns": ("metric", "estimator", "labelled", "trials", "coverage", "coverage_se", "mean_width",
                     "human_only_topics", "topics_saved")},
    {"name": "ppi_width", "kind": "figure", "scope": "ppi", "draw": "metaeval.report.ppi:plot_ppi_width",
         "source": "ppi_budget",
         "caption": f"Mean interval width against the number of human-labelled topics, one line per estimator, one "
                 f"panel per metric; below, the human-only topics an equally narrow interval would need (the "
                 f"human line is the diagonal: above it, the topics the judge saves) ({_ANGELOPOULOS}; {_PPIPP}; "
                 f"{_OOSTERHUIS})",
         "regenerates": f"the interval-width figures of {_OOSTERHUIS}"},
    {"name": "ppi_coverage", "kind": "figure", "scope": "ppi", "draw": "metaeval.report.ppi:plot_ppi_coverage",
         "plot_params": (("alpha", "alpha"),), "source": "ppi_budget",
         "caption": f"Coverage of the human mean against the number of human-labelled topics, one line per estimator "
                 f"(error bars: 2 standard errors), the nominal level 1 - alpha dashed ({_ANGELOPOULOS}; {_PPIPP}; "
                 f"{_OOSTERHUIS})",
         "regenerates": f"the coverage figures of {_OOSTERHUIS}"},
    {"name": "ppi_intervals", "kind": "figure", "scope": "ppi", "draw": "metaeval.report.ppi:plot_ppi_intervals",
         "source": "ppi_means",
         "caption": f"Each run's mean with the four estimators' intervals side by side (human, judge, ppi, ppi++), "
                 f"runs by their human mean, one panel per metric ({_ANGELOPOULOS}; {_PPIPP}; {_OOSTERHUIS})",
         "regenerates": _REGEN},
)

_P = ("collections", "*", "ppi")


def _listed(v) -> list[str]:
    return [v] if isinstance(v, str) else [str(x) for x in v]


def _commas(values) -> str:
    return ",".join(str(int(v)) for v in values)


def _check_alpha(v) -> None:
    if not 0.0 < float(v) < 1.0:
        raise ValueError(f"ppi_alpha must lie in (0, 1), got {v}")


@dataclass(frozen=True)
class PPIParams:
    """The stage's parameters (``metaeval stage ppi --ppi-...``, the keywords of
    ``metaeval.run_stage("ppi", ...)``), each the option of ``metaeval ppi`` without its prefix;
    the human labels and the runs are the collection's data (``inputs.data``).  Per collection, a
    ``ppi:`` block (its keys: :func:`plan`)."""

    ppi_judge: tuple[Path, ...] = parameter((), "the judge's qrels, any qrels form (several files: their union)",
        nargs="+", config=(*_P, "judge"), field=False, schema={"type": "array", "items": {"type": "string"}})
    ppi_metrics: tuple[str, ...] = parameter(("AP", "nDCG@10"), "metrics (default AP nDCG@10)", nargs="+",
        metavar="M", config=(*_P, "metrics"), field=False)
    ppi_labelled_topics: Path | None = parameter(None, "the human-labelled topics: a topic id per line (default: "
        "every topic of the human qrels)", config=(*_P, "labelled_topics"), field=False,
        schema={"type": ["string", "null"]})
    ppi_labelled: int | None = parameter(None, "N labelled topics drawn with --ppi-seed from the human topics the "
        "judge also judged", metavar="N", config=(*_P, "labelled"), field=False, parse=int_at_least(2),
        schema={"type": ["integer", "null"], "minimum": 2})
    ppi_alpha: float = parameter(0.05, "1 - the intervals' level (default 0.05)", config=(*_P, "alpha"), field=False,
        schema={"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}, check=_check_alpha)
    ppi_seed: int = parameter(SEED, f"seed of --ppi-labelled and the budget (default {SEED})", config=(*_P, "seed"),
        field=False, schema={"type": "integer", "minimum": 0})
    ppi_sizes: tuple[int, ...] | None = parameter(None, "labelled-set sizes of the budget table (default "
        "5,10,20,30,40: those that fit)", config=(*_P, "sizes"), render=_commas, field=False,
        parse=ints_at_least(2), schema={"type": ["array", "null"], "items": {"type": "integer", "minimum": 2}})
    ppi_trials: int = parameter(1000, "random labelled sets per size (default 1000)", config=(*_P, "trials"),
        field=False, parse=int_at_least(1), schema={"type": "integer", "minimum": 1})
    ppi_on_conflict: str = parameter("error", "a pair judged twice with different labels within the human or the "
        "judge's files: an error (default), or keep the highest, lowest or first file's label",
        choices=("error", "max", "min", "first"), config=(*_P, "on_conflict"), field=False)


def run(inputs, params: PPIParams) -> dict:
    """The stage on a collection's data (``inputs.data``: its qrels the human labels, its runs):
    the tables of :func:`metaeval.meta.ppi.run_ppi` with the judge's qrels and the labelled topics
    of ``params``; the whole result left in ``inputs.extra["result"]`` (its display reads it:
    :func:`metaeval.report.ppi.ppi_shown`)."""
    from ..ppi import run_ppi

    d = inputs.data
    res = run_ppi(list(d.qrels), [str(f) for f in params.ppi_judge], list(d.runs), metrics=list(params.ppi_metrics),
                  labelled_topics=None if params.ppi_labelled_topics is None else str(params.ppi_labelled_topics),
                  labelled=params.ppi_labelled, alpha=params.ppi_alpha, seed=params.ppi_seed,
                  sizes=None if params.ppi_sizes is None else [int(s) for s in params.ppi_sizes],
                  trials=params.ppi_trials, gains=d.gains, order=d.order, depth=d.depth,
                  on_conflict=params.ppi_on_conflict, trec_eval_version=d.trec_eval_version)
    if inputs.extra is not None:
        inputs.extra["result"] = res
    return dict(res.tables)


def values(p: PlanView, c: str) -> dict:
    """The parameters of collection ``c``'s job from its ``ppi:`` block: ``judge`` (a file or a
    list), ``metrics`` (canonical; else the config's), ``labelled_topics`` (a file) or ``labelled``
    (N), ``alpha``, ``seed``, ``sizes``, ``trials``, ``on_conflict``."""
    b = p.collection(c)["ppi"]
    metrics = p.measures(b["metrics"], f"collections.{c}.ppi.metrics") if b.get("metrics") else p.metrics
    out: dict = {"ppi_judge": tuple(_listed(b["judge"])), "ppi_metrics": tuple(metrics)}
    if b.get("labelled_topics"):
        out["ppi_labelled_topics"] = b["labelled_topics"]
    elif b.get("labelled") is not None:
        out["ppi_labelled"] = b["labelled"]
    out.update(ppi_alpha=b.get("alpha", 0.05), ppi_seed=b.get("seed", SEED), ppi_trials=b.get("trials", 1000),
               ppi_on_conflict=b.get("on_conflict", "error"))
    if b.get("sizes"):
        out["ppi_sizes"] = tuple(int(s) for s in b["sizes"])
    return out


def plan(p: PlanView) -> JobPlan:
    """The collections with a ``ppi:`` block in the plan of a config, one job each (the generic
    rule ``own_job_ppi``): each one's parameters (:func:`values`: the judge's files and the
    labelled topics its inputs); ``labels:`` an input too (a changed mapping re-runs it)."""
    cs = tuple(c for c in p.collections if p.collection(c).get("ppi"))
    return JobPlan(on=bool(cs), collections=cs, params={c: values(p, c) for c in cs}, labels=True)


STAGE = StageInfo("ppi", "other", run, params=PPIParams, plan=plan, data=True,
                  shown="metaeval.report.ppi:ppi_shown",
                  scopes=(Scope("ppi", folders=(("table", "tables"), ("figure", "figures")),
                                title="Prediction-powered intervals"),),
                  title="prediction-powered intervals of the judge's scores and the judging budget "
                        "(Angelopoulos et al. 2023)",
                  outputs=OUTPUTS)
