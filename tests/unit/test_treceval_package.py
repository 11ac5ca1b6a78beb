"""The trec_eval vertical as one package (``metaeval.treceval``): one function per measure,
registered with its table row, and what the rows decide (docs/metrics.md, "The package")."""

from __future__ import annotations

import inspect

import pytest

from metaeval.treceval.cli import main
from metaeval.treceval import EMPTY_ZEROED, MEASURES, NICKNAMES, measures
from metaeval.treceval.table import measure


def test_one_function_per_measure_in_printing_order():
    funcs = [m.func for m in MEASURES.values()]
    assert all(callable(f) and f.__module__ == measures.__name__ for f in funcs)
    assert len(set(funcs)) == len(funcs)                              # one function each
    lines = [inspect.getsourcelines(f)[1] for f in funcs]
    assert lines == sorted(lines)                                     # the file's order is the printing order
    assert set(NICKNAMES["all_trec"]) <= set(MEASURES)
    assert list(MEASURES)[:5] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret"]
    with pytest.raises(ValueError, match="registered twice"):
        measure("map")(lambda b, sp: [])


def test_rows_decide_the_registry_entries():
    from metaeval.metrics.registry import REGISTRY, family_of

    def get_measure(name):
        return REGISTRY[name]

    assert EMPTY_ZEROED == ("num_ret", "utility", "rbp_resid", "unj")
    assert get_measure("trec.utility").bounded is False and get_measure("trec.ndcg").bounded is True
    assert list(get_measure("trec.iprec_at_recall").params) == ["rel", "recall", "version"]
    assert list(get_measure("trec.rbp").params) == ["rel", "p", "gain_map"]
    assert get_measure("trec.P").cutoff == "required" and get_measure("trec.map").cutoff == "forbidden"
    assert family_of(get_measure("trec.map")) == ("trec_eval", "trec_eval 10.0")


def _run(tmp_path, capsys, *opts):
    (tmp_path / "q").write_text("1 0 d00 3\n2 0 d00 3\n")
    (tmp_path / "r").write_text("1 Q0 d00 1 1 tag\n")                # topic 2 missing: -c evaluates it empty
    assert main([*opts, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    rows = [ln.split("\t") for ln in capsys.readouterr().out.splitlines()]
    return {f"{name.strip()}@{topic}": value for name, topic, value in rows}


def test_empty_ranking_zeroes_names_as_trec_eval_compares_them(tmp_path, capsys):
    """trec_eval.c l. 419 zeroes ``num_ret``, ``utility``, ``rbp_resid`` on a topic evaluated as an
    empty ranking when the printed name is exactly that (``strcmp``) and every ``unj*`` value
    (``strncmp``): ``utility_3,-2,1,0.5`` keeps its computed value, as trec_eval 10.0 prints it."""
    v = _run(tmp_path, capsys, "-q", "-c", "-m", "utility", "-m", "unj.3")
    assert v["utility@2"] == "0.0000" and v["unj_3@2"] == "0.0000"
    # topic 1: 3*1 - 2*0 + 1*0 + 0.5*(0 + 1 - 1 - 1) = 2.5; topic 2 (one document outside the pool):
    # 3*0 - 2*1 + 1*1 + 0.5*(0 + 0 - 1 - 1) = -2; mean 0.25
    v = _run(tmp_path, capsys, "-q", "-c", "-m", "utility.3,-2,1,0.5")
    assert (v["utility_3,-2,1,0.5@1"], v["utility_3,-2,1,0.5@2"], v["utility_3,-2,1,0.5@all"]) == \
        ("2.5000", "-2.0000", "0.2500")
    v = _run(tmp_path, capsys, "-q", "-c", "-m", "rbp_resid.p=0.5")
    assert v["rbp_resid_p=0.5@2"] == "1.0000"                         # p^0 + (1 - p) * 1, not zeroed
