# Stability method: minority rate and proportion of ties per fuzziness (Sakai 2007b Sec. 7.1): one
# job per collection, every metric in it.


rule stability:
    input:
        matrices=matrix_files(EVAL_MATRICES),
    output:
        directory(f"{RES}/{{collection}}/parts/stability"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        args=stage_args("stability"),
    log:
        log_path("stability"),
    benchmark:
        benchmark_path("stability")
    message:
        "{wildcards.collection}: stability method of every metric"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    shell:
        "{params.metaeval} stage stability --matrices {params.matrices:q}"
        " --out {output:q} {params.args} > {log:q} 2>&1"
