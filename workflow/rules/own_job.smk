# A stage with a job of its own that the package runs (kind "other" with a run function, a plug-in's
# own job: metaeval.stages.StageInfo.own_job) and no rule of its own: one rule per stage, named
# own_job_NAME, one job per collection running `metaeval stage NAME` on the collection's matrices
# (those its plan reads: job_matrices(NAME)) with its declared parameters (job_args(NAME)), writing
# the outputs of its scope into results/C/NAME/ (tables/, figures/; in the report).

_RULED = {r.name for r in workflow.rules}
OWN_JOBS = [s for s in PLAN.own_jobs if s not in _RULED]

for _stage in OWN_JOBS:

    rule:
        name:
            f"own_job_{_stage}"
        conda:
            CONDA_ENV
        input:
            matrices=matrix_files(job_matrices(_stage)),
        output:
            folder_outputs(_stage, _stage),
        params:
            metaeval=METAEVAL,
            figure_args=FIGURE_ARGS,
            stage=_stage,
            matrices=matrices_dir,
            metrics=" ".join(_quote(m) for m in job_matrices(_stage)),
            args=job_args(_stage),
            out=lambda w, stage=_stage: f"{RES}/{w.collection}/{stage}",
        log:
            log_path(_stage),
        benchmark:
            benchmark_path(_stage)
        message:
            f"{{wildcards.collection}}: stage {_stage} (a job of its own)"
        resources:
            mem_mb=3000,
            runtime=30,
        shell:
            "{params.metaeval} stage {params.stage} --matrices {params.matrices:q} --metrics {params.metrics}"
            " {params.args} {params.figure_args} --out {params.out:q} --quiet > {log:q} 2>&1"
