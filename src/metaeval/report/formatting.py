"""Number formatting of the presentation files (Markdown/LaTeX tables); the CSVs keep the raw
values.  The rules are the papers' (Sakai (2007a), Sakai (2007b)): see docs/outputs.md."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pandas as pd

__all__ = ["is_missing", "sig_figs", "round_half_up", "format_percent", "format_tau", "fmt4",
           "fmt_short"]


def is_missing(x) -> bool:
    """None, NaN, NA and NaT are missing; anything else (including a string) is not."""
    if x is None:
        return True
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def sig_figs(x, n: int = 2) -> str:
    """Round to ``n`` significant figures, half up, keeping trailing zeros: 0.1 -> ``0.10``.

    This is the papers' rule for the estimated difference (Sakai (2007a) Fig. 7, Sakai (2007b)
    Fig. 8).
    """
    if is_missing(x):
        return "-"
    x = float(x)
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    d = Decimal(repr(x))
    exp = d.adjusted() - (n - 1)
    q = d.quantize(Decimal(1).scaleb(exp), rounding=ROUND_HALF_UP)
    if q.adjusted() > d.adjusted():          # 0.0995 -> 0.100: one digit too many
        q = d.quantize(Decimal(1).scaleb(exp + 1), rounding=ROUND_HALF_UP)
    return format(q, "f")


def round_half_up(x: float, decimals: int) -> str:
    """``x`` to ``decimals`` places, half up, on its shortest decimal repr (``inf``/``nan`` kept)."""
    if not math.isfinite(float(x)):              # t(z) = +-inf for a zero-variance pair (meta.bootstrap)
        return "inf" if float(x) > 0 else ("-inf" if float(x) < 0 else "nan")
    q = Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return format(q, "f")


def format_percent(pct, *, integer: bool = False) -> str:
    """A percentage (0-100) as the papers print it: ``56%``; below 10 one decimal (``5.6%``).

    ``integer=True`` always rounds to whole percent (Tables 2-3 of Sakai (2007b): ``35/435 = 8%``).
    """
    if is_missing(pct):
        return "-"
    pct = float(pct)
    if integer or abs(pct) >= 9.95 or pct == 0:
        return round_half_up(pct, 0) + "%"
    return round_half_up(pct, 1) + "%"


def format_tau(x) -> str:
    """Kendall's tau as in the papers: 4 decimals, no leading zero (``.8575``, ``-.1234``)."""
    if is_missing(x):
        return "-"
    s = round_half_up(float(x), 4)
    if s.startswith("0."):
        return s[1:]
    if s.startswith("-0."):
        return "-" + s[2:]
    return s


def fmt4(x) -> str:
    """A generic cell: floats to 4 decimals, integers and booleans as they are, ``-`` if missing."""
    if is_missing(x):
        return "-"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return round_half_up(float(x), 4) if math.isfinite(float(x)) else str(float(x))
    return str(x)


def fmt_short(x) -> str:
    """A bin edge / fuzziness value: plain shortest form (0.01, 0.2)."""
    if is_missing(x):
        return "-"
    x = float(x)
    return round_half_up(x, 2) if x == round(x, 2) else repr(x)
