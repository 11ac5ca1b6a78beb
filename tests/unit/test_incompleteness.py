"""Robustness to incomplete judgments and pool reuse (metaeval.meta.incompleteness, `metaeval
incompleteness`): the reduced qrels have the documented sizes, the masked collection gives the
values of re-reading the written qrels from files, f = 1 / full depth change nothing, and
leave-one-group-out equals a literal remove-and-re-evaluate loop."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metaeval.cli import main
from metaeval.io import load_collection
from metaeval.io.qrels import format_qrels
from metaeval.meta import incompleteness as inc
from metaeval.meta.kendall import kendall_tau
from metaeval.meta.run import MetaConfig
from metaeval.metrics import evaluate

GAINS = (1.0, 2.0)
MEASURES = ["AP", "nDCG@10", "RR"]


# --------------------------------------------------------------------------- a small collection
def _write_small(tmp: Path, *, only_retrieved: bool = False, seed: int = 3) -> tuple[Path, Path]:
    """3 topics, 6 runs in 3 groups (alpha*, beta*, gamma*), 60 candidate documents per topic,
    about 30 judged at levels 0-2; runs of depth 20."""
    rng = np.random.default_rng(seed)
    runs_dir = tmp / "runs"
    runs_dir.mkdir(parents=True)
    names = ["alpha1", "alpha2", "beta1", "beta2", "gamma1", "gamma2"]
    lists = {}
    for r in names:
        lines = []
        for t in ("t1", "t2", "t3"):
            docs = rng.permutation(60)[:20]
            lists[(r, t)] = [f"d{t}-{d}" for d in docs]
            lines += [f"{t} Q0 d{t}-{d} {k + 1} {100 - k} {r}" for k, d in enumerate(docs)]
        (runs_dir / r).write_text("\n".join(lines) + "\n")
    qlines = []
    for t in ("t1", "t2", "t3"):
        retrieved = sorted({d for (r, tt), ds in lists.items() if tt == t for d in ds})
        pool = retrieved if only_retrieved else [f"d{t}-{d}" for d in range(60)]
        judged = [d for d in pool if rng.random() < 0.6]
        for i, d in enumerate(judged):
            lv = 0 if rng.random() < 0.6 else int(rng.integers(1, 3))
            if i == 0:
                lv = 2
            qlines.append(f"{t} {d} L{lv}")
    (tmp / "qrels.txt").write_text("\n".join(qlines) + "\n")
    return tmp / "qrels.txt", runs_dir


@pytest.fixture()
def small(tmp_path):
    q, r = _write_small(tmp_path)
    return load_collection(q, r), q, r


def _per_topic(c, n):
    return np.bincount(c.judged_topic, minlength=n)


def test_judged_and_stratified_sizes(small):
    c, _, _ = small
    T = len(c.topics)
    n = _per_topic(c, T)
    rel = c.judged_level >= 1
    nrel = np.bincount(c.judged_topic, weights=rel, minlength=T)
    from metaeval.meta.samples import trial_rng

    for f in (0.05, 0.1, 0.3, 0.5, 0.77, 1.0):
        for k in range(5):
            keep = inc.sample_judged(c, f, trial_rng(1, "incompleteness", 0, 0, k))
            kept = np.bincount(c.judged_topic, weights=keep, minlength=T)
            assert (np.abs(kept - f * n) <= 1).all() and (kept >= 1).all()
            assert (kept == np.maximum(1, np.floor(f * n + 0.5))).all()
            assert (np.bincount(c.judged_topic, weights=keep & rel, minlength=T) >= 1).all()
            keep = inc.sample_stratified(c, f, trial_rng(1, "incompleteness", 1, 0, k))
            kr = np.bincount(c.judged_topic, weights=keep & rel, minlength=T)
            kn = np.bincount(c.judged_topic, weights=keep & ~rel, minlength=T)
            assert (np.abs(kr - f * nrel) <= 1).all() and (kr >= 1).all()
            assert (np.abs(kn - f * (n - nrel)) <= 1).all()


def test_trial_draws_do_not_depend_on_how_many_are_drawn_together(small):
    c, _, _ = small
    all5 = inc.trial_masks(c, "judged", 0.3, range(5), seed=11)
    assert np.array_equal(all5[2:], inc.trial_masks(c, "judged", 0.3, range(2, 5), seed=11))
    assert not np.array_equal(all5, inc.trial_masks(c, "judged", 0.3, range(5), seed=12))
    assert not np.array_equal(all5[0], all5[1])


def test_masked_collection_equals_reading_the_reduced_qrels(small, tmp_path):
    """The stacked, masked evaluation (several batches) gives bit for bit what re-reading the
    written qrels from a file gives, as given and on condensed lists."""
    c, _, runs = small
    masks = np.concatenate([inc.trial_masks(c, "judged", 0.3, range(3), seed=5),
                            inc.trial_masks(c, "stratified", 0.5, range(2), seed=5)])
    measures = inc.measure_names(MEASURES, inc.IncompletenessConfig())
    per = len(c.runs) * len(c.topics) * c.depth
    got = inc.reduced_scores(c, masks, measures, GAINS, max_elements=2 * per)     # batches of 2
    for k, keep in enumerate(masks):
        path = tmp_path / f"r{k}.txt"
        path.write_text(format_qrels(*inc.reduced_judgments(c, keep), form="ntcir"))
        ref = load_collection(path, runs)
        assert ref.topics == c.topics          # every topic keeps a relevant document
        raw = evaluate(ref, MEASURES + ["trec.infAP"], gains=GAINS)
        cond = evaluate(ref.condensed(), MEASURES + ["bpref"], gains=GAINS)
        assert measures == ["AP", "AP(judged_only=True)", "nDCG@10", "nDCG(judged_only=True)@10", "RR",
                            "RR(judged_only=True)", "bpref(judged_only=True)", "trec.infAP"]
        for name in measures:
            base = name.replace("(judged_only=True)", "")
            want = cond[base] if "judged_only" in name else raw[base]
            assert np.array_equal(got[name][k], want), (name, k)


def test_full_fraction_and_full_depth_change_nothing(tmp_path):
    q, r = _write_small(tmp_path, only_retrieved=True)
    c = load_collection(q, r)
    icfg = inc.IncompletenessConfig(methods=("judged", "stratified", "depth"), fractions=(1.0,),
                                    depths=(20, 50), trials=3)
    res = inc.stage_incompleteness(c, MEASURES, MetaConfig(B=100, seed=2, incompleteness=icfg), gains=GAINS)
    table = res["incompleteness"]
    assert len(table) == 8 * 4          # (3 measures + condensed + bpref + infAP) x 4 levels
    assert (table["rmse"] == 0.0).all()
    # tau-a of a ranking with itself: 1, less when runs tie (a tied pair counts 0, as in the kendall table)
    cond = evaluate(c.condensed(), MEASURES + ["bpref"], gains=GAINS)
    full = {**evaluate(c, MEASURES + ["trec.infAP"], gains=GAINS),
            **{inc.condensed_name(m): cond[m] for m in MEASURES}, "bpref(judged_only=True)": cond["bpref"]}
    for row in res["incompleteness_trials"].itertuples():
        m = full[row.metric].mean(axis=1)
        assert row.tau == kendall_tau(m, m).tau, row
    for row in table.itertuples():
        m = full[row.metric].mean(axis=1)
        assert math.isclose(row.tau, kendall_tau(m, m).tau, rel_tol=1e-15), row
        assert math.isnan(row.tau_sd) if row.method == "depth" else row.tau_sd == 0.0, row
    assert (table["tau"] == 1.0).sum() >= 28
    # depth: exactly the documents of the runs' top d (a literal loop over the run files)
    for d in (1, 5, 20):
        want = set()
        for f in sorted(r.iterdir()):
            seen = {}
            for line in f.read_text().splitlines():
                t, _, doc, *_ = line.split()
                seen.setdefault(t, []).append(doc)
            want |= {(t, doc) for t, docs in seen.items() for doc in docs[:d]}
        judged = {(c.topics[t], doc.decode()) for t, doc in zip(c.judged_topic, c.judged_docs)}
        topics, docs, _ = inc.reduced_judgments(c, inc.depth_pool(c, d))
        assert set(zip(topics, docs)) == want & judged


def _group_pool_literal(runs_dir: Path, groups: dict, depth: int, opener=open) -> dict[str, set]:
    """group -> the (topic, doc) of its runs' top ``depth`` (file order), read from the files."""
    pools: dict[str, set] = {}
    for f in sorted(runs_dir.iterdir()):
        name = f.name.split(".")[0]
        seen: dict[str, list] = {}
        with opener(f, "rt") as fh:
            for line in fh:
                if line.strip():
                    t, _, doc, *_ = line.split()
                    seen.setdefault(t, []).append(doc)
        pools.setdefault(groups[name], set()).update((t, d) for t, ds in seen.items() for d in ds[:depth])
    return pools


