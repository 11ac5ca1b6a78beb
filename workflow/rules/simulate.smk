# Simulated collections (metaeval simulate): qrels + runs in the real file forms.


rule simulate:
    output:
        qrels=f"{SIM_ROOT}/{{collection}}/qrels.txt",
        runs=directory(f"{SIM_ROOT}/{{collection}}/runs"),
    params:
        metaeval=METAEVAL,
        sim=lambda w: sim_params_json(w.collection),
        out=lambda w: f"{SIM_ROOT}/{w.collection}",
    log:
        f"{RES}/logs/{{collection}}/simulate.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "{params.metaeval} simulate --out {params.out:q} --params {params.sim:q} > {log:q} 2>&1"
