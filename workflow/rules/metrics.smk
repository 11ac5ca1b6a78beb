# Per-topic scores: one topic x run matrix per measure (metaeval matrices), incl. the measure that
# selects the top runs and every gain-sweep variant.


rule metrics:
    input:
        cache=f"{RES}/{{collection}}/collection.npz",
    output:
        matrices=[f"{RES}/{{collection}}/matrices/{m}.csv" for m in MATRIX_METRICS],
        topics=f"{RES}/{{collection}}/matrices/topics.csv",
    params:
        metaeval=METAEVAL,
        out=lambda w: f"{RES}/{w.collection}/matrices",
        metrics=" ".join(_quote(m) for m in MATRIX_METRICS),
        gains=lambda w: cfg(w.collection)["gains"],
    log:
        f"{RES}/logs/{{collection}}/metrics.log",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "{params.metaeval} matrices --collection {input.cache:q} --out {params.out:q}"
        " --gains {params.gains:q} --metrics {params.metrics} > {log:q} 2>&1"


rule select_runs:
    """The runs meta-evaluated: the top K by mean of select_by (the papers: 30 by relaxed AP)."""
    input:
        matrix=f"{RES}/{{collection}}/matrices/{SELECT_BY}.csv",
    output:
        runs=f"{RES}/{{collection}}/runs_used.csv",
    params:
        top_runs=lambda w: cfg(w.collection)["top_runs"],
        select_by=SELECT_BY,
    log:
        f"{RES}/logs/{{collection}}/select_runs.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/select_runs.py"
