"""trec_eval's own reading of qrels and runs, and its ranking, as arrays.

This is the input side of the trec_eval family (:mod:`metaeval.treceval`) and of the drop-in
``metaeval trec_eval``.  It follows trec_eval 10.0 (``get_qrels.c``, ``get_trec_results.c``,
``form_res_rels.c``) where it differs from the project's own readers (:mod:`metaeval.io.qrels`,
:mod:`metaeval.io.runs`):

* qrels ``TOPIC ITER DOCID REL``: exactly 4 fields; ``REL`` is read as C's ``atol`` (``"1.5"`` is 1);
  a *negative* REL marks a pooled but unjudged document (trec_eval's ``RELVALUE_UNJUDGED``, -2), not
  a judged nonrelevant one; a line starting with ``#`` is a comment (10.0); a blank line is malformed
  (``parse_qrels_line``).
* runs ``TOPIC Q0 DOCID RANK SCORE TAG [...]``: at least 6 fields (more are ignored), blank lines and
  lines whose first non-blank byte is ``#`` skipped; SCORE read as C's ``atof`` into a ``double``
  (``TEXT_RESULTS.sim``); RANK is ignored; the run id is the TAG of the last line.
* ranking (:mod:`metaeval.treceval.ranking`; ``form_res_rels.c``, ``comp_sim_docno``): score descending, ties by DOCID descending in
  byte order (``strcmp``); then ``-M`` keeps the first M; then ``-J`` drops every document that is
  not judged (levels -1 and -2).  A document retrieved twice for one topic is an error, as in
  trec_eval (``duplicate docs``), and so is a document judged twice for one topic.

Relevance values along a ranking: the judged level (>= 0), ``NONPOOL`` (-1) for a document absent from
the qrels, ``UNJUDGED`` (-2) for a negative judgment, ``PAD_REL`` past the end of the list.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..cnum import c_atof, c_atol
from ..io._text import (Table, _hash_spans, _matrix, _objects, _words, hash_rows, read_bytes,
                    tokenize)

__all__ = ["NONPOOL", "UNJUDGED", "PAD_REL", "TrecQrels", "TrecRun", "read_trec_qrels", "read_trec_run",
           "c_atol", "c_atof"]


NONPOOL = -1
UNJUDGED = -2
PAD_REL = -(2 ** 30)



def _calc_error(message: str, path, line=None) -> InputError:
    """An input error trec_eval 10.0 finds while computing a measure (``Can't calculate measure``,
    exit status 4; a malformed file is its ``Quit in file``, 2): the drop-in exits with the same
    status (``trec_eval_status``)."""
    e = InputError(message, path, line)
    e.trec_eval_status = 4
    return e

def _comment_lines_blanked(data: bytes, anywhere: bool) -> tuple[bytes, bool]:
    """``data`` with every comment line's bytes replaced by spaces (line numbers kept).  A comment
    line starts with ``#`` at column 0 (``anywhere=False``, qrels) or after leading blanks (runs)."""
    if b"#" not in data:
        return data, False
    buf = np.frombuffer(data, np.uint8).copy()
    n = len(buf)
    nl = np.flatnonzero(buf == 10)
    starts = np.r_[0, nl + 1]
    starts = starts[starts < n]
    ends = np.r_[nl, n]
    ends = ends[:len(starts)]
    if anywhere:
        # first non-blank byte of each line (blanks: bytes <= 0x20 except LF)
        nonblank = np.flatnonzero(buf > 32)
        pos = np.searchsorted(nonblank, starts)
        ok = pos < len(nonblank)
        first = np.where(ok, nonblank[np.minimum(pos, len(nonblank) - 1)], n)
        is_c = ok & (first < ends) & (buf[np.minimum(first, n - 1)] == ord("#"))
    else:
        is_c = buf[starts] == ord("#")
    if not is_c.any():
        return data, False
    mark = np.zeros(n + 1, np.int64)
    np.add.at(mark, starts[is_c], 1)
    np.add.at(mark, ends[is_c], -1)
    inside = np.cumsum(mark[:n]) > 0
    buf[inside] = 32
    return buf.tobytes(), True


