"""The output contract: every table and figure metaeval writes, declared once.

This module is the one place that lists the published files.  The Snakemake workflow's target
lists (``workflow/rules/common.smk``), the writers (:mod:`metaeval.report`), the report captions
and ``docs/outputs.md`` all read it.  It imports only the standard library, so parsing the
workflow (once per job on a cluster) stays cheap.

Each :class:`Output` gives:

* ``name`` -- the file stem (``tables/NAME.csv``, ``figures/NAME.png``, ``summary/NAME.csv``,
  ``kishida/NAME.csv``);
* ``kind`` -- ``"table"``, ``"figure"`` or ``"text"`` (a folder of plain-text files whose names
  depend on the configuration, e.g. ``pvalues/METRIC.rthsd.B``: declared as the folder, its
  file-name pattern in ``formats``); ``scope`` -- ``"collection"`` (one per collection),
  ``"summary"`` (across collections) or ``"kishida"`` (the Kishida (2005) reproduction);
* ``formats`` -- the file extensions written;
* ``columns`` -- the CSV columns of a table (``...`` marks a repeated group, e.g. one column per
  collection or relevance level); of a text output, the space-separated fields of a line;
* ``caption`` -- the caption text, a template with the fields ``{alpha}`` (the bootstrap
  significance level) and ``{swap_threshold}`` (the swap method's threshold, as a percentage),
  filled from the configuration by :func:`caption`;
* ``regenerates`` -- the table or figure of the papers it regenerates, cited by author and year;
* ``stages`` -- the pipeline stage(s) that compute it; ``source`` -- for a figure, the table it
  is drawn from; ``condition`` -- ``None`` or the name of the option that switches it on
  (``"gain_sweep"``).

Adding a table: one :class:`Output` entry below, its layout in :mod:`metaeval.report.layouts`
(keyed by :attr:`Output.layout`) and the stage that computes it (see docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from .meta import stages as _stages

__all__ = ["Output", "OUTPUTS", "SCOPES", "STAGES", "TABLE_FORMATS", "FIGURE_FORMATS", "outputs",
           "tables", "figures", "get", "for_layout", "names", "files", "caption", "caption_context",
           "primary_measure", "CAPTION_DEFAULTS", "format_alpha",
           "format_threshold", "report_caption_name", "report_captions", "markdown_reference"]

TABLE_FORMATS = ("csv", "md", "tex")
FIGURE_FORMATS = ("png", "pdf")
SCOPES = ("collection", "summary", "kishida", "judgments", "ppi", "reproducibility")
#: the stage names an output may give: every stage of the registry (:mod:`metaeval.stages`)
STAGES = _stages.names()
#: the switches of conditional outputs: the conditions of the registry's stages
CONDITIONS = tuple(dict.fromkeys(s.condition for s in _stages.REGISTRY if s.condition))

#: where a scope's files go: ``results/C/tables``, ``results/C/figures``, ``results/summary``, ...
_DIRS = {("collection", "table"): "tables", ("collection", "figure"): "figures",
         ("summary", "table"): "", ("summary", "figure"): "", ("kishida", "table"): "",
         ("collection", "text"): "",
         # judgments (issue 28): DIR/tables, DIR/figures and the folder DIR/judgments
         ("judgments", "table"): "tables", ("judgments", "figure"): "figures", ("judgments", "text"): "",
         # metaeval ppi (stage ppi): DIR/tables, DIR/figures
         ("ppi", "table"): "tables", ("ppi", "figure"): "figures",
         # reproducibility (one job): RESULTS/reproducibility/tables, .../figures
         ("reproducibility", "table"): "tables", ("reproducibility", "figure"): "figures"}


@dataclass(frozen=True)
class Output:
    """One published table or figure (see the module docstring for the fields)."""

    name: str
    kind: str
    scope: str
    caption: str
    regenerates: str
    stages: tuple = ()
    columns: tuple = ()
    formats: tuple = ()
    source: str | None = None
    condition: str | None = None

    def __post_init__(self):
        if self.kind not in ("table", "figure", "text"):
            raise ValueError(f"{self.name}: kind must be 'table', 'figure' or 'text', got {self.kind!r}")
        if self.kind == "text" and not self.formats:
            raise ValueError(f"{self.name}: a text output needs its file-name pattern in formats")
        if self.scope not in SCOPES:
            raise ValueError(f"{self.name}: unknown scope {self.scope!r}")
        if not set(self.stages) <= set(STAGES):
            raise ValueError(f"{self.name}: unknown stage in {self.stages!r}")
        if self.condition is not None and self.condition not in CONDITIONS:
            raise ValueError(f"{self.name}: unknown condition {self.condition!r}")
        if not self.formats:
            object.__setattr__(self, "formats",
                               TABLE_FORMATS if self.kind == "table" else FIGURE_FORMATS)

    @property
    def key(self) -> str:
        """``scope/kind/name``: unique across all outputs."""
        return f"{self.scope}/{self.kind}/{self.name}"

    @property
    def layout(self) -> str:
        """The table layout key in :data:`metaeval.report.layouts.KINDS` (``NAME`` for a
        per-collection table, ``summary_NAME`` for a summary table); figures: the plotter key
        in :data:`metaeval.report.figures.PLOTTERS` (``NAME`` / ``summary_NAME``)."""
        return self.name if self.scope == "collection" else f"{self.scope}_{self.name}"

    @property
    def directory(self) -> str:
        """The folder under the scope's root (``tables``/``figures`` per collection, else '')."""
        return _DIRS[(self.scope, self.kind)]

    def files(self) -> list[str]:
        """The file names relative to the scope's root, one per format (a text output: its
        folder, ``NAME``, whose files are named by the pattern in ``formats``)."""
        if self.kind == "text":
            return [self.name]
        d = self.directory + "/" if self.directory else ""
        return [f"{d}{self.name}.{x}" for x in self.formats]


