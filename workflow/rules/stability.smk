# Stability method: minority rate and proportion of ties per fuzziness (paper 001 Sec. 7.1), per metric.


rule stability:
    input:
        matrix=matrix_path,
        runs=f"{RES}/{{collection}}/runs_used.csv",
    output:
        part=f"{RES}/{{collection}}/parts/stability/{{metric}}/stability.csv",
    params:
        B=B,
        seed=SEED,
        fuzziness=FUZZINESS,
    log:
        f"{RES}/logs/{{collection}}/stability/{{metric}}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    script:
        "../scripts/stability.py"
