"""``--figure-width`` and ``--figure-formats``: the options of every command that draws figures
(``meta``, ``stage``, ``judgments``, ``ppi``, ``standardise``, ``test-errors``,
``reproducibility``, ``incompleteness``, ``bayes``), the config's ``figures: {width, formats}``; checked as
they are parsed (a bad value: a usage error, exit 2), applied around the command by
:func:`metaeval.cli.run_command` (:func:`metaeval.report.figure_size.figure_settings`)."""

from __future__ import annotations

import argparse

from ..report.figure_size import FORMATS, WIDTH_RANGE, WIDTHS, parse_formats, parse_width

__all__ = ["add_figure_args", "figure_options"]


def _width(value: str) -> float:
    try:
        return parse_width(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _formats(value: str) -> tuple[str, ...]:
    try:
        return parse_formats(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_figure_args(p: argparse.ArgumentParser) -> None:
    """The two options, on parser ``p``."""
    g = p.add_argument_group("figures")
    g.add_argument("--figure-width", type=_width, default=None, metavar="WIDTH",
                   help=f"width of every figure: column ({WIDTHS['column']:g} in, the default), text "
                        f"({WIDTHS['text']:g} in) or inches ({WIDTH_RANGE[0]:g}-{WIDTH_RANGE[1]:g}); every "
                        "text at least 7 pt at that size")
    g.add_argument("--figure-formats", type=_formats, default=None, metavar="LIST",
                   help=f"comma-separated formats of every figure, of {','.join(FORMATS)} (png required: the "
                        "HTML report embeds it; default: both)")


def figure_options(args: argparse.Namespace) -> tuple[float | None, tuple[str, ...] | None]:
    """``(width, formats)`` of parsed ``args`` (None: not given, or a command that does not draw)."""
    return getattr(args, "figure_width", None), getattr(args, "figure_formats", None)
