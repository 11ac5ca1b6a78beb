"""The parameters every meta-evaluation stage shares: the bootstrap settings (config section
``bootstrap``), the runs meta-evaluated and the metrics."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import Param, parameter, params_of

#: the seed every command, the API and the pipeline's config default to: a result computed without
#: an explicit seed is the same wherever it is computed (a config, e.g. config.yaml, may set its own)
SEED = 0

#: the bayes stage's sampler defaults, kept draws per chain and chains: its parameters' defaults
#: (metaeval.meta.stages.bayes), which the sampler reads (metaeval.meta.bayes: no import of the stage module)
BAYES_DRAWS, BAYES_CHAINS = 1000, 4
#: the test_errors stage's names and defaults (metaeval.meta.stages.error_rates: TESTS, DEFAULT_ALPHAS,
#: DEFAULT_DELTAS, DEFAULT_TOPICS), which the simulation reads (metaeval.meta.error_rates, urbano_tests:
#: no import of the stage module, whose run imports them): the tests, as ``metaeval compare --test``
#: spells them; the paper's significance levels (``R/common.R``: 1:9 * .001, 1:9 * .01, .1), effect
#: sizes (seq(.01, .1, .01)) and topic set sizes
TE_TESTS = ("paired-t", "wilcoxon", "sign", "bootstrap", "permutation")
TE_ALPHAS = tuple([round(i * 0.001, 3) for i in range(1, 10)] + [round(i * 0.01, 2) for i in range(1, 10)] + [0.1])
TE_DELTAS = tuple(round(i * 0.01, 2) for i in range(1, 11))
TE_TOPICS = (25, 50, 100)
#: the standardisation stage's experiments' defaults, topics per random subset and subsets
#: (metaeval.meta.stages.standardisation), which the experiments read (metaeval.meta.standardisation:
#: no import of the stage module)
STD_TOPICS, STD_TRIALS = 50, 1000

#: the fewest resamples any ``B`` takes (bootstrap samples, permutations, replicates): one rule for
#: the config schema, every command's option and the API
B_MIN = 10

#: the JSON-schema of every ``B``
B_SCHEMA = {"type": "integer", "minimum": B_MIN}

#: the row order of a bootstrap sensitivity table, as the papers list it (Sakai 2007a, 2007b):
#: sensitivity descending, ties by metric name (``Output.row_order`` of the paired and unpaired tables)
BY_SENSITIVITY = (("sensitivity", False), ("metric", True))


def commas(values) -> str:
    """A list parameter's value as its option and config spell it: ``10,50,100`` (``render=``)."""
    return ",".join(str(v) for v in values)


def format_alpha(alpha: float) -> str:
    """The significance level as captions print it: ``0.05`` (``CaptionParam`` of ``alpha``)."""
    return f"{float(alpha):g}"


def check_B(v):
    if isinstance(v, bool) or int(v) != v or int(v) < B_MIN:
        raise ValueError(f"B (number of bootstrap samples) must be an integer >= {B_MIN}, got {v!r}")


def _check_alpha(v):
    if not 0.0 < float(v) < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {float(v)}")


def _check_seed(v):
    if isinstance(v, bool) or int(v) != v or v < 0:
        raise ValueError(f"seed must be a non-negative integer, got {v!r}")


def _check_pair_top_runs(v):
    if isinstance(v, bool) or int(v) != v or v < 0:
        raise ValueError(f"pair_top_runs must be a non-negative integer, got {v!r}")


