"""Diversity qrels / intent probabilities / EC qrels: parsing, policies, bad input, the cache."""

from __future__ import annotations


import numpy as np
import pytest

from metaeval.cli import main
from metaeval.collection import Collection
from metaeval.collection import DiversityCollection
from metaeval.errors import InputError, InputWarning
from metaeval.io.ec import load_ec_collection
from metaeval.io.forms import load_or_build
from metaeval.io.intents import load_diversity_collection, read_intent_qrels
from metaeval.metrics import EvalContext, evaluate

QRELS = """\
t1 1 a 2
t1 1 b 0
t1 1 c 1
t1 2 a 0
t1 2 b 1
t1 2 d 3
t2 0 x 1
t2 0 y 0
"""
RUN = """\
t1 Q0 c 1 9 r
t1 Q0 zz 2 8 r
t1 Q0 a 3 7 r
t1 Q0 d 4 6 r
t2 Q0 y 1 5 r
t2 Q0 x 2 4 r
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "run1").write_text(RUN)
    (tmp_path / "p").write_text("t1 1 0.75\nt1 2 0.25\nt2 0 1\n")
    return tmp_path


def _load(files, probs=None, qrels="q", **kw):
    return load_diversity_collection(str(files / qrels), [str(files / "run1")],
                                     None if probs is None else str(files / probs), **kw)


def test_arrays(files):
    c = _load(files, "p")
    assert c.topics == ("t1", "t2") and c.intent_ids == (("1", "2"), ("0",))
    assert c.n_intents.tolist() == [2, 1]
    il = c.intent_levels
    assert il.shape == (1, 2, 1000, 2)
    assert il[0, 0, :4, 0].tolist() == [1, -1, 2, 0] and il[0, 0, :4, 1].tolist() == [0, -1, 0, 3]
    assert il[0, 1, :4, 0].tolist() == [0, 1, -2, -2] and (il[0, 0, 4:] == -2).all()
    assert c.levels[0, 0, :5].tolist() == [1, -1, 2, 3, -2]         # plain view: highest per-intent level
    assert c.probs.tolist() == [[0.75, 0.25], [1.0, 0.0]]
    # ndeval tie key: rank in descending docno order (d > c > b > a)
    j = {d: k for k, d in enumerate(["a", "b", "c", "d"])}
    assert [int(c.judged_order[0, j[d]]) for d in "dcba"] == [0, 1, 2, 3]
    # GG = 0.75*g1 + 0.25*g2 ; a: 1.5, b: 0.25, c: 0.75, d: 0.75
    v = evaluate(EvalContext(c), ["D-Prec@4", "D-nDCG@2", "I-rec@1", "I-rec", "D#-Prec@4"])
    assert v["D-Prec@4"][0, 0] == 0.75
    assert v["I-rec@1"][0, 0] == 0.5 and v["I-rec"][0, 0] == 0.5   # I-rec@n, n = 2: c, zz
    assert v["D#-Prec@4"][0, 0] == pytest.approx(0.5 * 1.0 + 0.5 * 0.75)


def test_uniform_default_and_gains(files):
    c = _load(files)
    assert c.probs[0].tolist() == [0.5, 0.5]
    from metaeval.metrics.diversity import judged_global_gains
    gg = judged_global_gains(c, (1, 2, 3))
    assert gg[0, :4].tolist() == [1.0, 0.5, 0.5, 1.5]
    gg = judged_global_gains(c, (1, 1, 1))
    assert gg[0, :4].tolist() == [0.5, 0.5, 0.5, 0.5]
    # 4-decimal rounding as glabel prints the gains: 1/3 -> 0.3333
    c3 = DiversityCollection(**{**c.__dict__, "probs": np.array([[1 / 3, 2 / 3], [1.0, 0.0]]), "_cache": {}})
    assert judged_global_gains(c3, (1, 2, 3))[0, 2] == 0.3333
    assert judged_global_gains(c3, (1, 2, 3), decimals=None)[0, 2] == 1 / 3


def test_cache_roundtrip_and_selection(files, tmp_path):
    c = _load(files, "p")
    c.save(tmp_path / "c.npz")
    d = Collection.load(tmp_path / "c.npz")
    assert isinstance(d, DiversityCollection)
    assert np.array_equal(d.intent_levels, c.intent_levels) and d.intent_ids == c.intent_ids
    assert np.array_equal(d.probs, c.probs) and d.info == c.info
    e = c.condensed()
    assert e.lengths[0, 0] == 3 and e.intent_levels[0, 0, :3, 1].tolist() == [0, 0, 3]
    assert c.select_runs(["run1"]).doc_index.shape == c.doc_index.shape
    # load_or_build: reused when up to date, rebuilt when the form changes
    p = tmp_path / "cache.npz"
    a = load_or_build(str(files / "q"), [str(files / "run1")], p, qrels_form="intents", intent_probs=str(files / "p"))
    b = load_or_build(str(files / "q"), [str(files / "run1")], p, qrels_form="intents", intent_probs=str(files / "p"))
    assert isinstance(b, DiversityCollection) and np.array_equal(a.doc_index, b.doc_index)
    u = load_or_build(str(files / "q"), [str(files / "run1")], p, qrels_form="intents")
    assert u.probs[0].tolist() == [0.5, 0.5]


@pytest.mark.parametrize("probs,msg", [
    ("t1 1 0.5\nt1 2 0.3\nt2 0 1\n", "sum to 0.8"),
    ("t1 1 0.5\nt2 0 1\n", "intent 2 of topic t1"),
    ("t1 1 x\nt1 2 0.5\nt2 0 1\n", "not a number"),
    ("t1 1 1.5\nt1 2 0.5\nt2 0 1\n", "is outside"),
    ("t1 1 0.5 9\n", "fields"),
])
def test_bad_probabilities(files, probs, msg):
    (files / "bad").write_text(probs)
    with pytest.raises(InputError, match=msg) as e:
        _load(files, "bad")
    assert str(files / "bad") in str(e.value)


def test_probability_warnings(files):
    (files / "w").write_text("t1 1 0.5\nt1 2 0.495\nt2 0 1\nt9 1 1\n")
    with pytest.warns(InputWarning) as rec:
        _load(files, "w")
    msgs = " ".join(str(w.message) for w in rec)
    assert "sum to 0.995" in msgs and "t9/1" in msgs


@pytest.mark.parametrize("qrels,msg,line", [
    ("t1 1 a 2\nt1 1 b x\n", "not an integer", 2),
    ("t1 1 a 2\nt1 1 a 1\n", "judged 2 at line 1 and 1", 2),
    ("t1 1 a 2\nt1 1 b 1 7\n", "fields", 2),
])
def test_bad_qrels(files, qrels, msg, line):
    (files / "bq").write_text(qrels)
    with pytest.raises(InputError, match=msg) as e:
        _load(files, qrels="bq")
    assert f"{files / 'bq'}:{line}" in str(e.value)


def test_rel_outside_levels(files):
    with pytest.raises(InputError, match=r"REL 3 is outside the levels L0..L2") as e:
        _load(files, max_level=2)
    assert f"{files / 'q'}:6" in str(e.value)


def test_intent_without_relevant_document(files):
    (files / "q2").write_text(QRELS + "t1 3 a 0\nt1 3 b -2\n")
    with pytest.warns(InputWarning, match=r"t1/3"):
        c = _load(files, qrels="q2")
    assert c.n_intents.tolist() == [2, 1] and c.intent_ids[0] == ("1", "2", "3")
    assert c.probs[0].tolist() == pytest.approx([1 / 3] * 3)
    with pytest.warns(InputWarning):
        iq = read_intent_qrels(str(files / "q2"))
    assert iq.levels[:, 2].max() == 0                     # -2 -> judged nonrelevant


def test_cli_rejects_probs_without_form(files, capsys):
    with pytest.raises(SystemExit):
        main(["matrices", "--qrels", str(files / "q"), "--runs", str(files / "run1"),
              "--intent-probs", str(files / "p"), "--out", str(files / "o")])
    assert "--intent-probs needs --qrels-form intents" in capsys.readouterr().err


def test_plain_collection_is_one_intent(files):
    (files / "plain").write_text("t1 0 a 1\nt1 0 b 0\nt1 0 c 2\n")
    rc = main(["matrices", "--qrels", str(files / "plain"), "--runs", str(files / "run1"),
               "--out", str(files / "o"), "--quiet", "--order", "file", "--metrics", "D-nDCG@10", "nDCG@10",
               "I-rec@1", "Hit@1", "I-rec@4", "Hit@4", "alpha-nDCG@5", "strec@5"])
    assert rc == 0
    read = lambda n: (files / "o" / f"{n}.csv").read_text().splitlines()[1:]    # noqa: E731
    assert read("D-nDCG@10") == read("nDCG@10")
    assert read("I-rec@1") == read("Hit@1") == ["t1,1.0"] and read("I-rec@4") == read("Hit@4")
    assert read("strec@5") == ["t1,1.0"] and read("alpha-nDCG@5")[0] != "t1,0.0"


def test_evaluate_cli_intents(files, capsys):
    rc = main(["evaluate", "--qrels", str(files / "q"), "--runs", str(files / "run1"), "--qrels-form",
               "intents", "--intent-probs", str(files / "p"), "--metrics", "D-Prec@4", "I-rec@1",
               "--no-means"])
    out = [" ".join(l.split()) for l in capsys.readouterr().out.splitlines()]
    assert rc == 0 and "t1 D-Prec@0004= 0.7500" in out and "t1 I-rec@0001= 0.5000" in out


# ------------------------------------------------------------------------------ EC form

def test_ec_collection(tmp_path):
    (tmp_path / "ec").write_text("t1 a L1 1\nt1 b L2 1\nt1 c L0 -\nt1 d L1 2\nt1 e L2 2\n")
    (tmp_path / "run1").write_text("t1 Q0 c 1 9 r\nt1 Q0 a 2 8 r\nt1 Q0 b 3 7 r\nt1 Q0 d 4 6 r\n"
                                   "t1 Q0 e 5 5 r\n")
    c = load_ec_collection(str(tmp_path / "ec"), [str(tmp_path / "run1")])
    assert c.levels[0, 0, :5].tolist() == [0, 1, -1, 1, -1]      # first item of each class only
    assert c.level_counts.tolist() == [[1, 0, 2]]                 # R = 2 classes, both best L2
    v = evaluate(c, ["AP", "nDCG@5"])
    assert v["AP"][0, 0] == pytest.approx((1 / 2 + 2 / 4) / 2)
    rc = main(["matrices", "--qrels", str(tmp_path / "ec"), "--runs", str(tmp_path / "run1"),
               "--qrels-form", "ec", "--out", str(tmp_path / "o"), "--metrics", "AP", "--quiet"])
    assert rc == 0 and (tmp_path / "o" / "AP.csv").read_text().splitlines()[1] == "t1,0.5"


def test_ec_bad_label(tmp_path):
    (tmp_path / "ec").write_text("t1 a L1 1\nt1 b X2 1\n")
    (tmp_path / "run1").write_text("t1 Q0 a 1 9 r\n")
    with pytest.raises(InputError, match="unknown relevance label") as e:
        load_ec_collection(str(tmp_path / "ec"), [str(tmp_path / "run1")])
    assert f"{tmp_path / 'ec'}:2" in str(e.value)
