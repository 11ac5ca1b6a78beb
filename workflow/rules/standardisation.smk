# Score standardisation (Webber, Moffat & Zobel 2008; Sakai ICTIR 2016; Urbano, Lima & Hanjalic 2019):
# the within- and between-collection experiments of Urbano et al. (2019) on every metric of
# `metrics` without std= -- one job per collection when `standardisation: {enabled: true}`, reading the
# collection's matrices (every run) and writing its tables, C/standardisation/ (power.csv,
# trials.csv) and its figures. The std= measures themselves are computed by the metrics rule
# (`std_runs:` / `std_factors:` / `std_leave_one_out:` of a collection).

_std = config.get("standardisation") or {}
STD_METRICS = [m for m in METRICS if "std=" not in m]
def cdir_of(w):
    return f"{RES}/{w.collection}"


STD_ARGS = _args(std=_std.get("std", ["z", "N", "U", "E"]), topics=_std.get("topics", 50),
                 trials=_std.get("trials", 1000), seed=_std.get("seed", 1))


rule standardisation:
    input:
        matrices=matrix_files(STD_METRICS),
    output:
        _table_outputs(["standardisation"]),
        _figure_outputs(["standardisation"]),
        folder=directory(f"{RES}/{{collection}}/standardisation"),
    params:
        metaeval=METAEVAL,
        matrices=matrices_dir,
        out=cdir_of,
        metrics=" ".join(_quote(m) for m in STD_METRICS),
        args=STD_ARGS,
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
        "{params.metaeval} standardisation --matrices {params.matrices:q} --out {params.out:q}"
        " --metrics {params.metrics} {params.args} --quiet > {log:q} 2>&1"
