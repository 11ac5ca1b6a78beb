# The other meta-evaluation methods, light next to a process start on collections of the papers'
# size: Kendall's tau (Sakai 2007a Sec. 4.1), rank correlation beyond it (tau-a, tau-b, tau_AP,
# RBO), the swap method (Voorhees & Buckley 2002; Sakai 2007a Sec. 4.4), the stability method
# (Buckley & Voorhees 2000) and, when configured, the gain-value sweep (Sakai 2007b Sec. 7). One
# job per collection runs them one after the other in one `metaeval stage` process, each writing
# its own part folder (the same tables as one job per method, at one start-up instead of five).

METHODS_STAGES = ["kendall", "swap", "stability"] + (["gain_sweep"] if GAIN_SWEEP else []) + ["rank_correlation"]


rule methods:
    input:
        matrices=matrix_files(_unique(EVAL_MATRICES + SWEEP_METRICS + SWEEP_NAMES)),
    output:
        parts_dirs(METHODS_STAGES),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        parts=parts_dir,
        stages=" ".join(METHODS_STAGES),
        args=group_args(METHODS_STAGES),
    log:
        log_path("methods"),
    benchmark:
        benchmark_path("methods")
    message:
        "{wildcards.collection}: Kendall's tau, rank correlations, swap and stability methods"
        + (f", gain-value sweep of {', '.join(SWEEP_METRICS)}" if GAIN_SWEEP else "")
        + " for every metric"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "{params.metaeval} stage {params.stages} --matrices {params.matrices:q}"
        " --out {params.parts:q} {params.args} > {log:q} 2>&1"
