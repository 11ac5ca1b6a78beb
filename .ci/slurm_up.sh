#!/usr/bin/env bash
# A real one-node SLURM cluster on this machine, as on many departmental clusters: Debian's
# slurm-wlm and munge, slurmctld and slurmd on localhost, accounting storage off (no slurmdbd, so
# `sacct` answers "Slurm accounting storage is disabled").  Used by .ci/run to run the default DAG
# through workflow/profiles/slurm (python -m metaeval.dagrun).  Idempotent: a second call restarts
# the daemons it started with the same configuration.  Needs root (or sudo).
set -euo pipefail

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# Debian's packages, as .ci/run installs chromium: nothing installed by hand survives a new machine
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmd >/dev/null 2>&1 \
   || ! command -v sbatch >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# munge: the key (the package's postinst writes one; a fresh one if not), then the daemon as its user
if [ ! -s /etc/munge/munge.key ]; then
  $SUDO mungekey --create --force
fi
$SUDO chown munge:munge /etc/munge/munge.key
$SUDO chmod 0400 /etc/munge/munge.key
$SUDO install -d -o munge -g munge -m 0755 /run/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  $SUDO runuser -u munge -- /usr/sbin/munged --force
fi
for _ in $(seq 50); do
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then break; fi
  sleep 0.2
done
munge -n | unmunge >/dev/null || { echo "slurm_up: munged does not answer" >&2; exit 1; }

# slurm.conf: this host as the controller and the only node (all its cores, 90% of its memory),
# one default partition, no accounting storage, MinJobAge at SLURM's default (finished jobs stay
# visible to squeue for 300 s, which the status queries through squeue rely on)
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
conf=$(cat <<EOF
# written by .ci/slurm_up.sh: a one-node cluster without accounting storage
ClusterName=metaeval
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
)
$SUDO install -d -m 0755 /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
echo "$conf" | $SUDO tee /etc/slurm/slurm.conf >/dev/null

# the daemons: the ones an earlier call started (their pid files) stopped first, then started anew
for d in slurmd slurmctld; do
  if [ -s "/run/$d.pid" ] && $SUDO kill -0 "$(cat "/run/$d.pid")" 2>/dev/null; then
    pid=$(cat "/run/$d.pid")
    $SUDO kill "$pid"
    for _ in $(seq 100); do $SUDO kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
done
$SUDO /usr/sbin/slurmctld
$SUDO /usr/sbin/slurmd

# ready when the node takes jobs
for _ in $(seq 120); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  case "$state" in idle*|mixed*|allocated*) break ;; esac
  sleep 0.5
done
case "$state" in
  idle*|mixed*|allocated*) ;;
  *) echo "slurm_up: node $host is '$state', not idle (see /var/log/slurm/)" >&2; exit 1 ;;
esac
echo "slurm_up: one-node SLURM ($(sinfo --version)) on $host, $cpus CPUs, accounting storage off"
