#!/usr/bin/env bash
# A stand-in for a cluster's submit command (sbatch, qsub): runs the job script Snakemake hands
# over as its own detached process and prints a job id. Used by the tests to prove that every job
# is self-contained (it re-reads the workflow and config and finds its inputs on disk only).
set -euo pipefail
jobscript="$1"
logdir="${METAEVAL_CLUSTER_LOGS:-.snakemake/local-cluster}"
mkdir -p "$logdir"
nohup bash "$jobscript" > "$logdir/$(basename "$jobscript").out" 2>&1 < /dev/null &
echo "$!"
