# Parse + label once: the Collection cache (metaeval ingest).


rule ingest:
    input:
        qrels=lambda w: qrels_path(w.collection),
        runs=lambda w: run_files(w.collection),
        intent_probs=lambda w: [cfg(w.collection)["intent_probs"]] if cfg(w.collection).get("intent_probs") else [],
    output:
        cache=f"{RES}/{{collection}}/collection.npz",
    params:
        metaeval=METAEVAL,
        runs=lambda w: " ".join(f"--runs {_quote(s)}" for s in run_specs(w.collection)),
        order=lambda w: cfg(w.collection)["order"],
        depth=lambda w: cfg(w.collection)["depth"],
        max_level=lambda w: ("" if cfg(w.collection)["max_level"] is None
                             else f"--max-level {cfg(w.collection)['max_level']}"),
        form=lambda w: (f"--qrels-form {cfg(w.collection).get('qrels_form', 'auto')}"
                        + (f" --intent-probs {_quote(cfg(w.collection)['intent_probs'])}"
                           if cfg(w.collection).get("intent_probs") else "")),
    log:
        f"{RES}/logs/{{collection}}/ingest.log",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "{params.metaeval} ingest --qrels {input.qrels:q} {params.runs} --order {params.order}"
        " --depth {params.depth} {params.max_level} {params.form} --out {output.cache:q} > {log:q} 2>&1"
