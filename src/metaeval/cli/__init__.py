"""``metaeval`` command line.

Each subcommand lives in its own module of this package and exposes
``add_parser(subparsers) -> argparse.ArgumentParser`` (which sets ``func=run``).  Modules are
discovered, so adding a command touches only its own file.  Heavy imports belong inside ``run``.
The drop-ins' commands live in their packages (:data:`DROPINS`).

Exit status: 0 success, 1 rejected input (message on stderr, nothing written), 2 bad usage.
"""

from __future__ import annotations

import sys

# argparse, importlib, pkgutil and warnings are imported where used: the drop-ins (trec_eval above
# all) start in a fraction of a second and need none of them


#: the drop-ins' commands: name -> (the ``cli`` module of the drop-in's package, which holds its
#: reader, engine and command line; the command's one-line help, listed by ``metaeval --help``
#: without importing the package -- the module's own parser says the same)
DROPINS = {
    "trec_eval": ("metaeval.treceval.cli", "drop-in for trec_eval 10.0 (same options, same output)"),
    "cwl_eval": ("metaeval.cwl.cli", "drop-in for cwl-eval 1.0.12: the C/W/L measures (EU, ETU, EC, "
                                     "ETC, ED and residuals) of one result file"),
    "ndeval": ("metaeval.ndeval.cli", "drop-in for TREC's ndeval 4.5 (same options, same CSV, risk mode)"),
    "ntcir": ("metaeval.ntcir.cli", "ntcir_eval-compatible label/compute for one topic"),
}

#: modules of this package kept as deprecated paths of moved code (not commands of their own)
_MOVED = ("cwl_eval", "ndeval")


def _commands() -> list[str]:
    """The command names: this package's modules (discovered; ``_helpers`` and moved paths
    excluded) and the drop-ins', sorted."""
    import pkgutil

    own = {m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")}
    return sorted((own - set(_MOVED)) | set(DROPINS))


def _command_module(name: str) -> str:
    """The module that defines command ``name``."""
    return DROPINS[name][0] if name in DROPINS else f"{__name__}.{name}"


def build_parser(only: str | None = None) -> "argparse.ArgumentParser":  # noqa: F821
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
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"metaeval: warning: {message}", file=sys.stderr)
    if _TALLY is not None:
        _TALLY.add(message)


#: the warnings of the running command, summarised at its end (metaeval.logsummary; issue 31)
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
    only = argv[0] if argv and not argv[0].startswith("-") and argv[0] in _commands() else None
    import warnings

    from ..errors import ConfigError, InputError, InputWarning

    try:
        parser = build_parser(only)
    except ValueError as e:                # a stage module that does not load (METAEVAL_STAGES)
        print(f"metaeval: error: {e}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    global _TALLY
    from ..logsummary import WarningTally

    _TALLY = WarningTally()
    warnings.showwarning = _show_warning
    warnings.simplefilter("always", InputWarning)
    try:
        rc = args.func(args)
    except (InputError, ConfigError) as e:
        print(f"metaeval: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    finally:
        tally, _TALLY = _TALLY, None
        if tally.summary():
            print(tally.summary(), file=sys.stderr)
    return 0 if rc is None else int(rc)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