@dataclass(frozen=True, eq=False)
class TrecQrels:
    """Judgments sorted by topic (byte order) then DOCID: ``topics`` (str, trec_eval's order),
    ``topic_index``/``docs``/``rel`` (int64, negative kept) per judgment, ``lines`` for messages."""
    path: str
    topics: tuple[str, ...]
    topic_bytes: np.ndarray
    topic_index: np.ndarray
    docs: np.ndarray
    rel: np.ndarray
    lines: np.ndarray

    def rel_levels(self) -> np.ndarray:
        """(topics, max_rel + 1) int64: judged documents per level >= 0 (``form_res_rels.c``)."""
        T = len(self.topics)
        ok = self.rel >= 0
        H = int(self.rel[ok].max(initial=0))
        return np.bincount(self.topic_index[ok] * (H + 1) + self.rel[ok],
                           minlength=T * (H + 1)).reshape(T, H + 1)

    def num_rel_positive(self) -> int:
        """Judgments with REL > 0 over all topics (the ``-c`` summary of ``num_rel``, m_num_rel.c)."""
        return int((self.rel > 0).sum())


def _table(path: str, what: str, ncols, anywhere: bool, data: bytes | None = None):
    data = read_bytes(path) if data is None else data
    data, _had = _comment_lines_blanked(data, anywhere)
    return tokenize(path, ncols, what, data=data), data


def read_trec_qrels(path: str | os.PathLike) -> TrecQrels:
    """Read a qrels file as trec_eval 10.0 does (module docstring)."""
    path = str(path)
    raw = read_bytes(path)
    if not raw.strip():
        raise InputError("empty qrels file", path)
    t, data = _table(path, "qrels (TOPIC ITER DOCID REL)", 4, False, raw)
    # a blank line (not a comment) is malformed in trec_eval's qrels reader
    nlines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if t.n < nlines:
        seen = np.zeros(nlines + 2, bool)
        seen[t.line] = True
        _blank_c, _ = _comment_lines_blanked(raw, False)
        lines = raw.split(b"\n")
        for ln in np.flatnonzero(~seen[1:nlines + 1]) + 1:
            if not lines[ln - 1].startswith(b"#"):
                raise InputError("malformed qrels line: blank (trec_eval expects TOPIC ITER DOCID REL)",
                                 path, int(ln))
    topics = t.ids(0)
    docs = t.ids(2)
    labels = t.ids(3)
    uniq, inv = np.unique(labels, return_inverse=True)
    vals = np.array([c_atol(bytes(u)) for u in uniq.tolist()], np.int64)
    rel = vals[inv]
    tu, ti = np.unique(topics, return_inverse=True)
    o = np.lexsort((docs, ti))
    ti, docs, rel, line = ti[o], docs[o], rel[o], t.line[o]
    dup = np.flatnonzero((ti[1:] == ti[:-1]) & (docs[1:] == docs[:-1]))
    if len(dup):
        a, b = o[dup[0]], o[dup[0] + 1]
        la, lb = sorted((int(t.line[a]), int(t.line[b])))
        raise _calc_error(f"document {bytes(docs[dup[0]]).decode('utf-8', 'replace')} judged twice for topic "
                          f"{bytes(tu[ti[dup[0]]]).decode('utf-8', 'replace')} (lines {la} and {lb}); "
                          f"trec_eval refuses duplicate docs", path, lb)
    return TrecQrels(path, tuple(bytes(x).decode("utf-8") for x in tu.tolist()), tu,
                     ti.astype(np.int64), docs, rel, line)


@dataclass(frozen=True, eq=False)
class TrecRun:
    """One run's lines (comments and blank lines removed): ``topics``, ``docs`` (bytes arrays),
    ``scores`` (float64, C ``atof``), ``lines`` (1-based line numbers), ``run_id`` (last TAG)."""
    path: str
    topics: np.ndarray
    docs: np.ndarray
    scores: np.ndarray
    lines: np.ndarray
    run_id: str
    doc_hash: np.ndarray | None = None


_POW10 = np.array([10.0 ** k for k in range(23)])      # exact in double
_LD_OK = np.finfo(np.longdouble).nmant >= 63          # x87 extended or quad long double
_POW10L = np.array([10 ** k for k in range(28)], dtype=np.longdouble) if _LD_OK else None


