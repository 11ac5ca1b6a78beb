"""Stage ``ppi``: how much human judging an LLM judge saves -- prediction-powered intervals of every
run's mean score (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023; PPI++, Angelopoulos, Duchi &
Zrnic 2023) at the topic level (Oosterhuis, Jagerman, Qin, Wang & Bendersky 2024), and the judging
budget: interval width and coverage against the number of human-labelled topics
(:mod:`metaeval.meta.ppi`).  Its own command (``metaeval ppi``, :mod:`metaeval.cli.ppi`) and, per
collection with a ``ppi:`` block, its own job (``workflow/rules/ppi.smk``; the block names files, so
:class:`metaeval.dag.Plan` reads it as it reads ``judgments:``).  Its tables and figures are declared
here (``outputs``), in the scope ``ppi``: ``DIR/tables``, ``DIR/figures``."""

from __future__ import annotations

from ...stages import JobPlan, PlanView, Scope, StageInfo
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

# ---------------------------------------------------------------- the pipeline's job (metaeval.dag)
def _listed(v) -> list[str]:
    return [v] if isinstance(v, str) else [str(x) for x in v]


def job_files(cc: dict) -> list[str]:
    """The input files of a collection's ppi job: its qrels, the judge's files, the labelled-topics file."""
    p = cc["ppi"]
    return [cc["qrels"]] + _listed(p["judge"]) + ([p["labelled_topics"]] if p.get("labelled_topics") else [])


def job_args(cc: dict, metrics: list[str], trec_eval_version: int | None = None) -> str:
    """The ``metaeval ppi`` options of a collection (``cc``: its config entry) from its ``ppi:`` block,
    its qrels (the human labels), gains, order and depth; ``metrics``: the block's (canonical) or the
    config's; ``trec_eval_version`` the config's when not the default (10).  Standard library only
    (the Snakefile reads it)."""
    import shlex

    p = cc["ppi"]

    def opt(name: str, vals) -> str:
        vals = vals if isinstance(vals, (list, tuple)) else [vals]
        return " ".join([name] + [shlex.quote(str(v)) for v in vals])

    words = [opt("--qrels", cc["qrels"]), opt("--judge", _listed(p["judge"])), opt("--metrics", metrics)]
    if p.get("labelled_topics"):
        words.append(opt("--labelled-topics", p["labelled_topics"]))
    elif p.get("labelled") is not None:
        words.append(opt("--labelled", p["labelled"]))
    words += [opt("--alpha", p.get("alpha", 0.05)), opt("--seed", p.get("seed", SEED)),
              opt("--trials", p.get("trials", 1000)), opt("--on-conflict", p.get("on_conflict", "error"))]
    if p.get("sizes"):
        words.append(opt("--sizes", ",".join(str(int(s)) for s in p["sizes"])))
    if cc.get("gains"):
        words.append(opt("--gains", cc["gains"]))
    words += [opt("--order", cc.get("order", "file")), opt("--depth", cc.get("depth", 1000) or 0)]
    if trec_eval_version is not None:
        words.append(opt("--trec-eval-version", trec_eval_version))
    return " ".join(words)


def plan(p: PlanView) -> JobPlan:
    """The collections with a ``ppi:`` block in the plan of a config, one job each
    (``workflow/rules/ppi.smk``): each one's files and command options (the block's metrics
    canonical, or the config's)."""
    cs = tuple(c for c in p.collections if p.collection(c).get("ppi"))

    def args(c: str) -> str:
        block = p.collection(c)["ppi"]
        metrics = p.measures(block["metrics"], f"collections.{c}.ppi.metrics") if block.get("metrics") else p.metrics
        return job_args(p.collection(c), metrics, p.trec_eval_version())

    return JobPlan(collections=cs, inputs={c: tuple(job_files(p.collection(c))) for c in cs},
                   args={c: args(c) for c in cs})


def targets(p: PlanView) -> list[str]:
    """Its files, ``results/C/ppi/...``, for every collection with a ``ppi:`` block."""
    return [f"{p.results}/{c}/ppi/{f}" for c in p.job("ppi").collections for f in p.output_files("ppi")]


STAGE = StageInfo("ppi", "other", plan=plan, targets=targets,
                  scopes=(Scope("ppi", folders=(("table", "tables"), ("figure", "figures"))),),
                  title="prediction-powered intervals and the judging budget (Angelopoulos et al. 2023)",
                  outputs=OUTPUTS)
