# Was it reproduced? (Breuer et al. 2020): with `reproducibility: {enabled: true}`, one job (not per
# collection) running `metaeval reproducibility` on the block's qrels, original pair and reproductions
# into RESULTS/reproducibility/ (tables/, figures/). The stage is declared in
# metaeval/meta/stages/reproducibility.py: its arguments come from metaeval.dag.Plan.


if PLAN.is_on("reproducibility"):

    rule reproducibility:
        input:
            PLAN.job_inputs("reproducibility"),
        output:
            PLAN.stage_targets("reproducibility"),
        params:
            metaeval=METAEVAL,
            figure_args=FIGURE_ARGS,
            out=f"{RES}/reproducibility",
            args=PLAN.job_args("reproducibility"),
        log:
            f"{RES}/logs/reproducibility.log",
        benchmark:
            f"{RES}/benchmarks/reproducibility.tsv"
        message:
            "was it reproduced? reproducibility measures of every reproduction (Breuer et al. 2020)"
        threads: 1
        resources:
            mem_mb=3000,
            runtime=60,
        shell:
            "{params.metaeval} reproducibility {params.args} {params.figure_args} --out {params.out:q} --quiet > {log:q} 2>&1"
