"""The paper-style table of ``metaeval compare`` (Markdown or LaTeX) from the ``compare.csv`` frame.

Runs as rows, metrics as columns, each cell the run's mean score (4 decimals):

* with a baseline: the baseline row first (marked ``(baseline)``), and a dagger on every mean
  that differs significantly from the baseline's (adjusted p < alpha);
* with several baselines: each a letter (a, b, ...), their rows first, and every mean carries the
  letters of the baselines it differs from significantly, as superscripts (as ranx's report);
* all pairs: each run gets a letter (a, b, ..., z, aa, ab, ...) and its mean carries the letters of
  the runs it is significantly better than (higher mean, adjusted p < alpha); with more than 26
  runs the letters are separated by commas (``ad,ag,ah``);
* ``show`` (with a baseline): after each metric's column, the comparison's adjusted p-value
  (``p``), effect size ``diff / sqrt(V_E)`` (``es``), Cohen's d_z (``dz``) and/or the confidence
  interval of the difference (``ci``);
* ``sort_by``: rows by descending mean of that metric (the baseline stays first; in all-pairs
  tables the letters follow the new order), else in the order of the frame;

followed by a legend naming the test, the correction and its family, and alpha.  (Presentation
only; the numbers come from :func:`metaeval.meta.compare.compare`.)
"""

from __future__ import annotations

import math

import pandas as pd

from ..meta.compare import CORRECTION_NAMES, TEST_NAMES

__all__ = ["render_compare", "run_letter", "SHOW_COLUMNS"]

#: the per-comparison numbers a table can show beside each mean (``show=``): header, column, format
SHOW_COLUMNS = {"p": ("p", "p_adjusted"), "es": ("ES", "effect_size"), "dz": ("d_z", "d_z"),
                "ci": ("diff CI", None)}


def run_letter(i: int) -> str:
    """0 -> a, 25 -> z, 26 -> aa, ..."""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


def _tex_escape(text: str) -> str:
    rep = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
           "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
    return "".join(rep.get(c, c) for c in str(text))


def _md_escape(text: str) -> str:
    """A run or measure name as one Markdown table cell: ``|`` (and emphasis marks) escaped."""
    from .render import escape_markdown

    return escape_markdown(text)


def _legend(df: pd.DataFrame, alpha: float, baseline: str | None, n_topics: int | None, tex: bool) -> str:
    tests = list(dict.fromkeys(df["test"]))
    corrs = list(dict.fromkeys(df["correction"]))
    test = ", ".join(TEST_NAMES.get(t, t) for t in tests)
    corr = ", ".join(CORRECTION_NAMES.get(c, c) for c in corrs)
    family = "the comparisons with the baseline" if baseline is not None else "all pairs of runs"
    topics = f" over {n_topics} topics" if n_topics else ""
    dagger = r"$^\dagger$" if tex else "†"
    if baseline is not None:
        mark = f"{dagger}: significantly different from the baseline"
    else:
        mark = "superscript letters: significantly better than the run with that letter"
    if corrs == ["none"] and tests[0] in ("rthsd", "tukey-hsd"):
        how = f"{test} (two-sided; controls the family-wise error over {family} per metric)"
    elif corrs == ["none"]:
        how = f"{test} (two-sided), no correction for multiple comparisons"
    else:
        how = f"{test} (two-sided), {corr} correction over {family} per metric"
    a = f"{alpha:g}"
    return f"Mean scores{topics}; {how}; alpha = {a}; {mark}."


def _fmt_p(p: float, tex: bool) -> str:
    if p < 0.0001:
        return r"$<$0.0001" if tex else "<0.0001"
    return f"{p:.4f}"


def _fmt_stat(v: float, tex: bool) -> str:
    """An effect size, 2 decimals (``inf`` for a constant non-zero difference)."""
    if math.isnan(v):
        return "n/a"
    if v in (float("inf"), float("-inf")):
        return ("$-\\infty$" if v < 0 else "$\\infty$") if tex else ("-inf" if v < 0 else "inf")
    return f"{v:.2f}"


def _show_legend(show, df: pd.DataFrame, tex: bool) -> str:
    if not show:
        return ""
    corr = list(dict.fromkeys(df["correction"]))
    words = {"p": "p: the p-value against the baseline" + ("" if corr == ["none"] else ", adjusted"),
             "es": "ES: the difference from the baseline over sqrt(V_E) (Sakai 2014)",
             "dz": "d_z: the mean per-topic difference over its standard deviation (Cohen's d_z)",
             "ci": "diff CI: the confidence interval of the difference from the baseline"}
    return " " + "; ".join(words[w] for w in show) + "."


