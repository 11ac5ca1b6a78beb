"""The meta-evaluation options of ``metaeval meta``, ``metaeval stage`` and ``metaeval
incompleteness``, and those of a stage's own command (``metaeval test-errors``, ``metaeval
standardise --experiment``, ``metaeval bayes``: :func:`add_command_args`), derived from the
parameters the stages declare (:func:`metaeval.stages.params`: one spelling of each, in its stage's
module); none is listed here."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..meta import stages as _stages
from ._types import param_type


def _spelling(prm) -> dict:
    """The argparse keywords of a declared parameter's option but its dest and default."""
    kw = {"help": prm.help}
    if prm.action in ("store_true", "store_false"):
        kw["action"] = prm.action
        return kw
    if prm.action:                     # extend: the values of every use of the option
        kw["action"] = prm.action
    # its own parser (it checks the word itself), else its declared constraints checked as it is parsed
    kw["type"] = prm.parse if prm.parse is not None else param_type(prm)
    if prm.nargs:
        kw["nargs"] = prm.nargs
    if prm.choices:
        kw["choices"] = list(prm.choices)
    if prm.metavar:
        kw["metavar"] = prm.metavar
    return kw


def _add(p, prm, option: str | None = None) -> None:
    kw = _spelling(prm)
    kw["dest"] = prm.name
    if prm.action not in ("store_true", "store_false"):
        # a list's default is filled in by config_from_args (the help states it)
        kw["default"] = None if prm.nargs or isinstance(prm.default, tuple) else prm.default
    p.add_argument(option or prm.option, **kw)


def _command_params(name: str, only: Sequence[str] | None = None, skip: Sequence[str] = ()) -> list:
    s = _stages.get(name)
    return [prm for prm in s.params if prm.option and prm.option not in skip
            and (only is None or prm.option in only)]


def command_dest(prm) -> str:
    """The dest of a parameter's option on its stage's own command: argparse's own (``--pairs``:
    ``pairs``, ``--B``: ``B``), the keyword of the same name of the API function the command calls."""
    return prm.option.lstrip("-").replace("-", "_")


def command_dests(name: str, *, only: Sequence[str] | None = None, skip: Sequence[str] = ()) -> tuple[str, ...]:
    """The dests of stage ``name``'s options on its own command (:func:`add_command_args`, the same
    ``only`` and ``skip``), in order."""
    return tuple(command_dest(prm) for prm in _command_params(name, only, skip))


def add_command_args(p, name: str, *, only: Sequence[str] | None = None, skip: Sequence[str] = (),
                     unset: bool = False) -> None:
    """The options of stage ``name`` on a command of its own (``metaeval test-errors``), added to
    ``p`` (a parser or an argument group) in the order the stage declares its parameters: those of
    ``only`` (options; default every one the stage declares) but those of ``skip`` (the options the
    command words itself: its input selection, ``--metrics``).  Each is spelt as declared (help,
    parser, ``nargs``, ``choices``, ``metavar``); its dest is :func:`command_dest`; its default the
    declared one (a tuple as a list, as the option gives it), or None with ``unset`` (the command
    tells given from not given: :func:`command_values` fills the declared default in)."""
    for prm in _command_params(name, only, skip):
        kw = _spelling(prm)
        if prm.action not in ("store_true", "store_false"):
            d = prm.default
            kw["default"] = None if unset else list(d) if isinstance(d, tuple) else d
        p.add_argument(prm.option, **kw)


def command_values(args, name: str, *, only: Sequence[str] | None = None, skip: Sequence[str] = ()) -> dict:
    """``{keyword: value}`` of stage ``name``'s options parsed by :func:`add_command_args` (the same
    ``only`` and ``skip``), the keywords of its API function; an option not given (None) has the
    declared default."""
    out = {}
    for prm in _command_params(name, only, skip):
        v = getattr(args, command_dest(prm))
        out[command_dest(prm)] = prm.default if v is None else v
    return out


def add_config_args(p: argparse.ArgumentParser, *, selection: bool = True, reads: str | None = None) -> None:
    """Options for the common parameters and those of every method on the matrices
    (``selection``: also ``--top-runs``/``--select-by``, which the per-stage commands take from
    ``--runs`` instead).  ``reads``: a stage whose command runs it alone (``metaeval
    incompleteness``): only the common parameters it reads and the run selection -- an option no
    computation of the command reads is not offered, so it cannot be given and ignored."""
    skip = () if selection else _stages.selection_params()
    keep = None if reads is None else set(_stages.get(reads).reads) | set(_stages.selection_params())
    for prm in _stages.common_params():
        if prm.option and prm.name not in skip and (keep is None or prm.name in keep):
            _add(p, prm)
    if reads is not None:
        return
    for s in _stages.REGISTRY:
        if s.kind == "matrices":
            for prm in s.params:
                if prm.option:
                    _add(p, prm)


