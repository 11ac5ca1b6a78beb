# The HTML report: `snakemake --report results/report.html` (Snakemake builds it from the outputs
# flagged with report(...) above, each with its caption in workflow/report/). The `report` rule is a
# convenience target that runs exactly that after the default target is complete.

report: "../report/workflow.rst"


rule report:
    input:
        all_targets(),
    output:
        html=f"{RES}/report.html",
    log:
        f"{RES}/logs/report.log",
    localrule: True
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "snakemake --nolock --report {output.html:q} --configfiles {workflow.configfiles:q}"
        " --config results={RES:q} > {log:q} 2>&1"