_T, _F = "table", "figure"
_SAKAI_A, _SAKAI_B, _KISHIDA = "Sakai (2007a)", "Sakai (2007b)", "Kishida (2005)"
# rank correlation beyond Kendall's tau
_RANKCORR_REFS = ("tau_AP (Yilmaz et al. (2008)), its tie-aware variants tau_AP-a and tau_AP-b "
                  "(Urbano & Marrero (2017)), rank-biased overlap RBO (Webber et al. (2010)) and its "
                  "tie-aware variants RBO^a and RBO^b (Corsi & Urbano (2024))")
_RANKCORR_REGEN = (f"Table 2 of {_SAKAI_A} / Table 5 of {_SAKAI_B}, extended with the coefficients "
                   "of Yilmaz et al. (2008), Urbano & Marrero (2017), Webber et al. (2010) and "
                   "Corsi & Urbano (2024)")
_RANKCORR_COEFS = ("tau_a", "tau_b", "tau_ap", "tau_ap_a", "tau_ap_b", "rbo", "rbo_a", "rbo_b")
# discriminative power as practised since 2012: randomised Tukey HSD (Carterette 2012;
# Sakai's Discpower tool, Sakai 2014), two-way ANOVA and effect sizes, topic set size (Sakai 2016)
_CARTERETTE, _SAKAI_14, _SAKAI_16 = "Carterette (2012)", "Sakai (2014)", "Sakai (2016)"

# robustness to incomplete judgments and pool reuse (stage incompleteness)
_INC_REFS = ("Buckley & Voorhees (2004) and Sakai (SIGIR 2007) (reduced qrels), "
             "Zobel (1998) and Sakai & Kando (2008) (reduced pool depth)")
_POOL_REFS = "Zobel (1998) and Büttcher et al. (2007)"
# score standardisation (stage standardisation; issue 30)
_URBANO_19 = "Urbano, Lima & Hanjalic (2019)"
_STD_METHODS = ("raw scores and the z-scores of Webber et al. (2008) (z), their normal CDF (N), Sakai (2016)'s "
                "std-AB (U) and the empirical CDF (E)")

# judgments as a dimension (issue 28): who judged, and what it changes
_JUDG_LABEL_REGEN = ("the inter-assessor agreement of Voorhees (2000) with Cohen (1960)'s kappa and "
                     "Krippendorff (2004)'s alpha")
_JUDG_RANK_REGEN = ("the ranking correlations of Voorhees (2000) with tau_AP (Yilmaz et al. (2008)), "
                    "RBO (Webber et al. (2010)) and the top-k tau of Clarke & Dietz (2024)")

