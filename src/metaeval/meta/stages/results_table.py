"""Stage ``results_table``: the table a track overview or a paper prints first -- every run's mean
under every measure, ordered by the primary measure, the best mean per measure in bold, and the
significance marks of :func:`metaeval.meta.compare.compare` (``metaeval compare``'s test and
correction): against the best run of each measure, or against the collection's named
``baselines`` (``tables/results.{csv,md,tex}``).

The CSV (one row per measure, run and comparison)::

    metric, run, mean, se, against, diff, p_value, p_adjusted, significant, test, correction, alpha, primary

``se``: the standard error of the mean over the topics (``sd / sqrt(n)``, ``ddof=1``), from which
the Markdown and LaTeX take their precision; ``against``: the run compared with (the best run of the measure, or a baseline); empty on the row
of a run compared with no other (the best run itself, the first baseline).  Rows: measures in the
configured order, runs by descending mean of the ``primary`` measure (ties: matrix order)."""

from __future__ import annotations

from dataclasses import dataclass

from ...stages import Output, StageInfo, parameter

RESULTS_COLUMNS = ("metric", "run", "mean", "se", "against", "diff", "p_value", "p_adjusted", "significant", "test",
                   "correction", "alpha", "primary")
#: compare's tests and corrections (metaeval.meta.compare.COMPARE_TESTS / pairtests.CORRECTIONS)
TESTS = ("paired-t", "wilcoxon", "sign", "permutation", "bootstrap", "rthsd", "tukey-hsd")
CORRECTIONS = ("none", "bonferroni", "holm", "bh")


def _check(params_test, params_correction):
    if params_test in ("rthsd", "tukey-hsd") and params_correction not in (None, "none"):
        raise ValueError(f"results_table: {params_test} controls the family-wise error rate itself; use "
                         f"correction none (got {params_correction})")


def primary_of(metrics, params) -> str:
    """The measure that orders the rows: ``results_table.primary`` if given (it must be one of
    ``metrics``), else the configured ``select_by`` when computed, else the first measure."""
    metrics = [str(m) for m in metrics]
    if params.results_primary:
        if params.results_primary not in metrics:
            raise ValueError(f"results_table: primary measure {params.results_primary!r} is not among the "
                             f"measures ({', '.join(metrics)})")
        return str(params.results_primary)
    sel = getattr(params, "select_by", None)
    return str(sel) if sel in metrics else metrics[0]


def results_table(matrices: dict, metrics, params):
    """The results table of ``matrices`` ({metric: topic x run DataFrame}) for ``metrics``: the
    columns of :data:`RESULTS_COLUMNS`, with compare's p-values (its test, correction, alpha, B and
    seed: ``params``)."""
    import numpy as np
    import pandas as pd

    from ..compare import compare

    metrics = [str(m) for m in metrics]
    _check(params.results_test, params.results_correction)
    if not metrics:                  # only geometric measures asked: no plain one to tabulate
        return pd.DataFrame({c: [] for c in RESULTS_COLUMNS})
    primary = primary_of(metrics, params)
    baselines = list(params.results_baselines or ())
    B = params.B if params.results_test in ("bootstrap", "permutation", "rthsd") else None
    kw = {"test": params.results_test, "correction": params.results_correction, "alpha": params.alpha, "B": B,
          "seed": params.seed}
    frames = []
    for m in metrics:
        X = matrices[m]
        means = X.mean(axis=0)
        se = X.std(axis=0, ddof=1) / np.sqrt(len(X)) if len(X) > 1 else X.mean(axis=0) * np.nan
        if baselines:
            against = baselines
        else:
            against = [str(X.columns[int(np.argmax(means.to_numpy()))])]      # the first best on ties
        try:
            c = compare({m: X}, baseline=against if len(against) > 1 else against[0], **kw)
        except ValueError as e:
            raise ValueError(f"results_table: {e}") from None
        rows = pd.DataFrame({"metric": m, "run": c["run"], "mean": c["mean"], "against": c["other"],
                             "diff": c["diff"], "p_value": c["p_value"], "p_adjusted": c["p_adjusted"],
                             "significant": c["significant"].astype(bool), "test": c["test"],
                             "correction": c["correction"]})
        alone = [r for r in map(str, X.columns) if r not in set(c["run"])]
        lone = pd.DataFrame({"metric": m, "run": alone, "mean": [float(means[r]) for r in alone], "against": "",
                             "diff": np.nan, "p_value": np.nan, "p_adjusted": np.nan, "significant": False,
                             "test": params.results_test, "correction": str(c["correction"].iloc[0])})
        both = pd.concat([lone, rows], ignore_index=True)
        both.insert(3, "se", [float(se[r]) for r in both["run"]])
        frames.append(both)
    out = pd.concat(frames, ignore_index=True)
    out["alpha"] = float(params.alpha)
    out["primary"] = primary
    key = out[out["metric"] == primary].groupby("run", sort=False)["mean"].first()
    runs = list(map(str, matrices[primary].columns))
    order = sorted(range(len(runs)), key=lambda i: (-float(key[runs[i]]), i))
    rank = {runs[i]: k for k, i in enumerate(order)}
    mrank = {m: k for k, m in enumerate(metrics)}
    bl = {b: k for k, b in enumerate(baselines)}
    out = out.assign(_m=out["metric"].map(mrank), _r=out["run"].map(rank),
                     _a=out["against"].map(lambda a: bl.get(a, -1)))
    out = out.sort_values(["_m", "_r", "_a"], kind="stable").drop(columns=["_m", "_r", "_a"])
    return out[list(RESULTS_COLUMNS)].reset_index(drop=True)


