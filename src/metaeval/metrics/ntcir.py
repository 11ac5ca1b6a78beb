"""``ntcir_eval compute`` output: the measure list in NTCIREVAL's printing order, the ``#`` header
values, and line formatting (``TOPIC METRIC=<pad>VALUE``, values ``%.4f``).

The order and names follow the NTCIREVAL version that produced ``shared/data/*/reference/ntcireval``
(later than the 2011 version of Sakai (2011) Fig. 1: it prints ``Prec@l`` where Fig. 1 prints ``P@l``,
drops the graded-uniform NCU lines and adds NCUrb,IE, EBR, iRBU, nRBP@l, nEBR@l, niRBU@l, and the
cutoff versions of the NCUrb measures).  :func:`ntcir_measures_2011` gives Fig. 1's list.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from ..collection import Collection
from .context import EvalContext
from .evaluate import evaluate
from .registry import Measure, parse_measure

__all__ = ["ntcir_measures", "ntcir_measures_2011", "ntcir_header", "format_ntcir_line",
           "format_ntcir_header", "ntcir_report", "NTCIR_PAD"]

NTCIR_PAD = 21          # "NAME=" is left-justified in 21 columns, then the value

_TOP = ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUrb,P", "NCUrb,BR",
        "NCUrb,IE", "RBP", "ERR", "EBR", "iRBU"]
_CUT = ["AP", "Q", "NCUrb,P", "NCUrb,BR", "NCUrb,IE", "nDCG", "MSnDCG", "Prec", "RBP", "nRBP",
        "ERR", "nERR", "EBR", "nEBR", "iRBU", "niRBU", "Hit"]
_BPREF = ["bpref", "bpref_R", "bpref_N", "bpref_relative", "rpref_N", "rpref_relative",
          "rpref_relative2"]

_TOP_2011 = ["RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUgu,P", "NCUgu,BR",
             "NCUrb,P", "NCUrb,BR", "RBP", "ERR"]
_CUT_2011 = ["AP", "Q", "nDCG", "MSnDCG", "Prec", "nERR", "Hit"]

DEFAULT_CUTOFFS = (1000,)


def _with(base: str, cutoff: int | None, params: dict) -> Measure:
    m = parse_measure(base if cutoff is None else f"{base}@{cutoff}")
    d = m.definition
    own = tuple(sorted((k, v) for k, v in params.items() if k in d.params and v is not None
                       and v != d.params[k].default))
    return Measure(m.base, m.cutoff, own)


def ntcir_measures(cutoffs: Iterable[int] = DEFAULT_CUTOFFS, *, condensed: bool = False,
                   **params) -> list[Measure]:
    """The measures ``ntcir_eval compute -cutoffs ...`` prints, in its order.

    ``condensed=True`` appends the bpref family (``compute -j``).  ``params`` (``beta``, ``gamma``,
    ``persistence`` for RBP, ``rbu`` for NCUrb,IE/iRBU, ``logb``) are applied to every measure that
    takes them, like NTCIREVAL's command-line options.
    """
    rbu = params.pop("rbu", None)
    out = [_measure(b, None, params, rbu) for b in _TOP]
    for l in cutoffs:
        out += [_measure(b, int(l), params, rbu) for b in _CUT]
    if condensed:
        out += [_measure(b, None, params, rbu) for b in _BPREF]
    return out


def ntcir_measures_2011(cutoffs: Iterable[int] = DEFAULT_CUTOFFS, *, condensed: bool = False,
                        **params) -> list[Measure]:
    """The 2011 list of Sakai (2011) Fig. 1 (``P@l`` there is our ``Prec@l``)."""
    out = [_measure(b, None, params, None) for b in _TOP_2011]
    for l in cutoffs:
        out += [_measure(b, int(l), params, None) for b in _CUT_2011]
    if condensed:
        out += [_measure(b, None, params, None) for b in _BPREF]
    return out


def _measure(base: str, cutoff, params: dict, rbu) -> Measure:
    p = dict(params)
    if base in ("NCUrb,IE", "iRBU", "niRBU"):
        p["persistence"] = rbu
    return _with(base, cutoff, p)


def ntcir_header(ctx: Collection | EvalContext) -> dict[str, np.ndarray]:
    """The ``#`` header values per (run, topic): ``syslen``, ``jrel``, ``jnonrel``, ``r1``, ``rp``.

    ``r1`` is the rank of the first relevant document, ``rp`` the preferred rank (the first
    document of the highest level present in the list, Sakai (2007a) Sec. 3.3); both are 0 when the
    list holds no relevant document, as NTCIREVAL prints them.
    """
    ctx = ctx if isinstance(ctx, EvalContext) else EvalContext(ctx)
    c = ctx.collection
    shape = c.lengths.shape
    return {
        "syslen": np.asarray(c.lengths, dtype=np.int64),
        "jrel": np.broadcast_to(c.n_relevant.astype(np.int64)[None, :], shape),
        "jnonrel": np.broadcast_to(c.level_counts[:, 0].astype(np.int64)[None, :], shape),
        "r1": np.asarray(ctx.first_rel_rank, dtype=np.int64),
        "rp": np.asarray(ctx.preferred_rank, dtype=np.int64),
    }


def format_ntcir_line(prefix: str, name: str, value: float) -> str:
    """``PREFIX NAME=<pad>VALUE`` exactly as ``ntcir_eval`` prints it (``%.4f``)."""
    return f"{prefix} " + f"{name}=".ljust(NTCIR_PAD) + "%.4f" % float(value)   # noqa: UP031 - C's printf


def format_ntcir_header(prefix: str, syslen: int, jrel: int, jnonrel: int, r1: int, rp: int) -> list[str]:
    return [f"{prefix} # syslen={int(syslen)} jrel={int(jrel)} jnonrel={int(jnonrel)}",
            f"{prefix} # r1={int(r1)} rp={int(rp)}"]


def ntcir_report(collection: Collection | EvalContext, measures: Sequence[Measure | str] | None = None,
                 gains=None, *, run: int | str = 0, topics: Sequence[int] | None = None,
                 prefix=None, names=None, values: dict | None = None) -> Iterator[str]:
    """Lines of one run's ``.nev`` file (NTCIREVAL ``compute`` per topic, concatenated).

    ``prefix(topic) -> str`` is the per-line prefix (default: the topic id, like NTCIREVAL's
    ``NTCIR-eval`` script passing ``-out TID``); ``names`` maps a measure to its printed name
    (default :attr:`Measure.ntcir_name`); ``values`` may pass precomputed ``evaluate`` results.
    """
    ctx = collection if isinstance(collection, EvalContext) else EvalContext(collection, gains)
    c = ctx.collection
    r = c.runs.index(run) if isinstance(run, str) else int(run)
    ms = [parse_measure(m) for m in (measures if measures is not None else ntcir_measures())]
    vals = values if values is not None else evaluate(ctx, ms)
    head = ntcir_header(ctx)
    prefix = prefix or (lambda t: t)
    names = names or (lambda m: m.ntcir_name)
    for t in (range(len(c.topics)) if topics is None else topics):
        p = prefix(c.topics[t])
        yield from format_ntcir_header(p, *(head[k][r, t] for k in ("syslen", "jrel", "jnonrel", "r1", "rp")))
        for m in ms:
            yield format_ntcir_line(p, names(m), vals[m.name][r, t])
