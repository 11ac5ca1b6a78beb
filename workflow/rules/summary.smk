# Cross-collection summary (paper 000 Figs 9-10, paper 001 Figs 14, 15, 20): one row per metric,
# one column per collection (metaeval.summary.write_summary).



rule summary:
    input:
        tables=[f"{RES}/{c}/tables/{t}.csv" for c in COLLECTIONS for t in TABLES],
    output:
        _summary_outputs(),
    params:
        collections={c: f"{RES}/{c}" for c in COLLECTIONS},
        out=f"{RES}/summary",
        alpha=ALPHA,
    log:
        f"{RES}/logs/summary.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/summary.py"
