# Adapter: rule swap -> metaeval.pipeline.swap_parts (metaeval.meta.swap.swap_method, one metric).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import swap_parts

p, o = snakemake.params, snakemake.output
swap_parts(snakemake.input.matrix, snakemake.input.runs, snakemake.wildcards.metric, B=p.B,
           seed=p.seed, threshold=p.threshold, out_swap=o.swap, out_rates=o.rates)
