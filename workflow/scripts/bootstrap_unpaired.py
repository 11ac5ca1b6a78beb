# Adapter: rule bootstrap_unpaired -> metaeval.pipeline.unpaired_part (meta.run.stage_unpaired).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import unpaired_part

p, o = snakemake.params, snakemake.output
unpaired_part(snakemake.input.matrix, snakemake.input.runs, snakemake.wildcards.metric,
              out_unpaired=o.unpaired, out_asl=o.asl, B=p.B, alpha=p.alpha, seed=p.seed)
