# Swap method, with-replacement version (Sakai 2007a Sec. 4.2, Sakai 2007b Sec. 7.2): one job per
# collection, every metric in it.


rule swap:
    input:
        matrices=matrix_files(EVAL_MATRICES),
    output:
        directory(f"{RES}/{{collection}}/parts/swap"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        args=stage_args("swap"),
    log:
        log_path("swap"),
    benchmark:
        benchmark_path("swap")
    message:
        "{wildcards.collection}: swap method of every metric"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    shell:
        "{params.metaeval} stage swap --matrices {params.matrices:q}"
        " --out {output:q} {params.args} > {log:q} 2>&1"
