"""metaeval.dagrun: a SLURM cluster without accounting found and asked with squeue (in one line),
a stop signal that cancels the run's SLURM jobs and exits, and one short line per failed job --
against stand-ins of SLURM's commands (scontrol, sacct, squeue, scancel) and of Snakemake on PATH
and PYTHONPATH; the real cluster is .ci/run's SLURM step (.ci/slurm_up.sh)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from metaeval import dagrun

ROOT = Path(__file__).resolve().parents[2]
NO_ACCOUNTING = "AccountingStorageType   = accounting_storage/none\nMinJobAge               = 300 sec\n"
SLURMDBD = "AccountingStorageType   = accounting_storage/slurmdbd\nMinJobAge               = 300 sec\n"


def fake(bin_dir: Path, name: str, script: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)


@pytest.fixture
def slurm(tmp_path, monkeypatch):
    """A folder of stand-in SLURM commands first on PATH; ``slurm(name, script)`` adds one."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return lambda name, script: fake(bin_dir, name, script)


def test_accounting_off_from_scontrol(slurm):
    slurm("scontrol", f"printf '%s' '{NO_ACCOUNTING}'\n")
    assert dagrun.accounting_off() == "AccountingStorageType = accounting_storage/none"
    assert dagrun.min_job_age(dagrun.slurm_config()) == 300


def test_accounting_on_is_left_to_sacct(slurm):
    slurm("scontrol", f"printf '%s' '{SLURMDBD}'\n")
    slurm("sacct", "echo 'Slurm accounting storage is disabled' >&2; exit 1\n")   # not asked
    assert dagrun.accounting_off() is None
    extra, notes, prefix = dagrun.slurm_arguments([], {"executor": "slurm"})
    assert extra == ["--slurm-jobname-prefix", prefix] and notes == []


def test_accounting_off_from_sacct_when_scontrol_says_nothing(slurm):
    slurm("scontrol", "exit 1\n")
    slurm("sacct", "echo 'Slurm accounting storage is disabled' >&2; exit 1\n")
    assert dagrun.accounting_off() == "sacct: Slurm accounting storage is disabled"


def test_no_slurm_no_accounting_question(slurm):
    slurm("scontrol", "exit 127\n")
    slurm("sacct", "exit 127\n")
    assert dagrun.accounting_off() is None


def test_the_launcher_asks_squeue_and_says_so_once(slurm):
    slurm("scontrol", f"printf '%s' '{NO_ACCOUNTING}'\n")
    extra, notes, prefix = dagrun.slurm_arguments(["--profile", "p"], {"executor": "slurm"})
    assert prefix is not None and prefix.startswith("metaeval") and prefix.isalnum()
    assert extra == ["--slurm-jobname-prefix", prefix, "--slurm-status-command", "squeue"]
    assert notes == ["metaeval: note: SLURM keeps no accounting here (AccountingStorageType = "
                     "accounting_storage/none): job states from squeue (--slurm-status-command squeue)"]


def test_a_status_command_or_prefix_given_is_kept(slurm):
    slurm("scontrol", f"printf '%s' '{NO_ACCOUNTING}'\n")
    argv = ["--slurm-status-command=sacct", "--slurm-jobname-prefix", "mine"]
    assert dagrun.slurm_arguments(argv, {}) == ([], [], None)
    assert dagrun.slurm_arguments([], {"slurm-status-command": "squeue", "slurm-jobname-prefix": "p"}) == ([], [], None)


