"""The pool is not every run (issue 31, section 3): ``pool_runs`` / ``--pool-runs`` name the runs
that formed the pool of the ``depth`` and ``leave-one-group-out`` methods, the others are evaluated
on the pool the contributors form (against a literal loop over the run files); the default groups
of TREC's official run names are the submitting teams; a condensed measure's condensed variant is
itself and Judged's trivial one is not added."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from metaeval.cli import main
from metaeval.io import load_collection
from metaeval.meta import incompleteness as inc
from metaeval.meta.kendall import kendall_tau
from metaeval.meta.run import MetaConfig
from metaeval.metrics import evaluate

from test_incompleteness import GAINS, _write_small

CONTRIBUTORS = ["alpha1", "alpha2", "beta1", "gamma1"]          # beta2 and gamma2 came later


def _top(runs_dir: Path, depth: int, names) -> set:
    """(topic, doc) of the top ``depth`` (file order) of the runs ``names``, read from the files."""
    out = set()
    for name in names:
        seen: dict[str, list] = {}
        for line in (runs_dir / name).read_text().splitlines():
            t, _, doc, *_ = line.split()
            seen.setdefault(t, []).append(doc)
        out |= {(t, d) for t, ds in seen.items() for d in ds[:depth]}
    return out


def _qrels_keeping(qrels: Path, keep: set, path: Path) -> Path:
    lines = [ln for ln in qrels.read_text().splitlines() if (ln.split()[0], ln.split()[1]) in keep]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture()
def small(tmp_path):
    q, r = _write_small(tmp_path)
    return load_collection(q, r), q, r


def test_pool_contributors_by_list_glob_and_file(tmp_path):
    runs = ["dl-20-official-input.pash_f1", "dl-20-official-input.pash_r2", "monot5", "duot5"]
    assert inc.pool_contributors(runs, None) == runs
    assert inc.pool_contributors(runs, "dl-20-official-input.*") == runs[:2]
    assert inc.pool_contributors(runs, ["duot5", "monot5"]) == ["monot5", "duot5"]
    f = tmp_path / "pool.txt"
    f.write_text("# the official runs\ndl-20-official-input.pash_r2\n\nduot5 extra-field\n")
    assert inc.pool_contributors(runs, str(f)) == ["dl-20-official-input.pash_r2", "duot5"]
    with pytest.raises(ValueError, match="names no run"):
        inc.pool_contributors(runs, ["monot5", "bm25*"])
    f.write_text("monot5\nnope\n")
    from metaeval.errors import InputError

    with pytest.raises(InputError, match="pool.txt.*2"):
        inc.pool_contributors(runs, f)


def test_depth_pool_of_the_named_runs_equals_a_literal_loop(small, tmp_path):
    """The depth-d pool is the judged documents of the contributors' top d; every run (those that
    did not contribute too) is evaluated on it: tau and RMSE against a literal loop."""
    c, qrels, runs = small
    icfg = inc.IncompletenessConfig(methods=("depth",), depths=(3, 8), pool_runs=tuple(CONTRIBUTORS))
    masks = {}
    res = inc.stage_incompleteness(c, ["AP"], MetaConfig(B=100, incompleteness=icfg), gains=GAINS,
                                   masks_out=masks)
    full = evaluate(c, ["AP"], gains=GAINS)["AP"].mean(axis=1)
    trials = res["incompleteness_trials"]
    for d in (3, 8):
        want = _top(runs, d, CONTRIBUTORS)
        every = _top(runs, d, c.runs)
        assert want != every                                    # the test can tell them apart
        topics, docs, _ = inc.reduced_judgments(c, masks[("depth", str(d), 1)])
        judged = {(c.topics[t], doc.decode()) for t, doc in zip(c.judged_topic, c.judged_docs)}
        assert set(zip(topics, docs)) == want & judged
        ref = load_collection(_qrels_keeping(qrels, want, tmp_path / f"d{d}.txt"), runs)
        scores = evaluate(ref, ["AP"], gains=GAINS)["AP"]      # every run on the contributors' pool
        ok = np.isin(np.array(c.topics), np.array(ref.topics))
        red = np.zeros((len(c.runs), len(c.topics)))
        red[:, ok] = scores
        red = red[:, ok].mean(axis=1)
        row = trials[(trials["metric"] == "AP") & (trials["level"] == str(d))].iloc[0]
        assert row["tau"] == kendall_tau(full, red).tau
        assert math.isclose(row["rmse"], float(np.sqrt(np.mean((red - full) ** 2))), rel_tol=1e-12)


def test_leave_one_group_out_of_the_named_runs_equals_a_literal_loop(small, tmp_path):
    """Groups are formed of the contributors only; a group's runs are evaluated on the pool of the
    other contributors' runs (what only that group brought removed); later runs have no row."""
    c, qrels, runs = small
    icfg = inc.IncompletenessConfig(methods=("leave-one-group-out",), pool_depth=6,
                                    pool_runs=tuple(CONTRIBUTORS))
    pool = inc.stage_incompleteness(c, ["AP"], MetaConfig(B=100, incompleteness=icfg), gains=GAINS)["pool_reuse"]
    groups = inc.pool_groups(c, icfg)
    assert groups == {"alpha1": "alpha", "alpha2": "alpha", "beta1": "beta", "gamma1": "gamma"}
    rows = pool[(pool["metric"] == "AP") & (pool["group"] != "all")]
    assert sorted(rows["run"]) == sorted(CONTRIBUTORS)
    full = evaluate(c, ["AP"], gains=GAINS)["AP"].mean(axis=1)
    lines = qrels.read_text().splitlines()
    everything = {(ln.split()[0], ln.split()[1]) for ln in lines}
    for g in ("alpha", "beta", "gamma"):
        mine = _top(runs, 6, [r for r in CONTRIBUTORS if groups[r] == g])
        others = _top(runs, 6, [r for r in CONTRIBUTORS if groups[r] != g])
        keep = everything - (mine - others)
        red = evaluate(load_collection(_qrels_keeping(qrels, keep, tmp_path / f"{g}.txt"), runs), ["AP"],
                       gains=GAINS)["AP"].mean(axis=1)
        for i, run in enumerate(c.runs):
            if groups.get(run) == g:
                row = rows[rows["run"] == run].iloc[0]
                assert math.isclose(row["reduced"], red[i], rel_tol=1e-12, abs_tol=1e-15)
                assert math.isclose(row["full"], full[i], rel_tol=1e-12)


