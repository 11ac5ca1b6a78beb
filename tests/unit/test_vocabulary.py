"""Measure names in two vocabularies (NTCIREVAL's and ir_measures'), ``rel=`` on NTCIREVAL's binary
measures, ``judged_only=True`` on any measure, "did you mean", and ``metaeval measures``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.cli import main
from metaeval.collection import PAD, UNJUDGED, Collection
from metaeval.metrics import EvalContext, evaluate
from metaeval.metrics.registry import REGISTRY, nearest_names, parse_measure, tokenize
from metaeval.metrics.vocabulary import EXAMPLES, IR_MEASURES


def _trec_family() -> bool:
    return "trec.map" in REGISTRY


# --------------------------------------------------------------------------------- parsing

def test_split_names_keeps_parentheses_whole():
    from metaeval.metrics.registry import split_names

    assert split_names(" AP  RBP(p=0.8, rel=2)\tnDCG(dcg='exp log2')@10 ") == [
        "AP", "RBP(p=0.8, rel=2)", "nDCG(dcg='exp log2')@10"]
    assert parse_measure("RBP(p=0.8, rel=2)").name == "irm.RBP(rel=2)"


def test_tokenize_reads_quoted_values_and_decimal_at_values():
    assert tokenize("nDCG(dcg='exp-log2')@10") == ("nDCG", [("dcg", "exp-log2")], "10")
    assert tokenize('nDCG(dcg="exp-log2", judged_only=True)@10') == (
        "nDCG", [("dcg", "exp-log2"), ("judged_only", "True")], "10")
    assert tokenize("IPrec@0.1") == ("IPrec", [], "0.1")
    assert tokenize("RBP(p=0.8,rel=2)") == ("RBP", [("p", "0.8"), ("rel", "2")], None)
    assert tokenize("x(gains={0:0,1:1})") == ("x", [("gains", "{0:0,1:1}")], None)


@pytest.mark.parametrize("spelled,canonical", [
    ("AP(rel=1)", "AP"), ("AP(rel=2)", "AP(rel=2)"), ("AP(judged_only=False)", "AP"),
    ("AP(judged_only=true)", "AP(judged_only=True)"), ("AP(rel=2,judged_only=True)", "AP(judged_only=True,rel=2)"),
    ("P(rel=2)@10", "Prec(rel=2)@10"), ("RR@10", "RR@10"), ("MRR(rel=2)@10", "RR(rel=2)@10"),
    ("Rprec", "R-prec"), ("Success@10", "Hit@10"), ("Bpref", "bpref(judged_only=True)"),
    ("Bpref(rel=2)", "bpref(judged_only=True,rel=2)"), ("Judged@10", "Judged@10"),
    ("nDCG(dcg='exp-log2')@10", "gdeval.nDCG@10"),
    ("RBP(p=0.8,rel=2)", "irm.RBP(rel=2)"), ("RBP(p=0.5,rel=1)", "irm.RBP(p=0.5)"),
    ("Compat(p=0.8)", "Compat(p=0.8)"), ("Compat(normalize=False)", "Compat(normalize=False)"),
    ("Q-measure(judged_only=True)", "Q-measure(judged_only=True)"),
])
def test_names_read_the_same_in_both_vocabularies(spelled, canonical):
    for vocabulary in ("ntcireval", "ir_measures"):
        assert parse_measure(spelled, vocabulary).name == canonical
    assert parse_measure(canonical).name == canonical                 # canonical names: fixed points


@pytest.mark.parametrize("name,ntcir,irm", [
    ("nDCG@10", "nDCG@10", "trec.ndcg_cut@10"),
    ("AP@100", "AP@100", "trec.map_cut@100"),
    ("AP(rel=2)@100", "AP(rel=2)@100", "trec.map_cut(rel=2)@100"),
    ("ERR@20", "ERR@20", "gdeval.ERR@20"),
    ("nDCG(dcg='log2')@10", "trec.ndcg_cut@10", "trec.ndcg_cut@10"),     # dcg=: ir_measures' nDCG
])
def test_ambiguous_names_resolve_by_vocabulary(name, ntcir, irm):
    for vocabulary, want in (("ntcireval", ntcir), ("ir_measures", irm), (None, ntcir)):
        if want.startswith("trec.") and not _trec_family():
            with pytest.raises(ValueError, match="trec_eval family"):
                parse_measure(name, vocabulary)
        else:
            assert parse_measure(name, vocabulary).name == want


def test_rbp_without_rel_is_ntcirevals_or_refused():
    assert parse_measure("RBP").name == "RBP"
    with pytest.raises(ValueError, match="needs rel="):
        parse_measure("RBP", "ir_measures")


@pytest.mark.parametrize("bad,msg", [
    ("AP(rel=0)", "relevance level >= 1"), ("AP(judged_only=maybe)", "True or False"),
    ("AP(judged_only=True,judged_only=False)", "given twice"), ("Prec@0.5", "not a positive integer"),
    ("Q-measure(rel=2)", "unknown parameter 'rel'"), ("AP(beta=1)", "unknown parameter"),
    ("nDCG(dcg='exp')@10", "dcg must be"), ("ERR", None),
])
def test_bad_names_are_refused(bad, msg):
    vocab = "ir_measures" if bad.startswith(("nDCG", "ERR")) else "ntcireval"
    with pytest.raises(ValueError, match=msg):
        parse_measure(bad, vocab)


def test_every_canonical_name_is_a_fixed_point_in_vocabulary_ntcireval():
    for base, d in REGISTRY.items():
        name = base + ("@10" if d.cutoff == "required" else "")
        m = parse_measure(name)
        assert parse_measure(m.name) == m, name
    for ex in EXAMPLES:
        for vocabulary in ("ntcireval", "ir_measures"):
            try:
                m = parse_measure(ex, vocabulary)
            except ValueError:
                continue
            assert parse_measure(m.name, "ntcireval") == m, (ex, vocabulary)


def test_every_ir_measures_name_of_the_issue_parses_in_vocabulary_ir_measures():
    names = ["AP", "AP(rel=2)@100", "P(rel=2)@10", "R@1000", "RR@10", "RR(rel=2)", "nDCG@10",
             "nDCG(dcg='exp-log2')@10", "Rprec", "Bpref", "infAP", "Judged@10", "Success@10", "NumRet",
             "NumRel", "NumRelRet", "NumQ", "IPrec@0.1", "SetP", "SetR", "SetF", "ERR@20",
             "RBP(p=0.8,rel=2)", "Compat(p=0.8)"]
    for n in names:
        assert n.split("(")[0].split("@")[0] in IR_MEASURES
        try:
            m = parse_measure(n, "ir_measures")
        except ValueError as e:
            assert "trec_eval family" in str(e) and not _trec_family(), n
            continue
        jo = parse_measure(n.replace("@", "(judged_only=True)@", 1) if "(" not in n and "@" in n
                           else (n + "(judged_only=True)" if "(" not in n else
                                 n.replace(")", ",judged_only=True)", 1)), "ir_measures")
        assert jo.param("judged_only") is True and jo.base == m.base, n


# --------------------------------------------------------------------------------- did you mean

def test_unknown_name_gets_the_three_nearest_names_not_the_whole_list():
    with pytest.raises(ValueError) as e:
        parse_measure("nDGC@10")
    msg = str(e.value)
    assert "did you mean" in msg and "nDCG" in msg
    near = msg.split("did you mean ")[1].split("?")[0].split(", ")
    assert len(near) == 3
    assert len(msg) < 200
    assert nearest_names("Recal", 3)[0] == "Recall"
    assert nearest_names("recip_rank", 3)[0] in ("RecipRank", "trec.recip_rank")


# --------------------------------------------------------------------------------- rel= and judged_only

def _toy(seed=0, R=4, T=6, D=12, H=3):
    rng = np.random.default_rng(seed)
    lv = rng.choice(np.arange(-1, H + 1), size=(R, T, D), p=[0.2, 0.4, 0.2, 0.1, 0.1]).astype(np.int8)
    lengths = rng.integers(3, D + 1, size=(R, T))
    for r in range(R):
        for t in range(T):
            lv[r, t, lengths[r, t]:] = PAD
    counts = rng.integers(0, 5, size=(T, H + 1))
    counts[:, 1:] += 1                                 # every topic has a document of every level
    # the qrels hold at least what the lists hold
    for t in range(T):
        for j in range(H + 1):
            counts[t, j] = max(counts[t, j], int((lv[:, t] == j).sum(axis=1).max()))
    return Collection(topics=tuple(f"t{t}" for t in range(T)), runs=tuple(f"r{r}" for r in range(R)),
                      levels=lv, lengths=lengths, level_counts=counts)


def _loop(c: Collection, rel: int, fn):
    R, T, _ = c.levels.shape
    out = np.zeros((R, T))
    for r in range(R):
        for t in range(T):
            lst = [int(x) for x in c.levels[r, t, :c.lengths[r, t]]]
            nrel = int(c.level_counts[t, rel:].sum())
            nnon = int(c.level_counts[t, :rel].sum())
            out[r, t] = fn(lst, nrel, nnon)
    return out


def _ap(lst, R, N, rel, k=None):
    hits, s = 0, 0.0
    for i, x in enumerate(lst[:k] if k else lst):
        if x >= rel:
            hits += 1
            s += hits / (i + 1)
    return s / (min(k, R) if k else R) if R else 0.0


def _rr(lst, R, N, rel, k=None):
    for i, x in enumerate(lst):
        if x >= rel:
            return 1.0 / (i + 1) if (k is None or i < k) else 0.0
    return 0.0


def _bpref(lst, R, N, rel):
    nonrel, s = 0, 0.0
    for x in lst:
        if x == UNJUDGED:
            continue
        if x >= rel:
            s += 1.0 - min(nonrel, R) / min(N, R) if nonrel > 0 else 1.0
        else:
            nonrel += 1
    return s / R if R else 0.0


@pytest.mark.parametrize("rel", [1, 2, 3])
def test_rel_on_ntcireval_measures_equals_a_literal_loop(rel):
    c = _toy(rel)
    ctx = EvalContext(c)
    ref = {
        f"AP(rel={rel})": _loop(c, rel, lambda l, R, N: _ap(l, R, N, rel)),
        f"AP(rel={rel})@5": _loop(c, rel, lambda l, R, N: _ap(l, R, N, rel, 5)),
        f"Prec(rel={rel})@5": _loop(c, rel, lambda l, R, N: sum(x >= rel for x in l[:5]) / 5),
        f"Hit(rel={rel})@3": _loop(c, rel, lambda l, R, N: float(any(x >= rel for x in l[:3]))),
        f"RR(rel={rel})": _loop(c, rel, lambda l, R, N: _rr(l, R, N, rel)),
        f"RR(rel={rel})@2": _loop(c, rel, lambda l, R, N: _rr(l, R, N, rel, 2)),
        f"R-prec(rel={rel})": _loop(c, rel, lambda l, R, N: sum(x >= rel for x in l[:R]) / R if R else 0.0),
        f"bpref(rel={rel},judged_only=True)": _loop(c, rel, lambda l, R, N: _bpref(l, R, N, rel)),
        f"AP(rel={rel},judged_only=True)": _loop(c, rel, lambda l, R, N: _ap([x for x in l if x >= 0], R, N, rel)),
        "Judged@5": _loop(c, rel, lambda l, R, N: sum(x >= 0 for x in l[:5]) / min(5, len(l)) if l else 0.0),
    }
    got = evaluate(ctx, list(ref))
    for name, want in ref.items():
        canon = parse_measure(name).name
        np.testing.assert_allclose(got[canon], want, rtol=0, atol=1e-15, err_msg=name)


def test_judged_only_is_the_condensed_collection_for_any_measure():
    c = _toy(7)
    ctx = EvalContext(c)
    cond = EvalContext(c.condensed())
    for name in ["Q-measure", "nDCG@5", "ERR@5", "RBP", "AP@5", "NCUrb,P", "kishida-vG"]:
        jo = parse_measure(name).name.replace("@", "(judged_only=True)@") if "@" in name \
            else name + "(judged_only=True)"
        a = evaluate(ctx, [jo])[parse_measure(jo).name]
        b = evaluate(cond, [name])[parse_measure(name).name]
        assert np.array_equal(a, b), name
        if name != "kishida-vG":
            assert not np.array_equal(a, evaluate(ctx, [name])[parse_measure(name).name]), name


def test_rel_above_the_scale_gives_zero_and_r_zero():
    c = _toy(3)
    got = evaluate(EvalContext(c), ["AP(rel=9)", "RR(rel=9)"])
    assert not got["AP(rel=9)"].any() and not got["RR(rel=9)"].any()


def test_evaluate_reads_names_in_the_default_vocabulary_of_its_order(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 a 1\n2 0 d 0\n")
    r = tmp_path / "x.run"
    r.write_text("1 Q0 c 1 3 x\n1 Q0 a 2 2 x\n1 Q0 b 3 1 x\n2 Q0 a 1 5 x\n")
    by_file = metaeval.evaluate(q, [r], ["ERR@20"], order="file")
    by_score = metaeval.evaluate(q, [r], ["ERR@20"], order="score")
    assert set(by_file.measure) == {"ERR@20"} and set(by_score.measure) == {"gdeval.ERR@20"}
    # TREC input (TREC qrels, a six-column run): trec_eval's conventions by default
    pd.testing.assert_frame_equal(metaeval.evaluate(q, [r], ["ERR@20"]), by_score)
    forced = metaeval.evaluate(q, [r], ["ERR@20"], order="score", vocabulary="ntcireval")
    assert set(forced.measure) == {"ERR@20"}
    # gdeval's ERR@20 of topic 1: c (L0), a (L2), b (L1) -> r = 3/16 at rank 2, 1/16 at rank 3
    v = by_score.set_index("topic").value
    assert math.isclose(v["1"], (3 / 16) / 2 + (1 - 3 / 16) * (1 / 16) / 3, rel_tol=0, abs_tol=1e-16)
    with pytest.raises(ValueError, match="vocabulary must be"):
        metaeval.evaluate(q, [r], ["AP"], vocabulary="trec")


# --------------------------------------------------------------------------------- metaeval measures

def test_measures_command_lists_family_parameters_and_source(capsys):
    assert main(["measures", "RR"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("RR "))
    assert "ntcireval" in row and "@k optional" in row and "rel=1" in row and "NTCIREVAL" in row
    assert "MRR" in row                                     # its aliases
    assert "msmarco" in out                                 # the ir_measures name RR and its provider
    assert main(["measures", "gdeval.*"]) == 0
    out = capsys.readouterr().out
    assert "gdeval.ERR" in out and "gdeval.nDCG" in out and "AP " not in out
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    assert all(base in out for base in ("Q-measure", "Judged", "Compat", "irm.RBP", "kishida-vG"))
    assert "judged_only=True" in out


def test_measures_command_with_no_match_suggests_names(capsys):
    assert main(["measures", "nDGC"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("metaeval: error: no measure matches 'nDGC'; did you mean") and "nDCG" in err


# --------------------------------------------------------------------------------- docs/metrics.md

def _docs_vocabulary_rows():
    from conftest import ROOT

    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    sec = text.split("| name | vocabulary `ntcireval` | vocabulary `ir_measures` |")[1].split("\n\n")[0]
    rows = []
    for line in sec.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows.append([c.split("`")[1] if "`" in c else c for c in cells[:3]])
    return rows


def test_docs_vocabulary_table_is_what_the_code_does():
    rows = _docs_vocabulary_rows()
    assert len(rows) >= 30 and {r[0] for r in rows} >= set(EXAMPLES)
    for name, ntcir, irm in rows:
        for vocabulary, want in (("ntcireval", ntcir), ("ir_measures", irm)):
            if want == "-":
                with pytest.raises(ValueError):
                    parse_measure(name, vocabulary)
            elif want.startswith("trec.") and not _trec_family():
                with pytest.raises(ValueError, match="trec_eval family"):
                    parse_measure(name, vocabulary)
            else:
                assert parse_measure(name, vocabulary).name == want, (name, vocabulary)


# --------------------------------------------------------------------------------- the two sides agree

@pytest.mark.skipif(not _trec_family(), reason="the trec_eval family (trec.*) is not installed")
def test_ntcireval_and_trec_eval_agree_where_they_coincide():
    """NTCIREVAL AP = trec_eval map, Prec@k = P_k, RR = recip_rank, R-prec = Rprec, Hit@k =
    success_k, bpref on the condensed list = bpref, MSnDCG@k with gains = levels = ndcg_cut_k, on
    score-ordered lists without ties (the toy collections are lists of levels: order is given)."""
    for seed in range(3):
        c = _toy(seed)
        ctx = EvalContext(c)
        pairs = [("AP", "trec.map"), ("AP(rel=2)", "trec.map(rel=2)"), ("Prec@5", "trec.P@5"),
                 ("RR", "trec.recip_rank"), ("R-prec", "trec.Rprec"), ("Hit@3", "trec.success@3"),
                 ("bpref(judged_only=True)", "trec.bpref"), ("MSnDCG@5", "trec.ndcg_cut@5"),
                 ("AP(judged_only=True)", "trec.map(judged_only=True)")]
        got = evaluate(ctx, [n for p in pairs for n in p])
        for a, b in pairs:
            va, vb = got[parse_measure(a).name], got[parse_measure(b).name]
            tol = 1e-12 if a.startswith("MSnDCG") else 0.0
            np.testing.assert_allclose(va, vb, rtol=0, atol=tol, err_msg=f"{a} vs {b}")


def test_cli_unknown_metric_is_a_usage_error_with_three_suggestions(tmp_path, capsys):
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n")
    r = tmp_path / "x.run"
    r.write_text("1 Q0 a 1 3 x\n")
    with pytest.raises(SystemExit) as e:
        main(["matrices", "--qrels", str(q), "--runs", str(r), "--out", str(tmp_path / "m"),
              "--metrics", "nDGC@10"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("metaeval matrices: error: --metrics: unknown measure 'nDGC'")
    assert err.count(",") == 2 and "did you mean nDCG" in err
    assert not (tmp_path / "m").exists()


def test_metaeval_help_stays_import_light():
    """Registering the subcommands (``metaeval --help``, ``metaeval measures --help``) imports
    neither numpy nor pandas: every command imports its work lazily."""
    import subprocess
    import sys

    code = ("import sys\nfrom metaeval.cli import build_parser\nbuild_parser()\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'metaeval.metrics') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"