# ----------------------------------------------------------------------------- the declarations
# Order within a scope is the order of the workflow's target lists and of docs/outputs.md.
OUTPUTS: tuple[Output, ...] = (
    # ---- per collection: tables (results/C/tables/NAME.csv|md|tex)
    Output("collection", _T, "collection",
           "Statistics of the collection: topics, mean number of relevant documents per topic "
           "(in total and per relevance level) and runs used",
           f"Table 1 of {_SAKAI_A} / Table 1 of {_SAKAI_B}", ("collection",),
           ("topic", "R", "R(L1)...", "runs")),
    Output("kendall", _T, "collection",
           "Kendall's rank correlations between the system rankings of every two metrics "
           "(values above 0.8 in bold)",
           f"Table 2 of {_SAKAI_A} / Table 5 of {_SAKAI_B}", ("kendall",),
           ("metric_a", "metric_b", "tau", "z0", "p_value")),
    Output("bootstrap_paired", _T, "collection",
           "Paired bootstrap sensitivity: system pairs with ASL < alpha = {alpha}, and the "
           "estimated overall difference required (two significant figures)",
           f"Table 4 of {_SAKAI_A} / Table 2 of {_SAKAI_B}", ("paired",),
           ("metric", "pairs", "significant", "sensitivity", "estimated_diff")),
    Output("bootstrap_unpaired", _T, "collection",
           "Unpaired bootstrap sensitivity: system pairs with ASL < alpha = {alpha}, and the "
           "estimated overall difference required (two significant figures)",
           f"Table 3 of {_SAKAI_B}", ("unpaired",),
           ("metric", "pairs", "significant", "sensitivity", "estimated_diff")),
    Output("swap", _T, "collection",
           "Swap method (swap rate <= {swap_threshold}): (ii) absolute difference required, "
           "(iii) maximum observed, their ratio, and the percentage of comparisons satisfying (ii)",
           f"Table 3 of {_SAKAI_A} / Table 4 of {_SAKAI_B}", ("swap",),
           ("metric", "diff_required", "max_diff", "relative", "pct_satisfying")),
    Output("swap_rates", _T, "collection",
           "Swap rate per performance-difference bin (bin = lower edge)",
           f"the curves behind Table 3 of {_SAKAI_A} / Table 4 of {_SAKAI_B}", ("swap",),
           ("metric", "bin", "comparisons", "swaps", "swap_rate")),
    Output("stability", _T, "collection",
           "Stability method: minority rate (MR) and proportion of ties (PT) per fuzziness f",
           f"the data of {_SAKAI_B} Figs 17-18", ("stability",),
           ("metric", "f", "minority_rate", "proportion_ties")),
    Output("gain_kendall", _T, "collection",
           "Kendall's rank correlations: default gain values versus others (above 0.8 in bold)",
           f"Table 5 of {_SAKAI_A}", ("gain_sweep",),
           ("metric", "gains", "tau", "z0", "p_value", "paper_gains", "variant"),
           condition="gain_sweep"),
    Output("gain_bootstrap", _T, "collection",
           "The effect of changing gain values on the paired bootstrap sensitivity",
           f"Table 6 of {_SAKAI_A}", ("gain_sweep",),
           ("metric", "pairs", "significant", "sensitivity", "estimated_diff", "gains", "default",
            "paper_gains"),
           condition="gain_sweep"),
    Output("preferred_rank", _T, "collection",
           "The maximum preferred rank among the runs and the number of relevant documents at "
           "or above it per relevance level (total in parentheses)",
           f"Tables 7-9 of {_SAKAI_A}", ("collection",),
           ("topic", "run", "max_rp", "level", "count", "total")),
    Output("asl", _T, "collection", "Achieved significance level of every system pair",
           f"the data of {_SAKAI_B} Figs 10-13", ("paired", "unpaired"),
           ("metric", "test", "system_x", "system_y", "asl")),
    Output("run_means", _T, "collection", "Mean performance of {runs} over {topics}, best first by mean {measure}",
           f"the data of {_SAKAI_A} Fig. 8 / {_SAKAI_B} Fig. 1", ("run_means",),
           ("metric", "run", "mean")),
    Output("tstar", _T, "collection",
           "Bootstrap replicates t* of the paired test for the chosen system pair of each metric",
           f"the data of {_SAKAI_B} Figs 4-5", ("paired",),
           ("metric", "system_x", "system_y", "t_observed", "t_star")),
    Output("rank_correlation", _T, "collection",
           "Rank correlations between the system rankings of every two metrics, one full matrix "
           "per coefficient (row = reference ranking a, column = estimate b): Kendall's tau-a and "
           f"tau-b, {_RANKCORR_REFS}; RBO with the configured persistence p; tau values above 0.8 "
           "in bold; '-' = undefined (or the diagonal); the CSV adds each coefficient's bootstrap "
           "interval (2.5th and 97.5th percentiles over the paired bootstrap samples)",
           _RANKCORR_REGEN, ("rank_correlation",),
           ("metric_a", "metric_b", *_RANKCORR_COEFS,
            *(f"{c}_{s}" for c in _RANKCORR_COEFS for s in ("low", "high")))),

    # ---- per collection: discriminative power (stage discpower; Carterette 2012, Sakai 2014/2016)
    Output("anova", _T, "collection",
           "Two-way ANOVA without replication (system x topic) of every metric: sums of squares, "
           "mean squares, F and p of the system (A) and topic (B) effects; V_E is the residual "
           "variance behind the effect sizes and the topic set sizes",
           f"the ANOVA behind {_SAKAI_14} and {_SAKAI_16}", ("discpower",),
           ("metric", "topics", "systems", "S_A", "S_B", "S_E", "V_A", "V_B", "V_E", "F_A", "F_B",
            "p_A", "p_B")),
    Output("pvalues", _T, "collection",
           "p-values of every system pair under every test (randomised and parametric Tukey HSD, "
           "paired t with Holm and Benjamini-Hochberg adjustment, Wilcoxon, sign, paired and "
           "unpaired bootstrap ASL), with the difference and the effect size diff / sqrt(V_E)",
           f"the data of {_CARTERETTE} and of Sakai's Discpower tool, {_SAKAI_14}", ("discpower",),
           ("metric", "test", "system_x", "system_y", "diff", "effect_size", "p_value")),
    Output("discriminative_power", _T, "collection",
           "Discriminative power: system pairs with p < alpha = {alpha} under every test",
           f"the discriminative power of {_SAKAI_14} (randomised Tukey HSD, {_CARTERETTE}) beside "
           f"Table 4 of {_SAKAI_A} / Tables 2-3 of {_SAKAI_B}", ("discpower",),
           ("metric", "test", "alpha", "pairs", "significant", "share")),
    Output("topic_set_size", _T, "collection",
           "Topic set size design: the smallest number of topics giving power 1 - beta at "
           "alpha = {alpha} to the paired t-test and to one-way ANOVA over m systems, from each "
           "metric's residual variance V_E",
           f"the topic set size tables of {_SAKAI_16}", ("discpower",),
           ("metric", "method", "alpha", "beta", "min_diff", "systems", "variance", "n")),
    Output("pvalues", "text", "collection",
           "Discpower-compatible p-values of the randomised Tukey HSD test, one file per metric "
           "(B = the number of permutations), one line RUN_X RUN_Y ABSDIFF PVALUE per system pair",
           f"the output of Sakai's Discpower tool, {_SAKAI_14}", ("discpower",),
           ("RUN_X", "RUN_Y", "ABSDIFF", "PVALUE"), ("METRIC.rthsd.B",)),

    # ---- per collection: robustness to incomplete judgments and pool reuse (stage incompleteness)
    Output("incompleteness", _T, "collection",
           "Robustness to incomplete judgments: every metric, as given (unjudged = nonrelevant) and on "
           "condensed lists (judged_only=True), on reduced qrels -- a fraction of each topic's judged "
           "documents (judged), of its relevant and nonrelevant ones (stratified) or the pool of the "
           "runs' top d (depth); per level the mean and s.d. over trials of Kendall's tau-a and the "
           "mean tau_AP between the runs' rankings on the full and the reduced qrels, the RMSE of the "
           "runs' mean scores, and the mean number of run pairs significant at alpha = {alpha} (paired "
           "bootstrap)",
           f"the reduced-qrels experiments of {_INC_REFS}", ("incompleteness",),
           ("metric", "method", "level", "trials", "tau", "tau_sd", "tau_ap", "rmse",
            "significant_pairs", "pairs"), condition="incompleteness"),
    Output("pool_reuse", _T, "collection",
           "Pool reuse (leave one group out): each group's runs scored on the qrels without the "
           "documents only that group contributed to the pool, against the other runs on the full "
           "qrels: full and reduced mean, their difference and the run's rank (1 = best) before and "
           "after; per metric the summary rows (group all) mean_abs_delta, max_abs_delta and "
           "max_rank_drop, the value in delta; the Markdown and LaTeX show the difference, one column per "
           "metric (the means and ranks: the CSV)",
           f"the leave-one-group-out experiment of {_POOL_REFS}", ("incompleteness",),
           ("metric", "group", "run", "full", "reduced", "delta", "full_rank", "reduced_rank"),
           condition="incompleteness"),
    Output("incompleteness", "text", "collection",
           "The trials of the incompleteness stage (trials.csv: one row per metric, method, level and "
           "trial with tau, tau_ap, rmse and significant_pairs) and, with --write-qrels, every reduced "
           "qrels in the input's form (qrels/METHOD-LEVEL-TRIAL.txt; leave-one-group-out-GROUP.txt)",
           f"the trials behind {_INC_REFS}", ("incompleteness",),
           ("metric", "method", "level", "trial", "tau", "tau_ap", "rmse", "significant_pairs"),
           ("trials.csv", "qrels/METHOD-LEVEL-TRIAL.txt"), condition="incompleteness"),

    # ---- per collection: risk-sensitive measures against a baseline run (stage risk, issue 30)
    Output("risk", _T, "collection",
           "Risk-sensitive measures of every run against the configured baseline run(s), per metric "
           "and risk sensitivity alpha (a loss weighs 1 + alpha): URisk (Wang et al. 2012), TRisk and its "
           "two-sided p-value (Dinçer, Macdonald & Ounis 2014; TRisk < -2: significantly riskier than "
           "the baseline), ZRisk and GeoRisk against all runs in use (Dinçer, Macdonald & Ounis 2016), "
           "and the topics the run wins and loses against the baseline; the Markdown and LaTeX show URisk "
           "and TRisk per alpha (p, ZRisk and GeoRisk: the CSV)",
           "the risk-sensitive evaluation of Wang et al. (2012) and Dinçer, Macdonald & Ounis (2014, "
           "2016), as TREC's Web track 2013-2014 reported it", ("risk",),
           ("metric", "run", "baseline", "alpha", "urisk", "trisk", "p", "zrisk", "georisk", "wins",
            "losses"), condition="risk"),
    # ---- per collection: score standardisation (stage standardisation; issue 30)
    Output("standardisation_within", _T, "collection",
           f"Standardisation within a collection: {_STD_METHODS}; per trial a random subset of n_topics "
           "topics, Kendall's tau_b (mean and s.d. over the trials), tau_AP-b and Pearson's r between the runs' "
           "mean raw and mean standardised scores, and the fraction of run pairs the paired t test on the "
           "standardised scores finds significant at the two levels of the columns power_at_ALPHA",
           f"the within-collection experiment of {_URBANO_19} (their R/01-within.R)", ("standardisation",),
           ("metric", "std", "n_topics", "trials", "tau", "tau_sd", "tau_ap", "r", "power_at_0.05",
            "power_at_0.01"), condition="standardisation"),
    Output("standardisation_between", _T, "collection",
           f"Standardisation between collections: {_STD_METHODS}; per trial two disjoint random sets of "
           "topics play two collections: type1 = the fraction of runs Welch's t test finds different from "
           "themselves across the two sets, power = the fraction of pairs of different runs it finds "
           "different, at each alpha; Kendall's tau_b, tau_AP-b and Pearson's r between the two sets' "
           "rankings (means over the trials)",
           f"the between-collection experiment of {_URBANO_19} (their R/02-between.R)", ("standardisation",),
           ("metric", "std", "alpha", "type1", "power", "tau", "tau_ap", "r"), condition="standardisation"),
    Output("standardisation", "text", "collection",
           "The power curves of the within-collection experiment (power.csv: metric, std, alpha, power) and "
           "every trial's tau_b, tau_AP-b and r in both experiments (trials.csv: metric, experiment, std, "
           "trial, tau, tau_ap, r)",
           f"the power curves and correlation distributions of {_URBANO_19}", ("standardisation",),
           ("metric", "std", "alpha", "power"), ("power.csv", "trials.csv"), condition="standardisation"),

    # ---- per collection: figures (results/C/figures/NAME.png|pdf), drawn from one table each
    Output("run_means", _F, "collection",
           "Mean score of {runs} under every metric, runs named and sorted by mean {measure}",
           f"{_SAKAI_A} Fig. 8 / {_SAKAI_B} Fig. 1", ("figures",), source="run_means"),
    Output("asl_paired", _F, "collection",
           "Paired bootstrap test ASL curves: the ASL of every system pair, pairs sorted by ASL, "
           "one line per metric; the dotted line is alpha = {alpha}",
           f"{_SAKAI_B} Figs 10 and 12", ("figures",), source="asl"),
    Output("asl_unpaired", _F, "collection",
           "Unpaired bootstrap test ASL curves: the ASL of every system pair, pairs sorted by "
           "ASL, one line per metric; the dotted line is alpha = {alpha}",
           f"{_SAKAI_B} Figs 11 and 13", ("figures",), source="asl"),
    Output("swap_rates", _F, "collection",
           "Swap rate against performance-difference bin, one line per metric; the dotted line "
           "is the swap-rate threshold {swap_threshold}",
           f"the curves behind Table 3 of {_SAKAI_A} / Table 4 of {_SAKAI_B}", ("figures",),
           source="swap_rates"),
    Output("mr_pt", _F, "collection",
           "MR-PT curves of the stability method, one curve per metric as the fuzziness f varies",
           f"{_SAKAI_B} Figs 17-18", ("figures",), source="stability"),
    Output("tstar", _F, "collection",
           "Histogram of the bootstrap replicates t* for the chosen system pair, observed t marked",
           f"{_SAKAI_B} Figs 4-5", ("figures",), source="tstar"),
    Output("rank_correlation", _F, "collection",
           "Rank correlations between the system rankings of every two metrics: one heat map per "
           "coefficient (Kendall's tau-a and tau-b, " + _RANKCORR_REFS + "), row = reference "
           "ranking a, column = estimate b, values printed; undefined cells blank",
           _RANKCORR_REGEN, ("figures",), source="rank_correlation"),
    Output("pvalues", _F, "collection",
           "p-value curves: the p-value of every system pair, pairs sorted by p-value, one line "
           "per metric, one panel per test; the dotted line is alpha = {alpha}",
           f"the p-value curves of {_SAKAI_14} (ASL curves of {_SAKAI_B} Figs 10-13)",
           ("figures",), source="pvalues"),

    Output("incompleteness", _F, "collection",
           "Kendall's tau-a (top) and tau_AP (bottom) between the rankings on the full and on the "
           "reduced qrels against the fraction of judgments kept or the pool depth, one panel per "
           "method, one line per metric with its s.d. band over trials",
           f"the curves of {_INC_REFS}", ("figures",), source="incompleteness",
           condition="incompleteness"),
    Output("pool_reuse", _F, "collection",
           "Pool reuse: the change of each left-out run's mean score (reduced - full) per metric, "
           "runs in group order",
           f"the leave-one-group-out experiment of {_POOL_REFS}", ("figures",), source="pool_reuse",
           condition="incompleteness"),
    # score standardisation (stage standardisation; issue 30)
    Output("standardisation_power", _F, "collection",
           "Power and type I error curves between collections: the fraction of pairs of different runs "
           "(left) and of runs against themselves (right) that Welch's t test finds significant, against "
           "alpha, one line per standardisation, one row of panels per metric",
           f"the between-collection power and type I error figures of {_URBANO_19}",
           ("standardisation",), source="standardisation_between", condition="standardisation"),
    Output("standardisation_tau", _F, "collection",
           "Rank correlations per standardisation: within a collection, the mean tau_b (with its s.d. over "
           "the trials) and tau_AP-b between the rankings by raw and by standardised mean scores, one "
           "panel per metric",
           f"the within-collection tau and tau_AP figures of {_URBANO_19}", ("standardisation",),
           source="standardisation_within", condition="standardisation"),

    # ---- across collections: tables (results/summary/NAME.csv|md|tex)
    Output("collection", _T, "summary", "Statistics of the collections",
           f"Table 1 of {_SAKAI_A} / Table 1 of {_SAKAI_B}", ("summary",),
           ("collection", "topics", "R", "R(L1)...", "runs"), source="collection"),
    Output("sensitivity_paired", _T, "summary",
           "Paired bootstrap sensitivity (% of system pairs with ASL < alpha = {alpha}) per "
           "collection", f"{_SAKAI_A} Fig. 10 / {_SAKAI_B} Fig. 14", ("summary",),
           ("metric", "COLLECTION..."), source="bootstrap_paired"),
    Output("sensitivity_unpaired", _T, "summary",
           "Unpaired bootstrap sensitivity (% of system pairs with ASL < alpha = {alpha}) per "
           "collection", f"{_SAKAI_B} Fig. 15", ("summary",),
           ("metric", "COLLECTION..."), source="bootstrap_unpaired"),
    Output("estimated_diff_paired", _T, "summary",
           "Paired bootstrap: estimated difference required per collection",
           f"column (iii) of Table 4 of {_SAKAI_A} / Table 2 of {_SAKAI_B}", ("summary",),
           ("metric", "COLLECTION..."), source="bootstrap_paired"),
    Output("estimated_diff_unpaired", _T, "summary",
           "Unpaired bootstrap: estimated difference required per collection",
           f"column (iii) of Table 3 of {_SAKAI_B}", ("summary",),
           ("metric", "COLLECTION..."), source="bootstrap_unpaired"),
    Output("swap_diff_required", _T, "summary",
           "Swap method: absolute difference required for a swap rate <= {swap_threshold} per "
           "collection", f"column (ii) of Table 3 of {_SAKAI_A} / Table 4 of {_SAKAI_B}",
           ("summary",), ("metric", "COLLECTION..."), source="swap"),
    Output("swap_relative", _T, "summary",
           "Swap method: relative difference required ((ii)/(iii), %) per collection",
           f"column (ii)/(iii) of Table 3 of {_SAKAI_A} / Table 4 of {_SAKAI_B}", ("summary",),
           ("metric", "COLLECTION..."), source="swap"),
    Output("swap_pct_satisfying", _T, "summary",
           "Swap method: % of comparisons satisfying the required difference per collection",
           f"{_SAKAI_A} Fig. 9 / {_SAKAI_B} Fig. 20", ("summary",),
           ("metric", "COLLECTION..."), source="swap"),
    Output("kendall", _T, "summary",
           "Kendall's tau of every metric pair per collection (above 0.8 in bold)",
           f"Table 2 of {_SAKAI_A} / Table 5 of {_SAKAI_B} across collections", ("summary",),
           ("metric_a", "metric_b", "COLLECTION..."), source="kendall"),
    Output("rank_correlation", _T, "summary",
           "Tie-aware rank correlations of every metric pair per collection: tau_AP-b "
           "(Urbano & Marrero (2017)) and RBO^a (Corsi & Urbano (2024)) with the configured "
           "persistence p", f"{_RANKCORR_REGEN}, across collections", ("summary",),
           ("metric_a", "metric_b", "coefficient", "COLLECTION..."), source="rank_correlation"),
    Output("discriminative_power", _T, "summary",
           "Discriminative power (% of system pairs with p < alpha = {alpha}) per metric and test "
           "in every collection", f"the discriminative power of {_SAKAI_14} across collections",
           ("summary",), ("metric", "test", "COLLECTION..."), source="discriminative_power"),

    # ---- across collections: figures (results/summary/NAME.png|pdf)
    Output("sensitivity_paired", _F, "summary",
           "Paired bootstrap sensitivity (% of system pairs with ASL < alpha = {alpha}) per "
           "metric across the collections", f"{_SAKAI_A} Fig. 10 / {_SAKAI_B} Fig. 14",
           ("summary",), source="sensitivity_paired"),
    Output("sensitivity_unpaired", _F, "summary",
           "Unpaired bootstrap sensitivity (% of system pairs with ASL < alpha = {alpha}) per "
           "metric across the collections", f"{_SAKAI_B} Fig. 15", ("summary",),
           source="sensitivity_unpaired"),
    Output("swap_pct_satisfying", _F, "summary",
           "Swap method: % of comparisons satisfying the difference required for a swap rate "
           "<= {swap_threshold}, per metric across the collections",
           f"{_SAKAI_A} Fig. 9 / {_SAKAI_B} Fig. 20", ("summary",), source="swap_pct_satisfying"),
    Output("asl_paired", _F, "summary",
           "Paired test ASL curves, one panel per collection; the dotted line is alpha = {alpha}",
           f"{_SAKAI_B} Figs 10 and 12 for every collection", ("summary",), source="asl"),
    Output("asl_unpaired", _F, "summary",
           "Unpaired test ASL curves, one panel per collection; the dotted line is "
           "alpha = {alpha}", f"{_SAKAI_B} Figs 11 and 13 for every collection", ("summary",),
           source="asl"),
    Output("run_means", _F, "summary",
           "Distribution of the mean {measure} over the runs of every collection",
           f"{_SAKAI_A} Fig. 8 / {_SAKAI_B} Fig. 1", ("summary",), source="run_means"),
    Output("discriminative_power", _F, "summary",
           "Discriminative power by test: % of system pairs with p < alpha = {alpha}, one panel "
           "per collection, one line per metric",
           f"the discriminative power of {_SAKAI_14} across collections", ("summary",),
           source="discriminative_power"),

    # ---- the Kishida (2005) reproduction (results/kishida/NAME.csv|md)
    Output("table1", _T, "kishida",
           "Change of the average precision score after finding a new relevant document "
           "(unknown relevant documents)", f"Table 1 of {_KISHIDA}", ("kishida",),
           ("R", "v", "delta"), ("csv", "md")),
    Output("table2", _T, "kishida",
           "Results of the simulation of judgment variation (variance of average precision)",
           f"Table 2 of {_KISHIDA}", ("kishida",), ("theta", "statistic", "value"), ("csv", "md")),
    Output("table3", _T, "kishida",
           "Statistics of the graded-relevance indicators over the 136 output patterns",
           f"Table 3 of {_KISHIDA}", ("kishida",), ("indicator", "mean", "std"), ("csv", "md")),
    Output("table4", _T, "kishida",
           "Correlation matrix of the indicators over the 136 output patterns",
           f"Table 4 of {_KISHIDA}", ("kishida",), ("indicator", "vS'", "vD", "vQ", "vG", "AP"),
           ("csv", "md")),
    Output("table5", _T, "kishida",
           "Scores of the indicators for some characteristic output patterns",
           f"Table 5 of {_KISHIDA}", ("kishida",), ("row", "pattern", "vS'", "vD", "vQ", "vG"),
           ("csv", "md")),
    Output("patterns", _T, "kishida",
           "The output patterns of Sec. 4.3 and every indicator's value on each",
           f"the data behind Tables 3-5 of {_KISHIDA}", ("kishida",),
           ("pattern", "vS'", "vD", "vQ", "vG", "AP"), ("csv",)),

    # ---- judgments as a dimension (issue 28; `metaeval judgments`, DIR/tables, DIR/figures, DIR/judgments)
    Output("label_agreement", _T, "judgments",
           "Label agreement between every two qrels sets on the (topic, document) pairs both judged: "
           "share of equal labels, Cohen's kappa unweighted, with linear and quadratic weights and on "
           "binary relevance (level >= threshold), Krippendorff's alpha (nominal, ordinal, interval), "
           "precision, recall, F1 and Jaccard of the relevant labels (level >= threshold; the reference, "
           "else the first set, as the truth) and the adjusted Rand index of Hubert & Arabie (1985); "
           "last row: Krippendorff's alpha over all sets at once",
           _JUDG_LABEL_REGEN, ("judgments",),
           ("qrels_a", "qrels_b", "topics", "pairs", "agreement", "kappa", "kappa_linear", "kappa_quadratic",
            "kappa_binary", "threshold", "alpha_nominal", "alpha_ordinal", "alpha_interval", "precision", "recall",
            "f1", "jaccard", "ari")),
    Output("ranking_agreement", _T, "judgments",
           "Does the ranking of the runs survive another assessor? Per metric and qrels set against the "
           "reference: Kendall's tau-a with its 95% BCa bootstrap interval (Efron 1987), tau-b, "
           "tau_AP (the reference as the truth), RBO, Kendall's tau among the reference's top k runs, "
           "the largest change of a run's rank, Pearson's r, Spearman's rho, tau_AP-b (Urbano & Marrero "
           "2017) and tau_GAP (Gao & Oard 2015) of the run means",
           _JUDG_RANK_REGEN, ("judgments",),
           ("metric", "qrels", "reference", "runs", "topics", "tau", "tau_b", "tau_ap", "rbo", "top_k",
            "tau_top", "max_rank_change", "tau_ci_low", "tau_ci_high", "pearson", "spearman", "tau_ap_b",
            "tau_gap")),
    Output("topic_ranking_agreement", _T, "judgments",
           "Per metric, qrels set and topic: the correlation of the runs' scores on that topic under the "
           "reference and under the set (Kendall's tau-a and tau-b, Pearson's r, Spearman's rho)",
           "the per-topic correlations of TREC's AutoJudge evaluation, with Kendall (1945)'s tau",
           ("judgments",),
           ("metric", "qrels", "reference", "topic", "runs", "tau", "tau_b", "pearson", "spearman"), ("csv",)),
    Output("run_ranks", _T, "judgments",
           "Every run's mean and rank (1 = best) per metric under the reference and under each qrels set, "
           "and its change of rank (reference rank - rank under the set: positive = the run gains)",
           _JUDG_RANK_REGEN, ("judgments",), ("metric", "run", "qrels", "mean", "rank", "rank_change")),
    Output("decision_agreement", _T, "judgments",
           "Do the significance decisions survive another assessor? Per metric and qrels set: run pairs "
           "significant at alpha = {alpha} under the reference and under the set, pairs with the same "
           "decision, pairs reversed (significant under both in opposite directions) and the share of "
           "pairs with the same decision",
           "the significance decisions of Voorhees (2000) under the tests of metaeval compare",
           ("judgments",),
           ("metric", "qrels", "reference", "pairs", "significant_reference", "significant_qrels",
            "same_decision", "reversed", "agreement")),
    Output("qrels_discriminative_power", _T, "judgments",
           "Discriminative power under each qrels set: system pairs with p < alpha = {alpha} under every "
           "test, each set over its own topics",
           f"the discriminative power of {_SAKAI_14} per assessor", ("judgments",),
           ("qrels", "metric", "test", "alpha", "pairs", "significant", "share")),
    Output("run_means", _F, "judgments",
           "Mean score of every run under the reference (x) and under each qrels set (y, a colour per "
           "set), one panel per metric with its tau in the title, the diagonal dotted",
           "Voorhees (2000) Fig. 1", ("judgments",), source="run_ranks"),
    Output("ranking_agreement", _F, "judgments",
           "Kendall's tau (with its BCa bootstrap interval, Efron 1987) and tau_AP between the reference's ranking of "
           "the runs and each qrels set's, by metric",
           _JUDG_RANK_REGEN, ("judgments",), source="ranking_agreement"),
    Output("judgments", "text", "judgments",
           "The label-agreement details: confusion counts of every two sets (confusion/A__B.csv, A's "
           "levels as rows), agreement and kappa per topic (topic_agreement.csv), coverage of every "
           "set and of every run's top k by every set (coverage.csv), and every filled (hybrid) set "
           "as TREC qrels (qrels/NAME.txt)",
           _JUDG_LABEL_REGEN, ("judgments",),
           ("qrels_a", "qrels_b", "topic", "pairs", "agreement", "kappa"),
           ("confusion/A__B.csv", "topic_agreement.csv", "coverage.csv", "qrels/NAME.txt")),
)


