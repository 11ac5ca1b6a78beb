"""metaeval.dag: the pipeline's jobs from its config, as Python (workflow/rules/common.smk is a
thin adapter). The arguments are those the workflow gave before the logic moved here, byte for
byte (recorded from `snakemake -n -p` of config.yaml and config/examples/trec-dl19.yaml)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from metaeval import dag, outputs
from metaeval.stages import NamedFiles, parameter

ROOT = Path(__file__).resolve().parents[2]
FUZZ = " ".join(str(i / 100) for i in range(1, 21))
METRICS = "RR NWRR O-measure P-measure P-plus AP Q-measure Prec@1000 nCG@1000 nDCG@1000"


def _validated(cfg: dict) -> dict:
    from snakemake.utils import validate

    cfg = copy.deepcopy(cfg)
    validate(cfg, str(ROOT / "workflow/schemas/config.schema.yaml"))
    return cfg


def _shipped(name: str) -> dict:
    return _validated(yaml.safe_load((ROOT / name).read_text(encoding="utf-8")))


def _in_order(part, whole) -> bool:
    """Whether ``part`` is a subsequence of ``whole`` (a stage added to the registry adds its own)."""
    it = iter(whole)
    return all(x in it for x in part)


def test_default_config_jobs_and_arguments():
    from metaeval.meta import stages

    plan = dag.Plan(_shipped("config.yaml"))
    assert plan.metrics == METRICS.split() and plan.select_by == "AP" and plan.geometric == ["AP", "Q-measure"]
    # the stage lists from the registry: every method whose condition this config switches on, in order;
    # those on the labelled collection in a job of their own
    assert plan.method_stages == stages.method_stages(**plan.conditions)
    assert _in_order(["kendall", "paired", "unpaired", "swap", "stability", "gain_sweep", "rank_correlation",
                      "discpower", "incompleteness"], plan.method_stages) and "risk" not in plan.method_stages
    assert plan.own_job_stages == [s for s in plan.method_stages if stages.get(s).labelled]
    assert plan.meta_stages == [s for s in plan.method_stages if s not in plan.own_job_stages]
    sweep = plan.job("gain_sweep")
    assert sweep.on and sweep.matrices[:3] == ("P-plus", "P-measure", "O-measure")
    assert sweep.matrices[3:5] == ("P-plus(gains=10:20:30)", "P-plus(gains=0.1:0.2:0.3)")
    assert plan.matrix_metrics[:10] == METRICS.split() and len(plan.matrix_metrics) == 22
    # the meta job's options: the package's stages' in order (a stage added adds its own between them)
    args = plan.group_args(plan.meta_stages + ["tables"], "ntcir5-chinese")
    papers = (f"--metrics {METRICS} --top-runs 30 --select-by AP --B 1000 --alpha 0.05 --seed 20070101 "
              f"--geometric AP Q-measure --swap-threshold 0.05 --fuzziness {FUZZ} --sweep-metrics P-plus "
              "P-measure O-measure --sweep-gains 10:20:30 0.1:0.2:0.3 1:1:1 1:5:10 --default-gains 1:2:3 "
              "--rbo-p 0.9 --rthsd-B 5000 --tss-beta 0.2 --tss-min-diff 0.05 0.1 --tss-systems 2 10 runs")
    chunks = args.split(" --")
    assert _in_order(papers.split(" --"), chunks[:-1]), args
    assert chunks[-1] == "stages " + " ".join(plan.method_stages)
    assert plan.stage_args("incompleteness", "ntcir3-japanese") == (
        f"--B 1000 --alpha 0.05 --seed 20070101 --metrics {METRICS} --method judged --fractions 0.3,0.5,0.7 "
        "--depths 10,20,50,100 --trials 5 --groups auto --pool-depth 100 --top-runs 30 --select-by AP")
    # the targets: every declared file of every collection, the summary and Kishida's
    per = len([f for o in outputs.outputs("collection", **plan.conditions) for f in o.files()])
    assert len(plan.targets()) == 4 * per + len(outputs.files("summary")) + len(outputs.files("kishida"))
    assert plan.qrels_path("ntcir3-chinese") == "data/simulated/ntcir3-chinese/qrels.txt"
    assert plan.simulate_params("ntcir3-chinese") == '{"preset": "ntcir3-chinese"}'
    assert plan.warnings == [] and plan.notes == []


def test_dl19_incompleteness_switches(tmp_path):
    cfg = _shipped("config/examples/trec-dl19.yaml")
    plan = dag.Plan(cfg)
    args = plan.stage_args("incompleteness", "trec-dl19")
    assert args.endswith("--pool-depth 100 --write-qrels --top-runs 30 --select-by AP")
    assert "--method judged stratified depth leave-one-group-out --fractions 0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9 " in args
    cfg["incompleteness"]["condensed"] = False
    assert "--write-qrels --no-condensed --top-runs" in dag.Plan(cfg).stage_args("incompleteness", "trec-dl19")


def test_canonical_names_warnings_notes_and_errors():
    base = {"collections": {"x": {"qrels": "q", "runs": "r"}}, "metrics": ["AP", "MAP", "Q", "Q-measure"],
            "geometric": ["MAP"], "select_by": "MAP", "sweeps": {"gains": {"enabled": False}}}
    plan = dag.Plan(_validated(base))
    assert plan.metrics == ["AP", "Q-measure"] and plan.geometric == ["AP"] and plan.select_by == "AP"
    assert len(plan.warnings) == 2 and "'MAP' is the same measure as 'AP'" in plan.warnings[0]
    assert not plan.is_on("gain_sweep") and "gain_sweep" not in plan.method_stages and plan.job("gain_sweep").matrices == ()
    assert "--sweep-metrics" not in plan.group_args(plan.meta_stages, "x")
    intents = _validated(dict(base, collections={"x": {"qrels": "q", "runs": "r", "qrels_form": "intents"}}))
    plan = dag.Plan(intents)
    assert plan.conditions == {"gain_sweep": False, "incompleteness": False, "risk": False, "standardisation": False,
                               "test_errors": False, "reproducibility": False, "bayes": False} and plan.own_job_stages == []
    assert plan.notes and "incompleteness stage is skipped" in plan.notes[0]
    with pytest.raises(ValueError, match="^config: metrics: "):
        dag.Plan(_validated(dict(base, metrics=["nonsense("])))
    with pytest.raises(ValueError, match="matches no file"):
        dag.Plan(_validated(dict(base, collections={"x": {"qrels": "q", "runs": "/nonexistent/*.run"}}))).run_files("x")


def test_coerce_types_text_values_by_the_schema():
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text(encoding="utf-8"))
    cfg = {"bootstrap": {"B": "200", "alpha": "0.01"}, "incompleteness": {"enabled": "false"},
           "collections": {"x": {"top_runs": "null", "depth": "100"}}}
    dag.coerce(cfg, schema)
    assert cfg == {"bootstrap": {"B": 200, "alpha": 0.01}, "incompleteness": {"enabled": False},
                   "collections": {"x": {"top_runs": None, "depth": 100}}}


def test_common_smk_is_an_adapter():
    """The workflow's logic is in metaeval.dag: common.smk holds no stage list, no argument table."""
    text = (ROOT / "workflow/rules/common.smk").read_text(encoding="utf-8")
    for gone in ("STAGE_ARGS", "def _coerce", "def _canonical", "_unique_config_measures", "RTHSD_B"):
        assert gone not in text, gone
    assert "PLAN = _dag.Plan(config)" in text


