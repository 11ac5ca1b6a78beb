# Paired and unpaired bootstrap tests, one job per collection x metric (paper 000 Sec. 4.3, paper
# 001 Secs. 5-6). Every job derives the same bootstrap samples from (seed, topics, B), so the jobs
# are independent and can run on different nodes.


rule bootstrap_paired:
    input:
        matrix=matrix_path,
        runs=f"{RES}/{{collection}}/runs_used.csv",
    output:
        paired=f"{RES}/{{collection}}/parts/paired/{{metric}}/bootstrap_paired.csv",
        asl=f"{RES}/{{collection}}/parts/paired/{{metric}}/asl.csv",
        tstar=f"{RES}/{{collection}}/parts/paired/{{metric}}/tstar.csv",
    params:
        B=B,
        alpha=ALPHA,
        seed=SEED,
    log:
        f"{RES}/logs/{{collection}}/paired/{{metric}}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    script:
        "../scripts/bootstrap_paired.py"


rule bootstrap_unpaired:
    input:
        matrix=matrix_path,
        runs=f"{RES}/{{collection}}/runs_used.csv",
    output:
        unpaired=f"{RES}/{{collection}}/parts/unpaired/{{metric}}/bootstrap_unpaired.csv",
        asl=f"{RES}/{{collection}}/parts/unpaired/{{metric}}/asl.csv",
    params:
        B=B,
        alpha=ALPHA,
        seed=SEED,
    log:
        f"{RES}/logs/{{collection}}/unpaired/{{metric}}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    script:
        "../scripts/bootstrap_unpaired.py"
