"""Property-based fuzzing of the qrels, run and matrix readers over random
mutations of real lines (from the shared data, when present) and synthetic ones: inserted BOMs,
NULs, CRs, tabs, huge fields, non-ASCII digits and letters, truncation, UTF-16.  Every outcome is
either the clean values (for a meaningless mutation) or a one-line InputError naming the file (and
the line); never another exception; memory bounded by a constant times the input size."""

from __future__ import annotations

import gzip
import os
import tracemalloc
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metaeval.errors import InputError
from metaeval.io import read_qrels, read_run
from metaeval.meta.matrices import read_matrix

ROOT = Path(__file__).resolve().parents[2]
from conftest import DATA  # noqa: E402  (METAEVAL_SHARED_DATA honoured)

SYN_QRELS = b"0201 doc-a L1\n0201 doc-b L0\n0201 doc-c L2\n0202 doc-a L0\n0202 d\xc3\xa9 L1\n"
SYN_RUN = (b"0201 Q0 doc-c 1 12.5 tag\n0201 Q0 doc-a 2 -3e-2 tag\n0201 Q0 doc-z 3 -inf tag\n"
           b"0202 Q0 d\xc3\xa9 1 7 tag\n0202 Q0 doc-a 2 6.25 tag\n")
SYN_MATRIX = b"topic,R1,R2\n0201,0.5,0.25\n0202,1.0,0.0\n0203,0.125,0.3333333333333333\n"


def _real_lines() -> dict[str, bytes]:
    """Small real samples: WWW-4 qrels and run lines, a matrix of AP values from the reference."""
    www4 = DATA / "ntcir-www4"
    if not www4.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{www4} is missing")
        return {}
    q = b"".join((www4 / "qrels.txt").read_bytes().splitlines(keepends=True)[:12])
    run_file = sorted((www4 / "runs").glob("*.run.gz"))[0]
    r = b"".join(gzip.decompress(run_file.read_bytes()).splitlines(keepends=True)[:12])
    rows = {}
    nevs = sorted((www4 / "reference" / "ntcireval").glob("*.nev"))[:3]
    for j, nev in enumerate(nevs):
        for line in nev.read_text().splitlines():
            f = line.split()
            if len(f) == 3 and f[1] == "AP=" and f[0] != "ALL":
                rows.setdefault(f[0], [None] * len(nevs))[j] = f[2]
    m = "topic," + ",".join(p.name[:-4] for p in nevs) + "\n"
    m += "".join(f"{t}," + ",".join(v) + "\n" for t, v in list(rows.items())[:6])
    return {"qrels": q, "run": r, "matrix": m.encode()}


REAL = _real_lines()
SAMPLES = {"qrels": [SYN_QRELS], "run": [SYN_RUN], "matrix": [SYN_MATRIX]}
for k, v in REAL.items():
    SAMPLES[k].append(v)

INSERTS = [b"\xef\xbb\xbf", b"\x00", b"\r", b"\t", b"x" * 200_000, "\u0661".encode(), "\uff11".encode(),
           "\u00e9".encode(), b"\xe9", b"\xff\xfe", b"1_0", b" ", b"\n", b","]


def _values(kind: str, path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "qrels":
            q = read_qrels(path)
            return (q.topics, q.topic_index.tolist(), list(q.docs.tolist()), q.level.tolist(), q.max_level)
        if kind == "run":
            r = read_run(path, scores=True)
            return (list(r.topics.tolist()), list(r.docs.tolist()), r.scores.tobytes())
        df = read_matrix(path)
        return (list(df.index), list(df.columns), df.to_numpy().tobytes())


def _outcome(kind: str, path: Path, data: bytes):
    path.write_bytes(data)
    tracemalloc.start()
    try:
        v = _values(kind, path)
        err = None
    except InputError as e:
        v, err = None, e
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak <= 60 * len(data) + (4 << 20), (peak, len(data))
    if err is not None:
        text = str(err)
        assert "\n" not in text and text.startswith(str(path)), text
        assert err.line is not None or kind == "matrix", text
    return v, err


def _mutate(data: bytes, how: str, pos: int, ins: bytes) -> bytes:
    p = pos % (len(data) + 1)
    if how == "insert":
        return data[:p] + ins + data[p:]
    if how == "replace":
        return data[:p] + ins + data[p + 1:]
    if how == "truncate":
        return data[:p]
    if how == "utf16":
        return data.decode("utf-8").encode("utf-16")
    raise AssertionError(how)


# meaningless mutations: the values must be exactly the clean ones
def _meaningless(kind: str, data: bytes) -> list[bytes]:
    out = [b"\xef\xbb\xbf" + data, data.replace(b"\n", b"\r\n")]
    if kind != "matrix":
        out += [data.replace(b" ", b"\t"), data.replace(b"\n", b"  \n"), b"\n\n" + data]
    return out


@pytest.mark.parametrize("kind", ["qrels", "run", "matrix"])
def test_meaningless_mutations_give_clean_values(tmp_path, kind):
    for i, data in enumerate(SAMPLES[kind]):
        clean, err = _outcome(kind, tmp_path / f"clean{i}", data)
        assert err is None, err
        for j, m in enumerate(_meaningless(kind, data)):
            got, err = _outcome(kind, tmp_path / f"m{i}_{j}", m)
            assert err is None and got == clean, (j, err)


@pytest.mark.parametrize("kind", ["qrels", "run", "matrix"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_mutations_clean_values_or_one_line_error(tmp_path, kind, data):
    sample = data.draw(st.sampled_from(SAMPLES[kind]))
    mutated = sample
    for _ in range(data.draw(st.integers(1, 3))):
        how = data.draw(st.sampled_from(["insert", "insert", "replace", "truncate", "utf16"]))
        mutated = _mutate(mutated, how, data.draw(st.integers(0, 10**6)), data.draw(st.sampled_from(INSERTS))) \
            if how != "utf16" or _is_utf8(mutated) else mutated
    _outcome(kind, tmp_path / f"f.{kind}", mutated)


def _is_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def test_known_hostile_inputs(tmp_path):
    """Fixed examples of each mutation on each reader: an error where a value would be wrong."""
    bad = {
        "qrels": [b"\xff\xfe" + SYN_QRELS.decode().encode("utf-16-le"), SYN_QRELS + b"\x00",
                  SYN_QRELS[:20] + b"\xef\xbb\xbf" + SYN_QRELS[20:], b"0201 d L\xd9\xa1\n"],
        "run": [SYN_RUN.replace(b"12.5", "\u0661\u0662".encode()), SYN_RUN.replace(b"12.5", b"1_000"),
                SYN_RUN.replace(b"12.5", b"12.5" + b"9" * 100_000 + b"x")],
        "matrix": [SYN_MATRIX.replace(b"0.5", "\u0661".encode()), SYN_MATRIX.replace(b"0.5", b"1_0"),
                   SYN_MATRIX + b"\x00", SYN_MATRIX.decode().encode("utf-16")],
    }
    for kind, items in bad.items():
        for i, b in enumerate(items):
            v, err = _outcome(kind, tmp_path / f"{kind}{i}", b)
            assert err is not None, (kind, i, v)
