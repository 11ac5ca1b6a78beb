# Every figure of the output contract for one collection, drawn from the table CSVs alone, PNG + PDF.


rule figures:
    input:
        tables=[f"{RES}/{{collection}}/tables/{t}.csv" for t in TABLES],
    output:
        _figure_outputs(),
    params:
        metaeval=METAEVAL,
        tables=tables_dir,
        out=figures_dir,
        alpha=ALPHA,
    log:
        log_path("figures"),
    benchmark:
        benchmark_path("figures")
    message:
        "{wildcards.collection}: every figure (PNG, PDF)"
    threads: 2  # the t* histograms beside the other figures (metaeval.pipeline.write_figures)
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "{params.metaeval} stage figures --tables {params.tables:q} --out {params.out:q}"
        " --alpha {params.alpha} --jobs {threads} > {log:q} 2>&1"
