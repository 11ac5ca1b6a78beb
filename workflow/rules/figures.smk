# Every figure of the output contract for one collection, drawn from the table CSVs alone
# (metaeval.figures.make_all_figures), PNG + PDF.


def _figure_outputs():
    out = []
    for f in FIGURES:
        for x in FIGURE_FORMATS:
            path = f"{RES}/{{collection}}/figures/{f}.{x}"
            if x == "png":
                path = report(path, caption=caption(f"figure_{f}"), category="{collection}",
                              subcategory="Figures", labels={"collection": "{collection}", "figure": f})
            out.append(path)
    return out


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