def render_compare(df: pd.DataFrame, *, alpha: float = 0.05, baseline: str | None = None, fmt: str = "md",
                   digits: int = 4, n_topics: int | None = None, show=(), sort_by: str | None = None,
                   labels=None, conventions: str = "metaeval") -> str:
    """The table as Markdown (``fmt="md"``) or LaTeX (``fmt="tex"``) text.  ``show``: any of
    ``p``, ``es``, ``dz``, ``ci`` (with a baseline: a column after each metric's); ``sort_by``: a
    metric whose descending mean orders the rows; ``labels``: {run or measure name: label} shown
    instead of the names (:mod:`metaeval.labels`; compare.csv keeps the names);
    ``conventions="urbano2019"`` says so in the legend."""
    from ..labels import relabel

    labels = dict(labels or {})
    if fmt not in ("md", "tex"):
        raise ValueError(f"unknown table format {fmt!r}; expected 'md' or 'tex'")
    if baseline is not None and not isinstance(baseline, str):
        baseline = [str(b) for b in baseline]
        if len(baseline) > 1:
            if show:
                raise ValueError("showing p-values or effect sizes needs one baseline (several: see compare.csv)")
            return _render_baselines(df, baseline, alpha=alpha, tex=fmt == "tex", digits=digits, n_topics=n_topics,
                                     sort_by=sort_by, labels=labels, conventions=conventions)
        baseline = baseline[0] if baseline else None
    tex = fmt == "tex"
    show = list(dict.fromkeys(show or ()))
    bad = [x for x in show if x not in SHOW_COLUMNS]
    if bad:
        raise ValueError(f"unknown show item {bad[0]!r}; expected any of {', '.join(SHOW_COLUMNS)}")
    if show and baseline is None:
        raise ValueError("showing p-values or effect sizes needs a baseline (all pairs: see compare.csv)")
    metrics = list(dict.fromkeys(df["metric"]))
    if sort_by is not None and sort_by not in metrics:
        raise ValueError(f"sort_by: metric {sort_by!r} not in the table ({', '.join(metrics)})")
    if baseline is not None:
        runs = [str(baseline)] + [r for r in dict.fromkeys(df["run"]) if r != baseline]
    else:
        runs = list(dict.fromkeys(x for pair in zip(df["run"], df["other"]) for x in pair))
    means: dict = {}
    marks: dict = {}
    stat: dict = {}
    for row in df.itertuples(index=False):
        means[(row.metric, row.run)] = row.mean
        means[(row.metric, row.other)] = row.other_mean
        if baseline is not None:
            stat[(row.metric, row.run)] = row
    if sort_by is not None:
        head = runs[:1] if baseline is not None else []
        rest = runs[len(head):]
        rest = sorted(rest, key=lambda r: -means.get((sort_by, r), float("-inf")))   # stable on ties
        runs = head + rest
    letters = {r: run_letter(i) for i, r in enumerate(runs)}
    sep = "," if len(runs) > 26 else ""
    for row in df.itertuples(index=False):
        if not row.significant:
            continue
        if baseline is not None:
            marks.setdefault((row.metric, row.run), set()).add("dagger")
        elif row.mean > row.other_mean:
            marks.setdefault((row.metric, row.run), set()).add(row.other)
        elif row.mean < row.other_mean:
            marks.setdefault((row.metric, row.other), set()).add(row.run)

    def cell(metric, run):
        v = means.get((metric, run))
        if v is None:
            return ""
        text = f"{v:.{digits}f}"
        mk = marks.get((metric, run), set())
        if not mk:
            return text
        if baseline is not None:
            return text + (r"$^\dagger$" if tex else "†")
        sup = sep.join(sorted((letters[o] for o in mk), key=lambda s: (len(s), s)))
        return text + (rf"$^{{\mathrm{{{sup}}}}}$" if tex else f"<sup>{sup}</sup>")

    def label(run):
        shown = relabel(run, labels)
        name = _tex_escape(shown) if tex else _md_escape(shown)
        if baseline is not None:
            return name + (" (baseline)" if run == baseline else "")
        return f"({letters[run]}) {name}"

    def extra(metric, run, what):
        row = stat.get((metric, run))
        if row is None:
            return ""
        if what == "p":
            return _fmt_p(float(row.p_adjusted), tex)
        if what == "ci":
            lo, hi = float(row.diff_ci_low), float(row.diff_ci_high)
            return f"[{lo:.{digits}f}, {hi:.{digits}f}]"
        column = SHOW_COLUMNS[what][1]
        assert column is not None
        return _fmt_stat(float(getattr(row, column)), tex)

    def cells(run):
        out = []
        for m in metrics:
            out.append(cell(m, run))
            out += [extra(m, run, w) for w in show]
        return out

    heads = []
    for m in metrics:
        heads.append(_tex_escape(relabel(m, labels)) if tex else _md_escape(relabel(m, labels)))
        heads += [_tex_escape(SHOW_COLUMNS[w][0]) if tex else SHOW_COLUMNS[w][0] for w in show]
    extra_legend = _show_legend(show, df, tex)
    if conventions == "urbano2019":
        extra_legend += " Tests with the conventions of Urbano, Lima & Hanjalic (2019)."
    legend = _legend(df, alpha, baseline, n_topics, tex) + (_tex_escape(extra_legend) if tex else extra_legend)
    if not tex:
        lines = ["| run | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(heads)]
        lines += ["| " + label(r) + " | " + " | ".join(cells(r)) + " |" for r in runs]
        return "\n".join(lines) + "\n\n" + legend + "\n"
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{legend}}}",
             r"\begin{tabular}{l" + "r" * len(heads) + "}", r"\toprule",
             "run & " + " & ".join(heads) + r" \\", r"\midrule"]
    lines += [label(r) + " & " + " & ".join(cells(r)) + r" \\" for r in runs]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _render_baselines(df: pd.DataFrame, baselines: list, *, alpha: float, tex: bool, digits: int,
                      n_topics: int | None, sort_by: str | None, labels: dict, conventions: str) -> str:
    """Several baselines: each gets a letter (a, b, ...; its rows first, in the order given) and a
    mean carries, as a superscript (ranx's report's marks), the letters of the baselines it differs
    from significantly (adjusted p < alpha) -- a baseline's row too, for the other baselines."""
    from ..labels import relabel

    metrics = list(dict.fromkeys(df["metric"]))
    if sort_by is not None and sort_by not in metrics:
        raise ValueError(f"sort_by: metric {sort_by!r} not in the table ({', '.join(metrics)})")
    others = [r for r in dict.fromkeys(x for pair in zip(df["run"], df["other"]) for x in pair) if r not in baselines]
    means: dict = {}
    for row in df.itertuples(index=False):
        means[(row.metric, row.run)] = row.mean
        means[(row.metric, row.other)] = row.other_mean
    if sort_by is not None:
        others = sorted(others, key=lambda r: -means.get((sort_by, r), float("-inf")))   # stable on ties
    runs = list(baselines) + others
    letters = {b: run_letter(i) for i, b in enumerate(baselines)}
    sep = "," if len(baselines) > 26 else ""
    marks: dict = {}
    for row in df.itertuples(index=False):
        if row.significant:
            marks.setdefault((row.metric, row.run), set()).add(letters[row.other])
            if row.run in letters:                # two baselines: both carry the other's letter
                marks.setdefault((row.metric, row.other), set()).add(letters[row.run])

    def cell(metric, run):
        v = means.get((metric, run))
        if v is None:
            return ""
        text = f"{v:.{digits}f}"
        mk = marks.get((metric, run))
        if not mk:
            return text
        sup = sep.join(sorted(mk, key=lambda x: (len(x), x)))
        return text + (rf"$^{{\mathrm{{{sup}}}}}$" if tex else f"<sup>{sup}</sup>")

    def label(run):
        shown = relabel(run, labels)
        name = _tex_escape(shown) if tex else _md_escape(shown)
        return f"({letters[run]}) {name} (baseline)" if run in letters else name

    heads = [_tex_escape(relabel(m, labels)) if tex else _md_escape(relabel(m, labels)) for m in metrics]
    tests = list(dict.fromkeys(df["test"]))
    corrs = list(dict.fromkeys(df["correction"]))
    test = ", ".join(TEST_NAMES.get(t, t) for t in tests)
    corr = ", ".join(CORRECTION_NAMES.get(c, c) for c in corrs)
    family = f"the comparisons with the {len(baselines)} baselines"
    topics = f" over {n_topics} topics" if n_topics else ""
    if corrs == ["none"] and tests[0] in ("rthsd", "tukey-hsd"):
        how = f"{test} (two-sided; controls the family-wise error over {family} per metric)"
    elif corrs == ["none"]:
        how = f"{test} (two-sided), no correction for multiple comparisons"
    else:
        how = f"{test} (two-sided), {corr} correction over {family} per metric"
    legend = (f"Mean scores{topics}; {how}; alpha = {alpha:g}; superscript letters: significantly different "
              f"from the baseline with that letter.")
    if conventions == "urbano2019":
        legend += " Tests with the conventions of Urbano, Lima & Hanjalic (2019)."
    if not tex:
        lines = ["| run | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(heads)]
        lines += ["| " + label(r) + " | " + " | ".join(cell(m, r) for m in metrics) + " |" for r in runs]
        return "\n".join(lines) + "\n\n" + legend + "\n"
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{_tex_escape(legend)}}}",
             r"\begin{tabular}{l" + "r" * len(heads) + "}", r"\toprule",
             "run & " + " & ".join(heads) + r" \\", r"\midrule"]
    lines += [label(r) + " & " + " & ".join(cell(m, r) for m in metrics) + r" \\" for r in runs]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
