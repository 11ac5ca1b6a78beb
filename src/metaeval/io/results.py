"""Per-topic results from another tool in place of a qrels set (``metaeval judgments --results
NAME=DIR``): one ``trec_eval -q`` output per run in ``DIR``.

* A file's run is its name without the run suffixes (:func:`metaeval.io.runs.run_name`); every run
  of the judgments must have one (a missing run is an :class:`InputError` naming the folder and
  the run); files of other runs are ignored.
* Lines ``MEASURE TOPIC VALUE`` (whitespace-separated, as trec_eval prints them); the ``all``
  summary lines and the ``runid`` line are skipped; a value that is not a number is an error naming
  file and line.
* Measures keep trec_eval's printed names (``map``, ``P_10``); ``names=`` (a function, e.g.
  :func:`metaeval.treceval.names.registry_name`) maps them to other names.
"""

from __future__ import annotations

from typing import Any

from pathlib import Path

import numpy as np

from ..errors import InputError
from ..util import folder_files, is_input_file
from ._text import tokenize
from .runs import run_name

__all__ = ["LEADERBOARD_FORMATS", "Leaderboard", "read_leaderboard", "read_results"]

def _read_file(path: Path):
    t = tokenize(path, 3, "trec_eval -q results")
    meas, top = t.ids(0), t.ids(1)
    vals_b = t.ids(2)
    keep = (top != b"all") & (meas != b"runid")
    rows = np.flatnonzero(keep)
    try:
        vals = vals_b[rows].astype(np.float64)
    except ValueError:
        for r in rows.tolist():
            try:
                float(vals_b[r])
            except ValueError:
                raise t.error(r, f"value {vals_b[r].decode('utf-8', 'replace')!r} is not a number") from None
        raise
    if not len(rows):            # read as a run scoring 0 everywhere, it would move every ranking
        raise InputError("no per-topic results (an empty trec_eval -q output; expected lines MEASURE TOPIC VALUE)",
                         path)
    bad = np.flatnonzero(~np.isfinite(vals))
    if len(bad):
        raise t.error(int(rows[bad[0]]), f"value {vals_b[rows[bad[0]]].decode('utf-8', 'replace')!r} is not a "
                                          "finite number")
    m, tp = meas[rows], top[rows]
    key = np.char.add(np.char.add(m.astype(bytes), b"\0"), tp.astype(bytes))
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(same):                # a (measure, topic) given twice: the same value is a repeat, else an error
        differ = same[vals[order][1:][same] != vals[order][:-1][same]]
        if len(differ):
            first, second = order[differ[0]], order[differ[0] + 1]
            raise t.error(int(rows[second]), f"{m[second].decode('utf-8', 'replace')} of topic "
                                             f"{tp[second].decode('utf-8', 'replace')} given twice with different "
                                             f"values ({float(vals[first])!r} on line {int(t.line[rows[first]])}, "
                                             f"{float(vals[second])!r} here)")
    return m, tp, vals


def read_results(folder, runs, names=None) -> dict:
    """``{registry measure name: topic x run DataFrame}`` of the ``trec_eval -q`` files in
    ``folder`` for the runs ``runs`` (in that order); topics in string order; a topic a run's file
    lacks for a measure another run has: 0 (trec_eval's value of a topic without results)."""
    import pandas as pd

    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("results folder not found (expected one trec_eval -q output per run)", folder)
    files: dict[Any, Any] = {}
    for f in folder_files(folder, "results"):
        files.setdefault(run_name(f), f)
    missing = [r for r in runs if r not in files]
    extra = sorted(set(files) - set(runs))
    if extra and not missing:
        import warnings

        from ..errors import InputWarning

        warnings.warn(f"{folder}: {len(extra)} file(s) of runs not among the judged runs ignored (first: "
                      f"{files[extra[0]].name})", InputWarning, stacklevel=2)
    if missing:
        raise InputError(f"no trec_eval -q output for run {missing[0]}"
                         + (f" (and {len(missing) - 1} more runs)" if len(missing) > 1 else "")
                         + f": expected a file named {missing[0]}[.txt] in the folder", folder)
    parts = []
    for j, r in enumerate(runs):
        m, t, v = _read_file(files[r])
        parts.append((np.full(len(v), j), m, t, v))
    ri = np.concatenate([p[0] for p in parts])
    mb = np.concatenate([p[1].astype(object) for p in parts])
    tb = np.concatenate([p[2].astype(object) for p in parts])
    vals = np.concatenate([p[3] for p in parts])
    mu, mi = np.unique(mb, return_inverse=True)
    tu, ti = np.unique(tb, return_inverse=True)
    topics = [b.decode("utf-8") for b in tu.tolist()]
    out = {}
    for k, mname in enumerate(mu.tolist()):                   # a loop over measures, not lines
        sel = mi == k
        M = np.zeros((len(topics), len(runs)))
        present = np.zeros(len(topics), bool)
        M[ti[sel], ri[sel]] = vals[sel]
        present[ti[sel]] = True
        name = mname.decode("utf-8")
        name = names(name) if names is not None else name
        out[name] = pd.DataFrame(M[present], index=[t for t, p in zip(topics, present) if p], columns=list(runs))
    return out


