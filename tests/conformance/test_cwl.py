"""The C/W/L family (Moffat, Thomas & Scholer 2013; Moffat, Bailey, Scholer & Thomas 2017; Azzopardi,
Thomas & Moffat 2019): ``metaeval cwl_eval`` against cwl-eval 1.0.12 itself (a test-only
dependency, run in a subprocess as its entry point runs it), the registry measures against the
drop-in, bad input, and the measures in ``metaeval meta``.

cwl-eval's dot products go through numpy's BLAS, whose summation order depends on the machine
(metaeval emulates the order of OpenBLAS's SkylakeX kernel, so as to be the same everywhere).  Only
the sign cwl-eval prints for a residual that is mathematically zero can depend on it; on a machine
whose OpenBLAS kernel is another, the comparison maps ``-0.0000`` to ``0.0000`` (and says so)."""

from __future__ import annotations

import ctypes
import glob
import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from metaeval.cli import main

DATA_DIR = Path(__file__).parents[1] / "data"
ALL_METRICS = DATA_DIR / "cwl_all_metrics.txt"
ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- the oracle


#: what cwl-eval's entry point does (it finds the package with distutils, gone from Python 3.12):
#: the package folder on sys.path (its metric classes are imported as ``ruler.measures.*``), then
#: parse_args() and main()
_CWL_ENTRY = ("import os, sys, cwl; sys.path.insert(0, os.path.dirname(cwl.__file__)); "
              "from cwl import cwl_eval; a = cwl_eval.parse_args(); "
              "cwl_eval.main(a.result_file, a.gain_file, a.cost_file, a.metrics_file, a.bib_file, "
              "a.colnames, a.residuals, a.max_gain, a.min_gain, a.max_cost, a.min_cost, a.max_depth)")


def _require_cwl() -> None:
    pytest.importorskip("cwl.cwl_eval", reason="cwl-eval 1.0.12 not installed (pip install -e '.[test]')")


def _blas_core() -> str | None:
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "*openblas*"))
    for lib in libs:
        try:
            h = ctypes.CDLL(lib)
        except OSError:
            continue
        for name in ("scipy_openblas_get_corename64_", "openblas_get_corename64_", "openblas_get_corename"):
            f = getattr(h, name, None)
            if f is not None:
                f.restype = ctypes.c_char_p
                return f().decode()
    return None


SAME_ORDER = (_blas_core() or "").lower() in ("skylakex", "cooperlake", "sapphirerapids")


def reference(tmp_path, *args) -> str:
    """cwl-eval's output (it writes cwl.log into its working directory: tmp_path)."""
    _require_cwl()
    r = subprocess.run([sys.executable, "-c", _CWL_ENTRY, *map(str, args)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def ours(capsys, *args) -> str:
    capsys.readouterr()
    assert main(["cwl_eval", *map(str, args)]) == 0
    return capsys.readouterr().out


def assert_same_output(got: str, want: str) -> None:
    if not SAME_ORDER:          # see the module docstring
        got, want = (t.replace("-0.0000", "0.0000") for t in (got, want))
    g, w = got.splitlines(), want.splitlines()
    assert len(g) == len(w) and len(w) > 0
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(g, w)) if a != b]
    assert not bad, f"{len(bad)} lines differ, first: line {bad[0][0] + 1}\n got: {bad[0][1]}\nwant: {bad[0][2]}"
    assert got == want


# ----------------------------------------------------------------------------- cwl's own test files


@pytest.fixture(scope="module")
def cwl_tests(shared_data):
    from conftest import require_data

    return require_data(shared_data / "cwl-tests")


@pytest.mark.shared_data
@pytest.mark.parametrize("gains,opts", [
    ("gain_file", []), ("gain_file", ["-n"]), ("gain_file", ["-r"]),
    ("gain_file", ["-m", "{d}/metrics_file"]), ("gain_file", ["-m", "{d}/metrics_file", "-r", "-n"]),
    ("gain_file", ["-m", "{d}/metrics_file", "-r", "-c", "{d}/cost_file"]),
    ("gain_file", ["-c", "{d}/cost_file"]), ("gain_file", ["-m", "{d}/dcg_precision_metrics_file", "-r"]),
    ("gain_file", ["-m", "{all}", "-r", "-c", "{d}/cost_file"]),
    ("qrel_file", ["-r"]), ("qrel_file", ["-m", "{all}", "-r", "-c", "{d}/cost_file"]),
], ids=lambda o: (" ".join(o).replace("{d}/", "") or "default") if isinstance(o, list) else o)
def test_dropin_equals_cwl_eval_on_its_test_files(tmp_path, capsys, cwl_tests, gains, opts):
    opts = [o.format(d=cwl_tests, all=ALL_METRICS) for o in opts]
    args = [cwl_tests / gains, cwl_tests / "result_file", *opts]
    assert_same_output(ours(capsys, *args), reference(tmp_path, *args))


