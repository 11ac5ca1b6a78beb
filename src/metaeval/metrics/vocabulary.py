"""ir_measures' names (ir_measures 0.4.3, MacAvaney et al. 2022) as canonical measures.

A measure name is read in one of two vocabularies (:data:`~metaeval.metrics.registry.VOCABULARIES`):
``"ntcireval"`` -- the canonical names, NTCIREVAL's meanings -- or ``"ir_measures"``, where a name
means what ``ir_measures.iter_calc`` computes with its default providers (pytrec_eval, i.e.
trec_eval; gdeval; cwl_eval; its own Python code for Judged, Compat and RR@k).  :data:`IR_MEASURES`
maps every ir_measures name onto the canonical measure that gives the same values:

* where ir_measures' measure *is* an NTCIREVAL measure on the same ranked list (AP, P@k, RR, RR@k,
  Rprec, Success@k = Hit@k, Bpref = bpref on the condensed list) the canonical name is NTCIREVAL's,
  with ``rel=``;
* where trec_eval computes it and NTCIREVAL has nothing equal (AP@k = ``map_cut``, nDCG@k =
  ``ndcg_cut``, R@k, NumRet, IPrec, SetP, infAP, ...) it is the trec_eval family's ``trec.NAME``;
* where another provider computes it, a measure of :mod:`metaeval.metrics.irm` named after it
  (``gdeval.ERR@20``, ``gdeval.nDCG@10``, ``irm.RBP(p=0.8,rel=2)``, ``Judged@10``, ``Compat``).

A name is *ambiguous* when NTCIREVAL uses it for another measure (``nDCG@10``, ``AP@100``,
``ERR@20``, ``RBP``): it is read with ir_measures' meaning only in vocabulary ``"ir_measures"``.
Every other ir_measures name (``R@1000``, ``Judged@10``, ``nDCG(dcg='exp-log2')@10``,
``RBP(p=0.8,rel=2)``, ``NumRet``, ...) reads the same in both vocabularies.  The canonical name a
name resolves to is a fixed point in vocabulary ``"ntcireval"``, so it always shows which measure
is meant.  ``docs/metrics.md`` has the table.
"""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass
from collections.abc import Callable

from .names import parse_bool

__all__ = ["IrName", "IR_MEASURES", "translate"]

Items = list[tuple[str, Any]]


@dataclass(frozen=True)
class IrName:
    """One ir_measures name: its provider in ir_measures 0.4.3's default pipeline, the rule turning
    it into a canonical name, and when NTCIREVAL's reading of the same text differs."""
    name: str
    provider: str
    convert: Callable[[str, dict, str | None], tuple[str, Items, str | None]]
    ambiguous: Callable[[dict, str | None], bool] = lambda p, c: False
    doc: str = ""


def _same(base: str, drop: tuple[str, ...] = ()):
    def conv(text, params, cutoff):
        return base, [(k, v) for k, v in params.items() if k not in drop], cutoff
    return conv


def _ap(text, params, cutoff):
    return ("AP" if cutoff is None else "trec.map_cut"), list(params.items()), cutoff


def _ndcg(text, params, cutoff):
    p = dict(params)
    dcg = str(p.pop("dcg", "log2"))
    if dcg == "exp-log2":
        if cutoff is None:
            raise ValueError(f"measure {text!r}: ir_measures computes nDCG(dcg='exp-log2') with gdeval, "
                             f"which needs a cutoff, e.g. nDCG(dcg='exp-log2')@10")
        return "gdeval.nDCG", list(p.items()), cutoff
    if dcg != "log2":
        raise ValueError(f"measure {text!r}: dcg must be 'log2' or 'exp-log2', got {dcg!r}")
    if "gains" in p:
        raise ValueError(f"measure {text!r}: ir_measures' gains={{...}} mapping is not supported; "
                         f"give the trec_eval family's trec.ndcg with its gains parameter")
    return ("trec.ndcg" if cutoff is None else "trec.ndcg_cut"), list(p.items()), cutoff


