# Adapter: rule sweeps -> metaeval.pipeline.sweep_part (metaeval.meta.run.stage_gain_sweep).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import sweep_part

p = snakemake.params
sweep_part(dict(zip(p.names, snakemake.input.matrices)), snakemake.input.runs,
           out_kendall=snakemake.output.kendall, out_bootstrap=snakemake.output.bootstrap,
           B=p.B, alpha=p.alpha, seed=p.seed, sweep_metrics=p.metrics, sweep_gains=p.variants,
           default_gains=p.default_gains)
