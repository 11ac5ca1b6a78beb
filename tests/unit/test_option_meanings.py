"""One meaning per option name across the ``metaeval`` commands ("parameters declared once").

Walked from the argparse parsers themselves (:func:`metaeval.cli.build_parser`, every command,
the hidden ones too; the drop-ins keep their reference tool's options and are left out): an option
string means one thing wherever it appears.  Its *meaning* is its ``dest`` and the kind of one of
its values -- ``flag`` (no value), ``choice`` (one of a fixed set of words), ``integer``,
``number`` or ``text`` (found by parsing sample words with the option's own type) -- so
``--topics`` cannot be a count in one command and ``common|own`` in another.  How many values an
option takes (one, several words, a comma list: ``--topics 50`` and ``--topics 25,50,100``) is its
form, not its meaning.  Options of one meaning with choices take them from one vocabulary (one
command's choices among the other's, ``--conventions``).

A deprecated spelling (:class:`metaeval.cli._types.DeprecatedOption`: hidden, kept for one release)
is the old meaning on its way out and is not walked; :func:`test_deprecated_topics_alias` checks the
one the rule displaced.  The few variations allowed are in :data:`ALLOWED`, each with its reason.
"""

from __future__ import annotations

import argparse
import collections
import itertools

import pytest

from metaeval.cli import DROPINS, build_parser, main
from metaeval.cli._types import DeprecatedOption

#: option -> {meaning (dest, kind): why it is the same meaning as the option's other one}
ALLOWED: dict[str, dict[tuple[str, str], str]] = {
    "--runs": {("run", "text"): "metaeval evaluate scores one run (dest 'run'); every other command's "
                                "--runs names several: the same option, one value"},
}

#: sample words an option's type is tried on, in order: the first one it accepts tells the kind
#: (``png``: a word of a vocabulary its type checks, ``--figure-formats``); one it accepts none of is
#: of kind ``unknown``, refused for an option of several commands
#: (:func:`test_walk_sees_the_commands_and_their_options`)
_SAMPLES = ("7", "1000", "0.5", "2,3", "x", "png")


def _kind(action: argparse.Action) -> str:
    if action.nargs == 0:
        return "flag"
    if action.choices is not None:
        return "choice"
    parse = action.type or str
    for word in _SAMPLES:
        try:
            value = parse(word)
        except (argparse.ArgumentTypeError, TypeError, ValueError):
            continue
        if isinstance(value, (list, tuple)):
            if not value:
                continue
            value = value[0]
        if isinstance(value, bool):
            return "boolean"
        if isinstance(value, int):
            return "integer"
        if isinstance(value, float):
            return "number"
        if isinstance(value, str):
            return "text"
        return type(value).__name__
    return "unknown"


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {name: p for name, p in sub.choices.items() if name not in DROPINS}


def meanings() -> dict[str, dict[tuple[str, str], list[tuple[str, argparse.Action]]]]:
    """Per option string: its meanings, each with the (command, action) pairs that give it."""
    out: dict = collections.defaultdict(lambda: collections.defaultdict(list))
    for cmd, p in sorted(_commands().items()):
        for a in p._actions:
            if isinstance(a, (argparse._HelpAction, argparse._VersionAction, DeprecatedOption)):
                continue
            for s in a.option_strings:
                out[s][(a.dest, _kind(a))].append((cmd, a))
    return out


def test_walk_sees_the_commands_and_their_options():
    m = meanings()
    assert {"judgments", "standardise", "test-errors", "compare", "meta"} <= set(_commands())
    assert ("topics", "integer") in m["--topics"]
    # an option of one command has nothing to clash with; one of several must have a kind
    unknown = {s: list(kinds) for s, kinds in m.items() if any(kind == "unknown" for _, kind in kinds)
               and len({c for uses in kinds.values() for c, _ in uses}) > 1}
    assert not unknown, f"options whose type accepts no sample word (add one to _SAMPLES): {unknown}"


def test_one_meaning_per_option():
    clashes = {}
    for option, kinds in meanings().items():
        allowed = ALLOWED.get(option, {})
        left = {k: sorted({c for c, _ in v}) for k, v in kinds.items() if k not in allowed}
        if len(left) > 1:
            clashes[option] = left
    assert not clashes, f"an option string with several meanings across commands: {clashes}"


def test_one_vocabulary_per_choice_option():
    for option, kinds in meanings().items():
        for (_dest, kind), uses in kinds.items():
            if kind != "choice":
                continue
            sets = sorted({frozenset(a.choices) for _, a in uses}, key=len)
            for small, large in itertools.pairwise(sets):
                assert small <= large, (option, [(c, sorted(a.choices)) for c, a in uses])


