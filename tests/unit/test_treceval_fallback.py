"""The pure-Python path of ``metaeval trec_eval`` (``METAEVAL_NO_CEXT=1``, as on an install without a
compiler): the same bytes as the C extensions' path, in a fresh process each (the variable is read
when the drop-in prints).

The case: a run retrieving no judged document under ``-J`` (an empty ranking), whose summary values
are NaN (trec_eval's 0/0, printed ``-nan``) -- the Python printer's fallback for values that are not
finite once raised ``'list' object has no attribute 'tolist'`` on the summary lines.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

QRELS = "1 0 d00 3\n"
RUN = "1 Q0 d01 1 1 tag\n"


def _drop_in(args, tmp_path, no_cext: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("METAEVAL_NO_CEXT", None)
    if no_cext:
        env["METAEVAL_NO_CEXT"] = "1"
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return subprocess.run([sys.executable, "-m", "metaeval", "trec_eval", *args, "qrels", "run"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [["-J", "-m", "all_trec"], ["-q", "-J", "-m", "all_trec"],
                                  ["-c", "-J", "-m", "all_trec"]])
def test_no_c_extensions_prints_what_the_c_path_prints(args, tmp_path):
    py = _drop_in(args, tmp_path, no_cext=True)
    assert py.returncode == 0 and py.stderr == "", py.stderr
    lines = py.stdout.splitlines()
    assert "runid                 \tall\ttag" in lines
    assert "num_ret               \tall\t0" in lines and "num_rel               \tall\t1" in lines
    assert "iprec_at_recall_0.00  \tall\t  -nan" in lines and "11pt_avg              \tall\t  -nan" in lines
    assert "map                   \tall\t0.0000" in lines
    c = _drop_in(args, tmp_path, no_cext=False)
    assert c.returncode == 0 and c.stdout == py.stdout
