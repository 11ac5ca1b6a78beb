"""Running the pipeline's DAG and saying how it ended.

``python -m metaeval.dagrun [SNAKEMAKE OPTIONS]`` runs ``snakemake`` with those options (e.g.
``--profile workflow/profiles/slurm``) and

* on a SLURM cluster that keeps no accounting (``scontrol show config``: ``AccountingStorageType =
  accounting_storage/none``; or ``sacct``: "Slurm accounting storage is disabled"), as many
  departmental clusters, asks ``squeue`` for the job states (``--slurm-status-command squeue`` of
  snakemake-executor-plugin-slurm, which would otherwise ask ``sacct`` and wait forever for jobs
  long finished), and says so in one line at start;
* on a stop signal (``SIGTERM``, or Ctrl-C) stops Snakemake as Ctrl-C does (it cancels the SLURM
  jobs it submitted and releases its lock: no ``kill -9``, no ``--unlock``), cancels whatever job of
  the run SLURM still holds (the launcher names the run's jobs, ``--slurm-jobname-prefix``) and exits
  130 (Ctrl-C) or 143 (``SIGTERM``).

For the Snakefile's handlers, so that ``snakemake`` started directly behaves alike:
:func:`use_squeue_without_accounting` (``onstart:``: the same choice of ``squeue``, in one line)
and :func:`print_failed_jobs` (``onerror:``: one short line per failed job -- its rule, its log and
the error its log ends with -- read from Snakemake's log of the run, instead of the job's whole
command line and inputs).  Standard library only (the Snakefile parses without numpy).
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["ACCOUNTING_OFF", "accounting_off", "cancel_run_jobs", "failed_jobs", "failed_job_lines",
           "main", "min_job_age", "print_failed_jobs", "slurm_arguments", "slurm_config",
           "use_squeue_without_accounting"]

#: ``AccountingStorageType`` of a cluster without accounting storage
ACCOUNTING_OFF = "accounting_storage/none"
#: what ``sacct`` answers there
SACCT_OFF = "accounting storage is disabled"
#: snakemake-executor-plugin-slurm's first wait before asking for the job states (seconds); it asks
#: ``sacct`` instead of ``squeue`` when SLURM forgets finished jobs (``MinJobAge``) sooner than 3 waits
PLUGIN_INIT_SECONDS = 40
#: characters of a failed job's line at most (Snakemake's own report of it runs to thousands)
MAX_LINE = 240

USAGE = """\
usage: python -m metaeval.dagrun [SNAKEMAKE OPTIONS]
Runs snakemake with these options. With a SLURM executor: job states from squeue when the cluster
keeps no accounting (said in one line at start); SIGTERM or Ctrl-C cancels the run's SLURM jobs and
exits (143 or 130). Snakemake's own options follow."""


def _output(cmd: list[str], timeout: float = 30) -> tuple[int, str]:
    """``(exit status, stdout and stderr)`` of ``cmd``; ``(127, '')`` when it cannot be run."""
    try:
        r = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return 127, ""
    return r.returncode, r.stdout + r.stderr


def slurm_config() -> dict[str, str]:
    """``scontrol show config`` as ``{key: value}``; ``{}`` without SLURM (or without an answer)."""
    rc, out = _output(["scontrol", "show", "config"])
    if rc != 0:
        return {}
    conf: dict[str, str] = {}
    for line in out.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and " " not in key.strip():
            conf.setdefault(key.strip(), value.strip())
    return conf


def accounting_off(conf: dict[str, str] | None = None) -> str | None:
    """Why this machine's SLURM keeps no accounting (``AccountingStorageType = accounting_storage/none``,
    or ``sacct``'s answer when ``scontrol`` gives none), or ``None`` (accounting on, or no SLURM)."""
    conf = slurm_config() if conf is None else conf
    kind = conf.get("AccountingStorageType")
    if kind is not None:
        return f"AccountingStorageType = {kind}" if kind == ACCOUNTING_OFF else None
    rc, out = _output(["sacct", "--noheader", "-X", "-j", "1"])
    if rc not in (0, 127) and SACCT_OFF in out.lower():
        return "sacct: " + out.strip().splitlines()[0]
    return None


