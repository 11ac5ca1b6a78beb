# Every table of the output contract for one collection (CSV + Markdown + LaTeX): concatenates the
# per-metric parts and adds the collection-level tables (metaeval.tables.write_table).



rule tables:
    input:
        cache=f"{RES}/{{collection}}/collection.npz",
        runs=f"{RES}/{{collection}}/runs_used.csv",
        matrices=[f"{RES}/{{collection}}/matrices/{m}.csv" for m in _unique(METRICS + GEOMETRIC)],
        kendall=f"{RES}/{{collection}}/parts/kendall.csv",
        paired=[f"{RES}/{{collection}}/parts/paired/{m}/bootstrap_paired.csv" for m in PAIRED_METRICS],
        asl_paired=[f"{RES}/{{collection}}/parts/paired/{m}/asl.csv" for m in PAIRED_METRICS],
        tstar=[f"{RES}/{{collection}}/parts/paired/{m}/tstar.csv" for m in PAIRED_METRICS],
        unpaired=[f"{RES}/{{collection}}/parts/unpaired/{m}/bootstrap_unpaired.csv" for m in OTHER_METRICS],
        asl_unpaired=[f"{RES}/{{collection}}/parts/unpaired/{m}/asl.csv" for m in OTHER_METRICS],
        swap=[f"{RES}/{{collection}}/parts/swap/{m}/swap.csv" for m in OTHER_METRICS],
        swap_rates=[f"{RES}/{{collection}}/parts/swap/{m}/swap_rates.csv" for m in OTHER_METRICS],
        stability=[f"{RES}/{{collection}}/parts/stability/{m}/stability.csv" for m in OTHER_METRICS],
        gain_kendall=[f"{RES}/{{collection}}/parts/sweeps/gain_kendall.csv"] if GAIN_SWEEP else [],
        gain_bootstrap=[f"{RES}/{{collection}}/parts/sweeps/gain_bootstrap.csv"] if GAIN_SWEEP else [],
    output:
        _table_outputs(),
    params:
        out=lambda w: f"{RES}/{w.collection}/tables",
        matrix_names=_unique(METRICS + GEOMETRIC),
        mean_metrics=OTHER_METRICS,
        tables=TABLES,
    log:
        f"{RES}/logs/{{collection}}/tables.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/tables.py"
