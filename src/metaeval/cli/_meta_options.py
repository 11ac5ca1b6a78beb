"""The meta-evaluation options of ``metaeval meta``, ``metaeval stage`` and ``metaeval
incompleteness``, derived from the parameters the stages declare (:func:`metaeval.stages.params`:
one spelling of each, in its stage's module); none is listed here."""

from __future__ import annotations

import argparse

from ..meta import stages as _stages
from ._types import param_type


def _add(p, prm) -> None:
    kw = {"dest": prm.name, "help": prm.help}
    if prm.action in ("store_true", "store_false"):
        kw["action"] = prm.action
    else:
        if prm.action:                 # extend: the values of every use of the option
            kw["action"] = prm.action
        kw["type"] = param_type(prm)             # its declared constraints checked as it is parsed
        if prm.nargs:
            kw["nargs"] = prm.nargs
        if prm.choices:
            kw["choices"] = list(prm.choices)
        if prm.metavar:
            kw["metavar"] = prm.metavar
        # a list's default is filled in by config_from_args (the help states it)
        kw["default"] = None if prm.nargs or isinstance(prm.default, tuple) else prm.default
    p.add_argument(prm.option, **kw)


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
