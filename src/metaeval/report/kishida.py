"""The Markdown of the Kishida (2005) reproduction: Tables 1-5 of
:func:`metaeval.kishida.reproduce.build_tables` laid out like the report's tables
(:func:`stage_texts`, the stage's ``table_texts``); the CSVs (full precision) and the files
themselves are written by the generic writer of an own job's scope
(:func:`metaeval.pipeline.write_own_outputs`, the files declared in :mod:`metaeval.outputs`, scope
``"kishida"``)."""

from __future__ import annotations

import pandas as pd

from ..kishida.reproduce import KishidaParams
from ..kishida.simulation import STATISTICS

__all__ = ["render_markdown", "stage_texts"]


# ----------------------------------------------------------------------------- markdown
def _f(v, d: int, lead: bool = True) -> str:
    s = f"{float(v):.{d}f}"
    if not lead:
        s = s.replace("0.", ".", 1) if s.startswith("0.") else s.replace("-0.", "-.", 1)
    return s


def _md(header: list[str], rows: list[list[str]], caption: str) -> str:
    lines = [caption, "", "| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


_LABELS = {"vS'": "v_S'", "vD": "v_D", "vQ": "v_Q", "vG": "v_G", "AP": "Ave. Pre."}
_STAT_LABELS = {
    "mu": "mu-hat (= L^-1 sum_h mu-hat_h)",
    "sigma2_mu": "sigma-hat_mu^2",
    "sigma2_d": "sigma-hat_d^2 (= L^-1 sum_h sigma-hat_h^2)",
    "sigma2_mu+sigma2_d": "sigma-hat_mu^2 + sigma-hat_d^2",
    "mean_Vp": "M^-1 sum_a V-hat_p(v_ha \\| S)",
}


def render_markdown(tables: dict[str, pd.DataFrame], p: KishidaParams) -> dict[str, str]:
    out = {}
    t1 = tables["table1"]
    vs = list(dict.fromkeys(t1["v"]))
    rows = [[str(R)] + [_f(t1[(t1.R == R) & (t1.v == v)]["delta"].iloc[0], 5) for v in vs]
            for R in dict.fromkeys(t1["R"])]
    out["table1"] = _md(["R"] + [f"v = {v:g}" for v in vs], rows,
                        f"Table 1. Change of average precision score after finding a new relevant "
                        f"document at rank {p.j}")

    t2 = tables["table2"]
    ths = list(dict.fromkeys(t2["theta"]))
    rows = [[_STAT_LABELS.get(s, s)] + [_f(t2[(t2.theta == th) & (t2.statistic == s)]["value"].iloc[0], 5)
                                         for th in ths] for s in STATISTICS]
    out["table2"] = _md([""] + [f"theta = {th:g}" for th in ths], rows,
                        f"Table 2. Results of simulation (L = {p.L}, N = {p.N}, M = {p.M}, seed {p.seed})")

    t3 = tables["table3"]
    header = [""] + [_LABELS[i] for i in t3["indicator"]]
    rows = [["average"] + [_f(v, 3, lead=False) for v in t3["mean"]],
            ["std. dev."] + [_f(v, 3, lead=False) for v in t3["std"]]]
    n_pat = len(tables["patterns"])
    out["table3"] = _md(header, rows, f"Table 3. Statistics for indicators (sample size is {n_pat})")

    t4 = tables["table4"]
    cols = [c for c in t4.columns[1:] if c != "AP"]
    rows = []
    for i, ind in enumerate(t4["indicator"]):
        rows.append([_LABELS[ind]] + [_f(t4.iloc[i][c], 3) if (ind == "AP" or k <= i) else ""
                                      for k, c in enumerate(cols)])
    out["table4"] = _md([""] + [_LABELS[c] for c in cols], rows,
                        f"Table 4. Correlation matrix (sample size is {n_pat})")

    t5 = tables["table5"]
    cols = list(t5.columns[2:])
    rows = []
    for _, r in t5.iterrows():
        ratio = "/" in r["row"]
        rows.append([("" if ratio else r["row"] + "."), (r["row"] if ratio else r["pattern"])]
                    + [_f(r[c], 3) for c in cols])
    out["table5"] = _md(["", "Pattern"] + [_LABELS[c] for c in cols], rows,
                        "Table 5. Scores of indicators for some characteristic patterns")
    return out


def stage_texts(tables: dict[str, pd.DataFrame], params=None) -> dict[str, str]:
    """The Markdown of Tables 1-5 (``tableN.md``), laid out as the paper's, of the stage's frames
    and parameters (:class:`~metaeval.meta.stages.kishida.KishidaStageParams`, None: the paper's):
    the stage's :attr:`~metaeval.stages.StageInfo.table_texts`, which the generic writer
    (:func:`metaeval.pipeline.write_own_outputs`) writes beside the CSVs."""
    from ..meta.stages.kishida import paper_params

    return {f"{k}.md": t for k, t in render_markdown(tables, paper_params(params)).items()}
