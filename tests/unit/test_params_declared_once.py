"""Parameters declared once (issue 46): the options of a stage's own command (``metaeval
test-errors``, ``metaeval standardise --experiment`` and its deprecated name ``standardisation``,
``metaeval bayes``) and the keyword defaults of its API function are those of the stage's parameter
class (``metaeval/meta/stages/NAME.py``), so that a changed default, range or help changes the
command, the API and the config schema together."""

from __future__ import annotations

import inspect

import pytest

from metaeval import api
from metaeval.cli import build_parser, main
from metaeval.meta import stages

#: command -> (its stage, the API function it calls)
COMMANDS = {
    "test-errors": ("test_errors", "test_errors"),
    "standardise": ("standardisation", "standardisation"),
    "standardisation": ("standardisation", "standardisation"),
    "bayes": ("bayes", "bayes"),
}
#: the input selection, which each command words its own way (its matrices: not a parameter's help)
HAND_WRITTEN = ("--metrics",)


def _parser(cmd: str):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sub.choices[cmd]


def _declared(stage: str) -> list:
    return [p for p in stages.get(stage).params if p.option and p.option not in HAND_WRITTEN]


def _keyword(prm) -> str:
    """The API keyword (and the command's dest) of a parameter: its option without the dashes."""
    return prm.option.lstrip("-").replace("-", "_")


def _as_declared(v):
    return tuple(v) if isinstance(v, list) else v


@pytest.mark.parametrize("cmd", sorted(COMMANDS))
def test_every_parameter_is_an_option_as_declared(cmd):
    stage, _ = COMMANDS[cmd]
    actions = {o: a for a in _parser(cmd)._actions for o in a.option_strings}
    assert _declared(stage), stage
    for prm in _declared(stage):
        a = actions.get(prm.option)
        assert a is not None, f"{cmd}: no option {prm.option} for parameter {prm.name}"
        assert a.dest == _keyword(prm), (cmd, prm.option)
        assert a.help == prm.help, (cmd, prm.option)
        assert a.choices == (list(prm.choices) if prm.choices else None), (cmd, prm.option)
        assert a.metavar == prm.metavar, (cmd, prm.option)
        assert a.nargs == prm.nargs, (cmd, prm.option)
        if prm.parse is not None:
            assert a.type is prm.parse, (cmd, prm.option)
        # the option's default: the declared one, or None where the command tells given from not
        # given (standardise refuses the experiment's options without --experiment)
        assert a.default is None or _as_declared(a.default) == prm.default, (cmd, prm.option, a.default)
        if isinstance(prm.default, int) and not isinstance(prm.default, bool) and "(default" in prm.help:
            assert f"(default {prm.default}" in prm.help, (cmd, prm.option)


def _matrices(d):
    d.mkdir()
    (d / "AP.csv").write_text("topic,a,b,c\n" + "".join(f"t{t},{0.1 * (t % 3)!r},{0.05 * t!r},{0.5!r}\n"
                                                        for t in range(1, 11)))
    return d


class _Stop(Exception):
    pass


@pytest.mark.parametrize("cmd", sorted(COMMANDS))
def test_the_command_passes_the_declared_defaults(cmd, tmp_path, monkeypatch):
    """Without its options, the command calls its API function with every parameter's declared
    default."""
    stage, fn = COMMANDS[cmd]
    seen: dict = {}

    def fake(*args, **kw):
        seen.update(kw)
        raise _Stop

    monkeypatch.setattr(api, fn, fake)
    argv = [cmd, "--matrices", str(_matrices(tmp_path / "m")), "--out", str(tmp_path / "o"), "--quiet"]
    if cmd == "standardise":
        argv.append("--experiment")
    with pytest.raises(_Stop):
        main(argv)
    for prm in _declared(stage):
        if _keyword(prm) in seen:
            assert _as_declared(seen[_keyword(prm)]) == prm.default, (cmd, prm.option)
    missing = [prm.option for prm in _declared(stage) if _keyword(prm) not in seen]
    assert missing == [], f"{cmd}: parameters the command does not pass to metaeval.api.{fn}: {missing}"


@pytest.mark.parametrize("stage, fn", sorted(set(COMMANDS.values())))
def test_api_keyword_defaults_are_the_declared_ones(stage, fn):
    """Each parameter is a keyword of the API function, its default the declared object itself
    (``pairs: int = TestErrorsParams.te_pairs``), not a copy of its value."""
    sig = inspect.signature(getattr(api, fn)).parameters
    for prm in stages.get(stage).params:
        kw = _keyword(prm)
        assert kw in sig, f"metaeval.api.{fn}: no keyword {kw} for parameter {prm.name}"
        assert sig[kw].default is prm.default, (fn, kw, sig[kw].default, prm.default)


def _agrees(parser_schema: dict, declared: dict) -> bool:
    return all(_agrees(v, declared.get(k) or {}) if isinstance(v, dict) else declared.get(k) == v
               for k, v in parser_schema.items())


@pytest.mark.parametrize("stage", sorted({s for s, _ in COMMANDS.values()}))
def test_an_option_parser_accepts_what_the_schema_declares(stage):
    """A parameter naming its option's own parser (``parse=int_at_least(1)``) states the same range
    as its config schema."""
    for prm in stages.get(stage).params:
        schema = getattr(prm.parse, "schema", None)
        if schema:
            assert prm.schema is not None and _agrees(schema, prm.schema), (prm.name, schema, prm.schema)
