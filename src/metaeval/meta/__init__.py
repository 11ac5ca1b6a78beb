"""Meta-evaluation of IR metrics on topic x run score matrices (Sakai 2006, 2007a, 2007b).

Vectorised, seeded implementations of Kendall's tau (:mod:`.kendall`), the paired and unpaired
bootstrap tests and sensitivity (:mod:`.bootstrap`), the swap method (:mod:`.swap`), the stability
method (:mod:`.stability`), the gain-value sweep (:mod:`.sweep`), preferred-rank and collection
statistics (:mod:`.preferred`, :mod:`.collection_stats`), the shared bootstrap samples
(:mod:`.samples`), the papers' row orders (:mod:`.order`) and the stage registry run by
:mod:`metaeval.pipeline` (:mod:`.run`); discriminative power today -- two-way ANOVA (:mod:`.anova`),
randomised Tukey HSD (:mod:`.rthsd`), classical paired tests and corrections (:mod:`.pairtests`),
topic set size design (:mod:`.topicset`), the stage (:mod:`.discpower`) -- run comparison
(:mod:`.compare`) and rank correlation beyond Kendall's tau (:mod:`.rankcorr`).
docs/meta.md describes every method and the decisions taken where the papers are ambiguous.
"""

from .bootstrap import PairedResult, UnpairedResult, paired_bootstrap, paired_tstar, unpaired_bootstrap
from .anova import AnovaResult, two_way_anova
from .collection_stats import collection_stats
from .compare import compare
from .discpower import discpower_text, stage_discpower
from .kendall import KendallResult, kendall_tau, rank_correlations
from .order import by_descending, by_pct_satisfying, by_sensitivity, gain_bootstrap_order
from .matrices import load_matrices, read_matrix, restrict_runs, select_top_runs
from .pairtests import adjust, paired_t, permutation_test, sign_test, studentized_range_sf, tukey_hsd, wilcoxon
from .preferred import preferred_rank_stats
from .rthsd import rthsd, rthsd_many
from .run import (STAGES, MetaConfig, combine, run_meta, run_stage, stage_collection, stage_gain_sweep,
                  stage_kendall, stage_paired, stage_run_means, stage_stability, stage_swap, stage_unpaired)
from .samples import BootstrapSamples, bootstrap_counts, bootstrap_indices, sample_rng
from .stability import DEFAULT_FUZZINESS, StabilityResult, stability_method
from .statistics import GMEAN, MEAN, Statistic, area, worst_mean
from .swap import SwapResult, swap_method
from .sweep import gain_sweep, gains_to_paper, paper_to_gains, variant_name
from .topicset import topic_set_size

__all__ = [
    "PairedResult", "UnpairedResult", "paired_bootstrap", "paired_tstar", "unpaired_bootstrap",
    "collection_stats", "KendallResult", "kendall_tau", "rank_correlations", "load_matrices",
    "read_matrix", "restrict_runs", "select_top_runs", "preferred_rank_stats", "MetaConfig", "combine",
    "run_meta", "run_stage", "STAGES", "stage_collection", "stage_gain_sweep", "stage_kendall", "stage_paired",
    "stage_run_means", "stage_stability", "stage_swap", "stage_unpaired",
    "by_descending", "by_pct_satisfying", "by_sensitivity", "gain_bootstrap_order",
    "BootstrapSamples", "bootstrap_counts", "bootstrap_indices", "sample_rng", "DEFAULT_FUZZINESS",
    "StabilityResult", "stability_method", "GMEAN", "MEAN", "Statistic", "area", "worst_mean",
    "SwapResult", "swap_method", "gain_sweep", "gains_to_paper", "paper_to_gains", "variant_name",
    "AnovaResult", "two_way_anova", "compare", "discpower_text", "stage_discpower", "adjust", "paired_t",
    "permutation_test", "sign_test", "studentized_range_sf", "tukey_hsd", "wilcoxon", "rthsd", "rthsd_many",
    "topic_set_size",
]
