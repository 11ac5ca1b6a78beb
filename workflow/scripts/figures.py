# Adapter: rule figures -> metaeval.report.figures.make_all_figures (every figure from the table CSVs).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.report.figures import make_all_figures

paths = make_all_figures(snakemake.params.tables, snakemake.params.out, alpha=snakemake.params.alpha,
                         swap_threshold=snakemake.config["swap"]["threshold"])
print(f"figures: {len(paths)} files", file=sys.stderr)
