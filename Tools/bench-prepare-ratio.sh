#!/usr/bin/env bash
# `picturebook prepare` on the four sample books from scratch against the same stages run by
# hand, one command per book and stage (analyze, clear, ocr, popout, thumbs, export iiif + alto),
# on identical fresh copies. Prints both wall times and their ratio (issue #21's target: ≤ 1.2×).
#
#   Tools/bench-prepare-ratio.sh                          # release build
#   PB=.build/debug/picturebook Tools/bench-prepare-ratio.sh
#   BOOKS="good-morning-farm little-horse" Tools/bench-prepare-ratio.sh   # some of the samples
#
# Each side gets a fresh copy of Books/ (scans, book.json and truth.json only); the two sides run
# one after the other, so on a machine others are loading the ratio is only as steady as the load
# (the load average is printed), so both sides' CPU time (user + system, with children) is
# compared too. Then prepare is run RERUNS more times (default 3) on the prepared books with
# nothing changed, and each re-run's wall and CPU time is printed (issue #21's target: ≤ 1 s for
# the whole library; on a loaded machine the wall time is mostly waiting for a core). Not part of
# `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

WORK=${WORK:-.build/bench-prepare-ratio}
JOBS=${JOBS:-2}
. Tools/release-binary.sh
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

fresh() {
    rm -rf "$1"
    mkdir -p "$1"
    for name in ${BOOKS:-$(cd Books && ls -d */ | tr -d /)}; do
        b=Books/$name
        mkdir -p "$1/$name"
        cp -p "$b"/book.json "$b"/*.jpg "$1/$name/"
        [ -f "$b/truth.json" ] && cp -p "$b/truth.json" "$1/$name/"
    done
}
now() { date +%s.%N; }

echo "bench-prepare-ratio: $PB, --jobs $JOBS, load $(cut -d' ' -f1-3 /proc/loadavg)"
fresh "$WORK/prepare"
s=$(now)
/usr/bin/time -f "%U %S" -o "$WORK/prepare.cpu" "$PB" prepare "$WORK/prepare" --jobs "$JOBS" --json >"$WORK/prepare.jsonl" 2>"$WORK/prepare.err" || { cat "$WORK/prepare.err" >&2; exit 1; }
prepare=$(echo "$(now) - $s" | bc)
reruns=""
for i in $(seq 1 "${RERUNS:-3}"); do
    /usr/bin/time -f "%e %U %S" -o "$WORK/rerun-$i.time" "$PB" prepare "$WORK/prepare" --jobs "$JOBS" --json >"$WORK/rerun-$i.jsonl" 2>"$WORK/rerun.err" || { cat "$WORK/rerun.err" >&2; exit 1; }
    reruns+="$(cut -d' ' -f1 "$WORK/rerun-$i.time") "
done
help=$( { /usr/bin/time -f "%e s wall, %U+%S s CPU" "$PB" --help >/dev/null; } 2>&1 | tail -1)

fresh "$WORK/hand"
: >"$WORK/hand.cpu"
T() { /usr/bin/time -a -f "%U %S" -o "$WORK/hand.cpu" "$@"; }
declare -A stage
for name in analyze clear ocr popout thumbs export; do stage[$name]=0; done
for book in "$WORK"/hand/*/; do
    book=${book%/}
    for name in analyze clear ocr popout thumbs export; do
        s=$(now)
        case $name in
            thumbs) T "$PB" thumbs "$book" --out "$WORK/hand-thumbs" >/dev/null 2>>"$WORK/hand.err" ;;
            export)
                T "$PB" export "$book" --format iiif --out "$book/manifest.json" >/dev/null 2>>"$WORK/hand.err"
                T "$PB" export "$book" --format alto --out "$book/alto" >/dev/null 2>>"$WORK/hand.err" ;;
            *) T "$PB" "$name" --jobs "$JOBS" "$book" >/dev/null 2>>"$WORK/hand.err" ;;
        esac || { echo "bench-prepare-ratio: $name $book failed" >&2; cat "$WORK/hand.err" >&2; exit 1; }
        stage[$name]=$(echo "${stage[$name]} + $(now) - $s" | bc)
    done
done
hand=0
for name in analyze clear ocr popout thumbs export; do hand=$(echo "$hand + ${stage[$name]}" | bc); done

python3 - "$WORK/prepare.jsonl" "$prepare" "$hand" "$reruns" "$WORK" "${stage[analyze]}" "${stage[clear]}" "${stage[ocr]}" "${stage[popout]}" "${stage[thumbs]}" "${stage[export]}" "$help" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
summary = lines[-1]
prepare, hand = float(sys.argv[2]), float(sys.argv[3])
by_hand = dict(zip(["analyze", "clear", "ocr", "popout", "thumbs", "export"], map(float, sys.argv[6:12])))
inside = {s["stage"]: s["seconds"] for s in summary["stages"]}
pages = max((s["pages"] for s in summary["stages"]), default=0)
print(f"sample books: {summary['books']}, {pages} pages")
print(f"{'stage':8s} {'by hand':>9s} {'in prepare':>11s}")
for name, t in by_hand.items():
    print(f"{name:8s} {t:8.2f}s {inside.get(name, 0):10.2f}s")
print(f"prepare from scratch: {prepare:.2f} s; stages by hand: {hand:.2f} s; ratio {prepare / hand:.2f}× (target ≤ 1.2×)")
# CPU time (user + system, with children such as Tesseract): the same comparison without the
# machine's load in it, which on a shared machine moves the wall-time ratio more than anything.
cpu_prepare = sum(map(float, open(f"{sys.argv[5]}/prepare.cpu").read().split()[-2:]))
cpu_hand = sum(float(x) for line in open(f"{sys.argv[5]}/hand.cpu") if not line.startswith("Command") for x in line.split()[:2])
print(f"CPU time (user+sys): prepare {cpu_prepare:.2f} s; by hand {cpu_hand:.2f} s; ratio {cpu_prepare / cpu_hand:.2f}×")
reruns = [float(x) for x in sys.argv[4].split()]
if reruns:
    inside = []
    for i in range(1, len(reruns) + 1):
        last = [json.loads(l) for l in open(f"{sys.argv[5]}/rerun-{i}.jsonl") if l.strip()][-1]
        if last["skipped"] != last["books"]:
            print(f"re-run {i}: {last['books'] - last['skipped']} book(s) were not up to date (a stage is not idempotent)")
        inside.append(last["seconds"])
    cpu = [sum(map(float, open(f"{sys.argv[5]}/rerun-{i}.time").read().split()[1:3])) for i in range(1, len(reruns) + 1)]
    med = sorted(reruns)[len(reruns) // 2]
    print(f"re-run with nothing changed ({summary['books']} books): " + ", ".join(f"{w:.2f}" for w in reruns)
          + f" s wall (median {med:.2f} s; run loop " + ", ".join(f"{x:.2f}" for x in inside) + " s; CPU user+sys "
          + ", ".join(f"{c:.2f}" for c in cpu) + f" s) (target ≤ 1 s); `picturebook --help` alone: {sys.argv[12]}")
PY
