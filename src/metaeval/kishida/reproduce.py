"""Write Tables 1-5 of Kishida (2005): CSV at full precision plus Markdown laid out like
the report's tables.  Used by ``metaeval reproduce kishida --out DIR``.

Files (in ``out``):

``table1.csv``  ``R, v, delta``  -- Eq. (17) at rank j (default 101)
``table2.csv``  ``theta, statistic, value`` -- the simulation of Sec. 3.3 (statistics
                ``mu, sigma2_mu, sigma2_d, sigma2_mu+sigma2_d, mean_Vp``)
``table3.csv``  ``indicator, mean, std``
``table4.csv``  correlation matrix, first column ``indicator`` (vS', vD, vQ, vG, AP)
``table5.csv``  ``row, pattern, vS', vD, vQ, vG`` (pattern rows and ratio rows)
``patterns.csv`` every output pattern with every indicator (the data behind Tables 3-5)

and ``tableN.md`` for each table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..tables import csv_text
from ..util import atomic_dir_outputs, atomic_write
from .patterns import comparison
from .sensitivity import table1
from .simulation import STATISTICS, table2

__all__ = ["KishidaParams", "build_tables", "render_markdown", "reproduce"]


@dataclass(frozen=True)
class KishidaParams:
    R: tuple[int, ...] = (10, 50, 100)
    v: tuple[float, ...] = (0.1, 0.3, 0.5)
    j: int = 101
    thetas: tuple[float, ...] = (0.9, 0.5)
    L: int = 50
    N: int = 10
    M: int = 1000
    seed: int = 0
    degrees: tuple[int, ...] = (3, 2, 1)
    n: int = 5
    b: float = 2.0


def build_tables(p: KishidaParams = KishidaParams()) -> dict[str, pd.DataFrame]:
    comp = comparison(p.degrees, p.n, b=p.b)
    scores = comp["scores"].reset_index()
    return {
        "table1": table1(p.R, p.v, p.j),
        "table2": table2(p.thetas, p.L, p.N, p.M, p.seed),
        "table3": comp["table3"],
        "table4": comp["table4"],
        "table5": comp["table5"],
        "patterns": scores,
    }


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


def reproduce(out: str | Path, p: KishidaParams = KishidaParams()) -> list[Path]:
    """Compute every table and write them to ``out``; returns the written paths.  All texts are
    rendered before any file is written; a failure removes the files already written."""
    out = Path(out)
    tables = build_tables(p)
    texts: dict[str, str] = {f"{k}.csv": csv_text(df) for k, df in tables.items()}
    texts.update({f"{k}.md": t for k, t in render_markdown(tables, p).items()})
    paths = [out / name for name in texts]
    with atomic_dir_outputs(paths):
        for path, text in zip(paths, texts.values()):
            with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
    return paths
