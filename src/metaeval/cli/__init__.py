"""``metaeval`` command line.

Each subcommand lives in its own module of this package and exposes
``add_parser(subparsers) -> argparse.ArgumentParser`` (which sets ``func=run``).  Modules are
discovered, so adding a command touches only its own file.  Heavy imports belong inside ``run``.
The drop-ins' commands live in their packages (:data:`DROPINS`).

Exit status: 0 success, 1 rejected input (message on stderr, nothing written), 2 bad usage,
130 interrupted (Ctrl-C), 143 terminated (``SIGTERM``), 129 hung up (``SIGHUP``), 131 quit
(``SIGQUIT``): one line on stderr, nothing left behind.

A command's output is declared with its parser: ``p.set_defaults(out_kind="folder")`` (``--out``
is a folder: written beside itself under a temporary name and committed by the one publisher,
:func:`metaeval.publish.publishing`, when the command ends well -- the command's own files,
listed in the folder's manifest, replaced and its stale ones removed (kept with
``out_accumulates=True``: a folder of one matrix per measure, added to run by run), all or nothing,
no other file touched -- and removed on any error or signal: :func:`run_command`), ``"file"`` (the command writes
that file atomically) or ``"any"`` (a file or a folder, the command's own business) -- or a function of
the parsed arguments giving one (``metaeval stage``: a folder for an own job with a scope of its
own, whose files ``out_owner(args)`` owns in the manifest); every kind is
checked before any input is read (:func:`metaeval.publish.check_target`: exit 2;
:func:`metaeval.util.check_out`: exit 1).  What a folder command prints on stdout is printed after
its output is committed: a closed stdout (``| head``) loses the printout, not the folder.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator

# argparse, importlib, pkgutil and warnings are imported where used: the drop-ins (trec_eval above
# all) start in a fraction of a second and need none of them


#: the drop-ins' commands: name -> (the ``cli`` module of the drop-in's package, which holds its
#: reader, engine and command line; the command's one-line help, listed by ``metaeval --help``
#: without importing the package -- the module's own parser says the same)
DROPINS = {
    "trec_eval": ("metaeval.treceval.cli", "drop-in for trec_eval 10.0 (same options, same output)"),
    "cwl_eval": ("metaeval.cwl.cli", ("drop-in for cwl-eval 1.0.12: the C/W/L measures (EU, ETU, EC, "
                                     "ETC, ED and residuals) of one result file")),
    "ndeval": ("metaeval.ndeval.cli", "drop-in for TREC's ndeval 4.5 (same options, same CSV, risk mode)"),
    "ntcir": ("metaeval.ntcir.cli", "ntcir_eval-compatible label/compute for one topic"),
}

#: modules of this package kept as deprecated paths of moved code (not commands of their own)
_MOVED = ("cwl_eval", "ndeval")

#: commands whose module is named otherwise (a module says what it holds; deprecated names with
#: their new command's module, which registers both)
COMMAND_MODULES = {"test-errors": "error_rates", "paper-tables": "paper_tables", "reproduce": "paper_tables"}

#: commands left out of ``metaeval --help``: the pipeline's internal job runner and the deprecated
#: names kept for one release (each prints a note naming its replacement when used)
HIDDEN = ("stage", "reproduce", "standardisation")


def _modules() -> set[str]:
    import pkgutil

    return {m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")} - set(_MOVED)


def _commands() -> list[str]:
    """The command modules: this package's (discovered; ``_helpers`` and moved paths excluded) and
    the drop-ins', sorted."""
    return sorted(_modules() | set(DROPINS))


def _command_module(name: str) -> str:
    """The module that defines command ``name`` (a command module's name, a drop-in's, or a command
    named otherwise)."""
    if name in DROPINS:
        return DROPINS[name][0]
    return f"{__name__}.{COMMAND_MODULES.get(name, name)}"