def test_leave_one_group_out_equals_a_literal_loop(small, tmp_path):
    c, qrels, runs = small
    icfg = inc.IncompletenessConfig(methods=("leave-one-group-out",), pool_depth=5)
    res = inc.stage_incompleteness(c, ["AP"], MetaConfig(B=100, incompleteness=icfg), gains=GAINS)
    pool = res["pool_reuse"]
    groups = inc.run_groups(list(c.runs), inc.DEFAULT_GROUPS)
    assert set(groups.values()) == {"alpha", "beta", "gamma"}
    literal = _group_pool_literal(runs, groups, 5)
    full = evaluate(c, ["AP"], gains=GAINS)["AP"].mean(axis=1)
    lines = qrels.read_text().splitlines()
    for g in ("alpha", "beta", "gamma"):
        others = set().union(*(p for h, p in literal.items() if h != g))
        drop = literal[g] - others
        kept = [ln for ln in lines if (ln.split()[0], ln.split()[1]) not in drop]
        path = tmp_path / f"logo-{g}.txt"
        path.write_text("\n".join(kept) + "\n")
        red = evaluate(load_collection(path, runs), ["AP"], gains=GAINS)["AP"].mean(axis=1)
        for i, run in enumerate(c.runs):
            if groups[run] != g:
                continue
            row = pool[(pool["metric"] == "AP") & (pool["run"] == run)].iloc[0]
            assert row["group"] == g
            assert math.isclose(row["reduced"], red[i], rel_tol=1e-12, abs_tol=1e-15)
            assert math.isclose(row["full"], full[i], rel_tol=1e-12)
            others_full = np.delete(full, i)
            assert row["reduced_rank"] == 1 + (others_full > red[i]).sum()
    summary = pool[(pool["metric"] == "AP") & (pool["group"] == "all")]
    assert list(summary["run"]) == list(inc.POOL_SUMMARY)
    runs_rows = pool[(pool["metric"] == "AP") & (pool["group"] != "all")]
    assert math.isclose(summary["delta"].iloc[1], runs_rows["delta"].abs().max())


