# A stage with a job of its own that the package runs (kind "other" with a run function: a plug-in's
# own job, the package's bayes, ppi, judgments; metaeval.stages.StageInfo.own_job) and no rule of its
# own: one rule per stage, named own_job_NAME, one job per collection running `metaeval stage NAME`
# with its parameters' options (job_args(NAME): its plan's values, else its declared config keys')
# on the collection's matrices (those its plan reads: job_matrices(NAME)) -- a stage on the data
# (StageInfo.data: ppi, judgments) on the collection's qrels and runs instead (data_args). What it
# writes is declared: a stage with a scope of its own, its files under results/C/NAME/ (tables/,
# figures/, its text folder); else its outputs of the collection's scope, results/C/tables/,
# results/C/figures/, their report views (metaeval.report.views) and its folder, results/C/FOLDER/.
# Its inputs besides (metaeval.stages.JobPlan): the files its plan or its file parameters name
# (job_inputs(NAME): a judge's qrels, a topic list); `data` -- the collection's qrels and run files
# (a stage on the matrices: they are read as the metrics job reads them, its matrices then an
# `ancient` input); `labels` -- the display labels, passed as --labels. Its message is its title,
# its runtime its declared one.

_RULED = {r.name for r in workflow.rules}
OWN_JOBS = [s for s in PLAN.own_jobs if s not in _RULED and not _stage_registry.get(s).run_wide]

for _stage in OWN_JOBS:
    _job = PLAN.job(_stage)
    _on_data = own_job_on_data(_stage)
    _views = own_job_views(_stage)
    _reads = job_matrices(_stage)

    rule:
        name:
            f"own_job_{_stage}"
        conda:
            CONDA_ENV
        input:
            matrices=(own_matrix_inputs if _job.data else matrix_files)(_reads),
            data=collection_data if _job.data or _on_data else [],
            files=job_inputs(_stage),
            labels=PLAN.labels_inputs() if _job.labels else [],
        output:
            own_job_outputs(_stage),
        params:
            metaeval=METAEVAL,
            figure_args=FIGURE_ARGS,
            stage=_stage,
            matrices=matrices_dir,
            metrics=" ".join(_quote(m) for m in _reads),
            args=job_args(_stage),
            out=own_job_out(_stage),
            data=data_args if _on_data else data_params if _job.data else "",
            labels=lambda w, input: f" --labels {_quote(input.labels[0])}" if input.labels else "",
            views=report_views_command(_stage) if _views else "",
        log:
            log_path(_stage),
        benchmark:
            benchmark_path(_stage)
        message:
            f"{{wildcards.collection}}: {own_job_title(_stage)}"
        threads: job_threads(_stage)
        resources:
            mem_mb=3000,
            runtime=own_job_runtime(_stage),
        shell:
            "{params.metaeval} stage {params.stage}"
            + (" --matrices {params.matrices:q} --metrics {params.metrics}" if _reads else "")
            + (" {params.data}" if _on_data else "")
            + " {params.args} {params.figure_args}{params.labels} --out {params.out:q} --quiet > {log:q} 2>&1"
            + (" && {params.views} >> {log:q} 2>&1" if _views else "")


#: the own jobs whose job is one for the whole run (StageInfo.run_wide), not one per collection
RUN_WIDE_JOBS = [s for s in PLAN.own_jobs if s not in _RULED and _stage_registry.get(s).run_wide]


# An own job whose job is one for the whole run (StageInfo.run_wide: kishida): one rule per stage,
# named own_job_NAME, one job (no collection wildcard) running `metaeval stage NAME` with its
# declared parameters (job_args(NAME); files among them, their files its inputs: PLAN.job_inputs), writing
# its scope's files under results/SCOPE/ (own_run_outputs: the run's, under its scope's title in the
# report). Its log and benchmark are results/logs/NAME.log, results/benchmarks/NAME.tsv.
for _stage in RUN_WIDE_JOBS:
    _st = _stage_registry.get(_stage)
    _draws = any(o.kind == "figure" for sc in _st.scopes for o in _outputs.outputs(sc.name))

    rule:
        name:
            f"own_job_{_stage}"
        conda:
            CONDA_ENV
        input:
            PLAN.job_inputs(_stage),
        output:
            own_run_outputs(_stage),
        params:
            metaeval=METAEVAL,
            stage=_stage,
            args=PLAN.job_args(_stage),
            figure_args=f" {FIGURE_ARGS}" if _draws else "",
            out=own_run_out(_stage),
        log:
            f"{RES}/logs/{_stage}.log",
        benchmark:
            f"{RES}/benchmarks/{_stage}.tsv"
        message:
            own_job_title(_stage)
        threads: job_threads(_stage)
        resources:
            mem_mb=3000,
            runtime=own_job_runtime(_stage),
        shell:
            "{params.metaeval} stage {params.stage} {params.args}{params.figure_args} --out {params.out:q} --quiet"
            " > {log:q} 2>&1"