# which significance test to trust (stage test_errors, its own command and job; issue 29)
_TE_RATE = "with its binomial standard error se over the trials simulated topic sets"
OUTPUTS += (
    Output("test_errors_type1", _T, "collection",
           "Simulated type I error rate of each paired test (two-tailed) by topic set size and significance "
           f"level alpha: the fraction of simulated topic sets of two runs with the same true mean on which the "
           f"test rejects, {_TE_RATE}; the Markdown and LaTeX show one column per test",
           f"Figures 2-3 of {_URBANO_19}", ("test_errors",),
           ("metric", "n_topics", "test", "alpha", "rate", "se", "trials"), condition="test_errors"),
    Output("test_errors_power", _T, "collection",
           "Simulated power (1 - type II error rate) of each paired test (two-tailed) by topic set size, true "
           f"difference delta and significance level alpha, {_TE_RATE}; the Markdown and LaTeX "
           "show one column per test at alpha = 1/20 (or the first level computed), the CSV every level",
           f"Figures 4-5 of {_URBANO_19}", ("test_errors",),
           ("metric", "n_topics", "test", "delta", "alpha", "rate", "se", "trials"), condition="test_errors"),
    Output("test_errors_type3", _T, "collection",
           "Simulated type III error rate of each paired test (significant in the wrong direction) by topic "
           f"set size, true difference delta and significance level alpha, {_TE_RATE}; the Markdown and LaTeX "
           "show one column per test at alpha = 1/20 (or the first level computed), the CSV every level",
           f"Figure 6 of {_URBANO_19}", ("test_errors",),
           ("metric", "n_topics", "test", "delta", "alpha", "rate", "se", "trials"), condition="test_errors"),
    Output("test_errors", "text", "collection",
           "The fitted models of the simulation: every run's margin (margins.csv: the distribution family "
           "chosen by AIC, its degrees of freedom, AIC, mean and parameters) and every sampled run pair's "
           "copula (copulas.csv)",
           f"the simulation of {_URBANO_19} (after Urbano & Nagler 2018)", ("test_errors",),
           ("metric", "run", "family", "df", "aic", "mean", "params"), ("margins.csv", "copulas.csv"),
           condition="test_errors"),
    Output("test_errors_type1", _F, "collection",
           "Simulated type I error rate of each paired test against the significance level alpha, one panel "
           "per metric and topic set size, the diagonal (rate = alpha) dashed",
           f"Figures 2-3 of {_URBANO_19}", ("test_errors",), source="test_errors_type1",
           condition="test_errors"),
    Output("test_errors_power", _F, "collection",
           "Simulated power of each paired test against the true difference delta at the significance level "
           "1/20 (or the first level computed), with its standard error as a band, one panel per metric and "
           "topic set size",
           f"Figures 4-5 of {_URBANO_19}", ("test_errors",), source="test_errors_power",
           condition="test_errors"),
    Output("test_errors_type3", _F, "collection",
           "Simulated type III error rate of each paired test (significant in the wrong direction) against the "
           "true difference delta at the significance level 1/20 (or the first level computed), with its "
           "standard error as a band, one panel per metric and topic set size",
           f"Figure 6 of {_URBANO_19}", ("test_errors",), source="test_errors_type3",
           condition="test_errors"),
)