def test_cli_defaults_are_the_module_defaults():
    from metaeval.meta.stages import incompleteness as o      # the stage's declarations

    assert (o.METHODS, o.DEFAULT_GROUPS, o.DEFAULT_POOL_DEPTH, o.DEFAULT_TRIALS) == \
        (inc.METHODS, inc.DEFAULT_GROUPS, inc.DEFAULT_POOL_DEPTH, inc.DEFAULT_TRIALS)
    assert (o.DEFAULT_FRACTIONS, o.DEFAULT_DEPTHS) == (inc.DEFAULT_FRACTIONS, inc.DEFAULT_DEPTHS)


def test_bad_options_are_one_line_errors(small, tmp_path, capsys):
    with pytest.raises(ValueError, match="unknown"):
        inc.IncompletenessConfig(methods=("sampled",))
    with pytest.raises(ValueError, match="fractions"):
        inc.IncompletenessConfig(fractions=(0.0,))
    _, q, r = small
    code = main(["incompleteness", "--qrels", str(q), "--runs", str(r), "--out", str(tmp_path / "o"),
                 "--method", "leave-one-group-out", "--groups", "^(x)", "--quiet"])
    assert code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not match" in err[0]


# --------------------------------------------------------------------------- DL19 (acceptance)
def _dl19_run(shared_data, out: Path, seed: int, *extra: str) -> None:
    d = shared_data / "trec-dl19-passage"
    assert main(["incompleteness", "--qrels", str(d / "qrels.txt"), "--runs", str(d / "runs"),
                 "--out", str(out), "--metrics", "AP", "nDCG@10", "--gains", "1:2:3", "--top-runs", "30",
                 "--method", "judged", "stratified", "depth", "--fractions", "0.1,0.5,1",
                 "--depths", "10,1000", "--trials", "2", "--B", "200", "--seed", str(seed),
                 "--write-qrels", "--no-figures", "--quiet", "--order", "file", *extra]) == 0