def test_per_collection_parameters(monkeypatch):
    """A parameter whose config key goes through ("collections", "*", ...) is read per collection
    (its default where the collection does not give it)."""
    from metaeval.meta import stages

    prm = stages.Param("baseline", str, (), "baseline runs", nargs="+", config=("collections", "*", "baseline"))
    st = stages.StageInfo("perc", "matrices", lambda inputs, params: {}, reads=("baseline", "metrics"), params=(prm,))
    get, param = stages.get, stages.param
    monkeypatch.setattr(stages, "get", lambda name: st if name == "perc" else get(name))
    monkeypatch.setattr(stages, "param", lambda name: prm if name == "baseline" else param(name))
    cfg = {"collections": {"a": {"baseline": ["r1", "r 2"]}, "b": {}}}
    assert dag.stage_arguments("perc", cfg, {"metrics": ["AP"]}, collection="a") == "--baseline r1 'r 2' --metrics AP"
    assert dag.stage_arguments("perc", cfg, {"metrics": ["AP"]}, collection="b") == "--metrics AP"
    with pytest.raises(ValueError, match="per collection"):
        dag.stage_arguments("perc", cfg, {"metrics": ["AP"]})
    assert "perc" not in dag.schema_sections()


def test_a_new_conditional_stage_follows_its_switch(monkeypatch):
    from metaeval import stages

    st = stages.StageInfo("sw", "matrices", lambda inputs, params: {}, condition="sw", switch=("sw", "enabled"))
    reg = stages.REGISTRY
    monkeypatch.setitem(stages._CACHE, "registry", reg[:-5] + (st,) + reg[-5:])
    monkeypatch.setitem(stages._CACHE, "by_name", {**{s.name: s for s in reg}, "sw": st})
    base = _shipped("config.yaml")
    assert dag.Plan(base).conditions["sw"] is True and "sw" in dag.Plan(base).method_stages
    off = dict(base, sw={"enabled": False})
    assert dag.Plan(off).conditions["sw"] is False and "sw" not in dag.Plan(off).method_stages


