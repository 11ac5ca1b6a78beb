"""``metaeval trec_eval [trec_eval's options] QRELS RUN [RUN ...]``: a drop-in for trec_eval 10.0.

Prints what ``trec_eval OPTIONS QRELS RUN`` prints, byte for byte, for each RUN in turn.  Options as
trec_eval's ``getopt_long`` reads them (``-q -c -n -J -l N -M N -N N -m MEASURE[.PARAMS] -Z FILE``,
their long forms, ``-R qrels``, ``-T trec_results``); ``--trec-eval-version 9`` switches
``iprec_at_recall`` / ``11pt_avg`` to trec_eval 9.0.x's truncating recall cutoffs.  The preference
formats (``-R prefs``, ``-R qrels_prefs``, ``-R qrels_jg``) and debug output (``-D``) are refused.
Unlike trec_eval, nothing is printed when an input is rejected (the whole output is formed first).
"""

from __future__ import annotations

import getopt
import math
import sys

USAGE = ("Usage: metaeval trec_eval [-h] [-q] {-m measure}* [-c] [-n] [-J] [-l N] [-M N] [-N N] [-Z FILE] "
         "[--trec-eval-version 9|10] trec_rel_file trec_top_file [trec_top_file ...]")

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = ["help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted", "level_for_rel=",
         "nosummary", "Debug_level=", "Judged_docs_only", "Number_docs_in_coll=", "Max_retrieved_per_topic=",
         "Rel_info_format=", "Results_format=", "Output_old_results_format=", "Zscore=", "trec-eval-version="]


class _Usage(Exception):
    pass


def add_parser(sub):
    import argparse

    p = sub.add_parser("trec_eval", help="drop-in for trec_eval 10.0 (same options, same output)",
                       description=__doc__, add_help=False)
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda a: main(a.args))
    return p


def _fmt(v: float) -> str:
    if v != v:
        return ("-nan" if math.copysign(1.0, v) < 0 else "nan").rjust(6)
    return "%6.4f" % v


def _long(v: float) -> str:
    if v != v or v in (math.inf, -math.inf):
        return "-9223372036854775808"
    return str(int(v))


def _parse(argv):
    from ..metrics.treceval import MEASURES, NICKNAMES, PREFERENCE_SETS, TrecEvalError, make_spec

    try:
        opts, args = getopt.gnu_getopt(argv, _SHORT, _LONG)
    except getopt.GetoptError as e:
        raise _Usage(f"{e.msg}") from None
    o = dict(q=False, c=False, n=False, J=False, l=1, M=None, N=0, Z=None, version=10, marks=[], args=[])
    for k, v in opts:
        if k in ("-h", "--help"):
            raise _Usage("help")
        if k in ("-v", "--version"):
            raise _Usage("version")
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
            raise _Usage("-D (debug output) is not supported by metaeval trec_eval")
        elif k in ("-J", "--Judged_docs_only"):
            o["J"] = True
        elif k in ("-N", "--Number_docs_in_coll"):
            o["N"] = _atol(v)
        elif k in ("-M", "--Max_retrieved_per_topic"):
            o["M"] = _atol(v)
        elif k in ("-R", "--Rel_info_format"):
            if v in ("prefs", "qrels_prefs", "qrels_jg"):
                raise _Usage(f"-R {v}: preference and judgment-group formats are not supported by "
                             f"metaeval trec_eval (only -R qrels)")
            if v != "qrels":
                raise _Usage(f"Illegal rel_format '{v}'")
        elif k in ("-T", "--Results_format"):
            if v != "trec_results":
                raise _Usage(f"Illegal retrieval results format '{v}'")
        elif k in ("-o", "--Output_old_results_format"):
            pass                                    # obsolete in trec_eval, no effect
        elif k in ("-Z", "--Zscore"):
            o["Z"] = v
        elif k == "--trec-eval-version":
            if v not in ("9", "10"):
                raise _Usage(f"--trec-eval-version {v}: expected 9 or 10")
            o["version"] = int(v)
    if len(args) < 2:
        raise _Usage("expected QRELS and at least one RUN")
    o["args"] = args
    # measures (trec_eval.c mark_measure): nicknames, then single names; parameters: first given wins
    marks = o["marks"] or ["official"]
    marked, params = set(), {}
    for m in marks:
        name, dot, par = m.partition(".")
        if dot:
            if par == "":
                raise _Usage(f"improper measure in parameter '{name}'")
            params.setdefault(name, par)
        if name in PREFERENCE_SETS or name.startswith("prefs_") or name in ("map_avgjg", "P_avgjg",
                                                                            "Rprec_mult_avgjg", "yaap"):
            raise _Usage(f"measure '{name}' needs the preference or judgment-group formats, which "
                         f"metaeval trec_eval does not support")
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in MEASURES:
            marked.add(name)
        else:
            raise _Usage(f"illegal measure '{m}'")
    try:
        o["specs"] = [make_spec(n, params.get(n)) for n in MEASURES if n in marked]
    except TrecEvalError as e:
        raise _Usage(f"{e} -- trec_eval: Cannot initialize the measure") from None
    return o