def _fast_decimal(m: np.ndarray) -> np.ndarray:
    """Tokens ``[+-]digits[.digits][(e|E)[+-]digits]`` (zero-padded rows of ``m``) as C's strtod
    reads them, correctly rounded, without a Python call per token: the significant digits as an
    exact integer M (Horner's rule, one byte column at a time over all tokens), the power of ten j,
    and one rounding -- M * 10^j or M / 10^-j in double when both are exact there (Clinger's fast
    path: <= 15 digits, |j| <= 22), else in long double (64-bit mantissa; <= 19 digits, |j| <= 27)
    unless the result is exactly halfway between two doubles (the one case where rounding twice can
    differ from rounding once).  Other tokens give NaN: the caller parses them one by one."""
    n, _W = m.shape
    mt = np.ascontiguousarray(m.T)
    mant = np.zeros(n, np.uint64)
    nd = np.zeros(n, np.int16)            # significant digits (leading zeros not counted)
    any_d = np.zeros(n, bool)
    k = np.zeros(n, np.int16)
    started = np.zeros(n, bool)
    seen = np.zeros(n, bool)
    dots = np.zeros(n, np.int8)
    bad = np.zeros(n, bool)
    in_exp = np.zeros(n, bool)
    just_e = np.zeros(n, bool)
    eneg = np.zeros(n, bool)
    ev = np.zeros(n, np.int32)
    ned = np.zeros(n, np.int8)
    neg = mt[0] == 45
    used = mt.any(axis=1)
    width = int(np.flatnonzero(used)[-1]) + 1 if used.any() else 0     # columns past it are all zero
    exp = bool(((mt[:width] == 101) | (mt[:width] == 69)).any())      # any exponent at all
    for c in range(width):
        b = mt[c]
        d = b - np.uint8(48)                       # uint8: non-digits wrap to >= 10
        dig = d < 10
        isdot = b == 46
        if exp:
            ise = (b == 101) | (b == 69)
            esign = just_e & ((b == 45) | (b == 43))
        if c == 0:
            ok_byte = dig | isdot | (b == 45) | (b == 43)
        elif exp:
            ok_byte = dig | isdot | ise | esign | (b == 0)
        else:
            ok_byte = dig | isdot | (b == 0)
        bad |= ~ok_byte
        if exp:
            bad |= isdot & in_exp
            bad |= ise & (in_exp | ~any_d)
            eneg |= esign & (b == 45)
        md = dig & ~in_exp if exp else dig        # a digit of the mantissa
        dots += isdot
        seen |= isdot
        np.copyto(mant, mant * np.uint64(10) + d.astype(np.uint64), where=md)
        started |= md & (d > 0)
        nd += md & started
        any_d |= md
        k += md & seen
        if not exp:
            continue
        ed = dig & in_exp
        np.copyto(ev, ev * 10 + d.astype(np.int32), where=ed)
        ned += ed
        just_e = ise.copy()
        in_exp |= ise
    # a zero byte ends the token: nothing may follow it (tokens are zero-padded, never contain NUL)
    ok = ~bad & (dots <= 1) & any_d & (nd <= 19) & (~in_exp | ((ned >= 1) & (ned <= 3)))
    j = np.where(eneg, -ev, ev).astype(np.int64) - k
    out = np.full(n, np.nan)
    fast = ok & (nd <= 15) & (np.abs(j) <= 22)
    if fast.any():
        M = mant[fast].astype(np.float64)
        jj = j[fast]
        p = _POW10[np.abs(jj)]
        out[fast] = np.where(jj >= 0, M * p, M / p)
    if _LD_OK:
        slow = ok & ~fast & (np.abs(j) <= 27)
        if slow.any():
            M = mant[slow].astype(np.longdouble)
            jj = j[slow]
            assert _POW10L is not None                                 # _LD_OK
            p = _POW10L[np.abs(jj)]
            x = np.where(jj >= 0, M * p, M / p)
            dv = x.astype(np.float64)
            r = np.abs(x - dv.astype(np.longdouble)) * 2
            up = np.abs(np.nextafter(dv, np.inf) - dv).astype(np.longdouble)
            down = np.abs(dv - np.nextafter(dv, -np.inf)).astype(np.longdouble)
            half = (r != 0) & ((r == up) | (r == down))
            out[np.flatnonzero(slow)[~half]] = dv[~half]
    return np.where(neg, -out, out)


def _ids_rows(t: Table, col: int, rows) -> np.ndarray:
    """Field ``col`` of the given rows only (all rows: ``rows=None``), as :meth:`Table.ids`."""
    if rows is None:
        return t.ids(col)
    s, e = t.span(col)
    s, e = s[rows], e[rows]
    if len(s) == 0 or int((e - s).max()) <= 64:
        m = _matrix(t.buf, s, e)
        return m.view(f"S{m.shape[1]}").ravel()
    return _objects(t.buf, s, e)