# --------------------------------------------------------------------------- main's issues 28-31 on the Plan
def test_risk_condition_from_the_collections_parameters():
    """risk has no switch: its outputs are on once a collection names a baseline (its `applies` on
    the configured parameters), and each collection's meta job gets its own baseline and alphas."""
    cfg = _shipped("config.yaml")
    plan = dag.Plan(cfg)
    assert plan.conditions["risk"] is False and "risk" not in plan.method_stages
    cfg["collections"]["ntcir3-chinese"]["risk"] = {"baseline": "run01", "alpha": [0, 5]}
    plan = dag.Plan(cfg)
    assert plan.conditions["risk"] is True and "risk" in plan.meta_stages
    assert "--metrics RR NWRR" in plan.stage_args("risk", "ntcir3-chinese")
    assert plan.group_args(plan.meta_stages, "ntcir3-chinese").endswith("--risk-baseline run01 --risk-alpha 0 5")
    assert "--risk-baseline" not in plan.group_args(plan.meta_stages, "ntcir5-chinese")   # header-only table there
    assert "results/ntcir5-chinese/tables/risk.csv" in plan.targets()


def test_writers_job_labels_and_pair_top_runs(tmp_path, monkeypatch):
    # the layout's parameters are the writers job's, the labels its input: neither reaches the meta job
    monkeypatch.chdir(tmp_path)
    cfg = _shipped("config.yaml")
    cfg["labels"], cfg["pair_top_runs"] = {"run01": "BM25", "AP": "MAP"}, 0
    plan = dag.Plan(cfg)
    args = plan.writers_args("ntcir3-chinese")
    assert args.startswith("--select-by AP --collection-name ntcir3-chinese --B 1000 --rthsd-B 5000 --alpha 0.05 "
                           "--swap-threshold 0.05 --pair-top-runs 0 --reproduction --views collection ")
    meta = plan.group_args(plan.meta_stages + ["tables"], "ntcir3-chinese")
    assert "--labels" not in args and "--labels" not in meta and "--pair-top-runs" not in meta
    [path] = plan.labels_inputs()
    assert path.startswith(str(tmp_path / ".snakemake/metaeval/labels/"))
    assert open(path, encoding="utf-8").read() == "run01 BM25\nAP MAP\n"
    cfg["labels"] = "my labels.txt"
    assert dag.Plan(cfg).labels_inputs() == ["my labels.txt"]
    cfg["labels"] = None
    assert dag.Plan(cfg).labels_inputs() == []


