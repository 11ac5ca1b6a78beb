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


class _WorkerFailed(Exception):
    """The forked process ended without its result (anything but an input error: reported in one
    line, as an input error is)."""


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
    """``printf("%ld", (long)v)`` as x86-64 casts: LONG_MIN for NaN and values out of range."""
    if not -9223372036854775808.0 <= v < 9223372036854775808.0:
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


def _to_z(values, name: str, topics, z):
    """trec_eval's z-scores of one measure's per-topic values (``MISSING_ZSCORE_VALUE`` where the
    z-score file has no mean for the topic and measure, or a zero deviation and another value)."""
    import numpy as np

    from ..metrics.treceval import MISSING_ZSCORE_VALUE

    out = np.empty(len(values))
    for t, q in enumerate(topics):
        mean, sd = z.get((q, name), (None, None))
        v = values[t]
        if mean is None:
            out[t] = MISSING_ZSCORE_VALUE
        elif sd:
            out[t] = (v - mean) / sd
        else:
            out[t] = 0.0 if v == mean else MISSING_ZSCORE_VALUE
    return out


#: relstring's characters (m_relstring.c) of the levels -3..10 (clipped to it): levels 0..9 as
#: digits, above 9 '>', -1 (not in the qrels) '-', -2 (a negative judgment) '.', below '<'
_REL_CHARS = b"<.-0123456789>"


def _relstrings(rel, nret, missing):
    """``rs(length, blank_missing)``: one run's relstring of every topic (its first
    min(length, num_ret) ranks); a topic evaluated as an empty ranking gives '' when
    ``blank_missing``."""
    import numpy as np

    def rs(length: int, blank_missing: bool) -> list[str]:
        k = np.clip(np.minimum(length, nret), 0, None)
        w = int(k.max(initial=0))
        ch = np.frombuffer(_REL_CHARS, np.uint8)[np.clip(rel[:, :w], -3, 10) + 3]
        text = [row[:n].tobytes().decode("ascii") for row, n in zip(ch, k.tolist())]
        if blank_missing and missing.any():
            text = ["" if m else x for x, m in zip(text, missing.tolist())]
        return text
    return rs


