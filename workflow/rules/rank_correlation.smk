# Rank correlation beyond Kendall's tau: tau-a, tau-b, tau_AP (Yilmaz et al. 2008),
# tau_AP-a and tau_AP-b (Urbano & Marrero 2017), RBO (Webber et al. 2010), RBO^a and RBO^b
# (Corsi & Urbano 2024) between the system rankings of every two metrics, with bootstrap intervals
# over the paired samples (bootstrap.B, bootstrap.seed): one job per collection.


rule rank_correlation:
    input:
        matrices=matrix_files(_unique(METRICS + [SELECT_BY])),
    output:
        directory(f"{RES}/{{collection}}/parts/rank_correlation"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        args=stage_args("rank_correlation"),
    log:
        log_path("rank_correlation"),
    benchmark:
        benchmark_path("rank_correlation")
    message:
        "{wildcards.collection}: rank correlations (tau_AP, RBO and tie-aware variants) with bootstrap intervals"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "{params.metaeval} stage rank_correlation --matrices {params.matrices:q}"
        " --out {output:q} {params.args} > {log:q} 2>&1"
