"""Write the Kishida (2005) reproduction: every table of
:func:`metaeval.kishida.reproduce.build_tables` as CSV (full precision) and, for Tables 1-5,
Markdown laid out like the report's tables (the files declared in :mod:`metaeval.outputs`, scope
``"kishida"``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import outputs as O
from ..kishida.reproduce import KishidaParams, build_tables
from ..kishida.simulation import STATISTICS
from ..util import atomic_dir_outputs, atomic_write
from .csvio import csv_text

__all__ = ["render_markdown", "write_kishida"]


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


def write_kishida(out: str | Path, p: KishidaParams | None = None) -> list[Path]:
    """Compute every table and write them to ``out``; returns the written paths.  All texts are
    rendered before any file is written; a failure removes the files already written."""
    p = KishidaParams() if p is None else p
    out = Path(out)
    tables = build_tables(p)
    texts: dict[str, str] = {f"{k}.csv": csv_text(df) for k, df in tables.items()}
    texts.update({f"{k}.md": t for k, t in render_markdown(tables, p).items()})
    declared = set(O.files("kishida"))
    if set(texts) != declared:                   # the declarations and the writer agree
        raise AssertionError(f"kishida files {sorted(texts)} != declared {sorted(declared)}")
    paths = [out / name for name in texts]
    with atomic_dir_outputs(paths):
        for path, text in zip(paths, texts.values()):
            with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
    return paths