# ------------------------------------------------------------------------------- leaderboards
#: the leaderboard layouts read (autojudge-base's ``LeaderboardFormat`` and two more): columns per line
LEADERBOARD_FORMATS = {
    "trec_eval": ("measure", "topic", "value"),            # trec_eval -q, one file per run (run: file name)
    "ir_measures_q": ("topic", "measure", "value"),        # ir_measures -q, one file per run
    "ir_measures": ("run", "topic", "measure", "value"),   # autojudge-base's default
    "tot": ("run", "measure", "topic", "value"),
    "rag4reports": ("topic", "run", "measure", "value"),
    "ranking": ("topic", "q0", "run", "rank", "value", "measure"),
    "jsonl": (),                                           # {"run_id", "topic_id", "measure", "value"}
    "csv": ("run", "measure", "value"),                    # means only, with that header
}
_HEADER_NAMES = {"run": {"run", "run_id", "runid", "runtag", "system"},
                 "topic": {"topic", "topic_id", "query_id", "request_id", "narrative_id", "topicid", "queryid",
                           "qid"},
                 "measure": {"measure", "metric", "eval_metric"}}


#: fields of trec_eval's and ir_measures' output that are no measures to correlate: trec_eval's counters
#: and its text fields (``runid``, ``relstring``), ir_measures' counters; left out as they are read
NOT_MEASURES = frozenset({"runid", "relstring", "num_q", "num_ret", "num_rel", "num_rel_ret",
                          "num_nonrel_judged_ret", "NumQ", "NumRet", "NumRel", "NumRelRet"})


def _not_measure(name: str) -> bool:
    """A counter or text field (:data:`NOT_MEASURES`), also with parameters (``NumRet(rel=1)``)."""
    base = name.split("(", 1)[0].split("@", 1)[0]
    return name in NOT_MEASURES or base in NOT_MEASURES


class Leaderboard:
    """``scores`` ``{measure: topic x run DataFrame}`` (topics in string order, a missing (run,
    topic) 0 as trec_eval's ``-c``); ``means_only``: one row ``"(means)"`` per measure (no per-topic
    values were given); ``fmt`` the layout read; ``skipped`` ``[(file, reason)]`` the bad files left
    out (``skip_bad``); ``all_only`` the measures given only as ``all`` lines beside per-topic ones
    (left out); ``filled`` ``{measure: {run: [topics]}}`` the (run, topic) values missing where other
    runs have the topic, scored 0."""

    def __init__(self, scores: dict, means_only: bool, fmt: str, skipped: list | None = None,
                 all_only: list | None = None, filled: dict | None = None):
        self.scores, self.means_only, self.fmt = scores, means_only, fmt
        self.skipped = list(skipped or [])
        self.all_only = list(all_only or [])
        self.filled = dict(filled or {})


def _is_number(x: str) -> bool:
    try:
        float(x)
    except ValueError:
        return False
    return True


def _sniff(path: Path, lines: list[str]) -> str:
    """The layout of one file from its name and first lines."""
    if path.suffix.lower() == ".jsonl":
        return "jsonl"
    rows = [ln.replace(",", " ").split() if path.suffix.lower() == ".csv" else ln.split()
            for ln in lines[:50] if ln.strip() and not ln.startswith("#")]
    if not rows:
        raise InputError("empty leaderboard file", path)
    if path.suffix.lower() == ".csv":
        return "csv"
    width = len(rows[0])
    head = [c.lower() for c in rows[0]]
    if not _is_number(rows[0][-1]) and width == 4:              # a header names the columns
        kinds = [next((k for k, v in _HEADER_NAMES.items() if c in v), "value") for c in head]
        for fmt, cols in LEADERBOARD_FORMATS.items():
            if len(cols) == 4 and list(cols) == kinds:
                return fmt
    if width == 3:
        if any(r[1] == "all" or r[0] in ("runid", "num_q") for r in rows):
            return "trec_eval"
        return "ir_measures_q" if _looks_measure(rows, 1) and not _looks_measure(rows, 0) else "trec_eval"
    if width == 4:                                              # the topic column: "all" rows or numbers
        for col, fmt in ((1, "ir_measures"), (2, "tot"), (0, "rag4reports")):
            if any(r[col] == "all" for r in rows):
                return fmt
        for col, fmt in ((1, "ir_measures"), (2, "tot"), (0, "rag4reports")):
            if all(r[col].isdigit() for r in rows):
                return fmt
        return "ir_measures"
    if width == 6:
        return "ranking"
    raise InputError(f"leaderboard with {width} columns: expected 3 (trec_eval -q or ir_measures -q), 4 "
                     f"(ir_measures, tot, rag4reports), 6 (ranking), a .jsonl or a .csv run,measure,value", path, 1)


