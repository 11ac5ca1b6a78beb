"""The ndeval drop-in's readers split a regular file with the vectorised tokenizer and every other
file line by line: both give the same arrays, and a file the tokenizer would split otherwise than
ndeval's line reader (a blank line, a control byte, fields counts that vary) takes the line reader."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.errors import InputError
from metaeval.ndeval import reader as R

QRELS = "".join(f"{t} {s} d{t}-{k} {(t + s + k) % 3}\n" for t in (3, 1, 2) for s in (1, 2) for k in range(5))
RUN = "".join(f"{t} Q0 d{t}-{k} {10 - k} {k / 3:.3f} myrun\n" for t in (2, 1, 3) for k in range(9))


def _same(a, b):
    assert type(a) is type(b)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            assert x.dtype.kind == y.dtype.kind and x.shape == y.shape
            assert x.tolist() == y.tolist()
        else:
            assert x == y


def _line_by_line(monkeypatch, read, *args):
    with monkeypatch.context() as m:
        m.setattr(R, "_columns", lambda *a, **k: None)
        return read(*args)


@pytest.mark.parametrize("traditional", [False, True])
def test_vectorised_and_line_reader_agree(tmp_path, monkeypatch, traditional):
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text(QRELS)
    r.write_text(RUN)
    assert R._columns(q, q.read_bytes(), 4, "qrels", (0,)) is not None          # the vectorised path
    _same(R.read_ndeval_qrels(q), _line_by_line(monkeypatch, R.read_ndeval_qrels, q))
    _same(R.read_ndeval_run(r, traditional, 4), _line_by_line(monkeypatch, R.read_ndeval_run, r, traditional, 4))


def test_extra_fields_are_ignored_on_both_paths(tmp_path, monkeypatch):
    q = tmp_path / "q"
    q.write_text("".join(line + " extra words\n" for line in QRELS.splitlines()))
    plain = tmp_path / "plain"
    plain.write_text(QRELS)
    _same(R.read_ndeval_qrels(q), R.read_ndeval_qrels(plain))
    _same(R.read_ndeval_qrels(q), _line_by_line(monkeypatch, R.read_ndeval_qrels, q))


@pytest.mark.parametrize("text", [QRELS.replace("d1-3", "d1\x013"),        # not whitespace to C
                                  QRELS + "\n",                            # a blank last line
                                  QRELS.replace("\n", " x\n", 1)])         # one line with more fields
def test_irregular_files_take_the_line_reader(tmp_path, text):
    q = tmp_path / "q"
    q.write_text(text)
    assert R._columns(q, q.read_bytes(), 4, "qrels", (0,)) is None


def test_control_byte_stays_in_the_docno(tmp_path):
    q = tmp_path / "q"
    q.write_text(QRELS.replace("d1-3", "d1\x013"))
    assert b"d1\x013" in R.read_ndeval_qrels(q).doc_ids.tolist()


def test_blank_line_is_named_as_before(tmp_path):
    q = tmp_path / "q"
    lines = QRELS.splitlines(keepends=True)
    q.write_text("".join(lines[:3]) + "\n" + "".join(lines[3:]))
    with pytest.raises(InputError, match="q:4: syntax error"):
        R.read_ndeval_qrels(q)
