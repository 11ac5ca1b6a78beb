"""What the drop-in prints: trec_eval's lines (``print_meas.c``, ``m_relstring.c``) of one run --
the -q lines topic by topic, the summary lines ("all") -- byte for byte, through the optional C line
printer ``metaeval.treceval._trecfmt`` when it is built (and ``METAEVAL_NO_CEXT`` unset), else through
'%' templates (the same bytes)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import math

import numpy as np

from ..io._cext import c_extensions_enabled
from .summaries import summary
from .zscores import to_z

__all__ = ["layout", "render"]


def _fmt(v: float) -> str:
    if math.isnan(v):
        return ("-nan" if math.copysign(1.0, v) < 0 else "nan").rjust(6)
    return "%6.4f" % v                                      # noqa: UP031 - C's printf, as trec_eval prints


def _long(v: float) -> str:
    """``printf("%ld", (long)v)`` as x86-64 casts: LONG_MIN for NaN and values out of range."""
    if not -9223372036854775808.0 <= v < 9223372036854775808.0:
        return "-9223372036854775808"
    return str(int(v))


#: relstring's characters (m_relstring.c) of the levels -3..10 (clipped to it): levels 0..9 as
#: digits, above 9 '>', -1 (not in the qrels) '-', -2 (a negative judgment) '.', below '<'
_REL_CHARS = b"<.-0123456789>"


def _relstrings(rel, nret, missing):
    """``rs(length, blank_missing)``: one run's relstring of every topic (its first
    min(length, num_ret) ranks); a topic evaluated as an empty ranking gives '' when
    ``blank_missing``."""
    def rs(length: int, blank_missing: bool) -> list[str]:
        k = np.clip(np.minimum(length, nret), 0, None)
        w = int(k.max(initial=0))
        ch = np.frombuffer(_REL_CHARS, np.uint8)[np.clip(rel[:, :w], -3, 10) + 3]
        text = [row[:n].tobytes().decode("ascii") for row, n in zip(ch, k.tolist())]
        if blank_missing and missing.any():
            text = ["" if m else x for x, m in zip(text, missing.tolist())]
        return text
    return rs



def layout(o, values):
    """What every run of a group prints, in order (the same for each): the -q columns
    ``(j, head, format, relstring (length, blank_missing) or None)`` and the summary lines
    ``(j, head, aggregate, format)`` of the values ``values[j]``."""
    Z = o.get("zdata") is not None
    pre = "Z" if Z else ""
    cols: list[tuple[int, str, str, Any]] = []
    lines: list[tuple[int, str, str, str | None]] = []
    for j, (name, sp, _) in enumerate(values):
        info = sp.info
        if o["q"]:
            head = f"{pre}{name:<22}\t"
            if info.printing == "double" or (info.printing == "long" and Z):
                cols.append((j, head, "%6.4f", None))
            elif info.printing == "long":
                cols.append((j, head, "%d", None))
            elif info.printing == "relstring":
                L = sp.values[0] if sp.values else 10.0
                cols.append((j, f"{name:<22}\t", "'%s'", (int(L), name == "relstring")))
        if o["n"] or info.aggregate == "none":
            continue
        if info.aggregate == "runid":
            lines.append((j, f"{'runid':<22}\t", "runid", None))
        elif (info.printing == "long" or info.name == "num_q") and not Z:
            lines.append((j, f"{name:<22}\t", info.aggregate, "%d"))
        else:
            lines.append((j, f"{pre}{name:<22}\t", info.aggregate, "%6.4f"))
    return cols, lines


def render(o, q, rk, run_index: int, values, sums, layout) -> str:
    """What trec_eval prints for run ``run_index`` of the ranking ``rk``, every line ending in a
    newline (``values``: the runs' measures from :func:`metaeval.treceval.evaluate.values`; ``sums``: their
    :func:`metaeval.treceval.evaluate.totals`, as a (runs, values) list; ``layout``: :func:`layout` of ``values``)."""
    cols, lines = layout
    r = run_index
    T = len(rk.topics)
    rel = rk.rel[r]
    nret = rk.num_ret[r]
    present = rk.present[r]
    v9 = o["version"] == 9
    # trec_eval 9.0.x: without -c a qrels topic missing from the run is skipped; with -c it counts
    # in the summary (as 0) but has no per-topic lines.  10.0 prints it (-c) or stops (no -c).
    keep = present if (v9 and not o["c"]) else None
    show = present if v9 else np.ones(T, bool)
    res = [v[r] for _, _, v in values]
    topics = rk.topics
    if keep is not None and not keep.all():
        rel, nret, present = rel[keep], nret[keep], present[keep]
        show = show[keep]
        T = int(keep.sum())
        res = [v[keep] for v in res]
        topics = [t for t, k in zip(topics, keep) if k]
    Z = o.get("zdata")
    if Z is not None:
        res = [v if sp.info.printing == "runid" else to_z(v, name, topics, Z)
               for (name, sp, _), v in zip(values, res)]
    qcols = []                    # (head, format, values) of each -q column
    if cols:
        rs = _relstrings(rel, nret, ~present)
        qcols = [(head, f, rs(*arg) if arg else res[j]) for j, head, f, arg in cols]
    text = _per_topic(qcols, topics, show)
    if not lines:
        return text
    total = sums[r] if sums is not None else None
    final = []                    # the summary lines but runid's, (head, format, [value])
    for j, head, agg, f in lines:
        if agg == "runid":        # trec_eval's first measure: its line comes first
            text += f"{head}all\t{rk.run_ids[r]}\n"
            continue
        tot = None if total is None else total[j]
        if agg == "num_rel":
            v = float(rk.num_rel_positive) if o["c"] else summary(res[j], "sum", T, total=tot)
        else:
            v = summary(res[j], agg, T, total=tot)
        final.append((head, f, [v]))
    return text + _per_topic(final, ["all"], np.ones(1, bool))


def _per_topic(qcols, topics, show) -> str:
    """The -q lines, topic after topic (``show``: which topics), each ending in a newline: printed
    by the C extension ``metaeval.treceval._trecfmt`` when it is built (and ``METAEVAL_NO_CEXT`` unset),
    else with '%' templates -- the same bytes."""
    if not qcols or not topics:
        return ""
    if _cfmt is not None and c_extensions_enabled():
        zero = np.zeros(len(topics))
        return _cfmt.format_lines(
            tuple([h.encode() for h, _, _ in qcols]), bytes([_KIND[f] for _, f, _ in qcols]),
            np.array([zero if f == "'%s'" else v for _, f, v in qcols], np.float64),
            tuple([tuple([x.encode() for x in v]) if f == "'%s'" else None for _, f, v in qcols]),
            tuple([t.encode() for t in topics]), np.ascontiguousarray(show, np.uint8))
    text = [j for j, (_, f, _) in enumerate(qcols) if f == "'%s'"]
    num = np.array([v for _, f, v in qcols if f != "'%s'"], dtype=np.float64).reshape(-1, len(topics))
    if (np.abs(num) < 2.0 ** 63).all():          # finite, and every '%d' within a C long
        # a topic id never holds a byte <= 0x20 (the readers split at them): \x01 marks its place
        base = "\n".join(f"{h.replace('%', '%%')}\x01\t{f}" for h, f, _ in qcols) + "\n"
        rows = num.T.tolist()            # '%d' truncates a float as the int64 cast did
        for j in text:
            for row, x in zip(rows, qcols[j][2]):
                row.insert(j, x)
        return "".join([base.replace("\x01", t.replace("%", "%%")) % tuple(row)
                        for t, row, s in zip(topics, rows, show.tolist()) if s])
    cols = []
    for h, f, v in qcols:               # the values: an array, or a list (the summary's one value)
        if f == "%6.4f":
            cols.append([f"{h}{t}\t{_fmt(x)}\n" for t, x in zip(topics, np.asarray(v, np.float64).tolist())])
        elif f == "%d":
            cols.append([f"{h}{t}\t{_long(x)}\n" for t, x in zip(topics, np.asarray(v, np.float64).tolist())])
        else:
            cols.append([f"{h}{t}\t'{x}'\n" for t, x in zip(topics, v)])
    return "".join([col[t] for t in range(len(topics)) if show[t] for col in cols])



#: the C printer's kind of each '%' format
_KIND = {"%6.4f": ord("f"), "%d": ord("d"), "'%s'": ord("s")}

def _load_cfmt() -> ModuleType | None:
    """The optional C line printer (setup.py builds it), or None."""
    try:
        from . import _trecfmt
    except ImportError:  # pragma: no cover - depends on the build
        return None
    return _trecfmt


_cfmt = _load_cfmt()