def _ndcg_ambiguous(params, cutoff):
    return "dcg" not in params                  # NTCIREVAL's nDCG has no dcg parameter


def _bpref(text, params, cutoff):
    # trec_eval's bpref skips unjudged documents: NTCIREVAL's bpref on the condensed list
    if cutoff is not None:
        raise ValueError(f"measure {text!r}: Bpref takes no cutoff")
    p = dict(params)
    p["judged_only"] = True
    return "bpref", list(p.items()), None


def _numret(text, params, cutoff):
    if "rel" in params:
        return "trec.num_rel_ret", list(params.items()), cutoff
    return "trec.num_ret", list(params.items()), cutoff


def _iprec(text, params, cutoff):
    if cutoff is None:
        raise ValueError(f"measure {text!r}: IPrec needs a recall level, e.g. IPrec@0.1")
    # ir_measures computes it with pytrec_eval, i.e. trec_eval 9.0.x, whose recall levels differ
    # from 10.0's (docs/metrics.md, the trec_eval family)
    return "trec.iprec_at_recall", list(params.items()) + [("recall", cutoff), ("version", "9")], None


def _setp(text, params, cutoff):
    p = dict(params)
    relative = parse_bool(p.pop("relative", "False"))
    return ("trec.set_relative_P" if relative else "trec.set_P"), list(p.items()), cutoff


def _rbp(text, params, cutoff):
    if "rel" not in params:
        raise ValueError(f"measure {text!r}: ir_measures computes RBP with cwl_eval, which needs rel= "
                         f"(binary relevance), e.g. RBP(p=0.8,rel=2); NTCIREVAL's graded RBP is "
                         f"'RBP' in vocabulary ntcireval")
    return "irm.RBP", list(params.items()), cutoff


def _rbp_ambiguous(params, cutoff):
    return "p" not in params and "rel" not in params      # NTCIREVAL's RBP has neither


def _err(text, params, cutoff):
    if cutoff is None:
        raise ValueError(f"measure {text!r}: ir_measures computes ERR with gdeval, which needs a cutoff, "
                         f"e.g. ERR@20")
    return "gdeval.ERR", list(params.items()), cutoff


def _always(p, c):
    return True


def _with_cutoff(p, c):
    return c is not None


