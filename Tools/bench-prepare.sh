#!/usr/bin/env bash
# Benchmark: `picturebook prepare` over a generated library, two shard processes on this machine,
# then the figures a planner needs: pages per second per stage, peak RSS, a re-run's time, and the
# extrapolated wall time for 100,000 books on 100 such nodes.
#
#   Tools/bench-prepare.sh              # 50 books × 24 pages
#   Tools/bench-prepare.sh 1000         # 1000 books × 24 pages
#   PB=.build/debug/picturebook Tools/bench-prepare.sh 50    # an already built binary
#   PAGES=24 SIZE=400x500 WORK=/tmp/pb-bench Tools/bench-prepare.sh
#   MEMORY=1 Tools/bench-prepare.sh     # also peak RSS of thumbs and prepare on one book of 24 and 240 pages
#
# The books are made by `picturebook generate` (small pages: SIZE, default 400x500). Generating
# 1000 books would take longer than preparing them, so TEMPLATES distinct books (default 10) are
# generated and the library is made of copies of them under distinct names; every copy is
# prepared in full (nothing in prepare knows two books are alike). Needs /usr/bin/time
# (Tools/setup.sh --bench installs it) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-50}
PAGES=${PAGES:-24}
SIZE=${SIZE:-400x500}
TEMPLATES=${TEMPLATES:-10}
WORK=${WORK:-.build/bench-prepare}
PROCS=2

command -v /usr/bin/time >/dev/null || { echo "bench-prepare: /usr/bin/time is missing (Tools/setup.sh --bench)" >&2; exit 1; }
if [ -z "${PB:-}" ]; then
    swift build -c release --product picturebook >&2
    PB="$(swift build -c release --show-bin-path)/picturebook"
fi
PB=$(cd "$(dirname "$PB")" && pwd)/$(basename "$PB")

mkdir -p "$WORK/templates"
WORK=$(cd "$WORK" && pwd)
for t in $(seq 1 "$TEMPLATES"); do
    dir="$WORK/templates/t$t-$PAGES-$SIZE"
    [ -f "$dir/book.json" ] || "$PB" generate --no-clean --no-truth --pages "$PAGES" --size "$SIZE" --seed "$t" --out "$dir" >/dev/null 2>"$WORK/generate.err" || { cat "$WORK/generate.err" >&2; exit 1; }
done

lib="$WORK/library-$N"
rm -rf "$lib"
mkdir -p "$lib"
for i in $(seq 1 "$N"); do
    t=$(( (i - 1) % TEMPLATES + 1 ))
    cp -a "$WORK/templates/t$t-$PAGES-$SIZE" "$lib/book-$(printf %05d "$i")"
done

echo "bench-prepare: $N books × $PAGES pages ($SIZE) in $lib, $PROCS processes, load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
start=$(date +%s.%N)
pids=()
for k in $(seq 1 $PROCS); do
    /usr/bin/time -v -o "$WORK/time-$k.txt" "$PB" prepare "$lib" --shard "$k/$PROCS" --json >"$WORK/shard-$k.jsonl" 2>"$WORK/shard-$k.err" &
    pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
end=$(date +%s.%N)
/usr/bin/time -v -o "$WORK/time-merge.txt" "$PB" prepare "$lib" --merge >/dev/null 2>"$WORK/merge.err" || status=1
# The re-run with nothing changed, RERUNS times (default 3): wall and CPU time of each. On a
# loaded machine the wall time is mostly waiting for a core (compare `picturebook --help`'s, printed
# too); the CPU time (user + system) is what the re-run costs.
reruns=""
for i in $(seq 1 "${RERUNS:-3}"); do
    /usr/bin/time -f "%e %U %S" -o "$WORK/rerun-$i.time" "$PB" prepare "$lib" --json >"$WORK/rerun-$i.jsonl" 2>/dev/null || status=1
    reruns+="$(cut -d' ' -f1 "$WORK/rerun-$i.time") "