def test_allowed_variations_still_occur():
    m = meanings()
    for option, kinds in ALLOWED.items():
        for k in kinds:
            assert k in m.get(option, {}), f"{option} {k}: no command has it any more; drop it from ALLOWED"


# ---------------------------------------------------------------- the spelling the rule displaced

def _judgments_action(option: str) -> argparse.Action:
    p = _commands()["judgments"]
    return next(a for a in p._actions if option in a.option_strings)


def test_topic_set_is_judgments_option():
    a = _judgments_action("--topic-set")
    assert a.dest == "topic_set" and tuple(a.choices) == ("common", "own") and a.default == "common"


@pytest.mark.parametrize("value", ["common", "own"])
def test_deprecated_topics_alias(value, capsys):
    """``metaeval judgments --topics common|own`` still parses, into --topic-set's dest, with one
    warning line naming the new spelling, and is hidden from the help."""
    p = _commands()["judgments"]
    args = p.parse_args(["--reference", "a", "--out", "o", "--topics", value])
    assert args.topic_set == value
    err = capsys.readouterr().err
    assert err.splitlines() == [("metaeval: warning: --topics common|own is deprecated and goes in the next "
                                 "release; use --topic-set")], err
    args = p.parse_args(["--reference", "a", "--out", "o", "--topic-set", value])
    assert args.topic_set == value and capsys.readouterr().err == ""
    with pytest.raises(SystemExit):
        main(["judgments", "--help"])
    help_text = capsys.readouterr().out
    assert "--topic-set" in help_text and "--topics" not in help_text
    with pytest.raises(SystemExit) as e:
        p.parse_args(["--reference", "a", "--out", "o", "--topics", "50"])
    assert e.value.code == 2


def _judgments_plan(**block):
    """The judgments job's arguments of a collection whose ``judgments:`` block adds ``block``."""
    import copy
    from pathlib import Path

    import yaml
    from snakemake.utils import validate

    from metaeval import dag

    root = Path(__file__).resolve().parents[2]
    cfg = yaml.safe_load((root / "config/examples/trec-dl19.yaml").read_text(encoding="utf-8"))
    c = next(iter(cfg["collections"]))
    cfg["collections"][c]["judgments"] = {"qrels": {"other": "q2.txt"}, **block}
    cfg = copy.deepcopy(cfg)
    validate(cfg, str(root / "workflow/schemas/config.schema.yaml"))
    return dag.Plan(cfg).job_args("judgments", c)


@pytest.mark.parametrize("block, want", [({}, "common"), ({"topic_set": "own"}, "own"),
                                         ({"topics": "own"}, "own"), ({"topic_set": "own", "topics": "own"}, "own")])
def test_judgments_job_passes_topic_set(block, want):
    """The DAG's judgments job (``metaeval stage judgments``) spells the option
    --judgments-topic-set, from the block's ``topic_set`` (or ``topics``, its deprecated name,
    still accepted)."""
    args = _judgments_plan(**block)
    assert f"--judgments-topic-set {want}" in args and "--topics" not in args.split()
    p = _commands()["stage"]
    import shlex

    assert p.parse_args(["judgments", *shlex.split(args), "--out", "o"]).judgments_topic_set == want


def test_judgments_topic_set_and_old_key_disagreeing_is_a_config_error():
    with pytest.raises(ValueError, match="topic_set 'own' and topics 'common'"):
        _judgments_plan(topic_set="own", topics="common")


def test_api_judgments_topic_set_and_its_old_keyword(monkeypatch):
    """``metaeval.api.judgments`` names the option as the command does (``topic_set=``); ``topics=``,
    its old name, still works with a ``DeprecationWarning``."""
    import warnings

    from metaeval import api
    from metaeval.meta import judgments_run

    seen = []

    def fake(*a, **kw):
        seen.append(kw["topics"])
        raise KeyboardInterrupt                     # stop before anything is read or written

    monkeypatch.setattr(judgments_run, "run_judgments", fake)
    for kw, want in (({}, "common"), ({"topic_set": "own"}, "own")):
        with warnings.catch_warnings(), pytest.raises(KeyboardInterrupt):
            warnings.simplefilter("error")
            api.judgments({"a": "q"}, reference="a", **kw)
        assert seen.pop() == want
    with (pytest.warns(DeprecationWarning, match=r"judgments\(topics=...\) is deprecated.*use topic_set="),
          pytest.raises(KeyboardInterrupt)):
        api.judgments({"a": "q"}, reference="a", topics="own")
    assert seen.pop() == "own"
    with pytest.raises(TypeError, match="give topic_set= only"):
        api.judgments({"a": "q"}, reference="a", topics="own", topic_set="own")
