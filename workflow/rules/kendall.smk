# Kendall's tau between the system rankings of every two metrics (paper 000 Table 2, 001 Table 5).


rule kendall:
    input:
        matrices=[f"{RES}/{{collection}}/matrices/{m}.csv" for m in METRICS],
        runs=f"{RES}/{{collection}}/runs_used.csv",
    output:
        part=f"{RES}/{{collection}}/parts/kendall.csv",
    params:
        metrics=METRICS,
    log:
        f"{RES}/logs/{{collection}}/kendall.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/kendall.py"
