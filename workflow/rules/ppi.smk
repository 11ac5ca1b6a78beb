# Prediction-powered intervals (Angelopoulos et al. 2023; PPI++, Angelopoulos, Duchi & Zrnic 2023;
# per-topic units as Oosterhuis et al. 2024): per collection with a `ppi:` block, one job running
# `metaeval ppi` -- the collection's qrels as the human labels, the block's judge files -- into
# results/C/ppi/ (tables/, figures/). The stage (`ppi`, kind "other", metaeval/meta/stages/ppi.py)
# declares its outputs (scope ppi) and its job's arguments (job_args, read through metaeval.dag.Plan).
# `labels:` is an input (as the writers job's): a changed mapping re-runs this job.

rule ppi:
    conda:
        CONDA_ENV
    input:
        qrels=job_inputs("ppi"),
        runs=lambda w: PLAN.run_files(w.collection),
        labels=PLAN.labels_inputs(),
    output:
        folder_outputs("ppi", "Prediction-powered intervals"),
    params:
        metaeval=METAEVAL,
        figure_args=FIGURE_ARGS,
        runs=runs_args,
        args=job_args("ppi"),
        out=lambda w: f"{RES}/{w.collection}/ppi",
        labels=lambda w, input: f"--labels {_quote(input.labels[0])}" if input.labels else "",
    log:
        log_path("ppi"),
    benchmark:
        benchmark_path("ppi")
    message:
        "{wildcards.collection}: prediction-powered intervals of the judge's scores and the judging budget"
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "{params.metaeval} ppi {params.args} {params.figure_args} {params.runs} {params.labels} --out {params.out:q} --quiet > {log:q} 2>&1"
