#!/usr/bin/env bash
# Slurm job array: one array task per shard, every task on the same shared library.
#
#   sbatch --array=1-100 Tools/cluster/slurm-prepare.sh /shared/library
#   Tools/cluster/slurm-submit.sh /shared/library 100     # the array, then the merge after it
#
# Task K of an array of N runs `picturebook prepare LIBRARY --shard K/N`. A task that dies (node
# lost, preempted, --time hit) is simply run again — by --requeue or by resubmitting that index
# (sbatch --array=17) — and redoes only what it had not finished. Its book locks name this node and
# a pid that is gone, so a re-run on the same node takes them over at once; on another node after
# --lock-timeout (default 6 h; lower it to a little over the longest book's time).
#
# DRY_RUN=1 prints the command instead of running it (Tools/cluster/test-examples.sh uses it).
#SBATCH --job-name=picturebook-prepare
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=24:00:00
#SBATCH --requeue
#SBATCH --output=picturebook-prepare-%A-%a.out
set -euo pipefail

LIBRARY=${1:?usage: sbatch --array=1-N slurm-prepare.sh LIBRARY_DIR}
PB=${PB:-picturebook}
K=${SLURM_ARRAY_TASK_ID:?not an array task: submit with sbatch --array=1-N}
# SLURM_ARRAY_TASK_COUNT is the number of tasks; with --array=1-N it equals the highest index.
# A sparse resubmission (--array=17) would make it 1, so SHARDS pins N when set.
N=${SHARDS:-${SLURM_ARRAY_TASK_MAX:?}}
(( K >= 1 && K <= N )) || { echo "slurm-prepare: task $K outside 1..$N (submit with --array=1-N)" >&2; exit 2; }

cmd=("$PB" prepare "$LIBRARY" --shard "$K/$N" --json)
if [ -n "${DRY_RUN:-}" ]; then echo "${cmd[*]}"; exit 0; fi
exec "${cmd[@]}"
