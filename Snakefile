# metaeval pipeline: meta-evaluate IR metrics on every configured collection and regenerate the
# tables and figures of Sakai (2007a, 2007b), plus the reproduction of Kishida (2005).
#
#   snakemake --profile workflow/profiles/default            # the shipped config.yaml
#   snakemake --profile workflow/profiles/default --configfile config/examples/trec-dl19.yaml
#   snakemake --report results/report.html                   # HTML report of every table/figure
#
# Nothing is computed here: every rule in workflow/rules/ runs one `metaeval` command (`shell:`;
# `metaeval stage NAME` for the per-collection stages, metaeval.pipeline), so a job imports neither
# Snakemake nor more of metaeval than its stage needs. See docs/pipeline.md.

from snakemake.utils import min_version

min_version("9.0")

# The shipped config.yaml, unless config files are given on the command line (--configfile): those
# then replace it instead of being merged into it (so an example config does not add its
# collections to the four defaults). --config KEY=VALUE overrides either.
if not workflow.overwrite_configfiles:

    configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/metrics.smk"
include: "workflow/rules/incompleteness.smk"
include: "workflow/rules/labelled.smk"         # a labelled stage without a rule of its own
include: "workflow/rules/meta.smk"
include: "workflow/rules/summary.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/own_job.smk"          # a stage with a job of its own without a rule of its own (last)


rule all:
    default_target: True
    input:
        all_targets(),
    # one line instead of Snakemake's listing of every input (15 KB on DL20)
    message:
        "every table and figure of " + ", ".join(COLLECTIONS)
    localrule: True


# What the jobs noticed (warnings and notes in RES/logs/, e.g. a run missing topics) is listed once
# each on the console at the end of the run (metaeval.logsummary; the logs written by this run).
import time as _time

_RUN_START = _time.time()


onsuccess:
    from metaeval.dagrun import end_scheduler_timers
    from metaeval.logsummary import print_log_summary

    print_log_summary(f"{RES}/logs", since=_RUN_START)
    end_scheduler_timers()   # the run ends with its last job, not a second after (metaeval.dagrun)


# The run ends with one short line per failed job (its rule, its log and the error the log ends
# with; metaeval.dagrun), after Snakemake's own report of each.
onerror:
    from metaeval.dagrun import end_scheduler_timers, print_failed_jobs
    from metaeval.logsummary import print_log_summary

    print_log_summary(f"{RES}/logs", since=_RUN_START)
    print_failed_jobs(log)
    end_scheduler_timers()
