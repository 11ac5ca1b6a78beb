# A stage on the labelled collection (kind "labelled") without a rule of its own (incompleteness
# has one: its folder and its processes): one job per collection and stage running
# `metaeval stage NAME` on the collection cache and the collection's gains; its part,
# C/parts/NAME/, is read by the meta rule (OWN_JOB_STAGES). A plug-in's labelled stage runs here.

_RULED = {r.name for r in workflow.rules}
LABELLED_JOBS = [s for s in OWN_JOB_STAGES if s not in _RULED]

if LABELLED_JOBS:

    rule labelled_stage:
        conda:
            CONDA_ENV
        input:
            cache=f"{RES}/{{collection}}/collection.npz",
            matrices=matrix_files(_unique(METRICS + [SELECT_BY])),
        output:
            parts=directory(f"{RES}/{{collection}}/parts/{{stage}}"),
        wildcard_constraints:
            stage="|".join(LABELLED_JOBS),
        params:
            metaeval=METAEVAL,
            matrices=matrices_dir,
            gains=gains_arg,
            args=lambda w: PLAN.stage_args(w.stage, w.collection),
        log:
            f"{RES}/logs/{{collection}}/{{stage}}.log",
        benchmark:
            f"{RES}/benchmarks/{{collection}}/{{stage}}.tsv"
        message:
            "{wildcards.collection}: stage {wildcards.stage} on the labelled collection"
        resources:
            mem_mb=3000,
            runtime=30,
        shell:
            "{params.metaeval} stage {wildcards.stage} --matrices {params.matrices:q} --collection {input.cache:q}"
            " --gains {params.gains:q} --out {output.parts:q} {params.args} --quiet > {log:q} 2>&1"
