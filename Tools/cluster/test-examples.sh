#!/usr/bin/env bash
# Checks the cluster examples locally: the scripts parse, the YAML parses and agrees with itself,
# and each engine's numbering (Slurm 1…N, Kubernetes 0…N-1, GNU parallel 1…N) yields the shards
# 1/N … N/N exactly once. With a built picturebook (PB=path) and a library (LIBRARY=dir), it also
# lists every shard's books with the commands the engines would run and checks that they
# partition the library; with GNU parallel installed and RUN=1 it runs parallel-ssh.sh on this
# machine (sshlogin ":") for real.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "test-examples: FAIL: $*" >&2; exit 1; }

for f in "$here"/*.sh; do bash -n "$f" || fail "$f does not parse"; done
echo "ok: shell scripts parse"

python3 - "$here" <<'PY' || fail "YAML"
import sys, re, yaml
here = sys.argv[1]
job = yaml.safe_load(open(f"{here}/k8s-prepare.yaml"))
merge = yaml.safe_load(open(f"{here}/k8s-merge.yaml"))
spec = job["spec"]
assert job["kind"] == "Job" and spec["completionMode"] == "Indexed", "not an Indexed Job"
args = spec["template"]["spec"]["containers"][0]["args"][0]
n = int(re.search(r"--shard \"\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/(\d+)\"", args).group(1))
assert n == spec["completions"], f"--shard N={n} but completions={spec['completions']}"
assert merge["spec"]["template"]["spec"]["containers"][0]["command"][-1] == "--merge"
assert job["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == \
    merge["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]
print(f"ok: YAML parses; completions = shard count = {n}; merge uses the same volume")
PY

# Each engine's shard arguments for N tasks, one a line.
slurm_shards() { for k in $(seq 1 "$1"); do SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_MAX=$1 DRY_RUN=1 PB=echo "$here/slurm-prepare.sh" LIB; done; }
k8s_shards() {
    local args
    args=$(python3 -c "import yaml,sys; print(yaml.safe_load(open('$here/k8s-prepare.yaml'))['spec']['template']['spec']['containers'][0]['args'][0])")
    for i in $(seq 0 $(( $1 - 1 ))); do JOB_COMPLETION_INDEX=$i sh -c "picturebook() { echo picturebook \"\$@\"; }; ${args/exec /}"; done
}
parallel_shards() { DRY_RUN=1 PB=echo "$here/parallel-ssh.sh" LIB hosts "$1"; }
expect_all() { # name, N, lines
    local got want
    got=$(grep -o -- '--shard [0-9]*/[0-9]*' <<<"$3" | sort)
    want=$(for k in $(seq 1 "$2"); do echo "--shard $k/$2"; done | sort)
    [ "$got" = "$want" ] || fail "$1: shards are not 1/$2 … $2/$2 once each"
    echo "ok: $1 numbering gives shards 1/$2 … $2/$2 once each"
}
expect_all slurm 7 "$(slurm_shards 7)"
expect_all kubernetes 100 "$(k8s_shards 100)"
expect_all parallel 5 "$(parallel_shards 5)"
SLURM_ARRAY_TASK_ID=9 SLURM_ARRAY_TASK_MAX=8 DRY_RUN=1 "$here/slurm-prepare.sh" LIB 2>/dev/null && fail "slurm task outside 1..N accepted"
echo "ok: slurm refuses a task index outside 1..N"

if [ -n "${PB:-}" ] && [ -n "${LIBRARY:-}" ]; then
    all=$("$PB" prepare "$LIBRARY" --list | sort)
    for engine in slurm parallel; do
        for n in 1 3 7; do
            listed=$( "${engine}_shards" "$n" | grep -o -- '--shard [0-9]*/[0-9]*' | while read -r _ s; do "$PB" prepare "$LIBRARY" --list --shard "$s"; done | sort)
            [ "$listed" = "$all" ] || fail "$engine with $n shards: the shards' books are not the library's books once each"
        done
        echo "ok: $engine shards of $LIBRARY partition its $(wc -l <<<"$all") books (N = 1, 3, 7)"
    done
    if [ -n "${RUN:-}" ] && command -v parallel >/dev/null; then
        hosts=$(mktemp); echo ":" >"$hosts"
        LOGS=$(mktemp -d) PB="$PB" "$here/parallel-ssh.sh" "$LIBRARY" "$hosts" 3 || fail "parallel-ssh.sh run"
        [ -f "$LIBRARY/thumbs/library.png" ] || fail "parallel-ssh.sh left no library grid"
        echo "ok: parallel-ssh.sh ran 3 shards through GNU parallel and merged"
    fi
fi
echo "test-examples: all passed"