@pytest.mark.shared_data
def test_dropin_gain_range_options(tmp_path, capsys, cwl_tests):
    """--max_gain / --min_gain: gains above 1 and below 0 are accepted when allowed."""
    d = cwl_tests
    m = tmp_path / "m"
    m.write_text("PrecisionCWLMetric(5)\nRBPCWLMetric(0.8)\nAPCWLMetric()\nTBGCWLMetric(22)\n")
    for gf, opt in (("big_gain_file", ["--max_gain", "2.0"]), ("neg_gain_file", ["--min_gain", "-1"])):
        args = [d / gf, d / "result_file", "-m", m, "-r", *opt]
        assert_same_output(ours(capsys, *args), reference(tmp_path, *args))


# ----------------------------------------------------------------------------- DL19 (gains = REL / 3)


@pytest.fixture(scope="module")
def dl19_files(shared_data, tmp_path_factory):
    """A cwl gain file (REL / 3, written as Python's repr so it reads back to the same double),
    two DL19 runs cut to their first 5 topics (cwl-eval takes seconds per topic with every
    metric), and a cost file pricing DL19's only element type."""
    dl = shared_data / "trec-dl19-passage"
    d = tmp_path_factory.mktemp("cwl-dl19")
    with open(dl / "qrels.txt") as f, open(d / "gains.txt", "w") as out:
        for line in f:
            t, it, doc, rel = line.split()
            out.write(f"{t} {it} {doc} {max(int(rel), 0) / 3!r}\n")
    runs = []
    for name in ("p_bert", "bm25base_p"):
        lines, topics = [], []
        with gzip.open(dl / "runs" / f"{name}.run.gz", "rt") as f:
            for line in f:
                t = line.split(None, 1)[0]
                if t not in topics:
                    if len(topics) == 5:
                        break
                    topics.append(t)
                lines.append(line)
        (d / name).write_text("".join(lines))
        runs.append(d / name)
    (d / "costs").write_text("Q0 2.5\n")
    return d, runs


@pytest.mark.shared_data
@pytest.mark.parametrize("opts", [[], ["-r", "-n"], ["-m", "{all}", "-r"], ["-m", "{all}", "-c", "{d}/costs", "-r"]],
                         ids=["default", "residuals", "all-metrics", "all-metrics-costs"])
def test_dropin_equals_cwl_eval_on_dl19(tmp_path, capsys, dl19_files, opts):
    d, runs = dl19_files
    opts = [o.format(d=d, all=ALL_METRICS) for o in opts]
    for run in runs if "-m" not in opts else runs[:1]:
        args = [d / "gains.txt", run, *opts]
        assert_same_output(ours(capsys, *args), reference(tmp_path, *args))


# ----------------------------------------------------------------------------- the registry measures

#: registry name -> the cwl_eval metric (metrics-file syntax) it is
PAIRS = [
    ("cwl.P@10", "PrecisionCWLMetric(10)"), ("cwl.RBP(p=0.8)", "RBPCWLMetric(0.8)"),
    ("cwl.NDCG@10", "NDCGCWLMetric(10)"), ("cwl.RR", "RRCWLMetric()"), ("cwl.AP", "APCWLMetric()"),
    ("cwl.TrAP", "TrAPCWLMetric()"), ("cwl.INST(T=3)", "INSTCWLMetric(3)"),
    ("cwl.INSQ(T=2)", "INSQCWLMetric(2)"), ("cwl.BPM-Static(T=1.2,K=10)", "BPMCWLMetric(1.2,10)"),
    ("cwl.BPM-Dynamic(T=1.2,K=10,hb=0.5,hc=2,gain_med=0.3)", "BPMDCWLMetric(1.2,10,0.5,2.0,0.3)"),
    ("cwl.U-measure(L=50)", "UMeasureCWLMetric(50)"), ("cwl.TBG(halflife=22)", "TBGCWLMetric(22)"),
    ("cwl.IFT-C1", "IFTGoalCWLMetric(2.0,0.9,10)"), ("cwl.IFT-C2", "IFTRateCWLMetric(0.2,0.9,10)"),
    ("cwl.IFT-C1-C2", "IFTGoalRateCWLMetric(2.0,0.9,10,0.2,0.9,10)"),
    ("cwl.NERR8@10", "NERReq8CWLMetric(10)"), ("cwl.NERR9@10", "NERReq9CWLMetric(10)"),
    ("cwl.NERR10", "NERReq10CWLMetric(0.9)"), ("cwl.NERR11(T=2)", "NERReq11CWLMetric(2.0)"),
    ("cwl.NPV", "NPVCWLMetric(0.1)"), ("cwl.SET", "SETCWLMetric(0.5,10)"),
]


