"""The paper-style table of ``metaeval compare`` (Markdown or LaTeX) from the ``compare.csv`` frame.

Runs as rows, metrics as columns, each cell the run's mean score (4 decimals):

* with a baseline: the baseline row first (marked ``(baseline)``), and a dagger on every mean
  that differs significantly from the baseline's (adjusted p < alpha);
* all pairs: each run gets a letter (a, b, ..., z, aa, ab, ...) and its mean carries the letters of
  the runs it is significantly better than (higher mean, adjusted p < alpha);

followed by a legend naming the test, the correction and its family, and alpha.  (Presentation
only; the numbers come from :func:`metaeval.meta.compare.compare`.)
"""

from __future__ import annotations

import pandas as pd

from ..meta.compare import CORRECTION_NAMES, TEST_NAMES

__all__ = ["render_compare", "run_letter"]


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


def render_compare(df: pd.DataFrame, *, alpha: float = 0.05, baseline: str | None = None, fmt: str = "md",
                   digits: int = 4, n_topics: int | None = None) -> str:
    """The table as Markdown (``fmt="md"``) or LaTeX (``fmt="tex"``) text."""
    if fmt not in ("md", "tex"):
        raise ValueError(f"unknown table format {fmt!r}; expected 'md' or 'tex'")
    tex = fmt == "tex"
    metrics = list(dict.fromkeys(df["metric"]))
    if baseline is not None:
        runs = [str(baseline)] + [r for r in dict.fromkeys(df["run"]) if r != baseline]
    else:
        runs = list(dict.fromkeys(x for pair in zip(df["run"], df["other"]) for x in pair))
    letters = {r: run_letter(i) for i, r in enumerate(runs)}
    means: dict = {}
    marks: dict = {}
    for row in df.itertuples(index=False):
        means[(row.metric, row.run)] = row.mean
        means[(row.metric, row.other)] = row.other_mean
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
        sup = "".join(sorted((letters[o] for o in mk), key=lambda s: (len(s), s)))
        return text + (rf"$^{{\mathrm{{{sup}}}}}$" if tex else f"<sup>{sup}</sup>")

    def label(run):
        name = _tex_escape(run) if tex else run
        if baseline is not None:
            return name + (" (baseline)" if run == baseline else "")
        return f"({letters[run]}) {name}"

    legend = _legend(df, alpha, baseline, n_topics, tex)
    if not tex:
        lines = ["| run | " + " | ".join(metrics) + " |", "|---|" + "---:|" * len(metrics)]
        lines += ["| " + label(r) + " | " + " | ".join(cell(m, r) for m in metrics) + " |" for r in runs]
        return "\n".join(lines) + "\n\n" + legend + "\n"
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{legend}}}",
             r"\begin{tabular}{l" + "r" * len(metrics) + "}", r"\toprule",
             "run & " + " & ".join(_tex_escape(m) for m in metrics) + r" \\", r"\midrule"]
    lines += [label(r) + " & " + " & ".join(cell(m, r) for m in metrics) + r" \\" for r in runs]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
