# Which significance test to trust on this collection (Urbano, Lima & Hanjalic 2019): the
# simulated type I, II (power) and III error rates of the paired tests -- one job per collection when
# `test_errors: {enabled: true}`, reading the collection's matrices (every run) and writing
# C/tables/test_errors_{type1,power,type3}.*, C/test_errors/ (margins.csv, copulas.csv) and the
# figures. The stage is declared in metaeval/meta/stages/error_rates.py: its arguments come from
# metaeval.dag.Plan.


rule test_errors:
    conda:
        CONDA_ENV
    input:
        # what the job reads: its metrics' matrices (a metric added to `metrics:` only does not re-run
        # it), the collection's data and how they are read (data_params)
        matrices=own_matrix_inputs(job_matrices("test_errors")),
        data=collection_data,
    output:
        _table_outputs(["test_errors"]),
        _figure_outputs(["test_errors"]),
        _report_view_outputs("test_errors"),
        folder=directory(f"{RES}/{{collection}}/test_errors"),
    params:
        metaeval=METAEVAL,
        figure_args=FIGURE_ARGS,
        matrices=matrices_dir,
        out=lambda w: f"{RES}/{w.collection}",
        args=job_args("test_errors"),
        views=report_views_command("test_errors"),
        data=data_params,
    log:
        log_path("test_errors"),
    benchmark:
        benchmark_path("test_errors")
    message:
        "{wildcards.collection}: simulated type I, II and III error rates of the paired tests (Urbano et al. 2019)"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=120,
    shell:
        "{params.metaeval} test-errors --matrices {params.matrices:q} --out {params.out:q}"
        " {params.args} {params.figure_args} --quiet > {log:q} 2>&1 && {params.views} >> {log:q} 2>&1"