def add_stage_args(p: argparse.ArgumentParser, name: str) -> None:
    """The options of stage ``name`` in an argument group of their own (a stage on the labelled
    collection: ``metaeval stage``, its own command)."""
    s = _stages.get(name)
    g = p.add_argument_group(s.title or s.name)
    for prm in s.params:
        if prm.option:
            _add(g, prm)


def add_own_job_args(p: argparse.ArgumentParser, name: str) -> None:
    """The options of own job ``name`` on ``metaeval stage`` in an argument group of their own, each
    spelt after its parameter (:attr:`metaeval.stages.Param.stage_option`: ``--bayes-draws``; its
    own command, if any, keeps the declared spelling, ``metaeval bayes --draws``)."""
    s = _stages.get(name)
    g = p.add_argument_group(s.title or s.name)
    for prm in s.params:
        if prm.option:
            _add(g, prm, prm.stage_option)


def add_incompleteness_args(p: argparse.ArgumentParser) -> None:
    """The options of the incompleteness stage (``metaeval incompleteness``, ``metaeval stage``)."""
    add_stage_args(p, "incompleteness")


def add_labelled_args(p: argparse.ArgumentParser) -> None:
    """The options of every stage on the labelled collection (``metaeval stage``)."""
    for s in _stages.REGISTRY:
        if s.kind == "labelled":
            add_stage_args(p, s.name)


def _value(args, prm):
    v = getattr(args, prm.name, None)
    if v is None:
        return prm.default
    return tuple(v) if prm.nargs else v


def incompleteness_from_args(args):
    """The :class:`~metaeval.meta.incompleteness.IncompletenessConfig` of the parsed options."""
    return _options_from_args(args, _stages.get("incompleteness"))


def _options_from_args(args, s):
    """A stage's ``options`` object from its parsed options (None: not options of this parser)."""
    ps = [prm for prm in s.params if not prm.field]
    if not ps or not all(hasattr(args, prm.name) for prm in ps if prm.option):
        return None
    return s.options({prm.name: _value(args, prm) for prm in ps})


def stage_params_from_args(args, name: str):
    """Stage ``name``'s parameter object (an instance of its parameter class) from the parsed
    options (:func:`add_stage_args`; a bad value is an :class:`~metaeval.errors.InputError`)."""
    from ..errors import InputError

    s = _stages.get(name)
    if s.params_class is None:
        return None
    try:
        values = s.params_class(**{prm.name: _value(args, prm) for prm in s.params})
        _stages.check_params(values)
    except ValueError as e:
        raise InputError(f"stage {name}: {e}") from None
    return values


def config_from_args(args):
    """The :class:`~metaeval.meta.run.MetaConfig` of the parsed options (a bad value is an
    :class:`~metaeval.errors.InputError`: one line, exit status 1)."""
    from ..errors import InputError
    from ..meta.run import MetaConfig

    try:
        kw = {prm.name: _value(args, prm) for prm in _stages.params() if prm.field and prm.option}
        kw.update({s.name: _options_from_args(args, s) for s in _stages.REGISTRY if s.is_method and s.options})
        return MetaConfig.of(**kw)
    except ValueError as e:
        raise InputError(str(e)) from None


# display labels: the option --labels is the common parameter ``labels``
def labels_from_args(args, matrices_dir, collection=None) -> dict:
    """``{name: label}`` of the runs and measures of the matrices in ``matrices_dir`` whose label
    differs from their name (:func:`metaeval.labels.labels_for`): ``--labels`` or the default run
    labels; runids from the collection cache's run files."""
    from ..labels import labels_for
    from ..meta.matrices import list_matrices, read_matrix

    names = list_matrices(matrices_dir)
    if not names:
        return {}
    from pathlib import Path

    runs = [str(r) for r in read_matrix(Path(matrices_dir) / f"{names[0]}.csv").columns]
    run_files = {}
    if collection is not None:
        from ..collection import Collection

        try:
            run_files = dict(Collection.load(collection).info.get("runs") or {})
        except Exception:  # noqa: BLE001 -- no runids without a readable cache
            run_files = {}
    return labels_for(runs, names, getattr(args, "labels", None), run_files)