# the outputs of stages registered from outside the package (metaeval.stages.register_stage_module,
# METAEVAL_STAGES), declared with their stage (StageInfo.outputs)
OUTPUTS += tuple(Output(**dict(d, stages=(s.name,))) for s in _stages.REGISTRY for d in s.outputs)


# ----------------------------------------------------------------------------- queries
def _enabled(o: Output, conditions: dict) -> bool:
    return o.condition is None or bool(conditions.get(o.condition, True))


def outputs(scope: str | None = None, kind: str | None = None, **conditions) -> list[Output]:
    """The declared outputs of ``scope`` and ``kind`` (None = any), in declaration order.

    ``conditions`` switch conditional outputs off: ``outputs("collection", gain_sweep=False)``
    leaves out the gain-sweep tables (every condition defaults to on)."""
    unknown = set(conditions) - set(CONDITIONS)
    if unknown:
        raise ValueError(f"unknown condition(s) {sorted(unknown)}; known: {list(CONDITIONS)}")
    if scope is not None and scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; known: {list(SCOPES)}")
    return [o for o in OUTPUTS if (scope is None or o.scope == scope)
            and (kind is None or o.kind == kind) and _enabled(o, conditions)]


def tables(scope: str = "collection", **conditions) -> list[Output]:
    """The tables of ``scope`` (e.g. ``tables("collection", gain_sweep=False)``)."""
    return outputs(scope, "table", **conditions)


