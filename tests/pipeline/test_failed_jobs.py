"""A failed job under the default profile (workflow/profiles/default): the run keeps going past it
(keep-going: true; one failed optional job must not stop every other table being written) and ends
with one short line per failed job (the Snakefile's ``onerror:``, metaeval.dagrun), not only
Snakemake's report of the job's inputs and command line."""

from __future__ import annotations

from _pipeline_run import ROOT, snakemake_result

QRELS = "101 0 d1 1\n101 0 d2 2\n102 0 d3 1\n"
#: x's runs share no topic with the qrels (its metrics job fails); y's do
RUNS = {"x": {"a": "0201 Q0 d1 1 3 a\n0202 Q0 d3 1 3 a\n", "b": "0202 Q0 d1 1 3 b\n"},
        "y": {"a": "101 Q0 d1 1 3 a\n102 Q0 d3 1 3 a\n", "b": "101 Q0 d2 1 3 b\n102 Q0 d3 1 3 b\n"}}


def test_the_default_profile_keeps_going_and_ends_with_one_line_per_failed_job(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    for c, runs in RUNS.items():
        (tmp_path / c).mkdir()
        for name, text in runs.items():
            (tmp_path / c / f"{name}.run").write_text(text)
    collections = "".join(f"  {c}: {{qrels: qrels.txt, runs: {c}, gains: '1:2'}}\n" for c in RUNS)
    (tmp_path / "c.yaml").write_text(f"collections:\n{collections}metrics: [AP]\n"
                                     "sweeps: {gains: {enabled: false}}\nkishida: {enabled: false}\n"
                                     "summary: {enabled: false}\n")
    # one core, x's job first: without keep-going the run would stop before y's
    r = snakemake_result(tmp_path, "--configfile", "c.yaml", "--profile", str(ROOT / "workflow/profiles/default"),
                         "--cores", "1", "results/x/matrices/AP.csv", "results/y/matrices/AP.csv",
                         "--prioritize", "results/x/matrices/AP.csv")
    out = r.stdout + r.stderr
    assert r.returncode == 1, out[-3000:]
    assert "y: parse the qrels" in out, f"the run stopped at x's failed job:\n{out[-3000:]}"
    assert out.index("x: parse the qrels") < out.index("y: parse the qrels")   # x failed first ...
    assert (tmp_path / "results/y/matrices/AP.csv").is_file(), out[-3000:]  # ... and y was made
    assert not (tmp_path / "results/x/matrices/AP.csv").exists()
    failed = [ln for ln in out.splitlines() if ln.startswith("metaeval: failed: ")]
    assert failed == ["metaeval: failed: metrics (results/logs/x/metrics.log): qrels.txt: no topic in common "
                      "with the runs x/a.run (and 1 other run): the qrels' topics are 101, 102, the runs' "
                      "0201, 0202; are these the qrels of these runs?"]
    # after Snakemake's own report of the job (its whole command line and inputs)
    assert out.rindex("Error in rule metrics:") < out.index(failed[0])