def _qrels_map(path: Path) -> dict:
    out = {}
    for line in path.read_text().splitlines():
        t, _, doc, rel = line.split()
        out[(t, doc)] = max(0, int(rel))
    return out


@pytest.mark.shared_data
def test_dl19_reduced_qrels_files_sizes_values_and_seeds(shared_data, tmp_path):
    _dl19_run(shared_data, tmp_path / "a", 7)
    full = _qrels_map(shared_data / "trec-dl19-passage" / "qrels.txt")
    qdir = tmp_path / "a" / "incompleteness" / "qrels"
    c = load_collection(shared_data / "trec-dl19-passage" / "qrels.txt", shared_data / "trec-dl19-passage" / "runs",
                        order="file")
    used = set(c.topics)
    n_judged = pd.Series([t for t, _ in full if t in used]).value_counts()
    n_rel = pd.Series([t for (t, _), v in full.items() if t in used and v > 0]).value_counts()
    names = sorted(p.name for p in qdir.iterdir())
    assert names == sorted([f"{m}-{f}-{k}.txt" for m in ("judged", "stratified") for f in ("0.1", "0.5", "1")
                            for k in (1, 2)] + ["depth-10-1.txt", "depth-1000-1.txt"])
    for name in names:
        red = _qrels_map(qdir / name)
        assert all(full[k] == v for k, v in red.items()), name          # a subset, same levels
        kept = pd.Series([t for t, _ in red]).value_counts()
        rel = pd.Series([t for (t, _), v in red.items() if v > 0]).value_counts()
        if name.startswith(("judged", "stratified")):
            f = float(name.split("-")[1])
            assert set(rel.index) == used                                # >= 1 relevant per topic
            if name.startswith("judged"):
                assert (abs(kept.reindex(n_judged.index) - f * n_judged) <= 1).all(), name
            else:
                assert (abs(rel.reindex(n_rel.index) - f * n_rel) <= 1).all(), name
                nonrel = (kept.reindex(n_judged.index, fill_value=0) - rel.reindex(n_judged.index, fill_value=0))
                assert (abs(nonrel - f * (n_judged - n_rel.reindex(n_judged.index, fill_value=0))) <= 1).all()
    # depth 10: exactly the judged documents of the runs' top 10
    groups = {p.name.split(".")[0]: "all" for p in (shared_data / "trec-dl19-passage" / "runs").iterdir()}
    top10 = _group_pool_literal(shared_data / "trec-dl19-passage" / "runs", groups, 10, gzip.open)["all"]
    assert set(_qrels_map(qdir / "depth-10-1.txt")) == {k for k in full if k in top10 and k[0] in used}

    # the per-trial values are those of `metaeval matrices` on the written qrels file
    trials = pd.read_csv(tmp_path / "a" / "incompleteness" / "trials.csv", dtype={"level": str})
    runs_used = None
    for name, (method, level, trial) in {"judged-0.1-2.txt": ("judged", "0.1", 2),
                                         "depth-10-1.txt": ("depth", "10", 1)}.items():
        for condensed in (False, True):
            mdir = tmp_path / f"m-{name}-{condensed}"
            assert main(["matrices", "--qrels", str(qdir / name), "--runs",
                         str(shared_data / "trec-dl19-passage" / "runs"), "--metrics", "AP", "--gains", "1:2:3",
                         "--order", "file", "--out", str(mdir), "--quiet"] + (["--condensed"] if condensed else [])) == 0
            red = pd.read_csv(mdir / "AP.csv", dtype={"topic": str}).set_index("topic")
            if runs_used is None:
                full_ap = evaluate(c, ["AP"], gains=(1, 2, 3))["AP"]
                means = pd.Series(full_ap.mean(axis=1), index=list(c.runs))
                runs_used = list(means.sort_values(ascending=False, kind="mergesort").index[:30])
            fullm = evaluate(c.select_runs(runs_used) if not condensed else c.condensed().select_runs(runs_used),
                             ["AP"], gains=(1, 2, 3))["AP"].mean(axis=1)
            redm = red[runs_used].to_numpy().mean(axis=0)
            metric = "AP(judged_only=True)" if condensed else "AP"
            row = trials[(trials["metric"] == metric) & (trials["method"] == method) & (trials["level"] == level)
                         & (trials["trial"] == trial)].iloc[0]
            assert math.isclose(row["tau"], kendall_tau(fullm, redm).tau, abs_tol=1e-12)
            assert math.isclose(row["rmse"], float(np.sqrt(np.mean((redm - fullm) ** 2))), rel_tol=1e-9)
            from metaeval.meta.bootstrap import paired_bootstrap

            res = paired_bootstrap(red[runs_used].to_numpy(), B=200, seed=7)
            assert row["significant_pairs"] == res.significant
    # f = 1: tau 1, rmse 0
    table = pd.read_csv(tmp_path / "a" / "tables" / "incompleteness.csv", dtype={"level": str})
    at1 = table[table["level"] == "1"]
    assert len(at1) == 2 * 6 and (at1["tau"] == 1).all() and (at1["rmse"] == 0).all()

    # the same seed: byte-identical qrels and tables; another seed: other samples
    _dl19_run(shared_data, tmp_path / "b", 7)
    for p in sorted((tmp_path / "a").rglob("*")):
        if p.is_file():
            assert p.read_bytes() == (tmp_path / "b" / p.relative_to(tmp_path / "a")).read_bytes(), p
    _dl19_run(shared_data, tmp_path / "c", 8)
    assert (qdir / "judged-0.5-1.txt").read_bytes() != \
        (tmp_path / "c" / "incompleteness" / "qrels" / "judged-0.5-1.txt").read_bytes()
    assert (qdir / "depth-10-1.txt").read_bytes() == \
        (tmp_path / "c" / "incompleteness" / "qrels" / "depth-10-1.txt").read_bytes()


