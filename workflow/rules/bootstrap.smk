# Paired and unpaired bootstrap tests (Sakai 2007a Sec. 4.3, Sakai 2007b Secs. 5-6) and the
# discriminative power built on their ASLs (randomised Tukey HSD, ANOVA, classical tests, topic set
# size design: Carterette 2012, Sakai 2014, Sakai 2016): one job per collection, every metric in
# it, the three stages one after the other in one `metaeval stage` process (each writes its own
# part folder; discpower reads the ASLs the other two just wrote). Every stage derives the same
# bootstrap samples from (seed, topics, B), as `metaeval meta` does, so the tables are identical.

BOOTSTRAP_STAGES = ["paired", "unpaired", "discpower"]


rule bootstrap:
    input:
        matrices=matrix_files(EVAL_MATRICES),
    output:
        parts_dirs(BOOTSTRAP_STAGES),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        parts=parts_dir,
        stages=" ".join(BOOTSTRAP_STAGES),
        args=group_args(BOOTSTRAP_STAGES),
    log:
        log_path("bootstrap"),
    benchmark:
        benchmark_path("bootstrap")
    message:
        "{wildcards.collection}: paired and unpaired bootstrap tests of every metric (sensitivity, "
        "ASL, t*), then its discriminative power (randomised Tukey HSD, ANOVA, classical tests, "
        "topic set size)"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "{params.metaeval} stage {params.stages} --matrices {params.matrices:q}"
        " --out {params.parts:q} {params.args} > {log:q} 2>&1"