@dataclass(frozen=True)
class CommonParams:
    """The parameters every method shares (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    B: int = parameter(1000, "bootstrap samples (default 1000)", config=("bootstrap", "B"), schema=B_SCHEMA,
                       doc="Number of bootstrap samples (papers - 1000).", check=check_B)
    alpha: float = parameter(0.05, "significance level (default 0.05)", config=("bootstrap", "alpha"),
                             schema={"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                             doc="Significance level (papers - 0.05).", check=_check_alpha)
    seed: int = parameter(SEED, f"seed; every sample set derives from (seed, number of topics, B) (default {SEED})",
                          config=("bootstrap", "seed"), schema={"type": "integer", "minimum": 0},
                          doc="Seed from which every bootstrap sample set is derived (with topics and B).",
                          check=_check_seed)
    # the runs: the pipeline gives each collection's top_runs and the canonical select_by
    top_runs: int | None = parameter(None, "keep the top K runs by the mean of --select-by (the papers: 30)",
                                     metavar="K", schema={"type": "integer", "minimum": 2})
    select_by: str = parameter("AP", "matrix whose mean ranks the runs for --top-runs (default AP, relaxed AP)",
                               metavar="METRIC")
    # the metrics (config `geometric`: canonicalised by metaeval.dag)
    geometric: tuple[str, ...] = parameter(
        (), "also evaluate AG_M (paired) and G_M (unpaired, swap, stability) for these", nargs="+", metavar="M")
    batch: int | None = parameter(None, "bootstrap samples per batch (memory bound)")
    # the tables' Markdown/LaTeX (the tables job)
    pair_top_runs: int = parameter(
        20, "the Markdown/LaTeX of a per-pair table (asl) of more than 22 runs (over 231 pairs) list the pairs "
        "of the top K runs by mean AP (default 20; 0 = every pair); the CSV every pair", metavar="K",
        config=("pair_top_runs",), schema={"type": "integer", "minimum": 0}, check=_check_pair_top_runs,
        doc="The Markdown and LaTeX of a per-pair table (asl) of more than 22 runs (over 231 pairs) list the pairs "
            "of the top K runs by mean AP (0 = every pair); the CSV keeps every pair.")
    # the captions (the tables job): what the data are, and whether they reproduce the papers
    collection_name: str | None = parameter(
        None, "the collection's name in the captions (the pipeline: the collection's name in the config)",
        metavar="NAME")
    reproduction: bool = parameter(
        False, "the collection reproduces the papers whose tables the outputs lay out (Sakai's NTCIR data): the "
        "captions say 'Regenerates Table N of ...'; without it they cite the method ('After Table N of ...')",
        action="store_true", config=("collections", "*", "reproduction"))


#: read by the commands, no MetaConfig field: the metrics (config `metrics`, canonicalised by
#: metaeval.dag; given to the stages beside the MetaConfig) and the display labels (read by
#: metaeval.cli._meta_options.labels_from_args; the pipeline gives a file, a mapping in the config
#: written as NAME LABEL lines by metaeval.dag.Plan)
METRICS = Param("metrics", str, None, "metrics to meta-evaluate (default: every matrix except gain-sweep variants); "
                "AG_M = paired test on log(M + 0.00001), G_M = geometric mean", nargs="+", metavar="M", field=False)
LABELS = Param(
    "labels", str, None, "display labels: 'NAME LABEL' lines (NAME a run's file stem or runid, or a measure by any "
    "alias) shown in the Markdown/LaTeX tables and figures; CSVs keep the names (default: each run's file stem "
    "without the prefix and extension most runs share, then a long prefix/suffix shared with other runs)", metavar="FILE", config=("labels",), field=False,
    schema={"type": ["string", "object", "null"], "additionalProperties": {"type": "string"}},
    doc="Display labels of runs and measures in the Markdown/LaTeX tables and the figures (the CSVs keep the "
        "names) - a file of `NAME LABEL` lines or a mapping NAME - LABEL; NAME is a run's file stem or runid, "
        "or a measure by any alias. null - each run's file stem without the prefix and suffix or extension "
        "more than half of the runs share, then without a long prefix or suffix it shares with a quarter of "
        "them (docs/outputs.md, Labels), measures by their canonical names; every job's tables and figures "
        "(the meta-evaluation's, judgments, ppi, the summary) show them.")

#: every common parameter, in the order of the options and the config schema
_ORDER = ("B", "alpha", "seed", "top_runs", "select_by", "metrics", "geometric", "batch", "labels", "pair_top_runs",
          "collection_name", "reproduction")
PARAMS = tuple(sorted(params_of(CommonParams) + (METRICS, LABELS), key=lambda p: _ORDER.index(p.name)))

#: the parameters `metaeval stage` takes from --runs instead
SELECTION = ("top_runs", "select_by")

SECTIONS = ((("bootstrap",), "Bootstrap settings shared by the paired/unpaired tests, swap and stability methods."),)
