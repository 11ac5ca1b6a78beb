# Cross-collection summary (Sakai 2007a Figs 9-10, Sakai 2007b Figs 14, 15, 20): one row per
# metric, one column per collection.


rule summary:
    conda:
        CONDA_ENV
    input:
        tables=all_tables,
    output:
        _summary_outputs(),
    params:
        metaeval=METAEVAL,
        figure_args=FIGURE_ARGS,
        out=lambda w: f"{RES}/summary",
        args=summary_args,
    log:
        f"{RES}/logs/summary.log",
    benchmark:
        f"{RES}/benchmarks/summary.tsv"
    message:
        "every collection: the cross-collection summary tables and figures"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "{params.metaeval} stage summary --out {params.out:q} {params.args} {params.figure_args} > {log:q} 2>&1"
