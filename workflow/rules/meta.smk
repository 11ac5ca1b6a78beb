# The meta-evaluation of one collection, every metric, in one job and one `metaeval stage meta`
# process: the method stages of METHOD_STAGES (common.smk), their tables kept in memory --
# paired and unpaired bootstrap tests (Sakai 2007a Sec. 4.3, Sakai 2007b Secs. 5-6) and the
# discriminative power built on their ASLs (Carterette 2012, Sakai 2014, Sakai 2016) in one group;
# Kendall's tau and the other rank correlations, the swap method (Voorhees & Buckley 2002), the
# stability method (Buckley & Voorhees 2000) and the gain-value sweep (Sakai 2007b Sec. 7) in a
# second group beside it, in a process forked once the imports are done, which sends its tables
# back -- then every table of the output contract as CSV (runs_used.csv; pvalues/, the Discpower text
# files); the writers job lays them out (Markdown + LaTeX) and draws their figures (PNG + PDF).  Every
# stage derives the same bootstrap samples from (seed, topics, B), as `metaeval meta` does, so the
# tables are identical to it; one process instead of one per group of stages saves their start-up.

# META_STAGES (common.smk, metaeval.dag.Plan.meta_stages): the method stages this job runs (those on
# the labelled collection have their own job); its arguments are those of all of them, so a
# change to any method's parameter re-runs this job.


rule meta:
    conda:
        CONDA_ENV
    input:
        cache=f"{RES}/{{collection}}/collection.npz",
        matrices=matrix_files(META_MATRICES),
        parts=lambda w: [f"{RES}/{w.collection}/parts/{s}" for s in OWN_JOB_STAGES],
    output:
        _table_outputs(formats=["csv"]),
        runs=f"{RES}/{{collection}}/runs_used.csv",
        texts=meta_text_folder(),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        out=tables_dir,
        parts=lambda w: f"--parts {_quote(parts_dir(w))}" if OWN_JOB_STAGES else "",
        args=group_args(META_STAGES + ["tables"]),
    log:
        log_path("meta"),
    benchmark:
        benchmark_path("meta")
    message:
        "{wildcards.collection}: " + ", ".join(PLAN.titles(META_STAGES))
        + " for every metric; every table (CSV)"
        + " (progress, stage by stage: {log})"
    threads: 2  # the two groups of stages side by side
    resources:
        mem_mb=3000,
        runtime=40,
    shell:
        "{params.metaeval} stage meta --matrices {params.matrices:q} --collection {input.cache:q}"
        " {params.parts} --out {params.out:q} --runs-used {output.runs:q}"
        " --texts {output.texts:q} --jobs {threads} {params.args} --formats csv > {log:q} 2>&1"


# The writers of the meta job's tables: their Markdown and LaTeX (labels, the top pairs of a per-pair
# table, the captions) read back from the CSVs, their figures and report views -- what `labels:` and
# `pair_top_runs:` change (labels an input: a changed mapping re-runs this job, not the meta job).


rule writers:
    conda:
        CONDA_ENV
    input:
        tables=_table_outputs(formats=["csv"]),
        runs=f"{RES}/{{collection}}/runs_used.csv",
        cache=f"{RES}/{{collection}}/collection.npz",
        labels=PLAN.labels_inputs(),
    output:
        _table_outputs(formats=["md", "tex"]),
        _figure_outputs(),
        _report_view_outputs(),
    params:
        metaeval=METAEVAL,
        figure_args=FIGURE_ARGS,
        matrices=matrices_dir,
        out=tables_dir,
        figures=figures_dir,
        labels=lambda w, input: f"--labels {_quote(input.labels[0])}" if input.labels else "",
        args=lambda w: PLAN.writers_args(w.collection),
        views=report_views_command(),
    log:
        log_path("writers"),
    benchmark:
        benchmark_path("writers")
    message:
        "{wildcards.collection}: every table laid out (Markdown, LaTeX) and every figure (PNG, PDF)"
    threads: 2  # the figures in two processes
    resources:
        mem_mb=2000,
        runtime=20,
    shell:
        "{params.metaeval} stage tables --out {params.out:q} --matrices {params.matrices:q} --run-list {input.runs:q}"
        " --collection {input.cache:q} --figures {params.figures:q} {params.figure_args} --jobs {threads} {params.args} {params.labels}"
        " --quiet > {log:q} 2>&1 && {params.views} >> {log:q} 2>&1"
