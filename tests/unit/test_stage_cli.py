"""``metaeval stage NAME`` and the orchestration layer (metaeval.pipeline): one stage per process
gives the same bytes as ``metaeval meta``; the layers import downward only; bad usage is one line."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from metaeval.cli import main
from metaeval.meta.run import STAGES, sort_by_sensitivity
from test_meta_cli import write_matrices

OPTS = ["--B", "200", "--seed", "5", "--top-runs", "6", "--select-by", "AP", "--geometric", "AP",
        "--fuzziness", "0.01", "0.05", "--sweep-metrics", "AP", "--sweep-gains", "1:1:1", "--quiet"]


def _sweep_variant(mats):
    """A gain-sweep variant matrix next to the others (the sweep runs when every variant is there)."""
    df = pd.read_csv(mats / "AP.csv", dtype={"topic": str}).set_index("topic")
    (df * 0.9).round(4).to_csv(mats / "AP(gains=1:1:1).csv", lineterminator="\n")


def test_every_stage_run_alone_equals_metaeval_meta(tmp_path):
    """Each stage on its own (as a pipeline job runs it: samples derived from the seed, runs picked
    from the matrices) and then `stage tables` give the bytes of one `metaeval meta` run."""
    mats = write_matrices(tmp_path / "m")
    _sweep_variant(mats)
    metrics = ["--metrics", "AP", "RR", "nDCG@10"]
    assert main(["meta", "--matrices", str(mats), "--out", str(tmp_path / "meta"), "--no-figures",
                 *metrics, *OPTS]) == 0
    parts = tmp_path / "parts"
    for name in STAGES:
        if STAGES[name].labelled:       # needs the labelled collection: tests/unit/test_incompleteness.py
            continue
        if name == "risk":              # on only with a baseline run (metaeval meta: no table without
            continue                    # one; the pipeline: a header-only part): tests/unit/test_risk_stage.py
        # --parts: where a stage that needs others' tables (discpower: the ASLs) finds their parts
        assert main(["stage", name, "--matrices", str(mats), "--out", str(parts / name), "--parts", str(parts),
                     *metrics, *OPTS]) == 0
        assert sorted(p.stem for p in (parts / name).glob("*.csv")) == sorted(STAGES[name].tables)
    runs_used = tmp_path / "runs_used.csv"
    assert main(["stage", "tables", "--matrices", str(mats), "--parts", str(parts), "--out",
                 str(tmp_path / "tables"), "--runs-used", str(runs_used), *metrics, *OPTS]) == 0
    meta = sorted(p.name for p in (tmp_path / "meta" / "tables").iterdir())
    assert meta == sorted(p.name for p in (tmp_path / "tables").iterdir())
    assert "gain_bootstrap.tex" in meta and "tstar.md" in meta
    for name in meta:
        assert (tmp_path / "meta" / "tables" / name).read_bytes() == (tmp_path / "tables" / name).read_bytes(), name
    used = pd.read_csv(runs_used, dtype={"run": str})
    assert list(used.columns) == ["run", "mean"] and len(used) == 6
    # the runs_used file written by select_runs is the same, and --run-list gives the same parts again
    assert main(["stage", "select_runs", "--matrices", str(mats), "--out", str(tmp_path / "r.csv"),
                 "--top-runs", "6"]) == 0
    assert (tmp_path / "r.csv").read_bytes() == runs_used.read_bytes()
    assert main(["stage", "paired", "--matrices", str(mats), "--run-list", str(runs_used), "--out",
                 str(tmp_path / "p2"), *metrics, *OPTS]) == 0
    for t in STAGES["paired"].tables:
        assert (tmp_path / "p2" / f"{t}.csv").read_bytes() == (parts / "paired" / f"{t}.csv").read_bytes()


def test_stage_collection_equals_stages_run_alone(tmp_path):
    """`stage meta` (what the pipeline's meta job runs: every stage in one process, in two
    forked groups with --jobs 2, their tables kept in memory) writes the bytes of the stages run
    one by one -- tables and, with --parts, every part -- and of `metaeval meta`."""
    from metaeval.forking import stage_groups

    mats = write_matrices(tmp_path / "m")
    _sweep_variant(mats)
    metrics = ["--metrics", "AP", "RR", "nDCG@10"]
    # on the matrices; risk is on only with a baseline run (tests/unit/test_risk_stage.py)
    stages = [s for s in STAGES if not STAGES[s].labelled and s != "risk"]
    assert main(["meta", "--matrices", str(mats), "--out", str(tmp_path / "meta"), "--no-figures",
                 *metrics, *OPTS]) == 0
    parts = tmp_path / "parts"
    for name in stages:
        assert main(["stage", name, "--matrices", str(mats), "--out", str(parts / name), "--parts", str(parts),
                     *metrics, *OPTS]) == 0
    # discpower runs after the two stages whose ASLs it reads, in their group
    groups = stage_groups(stages, 2)
    assert len(groups) == 2 and ["paired", "unpaired", "discpower"] in groups
    assert sorted(sum(groups, [])) == sorted(stages)
    for jobs in ("1", "2"):
        out = tmp_path / f"j{jobs}"
        assert main(["stage", "meta", "--matrices", str(mats), "--stages", *stages, "--parts",
                     str(out / "parts"), "--write-parts", "--out", str(out / "tables"), "--jobs", jobs, *metrics, *OPTS]) == 0
        for name in stages:
            for t in STAGES[name].tables:
                assert ((out / "parts" / name / f"{t}.csv").read_bytes()
                        == (parts / name / f"{t}.csv").read_bytes()), (jobs, name, t)
        meta = sorted(p.name for p in (tmp_path / "meta" / "tables").iterdir())
        assert meta == sorted(p.name for p in (out / "tables").iterdir())
        for name in meta:
            assert (tmp_path / "meta" / "tables" / name).read_bytes() == (out / "tables" / name).read_bytes(), name
    # without --parts: the same tables, no part file
    out = tmp_path / "noparts"
    assert main(["stage", "meta", "--matrices", str(mats), "--stages", *stages, "--out", str(out / "tables"),
                 "--jobs", "2", *metrics, *OPTS]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["tables"]
    for name in meta:
        assert (tmp_path / "meta" / "tables" / name).read_bytes() == (out / "tables" / name).read_bytes(), name


def test_unknown_stage_and_missing_inputs_are_one_line_errors(tmp_path, capsys):
    mats = write_matrices(tmp_path / "m")
    with pytest.raises(SystemExit) as e:
        main(["stage", "bogus", "--matrices", str(mats), "--out", str(tmp_path / "o")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "unknown stage 'bogus'" in err and "paired" in err and "tables" in err
    with pytest.raises(SystemExit) as e:
        main(["stage", "paired", "--out", str(tmp_path / "o")])
    assert e.value.code == 2 and "--matrices" in capsys.readouterr().err
    # a metric without a matrix: exit 1, the file named, nothing written
    assert main(["stage", "swap", "--matrices", str(mats), "--out", str(tmp_path / "o"),
                 "--metrics", "AP", "P-plus", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "P-plus.csv" in err
    assert not (tmp_path / "o").exists()
    # tables without the parts of a stage it is told to combine
    assert main(["stage", "tables", "--matrices", str(mats), "--parts", str(tmp_path / "none"),
                 "--stages", "paired", "--out", str(tmp_path / "t"), "--quiet"]) == 1
    assert "bootstrap_paired" in capsys.readouterr().err


def test_sort_by_sensitivity_is_the_table_row_order():
    """The bootstrap tables' row order (meta) is the order the table writer gives them."""
    from metaeval.report.layout_catalogue import KINDS

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"metric": [f"m{i % 7}" for i in range(40)], "pairs": 10,
                       "significant": rng.integers(0, 10, 40), "estimated_diff": rng.uniform(0, 1, 40)})
    df["sensitivity"] = df["significant"] / 10
    df.loc[3, "sensitivity"] = np.nan
    ours = sort_by_sensitivity(df)
    for kind in ("bootstrap_paired", "bootstrap_unpaired"):
        pd.testing.assert_frame_equal(ours, KINDS[kind].sort(df))
    s = ours["sensitivity"].to_numpy()
    assert np.isnan(s[-1]) and (s[:-2] >= s[1:-1]).all()