done
[ $status -eq 0 ] || { echo "bench-prepare: a run failed; see $WORK/*.err" >&2; cat "$WORK"/*.err >&2; exit 1; }

mem_lines=""
if [ -n "${MEMORY:-}" ]; then
    for p in 24 240; do
        m="$WORK/memory-$p"
        rm -rf "$m" && mkdir -p "$m/lib"
        "$PB" generate --no-clean --no-truth --pages "$p" --size "$SIZE" --seed 7 --out "$m/lib/book" >/dev/null 2>&1
        /usr/bin/time -v -o "$m/thumbs.txt" "$PB" thumbs "$m/lib/book" --out "$m/thumbs-only" >/dev/null 2>&1
        /usr/bin/time -v -o "$m/prepare.txt" "$PB" prepare "$m/lib" >/dev/null 2>&1
        mem_lines+="$p $(grep 'Maximum resident' "$m/thumbs.txt" | awk '{print $NF}') $(grep 'Maximum resident' "$m/prepare.txt" | awk '{print $NF}')"$'\n'
    done
fi

help=$( { /usr/bin/time -f "%e s wall, %U+%S s CPU" "$PB" --help >/dev/null; } 2>&1 | tail -1)
python3 - "$WORK" "$N" "$PAGES" "$PROCS" "$start" "$end" "$reruns" "$mem_lines" "$help" <<'PY'
import json, sys, re
work, n, pages, procs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
wall = float(sys.argv[6]) - float(sys.argv[5])
reruns = [float(x) for x in sys.argv[7].split()]
stages, rss = {}, []
for k in range(1, procs + 1):
    lines = [json.loads(l) for l in open(f"{work}/shard-{k}.jsonl") if l.strip()]
    summary = lines[-1]
    for s in summary["stages"]:
        t = stages.setdefault(s["stage"], [0, 0.0])
        t[0] += s["pages"]; t[1] += s["seconds"]
    rss.append(int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(f"{work}/time-{k}.txt").read()).group(1)))
merge_rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(f"{work}/time-merge.txt").read()).group(1))
total_pages = n * pages
print(f"library: {n} books × {pages} pages = {total_pages} pages, {procs} processes (--shard K/{procs})")
print(f"wall time: {wall:.1f} s  ({total_pages / wall:.1f} pages/s, {n / wall:.2f} books/s for the machine)")
print("per stage (one process's time in the stage, both processes summed):")
for name, (p, s) in stages.items():
    print(f"  {name:8s} {p:7d} pages {s:8.1f} s  {p / s if s else 0:7.1f} pages/s per process")
print(f"peak RSS: prepare shards {', '.join(f'{r / 1024:.0f}' for r in rss)} MiB; merge {merge_rss / 1024:.0f} MiB")
if reruns:
    loops = []
    for i in range(1, len(reruns) + 1):
        last = [json.loads(l) for l in open(f"{work}/rerun-{i}.jsonl") if l.strip()][-1]
        if last["skipped"] != last["books"]:
            print(f"re-run {i}: {last['books'] - last['skipped']} book(s) were not up to date")
        loops.append(last["seconds"])
    cpu = [sum(map(float, open(f"{work}/rerun-{i}.time").read().split()[1:3])) for i in range(1, len(reruns) + 1)]
    print(f"re-run with nothing changed ({n} books): " + ", ".join(f"{w:.2f}" for w in reruns)
          + f" s wall (median {sorted(reruns)[len(reruns) // 2]:.2f} s; run loop "
          + ", ".join(f"{x:.2f}" for x in loops) + " s; CPU user+sys " + ", ".join(f"{c:.2f}" for c in cpu)
          + f" s) (target ≤ 1 s); `picturebook --help` alone: {sys.argv[9]}")
per_node = n / wall  # books per second on one node like this one
books, nodes = 100_000, 100
eta = books / nodes / per_node
print(f"extrapolated: {books} books on {nodes} such nodes ({procs} processes each): {eta / 3600:.1f} h "
      f"(wall time scales with books per node; assumes the shared storage keeps up)")
mem = [l.split() for l in sys.argv[8].splitlines() if l.strip()]
for p, t, pr in mem:
    print(f"one book of {p} pages: peak RSS thumbs {int(t) / 1024:.0f} MiB, prepare {int(pr) / 1024:.0f} MiB")
PY
