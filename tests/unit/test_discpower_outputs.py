"""Discriminative power in the outputs: the four tables' layouts, the p-value curves and
the summary, the Discpower text files, the options, the stage in run_meta and in the per-stage
route, and `metaeval meta` on TREC DL19."""

from __future__ import annotations

import filecmp
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _synth_tables import frames, write_csvs
from metaeval import outputs as O

ALPHA = 0.01


@pytest.fixture(scope="module")
def synth():
    return frames(seed=2)


# ----------------------------------------------------------------------------- declarations
def test_declared_tables_have_the_issue_columns():
    assert O.get("anova").columns == ("metric", "topics", "systems", "S_A", "S_B", "S_E", "V_A", "V_B",
                                      "V_E", "F_A", "F_B", "p_A", "p_B")
    assert O.get("pvalues").columns == ("metric", "test", "system_x", "system_y", "diff", "effect_size",
                                        "p_value")
    assert O.get("discriminative_power").columns == ("metric", "test", "alpha", "pairs", "significant",
                                                     "share")
    assert O.get("topic_set_size").columns == ("metric", "method", "alpha", "beta", "min_diff", "systems",
                                               "variance", "n")
    text = O.get("pvalues", kind="text")
    assert text.files() == ["pvalues"] and text.formats == ("METRIC.rthsd.B",)
    for name in ("anova", "pvalues", "discriminative_power", "topic_set_size"):
        o = O.get(name)
        assert o.stages == ("discpower",)
        assert any(c in O.caption(o) for c in ("Carterette (2012)", "Sakai (2014)", "Sakai (2016)"))
    assert "alpha = 0.01" in O.caption(O.get("discriminative_power"), alpha=ALPHA)


def test_stage_produces_exactly_the_declared_tables():
    from metaeval.meta.run import STAGES

    st = STAGES["discpower"]
    assert set(st.tables) == {o.name for o in O.outputs("collection", "table") if "discpower" in o.stages}
    assert st.needs == ("paired", "unpaired")


# ----------------------------------------------------------------------------- layouts
def test_discriminative_power_layout_metrics_by_tests(synth):
    from metaeval.meta.discpower import TESTS
    from metaeval.report.tables import table_texts

    dp = synth["discriminative_power"]
    md = table_texts(dp, "discriminative_power", alpha=ALPHA)[".md"]
    lines = md.splitlines()
    assert "alpha = 0.01" in lines[0]
    assert lines[2] == "| metric | " + " | ".join(TESTS) + " |"
    row = next(ln for ln in lines if ln.startswith("| AP |"))
    cells = [c.strip() for c in row.strip("|").split("|")][1:]
    sub = dp[dp["metric"] == "AP"].set_index("test")
    for t, cell in zip(TESTS, cells):
        k, n = int(sub.loc[t, "significant"]), int(sub.loc[t, "pairs"])
        assert cell == f"{k}/{n} = {int(np.floor(100 * k / n + 0.5))}%"
    # the paired-bootstrap cell says what the paired bootstrap table says of the same pairs
    tex = table_texts(dp, "discriminative_power")[".tex"]
    # every test a column, in one tabular or in the parts of a split one (metaeval.report.texfit)
    specs = re.findall(r"\\begin\{tabular\}\{l(r+)\}", tex)
    assert specs and sum(len(r) for r in specs) == len(TESTS) and "= " in tex