def figures(scope: str = "collection", **conditions) -> list[Output]:
    """The figures of ``scope``."""
    return outputs(scope, "figure", **conditions)


def names(scope: str = "collection", kind: str = "table", **conditions) -> list[str]:
    """The file stems of :func:`outputs` (``names("summary", "figure")``)."""
    return [o.name for o in outputs(scope, kind, **conditions)]


def get(name: str, scope: str = "collection", kind: str = "table") -> Output:
    """The declaration of one output; ``KeyError`` naming the known ones otherwise."""
    for o in OUTPUTS:
        if o.name == name and o.scope == scope and o.kind == kind:
            return o
    known = ", ".join(names(scope, kind))
    raise KeyError(f"no {scope} {kind} named {name!r}; known: {known}")


def for_layout(layout: str, kind: str = "table") -> Output | None:
    """The output whose :attr:`Output.layout` is ``layout`` (``summary_kendall``), or None."""
    for o in OUTPUTS:
        if o.kind == kind and o.layout == layout:
            return o
    return None


def files(scope: str = "collection", **conditions) -> list[str]:
    """Every file of ``scope``, relative to its root (``tables/kendall.csv``, ...)."""
    return [f for o in outputs(scope, **conditions) for f in o.files()]


# ----------------------------------------------------------------------------- captions
def format_alpha(alpha: float) -> str:
    """The significance level as captions print it: ``0.05``."""
    return f"{float(alpha):g}"