@pytest.mark.shared_data
def test_dl19_leave_one_group_out_equals_metaeval_matrices_loop(shared_data, tmp_path):
    d = shared_data / "trec-dl19-passage"
    out = tmp_path / "o"
    assert main(["incompleteness", "--qrels", str(d / "qrels.txt"), "--runs", str(d / "runs"), "--out", str(out),
                 "--metrics", "AP", "--gains", "1:2:3", "--method", "leave-one-group-out", "--pool-depth", "20",
                 "--no-condensed", "--B", "100", "--write-qrels", "--no-figures", "--quiet"]) == 0
    pool = pd.read_csv(out / "tables" / "pool_reuse.csv", dtype={"group": str, "run": str})
    runs = sorted(p.name.split(".")[0] for p in (d / "runs").iterdir())
    groups = inc.run_groups(runs, inc.DEFAULT_GROUPS)
    literal = _group_pool_literal(d / "runs", groups, 20, gzip.open)
    full_lines = (d / "qrels.txt").read_text().splitlines()
    for g in ("ICT", "TUW", "idst"):                 # three groups of the literal loop
        drop = literal[g] - set().union(*(p for h, p in literal.items() if h != g))
        assert drop, g
        path = tmp_path / f"{g}.txt"
        path.write_text("".join(ln + "\n" for ln in full_lines if (ln.split()[0], ln.split()[2]) not in drop))
        mdir = tmp_path / f"m-{g}"
        assert main(["matrices", "--qrels", str(path), "--runs", str(d / "runs"), "--metrics", "AP",
                     "--gains", "1:2:3", "--out", str(mdir), "--quiet"]) == 0
        red = pd.read_csv(mdir / "AP.csv", dtype={"topic": str}).set_index("topic")
        for run in [r for r in runs if groups[r] == g]:
            row = pool[(pool["run"] == run)].iloc[0]
            assert math.isclose(row["reduced"], red[run].mean(), rel_tol=1e-12), run
        # the written qrels of the group is the literal one (same judgments)
        assert _qrels_map(out / "incompleteness" / "qrels" / f"leave-one-group-out-{g}.txt") == _qrels_map(path)


