"""metaeval.metrics.treceval.compute against recorded values: bit for bit on the 37 DL19 runs.

``tests/data/treceval_engine_dl19.json`` holds, per configuration (``-l`` 1 or 2, with or without
``-J``'s condensed lists, trec_eval 10.0 or 9.0.x cutoffs), the sha256 of the float64 bytes of
every value of every measure (each measure of :data:`MEASURES` with its defaults, plus the
parameterised specs of trec_eval's own test suite), as computed by the engine of main before the
compressed (judged positions only) engine replaced the dense one.  Any change of a single bit of
any value (NaN sign included: the drop-in prints ``-nan`` / ``nan`` by it) fails here.

Record again (only when a value is meant to change)::

    python tests/test_treceval_engine.py --record
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from metaeval.metrics.treceval import MEASURES, compute, make_spec

RECORD = Path(__file__).resolve().parent / "data" / "treceval_engine_dl19.json"

# trec_eval 10.0's test suite (test/*): the parameterised measures it runs
PARAMS = [("iprec_at_recall", ".10,.20,.25,.75,.50"), ("P", "5,7,3"), ("recall", "20,2000"),
          ("Rprec_mult", "5.0,0.2,0.35"), ("utility", "2,-1,0,0"), ("11pt_avg", ".25,.5,.75"),
          ("ndcg", "1=3,2=9,4=4.5"), ("ndcg_cut", "10,20,23.4"), ("success", "2,5,20"), ("rbp", "p=0.8"),
          ("G", "1=2,2=5")]

CONFIGS = {"l1": (1, False, 10), "l2": (2, False, 10), "l1J": (1, True, 10), "l2J": (2, True, 10),
           "l1v9": (1, False, 9)}


def specs():
    return [make_spec(n) for n in MEASURES] + [make_spec(n, p) for n, p in PARAMS]


def load(data: Path, judged_only: bool):
    from metaeval.io.treceval import rank_runs, read_trec_qrels, read_trec_run
    dl = data / "trec-dl19-passage"
    q = read_trec_qrels(dl / "qrels.txt")
    runs = sorted((dl / "runs").glob("*.run.gz"))
    assert len(runs) == 37
    rk = rank_runs(q, [read_trec_run(p, q.topic_bytes) for p in runs], judged_only=judged_only, complete=True)
    return rk.rel, rk.num_ret, rk.rel_levels


def digests(rel, num_ret, rel_levels, rl, version) -> dict[str, str]:
    out = {}
    for name, sp, v in compute(rel, num_ret, rel_levels, specs(), rl, 0, version):
        key = f"{sp.name}|{sp.printable}|{name}"
        assert key not in out
        out[key] = hashlib.sha256(np.ascontiguousarray(v, np.float64).tobytes()).hexdigest()
    return out


def all_digests(data: Path) -> dict:
    rec = {}
    cache = {}
    for cfg, (rl, jo, ver) in CONFIGS.items():
        if jo not in cache:
            cache[jo] = load(data, jo)
        rec[cfg] = digests(*cache[jo], rl, ver)
    return rec


@pytest.fixture(scope="module")
def dl19(shared_data):
    return {jo: load(shared_data, jo) for jo in (False, True)}


@pytest.mark.shared_data
@pytest.mark.parametrize("cfg", list(CONFIGS))
def test_batched_matches_record(dl19, cfg):
    rl, jo, ver = CONFIGS[cfg]
    want = json.loads(RECORD.read_text())[cfg]
    got = digests(*dl19[jo], rl, ver)
    assert got.keys() == want.keys()
    bad = [k for k in want if got[k] != want[k]]
    assert not bad, f"{len(bad)} values differ from the record, e.g. {bad[:5]}"


@pytest.mark.shared_data
@pytest.mark.parametrize("cfg", ["l1", "l2J"])
def test_one_run_at_a_time_matches_batched(dl19, cfg):
    """The drop-in computes one run at a time (rel (T, D)), in chunks of topics."""
    rl, jo, ver = CONFIGS[cfg]
    rel, nret, lv = dl19[jo]
    sp = specs()
    whole = compute(rel, nret, lv, sp, rl, 0, ver)
    for r in (0, 17, 36):
        for a, b in ((0, 43), (0, 20), (20, 43)):
            one = compute(rel[r, a:b], nret[r, a:b], lv[a:b], sp, rl, 0, ver)
            for (n1, _, v1), (n2, _, v2) in zip(whole, one):
                assert n1 == n2
                assert np.ascontiguousarray(v1[r, a:b]).tobytes() == np.ascontiguousarray(v2).tobytes(), (n1, r, a)


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/test_treceval_engine.py --record")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from conftest import DATA
    RECORD.write_text(json.dumps(all_digests(DATA), indent=0, sort_keys=True) + "\n")
    print(f"wrote {RECORD}")
