# Adapter: rule tables -> metaeval.pipeline.write_tables (meta.run.combine + tables.write_table).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import write_tables

i, p = snakemake.input, snakemake.params
# the parts in metaeval meta's order: paired stage of every metric, then unpaired, swap, stability
parts = {"kendall": [i.kendall], "bootstrap_paired": i.paired, "asl": list(i.asl_paired) + list(i.asl_unpaired),
         "tstar": i.tstar, "bootstrap_unpaired": i.unpaired, "swap": i.swap, "swap_rates": i.swap_rates,
         "stability": i.stability, "gain_kendall": i.gain_kendall, "gain_bootstrap": i.gain_bootstrap}
write_tables(cache=i.cache, runs_path=i.runs, matrix_paths=dict(zip(p.matrix_names, i.matrices)),
             mean_metrics=p.mean_metrics, parts=parts, out_dir=p.out, tables=p.tables)