def format_threshold(threshold: float) -> str:
    """A swap-rate threshold (a share) as captions and figure titles print it: ``5%``."""
    return f"{100.0 * float(threshold):g}%"


def primary_measure(metrics, select_by: str | None = None) -> str | None:
    """The measure a results table is ordered by: ``select_by`` when it is among ``metrics``,
    else the first of ``metrics`` (None: no metric)."""
    metrics = list(metrics)
    if select_by is not None and select_by in metrics:
        return select_by
    return metrics[0] if metrics else None


#: what a caption says for a field the computed context does not give (a report caption is one
#: text for every collection: no run count)
CAPTION_DEFAULTS = {"measure": "the primary measure", "runs": "every run", "topics": "the topics"}


class _Context(dict):
    def __missing__(self, key: str) -> str:
        if key in CAPTION_DEFAULTS:
            return CAPTION_DEFAULTS[key]
        raise KeyError(f"caption field {{{key}}}: not in the computed context "
                       f"(known: alpha, swap_threshold, {', '.join(CAPTION_DEFAULTS)})")


def caption_context(*, measure: str | None = None, runs: int | None = None, topics: int | None = None,
                    **extra) -> dict:
    """The caption fields of what was computed: ``measure`` (the primary measure,
    :func:`primary_measure`), the number of ``runs`` and ``topics``, as phrases (``the 37 runs``);
    a field not given keeps its wording of :data:`CAPTION_DEFAULTS`."""
    ctx = {k: v for k, v in extra.items() if v is not None}
    if measure is not None:
        ctx["measure"] = str(measure)
    if runs is not None:
        ctx["runs"] = f"the {int(runs)} run{'s' if int(runs) != 1 else ''}"
    if topics is not None:
        ctx["topics"] = f"the {int(topics)} topic{'s' if int(topics) != 1 else ''}"
    return ctx