def _looks_measure(rows, col: int) -> bool:
    """Every value of column ``col`` names a measure (letters first), not a number-like topic id."""
    return all(r[col][:1].isalpha() and not r[col].isdigit() for r in rows)


def _parse(path: Path, fmt: str | None):
    """``(fmt, [(line, run, topic, measure, value text)])`` of one file; run None: the file's name."""
    import json

    from ..util import open_text

    try:                                   # gzip and a byte-order mark as every reader takes them
        with open_text(path) as fh:
            text = fh.read()
    except (UnicodeDecodeError, EOFError) as e:
        raise InputError(f"cannot read: {'not UTF-8 text' if isinstance(e, UnicodeDecodeError) else e}",
                         path) from None
    lines = text.splitlines()
    fmt = _sniff(path, lines) if fmt in (None, "auto") else fmt
    out: list[tuple[int, str | None, str, str, str]] = []
    if fmt == "jsonl":
        for i, ln in enumerate(lines, 1):
            if not ln.strip():
                continue
            try:
                o = json.loads(ln)
                if not _not_measure(str(o["measure"])):
                    v = o["value"]
                    if isinstance(v, bool) or not (isinstance(v, (int, float)) or (isinstance(v, str)
                                                                                  and _is_number(v))):
                        raise InputError(f"value {json.dumps(v)[:40]} is not a number", path, i)
                    out.append((i, str(o["run_id"]), str(o["topic_id"]), str(o["measure"]), str(v)))
            except InputError:
                raise
            except (ValueError, KeyError, TypeError) as e:
                raise InputError(f"not a leaderboard JSON line (run_id, topic_id, measure, value): {e}", path,
                                 i) from None
        return fmt, out
    cols = LEADERBOARD_FORMATS[fmt]
    first = True
    for i, ln in enumerate(lines, 1):
        if not ln.strip() or ln.startswith("#"):
            continue
        parts = [p.strip() for p in ln.split(",")] if fmt == "csv" else ln.split()
        if first:
            first = False
            if fmt == "csv":
                if [p.lower() for p in parts] != ["run", "measure", "value"]:
                    raise InputError("a CSV leaderboard starts with the header run,measure,value", path, i)
                continue
            if not _is_number(parts[-1]) and len(parts) == len(cols) and fmt != "trec_eval":
                continue                                   # a header line
        if len(parts) != len(cols):
            raise InputError(f"{len(parts)} columns, expected {len(cols)} ({' '.join(cols)}: the {fmt} layout)",
                             path, i)
        f = dict(zip(cols, parts))
        if _not_measure(f["measure"]):                     # counters and text fields: no measures
            continue
        if not _is_number(f["value"]):
            raise InputError(f"value {f['value']!r} is not a number", path, i)
        out.append((i, f.get("run"), f.get("topic", "(means)"), f["measure"], f["value"]))
    return fmt, out


