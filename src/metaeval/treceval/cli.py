"""``metaeval trec_eval [trec_eval's options] QRELS RUN [RUN ...]``: a drop-in for trec_eval 10.0.

Prints what ``trec_eval OPTIONS QRELS RUN`` prints, byte for byte, for each RUN in turn.  Options as
trec_eval's ``getopt_long`` reads them (``-q -c -n -J -l N -M N -N N -m MEASURE[.PARAMS] -Z FILE``,
their long forms, ``-R qrels``, ``-T trec_results``); ``--trec-eval-version 9`` switches
``iprec_at_recall`` / ``11pt_avg`` to trec_eval 9.0.x's truncating recall cutoffs.  The preference
formats (``-R prefs``, ``-R qrels_prefs``, ``-R qrels_jg``) and debug output (``-D``) are refused.
Unlike trec_eval, nothing is printed when an input is rejected (the whole output is formed first).
"""

from __future__ import annotations

import sys


def add_parser(sub):
    import argparse

    p = sub.add_parser("trec_eval", help="drop-in for trec_eval 10.0 (same options, same output)",
                       description=__doc__, add_help=False)
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda a: main(a.args))
    return p


def main(argv=None) -> int:
    """Parse ``argv``, run the drop-in (:func:`metaeval.treceval.dropin.run`) and report: the
    output printed once everything is read, one-line errors, exit status as trec_eval's for
    rejected input (2 a malformed file, 4 a measure it cannot compute), 1 when the evaluation
    failed, 2 for bad usage."""
    from ..errors import InputError
    from .dropin import run
    from .options import USAGE, UsageError, parse
    from .schedule import WorkerFailed

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        o = parse(argv)
    except UsageError as e:
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
    for path in o["args"]:                  # trec_eval reads a byte-order mark as part of the first id
        if _starts_with_bom(path):
            print(f"metaeval trec_eval: note: {path} starts with a UTF-8 byte-order mark; it is stripped "
                  f"(trec_eval 10.0 reads it as part of the first line's topic id)", file=sys.stderr)
    out = _Held()                       # printed once everything is read
    try:
        run(o, out.write)
    except (InputError, WorkerFailed) as e:
        out.close()
        print(f"metaeval trec_eval: error: {e}", file=sys.stderr)
        # trec_eval's exit status: 2 for a malformed file ("Quit in file"), 4 for what it finds
        # computing a measure (a missing topic, duplicate docs); 1 when the evaluation itself failed
        return getattr(e, "trec_eval_status", 2) if isinstance(e, InputError) else 1
    try:
        out.print()
    except BrokenPipeError:
        return 0
    finally:
        out.close()
    return 0


def _starts_with_bom(path: str) -> bool:
    """Whether the file (plain or gzip) starts with a UTF-8 byte-order mark."""
    if path == "-":
        return False
    from ..util import text_bytes

    try:                                    # read once: the reader gets these bytes (a FIFO too)
        head = text_bytes(path, keep=True)[:3]
    except (OSError, EOFError, ValueError):
        return False
    return head == b"\xef\xbb\xbf"


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

            self.file = tempfile.TemporaryFile("w+")  # noqa: SIM115 - held until printed, then closed
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
