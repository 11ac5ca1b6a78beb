"""What the pipeline noticed, on the console: the warnings and notes the jobs wrote to their logs
(``RESULTS/logs/**/*.log``: unjudged topics, topics missing from a run, duplicates dropped, order
disagreements, ...) listed once per *kind* at the end of a DAG run -- the first message of the kind,
then the other runs or files it concerns (counted beyond a few) and the logs that hold it (the
Snakefile's ``onsuccess:`` / ``onerror:`` handlers call :func:`print_log_summary`); and the same for
one command's own warnings (:class:`WarningTally`: the command prints one line per kind at its end,
never each message and then a summary).  A kind is a message with its subject (``FILE: run R:``,
``FILE:``, or a judgments set ``results NAME (PATH):`` / ``qrels set NAME (PATH):``) taken away and
every number or id holding a digit made alike, so one warning about 59 runs is one line, never 59.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["PREFIXES", "WarningTally", "group_kinds", "kind_of", "log_summary", "print_log_summary", "scan_logs"]

#: the lines of a log that are things noticed (metaeval's own warning and note prefixes)
PREFIXES = ("metaeval: warning: ", "metaeval: note: ")
#: kinds listed at most (the rest counted)
MAX_LISTED = 30
#: subjects (runs, files) of a kind named at most (the rest counted)
MAX_SUBJECTS = 4

_RUN = re.compile(r"^(?P<file>\S+?): run (?P<run>\S+?): (?P<rest>.*)$")
_SET = re.compile(r"^(?P<set>(?:results|qrels set) [^\s(:,]+)(?: \([^)]*\))?: (?P<rest>.*)$")
_FILE = re.compile(r"^(?P<file>[^\s:]*[/.][^\s:]*)(?::\d+)?: (?P<rest>.*)$")
_FIRST = re.compile(r" \(first: [^)]*\)")
_DIGITS = re.compile(r"[^\s,;:()]*\d[^\s,;:()]*")


def kind_of(message: str) -> tuple[str, str | None]:
    """``(kind, subject)`` of a message (``warning: FILE: run R: ...`` -> the run ``R``; ``warning:
    FILE: ...`` -> the file): the kind is the rest with ``(first: ...)`` dropped and every token
    holding a digit written ``N``; messages without a subject are their own kind."""
    prefix = ""
    for p in ("warning: ", "note: "):
        if message.startswith(p):
            prefix, message = p, message[len(p):]
    m = _RUN.match(message)
    s = _SET.match(message) if m is None else None
    if m:
        subject, rest = f"run {m['run']}", m["rest"]
    elif s:                                  # judgments: "results NAME (PATH): ...", "qrels set NAME (...): ..."
        subject, rest = s["set"], s["rest"]
    else:
        m = _FILE.match(message)
        if not m:
            return prefix + message, None
        subject, rest = m["file"], m["rest"]
    return prefix + _DIGITS.sub("N", _FIRST.sub("", rest)), subject


def group_kinds(messages) -> list[tuple[str, list[str], list]]:
    """``[(first message, [its kind's other subjects], [items of the kind])]`` in the order first
    met; ``messages`` yields ``(message, item)`` pairs (the item: the logs, a count, ...)."""
    groups: dict[str, tuple[str, list[str], list]] = {}
    for msg, item in messages:
        kind, subject = kind_of(msg)
        key = kind if subject is not None else msg
        g = groups.get(key)
        if g is None:
            groups[key] = (msg, [subject] if subject is not None else [], [item])
            continue
        if subject is not None and subject not in g[1]:
            g[1].append(subject)
        g[2].append(item)
    return [(first, subjects[1:], items) for first, subjects, items in groups.values()]


def _also(others: list[str]) -> str:
    """`` -- also run b, run c and 12 more`` (the other subjects of a kind), or ''."""
    if not others:
        return ""
    shown = ", ".join(others[:MAX_SUBJECTS])
    more = f" and {len(others) - MAX_SUBJECTS} more" if len(others) > MAX_SUBJECTS else ""
    return f" -- also {shown}{more} ({len(others) + 1} in all)"


def scan_logs(log_dir, since: float | None = None) -> list[tuple[str, list[Path]]]:
    """``[(message, [log paths holding it])]`` of every warning or note line of the ``*.log``
    files under ``log_dir`` (modified at or after ``since``, a time stamp, when given), each
    message once, in the order first met (logs sorted by path)."""
    found: dict[str, list[Path]] = {}
    root = Path(log_dir)
    if not root.is_dir():
        return []
    for path in sorted(root.rglob("*.log")):
        try:
            if since is not None and path.stat().st_mtime < since:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            for p in PREFIXES:
                if line.startswith(p):
                    msg = p.split(": ")[1] + ": " + line[len(p):].strip()
                    paths = found.setdefault(msg, [])
                    if path not in paths:
                        paths.append(path)
    return list(found.items())


def _where(paths: list[Path]) -> str:
    first = str(paths[0])
    return first if len(paths) == 1 else f"{first} and {len(paths) - 1} other log{'s' if len(paths) > 2 else ''}"


def log_summary(log_dir, since: float | None = None) -> str:
    """The console summary of :func:`scan_logs` ('' when the logs hold nothing): one line per kind
    of message (:func:`kind_of`), with the runs or files it concerns and the logs that hold it."""
    items = scan_logs(log_dir, since)
    if not items:
        return ""
    kinds = group_kinds(items)
    n_warn = sum(1 for m, _, _ in kinds if m.startswith("warning"))
    head = (f"metaeval: the jobs noticed {len(kinds)} kind{'s' if len(kinds) != 1 else ''} of thing "
            f"({n_warn} of warning; each once, with what it concerns and the logs that hold it):")
    lines = [head]
    for msg, others, path_lists in kinds[:MAX_LISTED]:
        paths: list[Path] = []
        for ps in path_lists:
            paths += [p for p in ps if p not in paths]
        count = f" [{len(paths)} logs]" if len(paths) > 1 else ""
        lines.append(f"  {msg}{_also(others)}{count} ({_where(paths)})")
    if len(kinds) > MAX_LISTED:
        lines.append(f"  ... and {len(kinds) - MAX_LISTED} more kinds in {log_dir}")
    return "\n".join(lines)


def print_log_summary(log_dir, since: float | None = None, file=None) -> str:
    """Print :func:`log_summary` to ``file`` (default stderr) when there is anything; returns it."""
    text = log_summary(log_dir, since)
    if text:
        print(text, file=file if file is not None else sys.stderr, flush=True)
    return text


class WarningTally:
    """The warnings one command printed, counted, for its closing summary (each once, with its
    count) when there were several."""

    def __init__(self):
        self.counts: dict[str, int] = {}

    def add(self, message) -> None:
        key = str(message)
        self.counts[key] = self.counts.get(key, 0) + 1

    def lines(self, prefix: str = "metaeval: warning: ") -> list[str]:
        """One line per kind (:func:`kind_of`), in the order first met: its first message, the
        other runs, sets or files it concerns (the first few named, the rest counted) and, for a
        message given several times, how often -- what a command prints once at its end."""
        out = []
        for msg, others, ns in group_kinds(self.counts.items()):
            n = sum(ns)
            times = f" (x{n})" if n > 1 and not others else ""
            out.append(f"{prefix}{msg}{_also(others)}{times}")
        return out

    def summary(self) -> str:
        total = sum(self.counts.values())
        if total < 2:
            return ""
        kinds = group_kinds(self.counts.items())
        plural = "s" if len(kinds) != 1 else ""
        lines = [f"metaeval: {total} warnings ({len(self.counts)} distinct, {len(kinds)} kind{plural}) above:"]
        for msg, others, ns in kinds[:MAX_LISTED]:
            n = sum(ns)
            lines.append(f"  {f'(x{n}) ' if n > 1 else ''}{msg}{_also(others)}")
        if len(kinds) > MAX_LISTED:
            lines.append(f"  ... and {len(kinds) - MAX_LISTED} more kinds")
        return "\n".join(lines)
