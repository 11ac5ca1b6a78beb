# Adapter: rule bootstrap -> metaeval.pipeline.bootstrap_parts (paired + unpaired tests, one metric).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import bootstrap_parts

p, o = snakemake.params, snakemake.output
bootstrap_parts(snakemake.input.matrix, snakemake.input.runs, snakemake.wildcards.metric,
                B=p.B, alpha=p.alpha, seed=p.seed, out_paired=o.paired, out_unpaired=o.unpaired,
                out_asl=o.asl, out_tstar=o.tstar)
