"""Meta-evaluation of IR metrics on topic x run score matrices (Sakai 2006, 2007a, 2007b).

Vectorised, seeded implementations of Kendall's tau (:mod:`.kendall`), the paired and unpaired
bootstrap tests and sensitivity (:mod:`.bootstrap`), the swap method (:mod:`.swap`), the stability
method (:mod:`.stability`), the gain-value sweep (:mod:`.sweep`), preferred-rank and collection
statistics (:mod:`.preferred`, :mod:`.collection_stats`), the shared bootstrap samples
(:mod:`.samples`) and the stage registry run by :mod:`metaeval.pipeline` (:mod:`.run`).
docs/meta.md describes every method and the decisions taken where the papers are ambiguous.
"""

from .bootstrap import PairedResult, UnpairedResult, paired_bootstrap, paired_tstar, unpaired_bootstrap
from .collection_stats import collection_stats
from .kendall import KendallResult, kendall_tau, rank_correlations
from .matrices import load_matrices, read_matrix, restrict_runs, select_top_runs
from .preferred import preferred_rank_stats
from .run import (STAGES, MetaConfig, combine, run_meta, run_stage, stage_collection, stage_gain_sweep,
                  stage_kendall, stage_paired, stage_run_means, stage_stability, stage_swap, stage_unpaired)
from .samples import BootstrapSamples, bootstrap_counts, bootstrap_indices, sample_rng
from .stability import DEFAULT_FUZZINESS, StabilityResult, stability_method
from .statistics import GMEAN, MEAN, Statistic, area, worst_mean
from .swap import SwapResult, swap_method
from .sweep import gain_sweep, gains_to_paper, paper_to_gains, variant_name

__all__ = [
    "PairedResult", "UnpairedResult", "paired_bootstrap", "paired_tstar", "unpaired_bootstrap",
    "collection_stats", "KendallResult", "kendall_tau", "rank_correlations", "load_matrices",
    "read_matrix", "restrict_runs", "select_top_runs", "preferred_rank_stats", "MetaConfig", "combine",
    "run_meta", "run_stage", "STAGES", "stage_collection", "stage_gain_sweep", "stage_kendall", "stage_paired",
    "stage_run_means", "stage_stability", "stage_swap", "stage_unpaired",
    "BootstrapSamples", "bootstrap_counts", "bootstrap_indices", "sample_rng", "DEFAULT_FUZZINESS",
    "StabilityResult", "stability_method", "GMEAN", "MEAN", "Statistic", "area", "worst_mean",
    "SwapResult", "swap_method", "gain_sweep", "gains_to_paper", "paper_to_gains", "variant_name",
]
