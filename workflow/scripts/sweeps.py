# Adapter: rule sweeps -> metaeval.pipeline.sweep_parts (gain-value sweep, paper 000 Tables 5-6).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import sweep_parts

p = snakemake.params
names = list(p.metrics) + list(p.names)
sweep_parts(dict(zip(names, snakemake.input.matrices)), snakemake.input.runs, p.metrics, p.variants,
            p.names, p.default_gains, B=p.B, alpha=p.alpha, seed=p.seed,
            out_kendall=snakemake.output.kendall, out_bootstrap=snakemake.output.bootstrap)
