# Bayesian inference (Sakai 2017; Benham, Carterette, Culpepper & Moffat 2020): the crossed topic x
# run model fitted per metric by an exact Gibbs sampler -- one job per collection when
# `bayes: {enabled: true}`, reading the collection's matrices (every run) and writing
# C/tables/bayes_{runs,pairs,fit}.* and the figures bayes_intervals and bayes_p_greater. The stage
# is declared in metaeval/meta/stages/bayes.py: its arguments come from metaeval.dag.Plan. `labels:`
# is an input (as the writers job's): a changed mapping re-runs this job.


rule bayes:
    conda:
        CONDA_ENV
    input:
        # what the job reads: its metrics' matrices (a metric added to `metrics:` only does not re-run
        # it) and the collection's data
        matrices=own_matrix_inputs(job_matrices("bayes")),
        data=collection_data,
        labels=PLAN.labels_inputs(),
    output:
        _table_outputs(["bayes"]),
        _figure_outputs(["bayes"]),
        _report_view_outputs("bayes"),
    params:
        metaeval=METAEVAL,
        figure_args=FIGURE_ARGS,
        matrices=matrices_dir,
        out=lambda w: f"{RES}/{w.collection}",
        args=job_args("bayes"),
        views=report_views_command("bayes"),
        data=data_params,
        labels=lambda w, input: f"--labels {_quote(input.labels[0])}" if input.labels else "",
    log:
        log_path("bayes"),
    benchmark:
        benchmark_path("bayes")
    message:
        "{wildcards.collection}: Bayesian inference on the crossed topic x run model (Sakai 2017; Benham et al. 2020)"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "{params.metaeval} bayes --matrices {params.matrices:q} --out {params.out:q}"
        " {params.args} {params.figure_args} {params.labels} --quiet > {log:q} 2>&1 && {params.views} >> {log:q} 2>&1"
