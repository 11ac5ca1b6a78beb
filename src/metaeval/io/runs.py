"""Runs: TREC 6-column files (plain or gzip) and NTCIREVAL per-topic ``.res`` layouts.

* TREC form: ``TOPIC Q0 DOCID RANK SCORE TAG`` (exactly 6 fields; RANK and SCORE must be numbers,
  Q0 and TAG are ignored).
* NTCIREVAL per-topic layout: a directory ``ROOT`` with one folder per topic, ``ROOT/TID/RUN.res``,
  each ``.res`` file one DOCID a line in rank order (NTCIREVAL's ``label`` input).  Every distinct
  ``RUN`` found under the topic folders is one run.  The topic folders may also hold the
  ``TID.rel`` qrels (read by :func:`metaeval.io.read_qrels` given ``ROOT``); they are not runs.

Run specifications (:func:`expand_runs`): a file, a glob (``runs/*.run.gz``), or a directory (all
its regular, non-hidden files; or, if it holds topic folders with ``.res`` files, the per-topic
layout).  The run name is the file name without ``.gz``/``.bz2``/``.xz``, ``.run``, ``.txt``,
``.res``, ``.trec``, ``.tsv`` suffixes (``KASYS-CO-REV-6.run.gz`` -> ``KASYS-CO-REV-6``).
"""

from __future__ import annotations

import glob as _glob
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..util import broken_link, check_input_link, folder_files, is_input_file
from ._text import check_numeric, parse_float64, tokenize
from .qrels import _concat

__all__ = ["RunSource", "ParsedRun", "run_name", "expand_runs", "unique_sources", "read_run"]

_SUFFIXES = (".gz", ".bz2", ".xz", ".run", ".txt", ".res", ".trec", ".tsv", ".out")


def run_name(path: str | os.PathLike) -> str:
    """File name without the run suffixes: ``a/b/X.run.gz`` -> ``X``."""
    name = Path(path).name
    changed = True
    while changed:
        changed = False
        for s in _SUFFIXES:
            if name.lower().endswith(s) and len(name) > len(s):
                name = name[: -len(s)]
                changed = True
    return name


@dataclass(frozen=True)
class RunSource:
    """Where one run comes from: a TREC file, or per-topic ``.res`` files ``{topic: path}``."""
    name: str
    path: str | None = None
    per_topic: tuple[tuple[str, str], ...] = ()

    @property
    def files(self) -> tuple[str, ...]:
        return (self.path,) if self.path is not None else tuple(p for _, p in self.per_topic)


def _is_per_topic_root(d: Path) -> bool:
    return any(True for _ in d.glob("*/*.res"))


def expand_runs(specs) -> list[RunSource]:
    """Turn run arguments (paths, globs, directories) into sources sorted by run name.

    Two files with the same run name are an error naming both."""
    if isinstance(specs, (str, os.PathLike)):
        specs = [specs]
    sources: list[RunSource] = []
    for spec in specs:
        spec = str(spec)
        p = Path(spec)
        if p.is_dir():
            if _is_per_topic_root(p):
                sources.extend(_per_topic_sources(p))
            else:
                files = folder_files(p, "run")
                if not files:
                    raise InputError("run directory holds no files", p)
                sources.extend(RunSource(run_name(f), str(f)) for f in files)
        elif is_input_file(p):                     # a file, a FIFO or <(cmd): read once
            sources.append(RunSource(run_name(p), str(p)))
        elif broken_link(p) is not None:
            check_input_link(p, "the run file")
        elif _glob.has_magic(spec):
            matched = sorted(_glob.glob(spec))
            for f in matched:
                check_input_link(f, "a file the pattern matches")
            matched = [f for f in matched if is_input_file(f)]
            if not matched:
                raise InputError("no run file matches this pattern", spec)
            sources.extend(RunSource(run_name(f), f) for f in matched)
        else:
            raise InputError("no such run file or directory", spec)
    return unique_sources(sources)


def unique_sources(sources) -> list[RunSource]:
    """``sources`` sorted by run name, a source given twice kept once; two different sources with
    the same run name are an error naming both."""
    seen: dict[str, RunSource] = {}
    for s in sources:
        if s.name in seen and seen[s.name] != s:
            raise InputError(f"run name {s.name!r} is given twice: {seen[s.name].files[0]} and "
                             f"{s.files[0]}", s.files[0])
        seen[s.name] = s
    return [seen[k] for k in sorted(seen)]


