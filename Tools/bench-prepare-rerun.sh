#!/usr/bin/env bash
# The re-run with nothing changed (issue #21's target: ≤ 1 s for the whole library): `prepare`
# RUNS times (default 3) on libraries that are already prepared, printing for each run the wall
# time, the CPU time (user + system) and the load average, then the median wall. For comparison
# it also times `picturebook --help` (the program's start alone) the same way: on a loaded
# machine most of the wall time is waiting for a core, and what is left of the CPU time after the
# start is the re-run's own work.
#
#   Tools/bench-prepare-rerun.sh LIBRARY…                 # release build
#   PB=/tmp/picturebook RUNS=5 Tools/bench-prepare-rerun.sh lib1 lib2
#
# Each library must be prepared already with the same stages and detector (a re-run that finds
# work to do is reported, and its time is not a no-change figure). Not part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: Tools/bench-prepare-rerun.sh LIBRARY…" >&2; exit 2; }
if [ -z "${PB:-}" ]; then
    swift build -c release --product picturebook >&2
    PB="$(swift build -c release --show-bin-path)/picturebook"
fi
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

timed() { # label, command…: one line of wall, CPU and load
    local label=$1; shift
    local load; load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
    read -r wall user sys <"$tmp/t"
    printf '  %-10s wall %5.2f s  CPU %5.2f s (user %.2f + sys %.2f)  load %s\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" "$user" "$sys" "$load" >&2
    echo "$wall $(echo "$user + $sys" | bc)"
}

echo "bench-prepare-rerun: $PB, $(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for lib in "$@"; do
    books=$("$PB" prepare "$lib" --list | wc -l)
    pages=$(find "$lib" -name book.json -not -path '*/.picturebook/*' -exec python3 -c 'import json,sys; print(sum(len(json.load(open(f))["pages"]) for f in sys.argv[1:]))' {} + | paste -sd+ | bc)
    echo "$lib: $books books, $pages pages"
    walls="" cpus="" hw="" hc=""
    for i in $(seq 1 "$RUNS"); do
        read -r w c < <(timed "help $i" "$PB" --help)
        hw+="$w "; hc+="$c "
        read -r w c < <(timed "re-run $i" "$PB" prepare "$lib" --json)
        walls+="$w "; cpus+="$c "
        last=$(tail -1 "$tmp/out")
        python3 -c 'import json,sys; s=json.loads(sys.argv[1]); n=s["books"]-s["skipped"]; print(f"    WARNING: {n} book(s) were not up to date: not a no-change run") if n else None' "$last" >&2
    done 2>&1
    echo "  median of $RUNS: re-run wall $(echo "$walls" | median) s, CPU $(echo "$cpus" | median) s; --help wall $(echo "$hw" | median) s, CPU $(echo "$hc" | median) s (target: re-run ≤ 1 s)"
done