def test_pvalues_layout_summarises_per_metric_and_test(synth):
    from metaeval.report.tables import table_texts

    pv = synth["pvalues"]
    md = table_texts(pv, "pvalues")[".md"]
    lines = md.splitlines()
    assert lines[2] == "| metric | test | pairs | p < 0.01 | p < 0.05 | p < 0.1 | median p |"
    assert len(lines) == 4 + pv.groupby(["metric", "test"]).ngroups
    sub = pv[(pv["metric"] == "Q-measure") & (pv["test"] == "wilcoxon")]["p_value"].to_numpy()
    row = next(ln for ln in lines if ln.startswith("| Q-measure | wilcoxon |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2:6] == [str(len(sub))] + [str(sum(1 for p in sub if p < v)) for v in (0.01, 0.05, 0.10)]
    # the CSV keeps every pair at full precision
    csv = table_texts(pv, "pvalues")[".csv"]
    assert len(csv.splitlines()) == len(pv) + 1


def test_topic_set_size_and_anova_layouts(synth):
    from metaeval.report.tables import table_texts

    tss = synth["topic_set_size"]
    md = table_texts(tss, "topic_set_size")[".md"].splitlines()
    assert md[2].startswith("| metric | V_E | paired t, minD = 0.05 | ANOVA m = 2, minD = 0.05 | "
                            "ANOVA m = 10, minD = 0.05 | ANOVA m = 6, minD = 0.05 |")
    ap = tss[(tss["metric"] == "AP")]
    row = [c.strip() for c in next(ln for ln in md if ln.startswith("| AP |")).strip("|").split("|")]
    assert row[2] == str(int(ap[(ap["method"] == "paired-t") & (ap["min_diff"] == 0.05)]["n"].iloc[0]))
    an = table_texts(synth["anova"], "anova")[".md"].splitlines()
    assert an[2] == ("| metric | topics | systems | S_A | S_B | S_E | V_A | V_B | V_E | F_A | F_B | p_A | "
                     "p_B |")
    assert len(an) == 4 + len(synth["anova"])
    tex = table_texts(synth["anova"], "anova")[".tex"]
    assert "$V_E$" in tex


# ----------------------------------------------------------------------------- figures and summary
def _captured(monkeypatch):
    from metaeval.report import figures as F

    figs = {}

    def save(fig, stem):
        figs[Path(stem).name] = fig
        return []
    monkeypatch.setattr(F, "save_figure", save)
    monkeypatch.setattr("metaeval.report.figure_layout.save_figure", save)   # the summary's figures
    return figs


def test_pvalue_curves_one_panel_per_test_alpha_marked(monkeypatch, synth):
    from metaeval.meta.discpower import TESTS
    from metaeval.report.figures import plot_pvalue_curves

    figs = _captured(monkeypatch)
    plot_pvalue_curves(synth["pvalues"], "pvalues", alpha=ALPHA)
    axes = [ax for ax in figs["pvalues"].axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == [f"{t} (alpha = 0.01)" for t in TESTS]
    for ax in axes:
        curves = [ln for ln in ax.lines if ln.get_linestyle() != ":"]
        assert len(curves) == synth["pvalues"]["metric"].nunique()
        y = curves[0].get_ydata()
        assert (np.diff(y) >= 0).all()                                   # pairs sorted by p-value
        assert [ln.get_ydata()[0] for ln in ax.lines if ln.get_linestyle() == ":"] == [ALPHA]


def test_summary_discriminative_power_table_and_figure(monkeypatch, tmp_path):
    from metaeval.report.summary import write_summary

    a, b = frames(seed=3), frames(seed=4)
    write_csvs(a, tmp_path / "A" / "tables")
    write_csvs(b, tmp_path / "B" / "tables")
    figs = _captured(monkeypatch)
    write_summary({"A": tmp_path / "A", "B": tmp_path / "B"}, tmp_path / "summary", alpha=ALPHA)
    df = pd.read_csv(tmp_path / "summary" / "discriminative_power.csv")
    assert list(df.columns) == ["metric", "test", "A", "B"]
    dp = a["discriminative_power"]
    want = 100 * dp["significant"] / dp["pairs"]
    assert np.allclose(df["A"].to_numpy(), want.to_numpy())
    assert list(df["metric"].drop_duplicates()) == list(dp["metric"].drop_duplicates())
    fig = figs["discriminative_power"]
    assert [ax.get_title() for ax in fig.axes] == ["A: discriminative power by test",
                                                  "B: discriminative power by test"]
    assert fig.axes[0].get_ylabel() == "% pairs with p < 0.01"
    assert "alpha = 0.01" in (tmp_path / "summary" / "discriminative_power.md").read_text()


# ----------------------------------------------------------------------------- Discpower text files
def test_discpower_text_files(synth, tmp_path):
    from metaeval.meta.run import MetaConfig
    from metaeval.pipeline import write_texts

    pv = synth["pvalues"]
    cfg = MetaConfig(rthsd_B=200)
    paths = write_texts({"pvalues": pv}, cfg, tmp_path)                   # the stage's text output: pvalues/
    assert [p.name for p in paths] == [f"{m}.rthsd.200" for m in pv["metric"].drop_duplicates()]
    rt = pv[(pv["metric"] == "nDCG@10") & (pv["test"] == "rthsd")]
    lines = (tmp_path / "pvalues" / "nDCG@10.rthsd.200").read_text().splitlines()
    assert len(lines) == len(rt)
    for line, (x, y, d, p) in zip(lines, rt[["system_x", "system_y", "diff", "p_value"]].itertuples(index=False)):
        fx, fy, fd, fp = line.split(" ")                                   # RUN_X RUN_Y ABSDIFF PVALUE
        assert (fx, fy) == (x, y) and float(fd) == abs(d) and float(fp) == p
    assert write_texts({}, cfg, folder=tmp_path / "empty") == [] and (tmp_path / "empty").is_dir()
    assert write_texts({"kendall": pv.head(0)}, cfg, tmp_path / "none") == [] and not (tmp_path / "none").exists()


# ----------------------------------------------------------------------------- options and stage
def test_cli_options_reach_the_config():
    import argparse

    from metaeval.cli._meta_options import add_config_args, config_from_args

    p = argparse.ArgumentParser()
    add_config_args(p)
    cfg = config_from_args(p.parse_args([]))
    assert (cfg.rthsd_B, cfg.tss_beta, cfg.tss_min_diff, cfg.tss_systems) == (5000, 0.2, (0.05, 0.10),
                                                                              (2, 10, "runs"))
    cfg = config_from_args(p.parse_args(["--rthsd-B", "300", "--tss-beta", "0.1", "--tss-min-diff", "0.02",
                                         "--tss-systems", "3", "runs"]))
    assert (cfg.rthsd_B, cfg.tss_beta, cfg.tss_min_diff, cfg.tss_systems) == (300, 0.1, (0.02,), (3, "runs"))
    with pytest.raises(SystemExit):
        p.parse_args(["--tss-systems", "many"])
    # out of its declared range: a usage error of the parser (exit 2), before any input is read
    with pytest.raises(SystemExit) as e:
        p.parse_args(["--tss-beta", "1.5"])
    assert e.value.code == 2


def _matrices(seed=0, runs=7, topics=12, metrics=("AP", "RR")):
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.2, 0.6, runs)
    return {m: pd.DataFrame(np.clip(skill + rng.normal(0, 0.2, (topics, runs)), 0, 1),
                            index=pd.Index([f"t{i:02d}" for i in range(topics)], name="topic"),
                            columns=pd.Index([f"r{j}" for j in range(runs)], name="run")) for m in metrics}


def test_run_meta_has_the_discpower_tables_and_the_bootstrap_asls():
    from metaeval.meta.run import MetaConfig, run_meta

    cfg = MetaConfig(B=200, seed=5, rthsd_B=300, top_runs=6, tss_systems=(2, "runs"))
    t = run_meta(_matrices(), cfg)
    for name in ("anova", "pvalues", "discriminative_power", "topic_set_size"):
        assert list(t[name].columns) == list(O.get(name).columns), name
    pv, asl = t["pvalues"], t["asl"]
    for test, name in (("paired", "paired-bootstrap"), ("unpaired", "unpaired-bootstrap")):
        a = asl[(asl["test"] == test) & (asl["metric"] == "AP")]
        p = pv[(pv["test"] == name) & (pv["metric"] == "AP")]
        assert list(zip(p["system_x"], p["system_y"])) == list(zip(a["system_x"], a["system_y"]))
        assert (p["p_value"].to_numpy() == a["asl"].to_numpy()).all()
    assert len(pv[(pv["test"] == "rthsd") & (pv["metric"] == "AP")]) == 15      # 6 runs kept
    tss = t["topic_set_size"]
    assert set(tss.loc[tss["method"] == "anova", "systems"]) == {2, 6}


def test_stage_route_equals_run_meta(tmp_path):
    """`metaeval stage discpower` reading the paired/unpaired parts writes what run_meta computes."""
    from metaeval.cli import main
    from metaeval.meta.run import MetaConfig, run_meta
    from metaeval.pipeline import write_part

    mats = _matrices(seed=1)
    mdir = tmp_path / "matrices"
    mdir.mkdir()
    for m, df in mats.items():
        df.to_csv(mdir / f"{m}.csv")
    common = ["--matrices", str(mdir), "--B", "200", "--seed", "3", "--top-runs", "5", "--quiet"]
    for stage in ("paired", "unpaired"):
        assert main(["stage", stage, "--out", str(tmp_path / "parts" / stage), *common]) == 0
    assert main(["stage", "discpower", "--parts", str(tmp_path / "parts"), "--rthsd-B", "250",
                 "--out", str(tmp_path / "parts" / "discpower"), *common]) == 0
    cfg = MetaConfig(B=200, seed=3, top_runs=5, rthsd_B=250)
    from metaeval.meta.matrices import load_matrices

    want = run_meta(load_matrices(mdir), cfg)
    for name in ("anova", "pvalues", "discriminative_power", "topic_set_size"):
        write_part(want[name], tmp_path / f"{name}.csv")
        assert filecmp.cmp(tmp_path / f"{name}.csv", tmp_path / "parts" / "discpower" / f"{name}.csv",
                           shallow=False), name
    # without the parts it says what it needs (one line, no traceback)
    assert main(["stage", "discpower", "--out", str(tmp_path / "x"), *common]) == 1


# ----------------------------------------------------------------------------- DL19 end to end
@pytest.mark.shared_data
def test_metaeval_meta_on_dl19_writes_the_discpower_outputs(tmp_path):
    from conftest import DL19
    from metaeval.cli import main

    mdir = tmp_path / "matrices"
    assert main(["matrices", "--qrels", str(DL19 / "qrels.txt"), "--runs", str(DL19 / "runs"),
                 "--gains", "1:2:3", "--order", "file", "--metrics", "AP", "nDCG@10", "RR", "--out", str(mdir),
                 "--quiet"]) == 0
    out = tmp_path / "out"
    assert main(["meta", "--matrices", str(mdir), "--out", str(out), "--top-runs", "30", "--seed", "1",
                 "--quiet"]) == 0
    tables = out / "tables"
    for name in ("anova", "pvalues", "discriminative_power", "topic_set_size"):
        for ext in ("csv", "md", "tex"):
            assert (tables / f"{name}.{ext}").stat().st_size > 0, (name, ext)
    pv = pd.read_csv(tables / "pvalues.csv")
    asl = pd.read_csv(tables / "asl.csv")
    for m in ("AP", "nDCG@10", "RR"):
        p = pv[(pv["metric"] == m) & (pv["test"] == "paired-bootstrap")]
        a = asl[(asl["metric"] == m) & (asl["test"] == "paired")]
        assert len(p) == 435
        assert list(zip(p["system_x"], p["system_y"])) == list(zip(a["system_x"], a["system_y"]))
        assert (p["p_value"].to_numpy() == a["asl"].to_numpy()).all()
    dp = pd.read_csv(tables / "discriminative_power.csv")
    bp = pd.read_csv(tables / "bootstrap_paired.csv").set_index("metric")
    row = dp[(dp["metric"] == "AP") & (dp["test"] == "paired-bootstrap")].iloc[0]
    assert row["significant"] == bp.loc["AP", "significant"]              # same rule: ASL < alpha
    assert sorted(p.name for p in (out / "pvalues").iterdir()) == ["AP.rthsd.5000", "RR.rthsd.5000",
                                                                   "nDCG@10.rthsd.5000"]
    assert len((out / "pvalues" / "AP.rthsd.5000").read_text().splitlines()) == 435
    assert (out / "figures" / "pvalues.png").stat().st_size > 1000


def test_meta_evaluate_api_has_the_discpower_tables_and_writes_the_texts(tmp_path):
    import metaeval

    res = metaeval.meta_evaluate(_matrices(seed=2), B=100, rthsd_B=200, seed=1)
    assert {"anova", "pvalues", "discriminative_power", "topic_set_size"} <= set(res)
    assert set(res.pvalues["test"]) >= {"rthsd", "paired-bootstrap", "unpaired-bootstrap"}
    res.write(tmp_path / "out", figures=False)
    assert sorted(p.name for p in (tmp_path / "out" / "pvalues").iterdir()) == ["AP.rthsd.200", "RR.rthsd.200"]