def read_leaderboard(path, fmt: str | None = "auto", names=None, trec_names=None,
                     skip_bad: bool = False) -> Leaderboard:
    """A leaderboard from a file or a folder of files (one per run for the per-run layouts: the
    run is the file's name without run suffixes), in any of :data:`LEADERBOARD_FORMATS` (``auto``:
    from the extension, the header and the number of columns).  ``names`` maps measure names;
    ``trec_names`` those of the ``trec_eval`` layout (e.g. to the registry's names).  Counters and
    text fields (:data:`NOT_MEASURES`) are left out.  A file that cannot be read as a leaderboard
    (empty, malformed) is an :class:`InputError` naming it (and how many others are bad), or with
    ``skip_bad`` left out and listed in ``Leaderboard.skipped``."""
    import pandas as pd

    path = Path(path)
    if path.is_dir():
        files = folder_files(path, "results")
        if not files:
            raise InputError("results folder holds no file", path)
    elif is_input_file(path):              # a file, a FIFO or <(cmd): read once
        files = [path]
    else:
        from ..util import check_input_link

        check_input_link(path, "the results")
        raise InputError("results not found (a leaderboard file or folder)", path)
    rows: list = []
    fmts = set()
    bad_files: list = []
    for f in files:
        try:
            got_fmt, got = _parse(f, fmt)
        except InputError as e:
            bad_files.append((f, e))
            continue
        fmts.add(got_fmt)
        rows += [(f, i, r if r is not None else run_name(f), t, m, v) for i, r, t, m, v in got]
    if bad_files and not skip_bad:
        first_bad: InputError = bad_files[0][1]
        more = f"; {len(bad_files) - 1} more bad file(s) in the folder" if len(bad_files) > 1 else ""
        hint = " (--skip-bad names and skips the bad files of a folder)" if path.is_dir() else ""
        raise InputError(f"{first_bad.message}{more}{hint}", first_bad.path, first_bad.line)
    if bad_files and not rows:
        raise InputError(f"no file of the folder is a leaderboard ({len(bad_files)} bad: {bad_files[0][1]})", path)
    if len(fmts) > 1:
        raise InputError(f"results mix leaderboard layouts ({', '.join(sorted(fmts))})", path)
    layout = fmts.pop()
    means_only = layout == "csv" or (bool(rows) and all(t == "all" for _f, _i, _r, t, _m, _v in rows))
    if not rows:
        raise InputError("no leaderboard values (only summary lines?)", path)
    all_only: list = []
    if layout != "csv" and not means_only:                   # per-topic values; the aggregates recomputed
        per_topic = {x[4] for x in rows if x[3] != "all"}
        all_only = sorted({x[4] for x in rows if x[3] == "all"} - per_topic)
        rows = [x for x in rows if x[3] != "all"]
    if means_only:
        rows = [(f, i, r, "(means)", m, v) for f, i, r, _t, m, v in rows]
    run_of = np.array([x[2] for x in rows], dtype=object)
    top_of = np.array([x[3] for x in rows], dtype=object)
    mea_of = np.array([x[4] for x in rows], dtype=object)
    vals = np.array([float(x[5]) for x in rows])
    bad = np.flatnonzero(~np.isfinite(vals))
    if len(bad):                             # nan/inf would reach the statistics as a number
        f, i = rows[bad[0]][0], rows[bad[0]][1]
        raise InputError(f"value {rows[bad[0]][5]!r} is not a finite number", f, i)
    runs = list(dict.fromkeys(run_of.tolist()))
    measures = list(dict.fromkeys(mea_of.tolist()))
    ri = np.array([{r: j for j, r in enumerate(runs)}[r] for r in run_of.tolist()], np.int64) if len(rows) else \
        np.zeros(0, np.int64)
    mpos = {m: j for j, m in enumerate(measures)}
    mi = np.array([mpos[m] for m in mea_of.tolist()], np.int64)
    tu, ti = np.unique(top_of.astype(str), return_inverse=True)
    key = (mi * len(tu) + ti) * len(runs) + ri
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(dup):                                             # one value per (run, topic, measure)
        a, b = rows[order[dup[0]]], rows[order[dup[0] + 1]]
        raise InputError(f"run {b[2]} topic {b[3]} measure {b[4]} given twice (also {a[0]}:{a[1]})", b[0], b[1])
    mapper = names if names is not None else (trec_names if layout == "trec_eval" else None)
    out = {}
    filled: dict = {}
    for k, mname in enumerate(measures):                     # a loop over measures, not lines
        sel = mi == k
        M = np.zeros((len(tu), len(runs)))
        M[ti[sel], ri[sel]] = vals[sel]
        given = np.zeros((len(tu), len(runs)), bool)
        given[ti[sel], ri[sel]] = True
        tp = np.asarray(given.any(axis=1), bool)
        have = np.asarray(given.any(axis=0), bool)
        name = mapper(mname) if mapper is not None else mname
        hole = ~given[tp][:, have]                           # a (run, topic) others have: 0, said
        if hole.any():
            kept_t, kept_r = [str(t) for t in tu[tp]], [r for r, h in zip(runs, have.tolist()) if h]
            filled[name] = {kept_r[j]: [kept_t[i] for i in np.flatnonzero(hole[:, j]).tolist()]
                            for j in np.flatnonzero(hole.any(axis=0)).tolist()}
        out[name] = pd.DataFrame(M[tp][:, have], index=[str(t) for t in tu[tp]],
                                 columns=[r for r, h in zip(runs, have.tolist()) if h])
    all_names = [mapper(m) if mapper is not None else m for m in all_only]
    return Leaderboard(out, means_only, layout, skipped=[(f, e.message) for f, e in bad_files], all_only=all_names,
                       filled=filled)
