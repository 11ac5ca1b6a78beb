# Judgments as a dimension (issue 28; Voorhees 2000): per collection with a `judgments:` block, one
# job running `metaeval judgments` -- the collection's qrels (the reference) against the other qrels
# sets, fills and trec_eval -q results of the block -- into results/C/judgments/ (tables/, figures/,
# judgments/). Self-contained: the lead ports it onto the stage framework.

JUDGMENT_COLLECTIONS = [c for c in COLLECTIONS if cfg(c).get("judgments")]
#: the files of `metaeval judgments --out DIR` (metaeval.outputs scope "judgments"), relative to DIR
JUDGMENT_FILES = _outputs.files("judgments")


def _jcfg(c):
    return cfg(c)["judgments"]


def judgment_files(c):
    """Every qrels file of a collection's judgments job (its inputs: a changed file re-runs it)."""
    j = _jcfg(c)
    out = [cfg(c)["qrels"]]
    for v in j["qrels"].values():
        out += [v] if isinstance(v, str) else list(v)
    return out


def judgments_args(w):
    """The `metaeval judgments` options of a collection, from its `judgments:` block."""
    c = cfg(w.collection)
    j = _jcfg(w.collection)
    ref = j.get("reference", "reference")
    sets = [f"{ref}={c['qrels']}"] + [f"{n}={v if isinstance(v, str) else ','.join(v)}"
                                       for n, v in j["qrels"].items()]
    metrics = j.get("metrics") or METRICS
    return " ".join([
        _args(qrels=sets, reference=ref, metrics=metrics, top_k=j.get("top_k", 10), test=j.get("test", "paired-t"),
              correction=j.get("correction"), topics=j.get("topics", "common"),
              on_conflict=j.get("on_conflict", "error"), threshold=j.get("threshold"), B=B, alpha=ALPHA, seed=SEED,
              rbo_p=RBO_P,
              gains=c.get("gains"), order=c.get("order", "file"), depth=c.get("depth", 1000)),
        " ".join(f"--fill {_quote(f'{n}={v}')}" for n, v in (j.get("fill") or {}).items()),
        " ".join(f"--results {_quote(f'{n}={v}')}" for n, v in (j.get("results") or {}).items()),
    ])


def judgments_outputs():
    out = []
    for o in _outputs.outputs("judgments"):
        for f in o.files():
            path = f"{RES}/{{collection}}/judgments/{f}"
            if o.kind == "text":
                path = directory(path)
            elif f.endswith(".csv") or f.endswith(".png"):
                path = report(path, caption=caption(_outputs.report_caption_name(o)),
                              category="{collection}", subcategory="Judgments",
                              labels={"collection": "{collection}", o.kind: o.name})
            out.append(path)
    return out


def judgments_targets():
    return [f"{RES}/{c}/judgments/{f}" for c in JUDGMENT_COLLECTIONS for f in JUDGMENT_FILES]


rule judgments:
    input:
        qrels=lambda w: judgment_files(w.collection),
        runs=lambda w: run_files(w.collection),
    output:
        judgments_outputs(),
    params:
        metaeval=METAEVAL,
        runs=runs_args,
        args=judgments_args,
        out=lambda w: f"{RES}/{w.collection}/judgments",
    log:
        log_path("judgments"),
    benchmark:
        benchmark_path("judgments")
    message:
        "{wildcards.collection}: who judged? label, ranking and decision agreement of the qrels sets"
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "{params.metaeval} judgments {params.args} {params.runs} --out {params.out:q} --quiet > {log:q} 2>&1"
