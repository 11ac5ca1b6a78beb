# Adapter: rule summary -> metaeval.report.summary.write_summary (cross-collection tables and figures).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.report.summary import write_summary

paths = write_summary(dict(snakemake.params.collections), snakemake.params.out,
                      alpha=snakemake.params.alpha,
                      swap_threshold=snakemake.config["swap"]["threshold"])
print(f"summary: {len(paths)} files", file=sys.stderr)