def min_job_age(conf: dict[str, str]) -> int | None:
    """``MinJobAge`` in seconds (how long ``squeue`` still shows a finished job), or ``None``."""
    m = re.match(r"(\d+)\s*([a-z]*)", conf.get("MinJobAge", "").lower())
    if not m:
        return None
    return int(m[1]) * (3600 if m[2] in ("h", "hour", "hours") else 60 if m[2] in ("min", "minutes") else 1)


# --- the launcher's options --------------------------------------------------------------------

def _option(argv: list[str], *names: str) -> str | None:
    """The value of the last ``NAME VALUE`` or ``NAME=VALUE`` among ``argv``, or ``None``."""
    value = None
    for i, a in enumerate(argv):
        for n in names:
            if a == n and i + 1 < len(argv):
                value = argv[i + 1]
            elif a.startswith(n + "="):
                value = a[len(n) + 1:]
    return value


def _profile(argv: list[str]) -> dict[str, Any]:
    """The settings of the profile the options name (``--profile DIR``, else ``SNAKEMAKE_PROFILE``):
    its ``config.v8+.yaml`` or ``config.yaml`` as Snakemake reads it; ``{}`` when none is a folder here."""
    where = _option(argv, "--profile") or os.environ.get("SNAKEMAKE_PROFILE")
    if not where or not Path(where).is_dir():
        return {}
    for name in ("config.v8+.yaml", "config.yaml"):
        path = Path(where) / name
        if path.is_file():
            import yaml                       # Snakemake's own dependency

            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
            except (OSError, yaml.YAMLError):
                return {}                     # Snakemake says what is wrong with it
            return data if isinstance(data, dict) else {}
    return {}


def _setting(argv: list[str], profile: dict[str, Any], option: str) -> str | None:
    """``--OPTION`` from the command line, else from the profile (``OPTION`` or ``OPTION`` with
    underscores), else ``None``."""
    given = _option(argv, f"--{option}")
    if given is not None:
        return given
    for key in (option, option.replace("-", "_")):
        if profile.get(key) is not None:
            return str(profile[key])
    return None


