# Gain-value sweep (Sakai 2007a Sec. 5.5, Tables 5-6): Kendall's tau of each variant against the
# default gains and the paired bootstrap sensitivity of every variant; one job per collection.


rule sweeps:
    input:
        matrices=matrix_files(_unique(SWEEP_METRICS + SWEEP_NAMES + [SELECT_BY])),
    output:
        directory(f"{RES}/{{collection}}/parts/gain_sweep"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        args=stage_args("gain_sweep"),
    log:
        log_path("gain_sweep"),
    benchmark:
        benchmark_path("gain_sweep")
    message:
        f"{{wildcards.collection}}: gain-value sweep of {', '.join(SWEEP_METRICS)}"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    shell:
        "{params.metaeval} stage gain_sweep --matrices {params.matrices:q}"
        " --out {output:q} {params.args} > {log:q} 2>&1"