def test_registry_names_are_canonical_and_do_not_collide():
    from metaeval.metrics import parse_measure
    from metaeval.metrics.registry import REGISTRY

    assert parse_measure("cwl.INST(T=3.0)").name == "cwl.INST(T=3)"
    assert parse_measure("cwl.RBP(p=0.9)").name == "cwl.RBP"                 # cwl_eval's default
    assert parse_measure("cwl.INST(T=3,quantity=etu)").name == "cwl.INST(T=3,quantity=ETU)"
    assert parse_measure("cwl.NDCG@10").cutoff == 10
    for ntcir in ("RBP", "AP", "RR", "nDCG"):                                # NTCIREVAL's, untouched
        assert REGISTRY[ntcir].func.__module__ == "metaeval.metrics.ranked"
    with pytest.raises(ValueError, match="quantity"):
        parse_measure("cwl.INST(quantity=EX)")
    with pytest.raises(ValueError, match="needs a cutoff"):
        parse_measure("cwl.NDCG")


@pytest.fixture(scope="module")
def dl19_collection(shared_data):
    from metaeval.io import load_collection

    dl = shared_data / "trec-dl19-passage"
    runs = [dl / "runs" / f"{n}.run.gz" for n in ("bm25base_p", "p_bert", "TUW19-p3-f")]
    return load_collection(dl / "qrels.txt", runs, order="file"), runs


@pytest.mark.shared_data
def test_matrix_value_is_the_dropin_eu(dl19_collection, dl19_files, tmp_path):
    """Every C/W/L measure's matrix (levels -> gain / max gain with gains 1:2:3, i.e. REL/3) equals
    the EU of the drop-in on the same run: to the printed digits, and bit for bit to the drop-in's
    arrays computed in cwl_eval's exact order; ETU and a residual through ``quantity=``."""
    from metaeval.cli.cwl_eval import _metrics, compute
    from metaeval.io.cwl import cwl_arrays, read_cwl_results, read_gain_file
    from metaeval.metrics import evaluate, parse_measure
    from metaeval.metrics.cwl import CwlRankings, cwl_scores

    coll, runs = dl19_collection
    names = [n for n, _ in PAIRS] + ["cwl.INST(T=3,quantity=ETU)", "cwl.AP(quantity=ResEU)"]
    mats = evaluate(coll, names, gains=(1, 2, 3))
    mfile = tmp_path / "m"
    mfile.write_text("\n".join(c for _, c in PAIRS) + "\n")
    d, _ = dl19_files
    gains = read_gain_file(d / "gains.txt")
    for run in runs:
        r = list(coll.runs).index(run.name[:-len(".run.gz")])
        plain = tmp_path / "run"
        with gzip.open(run, "rt") as f:
            plain.write_text(f.read())
        text = compute(d / "gains.txt", plain, mfile, residuals=True)
        rows = [ln.split("\t") for ln in text.splitlines()]
        topics, g, k, rels = cwl_arrays(gains, read_cwl_results(plain), None, 1000)
        assert sorted(topics) == list(coll.topics)
        col = [list(coll.topics).index(t) for t in topics]          # the run file's topic order
        rk = CwlRankings(g, k, rels)
        for j, ((name, _), metric) in enumerate(zip(PAIRS, _metrics(mfile))):
            printed = [row[2] for row in rows[j::len(PAIRS)]]
            mat = mats[parse_measure(name).name][r, col]
            assert [f"{v:.4f}" for v in mat] == printed, name
            np.testing.assert_array_equal(mat, cwl_scores(rk, metric)["EU"], err_msg=name)
        inst = [row for row in rows if row[1] == "INST-T=3"]
        assert [f"{v:.4f}" for v in mats["cwl.INST(T=3,quantity=ETU)"][r, col]] == [row[3] for row in inst]
        ap = [row for row in rows if row[1] == "AP"]
        assert [f"{v:.4f}" for v in mats["cwl.AP(quantity=ResEU)"][r, col]] == [row[7] for row in ap]