def test_orders_pool_runs_groups_and_report_views():
    cfg = _shipped("config.yaml")
    assert {c["order"] for c in dag.Plan(cfg).config["collections"].values()} == {"file"}   # simulated: NTCIR form
    cfg["incompleteness"]["pool_runs"] = ["run0*", "run10"]
    args = dag.Plan(cfg).stage_args("incompleteness", "ntcir3-chinese")
    assert "--groups auto --pool-depth 100 --pool-runs 'run0*' run10 --top-runs 30" in args
    plan = dag.Plan(cfg)
    assert plan.report_view_names() == outputs.names("collection", **plan.conditions)
    assert plan.report_views_args("simA", None).startswith("results/simA/tables results/simA/report --max-mb 0.25 "
                                                           "collection preferred_rank run_means kendall ")
    cfg["standardisation"]["enabled"] = True
    plan = dag.Plan(cfg)
    assert plan.other_jobs == ["standardisation"] and "standardisation_within" not in plan.report_view_names()
    # the options of its job, `metaeval stage standardisation` (an own job's spelt after its parameters)
    assert plan.own_job_args("standardisation", "ntcir3-chinese") == (
        f"--std-metrics {METRICS} --std z N U E --std-topics 50 --std-trials 1000 --std-seed 0")


def test_png_only_figures_leave_every_pdf_out_of_the_default_target():
    """``figures: {formats: [png]}``: no PDF among the default target's files -- the collections',
    the summary's, the own jobs' (the run's: Kishida's; a collection's scope: ppi's) -- and every
    PNG, table and other file still there (a PDF target no job writes fails the dry run)."""
    cfg = _shipped("config.yaml")
    both = dag.Plan(cfg).targets()
    cfg["figures"] = {"formats": ["png"]}
    png = dag.Plan(_validated(cfg)).targets()
    assert any(f.endswith(".pdf") for f in both) and not any(f.endswith(".pdf") for f in png)
    assert png == [f for f in both if not f.endswith(".pdf")]
    assert any(f.startswith("results/summary/") and f.endswith(".png") for f in png)


@pytest.mark.parametrize("name", ["config.yaml", "config/examples/trec-dl19.yaml", "config/examples/trec-dl19-ppi.yaml"])
def test_the_workflows_validation_fills_what_snakemakes_validate_fills(name):
    """workflow/rules/common.smk validates the config on the schema it has read
    (metaeval.checks.validate_config) instead of snakemake.utils.validate reading it again: the same
    defaults filled in, the same config; a misspelt key refused in one line."""
    from metaeval.checks import validate_config

    path = ROOT / name
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text(encoding="utf-8"))
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    ours = copy.deepcopy(raw)
    assert validate_config(ours, schema) is None
    assert ours == _validated(raw) and ours != raw
    bad = copy.deepcopy(raw)
    bad["bootstrap"] = {**bad.get("bootstrap", {}), "Bee": 10}
    msg = validate_config(bad, schema)
    assert msg and "Bee" in msg and len(msg.strip().splitlines()) <= 2


@dataclass(frozen=True)
class _NamedSetsParams:
    """A parameter typed ``tuple[NamedFiles, ...]`` whose config key holds a mapping (as a plug-in
    would declare one)."""

    toy_sets: tuple[NamedFiles, ...] = parameter((), "named sets", config=("toy", "sets"))


def test_a_config_mapping_of_a_named_files_parameter_is_its_named_sets():
    """Any ``tuple[NamedFiles, ...]`` file parameter whose config value is ``{NAME: file or [files]}``:
    its value in an own job (Plan.own_job_values, Param.from_config) is the named sets, their files
    the job's inputs (Param.paths), its words ``NAME=FILE,...`` (the job's arguments); no stage
    converts it itself."""
    from metaeval.stages import Param, params_of

    prm = params_of(_NamedSetsParams)[0]
    mapping = {"a": "f1.txt", "b": ["f2.txt", "f3.txt"]}
    sets = (NamedFiles("a", (Path("f1.txt"),)), NamedFiles("b", (Path("f2.txt"), Path("f3.txt"))))
    assert prm.file and prm.from_config(mapping) == sets and prm.from_config(sets) == sets
    assert prm.paths(prm.from_config(mapping)) == ["f1.txt", "f2.txt", "f3.txt"]
    assert dag.parameter_arguments(["toy_sets"], {"toy": {"sets": mapping}}, own=(prm,)) == \
        "--toy-sets a=f1.txt b=f2.txt,f3.txt"
    assert dag.parameter_arguments(["toy_sets"], {"toy": {"sets": {}}}, own=(prm,)) == ""
    assert Param("other", config=("toy", "other")).from_config(mapping) is mapping     # no file parameter