def slurm_arguments(argv: list[str], profile: dict[str, Any],
                    conf: dict[str, str] | None = None) -> tuple[list[str], list[str], str | None]:
    """What the launcher adds to Snakemake's options for the SLURM executor: ``(options, notes,
    job-name prefix it chose or None)``: a job-name prefix of its own unless one is set (the jobs to
    cancel on a stop), and where the cluster keeps no accounting, ``--slurm-status-command squeue``
    unless a status command is set (with a shorter first wait when ``MinJobAge`` is under three
    of the plugin's, which would otherwise turn back to ``sacct``)."""
    extra: list[str] = []
    notes: list[str] = []
    prefix = None
    if _setting(argv, profile, "slurm-jobname-prefix") is None:
        prefix = f"metaeval{secrets.token_hex(4)}"
        extra += ["--slurm-jobname-prefix", prefix]
    if _setting(argv, profile, "slurm-status-command") is None:
        conf = slurm_config() if conf is None else conf
        why = accounting_off(conf)
        if why is not None:
            extra += ["--slurm-status-command", "squeue"]
            note = (f"metaeval: note: SLURM keeps no accounting here ({why}): job states from squeue "
                    "(--slurm-status-command squeue)")
            age = min_job_age(conf)
            init = _setting(argv, profile, "slurm-init-seconds-before-status-checks")
            wait = int(init) if init is not None and init.isdigit() else PLUGIN_INIT_SECONDS
            if age is not None and age < 3 * wait:
                wait = max(1, age // 3)
                extra += ["--slurm-init-seconds-before-status-checks", str(wait)]
                note += f", first asked after {wait} s (MinJobAge = {age} s)"
            notes.append(note)
    return extra, notes, prefix


def cancel_run_jobs(prefix: str) -> int:
    """``scancel`` every job SLURM still holds whose name starts with ``prefix`` + ``_`` (the jobs of
    one run of the launcher); how many."""
    rc, out = _output(["squeue", "--noheader", "--format=%i|%j"])
    if rc != 0:
        return 0
    ids = [job for job, _, name in (line.strip().partition("|") for line in out.splitlines())
           if job and name.startswith(prefix + "_")]
    if ids:
        _output(["scancel", *ids], timeout=60)
    return len(ids)


def main(argv: list[str] | None = None) -> int:
    """Run Snakemake with ``argv`` (see the module's docstring); its exit status, or 130 / 143 when
    stopped by Ctrl-C / ``SIGTERM``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "-h" in argv or "--help" in argv:
        print(USAGE, flush=True)
    profile = _profile(argv)
    executor = _option(argv, "--executor", "-e") or str(profile.get("executor") or "")
    extra: list[str] = []
    prefix = None
    if executor == "slurm" and "-h" not in argv and "--help" not in argv:
        extra, notes, prefix = slurm_arguments(argv, profile)
        for note in notes:
            print(note, file=sys.stderr, flush=True)
    received: list[int] = []
    procs: list[subprocess.Popen] = []

    def stop(signum: int, frame: object) -> None:
        received.append(signum)
        if procs and procs[0].poll() is None:
            procs[0].send_signal(signal.SIGINT)   # Snakemake's Ctrl-C: cancel the jobs, release the lock

    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        # its own session: Ctrl-C in a terminal reaches the launcher only, which passes it on once
        procs.append(subprocess.Popen([sys.executable, "-m", "snakemake", *argv, *extra], start_new_session=True))
        if received:                              # a signal before Snakemake was there to take it
            procs[0].send_signal(signal.SIGINT)
        rc = procs[0].wait()
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    if not received:
        return rc
    cancelled = cancel_run_jobs(prefix) if prefix is not None else 0
    what = "interrupted" if received[0] == signal.SIGINT else "terminated"
    left = f"; {cancelled} SLURM job(s) of the run cancelled" if cancelled else ""
    print(f"metaeval: {what}: Snakemake stopped{left}", file=sys.stderr, flush=True)
    return 128 + received[0]


# --- the Snakefile's handlers ------------------------------------------------------------------

def end_scheduler_timers() -> int:
    """Cancel the timers Snakemake's job scheduler leaves behind once a run is over (called from
    the Snakefile's ``onsuccess`` and ``onerror``): every pass of its scheduling loop arms a
    ``threading.Timer`` of its job rate limiter's window (``--max-jobs-per-timespan``, 1 s by
    default), and the interpreter waits for the last one before it exits -- a run ending up to a
    second after its last job.  The jobs are done when the handlers run, so nothing waits for
    those timers.  Returns the number cancelled."""
    import threading

    timers = [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.is_alive()]
    for t in timers:
        t.cancel()
    return len(timers)


def use_squeue_without_accounting(workflow: Any) -> str | None:
    """``onstart:`` of a run on the SLURM executor asking ``sacct`` on a cluster that keeps no
    accounting (``snakemake`` started directly): ask ``squeue`` instead (the plugin reads its
    settings at every status check) and say so in one line; returns the line, or ``None``."""
    plugin = getattr(workflow, "executor_plugin", None)
    settings: Any = getattr(workflow, "executor_settings", None)
    if getattr(plugin, "name", None) != "slurm" or getattr(settings, "status_command", None) != "sacct":
        return None
    conf = slurm_config()
    why = accounting_off(conf)
    if why is None:
        return None
    settings.status_command = "squeue"
    line = f"metaeval: note: SLURM keeps no accounting here ({why}): job states from squeue, not sacct"
    age = min_job_age(conf)
    wait = getattr(settings, "init_seconds_before_status_checks", None) or PLUGIN_INIT_SECONDS
    if age is not None and age < 3 * wait:
        settings.init_seconds_before_status_checks = max(1, age // 3)
        line += f", first asked after {settings.init_seconds_before_status_checks} s (MinJobAge = {age} s)"
    print(line, file=sys.stderr, flush=True)
    return line


_ERROR = re.compile(r"^Error in rule (?P<rule>\S+?):\s*$")
_FIELD = re.compile(r"^ {4}(?P<key>[a-z_]+): (?P<value>.*)$")


def failed_jobs(log_text: str) -> list[dict[str, str]]:
    """The failed jobs of Snakemake's log of a run: ``[{"rule", "jobid", "log", "output", "message",
    ...}]`` (the fields of each ``Error in rule NAME:`` block, ``log`` without Snakemake's
    "(check log file(s) ...)"), in order; a job reported again (``--restart-times``, or the
    cluster job's own report in its log, which ``show-failed-logs`` copies) once, its fields merged."""
    blocks: list[dict[str, str]] = []
    current: dict[str, str] | None = None
    for line in log_text.splitlines():
        m = _ERROR.match(line)
        if m:
            current = {"rule": m["rule"]}
            blocks.append(current)
        elif current is not None:
            f = _FIELD.match(line)
            if f:
                current.setdefault(f["key"], f["value"].replace(" (check log file(s) for error details)", ""))
            elif line.strip() and not line.startswith(" "):   # the block ends at a line not indented
                current = None
    jobs: dict[tuple[str, str], dict[str, str]] = {}
    for b in blocks:                          # one job, one set of outputs (its log names the job's too)
        key = (b["rule"], b.get("output") or b.get("log", "").split(",")[0] or b.get("jobid", ""))
        jobs[key] = {**b, **jobs.get(key, {})}
    return list(jobs.values())


def _last_error(paths: list[str]) -> str:
    """The error a job's logs end with: the last ``metaeval: error:`` line, else the last line
    that is not blank; '' when the logs hold nothing."""
    last = ""
    for p in paths:
        try:
            lines = Path(p).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        errors = [ln for ln in lines if ln.startswith("metaeval: error: ")]
        if errors:
            return errors[-1][len("metaeval: error: "):].strip()
        text = [ln.strip() for ln in lines if ln.strip() and not set(ln.strip()) <= set("=-")]
        if text:
            last = text[-1]
    return last


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(0, width - 3)] + "..."