def test_a_short_min_job_age_shortens_the_first_wait(slurm):
    """The plugin turns back to sacct when SLURM forgets finished jobs sooner than three of its waits."""
    slurm("scontrol", "echo 'AccountingStorageType = accounting_storage/none'; echo 'MinJobAge = 60 sec'\n")
    extra, notes, _ = dagrun.slurm_arguments([], {"slurm-jobname-prefix": "p"})
    assert extra == ["--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "20"]
    assert notes[0].endswith("first asked after 20 s (MinJobAge = 60 s)")
    extra, _, _ = dagrun.slurm_arguments([], {"slurm-jobname-prefix": "p",
                                              "slurm-init-seconds-before-status-checks": 10})
    assert extra == ["--slurm-status-command", "squeue"]          # 3 x 10 s < 60 s


def test_onstart_switches_a_direct_snakemake_run_to_squeue(slurm, capsys):
    slurm("scontrol", f"printf '%s' '{NO_ACCOUNTING}'\n")
    settings = SimpleNamespace(status_command="sacct", init_seconds_before_status_checks=10)
    line = dagrun.use_squeue_without_accounting(SimpleNamespace(executor_plugin=SimpleNamespace(name="slurm"),
                                                                executor_settings=settings))
    assert settings.status_command == "squeue" and settings.init_seconds_before_status_checks == 10
    assert capsys.readouterr().err == line + "\n"
    assert line == ("metaeval: note: SLURM keeps no accounting here (AccountingStorageType = "
                    "accounting_storage/none): job states from squeue, not sacct")
    local = SimpleNamespace(status_command="sacct")
    assert dagrun.use_squeue_without_accounting(SimpleNamespace(executor_plugin=SimpleNamespace(name="local"),
                                                                executor_settings=local)) is None
    assert local.status_command == "sacct"


def test_only_the_runs_jobs_are_cancelled(slurm, tmp_path):
    slurm("squeue", "printf '901|metaevalab12_uuid\\n902|someone_else\\n903|metaevalab12_uuid\\n'\n")
    slurm("scancel", f"echo \"$@\" > {tmp_path / 'cancelled'}\n")
    assert dagrun.cancel_run_jobs("metaevalab12") == 2
    assert (tmp_path / "cancelled").read_text() == "901 903\n"


FAKE_SNAKEMAKE = """\
import os, signal, sys, time
from pathlib import Path
out = Path(os.environ["FAKE_OUT"])
args = sys.argv[1:]
(out / "prefix").write_text(args[args.index("--slurm-jobname-prefix") + 1])
def stop(signum, frame):
    (out / "signal").write_text(signal.Signals(signum).name + " " + " ".join(args))
    sys.exit(1)
signal.signal(signal.SIGINT, stop)
signal.signal(signal.SIGTERM, stop)
(out / "ready").touch()
time.sleep(60)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_stops_snakemake_cancels_the_runs_jobs_and_exits(slurm, tmp_path, sig):
    slurm("scontrol", f"printf '%s' '{NO_ACCOUNTING}'\n")
    slurm("squeue", f"printf '7|%s_uuid\\n8|other_uuid\\n' \"$(cat {tmp_path / 'prefix'})\"\n")
    slurm("scancel", f"echo \"$@\" > {tmp_path / 'cancelled'}\n")
    (tmp_path / "fake" / "snakemake").mkdir(parents=True)
    (tmp_path / "fake" / "snakemake" / "__init__.py").write_text("")
    (tmp_path / "fake" / "snakemake" / "__main__.py").write_text(FAKE_SNAKEMAKE)
    (tmp_path / "profile").mkdir()
    (tmp_path / "profile" / "config.yaml").write_text("executor: slurm\njobs: 4\n")
    env = {**os.environ, "FAKE_OUT": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"), str(ROOT / "src")])}
    p = subprocess.Popen([sys.executable, "-m", "metaeval.dagrun", "--profile", str(tmp_path / "profile")],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (tmp_path / "ready").exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    assert (tmp_path / "ready").exists(), "the stand-in Snakemake did not start"
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 128 + sig, err
    # Snakemake got Ctrl-C (it cancels its jobs and releases its lock), not SIGTERM (it would wait)
    got = (tmp_path / "signal").read_text().split()
    assert got[0] == "SIGINT" and got[got.index("--slurm-status-command") + 1] == "squeue"
    assert (tmp_path / "cancelled").read_text() == "7\n"         # the run's job, not another's
    lines = err.strip().splitlines()
    assert lines[0].startswith("metaeval: note: SLURM keeps no accounting here")
    what = "terminated" if sig == signal.SIGTERM else "interrupted"
    assert lines[-1] == f"metaeval: {what}: Snakemake stopped; 1 SLURM job(s) of the run cancelled"


SNAKEMAKE_LOG = """\
Job 2: x: parse the qrels and runs
Error in rule metrics:
    message: SLURM-job '78' failed, SLURM status is: 'FAILED'.
    jobid: 2
    input: {inputs}
    output: results/x/collection.npz, results/x/matrices/AP.csv
    log: results/logs/x/metrics.log, .snakemake/slurm_logs/rule_metrics/x/78.log (check log file(s) for error details)
    shell:
        python -m metaeval matrices --qrels q --runs {inputs} > results/logs/x/metrics.log 2>&1
        (command exited with non-zero exit code)
    external_jobid: 78
Logfile results/logs/x/metrics.log:
================================================================================
metaeval: error: q: no topic in common with the runs
================================================================================
Logfile .snakemake/slurm_logs/rule_metrics/x/78.log:
Error in rule metrics:
    message: None
    jobid: 0
    output: results/x/collection.npz, results/x/matrices/AP.csv
    log: results/logs/x/metrics.log (check log file(s) for error details)
Finished jobid: 5 (Rule: meta)
Error in rule ppi:
    message: None
    jobid: 9
    output: results/y/ppi/tables/ppi.csv
    log: results/logs/y/ppi.log (check log file(s) for error details)
Error in rule summary:
    jobid: 11
    output: results/summary/a.csv
Exiting because a job execution failed. Look below for error messages
"""


def test_one_short_line_per_failed_job(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results/logs/x").mkdir(parents=True)
    (tmp_path / "results/logs/y").mkdir(parents=True)
    (tmp_path / "results/logs/x/metrics.log").write_text(
        "metaeval: warning: something\nmetaeval: error: q: no topic in common with the runs r\n")
    (tmp_path / "results/logs/y/ppi.log").write_text(
        "Traceback (most recent call last):\n  File 'x'\nValueError: " + "v" * 400 + "\n\n")
    inputs = ", ".join(f"data/runs/input.run{i:03d}.gz" for i in range(59))   # Snakemake's 3,800 characters
    log = tmp_path / "snakemake.log"
    log.write_text(SNAKEMAKE_LOG.format(inputs=inputs))
    jobs = dagrun.failed_jobs(log.read_text())
    assert [(j["rule"], j["jobid"]) for j in jobs] == [("metrics", "2"), ("ppi", "9"), ("summary", "11")]
    lines = dagrun.print_failed_jobs([str(log)])
    assert capsys.readouterr().err.splitlines() == lines
    assert lines[0] == "metaeval: failed: metrics (results/logs/x/metrics.log): q: no topic in common with the runs r"
    assert lines[1].startswith("metaeval: failed: ppi (results/logs/y/ppi.log): ValueError: vvv")
    assert lines[1].endswith("...") and len(lines[1]) == dagrun.MAX_LINE
    assert lines[2] == "metaeval: failed: summary (results/summary/a.csv): see Snakemake's report above"
    assert dagrun.failed_job_lines([str(tmp_path / "missing.log")]) == []


def test_the_workflow_has_one_handler_of_each_kind_calling_dagrun():
    """Snakemake keeps the last ``onstart:`` (``onerror:``, ``onsuccess:``) it reads and drops the
    others silently: one of each, and they call metaeval.dagrun."""
    sources = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]
    texts = {p: p.read_text() for p in sources}
    for kind in ("onstart", "onerror", "onsuccess"):
        where = [p.name for p, t in texts.items() for _ in re.finditer(rf"^{kind}:", t, re.M)]
        assert len(where) == 1, f"{kind}: {where}"
    handler = {kind: re.search(rf"^{kind}:\n((?:[ \t]+.*\n|\n)+)", "\n".join(texts.values()), re.M)[1]
               for kind in ("onstart", "onerror")}
    assert "use_squeue_without_accounting(workflow)" in handler["onstart"]
    assert "_record_effective_config()" in handler["onstart"]
    assert "print_failed_jobs(log)" in handler["onerror"]


def test_the_scheduler_timers_left_at_the_end_are_cancelled():
    """Snakemake's scheduler arms a 1 s threading.Timer on every pass; the interpreter would wait
    for the last one after the run.  The Snakefile's onsuccess / onerror cancel them: the timer's
    thread ends at once and its function never runs."""
    import threading
    import time

    from metaeval.dagrun import end_scheduler_timers

    fired = []
    t = threading.Timer(5.0, lambda: fired.append(1))
    t.start()
    t0 = time.perf_counter()
    assert end_scheduler_timers() >= 1
    t.join(2.0)
    assert not t.is_alive() and time.perf_counter() - t0 < 2.0 and fired == []
    text = (ROOT / "Snakefile").read_text(encoding="utf-8")
    for handler in ("onsuccess:", "onerror:"):
        body = text.split(handler, 1)[1].split("\n\n\n", 1)[0]
        assert "end_scheduler_timers()" in body, handler
