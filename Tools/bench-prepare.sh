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
#   NICE=15 DEADLINE="21:40" Tools/bench-prepare.sh 1000   # niced; stopped at 21:40 UTC if not done
#
# The shards run under `nice -n $NICE` (default 15) so a shared machine's other work is not
# starved. Per-stage figures come from the per-book JSON lines, so a run stopped at DEADLINE
# (SIGTERM to both shards; HH:MM, UTC) still reports what it did, and scales from that. Each
# stage's pages/s is given from the wall time spent in it and from its CPU time (user + system,
# Tesseract included): on a loaded machine the first is mostly waiting for a core.
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
. Tools/release-binary.sh

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

NICE=${NICE:-15}
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench-prepare: $N books × $PAGES pages ($SIZE) in $lib, $PROCS processes at nice $NICE, $(date -u '+%F %H:%M UTC'), load: $load_start" >&2
start=$(date +%s.%N)
pids=()
for k in $(seq 1 $PROCS); do
    /usr/bin/time -v -o "$WORK/time-$k.txt" nice -n "$NICE" "$PB" prepare "$lib" --shard "$k/$PROCS" --json >"$WORK/shard-$k.jsonl" 2>"$WORK/shard-$k.err" &
    pids+=($!)
done
status=0
stopped=0
if [ -n "${DEADLINE:-}" ]; then
    stop_at=$(date -u -d "$DEADLINE" +%s)
    while true; do
        alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 1 ] || break
        if [ "$(date -u +%s)" -ge "$stop_at" ]; then
            echo "bench-prepare: DEADLINE $DEADLINE reached, stopping both shards" >&2
            stopped=1
            # /usr/bin/time's child is prepare (via nice, which execs): stop it, not time.
            for p in "${pids[@]}"; do pkill -TERM -P "$p" 2>/dev/null || true; done
            break
        fi
        sleep 5
    done
