# Adapter: rule select_runs -> metaeval.pipeline.select_runs (top K runs by mean of select_by).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import select_runs

used = select_runs(snakemake.input.matrix, snakemake.output.runs, snakemake.params.top_runs,
                   snakemake.params.select_by)
print(f"select_runs: {len(used)} runs by mean {snakemake.params.select_by}", file=sys.stderr)
