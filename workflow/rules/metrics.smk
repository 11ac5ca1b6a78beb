# Per-topic scores: parse and label the qrels + runs once (the npz Collection cache, read again by
# the tables rule) and write one topic x run matrix per measure (`metaeval matrices`), incl. the
# measure that selects the top runs and every gain-sweep variant. Then the runs meta-evaluated.


rule metrics:
    input:
        qrels=collection_qrels,
        runs=collection_run_files,
    output:
        cache=f"{RES}/{{collection}}/collection.npz",
        matrices=[f"{RES}/{{collection}}/matrices/{m}.csv" for m in MATRIX_METRICS],
        topics=f"{RES}/{{collection}}/matrices/topics.csv",
    params:
        metaeval=METAEVAL,
        runs=runs_args,
        parse=parse_args,
        out=matrices_dir,
        gains=gains_arg,
        metrics=" ".join(_quote(m) for m in MATRIX_METRICS),
    log:
        log_path("metrics"),
    benchmark:
        benchmark_path("metrics")
    message:
        f"{{wildcards.collection}}: parse the qrels and runs, {len(MATRIX_METRICS)} topic x run matrices"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "{params.metaeval} matrices --qrels {input.qrels:q} {params.runs} {params.parse}"
        " --cache {output.cache:q} --out {params.out:q} --gains {params.gains:q}"
        " --metrics {params.metrics} > {log:q} 2>&1"


rule select_runs:
    input:
        matrix=f"{RES}/{{collection}}/matrices/{SELECT_BY}.csv",
    output:
        runs=f"{RES}/{{collection}}/runs_used.csv",
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        top_runs=top_runs_arg,
        select_by=SELECT_BY,
    log:
        log_path("select_runs"),
    benchmark:
        benchmark_path("select_runs")
    message:
        "{wildcards.collection}: the runs meta-evaluated (top runs by mean {params.select_by})"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "{params.metaeval} stage select_runs --matrices {params.matrices:q} {params.top_runs}"
        " --select-by {params.select_by:q} --out {output.runs:q} > {log:q} 2>&1"