def failed_job_lines(snakemake_logs: list[str] | str | None) -> list[str]:
    """One line per failed job of the run whose Snakemake logs are ``snakemake_logs`` (the
    ``log`` an ``onerror:`` handler is given): ``metaeval: failed: RULE (LOG): ERROR`` with the
    error the job's own log ends with, each line at most :data:`MAX_LINE` characters."""
    if isinstance(snakemake_logs, str):
        snakemake_logs = [snakemake_logs]
    text = ""
    for p in snakemake_logs or []:
        try:
            text += Path(p).read_text(encoding="utf-8", errors="replace") + "\n"
        except OSError:
            continue
    lines = []
    for job in failed_jobs(text):
        logs = [p.strip() for p in job.get("log", "").split(",") if p.strip()]
        where = logs[0] if logs else _short(job.get("output", "").split(",")[0].strip(), 80)
        error = _last_error(logs) or job.get("message", "") or "see Snakemake's report above"
        if error == "None":
            error = "see Snakemake's report above"
        head = f"metaeval: failed: {job['rule']} ({where}): "
        lines.append(head + _short(error, max(40, MAX_LINE - len(head))))
    return lines


def print_failed_jobs(snakemake_logs: list[str] | str | None, file=None) -> list[str]:
    """Print :func:`failed_job_lines` (to ``file``, default stderr); returns them."""
    lines = failed_job_lines(snakemake_logs)
    for line in lines:
        print(line, file=file if file is not None else sys.stderr, flush=True)
    return lines


if __name__ == "__main__":
    sys.exit(main())