fi
for p in "${pids[@]}"; do wait "$p" || status=1; done
end=$(date +%s.%N)
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
reruns=""
if [ $stopped = 0 ]; then
    /usr/bin/time -v -o "$WORK/time-merge.txt" "$PB" prepare "$lib" --merge >/dev/null 2>"$WORK/merge.err" || status=1
    # The re-run with nothing changed, RERUNS times (default 3): wall and CPU time of each. On a
    # loaded machine the wall time is mostly waiting for a core (compare `picturebook --help`'s, printed
    # too); the CPU time (user + system) is what the re-run costs.
    for i in $(seq 1 "${RERUNS:-3}"); do
        /usr/bin/time -f "%e %U %S" -o "$WORK/rerun-$i.time" "$PB" prepare "$lib" --json >"$WORK/rerun-$i.jsonl" 2>/dev/null || status=1
        reruns+="$(cut -d' ' -f1 "$WORK/rerun-$i.time") "
    done
    [ $status -eq 0 ] || { echo "bench-prepare: a run failed; see $WORK/*.err" >&2; cat "$WORK"/*.err >&2; exit 1; }
fi

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
python3 - "$WORK" "$N" "$PAGES" "$PROCS" "$start" "$end" "$reruns" "$mem_lines" "$help" "$stopped" "$load_start" "$load_end" "$SIZE" <<'PY'
import json, sys, re
work, n, pages, procs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
wall = float(sys.argv[6]) - float(sys.argv[5])
reruns = [float(x) for x in sys.argv[7].split()]
stopped = sys.argv[10] == "1"
stages, rss, cpu_total, books_done = {}, [], [], 0
def field(text, name):
    m = re.search(name + r": ([0-9.]+)", text)
    return float(m.group(1)) if m else 0.0
for k in range(1, procs + 1):
    # Per-book lines, not the summary: a run stopped at its deadline has no summary line.
    for l in open(f"{work}/shard-{k}.jsonl"):
        if not l.strip(): continue
        e = json.loads(l)
        if e.get("event") != "book": continue
        if e["status"] in ("done", "skipped"): books_done += 1
        for s in e["stages"]:
            if s["status"] != "done": continue
            t = stages.setdefault(s["stage"], [0, 0.0, 0.0])
            t[0] += s["pages"]; t[1] += s["seconds"]; t[2] += s.get("cpuSeconds") or 0
    text = open(f"{work}/time-{k}.txt").read()
    rss.append(field(text, r"Maximum resident set size \(kbytes\)"))
    cpu_total.append(field(text, r"User time \(seconds\)") + field(text, r"System time \(seconds\)"))
done_pages = books_done * pages
print(f"library: {n} books × {pages} pages ({sys.argv[13]}) = {n * pages} pages, {procs} processes (--shard K/{procs}), load {sys.argv[11]} at the start, {sys.argv[12]} at the end")
if stopped:
    print(f"STOPPED at the deadline: {books_done} of {n} books ({done_pages} pages) finished in {wall:.1f} s")
print(f"wall time: {wall:.1f} s  ({done_pages / wall:.2f} pages/s, {books_done / wall:.3f} books/s for the machine)")
cpu = sum(cpu_total)
print(f"CPU time (user + system, with children): {' + '.join(f'{c:.1f}' for c in cpu_total)} = {cpu:.1f} s"
      f" ({cpu / max(1, done_pages):.4f} CPU-s per page; the two processes had {cpu / wall / procs * 100:.0f} % of a core each on average)")
print("per stage (time in the stage summed over both processes; pages/s per process = pages / that time):")
for name, (p, s, c) in stages.items():
    print(f"  {name:8s} {p:7d} pages  wall {s:8.1f} s {p / s if s else 0:7.1f} pages/s   CPU {c:8.1f} s {p / c if c else 0:7.1f} pages per CPU-s")
merge = ""
try:
    merge_kb = field(open(f"{work}/time-merge.txt").read(), r"Maximum resident set size \(kbytes\)")
    merge = f"; merge {merge_kb / 1024:.0f} MiB"
except OSError:
    pass
print(f"peak RSS: prepare shards {', '.join(f'{r / 1024:.0f}' for r in rss)} MiB{merge}")
if reruns:
    loops = []
    for i in range(1, len(reruns) + 1):
        last = [json.loads(l) for l in open(f"{work}/rerun-{i}.jsonl") if l.strip()][-1]
        if last["skipped"] != last["books"]:
            print(f"re-run {i}: {last['books'] - last['skipped']} book(s) were not up to date")
        loops.append(last["seconds"])
    rerun_cpu = [sum(map(float, open(f"{work}/rerun-{i}.time").read().split()[1:3])) for i in range(1, len(reruns) + 1)]
    print(f"re-run with nothing changed ({n} books): " + ", ".join(f"{w:.2f}" for w in reruns)
          + f" s wall (median {sorted(reruns)[len(reruns) // 2]:.2f} s; run loop "
          + ", ".join(f"{x:.2f}" for x in loops) + " s; CPU user+sys " + ", ".join(f"{c:.2f}" for c in rerun_cpu)
          + f" s) (target ≤ 1 s); `picturebook --help` alone: {sys.argv[9]}")
books, nodes = 100_000, 100
if books_done:
    per_node = books_done / wall  # books per second on one node like this one, as loaded as it was
    eta = books / nodes / per_node
    print(f"extrapolated from the wall time: {books} books on {nodes} nodes like this one ({procs} processes each, as loaded): "
          f"{eta / 3600:.1f} h (books per node ÷ books per second measured here)")
    cpu_per_book = cpu / books_done
    eta_cpu = books / nodes * cpu_per_book / procs
    print(f"extrapolated from the CPU time: {cpu_per_book:.2f} CPU-s per book × {books // nodes} books per node ÷ {procs} cores "
          f"= {eta_cpu / 3600:.2f} h per node, if its {procs} cores are all ours (an estimate, not a measured wall time)")
    print("both assume shards of equal size and shared storage that keeps up")
mem = [l.split() for l in sys.argv[8].splitlines() if l.strip()]
for p, t, pr in mem:
    print(f"one book of {p} pages: peak RSS thumbs {int(t) / 1024:.0f} MiB, prepare {int(pr) / 1024:.0f} MiB")
PY
