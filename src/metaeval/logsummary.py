"""What the pipeline noticed, on the console (issue 31): the warnings and notes the jobs wrote to
their logs (``RESULTS/logs/**/*.log``: unjudged topics, topics missing from a run, duplicates
dropped, order disagreements, ...) listed once each at the end of a DAG run, with how many logs
hold it and where (the Snakefile's ``onsuccess:`` / ``onerror:`` handlers call
:func:`print_log_summary`); and the same for one command's own warnings (:class:`WarningTally`).
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["PREFIXES", "scan_logs", "log_summary", "print_log_summary", "WarningTally"]

#: the lines of a log that are things noticed (metaeval's own warning and note prefixes)
PREFIXES = ("metaeval: warning: ", "metaeval: note: ")
#: distinct messages listed at most (the rest counted)
MAX_LISTED = 30


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
    """The console summary of :func:`scan_logs` ('' when the logs hold nothing)."""
    items = scan_logs(log_dir, since)
    if not items:
        return ""
    n_warn = sum(1 for m, _ in items if m.startswith("warning"))
    head = (f"metaeval: the jobs noticed {len(items)} thing{'s' if len(items) != 1 else ''} "
            f"({n_warn} warning{'s' if n_warn != 1 else ''}; each once, with the logs that hold it):")
    lines = [head]
    for msg, paths in items[:MAX_LISTED]:
        count = f" [{len(paths)} logs]" if len(paths) > 1 else ""
        lines.append(f"  {msg}{count} ({_where(paths)})")
    if len(items) > MAX_LISTED:
        lines.append(f"  ... and {len(items) - MAX_LISTED} more in {log_dir}")
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

    def summary(self) -> str:
        total = sum(self.counts.values())
        if total < 2:
            return ""
        lines = [f"metaeval: {total} warnings ({len(self.counts)} distinct) above:"]
        for msg, n in list(self.counts.items())[:MAX_LISTED]:
            lines.append(f"  {'(x%d) ' % n if n > 1 else ''}{msg}")
        if len(self.counts) > MAX_LISTED:
            lines.append(f"  ... and {len(self.counts) - MAX_LISTED} more")
        return "\n".join(lines)