_ENTRIES = [
    IrName("AP", "pytrec_eval", _ap, _with_cutoff,
           "AP = trec_eval map = NTCIREVAL AP; AP@k = trec_eval map_cut (divides by R, NTCIREVAL's AP@k by min(k,R))"),
    IrName("MAP", "pytrec_eval", _ap, _with_cutoff, "alias of AP"),
    IrName("P", "pytrec_eval", _same("Prec"), doc="trec_eval P_k = NTCIREVAL Prec@k"),
    IrName("Precision", "pytrec_eval", _same("Prec"), doc="alias of P"),
    IrName("R", "pytrec_eval", _same("trec.recall"), doc="trec_eval recall_k"),
    IrName("Recall", "pytrec_eval", _same("trec.recall"), doc="alias of R"),
    IrName("RR", "pytrec_eval (no cutoff) / msmarco (RR@k)", _same("RR"),
           doc="trec_eval recip_rank = NTCIREVAL RR; RR@k as MS MARCO's MRR@k (0 past rank k)"),
    IrName("MRR", "pytrec_eval / msmarco", _same("RR"), doc="alias of RR"),
    IrName("nDCG", "pytrec_eval (dcg='log2') / gdeval (dcg='exp-log2')", _ndcg, _ndcg_ambiguous,
           "trec_eval ndcg / ndcg_cut (gains = levels, log2(r+1)); dcg='exp-log2': gdeval's nDCG@k"),
    IrName("NDCG", "pytrec_eval / gdeval", _ndcg, _ndcg_ambiguous, "alias of nDCG"),
    IrName("Rprec", "pytrec_eval", _same("R-prec"), doc="trec_eval Rprec = NTCIREVAL R-prec"),
    IrName("RPrec", "pytrec_eval", _same("R-prec"), doc="alias of Rprec"),
    IrName("Bpref", "pytrec_eval", _bpref, doc="trec_eval bpref = NTCIREVAL bpref on the condensed list"),
    IrName("BPref", "pytrec_eval", _bpref, doc="alias of Bpref"),
    IrName("infAP", "pytrec_eval", _same("trec.infAP"), doc="trec_eval infAP"),
    IrName("Judged", "judged", _same("Judged"), doc="share of judged documents in the top k"),
    IrName("Success", "pytrec_eval", _same("Hit"), doc="trec_eval success_k = NTCIREVAL Hit@k"),
    IrName("NumRet", "pytrec_eval", _numret, doc="trec_eval num_ret; NumRet(rel=r) is num_rel_ret"),
    IrName("NumRelRet", "pytrec_eval", _same("trec.num_rel_ret"), doc="trec_eval num_rel_ret"),
    IrName("NumRel", "pytrec_eval", _same("trec.num_rel"), doc="trec_eval num_rel"),
    IrName("NumQ", "pytrec_eval", _same("trec.num_q"), doc="trec_eval num_q"),
    IrName("IPrec", "pytrec_eval", _iprec,
           doc="trec_eval 9.0.x's iprec_at_recall (pytrec_eval; the @ value is the recall level)"),
    IrName("SetP", "pytrec_eval", _setp, doc="trec_eval set_P; SetP(relative=True) is set_relative_P"),
    IrName("SetRelP", "pytrec_eval", _same("trec.set_relative_P"), doc="trec_eval set_relative_P"),
    IrName("SetR", "pytrec_eval", _same("trec.set_recall"), doc="trec_eval set_recall"),
    IrName("SetF", "pytrec_eval", _same("trec.set_F"), doc="trec_eval set_F"),
    IrName("SetAP", "pytrec_eval", _same("trec.set_map"), doc="trec_eval set_map"),
    IrName("ERR", "gdeval", _err, _always, "gdeval's ERR@k (NTCIREVAL's ERR@k differs: gains / (g_h + 1))"),
    IrName("RBP", "cwl_eval", _rbp, _rbp_ambiguous,
           "cwl_eval's binary RBP over 1000 ranks (NTCIREVAL's RBP is graded)"),
    IrName("Compat", "compat", _same("Compat"), doc="Clarke et al. (2021)'s compatibility"),
]

#: ir_measures name -> :class:`IrName`
IR_MEASURES: dict[str, IrName] = {e.name: e for e in _ENTRIES}


def translate(text, base: str, items: Items, cutoff: str | None, vocabulary: str):
    """The canonical (base, items, cutoff) of an ir_measures name, or None when ``base`` is not one
    (or is an ambiguous one read in vocabulary "ntcireval")."""
    e = IR_MEASURES.get(base)
    if e is None:
        return None
    params = {}
    for k, v in items:
        if k in params:
            raise ValueError(f"measure {text!r}: parameter {k!r} given twice")
        params[k] = v
    if vocabulary != "ir_measures" and e.ambiguous(params, cutoff):
        return None
    return e.convert(text, params, cutoff)


#: the names of ``docs/metrics.md``'s vocabulary table
EXAMPLES = ["AP", "AP(rel=2)", "AP@100", "AP(rel=2)@100", "P@10", "P(rel=2)@10", "R@1000", "R(rel=2)@1000",
            "RR", "RR(rel=2)", "RR@10", "RR(rel=2)@10", "nDCG", "nDCG@10", "nDCG(dcg='exp-log2')@10",
            "Rprec", "Bpref", "infAP", "Judged@10", "Success@10", "NumRet", "NumRel", "NumRelRet", "NumQ",
            "IPrec@0.1", "SetP", "SetR", "SetF", "ERR@20", "RBP", "RBP(p=0.8,rel=2)", "Compat(p=0.8)",
            "AP(judged_only=True)", "nDCG(judged_only=True)@10"]