def test_pipeline_stage_equals_the_command_and_the_cache_keeps_documents(tmp_path):
    """`metaeval stage incompleteness` (a pipeline job, on the .npz cache) and then `stage tables`
    write the bytes of `metaeval incompleteness`; the cache round-trips the document identity and a
    cache without it is rebuilt."""
    from metaeval.collection import Collection
    from metaeval.io.forms import load_or_build

    q, r = _write_small(tmp_path / "data")
    cache, mats = tmp_path / "c.npz", tmp_path / "m"
    assert main(["matrices", "--qrels", str(q), "--runs", str(r), "--cache", str(cache), "--out", str(mats),
                 "--metrics", "AP", "RR", "--gains", "1:2", "--quiet"]) == 0
    c = Collection.load(cache)
    fresh = load_collection(q, r)
    assert c.has_documents
    for a in ("qrels_row", "judged_topic", "judged_docs", "judged_level"):
        assert np.array_equal(getattr(c, a), getattr(fresh, a)), a
    opts = ["--metrics", "AP", "RR", "--B", "100", "--seed", "4", "--top-runs", "5", "--method", "judged",
            "depth", "leave-one-group-out", "--fractions", "0.5", "--depths", "5", "--trials", "2",
            "--pool-depth", "5", "--write-qrels", "--quiet"]
    assert main(["stage", "incompleteness", "--matrices", str(mats), "--collection", str(cache), "--gains", "1:2",
                 "--out", str(tmp_path / "parts" / "incompleteness"), "--folder", str(tmp_path / "p" / "incompleteness"),
                 *opts]) == 0
    assert main(["stage", "tables", "--matrices", str(mats), "--parts", str(tmp_path / "parts"), "--stages",
                 "incompleteness", "--out", str(tmp_path / "p" / "tables"), "--metrics", "AP", "RR", "--B", "100",
                 "--seed", "4", "--top-runs", "5", "--quiet"]) == 0
    assert main(["incompleteness", "--qrels", str(q), "--runs", str(r), "--out", str(tmp_path / "cli"), "--gains",
                 "1:2", "--no-figures", *opts]) == 0
    for name in ("incompleteness", "pool_reuse"):
        for ext in ("csv", "md", "tex"):
            assert (tmp_path / "cli" / "tables" / f"{name}.{ext}").read_bytes() == \
                (tmp_path / "p" / "tables" / f"{name}.{ext}").read_bytes(), (name, ext)
    for p in sorted((tmp_path / "cli" / "incompleteness").rglob("*")):
        if p.is_file():
            assert p.read_bytes() == (tmp_path / "p" / "incompleteness" / p.relative_to(
                tmp_path / "cli" / "incompleteness")).read_bytes(), p
    # 6 measures (AP, RR, condensed, bpref, infAP) x (5 runs in use + 3 summary rows)
    assert len(pd.read_csv(tmp_path / "cli" / "tables" / "pool_reuse.csv")) == 6 * (5 + 3)
    # a cache written before document identity (no qrels_row) is rebuilt, not used
    old = Collection(topics=c.topics, runs=c.runs, levels=c.levels.copy(), lengths=c.lengths.copy(),
                     level_counts=c.level_counts.copy(), info=c.info)
    old.save(cache)
    assert not Collection.load(cache).has_documents
    assert load_or_build(q, r, cache).has_documents


def test_added_measures_take_the_configured_relevance_threshold():
    """Every binary measure at rel=2 (a track judging on 0-3): bpref and infAP are added at rel=2;
    graded measures do not count; binary measures at two thresholds leave the added ones at rel=1."""
    cfg = inc.IncompletenessConfig()
    two = inc.measure_names(["AP(rel=2)", "nDCG@10", "P@10(rel=2)"], cfg)
    assert two[-2:] == ["bpref(judged_only=True,rel=2)", "trec.infAP(rel=2)"]
    assert inc.binary_threshold(["AP(rel=2)", "nDCG@10"]) == 2 and inc.binary_threshold(["nDCG@10"]) is None
    assert inc.measure_names(["AP(rel=2)", "RR"], cfg)[-2:] == ["bpref(judged_only=True)", "trec.infAP"]
    assert inc.measure_names(["nDCG@10"], cfg)[-2:] == ["bpref(judged_only=True)", "trec.infAP"]
    assert inc.measure_names(["AP(rel=2)"], inc.IncompletenessConfig(extra=("bpref(rel=3)",)))[-1] == "bpref(rel=3)"
