"""One vocabulary: commands named by what they do, ``--runs`` everywhere, one seed default and one
rule for B (declared once, in ``metaeval.meta.stages.common``), the API's ``metrics=`` and one result
type (``.tables``, ``.write()``); the old names work one release more, with a note."""

from __future__ import annotations

import argparse
import inspect

import pandas as pd
import pytest

import metaeval
from metaeval import api
from metaeval.cli import build_parser, main
from metaeval.meta.stages.common import B_MIN, SEED

QRELS = "t1 0 d1 2\nt1 0 d2 0\nt2 0 d3 1\n"
RUN = "t1 Q0 d1 1 2.0 r\nt1 Q0 d2 2 1.0 r\nt2 Q0 d3 1 1.0 r\n"


def _listed() -> list[str]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return [a.dest for a in sub._choices_actions]


def test_help_lists_what_users_run_by_name_and_hides_the_rest():
    listed = _listed()
    assert listed == sorted(listed)
    assert {"standardise", "paper-tables", "test-errors", "reproducibility", "trec_eval"} <= set(listed)
    assert not {"stage", "standardisation", "reproduce"} & set(listed)
    for hidden in (["stage", "--help"], ["standardisation", "--help"], ["reproduce", "--help"]):
        with pytest.raises(SystemExit) as e:                         # hidden, still there
            main(hidden)
        assert e.value.code == 0


def test_runs_is_the_option_and_run_a_deprecated_spelling(tmp_path, capsys):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    base = ["evaluate", "--qrels", str(tmp_path / "q"), "--metrics", "AP"]
    assert main([*base, "--runs", str(tmp_path / "r")]) == 0
    new = capsys.readouterr()
    assert new.err == ""
    assert main([*base, "--run", str(tmp_path / "r")]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and old.err.startswith("metaeval: warning: --run is deprecated") and "--runs" in old.err
    with pytest.raises(SystemExit) as e:
        main(base)
    assert e.value.code == 2 and "--runs" in capsys.readouterr().err


def test_standardise_experiment_options_belong_to_it(tmp_path, capsys):
    m = tmp_path / "m"
    m.mkdir()
    (m / "AP.csv").write_text("topic,a,b\nt1,0.1,0.2\n")
    for argv, words in ((["--topics", "5"], "--topics is an option of --experiment"),
                        (["--experiment", "--leave-one-out"], "--experiment standardises by every run")):
        with pytest.raises(SystemExit) as e:
            main(["standardise", "--matrices", str(m), "--out", str(tmp_path / "o"), *argv])
        assert e.value.code == 2 and words in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    # the old name: same run, a note first (here the input is too small: one line, exit 1)
    assert main(["standardisation", "--matrices", str(m), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "'metaeval standardisation' is deprecated" in err and "standardise --experiment" in err


def test_one_seed_default_everywhere():
    from metaeval import stages

    assert stages.param("seed").default == SEED and stages.param("seed").config_default in (stages.SAME, SEED)
    seeds = {}
    for cmd in ("compare", "judgments", "ppi", "test-errors", "paper-tables"):
        p = build_parser(cmd)
        sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices[cmd]
        seeds[cmd] = sub.get_default("seed")
    assert set(seeds.values()) == {SEED}, seeds
    for name in ("compare", "judgments", "ppi", "standardisation", "test_errors", "incompleteness"):
        assert inspect.signature(getattr(api, name)).parameters["seed"].default == SEED, name
    assert {p.name: p.default for s in ("standardisation", "test_errors") for p in stages.get(s).params
            if p.name.endswith("seed")} == {"std_seed": SEED, "te_seed": SEED}


@pytest.mark.parametrize("cmd", ["meta", "compare", "judgments", "test-errors"])
def test_one_rule_for_B(cmd, tmp_path, capsys):
    extra = {"meta": ["--matrices", "m"], "compare": ["--matrices", "m"], "judgments": ["--qrels", "a=q"],
             "test-errors": ["--matrices", "m"]}[cmd]
    with pytest.raises(SystemExit) as e:
        main([cmd, *extra, "--out", str(tmp_path / "o"), "--B", str(B_MIN - 1)])
    assert e.value.code == 2 and f">= {B_MIN}" in capsys.readouterr().err


def test_api_says_metrics_and_every_result_writes_itself(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    new = metaeval.evaluate(tmp_path / "q", tmp_path / "r", metrics=["AP"])
    with pytest.warns(DeprecationWarning, match="measures="):
        old = metaeval.evaluate(tmp_path / "q", tmp_path / "r", measures=["AP"])
    pd.testing.assert_frame_equal(new, old)
    from metaeval.meta.display import NamedTables, Result
    from metaeval.meta.error_rates import TestErrors
    from metaeval.meta.judgments_run import JudgmentsResult
    from metaeval.meta.ppi import PPIResult
    from metaeval.meta.reproducibility import ReproResult

    for cls in (api.MetaResult, NamedTables, TestErrors, JudgmentsResult, PPIResult, ReproResult):
        assert issubclass(cls, Result) and (hasattr(cls, "tables") or "tables" in cls.__dataclass_fields__), cls
    bare = NamedTables({"x": new})
    assert bare.tables == {"x": new}
    with pytest.raises(TypeError, match="no writer"):
        bare.write(tmp_path / "o")
    res = api.MetaResult({"kendall": new}, None)
    assert set(res.tables) == set(res) and res.tables["kendall"].equals(res.kendall)
