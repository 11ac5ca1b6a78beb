# Cross-collection summary (Sakai 2007a Figs 9-10, Sakai 2007b Figs 14, 15, 20): one row per
# metric, one column per collection. `labels:` is an input: a changed mapping re-runs it (the measures'
# labels in its Markdown, LaTeX and figures).


rule summary:
    conda:
        CONDA_ENV
    input:
        tables=all_tables,
        labels=PLAN.labels_inputs(),
    output:
        _summary_outputs(),
    params:
        metaeval=METAEVAL,
        figure_args=FIGURE_ARGS,
        out=lambda w: f"{RES}/summary",
        args=summary_args,
        labels=lambda w, input: f"--labels {_quote(input.labels[0])}" if input.labels else "",
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
        "{params.metaeval} stage summary --out {params.out:q} {params.args} {params.labels} {params.figure_args} > {log:q} 2>&1"