def _values(o, rk):
    """Every requested measure of every run of ``rk`` at once: ``[(printed name, spec, values
    (runs, topics))]``, the topics in chunks of about 2^20 ranks (bounds the temporaries)."""
    import numpy as np

    from ..metrics.treceval import EMPTY_ZEROED, compute

    R, T, D = rk.rel.shape
    step = max(1, (1 << 20) // max(1, R * D))
    res = None
    for a in range(0, T, step):
        part = compute(rk.rel[:, a:a + step], rk.num_ret[:, a:a + step], rk.rel_levels[a:a + step],
                       o["specs"], o["l"], o["N"], o["version"])
        res = part if res is None else [(n, sp, np.concatenate([v0, v], axis=-1)) for (n, sp, v0), (_, _, v)
                                        in zip(res, part)]
    # trec_eval.c: on a topic evaluated as an empty ranking (-c) these are zeroed after the fact
    miss = ~rk.present
    if miss.any():
        res = [(n, sp, np.where(miss, 0.0, v) if sp.name in EMPTY_ZEROED else v) for n, sp, v in res]
    return res


def _totals(o, rk, values):
    """Every run's sequential sums of every measure over the topics (the summaries' sums), a list
    (runs) of lists (values) of floats, when every run is summarised over all the topics and
    without z-scores; else None (each summary sums its run's values)."""
    import numpy as np

    from ..metrics.treceval import totals

    if o.get("zdata") is not None or (o["version"] == 9 and not o["c"] and not rk.present.all()):
        return None
    R = rk.num_ret.shape[0]
    return np.array([totals(v) for _, _, v in values], np.float64).reshape(len(values), R).T.tolist()


def _layout(o, values):
    """What every run of a group prints, in order (the same for each): the -q columns
    ``(j, head, format, relstring (length, blank_missing) or None)`` and the summary lines
    ``(j, head, aggregate, format)`` of the values ``values[j]``."""
    Z = o.get("zdata") is not None
    pre = "Z" if Z else ""
    cols, lines = [], []
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
    newline (``values``: the runs' measures from :func:`_values`; ``sums``: their
    :func:`_totals`, as a (runs, values) list; ``layout``: :func:`_layout` of ``values``)."""
    import numpy as np

    from ..metrics.treceval import summary

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
        res = [v if sp.info.printing == "runid" else _to_z(v, name, topics, Z)
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
    by the C extension ``metaeval._trecfmt`` when it is built (and ``METAEVAL_NO_CEXT`` unset),
    else with '%' templates -- the same bytes."""
    if not qcols or not topics:
        return ""
    import numpy as np

    from ..io.treceval import c_extensions_enabled

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

try:  # the optional C line printer (setup.py builds it)
    from .. import _trecfmt as _cfmt
except ImportError:  # pragma: no cover - depends on the build
    _cfmt = None


def _rank(o, q, path):
    """One run file as trec_eval ranks it: ``(rel, num_ret, present, run_id)`` of
    :func:`metaeval.io.treceval.rank_run_file`, with the drop-in's checks: a qrels topic missing from
    the run (10.0 without ``-c``), a topic with only negative judgments (trec_eval cannot evaluate
    it)."""
    import numpy as np

    from ..errors import InputError
    from ..io.treceval import rank_run_file

    got = rank_run_file(q, path, max_docs=o["M"], judged_only=o["J"], complete=o["c"], version=o["version"])
    present = got[2]
    if not o["c"] and o["version"] == 10:
        miss = np.flatnonzero(~present)
        if len(miss):
            t = q.topics[miss[0]]
            raise InputError(f"topic {t} of the qrels has no result in the run (trec_eval 10.0 stops "
                             f"here: \"result qid '{t}' not found\"); use -c to evaluate it as an empty "
                             f"ranking", path)
    ev = np.ones(len(q.topics), bool) if o["version"] == 10 or o["c"] else present
    bad = [t for t in o["neg"] if ev[t]]
    if bad:
        raise InputError(f"topic {q.topics[bad[0]]} has only negative judgments: trec_eval cannot "
                         f"evaluate it (form_res_rels fails)", o["args"][0])
    return got


def _group_text(o, q, paths) -> str:
    """The output of a group of consecutive runs, computed as one batch."""
    from ..io.treceval import stack_rankings

    got = [_rank(o, q, p) for p in paths]
    rk = stack_rankings(q, [g[:3] for g in got], paths, [g[3] for g in got])
    values = _values(o, rk)
    sums = _totals(o, rk, values)
    layout = _layout(o, values)
    return "".join([render(o, q, rk, r, values, sums, layout) for r in range(len(paths))])


#: a group of runs computed together holds at most about this many bytes of run files (its
#: rankings, about a tenth of that, are stacked; the measures' temporaries are bounded apart)
_GROUP_BYTES = 64 << 20
#: a run file larger than this is evaluated in this process, with no second process: its scan
#: holds about three times its bytes, and two such scans at once would double the peak memory
_FORK_MAX_RUN = 16 << 20
#: below this many bytes of run files in all, the runs are evaluated in this process only
_PARALLEL_BYTES = 8 << 20


def _size(path) -> int:
    """The bytes of a run file (0 for standard input, or a file the reader will report)."""
    import os

    try:
        return os.path.getsize(path) if path != "-" else 0
    except OSError:
        return 0


def _groups(paths) -> list[list[str]]:
    """Consecutive runs in groups of at most :data:`_GROUP_BYTES` (a larger run alone)."""
    groups, cur, size = [], [], 0
    for p in paths:
        n = _size(p)
        if cur and size + n > _GROUP_BYTES:
            groups.append(cur)
            cur, size = [], 0
        cur.append(p)
        size += n
    if cur:
        groups.append(cur)
    return groups


def _halves(paths, sizes) -> int:
    """Where to split the runs in two of about equal bytes (1 <= k < len(paths))."""
    total, acc = sum(sizes), 0
    for k, n in enumerate(sizes[:-1], 1):
        acc += n
        if 2 * acc >= total:
            return k
    return len(paths) - 1


def _child(o, q, paths, fd) -> None:
    """The forked process's half: its text, or its input error, pickled into ``fd``; then exit
    without running the parent's exit handlers."""
    import os
    import pickle

    from ..errors import InputError

    code = 0
    try:
        try:
            payload = ("ok", "".join(_group_text(o, q, g) for g in _groups(paths)))
        except InputError as e:
            payload = ("input", (e.message, e.path, e.line, e.topic))
        except BaseException as e:      # noqa: BLE001 - reported by the parent
            payload = ("failed", f"{type(e).__name__}: {e}")
        with open(fd, "wb") as f:
            f.write(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    except BaseException:               # noqa: BLE001 - the parent reads an empty pipe
        code = 1
    finally:
        os._exit(code)


def _texts(o, q, paths):
    """The runs' outputs in order.  When the machine has two cores and the runs are many (at least
    :data:`_PARALLEL_BYTES` in all, none over :data:`_FORK_MAX_RUN`), the runs are split in two
    halves of about equal bytes: a forked process evaluates the second while this one evaluates
    the first; else everything is evaluated here.  Either way the groups' texts come in the runs'
    order, and an input error is the first rejected run in that order, as one process reports it."""
    import os

    from ..errors import InputError

    sizes = [_size(p) for p in paths]
    if (os.cpu_count() or 1) < 2 or len(paths) < 2 or sum(sizes) < _PARALLEL_BYTES \
            or max(sizes) > _FORK_MAX_RUN or "-" in paths or os.environ.get("METAEVAL_SERIAL"):
        for g in _groups(paths):
            yield _group_text(o, q, g)
        return
    import pickle
    import signal

    k = _halves(paths, sizes)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                        # pragma: no cover - runs in the child
        os.close(r)
        _child(o, q, paths[k:], w)
    os.close(w)
    finished = False
    try:
        for g in _groups(paths[:k]):
            yield _group_text(o, q, g)
        with open(r, "rb") as f:
            r = None
            data = f.read()
        kind, payload = pickle.loads(data) if data else ("failed", "it ended without a result")
        finished = True
        if kind == "input":
            raise InputError(*payload)
        if kind != "ok":
            raise _WorkerFailed(f"the process evaluating {paths[k]} and the runs after it failed ({payload})")
        yield payload
    finally:
        if r is not None:
            os.close(r)
        if not finished:                # an error here, or the caller stopped early
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already gone
                pass
        os.waitpid(pid, 0)


def main(argv=None) -> int:
    """The drop-in, its cyclic garbage collector paused: it makes no cycles, and its many small
    lists and tuples would otherwise start a collection every few hundred allocations."""
    import gc

    paused = gc.isenabled()
    gc.disable()
    try:
        return _main(argv)
    finally:
        if paused:
            gc.enable()


def _main(argv) -> int:
    import numpy as np

    from ..errors import InputError
    from ..io.treceval import read_trec_qrels

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
        o["neg"] = np.flatnonzero(q.rel_levels().sum(1) == 0)
        out = _Held()                   # printed once everything is read
        for text in _texts(o, q, runs):
            out.write(text)
    except (InputError, _WorkerFailed) as e:
        print(f"metaeval trec_eval: error: {e}", file=sys.stderr)
        return 1
    try:
        out.print()
    except BrokenPipeError:
        return 0
    finally:
        out.close()
    return 0


class _Held:
    """The output held until it is printed: in memory up to :attr:`LIMIT` characters, then in a
    temporary file (as :class:`tempfile.SpooledTemporaryFile`, whose module is imported only then:
    the drop-in starts faster without it)."""

    LIMIT = 1 << 23

    def __init__(self):
        self.parts, self.size, self.file = [], 0, None

    def write(self, text: str) -> None:
        if self.file is None and self.size + len(text) > self.LIMIT:
            import tempfile

            self.file = tempfile.TemporaryFile("w+")
            self.file.writelines(self.parts)
            self.parts = []
        if self.file is None:
            self.parts.append(text)
            self.size += len(text)
        else:
            self.file.write(text)

    def print(self) -> None:
        for text in self.parts:
            sys.stdout.write(text)
        if self.file is not None:
            self.file.seek(0)
            while block := self.file.read(1 << 20):
                sys.stdout.write(block)
        sys.stdout.flush()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
