# Adapter: rule swap -> metaeval.pipeline.swap_part (metaeval.meta.run.stage_swap).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import swap_part

p, o = snakemake.params, snakemake.output
swap_part(snakemake.input.matrix, snakemake.input.runs, snakemake.wildcards.metric,
          out_swap=o.swap, out_rates=o.rates, B=p.B, seed=p.seed, swap_threshold=p.threshold)
