#!/usr/bin/env bash
# GNU parallel over SSH: N shards spread over the hosts in a file, every host mounting the library
# at the same path, then the merge here.
#
#   Tools/cluster/parallel-ssh.sh /shared/library hosts.txt 100
#
# hosts.txt is a GNU parallel --sshloginfile: one "CORES/user@host" a line; a host runs as many
# shards at once as it has slots ("1/node1" runs one at a time; a shard uses 2 cores itself).
# ":" is this machine. A shard that fails is retried (--retries), on any host, and redoes only its
# unfinished books; the job log lets a re-invocation skip shards already done (--resume-failed).
# DRY_RUN=1 prints the per-shard commands instead.
set -euo pipefail
LIBRARY=${1:?usage: parallel-ssh.sh LIBRARY_DIR HOSTS_FILE SHARDS}
HOSTS=${2:?usage: parallel-ssh.sh LIBRARY_DIR HOSTS_FILE SHARDS}
N=${3:?usage: parallel-ssh.sh LIBRARY_DIR HOSTS_FILE SHARDS}
PB=${PB:-picturebook}
LOGS=${LOGS:-prepare-logs}

if [ -n "${DRY_RUN:-}" ]; then
    for k in $(seq 1 "$N"); do echo "$PB prepare $LIBRARY --shard $k/$N --json"; done
    exit 0
fi
command -v parallel >/dev/null || { echo "parallel-ssh: GNU parallel is missing (apt-get install parallel)" >&2; exit 1; }
mkdir -p "$LOGS"
# {} is the shard number K (1…N). --results brings each shard's JSON Lines and messages back to
# this machine: LOGS/1/K/stdout and LOGS/1/K/stderr.
seq 1 "$N" | parallel --sshloginfile "$HOSTS" --retries 3 --joblog "$LOGS/joblog" --resume-failed \
    --results "$LOGS" --halt never "$(printf '%q' "$PB") prepare $(printf '%q' "$LIBRARY") --shard {}/$N --json"
"$PB" prepare "$LIBRARY" --merge
