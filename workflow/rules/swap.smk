# Swap method, with-replacement version (paper 000 Sec. 4.2, paper 001 Sec. 7.2), per metric.


rule swap:
    input:
        matrix=matrix_path,
        runs=f"{RES}/{{collection}}/runs_used.csv",
    output:
        swap=f"{RES}/{{collection}}/parts/swap/{{metric}}/swap.csv",
        rates=f"{RES}/{{collection}}/parts/swap/{{metric}}/swap_rates.csv",
    params:
        B=B,
        seed=SEED,
        threshold=SWAP_THRESHOLD,
    log:
        f"{RES}/logs/{{collection}}/swap/{{metric}}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    script:
        "../scripts/swap.py"