def test_cli_pool_runs_and_printed_groups(small, tmp_path, capsys):
    c, q, r = small
    f = tmp_path / "contributors.txt"
    f.write_text("\n".join(CONTRIBUTORS) + "\n")
    outs = []
    for spec in (["alpha*", "beta1", "gamma1"], [str(f)]):
        out = tmp_path / f"o{len(outs)}"
        assert main(["incompleteness", "--qrels", str(q), "--runs", str(r), "--out", str(out), "--metrics", "AP",
                     "--method", "depth", "leave-one-group-out", "--depths", "3", "--pool-depth", "6",
                     "--B", "100", "--no-figures", "--pool-runs", *spec]) == 0
        err = capsys.readouterr().err
        assert "3 groups: alpha (2 runs), beta (1 run), gamma (1 run)" in err
        assert "4 of 6 runs formed the pool" in err
        outs.append((out / "tables" / "pool_reuse.csv").read_text())
    assert outs[0] == outs[1]
    icfg = inc.IncompletenessConfig(methods=("leave-one-group-out",), pool_depth=6, pool_runs=tuple(CONTRIBUTORS))
    from metaeval.report.csvio import read_table

    want = inc.stage_incompleteness(c, ["AP"], MetaConfig(B=100, incompleteness=icfg), gains=None)["pool_reuse"]
    got = read_table(tmp_path / "o0" / "tables" / "pool_reuse.csv")
    assert sorted(got["run"].dropna()) == sorted(want["run"].dropna())
    assert main(["incompleteness", "--qrels", str(q), "--runs", str(r), "--out", str(tmp_path / "bad"),
                 "--method", "depth", "--pool-runs", "zeta*", "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "zeta*" in err[0] and not (tmp_path / "bad").exists()


def test_default_groups_of_trec_official_names_are_the_submitting_teams():
    teams = {"pash": ["pash_f1", "pash_f2", "pash_r3"], "bigIR": ["bigIR-DTH-T5-F", "bigIR-DTH-T5-R"],
             "d": ["d_d2q_duo", "d_d2q_bm25"], "TUW": ["TUW-TKL-2k"], "nlm": ["nlm-bert-rr"],
             "fr": ["fr_pass_roberta"], "relemb": ["relemb_mlm_0_2"], "p": ["p_bm25", "p_d2q_bm25rm3"]}
    official = {f"dl-20-official-input.{r}": t for t, rs in teams.items() for r in rs}
    assert inc.run_groups(list(official), inc.DEFAULT_GROUPS) == official
    # beside later runs that share no prefix: TREC's input. prefix still names no group
    later = ["bm25_monot5_msmarco-passage-trec-dl-2020-judged", "tct_colbert_msmarco-passage-trec-dl-2020-judged"]
    mixed = inc.run_groups(list(official) + later, inc.DEFAULT_GROUPS)
    assert {r: mixed[r] for r in official} == official
    assert mixed[later[0]] == "bm" and mixed[later[1]] == "tct"
    # the plain names keep their leading letters (bm25base_p, bm25tuned_p -> bm)
    assert inc.run_groups(["bm25base_p", "bm25tuned_p", "ICT-BERT2"], inc.DEFAULT_GROUPS) == \
        {"bm25base_p": "bm", "bm25tuned_p": "bm", "ICT-BERT2": "ICT"}
    assert inc.group_summary(official).startswith("8 groups: TUW (1 run), bigIR (2 runs), d (2 runs)")
    # a regular expression given still reads the whole name
    assert set(inc.run_groups(list(official), r"^([A-Za-z]+)").values()) == {"dl"}


def test_condensed_measures_listed_and_judged():
    names = inc.measure_names(["AP(judged_only=True)", "Judged@10", "AP"], inc.IncompletenessConfig())
    assert names == ["AP(judged_only=True)", "Judged@10", "AP", "bpref(judged_only=True)", "trec.infAP"]
    assert inc.condensed_name("nDCG(judged_only=True)@10") == "nDCG(judged_only=True)@10"
