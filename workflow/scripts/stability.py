# Adapter: rule stability -> metaeval.pipeline.stability_part (metaeval.meta.run.stage_stability).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import stability_part

p = snakemake.params
stability_part(snakemake.input.matrix, snakemake.input.runs, snakemake.wildcards.metric,
               out_path=snakemake.output.part, B=p.B, seed=p.seed, fuzziness=p.fuzziness)
