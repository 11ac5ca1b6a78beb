# Paired and unpaired bootstrap tests (Sakai 2007a Sec. 4.3, Sakai 2007b Secs. 5-6): one job per
# collection and test, every metric in it. Every job derives the same bootstrap samples from
# (seed, topics, B), so the jobs are independent and can run on different nodes.


rule bootstrap_paired:
    input:
        matrices=matrix_files(EVAL_MATRICES),
    output:
        directory(f"{RES}/{{collection}}/parts/paired"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        args=stage_args("paired"),
    log:
        log_path("paired"),
    benchmark:
        benchmark_path("paired")
    message:
        "{wildcards.collection}: paired bootstrap test of every metric (sensitivity, ASL, t*)"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    shell:
        "{params.metaeval} stage paired --matrices {params.matrices:q}"
        " --out {output:q} {params.args} > {log:q} 2>&1"


rule bootstrap_unpaired:
    input:
        matrices=matrix_files(EVAL_MATRICES),
    output:
        directory(f"{RES}/{{collection}}/parts/unpaired"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        args=stage_args("unpaired"),
    log:
        log_path("unpaired"),
    benchmark:
        benchmark_path("unpaired")
    message:
        "{wildcards.collection}: unpaired bootstrap test of every metric (sensitivity, ASL)"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    shell:
        "{params.metaeval} stage unpaired --matrices {params.matrices:q}"
        " --out {output:q} {params.args} > {log:q} 2>&1"