def _known(command: str) -> bool:
    return command in DROPINS or command in COMMAND_MODULES or command in _modules()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``metaeval`` parser; ``only``: just that command's subparser (what ``metaeval CMD ...``
    needs: the other command modules are not imported)."""
    import argparse
    import importlib

    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="metaeval",
        description="Evaluate IR evaluation metrics: NTCIREVAL-exact per-topic scores, Kendall's tau, "
                    "bootstrap sensitivity, swap and stability methods.",
    )
    parser.add_argument("--version", action="version", version=f"metaeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in [only] if only is not None else _commands():
        if only is None and name in DROPINS:       # listed only: the full parser runs no command
            sub.add_parser(name, help=DROPINS[name][1], add_help=False)
            continue
        mod = importlib.import_module(_command_module(name))
        if hasattr(mod, "add_parser"):
            mod.add_parser(sub)
    # the listing: by command name, the hidden ones left out (they still parse)
    sub._choices_actions = sorted((a for a in sub._choices_actions if a.dest not in HIDDEN), key=lambda a: a.dest)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    if not getattr(category, "__module__", "").startswith("metaeval"):
        # numpy's floating-point warnings, scipy's and pandas': never shown raw (one closing note,
        # :func:`_library_note`); the degenerate inputs they come from are refused or noted by metaeval
        _LIBRARY.append(str(message).splitlines()[0] if str(message) else category.__name__)
        return
    if _TALLY is not None:                 # a command: one line per kind at its end (_flush_warnings)
        _TALLY.add(message)
        return
    print(f"metaeval: warning: {message}", file=sys.stderr)


def _flush_warnings() -> None:
    """Print the running command's warnings, one line per kind (runs, sets and files of a kind
    named together: :meth:`metaeval.logsummary.WarningTally.lines`), once, before its last word."""
    if _TALLY is not None:
        with _closed_ok():                 # a hung-up terminal: the lines are lost, the exit status kept
            for line in _TALLY.lines():
                print(line, file=sys.stderr)
        _TALLY.counts.clear()


#: the library (numpy, scipy, pandas) warnings of the running command
_LIBRARY: list[str] = []


def _library_note() -> str:
    """One line for the library warnings of a command that ended well (none: empty)."""
    if not _LIBRARY:
        return ""
    n, first = len(_LIBRARY), _LIBRARY[0]
    return (f"metaeval: note: {n} numerical warning{'s' if n > 1 else ''} of numpy/scipy not shown (first: "
            f"{first!r}); values they concern are undefined (NaN) in the outputs")


#: the warnings of the running command, summarised at its end (metaeval.logsummary)
_TALLY = None


#: the drop-ins use no BLAS: one OpenBLAS thread (its worker threads cost more CPU time to start
#: than these commands spend computing); the user's own setting wins
_NO_BLAS_THREADS = ("trec_eval", "cwl_eval", "ntcir", "ndeval")


def _single_blas_thread(command: str) -> None:
    import os

    if command in _NO_BLAS_THREADS and "numpy" not in sys.modules:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
            os.environ.setdefault(var, "1")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv:
        _single_blas_thread(argv[0])
    if argv[:1] == ["trec_eval"]:          # trec_eval's own getopt-style options, not argparse's
        from ..treceval.cli import main as trec_eval_main

        return trec_eval_main(argv[1:])
    if argv[:1] == ["ndeval"]:             # ndeval's own options (-c, -baseline RUN, ...), not argparse's
        from ..ndeval.cli import main as ndeval_main

        return ndeval_main(argv[1:])
    # `metaeval CMD ...` imports CMD's module alone; anything else (--help, a typo) the full parser
    only = argv[0] if argv and not argv[0].startswith("-") and _known(argv[0]) else None
    import gzip
    import warnings
    import zlib

    from ..errors import ConfigError, InputError, InputWarning, UsageError

    try:
        parser = build_parser(only)
    except ValueError as e:                # a stage module that does not load (METAEVAL_STAGES)
        print(f"metaeval: error: {e}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    _refuse_empty_values(parser, args)
    from ..progress import set_quiet

    set_quiet(bool(getattr(args, "quiet", False)))      # no progress bar under --quiet
    global _TALLY
    from ..logsummary import WarningTally

    _TALLY = WarningTally()
    _LIBRARY.clear()
    warnings.showwarning = _show_warning
    warnings.simplefilter("always", InputWarning)
    rc: int | None = 1
    try:
        with _signals_as_exceptions():
            rc = run_command(args)
    except UsageError as e:
        _flush_warnings()
        print(f"metaeval: error: {e}", file=sys.stderr)
        return 2
    except (InputError, ConfigError) as e:
        _flush_warnings()
        print(f"metaeval: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except (UnicodeDecodeError, EOFError, gzip.BadGzipFile, zlib.error) as e:   # a file unreadable midway
        from ..util import last_opened

        _flush_warnings()

        where = f"{last_opened()}: " if last_opened() is not None else ""
        what = "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else "a damaged or truncated gzip file"
        print(f"metaeval: error: {where}cannot read: {what} ({e})", file=sys.stderr)
        return 1
    except OSError as e:                   # a file or folder that cannot be read or written
        _flush_warnings()
        where = f"{e.filename}: " if e.filename else ""
        print(f"metaeval: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    except MemoryError as e:               # a size no check foresaw: one line, not numpy's traceback
        _flush_warnings()
        print(f"metaeval: error: out of memory ({e}); lower the sizes given (--B, --trials, topics); nothing "
              f"written", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        _flush_warnings()
        print("metaeval: interrupted; nothing written", file=sys.stderr)
        return 130
    except Terminated as e:
        _flush_warnings()
        with _closed_ok():                 # SIGHUP: the terminal may be gone
            print(f"metaeval: {_SIGNAL_WORDS.get(e.signum, 'terminated')}; nothing written", file=sys.stderr)
        return 128 + e.signum
    finally:
        _flush_warnings()
        _TALLY = None
        if not rc and _library_note():
            print(_library_note(), file=sys.stderr)
        _LIBRARY.clear()
    return 0 if rc is None else int(rc)


def _refuse_empty_values(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """An empty word given to an option that takes a list (``--metrics ''``: no metric, a path, a
    name) is a usage error naming the option (exit 2), before any input is read."""
    import argparse

    sub = next((a for a in parser._actions if a.dest == "command"), None)
    cmd = getattr(args, "command", None)
    choices = getattr(sub, "choices", None)
    p = choices.get(cmd) if isinstance(choices, dict) and cmd is not None else None
    if not isinstance(p, argparse.ArgumentParser):
        return
    for a in p._actions:
        v = getattr(args, a.dest, None) if a.option_strings and a.nargs in ("+", "*") else None
        if isinstance(v, list) and any(isinstance(x, str) and not x.strip() for x in v):
            p.error(f"{a.option_strings[-1]}: an empty value ('') names nothing; leave it out")


class Terminated(BaseException):
    """``SIGTERM`` (or ``SIGHUP``, ``SIGQUIT``: :attr:`signum`) received: raised where the command
    is, so that its output folder is removed as on any error (a ``BaseException``, as
    ``KeyboardInterrupt``: no ``except Exception`` stops it)."""

    def __init__(self, signum: int = 15):
        super().__init__(signum)
        self.signum = signum


#: the last word of a command ended by a signal (exit 128 + the signal's number)
_SIGNAL_WORDS = {15: "terminated", 1: "hung up (SIGHUP)", 3: "quit (SIGQUIT)"}


@contextlib.contextmanager
def _closed_ok() -> Iterator[None]:
    """A message to a closed stream (a hung-up terminal, a closed pipe) is dropped."""
    try:
        yield
    except (BrokenPipeError, OSError, ValueError):
        pass


class _Refused(Exception):
    def __init__(self, rc: int):
        super().__init__(rc)
        self.rc = rc


#: the signal received while the command runs (SIGTERM or SIGINT), kept should the exception
#: raised for it be swallowed where it landed (a fork hook, a finaliser): the output is then not
#: published either (:func:`raise_if_signalled`)
_SIGNALLED: list[int] = []
_MAIN_PID: list[int] = []


def _on_signal(signum: int, frame: object) -> None:
    import os
    import signal

    if _MAIN_PID and os.getpid() != _MAIN_PID[0]:       # a forked process before it set its own handlers
        os._exit(128 + signum)
    _SIGNALLED.append(signum)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def raise_if_signalled() -> None:
    """Raise what a signal received meanwhile should have raised (its exception was swallowed)."""
    import signal

    if _SIGNALLED:
        if _SIGNALLED[-1] == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(_SIGNALLED[-1])


class _signals_as_exceptions:
    """``SIGTERM``, ``SIGHUP`` and ``SIGQUIT`` raise :class:`Terminated` and Ctrl-C
    ``KeyboardInterrupt`` in the main thread while the command runs (a SIGINT or SIGHUP ignored by the
    caller, ``nohup``, stays ignored); the previous handlers are restored afterwards."""

    def __enter__(self) -> Self:
        import os
        import signal
        import threading

        self.old = {}
        _SIGNALLED.clear()
        _MAIN_PID[:] = [os.getpid()]
        self.hook = sys.unraisablehook
        sys.unraisablehook = _quiet_unraisable
        if threading.current_thread() is threading.main_thread():
            self.old[signal.SIGTERM] = signal.signal(signal.SIGTERM, _on_signal)
            for name in ("SIGINT", "SIGHUP", "SIGQUIT"):
                sig = getattr(signal, name, None)
                if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:
                    self.old[sig] = signal.signal(sig, _on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        for sig, old in self.old.items():
            signal.signal(sig, old)
        sys.unraisablehook = self.hook


def _quiet_unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """The exception of a signal that landed where Python cannot raise it (a fork hook, a finaliser) is
    not printed: :func:`raise_if_signalled` raises it again before the output is published (the
    command then runs to its end first: an interrupt in a fork hook is rare, the result the same)."""
    if isinstance(getattr(unraisable, "exc_value", None), (Terminated, KeyboardInterrupt)) and _SIGNALLED:
        return
    sys.__unraisablehook__(unraisable)


def run_command(args: argparse.Namespace) -> int | None:
    """Run the parsed command ``args.func(args)`` with its output as it declares it (``out_kind``,
    see the module's docstring): ``--out`` checked first (:func:`metaeval.publish.check_target`, then
    :func:`metaeval.util.check_out`); a folder written under a temporary name beside it (``args.out``
    is that name while the command runs, ``args.out_shown`` the user's) and committed by
    :func:`metaeval.publish.publishing` as the command's own files when it returns 0; what it prints
    on stdout printed after the commit; the figures at ``--figure-width`` in ``--figure-formats``
    (:mod:`metaeval.cli._figure_options`)."""
    if getattr(args, "figure_width", None) is None and getattr(args, "figure_formats", None) is None:
        return _run_command(args)                   # the settings as they are (the drop-ins import no report code)
    from ..report.figure_size import figure_settings
    from ._figure_options import figure_options

    with figure_settings(*figure_options(args)):       # --figure-width / --figure-formats: the figures drawn
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int | None:
    kind = getattr(args, "out_kind", None)
    if callable(kind):                              # a function of the parsed arguments
        kind = kind(args)
    out = getattr(args, "out", None)
    args.out_shown = out
    if kind is None or out is None:                 # printed only: nothing to publish
        rc = args.func(args)
        raise_if_signalled()
        return rc
    from ..publish import check_target, publishing
    from ..util import check_out

    check_target(out)
    check_out(out, kind)
    if kind != "folder":
        rc = args.func(args)
        raise_if_signalled()
        return rc
    import io

    printed, stdout = io.StringIO(), sys.stdout
    committed = False
    sys.stdout = printed
    try:
        owner = getattr(args, "out_owner", None)
        with publishing(out, owner(args) if callable(owner) else command_owner(args.command), shown=out, option="--out",
                        accumulate=_accumulates(args)) as tmp:
            args.out = str(tmp)
            rc = args.func(args)
            raise_if_signalled()              # a signal whose exception was swallowed: not published
            if rc:
                raise _Refused(int(rc))
        committed = True
    except _Refused as e:
        return e.rc
    finally:
        sys.stdout = stdout
        args.out = out
        _print_after(printed.getvalue(), out if committed else None)
    return rc


def _accumulates(args: argparse.Namespace) -> bool:
    """Whether the command's folder keeps its earlier files it does not write now (its parser's
    ``out_accumulates``: a bool, or a function of the parsed arguments)."""
    acc = getattr(args, "out_accumulates", False)
    return bool(acc(args) if callable(acc) else acc)


def command_owner(command: str) -> str:
    """The name a command's files are listed under in an output folder's manifest: its module's
    (a deprecated name and its replacement are one owner; the API's functions use the same)."""
    return {"reproduce": "paper_tables", "standardisation": "standardise"}.get(
        command, COMMAND_MODULES.get(command, command))


def _print_after(text: str, out: str | None) -> None:
    """Print what the command printed on stdout; a closed stdout (``BrokenPipeError``) drops it with
    a note on stderr -- the output folder ``out`` is committed already."""
    import os

    if not text:
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        try:                                  # no second BrokenPipeError when Python flushes at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        if out is not None:
            with _closed_ok():
                print(f"metaeval: note: standard output is closed; the printout is lost, {out} is written",
                      file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
