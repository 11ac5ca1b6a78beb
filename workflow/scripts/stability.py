# Adapter: rule stability -> metaeval.pipeline.stability_part (metaeval.meta.stability, one metric).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import stability_part

p = snakemake.params
stability_part(snakemake.input.matrix, snakemake.input.runs, snakemake.wildcards.metric, B=p.B,
               seed=p.seed, fuzziness=p.fuzziness, out_path=snakemake.output.part)
