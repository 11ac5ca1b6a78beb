# Discriminative power as practised since 2012 (Carterette 2012; Sakai's Discpower, Sakai 2014;
# topic set size design, Sakai 2016): randomised and parametric Tukey HSD, two-way ANOVA and effect
# sizes, paired t (Holm, BH), Wilcoxon and sign tests, beside the paired and unpaired bootstrap ASLs
# (read from those stages' parts: the job's inputs). One job per collection, every metric in it.


rule discpower:
    input:
        matrices=matrix_files(_unique(METRICS + [SELECT_BY])),
        paired=f"{RES}/{{collection}}/parts/paired",
        unpaired=f"{RES}/{{collection}}/parts/unpaired",
    output:
        directory(f"{RES}/{{collection}}/parts/discpower"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        parts=parts_dir,
        args=stage_args("discpower"),
    log:
        log_path("discpower"),
    benchmark:
        benchmark_path("discpower")
    message:
        "{wildcards.collection}: discriminative power of every metric (randomised Tukey HSD, ANOVA, "
        "classical tests, topic set size)"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    shell:
        "{params.metaeval} stage discpower --matrices {params.matrices:q} --parts {params.parts:q}"
        " --out {output:q} {params.args} > {log:q} 2>&1"
