# Adapter: rule bootstrap_paired -> metaeval.pipeline.paired_part (metaeval.meta.run.stage_paired).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import paired_part

p, o = snakemake.params, snakemake.output
paired_part(snakemake.input.matrix, snakemake.input.runs, snakemake.wildcards.metric,
            out_paired=o.paired, out_asl=o.asl, out_tstar=o.tstar, B=p.B, alpha=p.alpha, seed=p.seed)
