# Kishida (2005) reproduction: `metaeval paper-tables kishida`.


rule kishida:
    conda:
        CONDA_ENV
    output:
        [report(f"{RES}/kishida/{f}", caption=caption(f"kishida_{f.split('.')[0]}"),
                category="Kishida 2005", labels={"collection": "Kishida (2005)", "table": f.split(".")[0]})
         if f.endswith(".csv") else f"{RES}/kishida/{f}"
         for f in KISHIDA_FILES],
    params:
        metaeval=METAEVAL,
        out=lambda w: f"{RES}/kishida",
    log:
        f"{RES}/logs/kishida.log",
    benchmark:
        f"{RES}/benchmarks/kishida.tsv"
    message:
        "Kishida (2005): the tables of the reproduction"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "{params.metaeval} paper-tables kishida --out {params.out:q} > {log:q} 2>&1"
