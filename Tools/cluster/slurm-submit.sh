#!/usr/bin/env bash
# Submits the shard array and, held until every task has succeeded, the merge that draws the
# library grid.
#
#   Tools/cluster/slurm-submit.sh /shared/library 100
set -euo pipefail
LIBRARY=${1:?usage: slurm-submit.sh LIBRARY_DIR SHARDS}
N=${2:?usage: slurm-submit.sh LIBRARY_DIR SHARDS}
PB=${PB:-picturebook}
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable --array="1-$N" --export=ALL,SHARDS="$N",PB="$PB" "$here/slurm-prepare.sh" "$LIBRARY")
sbatch --parsable --dependency="afterok:$array" --job-name=picturebook-merge --cpus-per-task=1 --mem=1G \
    --wrap="$PB prepare '$LIBRARY' --merge"
echo "submitted array $array ($N shards) and its merge" >&2
