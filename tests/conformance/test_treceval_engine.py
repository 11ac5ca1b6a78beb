"""metaeval.treceval.compute against recorded values: bit for bit on the 37 DL19 runs.

``tests/data/treceval_engine_dl19.json`` holds, per configuration (``-l`` 1 or 2, with or without
``-J``'s condensed lists, trec_eval 10.0 or 9.0.x cutoffs), the sha256 of the float64 bytes of
every value of every measure (each measure of :data:`MEASURES` with its defaults, plus the
parameterised specs of trec_eval's own test suite), as computed by the engine of main before the
compressed (judged positions only) engine replaced the dense one.  Any change of a single bit of
any value (NaN sign included: the drop-in prints ``-nan`` / ``nan`` by it) fails here.

Without the data, on generated rankings: neither the split of the rows into buckets nor keeping
every rank in the view (the path of ``-l`` <= -1 and of a gain for level -1) changes a bit.

Record again (only when a value is meant to change)::

    python tests/conformance/test_treceval_engine.py --record
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metaeval.treceval import MEASURES, compute, make_spec

RECORD = Path(__file__).resolve().parents[1] / "data" / "treceval_engine_dl19.json"

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
    from metaeval.io.trec_ranking import rank_runs
    from metaeval.io.treceval import read_trec_qrels, read_trec_run
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


# --- the compressed view is an implementation detail: neither the split into buckets nor keeping
# every rank (the path of -l <= -1 and of a gain for level -1) changes a bit of any value
GAIN_SPECS = [("ndcg", "-1=2"), ("rbp", "1=-1,2=3"), ("G", "1=2,2=5,-2=1"), ("ndcg_rel", "0=1,-2=2"),
              ("Rndcg", "1=3,2=9"), ("dcg", "-2=-1,3=2"), ("rbp_resid", "p=0.3"), ("unj", "1,3,40")]
PAD = -(2 ** 30)


@st.composite
def rankings(draw):
    R, T, H, D = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(0, 4)), draw(st.integers(1, 40))
    n = R * T * D
    rel = np.array(draw(st.lists(st.integers(-2, H), min_size=n, max_size=n)), np.int32).reshape(R, T, D)
    if draw(st.booleans()):                                   # mostly outside the qrels, as real runs
        rel = np.where(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))).reshape(R, T, D),
                       -1, rel).astype(np.int32)
    nret = np.array(draw(st.lists(st.integers(0, D), min_size=R * T, max_size=R * T)), np.int64).reshape(R, T)
    rel = np.where(np.arange(D) < nret[..., None], rel, PAD).astype(np.int32)
    lv = np.array(draw(st.lists(st.integers(0, 5), min_size=T * (H + 1), max_size=T * (H + 1))),
                  np.int64).reshape(T, H + 1)
    return rel, nret, lv, draw(st.sampled_from([1, 1, 2, 0, -1, 3])), draw(st.sampled_from([10, 9]))


def _run(rel, nret, lv, rl, ver, sps):
    """Every value's bytes, or the exception's type, spec by spec where one raises."""
    try:
        return [(n, v.tobytes()) for n, _, v in compute(rel, nret, lv, sps, rl, 7, ver)]
    except Exception:
        out = []
        for sp in sps:
            try:
                out += [(n, v.tobytes()) for n, _, v in compute(rel, nret, lv, [sp], rl, 7, ver)]
            except Exception as e:
                out.append((sp.name, type(e)))
        return out


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(rankings())
def test_buckets_and_view_do_not_change_values(case):
    import metaeval.treceval.engine as te
    rel, nret, lv, rl, ver = case
    sps = specs() + [make_spec(n, p) for n, p in GAIN_SPECS]
    for args in ((rel, nret), (rel[0], nret[0])):
        want = _run(*args, lv, rl, ver, sps)
        cost, needs_all = te._BUCKET_COST, te._Ctx.needs_all
        try:
            te._BUCKET_COST = 0                               # the finest split
            assert _run(*args, lv, rl, ver, sps) == want
            te._BUCKET_COST = cost
            te._Ctx.needs_all = lambda self, specs: True      # every rank an entry
            assert _run(*args, lv, rl, ver, sps) == want
        finally:
            te._BUCKET_COST, te._Ctx.needs_all = cost, needs_all


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/conformance/test_treceval_engine.py --record")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from conftest import DATA
    RECORD.write_text(json.dumps(all_digests(DATA), indent=0, sort_keys=True) + "\n")
    print(f"wrote {RECORD}")
