# Every figure of the output contract for one collection, drawn from the table CSVs alone
# (metaeval.figures.make_all_figures), PNG + PDF.



rule figures:
    input:
        tables=[f"{RES}/{{collection}}/tables/{t}.csv" for t in TABLES],
    output:
        _figure_outputs(),
    params:
        tables=lambda w: f"{RES}/{w.collection}/tables",
        out=lambda w: f"{RES}/{w.collection}/figures",
        alpha=ALPHA,
    log:
        f"{RES}/logs/{{collection}}/figures.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/figures.py"