def caption(output: Output, *, alpha: float = 0.05, swap_threshold: float = 0.05,
            context: dict | None = None) -> str:
    """The full caption of ``output``: its text (with the configured alpha and swap threshold and
    the fields of the computed ``context``, :func:`caption_context`) and the paper table or figure
    it regenerates."""
    fields = _Context(context or {}, alpha=format_alpha(alpha), swap_threshold=format_threshold(swap_threshold))
    text = output.caption.format_map(fields)
    return f"{text}. Regenerates {output.regenerates}." if output.regenerates else text + "."


def report_caption_name(output: Output) -> str:
    """The caption key of the Snakemake report: ``table_NAME``, ``figure_NAME``,
    ``summary_table_NAME``, ``summary_figure_NAME``, ``judgments_KIND_NAME``,
    ``reproducibility_KIND_NAME`` or ``kishida_NAME``."""
    if output.scope == "collection":
        return f"{output.kind}_{output.name}"
    if output.scope == "summary":
        return f"summary_{output.kind}_{output.name}"
    if output.scope in ("judgments", "ppi", "reproducibility"):
        return f"{output.scope}_{output.kind}_{output.name}"
    return f"kishida_{output.name}"


def report_captions(*, alpha: float = 0.05, swap_threshold: float = 0.05,
                    context: dict | None = None) -> dict[str, str]:
    """Caption key (:func:`report_caption_name`) -> RST text for every table and figure (text
    outputs are not in the report); ``context``: what the configuration computes
    (:func:`caption_context`: the primary measure)."""
    return {report_caption_name(o): caption(o, alpha=alpha, swap_threshold=swap_threshold, context=context)
            + _whole_table_link(o) + "\n" for o in OUTPUTS if o.kind != "text"}


def _whole_table_link(o: Output) -> str:
    """A per-collection table's report caption: the report shows its Markdown view; a link to the
    whole table beside the report (the collection filled in by Snakemake's Jinja2 rendering)."""
    if o.scope != "collection" or o.kind != "table":
        return ""
    path = "{{ snakemake.wildcards.collection }}/" + f"tables/{o.name}.csv"
    return (f" Shown as printed (tables/{o.name}.md: the paper's rounding, the labels); every digit: "
            f"`{o.name}.csv <{path}>`_.")


# ----------------------------------------------------------------------------- docs
def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def markdown_reference(scope: str) -> str:
    """The generated reference table of ``scope`` that docs/outputs.md embeds (tested in sync)."""
    lines = ["| file | kind | formats | CSV columns | stage | when | regenerates |",
             "|---|---|---|---|---|---|---|"]
    for o in outputs(scope):
        cols = ", ".join(f"`{c}`" for c in o.columns) if o.columns else (
            f"drawn from `{o.source}`" if o.source else "")
        when = {"gain_sweep": "gain sweep on", "risk": "a risk baseline configured",
                "standardisation": "standardisation configured",
                "test_errors": "test_errors enabled"}.get(o.condition, "always")
        lines.append("| " + " | ".join(_md_cell(x) for x in (
            f"`{o.name}`", o.kind, ", ".join(o.formats), cols, ", ".join(o.stages), when,
            o.regenerates)) + " |")
    return "\n".join(lines) + "\n"
