# Paired and unpaired bootstrap tests, one job per collection x metric (paper 000 Sec. 4.3, paper
# 001 Sec. 5-6). Every job derives the same bootstrap samples from (seed, topics, B), so the jobs are
# independent and can run on different nodes.


rule bootstrap:
    input:
        matrix=f"{RES}/{{collection}}/matrices/{{metric}}.csv",
        runs=f"{RES}/{{collection}}/runs_used.csv",
    output:
        paired=f"{RES}/{{collection}}/parts/bootstrap/{{metric}}/bootstrap_paired.csv",
        unpaired=f"{RES}/{{collection}}/parts/bootstrap/{{metric}}/bootstrap_unpaired.csv",
        asl=f"{RES}/{{collection}}/parts/bootstrap/{{metric}}/asl.csv",
        tstar=f"{RES}/{{collection}}/parts/bootstrap/{{metric}}/tstar.csv",
    params:
        B=B,
        alpha=ALPHA,
        seed=SEED,
    log:
        f"{RES}/logs/{{collection}}/bootstrap/{{metric}}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    script:
        "../scripts/bootstrap.py"
