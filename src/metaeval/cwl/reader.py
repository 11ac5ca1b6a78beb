"""cwl_eval's input files: gain files, result files, cost files and metrics files.

* Gain file (cwl_eval's "qrels"): ``TOPIC ITER DOCID GAIN``, GAIN a real number in
  ``[min_gain, max_gain]`` (default [0, 1]); a (topic, document) given twice keeps the last gain,
  as cwl_eval does.
* Result file: ``TOPIC ELEMENT_TYPE DOCID RANK SCORE RUN`` -- the second column is the element
  type the cost file prices.  As in cwl_eval, lines are taken in file order (RANK and SCORE are
  not used), each maximal block of consecutive lines of one topic is one ranking (a topic split
  into two blocks is two rankings), a repeated document counts twice, and a ranking is truncated to
  the depth ``n``.
* Cost file: ``ELEMENT_TYPE COST`` lines (a type given twice keeps the last cost).
* Metrics file: one ``ClassName(arg, arg, ...)`` a line (cwl_eval's syntax): an argument with a
  ``.`` is a float, otherwise an integer.  Blank lines are skipped.

Everything is parsed with the vectorised tokenizer of :mod:`metaeval.io._text`; bad input is an
:class:`InputError` naming file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..io._text import check_numeric, hash_ids, read_bytes, tokenize

__all__ = ["GainFile", "read_gain_file", "read_cost_file", "read_metrics_file", "CwlResults",
           "read_cwl_results", "cwl_arrays"]


@dataclass(frozen=True)
class GainFile:
    topics: np.ndarray      # (m,) topic ids (bytes), one per line
    docs: np.ndarray        # (m,) document ids (bytes)
    gains: np.ndarray       # (m,) float64
    lines: np.ndarray       # (m,) line numbers
    path: str


def _floats(table, col: int, what: str) -> np.ndarray:
    check_numeric(table, col, what)
    if table.n == 0:
        return np.zeros(0)
    ids = table.ids(col)
    if ids.dtype.kind == "S":
        return ids.astype(np.float64)
    return np.array([float(v) for v in ids], dtype=np.float64)


def read_gain_file(path, min_gain: float = 0.0, max_gain: float = 1.0) -> GainFile:
    """A cwl_eval gain file; a gain outside [min_gain, max_gain] (or NaN) is an error naming the line."""
    t = tokenize(path, 4, "gain file")
    g = _floats(t, 3, "gain")
    bad = np.flatnonzero(~((g >= min_gain) & (g <= max_gain)))
    if len(bad):
        i = int(bad[0])
        v = g[i]
        if v > max_gain:
            why = f"greater than the maximum ({max_gain!r}; --max_gain)"
        elif v < min_gain:
            why = f"less than the minimum ({min_gain!r}; --min_gain)"
        else:
            why = "not a number"
        raise t.error(i, f"gain value {t.token(i, 3)} {why}")
    return GainFile(t.ids(0), t.ids(2), g, t.line, str(path))


def read_cost_file(path) -> dict[bytes, float]:
    """``{element type: cost}`` from a cwl_eval cost file (costs must be finite numbers >= 0)."""
    t = tokenize(path, 2, "cost file")
    k = _floats(t, 1, "cost")
    bad = np.flatnonzero(~(np.isfinite(k) & (k >= 0)))
    if len(bad):
        i = int(bad[0])
        raise t.error(i, f"cost {t.token(i, 1)} is not a finite number >= 0")
    types = t.ids(0)
    return {bytes(e): float(c) for e, c in zip(types.tolist(), k.tolist())}


_CALL = re.compile(r"\A([A-Za-z_][A-Za-z0-9_]*)\((.*)\)\Z")


def read_metrics_file(path) -> list[tuple[int, str, tuple]]:
    """``[(line, class name, args)]`` from a cwl_eval metrics file.  A line that is not
    ``Name(args)`` or has an argument that is not a number is an error naming the line."""
    data = read_bytes(path).decode("utf-8")
    out = []
    for no, raw in enumerate(data.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        m = _CALL.match(line)
        if not m:
            raise InputError(f"malformed metric {_short(line)!r}: expected ClassName(param, ...), "
                             f"e.g. RBPCWLMetric(0.8)", path, no)
        args = []
        for val in m.group(2).split(","):
            v = val.strip()
            if v == "":
                continue
            try:
                args.append(float(v) if "." in v else int(v))
            except ValueError:
                raise InputError(f"metric {_short(line)!r}: parameter {v!r} is not a number", path,
                                 no) from None
        out.append((no, m.group(1), tuple(args)))
    return out


def _short(s: str) -> str:
    return s if len(s) <= 60 else s[:60] + "..."


@dataclass(frozen=True)
class CwlResults:
    topics: np.ndarray      # (m,) topic id of each line
    types: np.ndarray       # (m,) element type
    docs: np.ndarray        # (m,) document id
    path: str


def read_cwl_results(path) -> CwlResults:
    t = tokenize(path, 6, "result file")
    return CwlResults(t.ids(0), t.ids(1), t.ids(2), str(path))


def _common(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Integer codes of two id arrays in one code space."""
    if a.dtype.kind != b.dtype.kind:
        a, b = a.astype(object), b.astype(object)
    u, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    inv = inv.reshape(-1)
    return inv[:len(a)], inv[len(a):], len(u)


