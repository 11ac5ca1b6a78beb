# Cross-collection summary (paper 000 Figs 9-10, paper 001 Figs 14, 15, 20): one row per metric,
# one column per collection (metaeval.summary.write_summary).


def _summary_outputs():
    out = []
    for t in SUMMARY_TABLES:
        for x in TABLE_FORMATS:
            path = f"{RES}/summary/{t}.{x}"
            if x == "csv":
                path = report(path, caption=caption(f"summary_table_{t}"), category="Summary", subcategory="Tables",
                              labels={"collection": "all", "table": t})
            out.append(path)
    for f in SUMMARY_FIGURES:
        for x in FIGURE_FORMATS:
            path = f"{RES}/summary/{f}.{x}"
            if x == "png":
                path = report(path, caption=caption(f"summary_figure_{f}"), category="Summary",
                              subcategory="Figures", labels={"collection": "all", "figure": f})
            out.append(path)
    return out


rule summary:
    input:
        tables=[f"{RES}/{c}/tables/{t}.csv" for c in COLLECTIONS for t in TABLES],
    output:
        _summary_outputs(),
    params:
        collections={c: f"{RES}/{c}" for c in COLLECTIONS},
        out=f"{RES}/summary",
        alpha=ALPHA,
    log:
        f"{RES}/logs/summary.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/summary.py"