def _scores(t: Table, col: int, rows=None) -> np.ndarray:
    s, e = t.span(col)
    if rows is not None:
        s, e = s[rows], e[rows]
    n = len(s)
    if n and int((e - s).max()) <= 32:
        v = _fast_decimal(_matrix(t.buf, s, e))
        bad = np.isnan(v)
        if bad.any():
            i = np.flatnonzero(bad)
            v[i] = [c_atof(bytes(t.buf[a:b])) for a, b in zip(s[i].tolist(), e[i].tolist())]
        return v
    col_ids = _ids_rows(t, col, rows)
    try:
        # float() and numpy read "1_0" as 10.0 (digit separators); C's atof stops at "_"
        if (np.char.find(col_ids, b"_") >= 0).any() if col_ids.dtype.kind == "S" else \
                any(b"_" in x for x in col_ids.tolist()):
            raise ValueError
        if col_ids.dtype.kind == "S":
            return col_ids.astype(np.float64)
        return np.array([float(x) for x in col_ids.tolist()], np.float64)
    except ValueError:
        uniq, inv = np.unique(col_ids, return_inverse=True)
        return np.array([c_atof(bytes(u)) for u in uniq.tolist()], np.float64)[inv]


def _general_run_table(path: str, data: bytes) -> tuple[list, np.ndarray]:
    """Slow path for runs with more than 6 fields on some line: fields 0..5 of every line."""
    rows, lines = [], []
    for i, line in enumerate(data.split(b"\n"), 1):
        f = line.split()
        if not f:
            continue
        if len(f) < 6:
            raise InputError(f"malformed run line: {len(f)} fields, trec_eval expects at least 6 "
                             f"(TOPIC Q0 DOCID RANK SCORE TAG)", path, i)
        rows.append(f[:6])
        lines.append(i)
    return rows, np.array(lines, np.int64)


_CHUNK = 1 << 21          # bytes of run text tokenised at a time (bounds the temporaries)


def _raw_bytes(path: str) -> bytes:
    from ..io._text import read_raw_bytes
    if path == "-":                        # trec_eval 10.0 reads the results from stdin given "-"
        import sys
        return sys.stdin.buffer.read()
    return read_raw_bytes(path)


def _pieces(raw: bytes):
    """``raw`` in pieces of whole lines (about :data:`_CHUNK` bytes each), a leading UTF-8
    byte-order mark dropped."""
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    pos = 0
    while pos < len(raw):
        end = raw.find(b"\n", min(pos + _CHUNK, len(raw)))
        end = len(raw) if end < 0 else end + 1
        yield raw[pos:end]
        pos = end


def _chunks(path: str):
    """The file's bytes in pieces of whole lines (about :data:`_CHUNK` bytes each), read as they are
    needed from the one open file; gzip input, stdin and streams (a FIFO, ``<(cmd)``: read once,
    :func:`metaeval.util.source_bytes`) are read whole first.  A leading UTF-8 byte-order mark is
    dropped."""
    import stat

    from ..util import gunzip
    try:
        regular = path != "-" and stat.S_ISREG(os.stat(path).st_mode)
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path) from None
    if not regular:
        yield from _pieces(_raw_bytes(path))
        return
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed by the with below (open's error named first)
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path) from None
    with fh:
        if fh.read(2) == b"\x1f\x8b":     # gzip: the same open file read whole
            fh.seek(0)
            try:
                raw = gunzip(fh.read())
            except (OSError, EOFError, ValueError) as e:
                raise InputError(f"corrupt gzip data: {e}", path) from None
            yield from _pieces(raw)
            return
        fh.seek(0)
        first = True
        rest = b""
        while True:
            block = fh.read(_CHUNK)
            if not block:
                break
            block = rest + block
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                rest = block
                continue
            piece, rest = block[:cut], block[cut:]
            if first and piece.startswith(b"\xef\xbb\xbf"):
                piece = piece[3:]
            first = False
            yield piece
        if rest:
            if first and rest.startswith(b"\xef\xbb\xbf"):
                rest = rest[3:]
            yield rest


