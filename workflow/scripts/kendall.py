# Adapter: rule kendall -> metaeval.pipeline.kendall_part (metaeval.meta.run.stage_kendall).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import kendall_part

kendall_part(dict(zip(snakemake.params.metrics, snakemake.input.matrices)), snakemake.input.runs,
             snakemake.output.part)