def run(inputs, params):
    return {"results": results_table(inputs.matrices, list(inputs.metrics), params)}


def legend_note(table, matrices=None, labels=None) -> str:
    """The caption's legend: the order of the rows, the test and correction of the marks (as
    ``metaeval compare`` names them), alpha, and what a mark means; ``labels``: {name: label}."""
    from ..compare import CORRECTION_NAMES, TEST_NAMES

    if table is None or not len(table):
        return ""
    lab = dict(labels or {})
    test = str(table["test"].iloc[0])
    corr = str(table["correction"].iloc[0])
    name = TEST_NAMES.get(test, test)
    if test in ("rthsd", "tukey-hsd"):
        how = f"the {name}, which controls the family-wise error rate over each measure's comparisons"
    elif corr == "none":
        how = f"the {name}, no correction for multiple comparisons"
    else:
        how = f"the {name} with {CORRECTION_NAMES.get(corr, corr)}'s correction over each measure's comparisons"
    against = table["against"].fillna("").astype(str)      # read back from the CSV: NaN
    baselines = list(dict.fromkeys(against[against != ""]))
    if _best_mode(table):
        mark = "a dagger: significantly worse than the measure's best run"
    else:
        baselines = list(dict.fromkeys(list(table.loc[against == "", "run"].astype(str))[:1] + baselines))
        if len(baselines) == 1:
            mark = f"a dagger: significantly different from the baseline {lab.get(baselines[0], baselines[0])}"
        else:
            letters = ", ".join(f"{_letter(i)}: {lab.get(b, b)}" for i, b in enumerate(baselines))
            mark = f"superscript letters: significantly different from that baseline ({letters})"
    primary = str(table["primary"].iloc[0])
    alpha = float(table["alpha"].iloc[0])
    return (f"Runs by descending mean {lab.get(primary, primary)}. Marks: {how} (two-sided, alpha = {alpha:g}); "
            f"{mark}.")


def _best_mode(table) -> bool:
    """True when every measure's runs are compared with that measure's best run."""
    import numpy as np

    for m, g in table.groupby("metric", sort=False):
        best = str(g["run"].iloc[int(np.argmax(g["mean"].to_numpy()))])
        if set(g["against"].fillna("").astype(str)) - {"", best}:
            return False
    return True


def _letter(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


_C = ("results_table",)


@dataclass(frozen=True)
class ResultsTableParams:
    """The stage's parameters (fields of :class:`~metaeval.meta.run.MetaConfig`)."""

    results_primary: str | None = parameter(None,
        "the measure that orders the results table's runs (default: select_by when computed, else the "
        "first measure)", metavar="MEASURE", config=_C + ("primary",),
        schema={"type": ["string", "null"]})
    results_test: str = parameter("paired-t",
        "the significance test of the results table's marks (metaeval compare's --test)",
        choices=TESTS, config=_C + ("test",), schema={"enum": list(TESTS)})
    results_correction: str = parameter("holm",
        "the multiple-comparison correction of the results table's marks over each measure's comparisons "
        "(metaeval compare's --correction; none for rthsd and tukey-hsd)",
        choices=CORRECTIONS, config=_C + ("correction",), schema={"enum": list(CORRECTIONS)})
    # per collection: the schema entry `collections.*.baselines` is written by hand
    results_baselines: tuple[str, ...] = parameter((),
        "baseline run(s) the results table marks significance against (default: the best run of each "
        "measure)", nargs="+", metavar="RUN", config=("collections", "*", "baselines"))


STAGE = StageInfo(
    "results_table", "matrices", run, tables=("results",), metrics="plain", cost=0.2,
    title="results table", params=ResultsTableParams,
    reads=("metrics", "alpha", "B", "seed", "results_primary", "results_test", "results_correction",
           "results_baselines"),
    sections=((_C, ("The results table (tables/results.{csv,md,tex}): runs x measures, ordered by the primary "
                    "measure, the best bold, significance marks of metaeval compare's test and correction")),),
    caption_notes=(("results", legend_note),),
    outputs=(
        Output("results", "table", "collection",
               "Mean score of {runs} over {topics} per measure, the best of each measure in bold",
               "the results table of a track overview, as the report of ranx, Bassani (2022), prints it",
               columns=RESULTS_COLUMNS),
    ))
