"""Compute Tables 1-5 of Kishida (2005) as DataFrames (:func:`build_tables`): the ``run`` of the stage
``kishida`` (:mod:`metaeval.meta.stages.kishida`), whose generic writer writes them (CSV at full
precision plus Markdown laid out like the report's tables, :mod:`metaeval.report.kishida`) for
``metaeval paper-tables kishida --out DIR``, ``metaeval stage kishida`` and the pipeline's job.

Tables (the files in ``out``):

``table1.csv``  ``R, v, delta``  -- Eq. (17) at rank j (default 101)
``table2.csv``  ``theta, statistic, value`` -- the simulation of Sec. 3.3 (statistics
                ``mu, sigma2_mu, sigma2_d, sigma2_mu+sigma2_d, mean_Vp``)
``table3.csv``  ``indicator, mean, std``
``table4.csv``  correlation matrix, first column ``indicator`` (vS', vD, vQ, vG, AP)
``table5.csv``  ``row, pattern, vS', vD, vQ, vG`` (pattern rows and ratio rows)
``patterns.csv`` every output pattern with every indicator (the data behind Tables 3-5)

and ``tableN.md`` for each table (the files are declared in :mod:`metaeval.outputs`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .patterns import comparison
from .sensitivity import table1
from .simulation import table2

__all__ = ["KishidaParams", "build_tables"]


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
