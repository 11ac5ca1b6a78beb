"""The front page of the HTML report (``snakemake --report``): what this configuration computed,
said from the configuration and its plan (:class:`metaeval.dag.Plan`) -- the measures and the
programs they are exact to, the stages run, the bootstrap settings, the Kishida (2005) tables only
when they are made -- then the effective configuration (``RESULTS/effective-config.yaml``).

Standard library and the measure registry only: it is written while Snakemake parses the workflow.
"""

from __future__ import annotations

from .outputs import rst_text as _text

__all__ = ["front_page", "measure_sources"]


def _join(items: list[str]) -> str:
    items = [str(i) for i in items]
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _trec_eval_bases() -> set[str]:
    """The canonical measures that ir_measures names for trec_eval's (pytrec_eval's) measures and
    that NTCIREVAL computes the same on the same ranked list (AP, Prec, RR, R-prec, bpref, Hit)."""
    from .metrics.vocabulary import IR_MEASURES

    out = set()
    for name, ir in IR_MEASURES.items():
        if ir.provider.startswith("pytrec_eval"):
            for cutoff in (None, "10"):
                try:
                    base = ir.convert(name, {}, cutoff)[0]
                except (ValueError, KeyError, TypeError):
                    continue
                if not base.startswith("trec."):
                    out.add(base)
    return out


def measure_sources(metrics, vocabulary: str = "ntcireval") -> list[tuple[str, list[str]]]:
    """``[(source, [measures])]``: the measures grouped by the tool whose semantics they follow
    (the registry's families: trec_eval 10.0 for ``trec.*``, NTCIREVAL for NTCIREVAL's, ...), in the
    order first met.  Read in ``vocabulary`` ``ir_measures`` (a config of TREC input ranked by score),
    a measure ir_measures names for trec_eval's (``MAP``, ``MRR``, ``P@10``: canonical ``AP``,
    ``RR``, ``Prec@10``, equal to trec_eval's on that ranked list) follows trec_eval's semantics."""
    from .metrics import parse_measure
    from .metrics.registry import family_of

    trec = _trec_eval_bases() if vocabulary == "ir_measures" else set()
    out: dict[str, list[str]] = {}
    for m in metrics:
        parsed = parse_measure(m, "ntcireval")
        _, source = family_of(parsed.definition)
        if parsed.base in trec:
            source = family_of(parse_measure("trec.map", "ntcireval").definition)[1]
        out.setdefault(source or "metaeval", []).append(str(m))
    return list(out.items())


#: the report's page opens at this page's title and shows all of it: Snakemake 9 centres the front
#: page vertically in a box that scrolls (its top, title and introduction, above the first screen
#: and out of reach of scrolling when the page is taller than the window) -- aligned at the top
#: here; the effective configuration's long lines wrap instead of running out of the text column
#: (clipped), which is widened from 32 to 48 em
_PAGE_STYLE = [".. raw:: html", "",
               "    <style>",
               "    div.items-center.justify-center.h-screen { align-items: flex-start !important; }",
               "    div.prose.max-w-lg { max-width: 48rem !important; }",
               "    div.prose pre { white-space: pre-wrap !important; overflow-wrap: anywhere; }",
               "    </style>"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def front_page(config: dict, plan, effective_text: str = "") -> str:
    """The report's front page (reStructuredText, rendered by Snakemake through Jinja2): built
    from ``config`` (the effective configuration) and ``plan`` (its :class:`metaeval.dag.Plan`);
    ``effective_text``: the record of the effective configuration, shown as a YAML block."""
    cols = list(plan.collections)
    boot, swap = config["bootstrap"], config["swap"]
    srcs = measure_sources(plan.metrics, getattr(plan, "vocabulary", "ntcireval"))
    measures = "; ".join(f"{_join([_text(m) for m in ms])} ({src})" for src, ms in srcs)
    stages = plan.titles(list(plan.meta_stages) + list(plan.own_job_stages) + list(plan.other_jobs))
    lines = ["metaeval meta-evaluation report", "=" * 31, "", *_PAGE_STYLE, ""]
    lines.append(
        f"Per-topic scores of {_plural(len(plan.metrics), 'measure')} -- {measures} -- on "
        f"{_plural(len(cols), 'collection')} ({_join([_text(c) for c in cols])}), meta-evaluated by the metaeval "
        f"Snakemake pipeline: {_join(stages)}. "
        f"Bootstrap B = {boot['B']}, alpha = {boot['alpha']}, seed = {boot['seed']}; swap threshold = "
        f"{swap['threshold']}. The runs are ordered by their mean {_text(plan.primary_measure)} "
        f"(``select_by``{'' if plan.primary_measure == plan.select_by else ' is not meta-evaluated: the first metric'}), "
        "best first.")
    lines.append("")
    if getattr(plan, "reproduction", False):
        regen = ("Each table and figure names the table or figure of the papers it regenerates "
                 "(Sakai (2007a), Sakai (2007b) and the later works cited in its caption)")
    else:
        regen = ("Each caption names the data (collection, runs, topics), the method with its paper and settings, "
                 "and the table or figure of the papers whose method and layout it follows (\"After Table N "
                 "of ...\"; a collection whose config sets ``reproduction: true`` regenerates them)")
    if plan.is_on("kishida"):
        regen += "; the Kishida (2005) reproduction is listed separately"
    lines.append(regen + ".")
    if plan.summary and len(cols) > 1:
        lines += ["", "The Summary section compares the collections (one column per collection)."]
    res = str(config.get("results", "results")).rstrip("/")
    shown = ("Each table is shown as the paper prints it (its Markdown view: 4 decimals, the runs' and "
             "measures' labels, a long table's first rows); the whole table, every digit, is "
             f"``{res}/COLLECTION/tables/TABLE.csv`` beside the report, linked from its caption (a view over "
             f"{config.get('report_max_table_mb', 0.25)} MB, config ``report_max_table_mb``, shows its first rows).")
    lines += ["", shown]
    if effective_text:
        lines += ["", "The effective configuration", "---------------------------", "",
                  f"``{res}/effective-config.yaml``: the config given merged with the defaults.", "",
                  "{% raw %}", ".. code-block:: yaml", ""]
        lines += [f"    {ln}" if ln else "" for ln in effective_text.splitlines()]
        lines += ["", "{% endraw %}"]
    return "\n".join(lines) + "\n"
