# Gain-value sweep (paper 000 Sec. 5.5, Tables 5-6): Kendall's tau of each variant against the
# default gains and the paired bootstrap sensitivity of every variant.


rule sweeps:
    input:
        matrices=[f"{RES}/{{collection}}/matrices/{m}.csv" for m in SWEEP_METRICS + SWEEP_NAMES],
        runs=f"{RES}/{{collection}}/runs_used.csv",
    output:
        kendall=f"{RES}/{{collection}}/parts/sweeps/gain_kendall.csv",
        bootstrap=f"{RES}/{{collection}}/parts/sweeps/gain_bootstrap.csv",
    params:
        names=SWEEP_METRICS + SWEEP_NAMES,
        metrics=SWEEP_METRICS,
        variants=SWEEP_VARIANTS,
        default_gains=lambda w: cfg(w.collection)["gains"],
        B=B,
        alpha=ALPHA,
        seed=SEED,
    log:
        f"{RES}/logs/{{collection}}/sweeps.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    script:
        "../scripts/sweeps.py"
