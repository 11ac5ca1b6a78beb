"""Row orders of the result tables, as the papers print them (the CSV, Markdown and LaTeX files
of a table all list the rows in this order).

* the bootstrap tables: sensitivity descending, ties by metric name (Table 4 of Sakai (2007a),
  Tables 2-3 of Sakai (2007b));
* the swap table: % of comparisons satisfying the required difference, descending (Table 3 of
  Sakai (2007a), Table 4 of Sakai (2007b));
* the gain-sweep bootstrap table: grouped by metric family (first appearance), sensitivity
  descending within a family (Table 6 of Sakai (2007a)).
"""

from __future__ import annotations

import pandas as pd

from ..metrics.registry import split_param

__all__ = ["by_descending", "by_sensitivity", "by_pct_satisfying", "gain_bootstrap_order"]


def by_descending(df: pd.DataFrame, col: str) -> pd.DataFrame:
    """``df`` sorted by ``col`` descending, ties by ``metric`` (stable; missing values last).
    A frame without ``col`` or ``metric`` is returned unchanged."""
    if col not in df.columns or "metric" not in df.columns:
        return df
    return df.sort_values([col, "metric"], ascending=[False, True], kind="mergesort",
                          na_position="last").reset_index(drop=True)


def by_sensitivity(df: pd.DataFrame) -> pd.DataFrame:
    """The bootstrap tables' order: sensitivity descending, ties by metric name."""
    return by_descending(df, "sensitivity")


def by_pct_satisfying(df: pd.DataFrame) -> pd.DataFrame:
    """The swap table's order: ``pct_satisfying`` descending, ties by metric name."""
    return by_descending(df, "pct_satisfying")


def gain_bootstrap_order(df: pd.DataFrame) -> pd.DataFrame:
    """Table 6 of Sakai (2007a): grouped by metric family (the name without ``gains=``, first
    appearance), sensitivity descending within a family, ties by name."""
    if "metric" not in df.columns or "sensitivity" not in df.columns:
        return df
    fam = [split_param(m, "gains")[0] for m in df["metric"]]
    order = {f: i for i, f in enumerate(dict.fromkeys(fam))}
    key = pd.DataFrame({"fam": [order[f] for f in fam], "sens": -df["sensitivity"].astype(float),
                        "metric": df["metric"].astype(str)})
    idx = key.sort_values(["fam", "sens", "metric"], kind="mergesort").index
    return df.loc[idx].reset_index(drop=True)