def test_measures_by_hand():
    """A literal loop over cwl_eval's definitions on one small ranking (depth 6)."""
    from metaeval.metrics.cwl import CwlMetric, CwlRankings, cwl_scores

    g = np.array([[1.0, 0.0, 0.5, np.nan, 1.0, np.nan]])
    rk = CwlRankings(g, None, np.array([3.0]))
    gw = np.nan_to_num(g[0], nan=0.0)

    def expect(c):
        n = len(c)
        P = [1.0]
        for i in range(1, n):
            P.append(P[-1] * c[i - 1])
        w = [p / sum(P) for p in P]
        L = [P[i] * (1 - c[i]) for i in range(n)]
        cg = np.cumsum(gw)
        return (sum(w[i] * gw[i] for i in range(n)), sum(L[i] * cg[i] for i in range(n)), 1.0,
                sum(L[i] * (i + 1) for i in range(n)), sum(P))

    cases = {
        ("PrecisionCWLMetric", (3,)): [1, 1, 0, 0, 0, 0],
        ("RBPCWLMetric", (0.5,)): [0.5] * 6,
        ("RRCWLMetric", ()): [0, 0, 0, 0, 0, 0],
        ("INSQCWLMetric", (1,)): [((i + 1 + 2 - 1) / (i + 1 + 2)) ** 2 for i in range(6)],
        ("INSTCWLMetric", (1,)): [((i + 1 + 1 + (1 - c) - 1) / (i + 1 + 1 + (1 - c))) ** 2
                                  for i, c in enumerate(np.cumsum(gw))],
        ("NERReq10CWLMetric", (0.9,)): [0.9 * (1 - x) for x in gw],
        ("BPMCWLMetric", (1.2, 10)): [1, 1, 0, 0, 0, 0],
    }
    for (cls, args), c in cases.items():
        got = cwl_scores(rk, CwlMetric.make(cls, *args))
        want = expect(c)
        for q, v in zip(("EU", "ETU", "EC", "ETC", "ED"), want):
            assert got[q][0] == pytest.approx(v, rel=1e-12, abs=1e-15), (cls, q)


def test_every_measure_vectorised_equals_per_list_and_is_finite():
    """All runs and topics at once equal each list as its own collection, bit for bit (every C/W/L
    measure and quantity, depth 40 to keep it quick); EU lies in [0, 1] for gains in [0, 1]."""
    from metaeval.metrics import evaluate
    from metaeval.metrics.cwl import QUANTITIES

    from metric_helpers import make_collection

    rng = np.random.default_rng(7)
    counts = [[30, 4, 3, 2], [25, 6, 0, 1], [40, 1, 1, 1]]
    lists = [[rng.choice([-1, 0, 0, 0, 1, 2, 3], size=int(rng.integers(0, 30))).tolist() for _ in counts]
             for _ in range(3)]
    coll = make_collection(lists, counts)
    names = [n.replace("(", "(depth=40,", 1) if "(" in n else
             (n.replace("@", "(depth=40)@") if "@" in n else n + "(depth=40)") for n, _ in PAIRS]
    names += [f"cwl.INST(T=2,depth=40,quantity={q})" for q in QUANTITIES]
    whole = evaluate(coll, names, (1, 2, 3))
    for r in range(3):
        for t in range(3):
            n = len(lists[r][t])
            single = make_collection([[coll.levels[r, t, :n].tolist()]], [counts[t]])
            one = evaluate(single, names, (1, 2, 3))
            for m in one:
                assert one[m][0, 0] == whole[m][r, t] or (np.isnan(one[m][0, 0]) and np.isnan(whole[m][r, t])), m
    for m, v in whole.items():
        if "quantity" not in m:
            assert np.isfinite(v).all() and (v >= 0).all() and (v <= 1 + 1e-12).all(), m


# ----------------------------------------------------------------------------- bad input