def _atol(s: str) -> int:
    from ..io.treceval import c_atol
    return c_atol(s.encode())


def _zscores(path):
    from ..errors import InputError
    from ..io._text import tokenize
    from ..io.treceval import c_atof

    t = tokenize(path, 4, "z-score (QID MEASURE MEAN STDDEV)")
    z = {}
    for i in range(t.n):
        key = (t.token(i, 0), t.token(i, 1))
        z.setdefault(key, (c_atof(t.token(i, 2).encode()), c_atof(t.token(i, 3).encode())))
    if not z:
        raise InputError("empty z-score file", path)
    return z


def _to_z(values, name: str, topics, z, qids):
    import numpy as np

    out = np.empty(len(values))
    for t, q in enumerate(topics):
        if q not in qids:
            out[t] = -1000000.0
            continue
        ms = z.get((q, name))
        if ms is None:
            out[t] = -1000000.0
            continue
        mean, sd = ms
        v = values[t]
        if sd:
            out[t] = (v - mean) / sd
        else:
            out[t] = 0.0 if v == mean else -1000000.0
    return out


def _relstring(row, n: int, length: int) -> str:
    k = max(0, min(int(length), n))
    chars = []
    for r in row[:k].tolist():
        chars.append(">" if r > 9 else chr(48 + r) if r >= 0 else "-" if r == -1 else "." if r == -2 else "<")
    return "".join(chars)


