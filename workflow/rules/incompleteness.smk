# Robustness to incomplete judgments and pool reuse (Buckley & Voorhees 2004; Sakai SIGIR 2007, "Alternatives
# to bpref"; Zobel 1998; Sakai & Kando 2008; Büttcher et al. 2007): every metric recomputed on reduced
# qrels by masking the labelled collection (the npz cache, with document identity). One job per
# collection; its parts are combined by the meta rule, its trials (and reduced qrels) go to
# C/incompleteness/.


rule incompleteness:
    conda:
        CONDA_ENV
    input:
        cache=f"{RES}/{{collection}}/collection.npz",
        matrices=matrix_files(_unique(METRICS + [SELECT_BY])),
    output:
        parts=directory(f"{RES}/{{collection}}/parts/incompleteness"),
        folder=directory(f"{RES}/{{collection}}/incompleteness"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        gains=gains_arg,
        args=stage_args("incompleteness"),
    log:
        log_path("incompleteness"),
    benchmark:
        benchmark_path("incompleteness")
    message:
        "{wildcards.collection}: every metric on reduced qrels (incomplete judgments, pool depth, pool reuse;"
        " its pool and groups: {log})"
    threads: job_threads("incompleteness")
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "{params.metaeval} stage incompleteness --matrices {params.matrices:q} --collection {input.cache:q}"
        " --gains {params.gains:q} --out {output.parts:q} --folder {output.folder:q} {params.args}"
        " --inc-jobs {threads} > {log:q} 2>&1"
