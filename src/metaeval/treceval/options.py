"""trec_eval's options: the command line as its ``getopt_long`` reads it (:func:`parse`) and a
measure request ``-m name.params`` as ``meas_init.c``'s parsers read it (:func:`make_spec`)."""

from __future__ import annotations

import getopt
from typing import Any

from ..cnum import c_atof, c_atol
from .table import MEASURES, NICKNAMES, PREFERENCE_SETS, Spec, TrecEvalError

__all__ = ["USAGE", "UsageError", "parse", "make_spec"]

USAGE = ("Usage: metaeval trec_eval [-h] [-q] {-m measure}* [-c] [-n] [-J] [-l N] [-M N] [-N N] [-Z FILE] "
         "[--trec-eval-version 9|10] trec_rel_file trec_top_file [trec_top_file ...]")

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = ["help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted", "level_for_rel=",
         "nosummary", "Debug_level=", "Judged_docs_only", "Number_docs_in_coll=", "Max_retrieved_per_topic=",
         "Rel_info_format=", "Results_format=", "Output_old_results_format=", "Zscore=", "trec-eval-version="]


class UsageError(Exception):
    """Bad usage (the message; ``"help"`` / ``"version"`` for those requests)."""


def parse(argv) -> dict:
    """The options of ``argv`` (``q c n J l M N Z version args specs``: ``specs`` the requested
    measures' :class:`Spec` in trec_eval's printing order); :class:`UsageError` on bad usage."""
    try:
        opts, args = getopt.gnu_getopt(argv, _SHORT, _LONG)
    except getopt.GetoptError as e:
        raise UsageError(f"{e.msg}") from None
    o: dict[str, Any] = {"q": False, "c": False, "n": False, "J": False, "l": 1, "M": None, "N": 0, "Z": None, "version": 10, "marks": [], "args": []}
    for k, v in opts:
        if k in ("-h", "--help"):
            raise UsageError("help")
        if k in ("-v", "--version"):
            raise UsageError("version")
        if k in ("-q", "--query_eval_wanted"):
            o["q"] = True
        elif k in ("-m", "--measure"):
            o["marks"].append(v)
        elif k in ("-c", "--complete_rel_info_wanted"):
            o["c"] = True
        elif k in ("-l", "--level_for_rel"):
            o["l"] = _atol(v)
        elif k in ("-n", "--nosummary"):
            o["n"] = True
        elif k in ("-D", "--Debug_level"):
            raise UsageError("-D (debug output) is not supported by metaeval trec_eval")
        elif k in ("-J", "--Judged_docs_only"):
            o["J"] = True
        elif k in ("-N", "--Number_docs_in_coll"):
            o["N"] = _atol(v)
        elif k in ("-M", "--Max_retrieved_per_topic"):
            o["M"] = _atol(v)
            if o["M"] < 0:                          # trec_eval 10.0 crashes on it
                raise UsageError(f"-M {v}: the number of documents per topic must be >= 0")
        elif k in ("-R", "--Rel_info_format"):
            if v in ("prefs", "qrels_prefs", "qrels_jg"):
                raise UsageError(f"-R {v}: preference and judgment-group formats are not supported by "
                             f"metaeval trec_eval (only -R qrels)")
            if v != "qrels":
                raise UsageError(f"Illegal rel_format '{v}'")
        elif k in ("-T", "--Results_format"):
            if v != "trec_results":
                raise UsageError(f"Illegal retrieval results format '{v}'")
        elif k in ("-o", "--Output_old_results_format"):
            pass                                    # obsolete in trec_eval, no effect
        elif k in ("-Z", "--Zscore"):
            o["Z"] = v
        elif k == "--trec-eval-version":
            if v not in ("9", "10"):
                raise UsageError(f"--trec-eval-version {v}: expected 9 or 10")
            o["version"] = int(v)
    if len(args) < 2:
        raise UsageError("expected QRELS and at least one RUN")
    o["args"] = args
    # measures (trec_eval.c mark_measure): nicknames, then single names; parameters: first given wins
    marks = o["marks"] or ["official"]
    marked: set[str] = set()
    params: dict[str, str] = {}
    for m in marks:
        name, dot, par = m.partition(".")
        if dot:
            if par == "":
                raise UsageError(f"improper measure in parameter '{name}'")
            params.setdefault(name, par)
        if name in PREFERENCE_SETS or name.startswith("prefs_") or name in ("map_avgjg", "P_avgjg",
                                                                            "Rprec_mult_avgjg", "yaap"):
            raise UsageError(f"measure '{name}' needs the preference or judgment-group formats, which "
                         f"metaeval trec_eval does not support")
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in MEASURES:
            marked.add(name)
        else:
            raise UsageError(f"illegal measure '{m}'")
    try:
        o["specs"] = [make_spec(n, params.get(n)) for n in MEASURES if n in marked]
    except TrecEvalError as e:
        raise UsageError(f"{e} -- trec_eval: Cannot initialize the measure") from None
    return o


def _atol(s: str) -> int:
    return c_atol(s.encode())


def _atof(s: str) -> float:
    return c_atof(s.encode())


def make_spec(name: str, params: str | None = None) -> Spec:
    """A :class:`Spec` from trec_eval's ``-m name.params`` (``meas_init.c``'s parsers); refusals
    raise :class:`TrecEvalError` with trec_eval's reason."""
    info = MEASURES[name]
    if params is None:
        if info.kind == "p_pair":
            return Spec(name)
        return Spec(name, tuple(info.default))
    if params == "":
        raise TrecEvalError(f"improper measure in parameter '{name}'")
    k = info.kind
    if k == "cut_long":
        cuts = sorted(_atol(p) for p in params.split(","))
        if cuts[0] <= 0:
            raise TrecEvalError(f"Negative cutoff detected (measure '{name}')")
        if len(set(cuts)) != len(cuts):
            raise TrecEvalError(f"duplicate cutoffs detected (measure '{name}')")
        return Spec(name, tuple(cuts), (), params)
    if k == "cut_double":
        dcuts = sorted(_atof(p) for p in params.split(","))
        if len(set(dcuts)) != len(dcuts):
            raise TrecEvalError(f"duplicate cutoffs detected (measure '{name}')")
        return Spec(name, tuple(dcuts), (), params)
    if k == "p_double":
        vals = tuple(_atof(p) for p in params.split(","))
        if name == "utility" and len(vals) != 4:
            raise TrecEvalError("improper number of coefficients (measure 'utility' takes 4)")
        return Spec(name, vals, (), params)
    # p_pair: name=value,name=value (get_param_pairs)
    last, ok = ",", True
    for ch in params:
        if ch == ",":
            if last == ",":
                ok = False
                break
            last = ","
        elif ch == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if not ok or last != "=":
        raise TrecEvalError(f"malformed pair parameters in '{params}'")
    pairs = []
    for item in params.split(","):
        k2, _, v = item.partition("=")
        pairs.append((k2, _atof(v)))
    return Spec(name, (), tuple(pairs), params)