def render(o, q, rk, run_index: int) -> list[str]:
    """The lines trec_eval prints for run ``run_index`` of the ranking ``rk``."""
    import numpy as np

    from ..metrics.treceval import compute, summary

    r = run_index
    T = len(rk.topics)
    rel = rk.rel[r]
    nret = rk.num_ret[r]
    present = rk.present[r]
    v9 = o["version"] == 9
    # trec_eval 9.0.x: without -c a qrels topic missing from the run is skipped; with -c it counts
    # in the summary (as 0) but has no per-topic lines.  10.0 prints it (-c) or stops (no -c).
    keep = present if (v9 and not o["c"]) else np.ones(T, bool)
    show = present if v9 else np.ones(T, bool)
    if not keep.all():
        rel, nret, present = rel[keep], nret[keep], present[keep]
        show = show[keep]
        T = int(keep.sum())
    topics = [t for t, k in zip(rk.topics, keep) if k]
    rel_levels = rk.rel_levels[keep]
    # topics in chunks of about 2^18 ranks: the measures' temporaries stay small
    step = max(1, (1 << 18) // max(1, rel.shape[-1]))
    res = None
    for a in range(0, T, step):
        part = compute(rel[a:a + step], nret[a:a + step], rel_levels[a:a + step], o["specs"], o["l"], o["N"],
                       o["version"])
        res = part if res is None else [(n, sp, np.concatenate([v0, v])) for (n, sp, v0), (_, _, v) in
                                        zip(res, part)]
    missing = ~present
    Z = o.get("zdata")
    zq = o.get("zqids")
    qcols: list = []              # (head, format, values) of each -q column
    final = []
    rid = rk.run_ids[r]
    pre = "Z" if Z is not None else ""
    for name, sp, vals in res:
        info = sp.info
        vals = vals.copy()
        if missing.any():
            if name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj"):
                vals[missing] = 0.0
        if Z is not None and info.printing != "runid":
            vals = _to_z(vals, name, topics, Z, zq)
        if o["q"]:
            head = f"{pre}{name:<22}\t"
            if info.printing == "double" or (info.printing == "long" and Z is not None):
                qcols.append((head, "%6.4f", vals))
            elif info.printing == "long":
                qcols.append((head, "%d", vals))
            elif info.printing == "relstring":
                L = sp.values[0] if sp.values else 10.0
                qcols.append((f"{name:<22}\t", "'%s'",
                              ['' if (missing[t] and name == 'relstring') else
                               _relstring(rel[t], int(nret[t]), int(L)) for t in range(T)]))
        if o["n"]:
            continue
        agg = info.aggregate
        if agg == "none":
            continue
        if agg == "runid":
            final.append(f"{'runid':<22}\tall\t{rid}")
            continue
        nq = T
        if agg == "num_rel":
            v = float(rk.num_rel_positive) if o["c"] else summary(vals, "sum", nq)
        else:
            v = summary(vals, agg, nq)
        if (info.printing == "long" or info.name == "num_q") and Z is None:
            final.append(f"{name:<22}\tall\t{_long(v)}")
        else:
            final.append(f"{pre}{name:<22}\tall\t{_fmt(v)}")
    return _per_topic(qcols, topics, show) + final


def _per_topic(qcols, topics, show) -> list[str]:
    """The -q lines, topic after topic: one '%' format per topic (a template of all its lines) when
    every number is finite, else line by line (C's printf spells NaN "-nan" or "nan" by its sign)."""
    if not qcols:
        return []
    import numpy as np

    num = [v for _, f, v in qcols if f != "'%s'"]
    if all(np.isfinite(v).all() for v in num):
        base = "\n".join(f"{h.replace('%', '%%')}\x01\t{f}" for h, f, _ in qcols)
        data = [v.tolist() if f == "%6.4f" else v.astype(np.int64).tolist() if f == "%d" else v
                for _, f, v in qcols]
        # a topic id never holds a byte <= 0x20 (the readers split at them): \x01 marks its place
        return [base.replace("\x01", t.replace("%", "%%")) % row
                for t, row, s in zip(topics, zip(*data), show.tolist()) if s]
    cols = []
    for h, f, v in qcols:
        if f == "%6.4f":
            cols.append([f"{h}{t}\t{_fmt(x)}" for t, x in zip(topics, v.tolist())])
        elif f == "%d":
            cols.append([f"{h}{t}\t{_long(x)}" for t, x in zip(topics, v.tolist())])
        else:
            cols.append([f"{h}{t}\t'{x}'" for t, x in zip(topics, v)])
    return [col[t] for t in range(len(topics)) if show[t] for col in cols]


def main(argv=None) -> int:
    import numpy as np

    from ..errors import InputError
    from ..io.treceval import rank_run_files, read_trec_qrels

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        o = _parse(argv)
    except _Usage as e:
        msg = str(e)
        if msg == "version":
            print("trec_eval version 10.0 (metaeval drop-in)", file=sys.stderr)
            return 0
        if msg == "help":
            print(__doc__)
            print(USAGE)
            return 0
        print(f"metaeval trec_eval: {msg}", file=sys.stderr)
        print(USAGE, file=sys.stderr)
        return 2
    try:
        qpath, runs = o["args"][0], o["args"][1:]
        q = read_trec_qrels(qpath)
        if o["Z"] is not None:
            o["zdata"] = _zscores(o["Z"])
            o["zqids"] = {k for k, _ in o["zdata"]}
        import tempfile
        out = tempfile.SpooledTemporaryFile(max_size=1 << 23, mode="w+")   # printed once all is read
        neg = np.flatnonzero(q.rel_levels().sum(1) == 0)
        for p in runs:                                  # one run at a time: memory of one run
            rk = rank_run_files(q, [p], names=[p], max_docs=o["M"], judged_only=o["J"], complete=o["c"],
                                version=o["version"])
            if not o["c"] and o["version"] == 10:
                miss = np.flatnonzero(~rk.present[0])
                if len(miss):
                    raise InputError(f"topic {rk.topics[miss[0]]} of the qrels has no result in the run "
                                     f"(trec_eval 10.0 stops here: \"result qid '{rk.topics[miss[0]]}' not "
                                     f"found\"); use -c to evaluate it as an empty ranking", p)
            ev = np.ones(len(rk.topics), bool) if o["version"] == 10 or o["c"] else rk.present[0]
            bad = [t for t in neg if ev[t]]
            if bad:
                raise InputError(f"topic {rk.topics[bad[0]]} has only negative judgments: trec_eval cannot "
                                 f"evaluate it (form_res_rels fails)", qpath)
            lines = render(o, q, rk, 0)
            if lines:
                out.write("\n".join(lines) + "\n")
            del lines, rk
    except InputError as e:
        print(f"metaeval trec_eval: error: {e}", file=sys.stderr)
        return 1
    try:
        out.seek(0)
        while block := out.read(1 << 20):
            sys.stdout.write(block)
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    finally:
        out.close()
    return 0
