# Score standardisation (Webber, Moffat & Zobel 2008; Sakai ICTIR 2016; Urbano, Lima & Hanjalic 2019):
# the within- and between-collection experiments of Urbano et al. (2019) on every metric of
# `metrics` without std= -- one job per collection when `standardisation: {enabled: true}`, reading the
# collection's matrices (every run) and writing its tables, C/standardisation/ (power.csv,
# trials.csv) and its figures. The std= measures themselves are computed by the metrics rule
# (`std_runs:` / `std_factors:` / `std_leave_one_out:` of a collection). The stage is declared in
# metaeval/meta/stages/standardisation.py: its arguments come from metaeval.dag.Plan.


rule standardisation:
    conda:
        CONDA_ENV
    input:
        matrices=matrix_files(job_matrices("standardisation")),
    output:
        _table_outputs(["standardisation"]),
        _figure_outputs(["standardisation"]),
        _report_view_outputs("standardisation"),
        folder=directory(f"{RES}/{{collection}}/standardisation"),
    params:
        metaeval=METAEVAL,
        figure_args=FIGURE_ARGS,
        matrices=matrices_dir,
        out=lambda w: f"{RES}/{w.collection}",
        args=job_args("standardisation"),
        views=report_views_command("standardisation"),
    log:
        log_path("standardisation"),
    benchmark:
        benchmark_path("standardisation")
    message:
        "{wildcards.collection}: score standardisation within and between collections (Urbano et al. 2019)"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "{params.metaeval} standardise --experiment --matrices {params.matrices:q} --out {params.out:q}"
        " {params.args} {params.figure_args} --quiet > {log:q} 2>&1 && {params.views} >> {log:q} 2>&1"