def _run_err(capsys, *args):
    capsys.readouterr()
    rc = main(["cwl_eval", *map(str, args)])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_bad_input_one_line_error_naming_file_and_line(tmp_path, capsys):
    q = tmp_path / "gains"
    q.write_text("T1 0 D1 1.0\nT1 0 D2 0.5\nT1 0 D3 1.5\n")
    res = tmp_path / "res"
    res.write_text("T1 Q0 D1 1 3.0 r\nT1 Q0 D2 2 2.0 r\n")
    rc, out, err = _run_err(capsys, q, res)
    assert rc == 1 and out == "" and err.count("\n") == 1
    assert f"{q}:3:" in err and "1.5" in err and "--max_gain" in err
    q.write_text("T1 0 D1 1.0\nT1 0 D2 -0.5\n")
    rc, out, err = _run_err(capsys, q, res)
    assert rc == 1 and out == "" and f"{q}:2:" in err and "--min_gain" in err
    q.write_text("T1 0 D1 1.0\nT1 0 D2 0.5\n")
    m = tmp_path / "metrics"
    for text, line, what in (("RBPCWLMetric(0.8)\nFooCWLMetric(3)\n", 2, "unknown metric 'FooCWLMetric'"),
                             ("RBPCWLMetric(0.8\n", 1, "malformed"),
                             ("\nINSTCWLMetric(1, x)\n", 2, "'x' is not a number"),
                             ("NDCGCWLMetric()\n", 1, "needs the parameter"),
                             ("RRCWLMetric(1)\n", 1, "at most 0 parameters")):
        m.write_text(text)
        rc, out, err = _run_err(capsys, q, res, "-m", m)
        assert rc == 1 and out == "" and err.count("\n") == 1, err
        assert f"{m}:{line}:" in err and what in err, err
    # INST refuses gains above 1 (as cwl_eval does), before anything is printed
    q.write_text("T1 0 D1 2.0\nT1 0 D2 0.5\n")
    m.write_text("INSTCWLMetric(1)\n")
    rc, out, err = _run_err(capsys, q, res, "-m", m, "--max_gain", "2")
    assert rc == 1 and out == "" and "INST-T=1" in err and "outside [0, 1]" in err
    res.write_text("T1 Q0 D1 1 3.0\n")
    rc, out, err = _run_err(capsys, q, res, "--max_gain", "2")
    assert rc == 1 and out == "" and f"{res}:1:" in err


# ----------------------------------------------------------------------------- meta-evaluation


EXAMPLE = ROOT / "config" / "examples" / "cwl-dl19.yaml"


def test_config_example_validates():
    import yaml

    from metaeval.metrics import parse_measure

    cfg = yaml.safe_load(EXAMPLE.read_text())
    names = [parse_measure(m).name for m in cfg["metrics"]]
    assert {"cwl.INST(T=3)", "cwl.RBP(p=0.8)", "cwl.NDCG@10", "cwl.AP"} <= set(names)
    from snakemake.utils import validate

    validate(cfg, str(ROOT / "workflow/schemas/config.schema.yaml"))
    assert parse_measure(cfg["select_by"]).name == "cwl.AP"


@pytest.mark.shared_data
def test_meta_evaluates_cwl_measures(tmp_path, shared_data):
    """INST, RBP, nDCG@10 and AP of the C/W/L family, meta-evaluated together by ``metaeval meta``
    (matrices of 8 DL19 runs)."""
    import yaml

    cfg = yaml.safe_load(EXAMPLE.read_text())
    dl = shared_data / "trec-dl19-passage"
    runs = sorted((dl / "runs").glob("*.run.gz"))[:8]
    mats = tmp_path / "mats"
    args = ["matrices", "--qrels", str(dl / "qrels.txt"), "--out", str(mats), "--gains", "1:2:3",
            "--metrics", *cfg["metrics"]]
    for r in runs:
        args += ["--runs", str(r)]
    assert main(args) == 0
    files = sorted(p.name for p in mats.glob("*.csv"))
    assert {"cwl.INST(T=3).csv", "cwl.RBP(p=0.8).csv", "cwl.NDCG@10.csv", "cwl.AP.csv"} <= set(files)
    out = tmp_path / "meta"
    assert main(["meta", "--matrices", str(mats), "--out", str(out), "--B", "50", "--quiet", "--no-figures"]) == 0
    produced = {p.name for p in out.rglob("*.csv")}
    assert produced, "metaeval meta wrote no table"
    text = "".join(p.read_text() for p in out.rglob("*.csv"))
    for m in ("cwl.INST(T=3)", "cwl.RBP(p=0.8)", "cwl.NDCG@10", "cwl.AP"):
        assert m in text, m


@pytest.mark.shared_data
def test_config_example_builds_the_dag(tmp_path, shared_data):
    """The example's DAG (a Snakemake dry run, data paths pointed at the shared data): one matrix
    per C/W/L measure, then every stage and table of the collection."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(EXAMPLE.read_text().replace("../shared/data", str(shared_data)))
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
           "--configfile", str(cfg), "-n", "--summary"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    targets = {ln.split("\t")[0] for ln in r.stdout.splitlines() if "\t" in ln}
    for m in ("cwl.INST(T=3)", "cwl.RBP(p=0.8)", "cwl.NDCG@10", "cwl.AP"):
        assert f"results/trec-dl19-cwl/matrices/{m}.csv" in targets, m
    assert "results/trec-dl19-cwl/tables/discriminative_power.csv" in targets
