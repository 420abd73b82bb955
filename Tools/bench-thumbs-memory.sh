#!/usr/bin/env bash
# Peak RSS of `picturebook thumbs` (and of `prepare --stages thumbs`) on one book of 24, 240 and
# 2000 pages: the overview sheets are written a row band at a time, so the peak should not grow
# with the book. Prints one line per size. Not part of `make test` (figures, not assertions).
#
#   Tools/bench-thumbs-memory.sh                       # release build, 24 240 2000 pages
#   PB=.build/debug/picturebook Tools/bench-thumbs-memory.sh 24 240
#   SIZE=1200x1500 Tools/bench-thumbs-memory.sh        # larger scans
#   PREPARE=0 Tools/bench-thumbs-memory.sh 2000         # thumbs alone (half the time)
#   STAGES=analyze,clear,ocr,popout,thumbs,export Tools/bench-thumbs-memory.sh   # prepare with every stage
#
# The big books are made from one generated 24-page book (SIZE, default 400x500): its scans are
# hard-linked under new names, page-0001.jpg … page-2000.jpg, with a book.json listing them, so a
# 2000-page book costs seconds to make. Every page is still decoded, shrunk and placed. Needs
# /usr/bin/time (Tools/setup.sh --bench) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-400x500}
STAGES=${STAGES:-thumbs}
WORK=${WORK:-.build/bench-thumbs-memory}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(24 240 2000)

command -v /usr/bin/time >/dev/null || { echo "bench-thumbs-memory: /usr/bin/time is missing (Tools/setup.sh --bench)" >&2; exit 1; }
. Tools/release-binary.sh
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

template="$WORK/template-$SIZE"
[ -f "$template/book.json" ] || "$PB" generate --no-clean --no-truth --pages 24 --size "$SIZE" --seed 3 --out "$template" >/dev/null

rss() { awk -F': ' '/Maximum resident/ {printf "%.0f", $2 / 1024}' "$1"; }

echo "bench-thumbs-memory: $PB, pages $SIZE, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in "${sizes[@]}"; do
    dir="$WORK/book-$n"
    rm -rf "$dir" "$WORK/out-$n" "$WORK/lib-$n"
    mkdir -p "$dir"
    python3 Tools/stretch-book.py "$template" "$dir" "$n"
    start=$(date +%s.%N)
    /usr/bin/time -v -o "$WORK/thumbs-$n.txt" "$PB" thumbs "$dir" --out "$WORK/out-$n" >/dev/null 2>"$WORK/thumbs-$n.err" || { cat "$WORK/thumbs-$n.err" >&2; exit 1; }
    end=$(date +%s.%N)
    sheets=$(ls "$WORK/out-$n/book-$n" | grep -c '^overview')
    prepared="not run"
    if [ "${PREPARE:-1}" != 0 ]; then
        mkdir -p "$WORK/lib-$n" && mv "$dir" "$WORK/lib-$n/book"
        /usr/bin/time -v -o "$WORK/prepare-$n.txt" "$PB" prepare "$WORK/lib-$n" --stages "$STAGES" >/dev/null 2>"$WORK/prepare-$n.err" || { cat "$WORK/prepare-$n.err" >&2; exit 1; }
        prepared="$(rss "$WORK/prepare-$n.txt") MiB ($(awk -F': ' '/Elapsed/ {print $2}' "$WORK/prepare-$n.txt") elapsed)"
    fi
    printf '%5d pages: thumbs peak RSS %4s MiB (%d overview sheet(s), %.1f s); prepare --stages %s peak RSS %s\n' \
        "$n" "$(rss "$WORK/thumbs-$n.txt")" "$sheets" "$(echo "$end - $start" | bc)" "$STAGES" "$prepared"
    rm -rf "$WORK/lib-$n" "$WORK/out-$n" "$dir"
done