def _per_topic_sources(root: Path) -> list[RunSource]:
    by_run: dict[str, list[tuple[str, str]]] = {}
    for f in sorted(root.glob("*/*.res")):
        if not f.is_file():
            continue
        by_run.setdefault(run_name(f), []).append((f.parent.name, str(f)))
    return [RunSource(name, None, tuple(sorted(v))) for name, v in sorted(by_run.items())]


@dataclass(frozen=True, eq=False)
class ParsedRun:
    """One run's lines, in file order (per-topic layouts: topic folders in string order).

    ``topics`` / ``docs`` (byte strings: ``S<W>``, or object arrays of ``bytes`` when a field is
    long) / ``doc_hash`` (:func:`~metaeval.io._text.hash_ids`) / ``lines`` / ``files`` per line; ``scores`` when parsed (TREC form, ``order="score"``): float64, as C's ``atof`` -- trec_eval
    10.0's precision (trec_eval 9.0.x's ``(float)`` is applied when ranking).
    """
    name: str
    sources: tuple[str, ...]
    topics: np.ndarray
    docs: np.ndarray
    lines: np.ndarray
    files: np.ndarray
    scores: np.ndarray | None
    has_scores: bool
    doc_hash: np.ndarray | None = None
    #: how the run's own order is called in the order-disagreement warning
    order_name: str = "file order"

    def where(self, i: int) -> str:
        return f"{self.sources[int(self.files[i])]}:{int(self.lines[i])}"

    def doc(self, i: int) -> str:
        return bytes(self.docs[i]).decode("utf-8", "replace")


def read_run(source: RunSource | str | os.PathLike, scores: bool = False) -> ParsedRun:
    """Parse one run; ``scores=True`` also converts the SCORE column (to float64, as trec_eval 10.0's
    ``atof``; :func:`metaeval.io.ingest.label_run` rounds to float32 for trec_eval 9.0.x)."""
    if not isinstance(source, RunSource):
        source = RunSource(run_name(source), str(source))
    if source.path is not None:
        t = tokenize(source.path, 6, "TREC run (TOPIC Q0 DOCID RANK SCORE TAG)", header=b"<SYSDESC>")
        check_numeric(t, 3, "rank")
        if scores:
            sc = parse_float64(t, 4, "score")          # validates too
        else:
            check_numeric(t, 4, "score")
            sc = None
        return ParsedRun(source.name, (source.path,), t.ids(0), t.ids(2), t.line,
                         np.zeros(t.n, np.int32), sc, True, t.hash(2))
    # NTCIREVAL per-topic layout: one DOCID a line
    topics, docs, hashes, lines, files = [], [], [], [], []
    paths = []
    for i, (tid, path) in enumerate(source.per_topic):
        t = tokenize(path, 1, "NTCIREVAL .res (one DOCID a line)", header=b"<SYSDESC>")
        paths.append(path)
        topics.append(np.full(t.n, tid.encode("utf-8"), dtype=object))
        docs.append(t.ids(0))
        hashes.append(t.hash(0))
        lines.append(t.line)
        files.append(np.full(t.n, i, np.int32))
    tb = _concat(topics)
    if len(tb) and max(map(len, (t for t, _ in source.per_topic))) <= 64:
        tb = tb.astype(bytes)
    return ParsedRun(source.name, tuple(paths), tb, _concat(docs),
                     np.concatenate(lines) if lines else np.zeros(0, np.int64),
                     np.concatenate(files) if files else np.zeros(0, np.int32), None, False,
                     np.concatenate(hashes) if hashes else np.zeros(0, np.uint64))


#: below this many bytes of run files in all, :func:`metaeval.io.ingest.load_collection` reads and
#: labels them in this process only (the fork and the arrays sent back cost more than the second
#: core saves)
PARALLEL_BYTES = 8 << 20


def file_sizes(sources: list[RunSource]) -> list[int] | None:
    """The bytes of each source, when every one is a regular TREC run file (else None: a stream can
    be read once only, and per-topic layouts are read here)."""
    import stat

    sizes = []
    for s in sources:
        if s.path is None:
            return None
        try:
            st = os.stat(s.path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        sizes.append(st.st_size)
    return sizes


def halves(sizes: list[int]) -> int:
    """Where to split the runs in two of about equal bytes (1 <= k < len(sizes))."""
    total, acc = sum(sizes), 0
    for k, n in enumerate(sizes[:-1], 1):
        acc += n
        if 2 * acc >= total:
            return k
    return len(sizes) - 1


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):          # pragma: no cover - not Linux
        return os.cpu_count() or 1
