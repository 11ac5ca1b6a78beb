# Every table of the output contract for one collection (CSV + Markdown + LaTeX): the parts of the
# method stages combined, plus the collection-level tables (Table 1, preferred ranks, run means)
# and runs_used.csv, the runs meta-evaluated; pvalues/, the Discpower text files of the pvalues table;
# then, in the same process, every figure drawn from those table CSVs alone (PNG + PDF), in two
# processes forked once matplotlib is loaded (metaeval.pipeline.write_figures).


rule tables:
    input:
        cache=f"{RES}/{{collection}}/collection.npz",
        matrices=matrix_files(EVAL_MATRICES),
        parts=stage_parts,
    output:
        _table_outputs(),
        _figure_outputs(),
        runs=f"{RES}/{{collection}}/runs_used.csv",
        texts=directory(f"{RES}/{{collection}}/pvalues"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        parts=parts_dir,
        out=tables_dir,
        figures=figures_dir,
        args=stage_args("tables"),
    log:
        log_path("tables"),
    benchmark:
        benchmark_path("tables")
    message:
        "{wildcards.collection}: every table (CSV, Markdown, LaTeX) and figure (PNG, PDF)"
    threads: 2  # the t* histograms beside the other figures
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "{params.metaeval} stage tables --matrices {params.matrices:q} --collection {input.cache:q}"
        " --parts {params.parts:q} --out {params.out:q} --runs-used {output.runs:q}"
        " --texts {output.texts:q} --figures {params.figures:q} --jobs {threads} {params.args}"
        " > {log:q} 2>&1"