def _run_chunk(path, data: bytes, line0: int, topics):
    """Fields of one chunk of whole lines: (topics, docs, scores, lines, hashes, last tag) or None
    when a line has more than 6 fields (the caller then reads the file the slow way)."""
    from ..io._text import check_text
    try:
        if not data.isascii() or b"\0" in data:      # ASCII without NUL: nothing to check
            data = check_text(data, path)
    except InputError as e:
        raise InputError(e.message, path, None if e.line is None else e.line + line0) from None
    data, _ = _comment_lines_blanked(data, True)
    try:
        t = tokenize(path, 6, "TREC run (TOPIC Q0 DOCID RANK SCORE TAG)", data=data)
    except InputError as e:
        if "fields" in e.message and "found" in e.message:
            return None
        raise InputError(e.message, path, None if e.line is None else e.line + line0) from None
    if t.n == 0:
        return "empty"
    rows = None
    tb = t.ids(0)
    if topics is not None and len(topics) and tb.dtype.kind == "S" and topics.dtype.kind == "S":
        starts = np.flatnonzero(np.r_[True, tb[1:] != tb[:-1]])          # blocks of one topic
        bv = tb[starts]
        pos = np.searchsorted(topics, bv)
        kb = topics[np.minimum(pos, len(topics) - 1)] == bv
        keep = np.repeat(kb, np.diff(np.r_[starts, len(tb)]))
        if not keep.all():
            rows = np.flatnonzero(keep)
            tb = tb[rows]
    line = (t.line if rows is None else t.line[rows]) + line0
    ds, de = t.span(2)
    if rows is not None:
        ds, de = ds[rows], de[rows]
    if len(ds) and int((de - ds).max()) <= 64:
        w = _words(t.buf, ds, de)                      # one gather for the ids and their hashes
        docs = w.view(np.uint8).reshape(len(ds), -1).view(f"S{8 * w.shape[1]}").ravel()
        h = hash_rows(w)
    else:
        docs, h = _ids_rows(t, 2, rows), _hash_spans(t.buf, ds, de)
    # lines in the chunk: on the regular path (one LF per row, no blank line) the rows themselves
    nl = t.n if (t._sep is not None and data.endswith(b"\n")) else None
    return (tb, docs, _scores(t, 4, rows), line, h, t.token(t.n - 1, 5), nl)


def read_trec_run(path: str | os.PathLike, topics: np.ndarray | None = None) -> TrecRun:
    """Read a run file as trec_eval 10.0 does (module docstring).  ``topics`` (sorted bytes array,
    e.g. :attr:`TrecQrels.topic_bytes`): keep only the lines of these topics (the others are never
    evaluated; every line is still checked for its number of fields).  The text is read in chunks
    of whole lines, so that memory stays near the size of the file."""
    from ..io.qrels import _concat
    path = str(path)
    parts: list = []
    tag = ""
    line0 = 0
    for chunk in _chunks(path):
        part = _run_chunk(path, chunk, line0, topics)
        if part is None:
            return _read_trec_run_slow(path, _raw_bytes(path))
        if part != "empty":
            parts.append(part[:5])
            tag = part[5]
        line0 += part[6] if isinstance(part, tuple) and part[6] is not None else chunk.count(b"\n")
    if not parts:
        raise InputError("no result lines in the run file", path)
    cols = list(zip(*parts))
    return TrecRun(path, _concat(list(cols[0])), _concat(list(cols[1])), np.concatenate(cols[2]),
                   np.concatenate(cols[3]), tag, np.concatenate(cols[4]))


def _read_trec_run_slow(path: str, raw: bytes) -> TrecRun:
    """Runs with more than 6 fields on some line: every line split in Python."""
    from ..io._text import check_text
    data, _ = _comment_lines_blanked(check_text(raw, path), True)
    rows, lines = _general_run_table(path, data)
    if not rows:
        raise InputError("no result lines in the run file", path) from None
    cols = list(zip(*rows))
    topics = np.array(cols[0], dtype=object)
    docs = np.array(cols[2], dtype=object)
    if max(map(len, cols[0])) <= 64:
        topics = topics.astype(bytes)
    if max(map(len, cols[2])) <= 64:
        docs = docs.astype(bytes)
    su, inv = np.unique(np.array(cols[4], dtype=object), return_inverse=True)
    scores = np.array([c_atof(bytes(u)) for u in su.tolist()], np.float64)[inv]
    return TrecRun(path, topics, docs, scores, lines, cols[5][-1].decode("utf-8", "replace"))
