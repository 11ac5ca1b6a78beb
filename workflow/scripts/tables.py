# Adapter: rule tables -> metaeval.pipeline.write_tables (metaeval.tables.write_table per table).
import sys

sys.stderr = open(snakemake.log[0], "w")
from metaeval.pipeline import write_tables

i, p = snakemake.input, snakemake.params
parts = {"kendall": [i.kendall], "bootstrap_paired": i.paired, "bootstrap_unpaired": i.unpaired,
         "asl": i.asl, "tstar": i.tstar, "swap": i.swap, "swap_rates": i.swap_rates,
         "stability": i.stability, "gain_kendall": i.gain_kendall,
         "gain_bootstrap": i.gain_bootstrap}
write_tables(cache=i.cache, runs_path=i.runs, matrix_paths=dict(zip(p.metrics, i.matrices)),
             parts=parts, out_dir=p.out, tables=p.tables)