_MIX = np.uint64(0x9E3779B97F4A7C15)


def _pair_hash(topics: np.ndarray, docs: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return (hash_ids(topics) * _MIX) ^ hash_ids(docs)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind != b.dtype.kind:
        a, b = a.astype(object), b.astype(object)
    return bool(np.array_equal(a, b))


def _match(gains: GainFile, results: CwlResults):
    """For every result line, the gain of its (topic, document) in the gain file (NaN if absent;
    the last line of a repeated pair wins, as in cwl_eval's dict), and for every distinct gain-file
    topic its number of documents with a positive gain.  Pairs are matched by 64-bit hashes,
    every match verified byte for byte; a collision falls back to matching by sorting the ids."""
    qkey = _pair_hash(gains.topics, gains.docs)
    ukey, first_rev, inv = np.unique(qkey[::-1], return_index=True, return_inverse=True)
    last = len(qkey) - 1 - first_rev                             # the last line of each pair
    rep = last[inv.reshape(-1)[::-1]]                            # each line's pair representative
    if not (_same(gains.docs[rep], gains.docs) and _same(gains.topics[rep], gains.topics)):
        return None                                              # two pairs share a hash
    rkey = _pair_hash(results.topics, results.docs)
    pos = np.minimum(np.searchsorted(ukey, rkey), max(len(ukey) - 1, 0))
    found = (ukey[pos] == rkey) if len(ukey) else np.zeros(len(rkey), bool)
    i = np.flatnonzero(found)
    j = last[pos[i]]
    if not (_same(gains.docs[j], results.docs[i]) and _same(gains.topics[j], results.topics[i])):
        return None
    line_gain = np.full(len(rkey), np.nan)
    line_gain[i] = gains.gains[j]
    return line_gain


def _match_exact(gains: GainFile, results: CwlResults) -> np.ndarray:
    qt, rt, _ = _common(gains.topics, results.topics)
    qd, rd, nd = _common(gains.docs, results.docs)
    qkey = qt.astype(np.int64) * nd + qd
    rkey = rt.astype(np.int64) * nd + rd
    ukey, first_rev = np.unique(qkey[::-1], return_index=True)
    ugain = gains.gains[::-1][first_rev]
    line_gain = np.full(len(rkey), np.nan)
    if len(ukey):
        pos = np.minimum(np.searchsorted(ukey, rkey), len(ukey) - 1)
        found = ukey[pos] == rkey
        line_gain[found] = ugain[pos[found]]
    return line_gain


def _topic_rels(gains: GainFile, topics: np.ndarray) -> np.ndarray:
    """For each id in ``topics``, the number of distinct documents with a positive (last) gain."""
    qt, tt, nt = _common(gains.topics, topics)
    qd = _common(gains.docs, gains.docs[:0])[0]
    key = qt.astype(np.int64) * (int(qd.max(initial=0)) + 1) + qd
    ukey, first_rev = np.unique(key[::-1], return_index=True)
    pos_gain = gains.gains[::-1][first_rev] > 0.0
    per_topic = np.bincount((ukey // (int(qd.max(initial=0)) + 1))[pos_gain], minlength=nt)
    return per_topic[tt].astype(np.float64)


def cwl_arrays(gains: GainFile, results: CwlResults, costs: dict[bytes, float] | None, n: int):
    """The rankings of a result file as cwl_eval builds them, as arrays.

    Returns ``(block_topics, gain, cost, total_rels)``: the topic (str) of each of the B rankings
    (blocks of consecutive lines of one topic, in file order), ``gain`` (B, n) with NaN for
    unjudged documents and past the end, ``cost`` (B, n) with NaN where unknown, ``total_rels``
    (B,) the number of documents with a positive gain in the gain file for the ranking's topic."""
    m = len(results.topics)
    line_gain = _match(gains, results) if m else np.zeros(0)
    if line_gain is None:
        line_gain = _match_exact(gains, results)
    rtop = results.topics
    start = np.r_[True, rtop[1:] != rtop[:-1]] if m else np.zeros(0, bool)
    block = np.cumsum(start) - 1
    starts = np.flatnonzero(start)
    B = len(starts)
    rank = np.arange(m) - starts[block] if m else np.zeros(0, np.int64)
    keep = rank < n
    gain = np.full((B, n), np.nan)
    gain[block[keep], rank[keep]] = line_gain[keep]
    cost = np.full((B, n), np.nan)
    if costs:
        ut, tinv = np.unique(results.types, return_inverse=True)
        tcost = np.array([costs.get(bytes(e), np.nan) for e in ut.tolist()], dtype=np.float64)
        cost[block[keep], rank[keep]] = tcost[tinv.reshape(-1)][keep]
    total_rels = _topic_rels(gains, rtop[starts]) if B else np.zeros(0)
    block_topics = [bytes(x).decode("utf-8", "replace") for x in rtop[starts].tolist()]
    return block_topics, gain, cost, total_rels
