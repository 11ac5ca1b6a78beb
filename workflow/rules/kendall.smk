# Kendall's tau between the system rankings of every two metrics (Sakai 2007a Table 2, Sakai 2007b
# Table 5): one job per collection.


rule kendall:
    input:
        matrices=matrix_files(_unique(METRICS + [SELECT_BY])),
    output:
        directory(f"{RES}/{{collection}}/parts/kendall"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        args=stage_args("kendall"),
    log:
        log_path("kendall"),
    benchmark:
        benchmark_path("kendall")
    message:
        "{wildcards.collection}: Kendall's tau of every two metrics"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "{params.metaeval} stage kendall --matrices {params.matrices:q}"
        " --out {output:q} {params.args} > {log:q} 2>&1"
