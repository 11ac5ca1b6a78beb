# Judgments as a dimension (Voorhees 2000): per collection with a `judgments:` block, one
# job running `metaeval judgments` -- the collection's qrels (the reference) against the other qrels
# sets, fills and trec_eval -q results of the block -- into results/C/judgments/ (tables/, figures/,
# judgments/). The stage (`judgments`, kind "other", metaeval/meta/stages/judgments.py) has its own
# command; its block names files and sets rather than parameters, so the stage's plan hook reads it
# (job_inputs/job_args: its JobPlan; its targets are in PLAN.targets). `labels:` is an input (as the
# writers job's): a changed mapping re-runs this job, its tables and figures relabelled.

rule judgments:
    conda:
        CONDA_ENV
    input:
        qrels=job_inputs("judgments"),
        runs=lambda w: PLAN.run_files(w.collection),
        labels=PLAN.labels_inputs(),
    output:
        folder_outputs("judgments", "Judgments"),
    params:
        metaeval=METAEVAL,
        figure_args=FIGURE_ARGS,
        runs=runs_args,
        args=job_args("judgments"),
        out=lambda w: f"{RES}/{w.collection}/judgments",
        labels=lambda w, input: f"--labels {_quote(input.labels[0])}" if input.labels else "",
    log:
        log_path("judgments"),
    benchmark:
        benchmark_path("judgments")
    message:
        "{wildcards.collection}: who judged? label, ranking and decision agreement of the qrels sets"
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "{params.metaeval} judgments {params.args} {params.figure_args} {params.runs} {params.labels} --out {params.out:q} --quiet > {log:q} 2>&1"
