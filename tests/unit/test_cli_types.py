"""The shared argparse types (metaeval.cli._types): a bad value is a usage error (exit 2) naming the
option, before any input is read, in every command that takes it."""

import pytest

from metaeval.cli import main


@pytest.mark.parametrize("argv, option, words", [
    (["test-errors", "--trials", "0"], "--trials", "must be >= 1"),
    (["test-errors", "--pairs", "x"], "--pairs", "expected an integer"),
    (["test-errors", "--topics", "25,1"], "--topics", "every value must be >= 2"),
    (["test-errors", "--alphas", "0.05,1"], "--alphas", "every level must be in (0, 1)"),
    (["test-errors", "--tests", "sign,z"], "--tests", "unknown 'z'"),
    (["test-errors", "--seed", "-1"], "--seed", "must be an integer >= 0"),
    (["standardisation", "--topics", "1"], "--topics", "must be >= 2"),
    (["standardisation", "--trials", "0"], "--trials", "must be >= 1"),
    (["judgments", "--top-k", "1"], "--top-k", "must be >= 2"),
    (["judgments", "--B", "0"], "--B", "must be an integer >= 10"),
])
def test_bad_values_are_usage_errors(argv, option, words, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main([*argv, "--matrices", str(tmp_path / "missing"), "--out", str(tmp_path / "out")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and words in err
    assert not (tmp_path / "out").exists()


def test_good_values_parse():
    from metaeval.cli._types import floats, int_at_least, ints_at_least, names_in, probabilities

    assert int_at_least(1)("3") == 3
    assert ints_at_least(2)("25,50,") == [25, 50]
    assert floats("0.01, .1") == [0.01, 0.1]
    assert probabilities("0.001,0.5") == [0.001, 0.5]
    assert names_in(("t", "sign"))("sign,t") == ["sign", "t"]
