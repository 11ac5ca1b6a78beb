# The HTML report. `snakemake --report results/report.html` builds it from the outputs flagged with
# report(...) (each with its caption, and the front page, written by common.smk); the `report` rule is a convenience
# target (`snakemake report`) that does the same after the default target is complete.

report: front_page_file()


rule report:
    conda:
        CONDA_ENV
    input:
        all_targets(),
    output:
        html=f"{RES}/report.html",
    params:
        snakefile=workflow.main_snakefile,
    log:
        f"{RES}/logs/report.log",
    benchmark:
        f"{RES}/benchmarks/report.tsv"
    message:
        "the HTML report of every table and figure"
    localrule: True
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/report.py"
