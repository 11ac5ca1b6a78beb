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

import importlib
import sys
import types

from .._lazy import lazy_attributes

# every name imported from its module on first use (PEP 562): importing a stage declaration
# (metaeval.meta.stages.NAME) or the package loads no numpy or pandas
_NAMES = {
    "PairedResult": "bootstrap", "UnpairedResult": "bootstrap", "paired_bootstrap": "bootstrap",
    "paired_tstar": "bootstrap", "unpaired_bootstrap": "bootstrap", "AnovaResult": "anova",
    "two_way_anova": "anova", "collection_stats": "collection_stats", "compare": "compare",
    "discpower_text": "discpower", "stage_discpower": "discpower", "KendallResult": "kendall",
    "kendall_tau": "kendall", "rank_correlations": "kendall", "by_descending": "order",
    "by_pct_satisfying": "order", "by_sensitivity": "order", "gain_bootstrap_order": "order",
    "load_matrices": "matrices", "read_matrix": "matrices", "restrict_runs": "matrices",
    "select_top_runs": "matrices", "adjust": "pairtests", "paired_t": "pairtests",
    "permutation_test": "pairtests", "sign_test": "pairtests", "studentized_range_sf": "pairtests",
    "tukey_hsd": "pairtests", "wilcoxon": "pairtests", "preferred_rank_stats": "preferred",
    "rthsd": "rthsd", "rthsd_many": "rthsd", "STAGES": "run", "MetaConfig": "run",
    "combine": "run", "run_meta": "run", "run_stage": "run", "stage_collection": "run",
    "stage_gain_sweep": "run", "stage_kendall": "run", "stage_paired": "run",
    "stage_run_means": "run", "stage_stability": "run", "stage_swap": "run",
    "stage_unpaired": "run", "BootstrapSamples": "samples", "bootstrap_counts": "samples",
    "bootstrap_indices": "samples", "sample_rng": "samples", "DEFAULT_FUZZINESS": "stability",
    "StabilityResult": "stability", "stability_method": "stability", "GMEAN": "statistics",
    "MEAN": "statistics", "Statistic": "statistics", "area": "statistics",
    "worst_mean": "statistics", "SwapResult": "swap", "swap_method": "swap", "gain_sweep": "sweep",
    "gains_to_paper": "sweep", "paper_to_gains": "sweep", "variant_name": "sweep",
    "topic_set_size": "topicset",
}

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

__getattr__, __dir__ = lazy_attributes(__name__, _NAMES)


def _function_over_module(name: str):
    """``metaeval.meta.NAME`` stays the function NAME when the submodule NAME is imported (the
    import system sets the package's attribute to the submodule; this property ignores that)."""
    return property(lambda self: getattr(importlib.import_module(f"{__name__}.{name}"), name),
                    lambda self, value: None)


class _Package(types.ModuleType):
    collection_stats = _function_over_module("collection_stats")
    compare = _function_over_module("compare")
    rthsd = _function_over_module("rthsd")


sys.modules[__name__].__class__ = _Package