def _imported(code: str) -> set[str]:
    r = subprocess.run([sys.executable, "-c", code + "; import sys; print(' '.join(sys.modules))"],
                       capture_output=True, text=True, check=True)
    return set(r.stdout.split())


def test_meta_imports_no_presentation_and_pipeline_imports_little():
    mods = _imported("import metaeval.meta, metaeval.meta.run")
    for bad in ("metaeval.tables", "metaeval.figures", "metaeval.summary", "metaeval.pipeline",
                "matplotlib", "snakemake", "scipy.stats"):
        assert bad not in mods, bad
    # the Snakefile may import the orchestration layer: it must not pull pandas in
    mods = _imported("import metaeval.pipeline")
    assert not {"pandas", "matplotlib", "snakemake", "metaeval.meta"} & mods


def test_help_and_one_command_import_only_what_they_use(tmp_path):
    """`metaeval --help` imports the command modules (their help texts) and nothing heavy;
    `metaeval stage NAME` imports its own command module, not the others; a stage that draws no
    figure loads no matplotlib, one that computes no statistic no scipy.stats."""
    heavy = {"numpy", "pandas", "scipy", "matplotlib", "snakemake"}
    run = "from metaeval.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\nx = 0"
    mods = _imported(run.format(argv=["--help"]))
    assert "metaeval.cli.compare" in mods and "metaeval.cli.stage" in mods
    assert not heavy & mods, heavy & mods
    mods = _imported(run.format(argv=["stage", "--help"]))
    assert "metaeval.cli.stage" in mods and not heavy & mods
    assert not {"metaeval.cli.compare", "metaeval.cli.matrices", "metaeval.ntcir.cli"} & mods
    mats = write_matrices(tmp_path / "m")
    mods = _imported(run.format(argv=["stage", "kendall", "--matrices", str(mats), "--out",
                                      str(tmp_path / "k"), "--quiet"]))
    assert (tmp_path / "k" / "kendall.csv").is_file()
    assert not {"matplotlib", "snakemake", "scipy.stats", "metaeval.cli.compare", "metaeval.report.figures"} & mods
