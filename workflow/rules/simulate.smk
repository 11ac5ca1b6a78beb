# Simulated collections (metaeval simulate): qrels + runs in the real file forms.


rule simulate:
    conda:
        CONDA_ENV
    output:
        qrels=f"{SIM_ROOT}/{{collection}}/qrels.txt",
        runs=directory(f"{SIM_ROOT}/{{collection}}/runs"),
    params:
        metaeval=METAEVAL,
        sim=simulate_params,
        out=simulate_dir,
    log:
        log_path("simulate"),
    benchmark:
        benchmark_path("simulate")
    message:
        "{wildcards.collection}: simulate a test collection (qrels and runs)"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "{params.metaeval} simulate --out {params.out:q} --params {params.sim:q} > {log:q} 2>&1"
