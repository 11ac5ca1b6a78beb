"""Memory bounded by the input, not by its longest id (issue 27, item 7).

One 2 MB document id among 9,000 short ones, in the qrels and in the runs: ``metaeval evaluate``,
``metaeval matrices`` and ``metaeval trec_eval`` read it in a child process whose address space is
limited to 512 MB (fixed-width ``S<W>`` arrays sized by the longest id would ask for 17 GiB), and
print exactly what they print when the long id is replaced by a short one.  The collection cache
(``metaeval ingest``) holds the long id too and gives the same matrices.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

LIMIT = 512 * 2 ** 20
N = 9000
LONG = "D" + "x" * (2 * 2 ** 20)
AT = 4502                     # topic 102, level 1: judged relevant and retrieved


def _write(folder: Path, doc: str) -> None:
    """qrels (50 topics, levels 0-2) and two runs retrieving every judged document (one in
    reverse order); the document of line ``AT`` is ``doc`` in all three files."""
    folder.mkdir()
    ids = [doc if i == AT else f"d{i}" for i in range(N)]
    (folder / "qrels").write_text("".join(f"{100 + i % 50} 0 {d} {i % 3}\n" for i, d in enumerate(ids)))
    runs = folder / "runs"
    runs.mkdir()
    for name, order in (("a", range(N)), ("b", range(N - 1, -1, -1))):
        (runs / name).write_text("".join(f"{100 + i % 50} Q0 {ids[i]} {k // 50 + 1} {1000 - k // 50} {name}\n"
                                         for k, i in enumerate(order)))


def _limit():                 # in the child, before exec
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def _metaeval(args, cwd, limited: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "metaeval", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, preexec_fn=_limit if limited else None)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("long_ids")
    _write(root / "long", LONG)
    _write(root / "short", "dLONG")
    assert (root / "long" / "qrels").stat().st_size > 2 * 2 ** 20
    return root


COMMANDS = {
    "evaluate": ["evaluate", "--qrels", "qrels", "--runs", "runs/a"],
    "trec_eval": ["trec_eval", "-q", "-m", "all_trec", "qrels", "runs/a", "runs/b"],
    "matrices": ["matrices", "--qrels", "qrels", "--runs", "runs", "--out", "m", "--quiet"],
}


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as a memory limit: Linux")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_2mb_id_is_read_under_a_memory_limit_with_the_same_output(files, command):
    args = COMMANDS[command]
    got = _metaeval(args, files / "long", limited=True)
    assert got.returncode == 0, got.stderr[-2000:]
    want = _metaeval(args, files / "short", limited=False)
    assert want.returncode == 0, want.stderr[-2000:]
    if command == "matrices":
        names = sorted(p.name for p in (files / "short" / "m").iterdir())
        assert len(names) > 20 and names == sorted(p.name for p in (files / "long" / "m").iterdir())
        for n in names:
            assert (files / "long" / "m" / n).read_bytes() == (files / "short" / "m" / n).read_bytes(), n
    else:
        assert got.stdout == want.stdout and len(got.stdout) > 1000
    # the long id counts: it is judged relevant and retrieved (a relevant document on topic 102)
    if command == "evaluate":
        assert "102 # syslen=180 jrel=120 jnonrel=60" in got.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as a memory limit: Linux")
def test_the_collection_cache_holds_a_2mb_id(files):
    long = files / "long"
    r = _metaeval(["ingest", "--qrels", "qrels", "--runs", "runs", "--out", "c.npz", "--quiet"], long, True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (long / "c.npz").stat().st_size < 2 * 2 ** 20        # compressed, no fixed-width copy
    r = _metaeval(["matrices", "--collection", "c.npz", "--out", "mc", "--quiet"], long, True)
    assert r.returncode == 0, r.stderr[-2000:]
    r = _metaeval(["matrices", "--qrels", "qrels", "--runs", "runs", "--out", "mc", "--quiet"], files / "short", False)
    assert r.returncode == 0, r.stderr[-2000:]
    names = sorted(p.name for p in (long / "mc").iterdir())
    assert len(names) > 20 and names == sorted(p.name for p in (files / "short" / "mc").iterdir())
    for n in names:
        assert (long / "mc" / n).read_bytes() == (files / "short" / "mc" / n).read_bytes(), n
    from metaeval.collection import Collection

    c = Collection.load(long / "c.npz")
    assert c.judged_docs.dtype == object and LONG.encode() in set(c.judged_docs.tolist())


def test_as_fixed_refuses_a_width_that_the_ids_do_not_pay_for():
    from metaeval.io._text import as_fixed

    short = np.array([b"a", b"bcd"], object)
    assert as_fixed(short).dtype == "S3" and as_fixed(short).tolist() == [b"a", b"bcd"]
    fixed = np.array([b"x", b"yz"])
    assert as_fixed(fixed) is fixed
    many = np.array([b"d%d" % i for i in range(9000)] + [b"x" * 2 ** 21], object)
    assert as_fixed(many) is None
