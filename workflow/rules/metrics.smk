# Per-topic scores: parse and label the qrels + runs once (the npz Collection cache, read again by
# the meta rule) and write one topic x run matrix per measure (`metaeval matrices`), incl. the
# measure that selects the top runs and every gain-sweep variant.


rule metrics:
    conda:
        CONDA_ENV
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
        " --vocabulary ntcireval --metrics {params.metrics} > {log:q} 2>&1"

